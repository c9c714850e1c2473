"""Every sentence verification and inspection say: notes, diagnoses, a layer's facts, culprits,
a result's lines and hints (a witness and a law are worded by :mod:`gdlcheck.output.witnesses`).

The library hands over typed records (witnesses from :mod:`gdlcheck.verification.result`,
:class:`gdlcheck.layers.Fact`); this module words them, the same way for JSON, for the text
report and for ``assert_equivariant``'s message.
"""

from __future__ import annotations

from gdlcheck.layers import Fact
from gdlcheck.limits import (
    MAX_EXP_DEGREE,
    MAX_EXPANSION_TERMS,
    MAX_SIMPLIFY_OPS,
    SIMPLIFY_FUNCTIONS_EACH,
    SIMPLIFY_OPS_EACH,
    SYMBOLIC_EXPAND_OPS,
)
from gdlcheck.output.proof import stop_text
from gdlcheck.output.witnesses import json_float, law_text, witness_text
from gdlcheck.text import short_cycles, shorten
from gdlcheck.verdicts import Verdict
from gdlcheck.verification.result import Law, MovedCallWitness, TrialWitness, Verified

# How an exact comparison was decided (Residual.detail); JSON "note" of a check.
DETAILS = {
    "proved": "proved by the rules of the layer tree (see proof)",
    "not_proven": "not proven: the proof stops (the notes say where)",
    "sympy_undecided": "sympy could not decide",
    "symbolic_budget": f"undecided: the whole check's symbolic budget ({MAX_SIMPLIFY_OPS} operations for sympy's "
    "simplify) ran out",
    "symbolic_size": f"undecided by size: expanding f(PX) - P f(X) is past the budget ({SYMBOLIC_EXPAND_OPS} "
    f"operations, {MAX_EXPANSION_TERMS} terms, degree {MAX_EXP_DEGREE} in exp(t) for exp(k*t)), "
    "so sympy was not given it",
    "simplify_size": f"undecided by size: a difference of over {SIMPLIFY_OPS_EACH} operations or "
    f"{SIMPLIFY_FUNCTIONS_EACH} function applications is not handed to sympy's simplify",
    "symbolic_identical": "symbolic: f(PX) and P f(X) are the same expressions",
    "symbolic_simplified": "symbolic: f(PX) and P f(X) simplify to the same expressions",
    "within_tolerance_only": "holds only within tolerance; --method exact demands exactness",
}

UNSATISFIABLE = "no values of the symbols make it hold"

# what a check's relative error is relative to (JSON "relative_to"), by whether it is a numeric trial
RELATIVE_TO = {False: "largest_weight", True: "largest_output"}
RELATIVE_LEGEND = (
    "relative: an exact row's deviation of the weights over the largest weight, a numeric row's "
    "deviation of f(gx) from g f(x) over the largest output"
)
# a failing matrix closer than this (relative Frobenius distance) to the nearest equivariant one is a near miss
NEAR_DISTANCE = 0.01


# --------------------------------------------------------------------------- facts

_LAWS_TRIED = {
    "rows": "rows-only P A",
    "fixed": "fixed A",
    "both": "P A P^T",
    "PT": "P^T",
    "equivariance": "equivariance",
    "invariance": "invariance",
}

_FIXED = {
    # notes of a verification run
    "symbolic_weights_exact": "symbolic weights are decided by the exact check, which ran besides the numeric one",
    "no_generators": "the group has no generators besides the identity: every layer commutes with it",
    "exact_undecided": "the exact check could not decide; the verdict rests on the numeric check",
    # what a generator breaks
    "graph_not_fixed": "P A P^T != A: this generator is not an automorphism of the graph, which graph: fixed needs",
    "causal_mask": "the causal mask keeps G[i, j] only for j <= i, an order of the positions that only the identity "
    "preserves: masked attention is not permutation equivariant",
    "absolute_table": "the absolute positional table E is added to X and E[sigma[i]] != E[i]: it tells positions "
    "apart, so the layer commutes only with permutations that fix E",
    "relative_bias": "the relative positional bias B[i, j] = b_((i-j) mod n) depends on the offset i - j: cyclic "
    "shifts keep it, other permutations change the offsets (B[sigma[i], sigma[j]] != B[i, j])",
    # why an aggregation matrix is not symmetric
    "directed_graph": "the adjacency A is not symmetric (a directed graph)",
    "random_walk": "random_walk normalisation D~^-1 (A + I) scales each row by its own degree, so G[i, j] = "
    "1/deg(i) differs from G[j, i] = 1/deg(j) when the degrees differ",
    "causal_mask_triangular": "the causal mask zeroes G[i, j] for j > i, so G is lower triangular",
    "softmax_rows": "softmax normalises each row on its own (rows sum to 1, columns do not), so G[i, j] != "
    "G[j, i] in general, whatever Wq and Wk are",
    "relative_bias_asymmetric": "the relative bias has b_k != b_(n-k), so B[i, j] != B[j, i]",
    "kernel": "the kernel is not symmetric: theta_k != theta_(n-k), so W[i, j] = theta_(i-j) differs from "
    "W[j, i] = theta_(j-i)",
    # inspect's other notes
    "dynamic_content": "dynamic: G is computed from the content X (the scores x_i Wq Wk^T x_j^T), so it changes "
    "with every input",
    "dynamic": "dynamic: G changes with X",
    "softmax_stochastic": "row-stochastic by construction: softmax makes every row non-negative with sum 1",
}


# Sentences with fields: {law} and {why} are worded first (a law, a fact), lists are joined.
_TEMPLATES = {
    "numeric_skipped": "numeric check skipped: {error}",
    "trials_rounding": "the trials for {generator} measured a relative error of {relative:.3g}, but the exact check "
    "proves {generator}: what they measured is rounding (a few ulps of the largest value on "
    "the way: an output near 0, or a large value that cancels, makes the relative error large)",
    "proof_contradicted": "the rules prove {generator}, but the trials found a counterexample far past rounding "
    "(max abs error {error:.3g}): a rule of gdlcheck's is wrong here, so the counterexample "
    "decides; please report this input",
    "no_exact_check": "no exact check applies: {why}",
    "numeric_only": "numeric check only: {why}",
    "no_symbolic_pass": "layer kind {kind!r} has no symbolic forward pass",
    "no_rule": "no rule proves layer kind {kind!r} (its computation is not read), and it has no symbolic forward pass",
    "symbolic_points": "the exact check of a non-linear layer runs for n <= {limit} (n = {n})",
    "symbolic_channels": "the exact check of a non-linear layer runs for d <= {limit} channels (d = {d})",
    "symbolic_budget": "the symbolic pass would build about {nodes:.3g} expression nodes, over its budget of {limit}",
    "fails": "fails for {law} under generator(s) {generators}",
    "invariant_holds": "holds for {law}: the output is invariant, not equivariant; use {use}",
    "equivariant_holds": "holds for {law}: the output is equivariant, not invariant; use {use} (or pool "
    "over the points for an invariant output)",
    "transpose_holds": "holds for {law}: P and P^T are mixed up somewhere; with P[sigma[j], j] = 1 the entry at j "
    "moves to sigma[j]",
    "rows_holds": "holds for {law} (rows of A only), not for P A P^T",
    "fixed_holds": "holds for {law}: the layer does not read the permuted graph",
    "none_holds": "none of the neighbouring laws ({tried}) holds either: the layer itself breaks the symmetry",
    "breaks": "{generator}: {fact}",
    "bias": "the bias is not constant on the orbits: b[{image}] = {image_value} but b[{k}] = {value}; a scalar bias "
    "(or one constant on each orbit) keeps the symmetry",
    "not_symmetric": "not symmetric: {reason}",
    # code under test (gdlcheck.code.user_code)
    "eval_mode": "the module was in training mode: it was checked on a {dtype} copy put in eval mode (dropout off, "
    "batch norm on its running statistics); the module itself is unchanged",
    "grad_mode": "the module asks whether gradients are on (torch.is_grad_enabled): it was checked with them off, "
    "as inference runs it; with them on it may run other kernels (attention's fast path is off then)",
    "fixed_input_moved": "this generator is not an automorphism of the fixed graph ({input}): a graph the code holds "
    "fixed keeps the symmetry only for its automorphisms (gdlcheck.group('automorphisms', "
    "graph=...)); to move it with the points, describe it as graph",
    "state_changed": "the calls of this check changed the module's state ({places}): each compared its own "
    "call, and a fresh module, or a later call, may compute something else",
    "moves": "moved by the group: {text}",
    "zero_padding": "{module} pads with zeros at the boundary, so a shift that wraps around meets zeros where the "
    "other end's values should be: padding_mode='circular' makes it a circular convolution",
    "batch_axis_checked": "{module} is batch_first, so axis 0 is its batch: permuting the batch says nothing about "
    "the points (give batch_axes=0 / --batch-axes 0 to check the points axis)",
}


def _field(key: str, value) -> str:
    if isinstance(value, Law):
        return law_text(value)
    if isinstance(value, Fact):
        return fact_text(value)
    if key == "tried":
        return ", ".join(_LAWS_TRIED[t] for t in value)
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return value


def fact_text(fact: Fact) -> str:
    """The sentence of a fact (a note, a finding of the diagnosis, a layer's structure)."""
    a, what = fact.args, fact.what
    if what in _FIXED:
        return _FIXED[what]
    if what in _TEMPLATES:
        return _TEMPLATES[what].format(**{k: _field(k, v) for k, v in a.items()})
    if what == "theorem3_holds":
        others = a["not_automorphisms"]
        return (
            f"holds for {law_text(a['law'])} (Theorem 3): with the graph held fixed it holds only for the "
            "automorphisms of A"
            + (
                f", and {', '.join(others)} is not one; use graph: input to permute A with the features"
                if others
                else ""
            )
        )
    if what == "not_proven":
        return stop_text(a["generator"], a["stop"])
    if what == "scores":
        head = f" of head {a['head']}" if a["head"] is not None else ""
        return (
            f"Wq Wk^T{head} is not symmetric (largest |M - M^T| = {a['gap']:.3g}), so the scores S[i, j] = "
            "x_i Wq Wk^T x_j^T differ from S[j, i]; a pointwise activation keeps that asymmetry (G is symmetric "
            "when Wq Wk^T is, e.g. Wq = Wk)"
        )
    if what == "entry":
        i, j = a["entry"]
        return f"G[{i}, {j}] = {a['value']:.6g} but G[{j}, {i}] = {a['mirror']:.6g}"
    if what == "random":
        where = f"output{a['output'] or ''} entry {a['entry']}"
        why = (
            "dropout in training mode, noise, or weights drawn in every call"
            if not a["training"]
            else "noise or weights drawn in every call (it runs in eval mode)"
        )
        return (
            f"random: two calls on the same input gave different outputs (relative difference "
            f"{a['relative']:.3g} at {where}), so no comparison of f(PX) with P f(X) can tell a broken symmetry "
            f"from the randomness ({why}); make it deterministic (eval mode, a fixed seed inside) and check again"
        )
    if what == "float32_level":
        return (
            f"the largest error, {a['error']:.2g} relative, is at float32 rounding level: if the code computes in "
            "float32 inside (a .float() cast, a float32 buffer or constant), check it with --dtype float32 "
            "(dtype='float32' in Python; tolerance 1e-5)"
        )
    raise KeyError(f"no sentence for fact {what!r}")


def culprit_text(c: dict) -> str:
    """Code's culprit: ``encoder.layers.1.pos_emb (PosEmb) breaks it under (0 1): ...``."""
    who = f"{c['path']} ({c['kind']})" if c["path"] else f"the module itself ({c['kind']})"
    g = short_cycles(c["generator"])
    inside = ""
    if c.get("after") and c.get("before"):
        inside = f", in its own forward between {c['after']} and {c['before']}"
    elif c.get("before"):
        inside = f", in its own forward before {c['before']}"
    elif c.get("after"):
        inside = f", in its own forward after {c['after']}"
    if c.get("made_by"):
        inside += f", with the output of {c['made_by']} (a per-point value made from inputs that do not move)"
    held = ""
    if c.get("suspects"):
        held = f"; laid along the points and not kept by {g}: {', '.join(c['suspects'])}"
    if c.get("held"):
        held += (
            f"; {', '.join(c['held'])} {'is' if len(c['held']) == 1 else 'are'} held: given unchanged, "
            "not moved with the points"
        )
    return (
        f"{who} breaks it under {g}{inside}: its inputs move with the points but its output does not "
        f"(relative error {c['relative_error']:.3g}; trial {c['trial']}, seed {c['seed']}){held}"
    )


def code_culprit_json(c: dict) -> dict:
    """The JSON ``culprit`` of code: ``path``, ``generator``, ``kind`` (the module's class) and what else
    was found, and its sentence."""
    out = {k: (json_float(v) if isinstance(v, float) else v) for k, v in c.items()}
    out["text"] = culprit_text(c)
    return out


# --------------------------------------------------------------------------- a result's lines


def constraint_lines(result: Verified) -> list[str]:
    """The solved constraints, and that none exist when no values of the symbols make it hold."""
    return list(result.constraints) + ([UNSATISFIABLE] if result.unsatisfiable else [])


def failure_lines(result: Verified) -> list[str]:
    """What was expected, then generator, error and seed per failing check (``assert_equivariant``)."""
    g = result.group
    lines = [f"{result.input} is not {result.expect} under {g.describe()} (verdict {result.verdict}):"]
    for c in result.checks:
        if c.passed is not False:
            continue
        line = f"  generator {c.generator}: "
        if c.relative_error is not None:
            line += f"relative error {c.relative_error:.3g}"
            if c.max_abs_error is not None:
                line += f" (max abs {c.max_abs_error:.3g})"
        else:
            line += "fails"
        w = c.witness
        if isinstance(w, MovedCallWitness):
            line += f": {witness_text(w)}"
        elif isinstance(w, TrialWitness):
            line += (
                f", trial {w.trial} with seed {w.seed} (input numpy.random.default_rng([{w.seed}, {w.trial}]))"
                f": output entry {list(w.entry)} is {json_float(w.got)!r}, expected {json_float(w.expected)!r}"
            )
        elif w is not None:
            line += f": {witness_text(w)}"
        lines.append(line)
    if result.culprit is not None and "relative_error" in result.culprit:
        lines.append(f"  culprit: {culprit_text(result.culprit)}")
    for note in result.notes:
        lines.append(f"  note: {fact_text(note)}")
    return lines


# --------------------------------------------------------------------------- hints and what was left open

# A failure whose every relative error is below this, under the default tolerance, is probably
# rounding noise (trained or exported weights) rather than a broken symmetry.
NEAR_MISS = 1e-4


def near_miss_hint(
    result: Verified, tol_given: bool, project_command: str | None = None, distance: float | None = None
) -> str | None:
    """A failure by less than :data:`NEAR_MISS` (relative) under the default tolerance: suggest a
    looser ``tol`` and, for a matrix, ``project_command`` (the command that ties its weights).
    A matrix within :data:`NEAR_DISTANCE` of the nearest equivariant one (``distance``, relative
    Frobenius): say how near, scaled to the distance, and how to get that matrix."""
    import math

    from gdlcheck.errors import param

    failing = result.failing
    if result.verdict != Verdict.FAILS or tol_given or not failing:
        return None
    errors = [c.relative_error for c in failing if c.relative_error is not None]
    if len(errors) == len(failing) and all(0 < e < NEAR_MISS for e in errors):
        worst = max(errors)
        looser = 10.0 ** math.ceil(math.log10(worst * 1.0001))
        text = (
            f"near miss: every failing check is off by a relative {worst:.2g} at most, under {NEAR_MISS:g}; if "
            f"that is rounding noise, loosen the tolerance ({param('tol', value=f'{looser:g}')})"
        )
        if project_command:
            text += f" or replace the matrix by the nearest equivariant one ({project_command})"
        return text
    matrix = getattr(result, "_matrix", None)
    if distance is None and matrix is not None and matrix.dtype != object:
        from gdlcheck.derivation import project

        distance = project(matrix, result.group)[1]
    if distance is not None and 0 < distance < NEAR_DISTANCE:
        return (
            f"near miss: {distance_text(distance)} from the nearest equivariant matrix (relative distance "
            "|W - P| / |W|)" + (f"; {project_command} gives it" if project_command else "")
        )
    return None


def distance_text(distance: float) -> str:
    """A relative distance as a percentage with two significant digits: ``0.37 %``."""
    return f"{distance * 100:.2g} %"


def undecided_lines(result: Verified) -> list[str]:
    """What an inconclusive verification could not decide, one line per open question."""
    if result.verdict != Verdict.INCONCLUSIVE:
        return []
    open_checks = [c for c in result.checks if c.passed is None]
    if open_checks:
        return [
            f"could not decide {c.generator} ({c.method})" + (f": {DETAILS[c.detail]}" if c.detail else "")
            for c in open_checks
        ]
    gens = result.group.generator_strings
    shown = ", ".join(shorten(g, 40) for g in gens[:4]) + (f" and {len(gens) - 4} more" if len(gens) > 4 else "")
    return [
        f"could not decide whether the layer is {result.expect} under generator(s) {shown}: the exact method "
        "runs no numeric trials (the default method, auto, does)"
    ]


def count_line(total: int, held: int, failed: int, inconclusive: int, unreadable: int) -> str:
    """``12 inputs: 9 hold, 2 fail, 1 could not be read`` (categories that are 0 are left out)."""
    parts = [(held, "hold"), (failed, "fail"), (inconclusive, "inconclusive"), (unreadable, "could not be read")]
    words = ", ".join(f"{count} {word}" for count, word in parts if count)
    return f"{total} input{'s' if total != 1 else ''}: {words}" if words else f"{total} inputs"
