"""Does a layer commute with a group?  Measure, judge, diagnose: three steps, three modules.

* :mod:`~gdlcheck.verification.measure`: residuals per generator and method (weights,
  random trials, the symbolic forward pass), with typed witnesses and no tolerance;
* :mod:`~gdlcheck.verification.verdict`: the residuals judged against the tolerance, and
  the verdict (a pure function, laid out like the README's verdict table);
* :mod:`~gdlcheck.verification.diagnose`: the neighbouring laws of a failure;
* :mod:`~gdlcheck.verification.pipeline`: ``verify_layer``, which runs them in order;
* :mod:`~gdlcheck.verification.result`: the data they exchange.
"""

from gdlcheck.verification.pipeline import verify_layer
from gdlcheck.verification.result import (
    ERROR,
    FAILS,
    HOLDS,
    HOLDS_NUMERICALLY,
    HOLDS_WITHIN_TOLERANCE,
    INCONCLUSIVE,
    METHODS,
    Check,
    Law,
    Options,
    Residual,
    Verified,
)
from gdlcheck.verification.verdict import random_code

__all__ = [
    "ERROR",
    "FAILS",
    "HOLDS",
    "HOLDS_NUMERICALLY",
    "HOLDS_WITHIN_TOLERANCE",
    "INCONCLUSIVE",
    "METHODS",
    "Check",
    "Law",
    "Options",
    "Residual",
    "Verified",
    "random_code",
    "verify_layer",
]
