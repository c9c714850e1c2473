"""One verification run: prove, fall back to the other exact methods, trials, judge, diagnose.

Per generator, the exact verdict comes from the first of these that decides it:

1. the proof (:mod:`~gdlcheck.verification.deduce`): the rules of the texts' theorems on the
   layer tree, for every n;
2. for a layer that is linear as a whole (``Y = W X + b``), its weights: ``W[g i, g j]``
   against ``W[i, j]`` (this also measures a deviation within the tolerance);
3. for a small non-linear layer, the symbolic forward pass, under a deterministic budget.

Trials (``--method``): ``numeric`` and ``both`` always run them, ``exact`` never; ``auto``
runs them where the exact methods leave a generator undecided, or where they are cheap (an
input of at most ``CHEAP_TRIALS`` numbers), as a cross-check: ``CROSS_CHECK_TRIALS`` of them
after a torch module's proof that holds for every generator (its moved call was a trial).
"""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import LayerError
from gdlcheck.groups import PermGroup
from gdlcheck.layers import Fact, Layer
from gdlcheck.layers.proofs import ConstantCheck
from gdlcheck.verdicts import Method
from gdlcheck.verification.deduce import deduce
from gdlcheck.verification.diagnose import diagnose
from gdlcheck.verification.measure import (
    check_trial_budget,
    default_law,
    symbolic_applies,
    symbolic_residuals,
    trial_residuals,
    weight_residuals,
)
from gdlcheck.verification.result import (
    FAILS,
    Disagreement,
    MovedCallWitness,
    Options,
    Proof,
    Residual,
    Verified,
    generator_name,
)
from gdlcheck.verification.symbolic import solve_constraints
from gdlcheck.verification.verdict import decide, judge

# auto runs the trials besides a settled exact verdict when the input has at most this many
# numbers (n x channels): they cost milliseconds there, and cross-check the proof
CHEAP_TRIALS = 4096
# the trials check this many uniformly random elements of the group besides its generators
TRIAL_ELEMENTS = 1
# auto's cross-check after a traced proof that holds for every generator runs this many trials (each
# one input, its pass, and a pass per generator and per random element): the proof carries a trial
# of its own, its moved call under a random element of the group (docs/verdicts.md)
CROSS_CHECK_TRIALS = 1


def verify_layer(
    layer: Layer,
    group: PermGroup,
    *,
    expect: str = "equivariant",
    channels: int = 1,
    options: Options | None = None,
    input: str = "-",
    kind: str | None = None,
    name: str | None = None,
) -> Verified:
    """Run the checks ``options.method`` asks for and reach a verdict (docs/design.md section 5).

    Floating-point warnings are silenced: overflow is detected and reported explicitly.
    """
    with np.errstate(all="ignore"):
        return _verify(layer, group, expect, channels, options or Options(), input, kind, name)


def _verify(
    layer: Layer,
    group: PermGroup,
    expect: str,
    channels: int,
    options: Options,
    input: str,
    kind: str | None,
    name: str | None,
) -> Verified:
    method = options.method
    notes: list[Fact] = []
    form = layer.linear_form()
    # docs/design.md section 5: symbolic weights pass only when the exact check holds, so
    # --method numeric on them runs the exact checks as well.
    symbolic_weights = form is not None and bool(layer.symbols())
    if method == Method.NUMERIC and symbolic_weights and group.gens:
        notes.append(Fact("symbolic_weights_exact"))
    run_exact = (method != Method.NUMERIC or symbolic_weights) and bool(group.gens)
    proof = deduce(layer, group, expect, options.seed) if run_exact else None
    exact, equations, why_not = (
        _exact_residuals(layer, group, expect, channels, options, form, proof) if run_exact else ([], [], None)
    )
    residuals = list(exact)
    settled = bool(exact) and all(r.exact is not None for r in exact)
    cheap = group.n * channels <= CHEAP_TRIALS
    if method in (Method.NUMERIC, Method.BOTH) or (method == Method.AUTO and (not settled or cheap)):
        trials = options.trials
        if method == Method.AUTO and _traced_proof_holds(proof):
            # a cross-check only: the proof's moved call was a trial already
            trials = min(trials, CROSS_CHECK_TRIALS)
        # before any pass: with no generator the trials still run the layer once each
        check_trial_budget(layer, group.n, channels, trials, len(group.gens) + TRIAL_ELEMENTS)
        try:
            residuals.extend(
                trial_residuals(
                    layer,
                    group,
                    default_law(layer, expect),
                    channels,
                    trials,
                    options.seed,
                    form=form,
                    elements=TRIAL_ELEMENTS,
                )
            )
        except LayerError as err:
            # An exact verdict stands on its own; without one the overflow is the user's to fix.
            if not settled:
                raise
            notes.append(Fact("numeric_skipped", {"error": err.what}))
    if proof is not None and proof.disagreement is not None:  # the proof's own trial: a counterexample
        residuals.append(moved_call_residual(proof.disagreement))
    checks = [judge(r, options.tol, method) for r in residuals]
    verdict, passed, verdict_notes = decide(
        checks,
        method=method,
        has_generators=bool(group.gens),
        rounding=options.rounding,
        magnitude=options.magnitude,
        lower_rounding=options.lower_rounding,
        exact_applies=bool(exact),
        why_not=why_not,
    )
    notes.extend(n for n in verdict_notes if n.what != "exact_undecided" or proof is None)
    if any(c.method == Method.EXACT and c.passed is None for c in checks):  # "not proven": the notes say where
        notes.extend(_not_proven(proof))
    constraints, unsatisfiable = solve_constraints(equations) if equations and not passed else ([], False)
    diagnosis = diagnose(layer, group, expect, channels, options, checks, proof) if verdict == FAILS else None
    return Verified(
        input=input,
        kind=kind or layer.kind,
        group=group,
        expect=expect,
        passed=passed,
        verdict=verdict,
        checks=checks,
        constraints=constraints,
        unsatisfiable=unsatisfiable,
        name=name,
        notes=notes,
        diagnosis=diagnosis,
        proof=proof,
        culprit=_culprit(proof, checks) if verdict == FAILS else None,
    )


def _traced_proof_holds(proof: Proof | None) -> bool:
    """A torch module's proof at the dispatcher (it carries its moved call, a numeric trial) that
    holds for every generator, its moved call agreeing."""
    return (
        proof is not None
        and proof.source == "trace"
        and bool(proof.proven)
        and proof.holds
        and proof.disagreement is None
    )


def moved_call_residual(found: Disagreement) -> Residual:
    """A traced proof's moved call that contradicts it, as a numeric check of its group element
    (one trial) with the first differing entry as its counterexample."""
    g = generator_name(np.asarray(found.element))
    witness = MovedCallWitness(found.trial, found.seed, found.entry, found.expected, found.got, found.output, element=g)
    return Residual(
        g,
        Method.NUMERIC,
        max_abs_error=found.max_abs_error,
        relative_error=found.relative_error,
        witness=witness,
        trials=1,
        magnitude=found.magnitude,
    )


def _exact_residuals(layer, group, expect, channels, options, form, proof: Proof | None):
    """One exact residual per generator, from the first method that decides it."""
    names = [generator_name(s) for s in group.gen_arrays()]
    proved = {g for g in names if proof is not None and proof.proven.get(g)}
    residuals = {g: Residual(g, Method.EXACT, exact=True, symbolic=True, detail="proved") for g in proved}
    open_gens = [s for s in group.gen_arrays() if generator_name(s) not in proved]
    equations: list = []
    why_not: Fact | None = None
    rounding = None if form is None else layer.form_rounding()
    if open_gens and form is not None and rounding == 0.0:  # entries that did not round (docs/design.md)
        W, b = form
        found, equations = weight_residuals(W, b, _restricted(group, open_gens), expect, witness_tol=options.tol)
        residuals.update((r.generator, r) for r in found)
    elif open_gens:
        why_not = symbolic_applies(layer, group.n, channels)
        if why_not is None:
            found = symbolic_residuals(layer, _restricted(group, open_gens), expect, channels)
            residuals.update((r.generator, r) for r in found)
        elif layer.rule(group, []) is None and (proof is None or not proof.traced):
            # no rule for the layer as a whole (code) and no other exact method: no exact check
            return [], equations, Fact("no_rule", {"kind": layer.kind})
        if form is not None and rounding is not None:  # rounded entries: only a gap past the rounding
            rounded, _ = weight_residuals(form[0], form[1], _restricted(group, open_gens), expect, options.tol)
            for r in rounded:
                known = residuals.get(r.generator)
                if r.exact is False and r.relative_error > 2 * rounding and (known is None or known.exact is None):
                    residuals[r.generator] = r
        for s in open_gens:
            residuals.setdefault(
                generator_name(s),
                Residual(generator_name(s), Method.EXACT, exact=None, symbolic=True, detail="not_proven"),
            )
    return [residuals[g] for g in names], equations, why_not


def _restricted(group: PermGroup, gens) -> PermGroup:
    """The same points with only the generators ``gens`` (the ones still undecided)."""
    keep = {tuple(int(v) for v in s) for s in gens}
    kept = [(g, group.role(k)) for k, g in enumerate(group.gens) if g in keep]
    return PermGroup(
        group.name,
        group.n,
        tuple(g for g, _ in kept),
        shape=group.shape,
        roles=tuple(r for _, r in kept),
        family=None,
        order_formula=1,
        graph=group.graph,
    )


def _not_proven(proof: Proof | None) -> list[Fact]:
    """Where the proof stopped, for each generator it did not prove (a note per generator)."""
    if proof is None:
        return []
    out = []
    for g, stop in proof.stops.items():
        out.append(Fact("not_proven", {"generator": g, "stop": stop}))
    return out


def worst_first(checks) -> list[str]:
    """The failing checks' generators, the one with the largest relative error first (in check order
    among equals; a failing check without a measure counts as 0)."""
    worst: dict = {}
    for c in checks:
        if c.passed is False:
            worst[c.generator] = max(worst.get(c.generator, 0.0), c.relative_error or 0.0)
    return sorted(worst, key=lambda g: -worst[g])


def _culprit(proof: Proof | None, checks) -> dict | None:
    """The first sublayer whose condition fails for a failing generator, as ``{path, generator, ...}``;
    the generator whose trials fail worst first (a rounding-level failure of one generator does not
    hide another's real one)."""
    if proof is None:
        return None
    failing = worst_first(checks)
    for g in failing:
        stop = proof.stops.get(g)
        if stop is not None and stop.condition is not None:
            step = stop.step
            if proof.traced and not (isinstance(step, ConstantCheck) and step.role.is_own):
                continue  # a held input or a value made inside forward: the forward hooks name it better
            c = stop.condition
            if isinstance(step, ConstantCheck):
                path = c.parameter  # a traced module's parameter or constant, by its own name
            else:
                path = f"{stop.step.path}.{c.parameter}" if c.parameter else stop.step.path
            return {
                "path": path,
                "generator": g,
                "layer": stop.step.path,
                "kind": stop.step.label,
                "condition": c.what,
                "entry": list(c.entry),
            }
    return None
