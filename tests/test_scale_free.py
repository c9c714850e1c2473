"""Scale-free numbers: verify, project and symmetries give the same answers for a matrix and
for that matrix times any power of two, from the subnormals (2^-1071) to the top of float64.

Small integers times 2^k are exact at every k in the sweep, so the answers must not merely be
close: the verdicts, the relative errors and the distances are the same numbers.
"""

import json
import math

import numpy as np
import pytest

import gdlcheck

EXPONENTS = [-1071, -1060, -1040, -1022, -1000, -700, -300, -60, 0, 60, 300, 700, 1000, 1016]

C = np.array([[1, 4, 3, 2], [2, 1, 4, 3], [3, 2, 1, 4], [4, 3, 2, 1]], dtype=float)  # circulant
B = np.array([[1, 4, 3, 2], [2, 1, 4, 3], [3, 2, 1, 4], [4, 3, 5, 1]], dtype=float)  # one entry off


def at(k: int, W: np.ndarray) -> np.ndarray:
    return np.ldexp(W, k)


@pytest.mark.parametrize("k", EXPONENTS)
def test_verify_gives_the_same_verdict_and_errors_at_every_scale(k):
    base = gdlcheck.verify(B, "cyclic")
    for method in ("auto", "numeric"):
        held = gdlcheck.verify(at(k, C), "cyclic", method=method)
        assert held.passed and held.verdict in ("holds", "holds_numerically"), (k, method)
        broken = gdlcheck.verify(at(k, B), "cyclic", method=method)
        assert broken.verdict == "fails", (k, method)
    broken = gdlcheck.verify(at(k, B), "cyclic")
    assert [c.relative_error for c in broken.checks] == [c.relative_error for c in base.checks]
    for c in broken.checks:
        assert c.max_abs_error is None or math.isfinite(c.max_abs_error)


@pytest.mark.parametrize("k", EXPONENTS)
def test_project_gives_the_same_distance_at_every_scale(k):
    base = gdlcheck.project(B, "dihedral")
    p = gdlcheck.project(at(k, B), "dihedral")
    assert p.distance == base.distance
    assert np.all(np.isfinite(p.matrix))
    assert np.allclose(np.ldexp(p.matrix, -k), base.matrix, rtol=1e-2 if k < -1020 else 1e-15, atol=0)
    assert gdlcheck.project(at(k, C), "cyclic").distance == 0.0


@pytest.mark.parametrize("k", EXPONENTS)
def test_symmetries_find_the_same_group_at_every_scale(k):
    for W in (C, B):
        base = gdlcheck.find_symmetries(W)
        found = gdlcheck.find_symmetries(at(k, W))
        assert (found.group.order, found.colours, found.contains) == (base.group.order, base.colours, base.contains)
        loose = gdlcheck.find_symmetries(at(k, W), tol=1e-9)
        assert loose.group.order == base.group.order


def test_the_cases_of_the_issue(run, tmp_path):
    W = np.random.default_rng(0).standard_normal((6, 6))
    base = gdlcheck.project(W, "cyclic").distance
    for scale in (1e200, 1e-200, 1e-310):
        np.save(tmp_path / "w.npy", W * scale)
        result = run(["project", tmp_path / "w.npy", "-g", "cyclic", "--format", "json"])
        assert result.exit_code == 0, result.stderr
        obj = json.loads(result.stdout)
        assert obj["relative_distance"] == pytest.approx(base, rel=1e-3)
        assert all(math.isfinite(x) for row in obj["matrix"] for x in row)
        text = run(["project", tmp_path / "w.npy", "-g", "cyclic"])
        assert text.exit_code == 0 and "nan" not in text.stdout and "distance 0 " not in text.stdout
    top = gdlcheck.project(np.array([[1e308, 1.7e308], [1.6e308, 1e308]]), "cyclic")
    assert np.all(np.isfinite(top.matrix)) and top.matrix[0, 1] == pytest.approx(1.65e308)


def test_a_broken_layer_of_subnormal_weights_fails(run, tmp_path):
    # the relative error added 2.2e-308 to its denominator: at 1e-320 every error looked tiny
    W = np.random.default_rng(1).standard_normal((8, 8)) * 1e-320
    np.save(tmp_path / "w.npy", W)
    spec = tmp_path / "tiny.yaml"
    spec.write_text(
        "symmetry: {group: cyclic, n: 8}\nlayer:\n  - {kind: linear, weight: {file: w.npy}}\n"
        "  - {kind: pointwise, activation: tanh}\n"
    )
    result = run(["verify", spec, "--format", "json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["verdict"] == "fails"
    (tmp_path / "sub.csv").write_text("1e-320,0\n0,2e-320\n")
    result = run(["verify", tmp_path / "sub.csv", "-g", "cyclic", "--method", "numeric", "--format", "json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["verdict"] == "fails"


def test_an_equivariant_layer_of_subnormal_weights_holds_numerically(tmp_path):
    from gdlcheck.layers import Linear, Pointwise, Sequential
    from gdlcheck.verification import Options, verify_layer

    theta = np.random.default_rng(2).standard_normal(8)
    W = theta[(np.arange(8)[:, None] - np.arange(8)[None, :]) % 8]
    for scale in (1e-320, 1e-310, 1e-300, 1.0, 1e300):
        layer = Sequential([Linear(W * scale), Pointwise("tanh")])
        r = verify_layer(layer, gdlcheck.group("cyclic", n=8), options=Options(method="numeric"))
        assert r.verdict == "holds_numerically", scale


@pytest.mark.parametrize("scale", ["1e-320", "1e-300", "1e300", "1.7e308"])
def test_json_of_every_matrix_command_is_finite_at_any_scale(run, tmp_path, scale):
    path = tmp_path / "w.csv"
    path.write_text("\n".join(",".join(repr(x) for x in row) for row in (B / 5 * float(scale)).tolist()) + "\n")
    for args in (["verify", path, "-g", "cyclic"], ["project", path, "-g", "cyclic"], ["symmetries", path]):
        result = run(args + ["--format", "json"])
        assert result.exit_code in (0, 1), (args, result.stderr)
        assert result.stderr == ""
        assert not any(word in result.stdout for word in ("NaN", "Infinity")), args
        json.loads(result.stdout)
