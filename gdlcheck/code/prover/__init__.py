"""The proof of a torch module by following the call it runs (docs/code.md, docs/architecture.md).

* :mod:`~gdlcheck.code.prover.prove`: ``prove_call``, the entry: the call's arguments, two real calls,
  the conclusion;
* :mod:`~gdlcheck.code.prover.arguments`: how each generator moves each argument of the call;
* :mod:`~gdlcheck.code.prover.state`: what a call may change, fingerprinted before and after;
* :mod:`~gdlcheck.code.prover.patches`: every process-wide patch of a proof, behind one lock;
* :mod:`~gdlcheck.code.prover.walk`: the dispatch mode that follows the call operation by operation;
* :mod:`~gdlcheck.code.prover.guards`: the soundness argument as data, the guards every operation
  passes;
* :mod:`~gdlcheck.code.prover.effects`, :mod:`~gdlcheck.code.prover.regions`: what writes and
  selections do to what the walk knows; :mod:`~gdlcheck.code.prover.unwritten`: memory no
  operation wrote yet, followed cell by cell; :mod:`~gdlcheck.code.prover.held`: values of the given
  inputs a generator leaves as they are, constants of its proof;
* :mod:`~gdlcheck.code.prover.table`: the one rule table, keyed by operation objects;
* :mod:`~gdlcheck.code.prover.rules`: the rules, by kind of operation; they see the values of
  constants only (:mod:`~gdlcheck.code.prover.conditions`);
* :mod:`~gdlcheck.code.prover.values`: the walk's table of what it knows of each tensor;
  :mod:`~gdlcheck.code.prover.sight`: which tensors the proof made out of the walk's sight;
* :mod:`~gdlcheck.code.prover.moves`: how a generator moves one tensor (the abstract value).

Nothing is imported here: torch is imported only when a module is checked.
"""
