"""Every sentence verification and inspection say: witnesses, notes, diagnoses, a layer's facts.

The library hands over typed records (witnesses from :mod:`gdlcheck.verification.result`,
:class:`gdlcheck.layers.Fact`); this module words them, the same way for JSON, for the text
report and for ``assert_equivariant``'s message.
"""

from __future__ import annotations

from gdlcheck.layers import Fact
from gdlcheck.limits import MAX_SIMPLIFY_OPS, SYMBOLIC_SECONDS
from gdlcheck.text import safe_str, shorten
from gdlcheck.verification.result import Law, OutputWitness, ShapeWitness, TrialWitness, VerifyResult, WeightWitness

# How an exact comparison was decided (Residual.detail); JSON "note" of a check.
DETAILS = {
    "sympy_timeout": f"sympy could not decide within {SYMBOLIC_SECONDS:g} s",
    "sympy_undecided": "sympy could not decide",
    "symbolic_budget": f"undecided: the whole check's symbolic budget ({MAX_SIMPLIFY_OPS} operations for sympy's "
                       "simplify) ran out",
    "symbolic_identical": "symbolic: f(PX) and P f(X) are the same expressions",
    "symbolic_simplified": "symbolic: f(PX) and P f(X) simplify to the same expressions",
    "within_tolerance_only": "holds only within tolerance; --method exact demands exactness",
}

UNSATISFIABLE = "no values of the symbols make it hold"


# --------------------------------------------------------------------------- laws and witnesses


def law_text(law: Law) -> str:
    """``Y(PX, P A P^T) = P Y(X, A)`` and its neighbours."""
    if law.graph is None:
        left = "Y(PX)"
        right = {"P": "P Y(X)", "PT": "P^T Y(X)", "none": "Y(X)"}[law.output]
    else:
        left = "Y(PX, " + {"both": "P A P^T", "rows": "P A", "fixed": "A"}[law.graph] + ")"
        right = {"P": "P Y(X, A)", "PT": "P^T Y(X, A)", "none": "Y(X, A)"}[law.output]
    return f"{left} = {right}"


def _value(x) -> str:
    """A weight as the witness shows it: a float with full precision, an expression as written."""
    return repr(x) if isinstance(x, float) else safe_str(x)


def _at(entry: tuple[int, ...]) -> str:
    return f"W[{entry[0]}, {entry[1]}]" if len(entry) == 2 else f"b[{entry[0]}]"


def counterexample(witness) -> dict | None:
    """A witness as the JSON ``counterexample`` object (key order is part of the format)."""
    if witness is None:
        return None
    if isinstance(witness, WeightWitness):
        return {"entry": list(witness.entry), "image_entry": list(witness.image_entry),
                "value": _json_value(witness.value), "image_value": _json_value(witness.image_value),
                "text": witness_text(witness)}
    if isinstance(witness, TrialWitness):
        return {"trial": witness.trial, "seed": witness.seed, "input_seed": [witness.seed, witness.trial],
                "entry": list(witness.entry), "expected": json_float(witness.expected), "got": json_float(witness.got)}
    if isinstance(witness, OutputWitness):
        return {"entry": list(witness.entry), "expected": shorten(witness.expected, 160),
                "got": shorten(witness.got, 160), "text": witness_text(witness)}
    return {"text": witness_text(witness)}


def witness_text(witness) -> str:
    """One line that shows the witness."""
    if isinstance(witness, WeightWitness):
        return (f"{_at(witness.image_entry)} = {_value(witness.image_value)} but {_at(witness.entry)} = "
                f"{_value(witness.value)}")
    if isinstance(witness, TrialWitness):
        return (f"trial {witness.trial} (input from default_rng([{witness.seed}, {witness.trial}])): output entry "
                f"{list(witness.entry)} is {json_float(witness.got)!r}, expected {json_float(witness.expected)!r}")
    if isinstance(witness, OutputWitness):
        return (f"output entry {list(witness.entry)}: f(PX) gives {shorten(witness.got, 80)} but the law wants "
                f"{shorten(witness.expected, 80)}")
    if isinstance(witness, ShapeWitness):
        return f"output shape {list(witness.got)} vs {list(witness.expected)}"
    return str(witness)


def json_float(x):
    """A float for JSON: None for inf and NaN (JSON has neither)."""
    import math

    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _json_value(x):
    return x if isinstance(x, float) else safe_str(x)


# --------------------------------------------------------------------------- facts

_LAWS_TRIED = {"rows": "rows-only P A", "fixed": "fixed A", "both": "P A P^T", "PT": "P^T",
               "equivariance": "equivariance", "invariance": "invariance"}

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
    "no_exact_check": "no exact check applies: {why}",
    "numeric_only": "numeric check only: {why}",
    "no_symbolic_pass": "layer kind {kind!r} has no symbolic forward pass",
    "symbolic_points": "the exact check of a non-linear layer runs for n <= {limit} (n = {n})",
    "symbolic_channels": "the exact check of a non-linear layer runs for d <= {limit} channels (d = {d})",
    "fails": "fails for {law} under generator(s) {generators}",
    "invariant_holds": "holds for {law}: the output is invariant, not equivariant; use expect: invariant",
    "equivariant_holds": "holds for {law}: the output is equivariant, not invariant; use expect: equivariant (or pool "
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
        return (f"holds for {law_text(a['law'])} (Theorem 3): with the graph held fixed it holds only for the "
                "automorphisms of A" + (f", and {', '.join(others)} is not one; use graph: input to permute A with "
                                        "the features" if others else ""))
    if what == "scores":
        head = f" of head {a['head']}" if a["head"] is not None else ""
        return (f"Wq Wk^T{head} is not symmetric (largest |M - M^T| = {a['gap']:.3g}), so the scores S[i, j] = "
                "x_i Wq Wk^T x_j^T differ from S[j, i]; a pointwise activation keeps that asymmetry (G is symmetric "
                "when Wq Wk^T is, e.g. Wq = Wk)")
    if what == "entry":
        i, j = a["entry"]
        return f"G[{i}, {j}] = {a['value']:.6g} but G[{j}, {i}] = {a['mirror']:.6g}"
    raise KeyError(f"no sentence for fact {what!r}")


# --------------------------------------------------------------------------- a result's lines


def constraint_lines(result: VerifyResult) -> list[str]:
    """The solved constraints, and that none exist when no values of the symbols make it hold."""
    return list(result.constraints) + ([UNSATISFIABLE] if result.unsatisfiable else [])


def failure_lines(result: VerifyResult) -> list[str]:
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
        if isinstance(w, TrialWitness):
            line += (f", trial {w.trial} with seed {w.seed} (input numpy.random.default_rng([{w.seed}, {w.trial}]))"
                     f": output entry {list(w.entry)} is {json_float(w.got)!r}, expected {json_float(w.expected)!r}")
        elif w is not None:
            line += f": {witness_text(w)}"
        lines.append(line)
    for note in result.notes:
        lines.append(f"  note: {fact_text(note)}")
    return lines
