"""gdlcheck project: the orthogonal projection onto the equivariant matrices."""

import io
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import derive, project
from gdlcheck.derivation.project import _distance
from gdlcheck.scale import frobenius_ratio


def group_average(W, g):
    """(1/|G|) sum_g P_g W P_g^T over every element."""
    total = np.zeros_like(W)
    elements = g.elements()
    for e in elements:
        P = groups.perm_matrix(e)
        total += P @ W @ P.T
    return total / len(elements)


GROUPS = [
    groups.cyclic(5),
    groups.dihedral(6),
    groups.symmetric(4),
    groups.build_group("p4", shape="3x3"),
    groups.from_generators(6, ["(0 1 2)", "(3 4)"]),
]


@pytest.mark.parametrize("g", GROUPS, ids=lambda g: g.name)
def test_projection_is_idempotent_orthogonal_and_the_group_average(g):
    W = np.random.default_rng(0).normal(size=(g.n, g.n))
    P, dist = project(W, g)
    assert np.allclose(project(P, g)[0], P) and project(P, g)[1] < 1e-12
    B = derive(g).basis.astype(float)
    assert np.allclose(np.einsum("kij,ij->k", B, W - P), 0)
    assert np.allclose(P, group_average(W, g))
    assert dist == pytest.approx(np.linalg.norm(W - P) / np.linalg.norm(W))


@given(
    st.integers(2, 5).flatmap(
        lambda n: st.tuples(
            st.lists(st.permutations(range(n)), min_size=1, max_size=2),
            st.lists(st.floats(-10, 10), min_size=n * n, max_size=n * n),
        )
    )
)
def test_projection_laws_for_random_groups(case):
    perms, values = case
    n = len(perms[0])
    g = groups.from_generators(n, [list(p) for p in perms])
    W = np.array(values).reshape(n, n)
    P, _ = project(W, g)
    assert np.allclose(P, group_average(W, g))
    for s in g.gens:  # P commutes with every generator
        s = np.asarray(s)
        moved = np.empty_like(P)
        moved[np.ix_(s, s)] = P
        assert np.allclose(moved, P)


def test_cli_csv_output_verifies_under_the_same_group(run, tmp_path):
    W = np.random.default_rng(1).normal(size=(6, 6))
    path = tmp_path / "w.csv"
    np.savetxt(path, W, delimiter=",")
    result = run(["project", path, "-g", "dihedral", "--format", "csv"])
    assert result.exit_code == 0 and result.stderr.startswith("relative distance: ")
    assert np.allclose(np.loadtxt(io.StringIO(result.stdout), delimiter=","), project(W, groups.dihedral(6))[0])
    assert run(["verify", "-", "-g", "dihedral"], input=result.stdout).exit_code == 0
    assert run(["verify", path, "-g", "dihedral"]).exit_code == 1


def test_cli_json_npy_and_text(run, tmp_path):
    W = np.arange(16.0).reshape(4, 4)
    path = tmp_path / "w.npy"
    np.save(path, W)
    obj = json.loads(run(["project", path, "-g", "symmetric", "--format", "json"]).stdout)
    assert obj["schema_version"] == 1 and obj["group"]["order"] == 24
    P = np.array(obj["matrix"])
    assert np.allclose(np.diag(P), np.trace(W) / 4) and obj["relative_distance"] > 0
    out = tmp_path / "p.npy"
    assert run(["project", path, "-g", "cyclic", "--format", "npy", "-o", out]).exit_code == 0
    assert np.allclose(np.load(out), project(W, groups.cyclic(4))[0])
    text = run(["project", path, "-g", "cyclic"])
    assert text.exit_code == 0 and "relative Frobenius" in text.stdout


def test_cli_project_errors(run, tmp_path):
    path = tmp_path / "w.csv"
    np.savetxt(path, np.eye(4), delimiter=",")
    result = run(["project", path, "-g", "cyclic", "-n", "5"])
    assert result.exit_code == 2 and "n = 5" in result.stderr
    assert run(["project", path]).exit_code == 2
    assert run(["project", tmp_path / "missing.csv", "-g", "cyclic"]).exit_code == 2


def test_project_group_errors_and_size_from_the_matrix(run, samples):
    # the group is built by the same helper as derive's: -n defaults to the matrix's size
    result = run(["project", samples / "dense.csv"])
    assert result.exit_code == 2 and "project needs --group NAME" in result.stderr
    result = run(["project", samples / "dense.csv", "-g", "cyclic", "-n", "3"])
    assert result.exit_code == 2 and "matrix is 6 x 6 but the group acts on n = 3 points" in result.stderr
    out = json.loads(run(["project", samples / "dense.csv", "-g", "cyclic", "--format", "json"]).stdout)
    assert out["group"]["n"] == 6


def test_projecting_an_equivariant_matrix_returns_it_bit_for_bit():
    from gdlcheck import groups
    from gdlcheck.derivation import derive, project

    g = groups.build_group("cyclic", n=7)
    d = derive(g)
    W = np.random.default_rng(5).standard_normal(d.dimension)[d.pattern] / 3.0
    P, dist = project(W, g)
    assert np.array_equal(P, W) and dist == 0.0


def reference_projection(W, g):
    """The projection as first written: orbit minimum and maximum by ``ufunc.at``, each mean
    clipped into its orbit's range, an orbit of equal entries kept as it is."""
    labels = derive(g).pattern.ravel()
    counts = np.bincount(labels)
    means = np.bincount(labels, weights=W.ravel()) / counts
    low = np.full(counts.size, np.inf)
    high = np.full(counts.size, -np.inf)
    np.minimum.at(low, labels, W.ravel())
    np.maximum.at(high, labels, W.ravel())
    means = np.where(low == high, low, np.clip(means, low, high))
    return means[labels].reshape(W.shape)


# values a float mean rounds outside of: 0.1 three times sums to 0.30000000000000004, and
# neighbouring floats average to one of them or past them
NEAR = [0.1, np.nextafter(0.1, 1), np.nextafter(0.1, 0), 0.7, 1 / 3, np.nextafter(1 / 3, 1), -2.5, 1e-300]


@given(
    st.sampled_from([groups.cyclic(3), groups.cyclic(6), groups.dihedral(5), groups.symmetric(4)]).flatmap(
        lambda g: st.tuples(
            st.just(g), st.lists(st.sampled_from(NEAR) | st.floats(-4, 4), min_size=g.n**2, max_size=g.n**2)
        )
    )
)
def test_the_one_pass_guard_gives_the_clipped_means_bit_for_bit(case):
    g, values = case
    W = np.array(values).reshape(g.n, g.n)
    P, dist = project(W, g)
    assert np.array_equal(P, reference_projection(W, g))
    assert dist == pytest.approx(np.linalg.norm(W - P) / np.linalg.norm(W), rel=1e-12, abs=1e-300)


def test_a_mean_that_rounds_past_its_orbit_is_pinned_to_the_orbit():
    g = groups.cyclic(3)
    W = np.full((3, 3), 0.1)  # (0.1 + 0.1 + 0.1) / 3 is 0.10000000000000002
    W[0, 1] = W[1, 2] = W[2, 0] = np.nextafter(0.1, 1)
    assert np.bincount(derive(g).pattern.ravel(), weights=W.ravel())[0] / 3 != 0.1
    P, dist = project(W, g)
    assert np.array_equal(P, W) and dist == 0.0


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(-1074, 0), st.integers(0, 2**32 - 1))
def test_the_distance_in_one_pass_is_the_scale_free_ratio(n, power, seed):
    """One sum of squares each (issue 33 item 3) where nothing underflows enough to matter, else
    the ratio of the separately scaled norms: the same distance to rounding for every scale of D."""
    rng = np.random.default_rng(seed)
    flat = rng.uniform(-1, 1, n * n)
    flat[0] = 0.75  # the projection's scaled input: max |entry| in [0.5, 1)
    D = np.ldexp(rng.standard_normal(n * n), power)
    assert _distance(D, flat) == pytest.approx(frobenius_ratio(D, flat), rel=1e-12)
    assert _distance(np.zeros(n * n), flat) == 0 and math.isfinite(_distance(D, flat))
