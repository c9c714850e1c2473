"""One verification run: choose the measurements, measure, judge, diagnose (DESIGN.md section 5)."""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import LayerError
from gdlcheck.groups import PermGroup
from gdlcheck.layers import Fact, Layer
from gdlcheck.verification.diagnose import diagnose
from gdlcheck.verification.measure import (
    check_trial_budget,
    default_law,
    symbolic_applies,
    symbolic_residuals,
    trial_residuals,
    weight_residuals,
)
from gdlcheck.verification.result import FAILS, Options, VerifyResult
from gdlcheck.verification.symbolic import solve_constraints
from gdlcheck.verification.verdict import decide, judge


def verify_layer(layer: Layer, group: PermGroup, *, expect: str = "equivariant", channels: int = 1,
                 options: Options | None = None, input: str = "-", kind: str | None = None,
                 name: str | None = None) -> VerifyResult:
    """Run the checks ``options.method`` asks for and reach a verdict.

    The exact check is the weight comparison for a linear layer, else the symbolic forward
    pass for a non-linear layer with n <= 6 and d <= 2; it may be undecided, which keeps the
    numeric verdict (``inconclusive`` only with ``--method exact``).  Floating-point warnings
    are silenced: overflow is detected and reported explicitly.
    """
    with np.errstate(all="ignore"):
        return _verify(layer, group, expect, channels, options or Options(), input, kind, name)


def _verify(layer: Layer, group: PermGroup, expect: str, channels: int, options: Options, input: str,
            kind: str | None, name: str | None) -> VerifyResult:
    residuals, equations, notes = [], [], []
    if options.method in ("auto", "both", "numeric") and group.gens:
        check_trial_budget(layer, group.n, channels, options.trials, len(group.gens))
    form = layer.linear_form()
    why_not = None if form is not None else symbolic_applies(layer, group.n, channels)
    exact_applies = form is not None or why_not is None
    # DESIGN.md section 5: symbolic weights pass only when the exact check holds, so
    # --method numeric on them runs the weight comparison as well.
    symbolic_weights = form is not None and bool(layer.symbols())
    if options.method == "numeric" and symbolic_weights and group.gens:
        notes.append(Fact("symbolic_weights_exact"))
    if (options.method in ("auto", "both", "exact") or symbolic_weights) and exact_applies and group.gens:
        if form is not None:
            W, b = form
            exact, equations = weight_residuals(W, b, group, expect, witness_tol=options.tol)
        else:
            exact = symbolic_residuals(layer, group, expect, channels)
        residuals.extend(exact)
    if options.method in ("auto", "both", "numeric"):
        try:
            residuals.extend(trial_residuals(layer, group, default_law(layer, expect), channels, options.trials,
                                             options.seed, form=form))
        except LayerError as err:
            # An exact verdict stands on its own; without one the overflow is the user's to fix.
            if not residuals or any(r.exact is None for r in residuals):
                raise
            notes.append(Fact("numeric_skipped", {"error": err.what}))
    checks = [judge(r, options.tol, options.method) for r in residuals]
    verdict, passed, verdict_notes = decide(checks, method=options.method, has_generators=bool(group.gens),
                                            exact_applies=exact_applies, why_not=why_not)
    notes.extend(verdict_notes)
    constraints, unsatisfiable = solve_constraints(equations) if equations and not passed else ([], False)
    return VerifyResult(input=input, kind=kind or layer.kind, group=group, expect=expect, passed=passed,
                        verdict=verdict, checks=checks, constraints=constraints, unsatisfiable=unsatisfiable,
                        name=name, notes=notes,
                        diagnosis=diagnose(layer, group, expect, channels, options, checks) if verdict == FAILS
                        else None)
