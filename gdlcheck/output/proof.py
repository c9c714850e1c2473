"""A proof in words: its JSON, one line per layer for the report, and ``verify --explain``.

The prover hands over typed steps (:class:`gdlcheck.verification.result.Step`) with their
rules' conditions; this module says which rule each is, which theorem of the texts, what
each condition asks and, where one fails, the first entry that breaks it.
"""

from __future__ import annotations

from gdlcheck.layers import Condition
from gdlcheck.layers.proofs import ConstantCheck, Reason
from gdlcheck.text import short_cycles
from gdlcheck.verification.result import Proof, Step, Stop

# The rule of each layer kind, as the report states it.
RULES = {
    "commutation": "commutation: W P = P W exactly when W[g i, g j] = W[i, j]",
    "theorem1": "a circulant commutes with every shift of its grid",
    "theorem2": "alpha*I + beta*11^T (with channels: X Lambda + 11^T X Gamma) commutes with every permutation",
    "rowwise": "a row-wise map commutes with every permutation of the rows",
    "theorem3": "G(P A P^T) = P G(A) P^T for every normalisation, with A permuted with X",
    "theorem3_fixed": "with A held fixed, G(A) commutes with the automorphisms of A",
    "theorem4": "S(PX) = P S(X) P^T, kept by softmax by rows (or pointwise weights), in every head",
    "residual": "X + f(X) commutes with g when f does",
    "composition": "a composition of maps that commute with g commutes with g",
    "pooling": "sum, mean and max over the points are invariant",
    # the rules of proved torch modules (gdlcheck.code)
    "traced": "the call as it ran, followed operation by operation at torch's dispatcher",
    "scatter": "sums into the nodes by their labels move with the nodes: out[lam[i]] gathers what out[i] did",
    "encoder": "Theorem 4 in each block's self-attention, with row-wise feed-forward and norms around it",
    "contraction": "a point axis contracted with a point axis: P^T P = I",
    "constant": "a constant that meets a point axis must be fixed by g",
    "turned_kernel": "a circular convolution commutes with a turn or mirror of its grid where its kernel, turned "
    "alike, is itself or another output channel's",
}

# What each side condition asks.
CONDITIONS = {
    "weights": "W[g i, g j] = W[i, j]",
    "bias": "b[g i] = b[i]",
    "graph": "P A P^T = A",
    "mask": "P M P^T = M",
    "table": "P E = E",
    "relative_bias": "P B P^T = B",
    "constant_rows": "P E = E",
    "constant_pairs": "P M P^T = M",
    "circular_kernel": "c[a d] = c[d]",
}

# verify --explain: each rule as the texts write the step, with this layer's names.
CHAINS = {
    "commutation": "f(PX) = W P X + b and P f(X) = P W X + P b: equal for every X exactly when W P = P W, i.e. "
    "W[g i, g j] = W[i, j], and P b = b, i.e. b[g i] = b[i].",
    "theorem1": "W is circulant, W[i, j] = theta_((i - j) mod n) on each axis of the grid, and a shift moves i and j "
    "together: W[i+1, j+1] = theta_((i - j) mod n) = W[i, j], so S W = W S (Theorem 1).",
    "theorem2": "(alpha I + beta 11^T) P = alpha P + beta 11^T = P (alpha I + beta 11^T), because 11^T P = 11^T = "
    "P 11^T (Theorem 2); with channels, X Lambda and 11^T X Gamma alike.",
    "rowwise": "Row i of PX is row g^-1(i) of X, and f maps each row on its own: f(PX) = P f(X).",
    "theorem3": "Y(PX, P A P^T) = act(G(P A P^T) P X W) = act(P G(A) P^T P X W) = P act(G(A) X W) = P Y(X, A): "
    "the degrees of P A P^T are the degrees of A permuted, so G(P A P^T) = P G(A) P^T (Theorem 3).",
    "theorem3_fixed": "Y(PX) = act(G(A) P X W) = act(P G(P^T A P) X W) = P Y(X) when P A P^T = A, i.e. when g is an "
    "automorphism of A (Theorem 3 with A held).",
    "theorem4": "Y(PX) = G(PX) V(PX) = P G(X) P^T P V(X) = P Y(X): the scores S = X Wq Wk^T X^T give S(PX) = "
    "P S(X) P^T, softmax by rows keeps it, and V(PX) = P X Wv = P V(X) (Theorem 4), in every head.",
    "residual": "PX + f(PX) = PX + P f(X) = P (X + f(X)); an invariant f adds the same row to every point.",
    "composition": "f2(f1(PX)) = f2(P f1(X)) = P f2(f1(X)), part by part, in the order the parts run.",
    "traced": "f(PX) = P f(X) follows from each operation of the call in turn: each value below moves with "
    "the points as its rule says (or not at all), and the output moves as the check asks.",
    "scatter": "out[i] = sum of src[k] over the edges k with index[k] = i; relabelling the index by g and moving src "
    "with its edges puts the same sum at g(i): out moves with the nodes.",
    "encoder": "Each block is X + attn(norm(X)) and X + ff(norm(X)) (or with the norm after): attention gives "
    "P Y(X) by Theorem 4, the feed-forward and the norms act row by row, residuals add P X to P f(X).",
    "contraction": "(A P^T)(P B) = A B, and (P A P^T)(P B) = P (A B): a point axis summed against a point axis "
    "moved by the same P cancels it.",
    "constant": "E does not move with the points, so an operation meeting it on a point axis commutes with P only "
    "where P leaves E as it is.",
    "pooling": "sum_i (PX)_i = sum_i X_i: the same rows in another order (mean and max alike): invariant.",
    "turned_kernel": "The output at p reads the input at p + d over the kernel's offsets d; with g(p) = A p + t (A "
    "swaps or reverses the grid's axes) the moved output at g(p) reads it at p + A^-1 d, which is "
    "the output at p where W[pi(o), c, A d] = W[o, c, d]: the kernel turned by A is itself (pi the "
    "identity) or another output channel's (a lifting layer: the channels move by pi).",
}

_MATRIX = {
    "weights": "W",
    "graph": "A",
    "mask": "M",
    "relative_bias": "B",
    "constant_pairs": "M",
    "circular_kernel": "K",
}

# What a rule needs of each kind of condition a layer has, said once after its step.
NEEDS = {
    "table": "the absolute table E is added to X, so X + E moves with X only when P E = E",
    "mask": "the mask M keeps S[i, j] where M[i, j] = 1, so the masked scores move as P S P^T only when P M P^T = M",
    "relative_bias": "the relative bias B is added to S, which then moves as P S P^T only when P B P^T = B",
    "graph": "A is held fixed, so G(A) = P G(A) P^T needs P A P^T = A: g an automorphism of A",
    "weights": "W P = P W exactly when W[g i, g j] = W[i, j] for all i, j",
    "bias": "a bias vector moves with the points only when b[g i] = b[i]",
    "constant_rows": "a constant E laid along a point axis commutes with the points only when P E = E",
    "constant_pairs": "a constant M laid along two point axes commutes with them only when P M P^T = M",
    "circular_kernel": "a circular convolution y[i] = sum_d c[d] x[i + d] commutes with j -> a j + b only when "
    "c[a d] = c[d]: under a reflection, a kernel symmetric in its offsets",
}


def broken_text(c: Condition) -> str:
    """The first entry that breaks a condition, in words."""
    if c.what in ("table", "constant_rows") and c.entry:
        name = "E" if c.what == "table" else c.parameter
        return f"rows {c.entry[0]} and {c.image[0]} of {name} differ, so P E != E for {short_cycles(c.generator)}"
    if c.what == "bias":
        return (
            f"b[{c.image[0]}] = {_value(c.values[1])} but b[{c.entry[0]}] = {_value(c.values[0])}, "
            f"so b[g i] != b[i] for {c.generator}"
        )
    if c.entry and c.image and (len(c.entry) != 2 or len(c.image) != 2):  # a condition along one axis (a
        m = _MATRIX.get(c.what, "W")  # key padding mask): its entries
        values = f" ({_value(c.values[1])} and {_value(c.values[0])})" if len(c.values) == 2 else ""
        entry, image = ", ".join(map(str, c.entry)), ", ".join(map(str, c.image))
        g = short_cycles(c.generator)
        return f"entries {image} and {entry} of {m} differ{values}, so {CONDITIONS[c.what]} fails for {g}"
    if c.entry and c.image:
        m = _MATRIX.get(c.what, "W")
        (i, j), (a, b) = c.entry, c.image
        values = f" ({_value(c.values[1])} and {_value(c.values[0])})" if len(c.values) == 2 else ""
        return f"{m}[{a}, {b}] != {m}[{i}, {j}]{values}, so {CONDITIONS[c.what]} fails for {short_cycles(c.generator)}"
    return f"{CONDITIONS[c.what]} fails for {short_cycles(c.generator)}"


def where(step: Step, c: Condition | None) -> str:
    if isinstance(step, ConstantCheck) and c is not None:
        return f"{c.parameter} (at node {step.path})"  # a traced module's parameter or constant
    path = step.path or step.label
    return f"{path}.{c.parameter}" if c is not None and c.parameter else path


def stop_text(generator: str, stop: Stop) -> str:
    """Why the proof stopped for ``generator``: a note of the verdict (a long generator abbreviated)."""
    generator = short_cycles(generator)
    if stop.reason is Reason.NO_RULE:
        return f"not proven for {generator}: no rule for layer kind {stop.step.label!r} at {where(stop.step, None)}"
    if stop.reason is Reason.OUTPUT_EQUIVARIANT:
        return f"not proven for {generator}: the output is equivariant, not invariant"
    if stop.reason is Reason.NO_OP_RULE:
        return f"not proven for {generator} at node {stop.step.path}: no rule for {stop.step.label!r}"
    if stop.reason is Reason.NOT_TRACED:
        return f"not proven for {generator}: the tracer does not follow {stop.step.path}"
    if stop.reason is Reason.OUTPUT_MOVES_OTHERWISE or stop.reason.is_worded_by_the_walk:
        return f"not proven for {generator}: {stop.step.label}"  # said in full where the walk stopped
    if stop.condition is None:
        return f"not proven for {generator} at {stop.step.path}: {stop.step.label}"
    return f"not proven for {generator} at {where(stop.step, stop.condition)}: {broken_text(stop.condition)}"


def proof_json(proof: Proof) -> list[dict]:
    """``"proof"``: one object per layer, in the order they run (a combinator before its parts)."""
    out = []
    for step in proof.steps:
        conditions = []
        for c in step.conditions:
            entry = {"what": CONDITIONS[c.what], "generator": c.generator, "holds": c.holds}
            if c.parameter:
                entry["parameter"] = c.parameter
            if not c.holds:
                entry["text"] = broken_text(c)
            conditions.append(entry)
        rule = None if step.rule is None else RULES.get(step.rule, step.rule)
        out.append(
            {"path": step.path, "kind": step.label, "rule": rule, "theorem": step.theorem, "conditions": conditions}
        )
    return out


def culprit_json(culprit: dict, proof: Proof) -> dict:
    """``"culprit"``: the sublayer where a failing generator's proof stopped, and what breaks."""
    stop = proof.stops[culprit["generator"]]
    return {
        "path": culprit["path"],
        "generator": culprit["generator"],
        "layer": culprit["layer"],
        "kind": culprit["kind"],
        "condition": CONDITIONS[culprit["condition"]],
        "entry": culprit["entry"],
        "text": None if stop.condition is None else broken_text(stop.condition),
    }


def condition_summary(conditions: list[Condition]) -> str:
    """``P E = E fails for (0 1); b[g i] = b[i] holds``: each kind of condition once."""
    parts = []
    for what in dict.fromkeys(c.what for c in conditions):
        failing = [c.generator for c in conditions if c.what == what and not c.holds]
        text = CONDITIONS[what]
        parts.append(f"{text} fails for {', '.join(failing)}" if failing else f"{text} holds")
    return "; ".join(parts)


def proof_lines(proof: Proof, limit: int = 24) -> list[str]:
    """The proof for the text report: one line per layer (rule, theorem, conditions), indented."""
    lines = []
    for step in proof.steps[:limit]:
        theorem = f" ({step.theorem})" if step.theorem else ""
        missing = f"no rule for this {step.unit}"
        rule = RULES.get(step.rule, missing) if step.rule else missing
        conditions = f"; {condition_summary(step.conditions)}" if step.conditions else ""
        lines.append(f"{'  ' * step.depth}{step.path or step.label} [{step.label}]: {rule}{theorem}{conditions}")
    if len(proof.steps) > limit:
        lines.append(f"... and {len(proof.steps) - limit} more layers")
    return lines


def explain_lines(proof: Proof) -> list[str]:
    """``verify --explain``: each layer's step as the texts write it, the condition that makes
    it true, and for a failed condition the first entry that breaks it."""
    lines = []
    for step in proof.steps:
        head = f"{'  ' * step.depth}{step.path or step.label} [{step.label}]"
        if step.rule is None:
            lines.append(f"{head}: no rule for this {step.unit}: not proven here.")
            continue
        lines.append(f"{head}: {CHAINS[step.rule]}")
        for what in dict.fromkeys(c.what for c in step.conditions):
            lines.append(f"{'  ' * step.depth}  {NEEDS[what]}.")
        for c in step.conditions:
            if not c.holds:
                lines.append(f"{'  ' * step.depth}  {where(step, c)}: {broken_text(c)}")
        if step.conditions and all(c.holds for c in step.conditions):
            lines.append(f"{'  ' * step.depth}  {condition_summary(step.conditions)} for every generator.")
    if proof.holds:
        lines.append(
            "Every condition holds for every generator, so the layer commutes with each generator, hence "
            "with the whole group they generate."
        )
    else:
        stopped = ", ".join(g for g, ok in proof.proven.items() if not ok)
        lines.append(f"The proof stops for {stopped}; the other checks decide there.")
    return lines


def _value(v) -> str:
    """An entry as printed in a condition: escaped, and a number of any size kept short."""
    from gdlcheck.text import printable, safe_str, shorten

    return printable(shorten(safe_str(v), 60))
