"""Measuring: how far a layer is from commuting with each generator.  No verdicts here.

Three measurements (docs/design.md section 5), each one :class:`Residual` per generator, each in
its own module:

* :func:`weight_residuals` (:mod:`.weights`), for layers that say they are linear
  (``Y = W X + b``): ``W[s[i], s[j]]`` against ``W[i, j]`` for every generator ``s``
  (``W[i, s[j]]`` for an invariant output) and ``b[s[i]]`` against ``b[i]``.  Numbers are
  compared as given; sympy expressions structurally first, then by simplification under a
  budget.
* :func:`trial_residuals` (:mod:`.trials`), for every layer: for each generator and seeded
  random input ``X``, ``f(g.X)`` against ``g.f(X)`` under a :class:`Law` (``f(X)`` for an
  invariant output).  Diagnosis runs the same loop with the neighbouring laws.  A numeric
  ``W X + b`` without a graph runs all its trials at once (:mod:`.matrix_trials`).
* :func:`symbolic_residuals` (:mod:`.symbolic_pass`): the layer run on a matrix of sympy
  symbols, ``f(PX)`` against ``P f(X)`` as expressions.

A group is respected exactly when each of its generators is, so only generators are measured.
"""

from gdlcheck.verification.measure.symbolic_pass import symbolic_applies, symbolic_residuals
from gdlcheck.verification.measure.trials import check_trial_budget, default_law, trial_residuals
from gdlcheck.verification.measure.weights import weight_residuals

__all__ = [
    "check_trial_budget",
    "default_law",
    "symbolic_applies",
    "symbolic_residuals",
    "trial_residuals",
    "weight_residuals",
]
