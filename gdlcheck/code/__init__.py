"""Checking code: proofs of torch modules by following the call they run.

* :mod:`~gdlcheck.code.prove`: :func:`prove_call`, the entry: the call's inputs, two real calls,
  the conclusion;
* :mod:`~gdlcheck.code.walk`: the dispatch mode that follows the call operation by operation;
* :mod:`~gdlcheck.code.table`: the one rule table, keyed by operation objects;
* :mod:`~gdlcheck.code.rules`: the rules, by kind of operation;
* :mod:`~gdlcheck.code.moves`: how a generator moves one tensor (the abstract value).

torch is imported only when a module is proved (the caller already has it).
"""

from gdlcheck.code.prove import prove_call

__all__ = ["prove_call"]
