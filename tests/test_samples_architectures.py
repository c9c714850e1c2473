"""Each architecture sample reproduces its claim of the texts: verdict and exit code through the CLI."""

import json

import pytest

CASES = [
    # sample, extra options, exit code, verdict
    ("cnn.yaml", [], 0, "holds"),
    ("cnn.yaml", ["--group", "symmetric"], 1, "fails"),
    ("deepsets-channels.yaml", [], 0, "holds"),
    ("gcn.yaml", [], 0, "holds"),
    ("gcn-cycle-fixed.yaml", [], 0, "holds"),
    ("gcn-cycle-fixed.yaml", ["--group", "dihedral"], 0, "holds"),
    ("gcn-cycle-fixed.yaml", ["--group", "symmetric"], 1, "fails"),
    ("attention.yaml", [], 0, "holds"),
    ("attention-pointwise.yaml", [], 0, "holds"),
    ("attention-causal.yaml", [], 1, "fails"),
    ("attention-relative.yaml", [], 0, "holds"),
    ("attention-relative.yaml", ["--group", "symmetric"], 1, "fails"),
    ("attention-absolute.yaml", [], 1, "fails"),
    ("transformer-encoder.yaml", [], 0, "holds"),
    ("set-pooling.yaml", [], 0, "holds"),
    ("bias-breaks.yaml", [], 1, "fails"),
]


@pytest.mark.parametrize("sample,extra,code,verdict", CASES, ids=[f"{c[0]}{''.join(c[1])}" for c in CASES])
def test_sample_verdict_and_exit_code(run, samples, sample, extra, code, verdict):
    result = run(["verify", samples / sample, "--format", "json", *extra])
    assert result.exit_code == code, result.stderr
    out = json.loads(result.stdout)
    assert out["verdict"] == verdict
    assert out["passed"] is (code == 0)
    assert out["schema_version"] == 1
    for key in ("input", "kind", "group", "expect", "checks", "constraints"):
        assert key in out
    if code == 1:
        assert out["diagnosis"] and out["diagnosis"][0].startswith("fails for")
        failing = [c for c in out["checks"] if c["passed"] is False]
        assert failing and all(c["counterexample"] for c in failing)


def test_numeric_counterexample_names_trial_seed_and_entry(run, samples):
    out = json.loads(
        run(
            ["verify", samples / "attention-causal.yaml", "--method", "numeric", "--seed", "5", "--format", "json"]
        ).stdout
    )
    check = out["checks"][0]
    assert check["method"] == "numeric" and check["trials"] == 8
    c = check["counterexample"]
    assert c["seed"] == 5 and 0 <= c["trial"] < 8 and len(c["entry"]) == 2
    assert abs(c["got"] - c["expected"]) == pytest.approx(check["max_abs_error"])


def test_text_report_shows_the_diagnosis(run, samples):
    result = run(["verify", samples / "gcn-cycle-fixed.yaml", "--group", "symmetric"])
    assert result.exit_code == 1
    text = " ".join(result.stdout.split())
    assert "FAIL" in text and "diagnosis" in text and "P A P^T" in text


def test_fixed_graph_diagnosis_points_to_theorem_3(run, samples):
    out = json.loads(
        run(["verify", samples / "gcn-cycle-fixed.yaml", "--group", "symmetric", "--format", "json"]).stdout
    )
    assert any("holds for Y(PX, P A P^T) = P Y(X, A)" in line for line in out["diagnosis"])


def test_invariance_mistake_is_diagnosed(run, samples, tmp_path):
    spec = tmp_path / "gcn-invariant.yaml"
    spec.write_text((samples / "gcn.yaml").read_text() + "expect: invariant\n")
    out = json.loads(run(["verify", spec, "--format", "json", "--method", "numeric"]).stdout)
    assert out["verdict"] == "fails"
    assert any("use expect: equivariant" in line for line in out["diagnosis"])


def test_pooled_output_checked_as_equivariant_is_an_input_error(run, samples, tmp_path):
    spec = tmp_path / "pool.yaml"
    spec.write_text((samples / "set-pooling.yaml").read_text().replace("expect: invariant", "expect: equivariant"))
    result = run(["verify", spec])
    assert result.exit_code == 2
    assert "use expect: invariant" in result.stderr and "Traceback" not in result.stderr


def test_method_exact_proves_a_transformer_encoder_without_running_it(run, samples):
    result = run(["verify", samples / "transformer-encoder.yaml", "--method", "exact", "--format", "json"])
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["verdict"] == "holds" and {c["method"] for c in out["checks"]} == {"exact"}
    assert {step["theorem"] for step in out["proof"]} >= {"Theorem 4"}


def test_method_exact_where_nothing_exact_decides_is_inconclusive(run, tmp_path):
    # an absolute table that no permutation fixes, on 8 points (past the symbolic pass): the
    # proof stops at the table, and --method exact runs no trials
    spec = tmp_path / "table.yaml"
    table = [[float(i), 0.0] for i in range(8)]
    spec.write_text(
        "symmetry: {group: cyclic, n: 8}\nlayer: {kind: attention, wq: [[1, 0], [0, 1]], "
        f"wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]], positional: {{absolute: {table}}}}}\n"
    )
    result = run(["verify", spec, "--method", "exact", "--format", "json"])
    assert result.exit_code == 3
    out = json.loads(result.stdout)
    assert out["verdict"] == "inconclusive"
    assert any("not proven for (0 1 2 3 4 5 6 7) at layer.positional" in note for note in out["notes"])


def test_same_spec_and_seed_give_byte_identical_json(run, samples):
    for sample in ("attention-causal.yaml", "transformer-encoder.yaml"):
        first = run(["verify", samples / sample, "--format", "json", "--seed", "3"]).stdout
        second = run(["verify", samples / sample, "--format", "json", "--seed", "3"]).stdout
        assert first == second
    a = run(["inspect", samples / "attention.yaml", "--format", "json"]).stdout
    b = run(["inspect", samples / "attention.yaml", "--format", "json"]).stdout
    assert a == b
