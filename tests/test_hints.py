"""Hints that save a round trip: near misses, CSV headers, 2b, file paths for --callable,
did-you-mean by meaning, and the YAML line in every spec error that has a key path."""

import json
import shutil

import numpy as np
import pytest

from tests.conftest import SAMPLES


def near_circulant(tmp_path, noise: float):
    n = 6
    i, j = np.indices((n, n))
    W = ((i - j) % n).astype(float) + 1
    W[0, 0] += noise
    path = tmp_path / "trained.npy"
    np.save(path, W)
    return path


def test_a_near_miss_suggests_tol_and_project(run, tmp_path):
    path = near_circulant(tmp_path, 3e-5)
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 1
    assert "hint: near miss: every failing check is off by a" in result.stdout
    (obj,) = [
        json.loads(line) for line in run(["verify", path, "-g", "cyclic", "--format", "json"]).stdout.splitlines()
    ]
    # 3e-5 off the largest weight 6: a relative 5e-06, for both checks alike (the tolerance rule)
    assert obj["hints"] == [
        f"near miss: every failing check is off by a relative 5e-06 at most, under 0.0001; if "
        f"that is rounding noise, loosen the tolerance (--tol 1e-05) or replace the matrix by the "
        f"nearest equivariant one (gdlcheck project {path} --group cyclic)"
    ]
    # the hint is right: the suggested tolerance passes
    assert run(["verify", path, "-g", "cyclic", "--tol", "1e-5", "-q"]).exit_code == 0


def test_no_hint_for_a_real_failure_or_an_explicit_tol(run, tmp_path):
    path = near_circulant(tmp_path, 0.5)
    assert "hints" not in json.loads(run(["verify", path, "-g", "cyclic", "--format", "json"]).stdout)
    path = near_circulant(tmp_path, 3e-5)
    given = json.loads(run(["verify", path, "-g", "cyclic", "--tol", "1e-7", "--format", "json"]).stdout)
    assert given["verdict"] == "fails" and "hints" not in given


def test_a_spec_near_miss_suggests_tol_only(run, tmp_path):
    spec = tmp_path / "w.yaml"
    spec.write_text(
        "symmetry: {group: cyclic, n: 3}\nlayer:\n  kind: linear\n  weight: [[1, 2, 3], [3, 1, 2], [2, 3, 1.00001]]\n"
    )
    (obj,) = [json.loads(line) for line in run(["verify", spec, "--format", "json"]).stdout.splitlines()]
    (hint,) = obj["hints"]
    assert "--tol 1e-05" in hint and "project" not in hint


def test_a_csv_header_row_is_reported_as_one(run, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("w0,w1,w2\n1,2,3\n3,1,2\n")
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"gdlcheck: error: {path}: row 0 (w0, w1, w2) looks like a header over rows of numbers: "
        "delete it or comment it out with '#' (a matrix file holds the entries only; symbolic "
        "entries belong in a spec)\n"
    )
    path.write_text("# w0,w1,w2\n1,2,3\n3,1,2\n2,3,1\n")
    assert run(["verify", path, "-g", "cyclic", "-q"]).exit_code == 0


def test_symbols_in_a_csv_read_only_when_the_file_asks_for_them(run, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("# symbols\na,b,c\nc,a,b\nb,c,a\n")
    assert run(["verify", path, "-g", "cyclic", "-q"]).exit_code == 0
    path.write_text("1,2,3\n3,1,2\n2,3,x1\n")  # a stray word: not a symbol the verdict is about
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "entry [2, 2] is 'x1', not a number" in result.stderr and "'# symbols'" in result.stderr
    path.write_text("1,2,1/3\n1/3,1,2\n2,1/3,1\n")  # numbers written as expressions are numbers
    assert run(["verify", path, "-g", "cyclic", "-q"]).exit_code == 0


@pytest.mark.parametrize(
    "text, fixed", [("2b", "2*b"), ("2(a + b)", "2*(a + b)"), ("1e-3x", "1e-3*x"), ("x + 4y", "x + 4*y")]
)
def test_juxtaposition_suggests_the_product_with_the_line(run, tmp_path, text, fixed):
    spec = tmp_path / "k.yaml"
    spec.write_text(f"symmetry: {{group: cyclic, n: 4}}\nlayer:\n  kind: conv\n  kernel: [a, '{text}', c]\n")
    result = run(["verify", spec])
    assert result.exit_code == 2
    assert result.stderr == (
        f"gdlcheck: error: {spec}: layer.kernel[1]: cannot parse expression {text!r} (a product "
        f"needs '*': write {fixed!r}) (line 4)\n"
    )


def test_callable_takes_a_file_path(run, tmp_path, monkeypatch):
    code = tmp_path / "code"
    code.mkdir()
    shutil.copy(SAMPLES / "mylayers.py", code / "mynet_for_tests.py")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = run(
        ["verify", "--callable", "../code/mynet_for_tests.py:centred", "--input-shape", "6x2", "-g", "symmetric", "-q"]
    )
    assert result.exit_code == 0, result.stderr
    missing = run(["verify", "--callable", "../code/absent.py:centred", "--input-shape", "6x2", "-g", "symmetric"])
    assert missing.exit_code == 2
    assert missing.stderr == "gdlcheck: error: ../code/absent.py:centred: no such file: ../code/absent.py\n"
    assert "package" not in missing.stderr


@pytest.mark.parametrize(
    "name, meant",
    [
        ("rotations", "p4"),
        ("permutations", "symmetric"),
        ("reflections", "dihedral"),
        ("graph", "automorphisms"),
        ("cyclc", "cyclic"),
    ],
)
def test_group_names_get_a_suggestion_by_meaning(run, name, meant):
    result = run(["derive", "--group", name, "-n", "4"])
    assert result.exit_code == 2 and f"unknown group {name!r} (did you mean {meant!r}?)" in result.stderr


@pytest.mark.parametrize(
    "yaml, where, says",
    [
        (
            "layer:\n  type: conv\n  kernel: [a, b]\n",
            "layer.type",
            "unknown key 'type' (did you mean 'kind'?): a layer names its kind with kind: conv (line 3)",
        ),
        (
            "layer:\n  kind: linear\n  weights: [[1, 2], [2, 1]]\n",
            "layer.weights",
            "unknown key 'weights' (did you mean 'weight'?)",
        ),
        (
            "group: cyclic\nlayer: {kind: conv, kernel: [a]}\n",
            "group",
            "unknown key 'group' (did you mean 'symmetry'?)",
        ),
        (
            "layer:\n  kind: gcn\n  adj: [[0, 1], [1, 0]]\n  weight: [[1]]\n",
            "layer.adj",
            "unknown key 'adj' (did you mean 'adjacency'?)",
        ),
    ],
)
def test_keys_get_a_suggestion_by_meaning(run, tmp_path, yaml, where, says):
    spec = tmp_path / "s.yaml"
    spec.write_text("symmetry: {group: cyclic, n: 2}\n" + yaml if not yaml.startswith("group") else yaml)
    result = run(["verify", spec])
    assert result.exit_code == 2 and f": {where}: {says}" in result.stderr, result.stderr


def test_the_readme_error_example_prints_its_line(run, tmp_path):
    # the manual, "Exit codes": gdlcheck: error: layer.yaml: layer.weight: row 2 has 3 entries, expected 4 (line 8)
    spec = tmp_path / "layer.yaml"
    spec.write_text(
        "name: ragged\nsymmetry: {group: cyclic, n: 4}\nlayer:\n  kind: linear\n  weight:\n"
        "    - [1, 2, 3, 4]\n    - [4, 1, 2, 3]\n    - [3, 4, 1]\n    - [2, 3, 4, 1]\n"
    )
    result = run(["verify", spec])
    assert result.stderr == f"gdlcheck: error: {spec}: layer.weight: row 2 has 3 entries, expected 4 (line 8)\n"
    from tests import manual

    readme = manual.everything()
    assert "`gdlcheck: error: layer.yaml: layer.weight: row 2 has 3 entries, expected 4 (line 8)`" in readme


@pytest.mark.parametrize(
    "yaml, says",
    [
        ("layer:\n  kind: conv\n  kernel: [a, 'b +', c]\n", "layer.kernel[1]: cannot parse expression 'b +' (line 4)"),
        ("layer:\n  kind: mlp\n  weights: [{random: [1, 2]}, {random: [3, 1]}]\n", "(line 4)"),
        (
            "layer:\n  - kind: pointwise\n    activation: relu\n  - kind: conv\n    kernel: [[1]]\n",
            "layer[1].kernel: a 1-D kernel is a list",
        ),
        (
            "layer:\n  kind: deepsets\n  alpha: [1, 2]\n  beta: 1\n",
            "layer.alpha: expected a number or an expression (line 4)",
        ),
    ],
)
def test_every_spec_error_with_a_key_path_has_its_line(run, tmp_path, yaml, says):
    spec = tmp_path / "s.yaml"
    spec.write_text("symmetry: {group: cyclic, n: 3}\n" + yaml)
    result = run(["verify", spec])
    assert result.exit_code == 2 and says in result.stderr and "(line " in result.stderr, result.stderr


# --------------------------------------------------------------------------- trained layers (issue 30, item 4)


def _circulant(n: int = 8) -> np.ndarray:
    i = np.arange(n)
    return np.random.default_rng(0).standard_normal(n)[(i[:, None] - i[None, :]) % n]


def _distance(W: np.ndarray) -> float:
    """|W - P| / |W|, P the mean of each cyclic diagonal, by hand."""
    n = len(W)
    i = np.arange(n)
    offsets = (i[:, None] - i[None, :]) % n
    means = np.array([W[offsets == k].mean() for k in range(n)])
    return float(np.linalg.norm(W - means[offsets]) / np.linalg.norm(W))


def test_the_counterexample_is_the_first_pair_and_the_pair_that_differs_most_is_beside_it(run, tmp_path):
    W = _circulant()
    W[0, 1] += 1e-6  # early in row-major order, just over the tolerance
    W[2, 4] += 0.01  # the real drift
    np.save(tmp_path / "w.npy", W)
    result = run(["verify", tmp_path / "w.npy", "-g", "cyclic", "--method", "exact", "--format", "json"])
    (check,) = json.loads(result.stdout)["checks"]
    witness = check["counterexample"]
    # docs/design.md section 5: a failure names the first differing pair; the shift compares
    # W[i+1, j+1] with W[i, j], so the bump at (0, 1) shows first, at (0, 1) itself
    assert witness["entry"] == [0, 1] and witness["image_entry"] == [1, 2], witness
    # beside it, the pair that differs most: the drift at (2, 4) shows at (1, 3) and at (2, 4)
    assert tuple(witness["largest"]["entry"]) in {(1, 3), (2, 4)}, witness
    assert "differing most: W[" in witness["text"]
    assert check["max_abs_error"] == pytest.approx(0.01, rel=1e-6)
    text = run(["verify", tmp_path / "w.npy", "-g", "cyclic", "--method", "exact"]).stdout
    assert "differing most: W[" in text


def test_a_pair_that_is_first_and_largest_is_named_once(run, tmp_path):
    W = _circulant()
    W[2, 4] += 0.01
    np.save(tmp_path / "w.npy", W)
    (check,) = json.loads(
        run(["verify", tmp_path / "w.npy", "-g", "cyclic", "--method", "exact", "--format", "json"]).stdout
    )["checks"]
    assert "largest" not in check["counterexample"] and "differing most" not in check["counterexample"]["text"]


def test_a_drifted_layer_is_told_how_near_it_is(run, tmp_path):
    W = _circulant() + 0.004 * np.random.default_rng(1).standard_normal((8, 8))
    path = tmp_path / "drift.npy"
    np.save(path, W)
    obj = json.loads(run(["verify", path, "-g", "cyclic", "--format", "json"]).stdout)
    d = _distance(W)
    assert 1e-3 < d < 0.01
    assert obj["hints"] == [
        f"near miss: {d * 100:.2g} % from the nearest equivariant matrix (relative distance "
        f"|W - P| / |W|); gdlcheck project {path} --group cyclic gives it"
    ]
    far = tmp_path / "far.npy"
    np.save(far, _circulant() + 0.2 * np.random.default_rng(1).standard_normal((8, 8)))
    assert "hints" not in json.loads(run(["verify", far, "-g", "cyclic", "--format", "json"]).stdout)


def test_the_two_relative_errors_have_distinct_names(run, tmp_path, monkeypatch):
    path = tmp_path / "drift.npy"
    np.save(path, _circulant() + 0.004 * np.random.default_rng(1).standard_normal((8, 8)))
    checks = json.loads(run(["verify", path, "-g", "cyclic", "--method", "both", "--format", "json"]).stdout)["checks"]
    assert {c["method"]: c["relative_to"] for c in checks} == {"exact": "largest_weight", "numeric": "largest_output"}
    monkeypatch.setenv("COLUMNS", "200")
    text = run(["verify", path, "-g", "cyclic", "--method", "both"]).stdout
    assert (
        "relative: an exact row's deviation of the weights over the largest weight, a numeric row's deviation" in text
    )
