"""When a check fails: try the neighbouring laws and say which one holds (typed findings).

The neighbours of ``Y(PX, P A P^T) = P Y(X, A)`` are the usual mistakes: permuting only the
rows of A, keeping A fixed (or permuting it when the layer keeps it fixed), P against P^T,
and invariance against equivariance.  Each is measured with the same trial loop as the
numeric check (:func:`~gdlcheck.verification.measure.trial_residuals`), on inputs of its own
(trials from 10000 on), and judged with the same tolerance.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import GdlcheckError
from gdlcheck.groups import PermGroup, fixes, parse_perm
from gdlcheck.layers import Fact, Layer, with_graph_mode
from gdlcheck.verification.deduce import deduce
from gdlcheck.verification.measure import default_law, trial_residuals
from gdlcheck.verification.result import Check, Law, Options, Proof, generator_name

DIAGNOSIS_TRIALS = 3
FIRST_TRIAL = 10_000


# What a failed side condition of a rule breaks, as the diagnosis says it (weights need no
# second word: the counterexample shows them).
_BREAKS = {
    "bias": "bias",
    "graph": "graph_not_fixed",
    "mask": "causal_mask",
    "table": "absolute_table",
    "relative_bias": "relative_bias",
}


def diagnose(
    layer: Layer,
    group: PermGroup,
    expect: str,
    channels: int,
    options: Options,
    checks: list[Check],
    proof: Proof | None = None,
) -> list[Fact]:
    """Findings, in order: the law that fails and for which generators, the neighbouring laws
    that hold (or that none does), and what each failing generator breaks by the layers' rules
    (their side conditions that fail, from ``proof``, proved here if not given)."""
    failing = {c.generator for c in checks if c.passed is False}
    if not failing:
        return []
    gens = [np.asarray(parse_perm(g, group.n), dtype=np.int64) for g in sorted(failing)]  # random elements too
    law = default_law(layer, expect)
    a, y = law.graph, law.output
    out = [Fact("fails", {"law": law, "generators": sorted(failing)})]

    def holds(candidate: Law, probe: Layer = layer) -> bool:
        try:
            residuals = trial_residuals(
                probe, group, candidate, channels, DIAGNOSIS_TRIALS, options.seed, gens=gens, first_trial=FIRST_TRIAL
            )
        except (ValueError, IndexError, GdlcheckError):
            return False
        return all(r.relative_error is not None and r.relative_error <= options.tol for r in residuals)

    found = False
    if y == "P" and holds(Law(a, "none")):
        out.append(Fact("invariant_holds", {"law": Law(a, "none"), "use": _expect_text(layer, "invariant")}))
        found = True
    if y == "none" and holds(Law(a, "P")):  # code's invariant outputs are moved as points here
        out.append(Fact("equivariant_holds", {"law": Law(a, "P"), "use": _expect_text(layer, "equivariant")}))
        found = True
    if y == "P" and any(not np.array_equal(s, np.argsort(s)) for s in gens) and holds(Law(a, "PT")):
        out.append(Fact("transpose_holds", {"law": Law(a, "PT")}))
        found = True
    A = layer.graph()
    if A is not None:
        if a == "both":
            if holds(Law("rows", y)):
                out.append(Fact("rows_holds", {"law": Law("rows", y)}))
                found = True
            if holds(Law("fixed", y)):
                out.append(Fact("fixed_holds", {"law": Law("fixed", y)}))
                found = True
        elif holds(Law("both", y), with_graph_mode(layer, "input")):
            autos = {
                generator_name(s)
                for s in gens
                if (fixes(s, A) if layer.signature is None else layer.signature.fixes(s, A))
            }
            out.append(
                Fact(
                    "theorem3_holds",
                    {"law": Law("both", y), "not_automorphisms": [g for g in sorted(failing) if g not in autos]},
                )
            )
            found = True
    if not found:
        tried = ["rows", "fixed"] if a == "both" else ["both"] if a == "fixed" else []
        out.append(Fact("none_holds", {"tried": tried + ["PT", "equivariance" if y == "none" else "invariance"]}))
    if proof is None:
        try:
            proof = deduce(layer, group, expect)
        except GdlcheckError:
            return out
    for s in gens:
        g = generator_name(s)
        for step in proof.steps:
            for c in step.conditions:
                if c.generator == g and not c.holds and c.what in _BREAKS:
                    finding = Fact("breaks", {"generator": g, "fact": _broken(c)})
                    if finding not in out:
                        out.append(finding)
    return out


def _expect_text(layer: Layer, word: str) -> str:
    """How to say ``expect``: a spec's key, or code's parameter and flag."""
    if layer.signature is None:
        return f"expect: {word}"
    return f"expect={word!r} (--expect {word} on the command line)"


def _broken(c) -> Fact:
    if c.what == "bias":
        return Fact("bias", {"k": c.entry[0], "image": c.image[0], "value": c.values[0], "image_value": c.values[1]})
    return Fact(_BREAKS[c.what])
