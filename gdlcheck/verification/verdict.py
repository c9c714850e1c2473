"""Judging: residuals against the tolerance, and the verdict of a run.  Pure functions, no layers.

:func:`decide` is laid out like the README's verdict table; each row has a unit test.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from dataclasses import replace

from gdlcheck.layers import Fact
from gdlcheck.tolerances import ROUNDING
from gdlcheck.verdicts import Method
from gdlcheck.verification.result import (
    FAILS,
    HOLDS,
    HOLDS_NUMERICALLY,
    HOLDS_WITHIN_TOLERANCE,
    INCONCLUSIVE,
    Check,
    Residual,
    Verified,
)


def judge(residual: Residual, tol: float, method: str = Method.AUTO) -> Check:
    """One residual against ``tol``: a comparison of expressions passes when it proved the two
    sides equal; a measured deviation passes when its relative size is at most ``tol``.

    A numeric check that passes keeps no witness.  With ``method="exact"`` a weight deviation
    within the tolerance does not pass: exactness is demanded.
    """
    fields = {f.name: getattr(residual, f.name) for f in dataclass_fields(Residual)}
    if residual.symbolic:
        passed = residual.exact
    elif residual.relative_error is None:
        raise ValueError(f"the {residual.method} residual of {residual.generator} measured no relative error")
    else:
        passed = bool(residual.relative_error <= tol)
    if residual.method == Method.NUMERIC and passed:
        fields["witness"] = None
    if method == Method.EXACT and passed and residual.exact is False:
        passed = False
        fields["detail"] = "within_tolerance_only"
    return Check(**fields, passed=passed)


def decide(
    checks: list[Check],
    *,
    method: str,
    has_generators: bool,
    exact_applies: bool,
    why_not: Fact | None = None,
    rounding: float = ROUNDING["float64"],
    magnitude: float = 0.0,
    lower_rounding: float | None = None,
) -> tuple[str, bool, list[Fact]]:
    """The verdict, whether it passes, and the notes that explain it.

    ============================================  ================================

    situation                                     verdict
    ============================================  ================================

    the group has no generators                   holds
    exact demanded, no exact check applies        inconclusive
    some check fails (but trials of a generator   fails
    proved exactly that differ by at most
    rounding: those are rounding, noted)
    every exact check passes, all exactly         holds
    every exact check passes, some within tol     holds_within_tolerance
    an exact check undecided, exact demanded      inconclusive
    an exact check undecided                      holds_numerically (rests on the trials)
    no exact check, numeric trials ran            holds_numerically
    no check ran at all                           inconclusive
    some check fails and the code is random (two  inconclusive (:func:`random_code`, asked
    calls on one input differ)                    of code after a failure only)
    ============================================  ================================


    Rounding is relative to the computation's own magnitudes (:func:`within_rounding`):
    ``rounding`` ulps-per-unit times the largest of the trials' :attr:`~Residual.magnitude` and
    ``magnitude`` (a module's parameters). Trials past it but within ``lower_rounding`` (float32
    inside a float64 check) still fail, with no "a rule is wrong" note: the caller's float32
    note explains them.
    """
    exact = [c for c in checks if c.method == Method.EXACT]
    numeric = [c for c in checks if c.method == Method.NUMERIC]
    notes: list[Fact] = []
    if not has_generators:
        return HOLDS, True, [Fact("no_generators")]
    if method == Method.EXACT and not exact_applies:
        return INCONCLUSIVE, False, [Fact("no_exact_check", {"why": why_not})]
    # A generator proved exactly (a proof, expressions proved equal, weights equal bit for bit)
    # commutes; trials that measure a tiny deviation there measured rounding (an output that is
    # exactly 0, where the relative error divides noise by noise), and the proof stands.  A
    # deviation past rounding is a counterexample the user can run: it contradicts the proof,
    # and the counterexample wins (a rule of gdlcheck's is wrong; the note says so).
    proved = {c.generator for c in exact if c.passed and c.exact}
    # every generator proved is the whole group proved: a random element's trials are checked alike
    whole = bool(exact) and all(c.passed and c.exact for c in exact)
    against = [c for c in numeric if c.passed is False and (c.generator in proved or whole)]
    overruled = [c for c in against if within_rounding(c, rounding, magnitude)]
    for c in against:
        if c in overruled:
            notes.append(Fact("trials_rounding", {"generator": c.generator, "relative": c.relative_error}))
        elif lower_rounding is None or not within_rounding(c, lower_rounding, magnitude):
            notes.append(Fact("proof_contradicted", {"generator": c.generator, "error": c.max_abs_error}))
    if any(c.passed is False and c not in overruled for c in checks):
        return FAILS, False, notes
    if exact and all(c.passed for c in exact):
        return (HOLDS if all(c.exact for c in exact) else HOLDS_WITHIN_TOLERANCE), True, notes
    if exact:
        if method == Method.EXACT:
            return INCONCLUSIVE, False, notes
        return HOLDS_NUMERICALLY, True, [Fact("exact_undecided")]
    if not numeric:
        return INCONCLUSIVE, False, notes
    if why_not is not None and method != Method.NUMERIC:
        notes.append(Fact("numeric_only", {"why": why_not}))
    return HOLDS_NUMERICALLY, True, notes


def within_rounding(check: Check, rounding: float, magnitude: float = 0.0) -> bool:
    """Whether ``check``'s deviation is rounding: at most ``rounding`` times the largest magnitude
    on the way (its trials' inputs and outputs, and ``magnitude``: what they do not see)."""
    if check.max_abs_error is None:
        return False
    return check.max_abs_error <= rounding * max(check.magnitude or 0.0, magnitude)


def random_code(result: Verified, randomness: Fact) -> Verified:
    """The verdict of code that failed its trials and whose output changes between two calls on
    the same input (``randomness`` says so): the differences the trials saw may be the
    randomness, so there is no verdict on the symmetry (docs/design.md section 9: reported as
    random, not as breaking it).  Inconclusive, with the randomness as its note and no
    diagnosis of a failure that may not be one."""
    if result.verdict != FAILS:
        return result
    return replace(result, verdict=INCONCLUSIVE, passed=False, diagnosis=None, notes=[randomness])
