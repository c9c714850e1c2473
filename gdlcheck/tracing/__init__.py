"""Proofs of torch modules: trace the module and apply the texts' theorems to its graph.

* :mod:`~gdlcheck.tracing.trace`: ``trace_proof``, the walk over the fx graph;
* :mod:`~gdlcheck.tracing.flow`: how the group acts on one traced value;
* :mod:`~gdlcheck.tracing.functions`: rules for functions and tensor methods;
* :mod:`~gdlcheck.tracing.units`: rules for ``torch.nn`` modules called as units;
* :mod:`~gdlcheck.tracing.signature`: a call's described inputs and outputs as flows.

torch is never imported here until a module is traced (the caller already has it).
"""

from gdlcheck.tracing.flow import Flow
from gdlcheck.tracing.signature import prove_call
from gdlcheck.tracing.trace import Expected, trace_proof

__all__ = ["Expected", "Flow", "prove_call", "trace_proof"]
