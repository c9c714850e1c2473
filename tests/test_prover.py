"""The prover is sound: whenever it says a layer commutes with a generator, the numeric law holds.

Random layer trees of every kind (random sizes, weights, masks, tables, graphs) against
catalogue groups and random generators: when the prover says holds, every trial holds by the
project's own tolerance rule (a deviation of at most ``ROUNDING_ULPS`` ulps of the largest
magnitude on the way is rounding, :func:`gdlcheck.verification.verdict.within_rounding`); when a
trial finds a counterexample past 1e-6, the prover did not say holds.  And a rule broken on
purpose is caught by the same search.
"""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, example, find, given, settings
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import derive
from gdlcheck.errors import GdlcheckError
from gdlcheck.layers import GCN, Attention, BuildContext, Conv, build_layer
from gdlcheck.tolerances import ROUNDING
from gdlcheck.verification import verify_layer
from gdlcheck.verification.deduce import deduce
from gdlcheck.verification.measure import default_law, trial_residuals
from gdlcheck.verification.verdict import within_rounding

# --------------------------------------------------------------------------- random groups and layer trees


def ring(n):
    A = np.zeros((n, n))
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1.0
    return A


@st.composite
def random_groups(draw, n):
    choice = draw(
        st.sampled_from(
            ["cyclic", "dihedral", "symmetric", "alternating", "trivial", "generators", "translations", "automorphisms"]
        )
    )
    if choice == "generators":
        perms = draw(st.lists(st.permutations(range(n)), min_size=1, max_size=2))
        return groups.from_generators(n, [list(p) for p in perms])
    if choice == "translations":
        sides = [a for a in range(2, n) if n % a == 0]
        return groups.translations((sides[0], n // sides[0]) if sides else (n,))
    if choice == "automorphisms":
        return groups.automorphism_group(ring(n))
    return groups.build_group(choice, n=n)


def matrix(rng, rows, cols):
    return (rng.standard_normal((rows, cols)) / np.sqrt(rows)).round(3).tolist()


@st.composite
def leaves(draw, n, d, group, rng):
    """One layer kind with parameters that keep the symmetry or break it, at random; returns
    (spec, channels out)."""
    kind = draw(
        st.sampled_from(
            [
                "linear",
                "conv",
                "deepsets",
                "deepsets_channels",
                "pointwise",
                "mlp",
                "layernorm",
                "gcn",
                "attention",
                "transformer_encoder",
            ]
        )
    )
    if kind == "linear":
        if draw(st.booleans()):  # an equivariant W for this group
            pattern = derive(group).pattern
            W = rng.standard_normal(int(pattern.max()) + 1).round(3)[pattern]
        else:
            W = rng.standard_normal((n, n)).round(3)
        spec = {"kind": "linear", "weight": W.tolist()}
        bias = draw(st.sampled_from(["none", "scalar", "vector"]))
        if bias == "scalar":
            spec["bias"] = 0.5
        elif bias == "vector":
            spec["bias"] = rng.standard_normal(n).round(3).tolist()
        return spec, d
    if kind == "conv":
        spec = {"kind": "conv", "kernel": rng.standard_normal(draw(st.integers(1, n))).round(3).tolist()}
        if draw(st.booleans()):
            spec["bias"] = rng.standard_normal(n).round(3).tolist() if draw(st.booleans()) else 0.25
        return spec, d
    if kind == "deepsets":
        return {
            "kind": "deepsets",
            "alpha": round(float(rng.standard_normal()), 3),
            "beta": round(float(rng.standard_normal()), 3),
        }, d
    if kind == "deepsets_channels":
        d2 = draw(st.integers(1, 3))
        return {"kind": "deepsets", "lambda": matrix(rng, d, d2), "gamma": matrix(rng, d, d2)}, d2
    if kind == "pointwise":
        return {"kind": "pointwise", "activation": draw(st.sampled_from(["relu", "tanh", "sigmoid", "gelu"]))}, d
    if kind == "mlp":
        h, d2 = draw(st.integers(1, 4)), draw(st.integers(1, 3))
        return {"kind": "mlp", "weights": [matrix(rng, d, h), matrix(rng, h, d2)], "activation": "tanh"}, d2
    if kind == "layernorm":
        return {"kind": "layernorm"}, d
    if kind == "transformer_encoder":
        return {
            "kind": "transformer_encoder",
            "layers": draw(st.integers(1, 2)),
            "d_model": d,
            "d_ff": 4,
            "mask": draw(st.sampled_from(["none", "causal"])),
        }, d
    if kind == "gcn":
        if draw(st.booleans()):
            A = ring(n)
        else:
            A = np.triu((rng.random((n, n)) < 0.5).astype(float), 1)
            A = A + A.T
        d2 = draw(st.integers(1, 3))
        return {
            "kind": "gcn",
            "adjacency": A.tolist(),
            "weight": matrix(rng, d, d2),
            "activation": draw(st.sampled_from(["relu", "tanh", "identity"])),
            "normalization": draw(st.sampled_from(["symmetric", "random_walk", "none"])),
            "graph": draw(st.sampled_from(["input", "fixed"])),
        }, d2
    dk = 2 * draw(st.integers(1, 2))
    spec = {
        "kind": "attention",
        "wq": matrix(rng, d, dk),
        "wk": matrix(rng, d, dk),
        "wv": matrix(rng, d, dk),
        "heads": draw(st.sampled_from([1, 2])),
        "weights": draw(st.sampled_from(["softmax", "sigmoid"])),
        "mask": draw(st.sampled_from(["none", "causal"])),
    }
    positional = draw(st.sampled_from(["none", "absolute", "constant", "relative"]))
    if positional == "absolute":
        spec["positional"] = {"absolute": matrix(rng, n, d)}
    elif positional == "constant":  # the same row at every point: fixed by every permutation
        spec["positional"] = {"absolute": [matrix(rng, 1, d)[0]] * n}
    elif positional == "relative":
        spec["positional"] = {"relative": rng.standard_normal(n).round(3).tolist()}
    return spec, dk


@st.composite
def trees(draw):
    """A random layer tree, its group, its input channels and what it should be."""
    n = draw(st.integers(2, 6))
    d = draw(st.integers(1, 3))
    group = draw(random_groups(n))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    channels, layers = d, []
    for _ in range(draw(st.integers(1, 3))):
        leaf, out = draw(leaves(n, channels, group, rng))
        if out == channels and draw(st.booleans()):
            leaf = {"kind": "residual", "layer": leaf}
        layers.append(leaf)
        channels = out
    expect = "equivariant"
    if draw(st.booleans()):
        layers.append({"kind": "pool", "op": draw(st.sampled_from(["sum", "mean", "max"]))})
        expect = "invariant"
        if draw(st.booleans()):
            layers.append({"kind": "mlp", "weights": [matrix(rng, channels, 2)]})
    return layers, group, d, expect


def build(spec, group, d):
    return build_layer(spec, BuildContext(spec=None, n=group.n, channels=d, seed=0))


def trial_residuals_of(layer, group, d, expect, trials=4):
    return {r.generator: r for r in trial_residuals(layer, group, default_law(layer, expect), d, trials, seed=1)}


def trial_errors(layer, group, d, expect, trials=4):
    return {g: r.relative_error for g, r in trial_residuals_of(layer, group, d, expect, trials).items()}


def rounding(residual) -> bool:
    """The trial's deviation is rounding by the rule the verdict applies to a proved generator."""
    return within_rounding(residual, ROUNDING["float64"])


def unsound(case) -> bool:
    """The prover says some generator holds, and a trial shows it does not."""
    spec, group, d, expect = case
    try:
        layer = build(spec, group, d)
        proof = deduce(layer, group, expect)
        if not any(proof.proven.values()):
            return False  # nothing proven: no claim for a trial to contradict
        errors = trial_errors(layer, group, d, expect)
    except GdlcheckError:
        return False
    return any(proof.proven[g] and errors[g] > 1e-6 for g in errors)


# --------------------------------------------------------------------------- soundness


# Found by a random run (issue 35): a GCN whose rows are each a scalar times one fixed vector,
# then two layer norms and a sum pool, invariant under the cyclic group. Every step is
# equivariant and the pool invariant, so holds is right; the trial's deviation is rounding: the
# layer norm of a scalar times a fixed vector amplifies it, and the sum pool cancels the rows to
# a small output, so it is large against the output (relative 7.4e-9) and tiny against the
# magnitudes on the way, which is what the tolerance rule reads.
LAYERNORM_ROUNDING = (
    [
        {
            "kind": "gcn",
            "adjacency": [[0.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0, 0.0]],
            "weight": [[-0.544, -0.316, 0.412]],
            "activation": "identity",
            "normalization": "symmetric",
            "graph": "input",
        },
        {"kind": "layernorm"},
        {"kind": "layernorm"},
        {"kind": "pool", "op": "sum"},
    ],
    groups.build_group("cyclic", n=4),
    1,
    "invariant",
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees())
@example(LAYERNORM_ROUNDING)
def test_whenever_the_prover_says_holds_every_trial_holds(case):
    spec, group, d, expect = case
    try:
        layer = build(spec, group, d)
        proof = deduce(layer, group, expect)
    except GdlcheckError:
        return  # a spec the builder refuses, or a pooled output checked as equivariant
    residuals = trial_residuals_of(layer, group, d, expect)
    for g, proven in proof.proven.items():
        if proven:
            assert rounding(residuals[g]), (g, residuals[g], spec)
        if residuals[g].relative_error > 1e-6:
            assert not proven, (g, spec)


_REAL_RULES = {"attention": Attention.rule, "conv": Conv.rule, "gcn": GCN.rule}


def _attention_ignoring_tables(self, group, gens):
    real = _REAL_RULES["attention"](self, group, gens)
    return type(real)(real.name, real.theorem, tuple(c for c in real.conditions if c.what != "table"))


def _conv_treating_every_generator_as_a_shift(self, group, gens):
    real = _REAL_RULES["conv"](self, group, gens)
    return type(real)(real.name, real.theorem, tuple(c for c in real.conditions if c.what != "weights"))


def _gcn_forgetting_its_fixed_graph(self, group, gens):
    real = _REAL_RULES["gcn"](self, group, gens)
    return type(real)(real.name, real.theorem, ())


@pytest.mark.parametrize(
    "cls, broken",
    [
        (Attention, _attention_ignoring_tables),
        (Conv, _conv_treating_every_generator_as_a_shift),
        (GCN, _gcn_forgetting_its_fixed_graph),
    ],
    ids=["attention ignores absolute tables", "conv treats every generator as a shift", "gcn forgets its fixed graph"],
)
def test_a_rule_broken_on_purpose_is_caught(monkeypatch, cls, broken):
    monkeypatch.setattr(cls, "rule", broken)
    # the same random trees and the same law: the search finds a tree the broken rule proves wrongly
    # (the first one found: shrinking it, half the search's time, would only make it smaller)
    found = find(
        trees(),
        unsound,
        settings=settings(max_examples=2000, derandomize=True, deadline=None, database=None, phases=[Phase.generate]),
    )
    assert unsound(found)


# --------------------------------------------------------------------------- rules, paths, methods


def spec_layer(spec, n, d=2):
    return build_layer(spec, BuildContext(spec=None, n=n, channels=d, seed=0))


def test_a_failed_condition_names_its_layer_and_the_first_entry_that_breaks_it():
    table = [[0.0, 0.0]] * 2 + [[1.0, 0.0]] + [[0.0, 0.0]] * 3
    layer = spec_layer(
        {
            "kind": "sequential",
            "layers": [
                {"kind": "pointwise", "activation": "tanh"},
                {
                    "kind": "attention",
                    "wq": [[1, 0], [0, 1]],
                    "wk": [[1, 0], [0, 1]],
                    "wv": [[1, 0], [0, 1]],
                    "positional": {"absolute": table},
                },
                {"kind": "layernorm"},
            ],
        },
        6,
    )
    proof = deduce(layer, groups.symmetric(6))
    assert [s.path for s in proof.steps] == ["layer", "layer.layers[0]", "layer.layers[1]", "layer.layers[2]"]
    stop = proof.stops["(0 1 2 3 4 5)"]
    assert stop.step.path == "layer.layers[1]" and stop.condition.what == "table"
    assert stop.condition.parameter == "positional" and stop.condition.entry == (1,) and stop.condition.image == (2,)
    # (0 1) swaps two equal rows of E: P E = E holds for it, and the proof goes through
    assert proof.proven["(0 1)"] and not proof.proven["(0 1 2 3 4 5)"]


def test_pooling_restores_what_a_breaking_layer_took_and_only_the_trials_say_so():
    # a per-point bias breaks equivariance, yet the sum over the points is invariant: the
    # proof stops at the bias (not proven), the trials find no counterexample
    layer = spec_layer(
        [{"kind": "linear", "weight": np.eye(4).tolist(), "bias": [1, 2, 3, 4]}, {"kind": "pool", "op": "sum"}], 4, d=1
    )
    result = verify_layer(layer, groups.symmetric(4), expect="invariant")
    assert not result.proof.holds and result.proof.stops["(0 1 2 3)"].condition.what == "bias"
    assert result.passed and result.verdict in ("holds_within_tolerance", "holds_numerically", "holds")


def test_residual_of_an_invariant_map_is_equivariant():
    layer = spec_layer(
        {
            "kind": "residual",
            "layer": [{"kind": "mlp", "weights": [[[0.5, 1.0], [1.0, -0.5]]]}, {"kind": "pool", "op": "mean"}],
        },
        5,
    )
    g = groups.symmetric(5)
    assert deduce(layer, g).holds
    assert max(trial_errors(layer, g, 2, "equivariant").values()) <= 1e-12


def test_conv_is_theorem_1_for_shifts_and_checked_entry_by_entry_otherwise():
    layer = spec_layer({"kind": "conv", "kernel": [1.0, 2.0, 3.0]}, 6, d=1)
    cyclic = deduce(layer, groups.cyclic(6))
    assert cyclic.holds and cyclic.steps[0].theorem == "Theorem 1" and cyclic.steps[0].conditions == []
    dihedral = deduce(layer, groups.dihedral(6))
    assert [c.what for c in dihedral.steps[0].conditions] == ["weights"]
    assert not dihedral.proven["(1 5)(2 4)"] and dihedral.proven["(0 1 2 3 4 5)"]
    # what a generator is, is read from the permutation, never from the group's name or roles:
    # a hand-built group's real shift is Theorem 1, a swap it calls a shift is checked
    impostor = groups.PermGroup(
        "cyclic", 6, (groups.shift(6), (1, 0, 2, 3, 4, 5)), roles=(groups.Role("swap"), groups.Role("shift"))
    )
    proof = deduce(layer, impostor)
    assert [(c.what, c.generator) for c in proof.steps[0].conditions] == [("weights", "(0 1)")]
    assert proof.proven == {"(0 1 2 3 4 5)": True, "(0 1)": False}


def test_auto_runs_trials_only_where_the_proof_does_not_settle_or_they_are_cheap(run, tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text(
        "symmetry: {group: symmetric, n: 512}\nchannels: 16\n"
        "layer: {kind: transformer_encoder, layers: 1, d_model: 16, heads: 2}\n"
    )
    out = json.loads(run(["verify", big, "--format", "json"]).stdout)
    assert out["verdict"] == "holds" and {c["method"] for c in out["checks"]} == {"exact"}
    both = json.loads(run(["verify", big, "--format", "json", "--method", "both", "--trials", "1"]).stdout)
    assert {c["method"] for c in both["checks"]} == {"exact", "numeric"} and both["verdict"] == "holds"
    numeric = json.loads(run(["verify", big, "--format", "json", "--method", "numeric", "--trials", "1"]).stdout)
    assert {c["method"] for c in numeric["checks"]} == {"numeric"} and numeric["verdict"] == "holds_numerically"
    assert "proof" not in numeric


def test_a_ten_layer_spec_names_the_layer_that_breaks_it(run, tmp_path):
    layers = [{"kind": "pointwise", "activation": "tanh"}] * 9
    layers.insert(
        6,
        {
            "kind": "attention",
            "wq": [[1.0]],
            "wk": [[1.0]],
            "wv": [[1.0]],
            "positional": {"absolute": [[float(i)] for i in range(7)]},
        },
    )
    spec = tmp_path / "ten.yaml"
    spec.write_text(json.dumps({"symmetry": {"group": "cyclic", "n": 7}, "layers": layers}))
    out = json.loads(run(["verify", spec, "--format", "json"]).stdout)
    assert out["verdict"] == "fails"
    assert out["culprit"]["path"] == "layers[6].positional" and out["culprit"]["condition"] == "P E = E"


# --------------------------------------------------------------------------- the samples


SAMPLES = sorted(
    p.name for p in __import__("pathlib").Path(__file__).resolve().parent.parent.joinpath("samples").glob("*.yaml")
)


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("group", [None, "symmetric"])
def test_every_sample_gets_an_exact_verdict(run, samples, sample, group):
    extra = ["--group", group] if group else []
    out = json.loads(run(["verify", samples / sample, "--format", "json", "--method", "exact", *extra]).stdout)
    assert out["verdict"] in ("holds", "fails"), (sample, out["verdict"], out.get("notes"))


@pytest.mark.parametrize("sample", SAMPLES)
def test_on_small_samples_the_prover_and_the_symbolic_pass_agree(samples, sample):
    from gdlcheck.sources import GroupOptions, resolve
    from gdlcheck.verification.measure import symbolic_applies, symbolic_residuals

    for options in (GroupOptions(), GroupOptions(name="symmetric")):
        job = resolve(str(samples / sample), options)
        if symbolic_applies(job.layer, job.group.n, job.channels) is not None:
            continue
        proof = deduce(job.layer, job.group, job.expect)
        symbolic = {r.generator: r.exact for r in symbolic_residuals(job.layer, job.group, job.expect, job.channels)}
        for g, proven in proof.proven.items():
            # proved equal by the rules <=> the same expressions; not proven here means broken
            assert symbolic[g] is proven, (sample, options.name, g)


def test_json_proof_and_explain_say_the_rule_the_theorem_and_the_entry_that_breaks_it(run, samples):
    out = json.loads(
        run(["verify", samples / "attention-relative.yaml", "--group", "symmetric", "--format", "json"]).stdout
    )
    (step,) = out["proof"]
    assert set(step) >= {"path", "kind", "rule", "theorem", "conditions"} and step["theorem"] == "Theorem 4"
    assert [(c["what"], c["generator"], c["holds"]) for c in step["conditions"]] == [
        ("P B P^T = B", "(0 1 2 3 4 5)", True),
        ("P B P^T = B", "(0 1)", False),
    ]
    assert out["culprit"]["path"] == "layer.positional" and out["culprit"]["generator"] == "(0 1)"
    text = run(["verify", samples / "attention-relative.yaml", "--group", "symmetric", "--explain"]).stdout
    assert "Y(PX) = G(PX) V(PX) = P G(X) P^T P V(X) = P Y(X)" in text
    assert "layer.positional: B[1, 0] != B[0, 1]" in text


def test_a_not_proven_generator_is_named_in_the_notes_of_a_numeric_verdict(tmp_path, run):
    # tanh(sum_i (x_i + b_i)) is invariant although the per-point bias is not: the proof stops at
    # the bias, no exact method applies past 6 points, and the trials find no counterexample
    spec = tmp_path / "pooled-bias.yaml"
    eye = np.eye(7).tolist()
    spec.write_text(
        json.dumps(
            {
                "symmetry": {"group": "cyclic", "n": 7},
                "expect": "invariant",
                "layers": [
                    {"kind": "linear", "weight": eye, "bias": [1, 2, 3, 4, 5, 6, 7]},
                    {"kind": "pool", "op": "sum"},
                    {"kind": "pointwise", "activation": "tanh"},
                ],
            }
        )
    )
    out = json.loads(run(["verify", spec, "--format", "json"]).stdout)
    assert out["verdict"] == "holds_numerically"
    assert "not proven for (0 1 2 3 4 5 6) at layers[0].bias: b[1] = 2.0 but b[0] = 1.0" in " ".join(out["notes"])


@pytest.mark.parametrize(
    "spec",
    [
        # a linear layer as a whole, measured on the weights' scale (the tolerance rule)
        {
            "symmetry": {"group": "cyclic", "n": 4},
            "expect": "invariant",
            "layer": [{"kind": "conv", "kernel": [0.1, -0.3, 0.2]}, {"kind": "pool", "op": "sum"}],
        },
        # measured against its own outputs, which are rounding of 0
        {
            "symmetry": {"group": "symmetric", "n": 5},
            "channels": 2,
            "expect": "invariant",
            "layer": [{"kind": "deepsets", "alpha": 1, "beta": -0.2}, {"kind": "pool", "op": "sum"}],
        },
    ],
    ids=["zero-sum-kernel", "centred-set"],
)
@pytest.mark.parametrize("method", ["auto", "both"])
def test_a_proof_of_an_output_that_is_exactly_zero_is_not_overruled_by_rounding(run, tmp_path, spec, method):
    """The output is 0 in exact arithmetic; a relative error against the outputs divides noise by
    noise. Whether the trials' floats come out exactly 0 (and pass) or as rounding (and fail)
    depends on the CPU; either way the proof stands, and a trial that fails is named as rounding."""
    path = tmp_path / "zero.yaml"
    path.write_text(json.dumps(spec))
    result = run(["verify", path, "--method", method, "--format", "json"])
    report = json.loads(result.stdout)
    assert (result.exit_code, report["verdict"]) == (0, "holds")
    trials = [c for c in report["checks"] if c["method"] == "numeric"]
    # the inputs are of order 1 and the outputs are 0: a deviation is rounding, far below 1e-12
    assert all(c["max_abs_error"] < 1e-12 for c in trials)
    failed = [c["generator"] for c in trials if not c["passed"]]
    notes = " ".join(report.get("notes", []))
    assert all(f"the trials for {g} measured" in notes and "what they measured is rounding" in notes for g in failed)
