"""One tolerance rule: a weight deviation within ``tol`` of the largest weight never fails,
whatever the seed, and one past it never passes (the manual, "The tolerance rule").

The numeric check of numeric weights measures against the exact check's scale (the largest
weight times the largest column sum of the input), a bound that cannot cancel: a matrix
close to ``11^T`` has outputs close to ``sum(x)``, which a random input can make small.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gdlcheck
from gdlcheck.errors import GdlcheckError
from gdlcheck.tolerances import TOL

GROUPS = [("symmetric", 5), ("dihedral", 6), ("cyclic", 8), ("p4", 16), ("alternating", 5)]
FACTORS_WITHIN = [0.1, 0.5, 0.9]
FACTORS_BEYOND = [1.1, 2.0]
SEEDS = range(6)


def near_ones(name: str, n: int, seed: int = 0):
    """An equivariant matrix of the group close to 11^T (its outputs cancel on random inputs)."""
    g = gdlcheck.group(name, n=n)
    d = gdlcheck.derive(g)
    theta = 1 + 0.3 * np.random.default_rng(seed).random(d.dimension)
    return theta[d.pattern], g


def off_by(W: np.ndarray, factor: float, entries: int = 1, seed: int = 0) -> np.ndarray:
    """W with ``entries`` entries (never the largest) lowered by ``factor * tol * max|W|``."""
    W = W.copy()
    top = np.max(np.abs(W))
    candidates = np.argwhere(np.abs(W) < top)
    rng = np.random.default_rng(seed)
    for i, j in candidates[rng.choice(len(candidates), size=min(entries, len(candidates)), replace=False)]:
        W[i, j] -= factor * TOL * top
    return W


@pytest.mark.parametrize("name, n", GROUPS)
@pytest.mark.parametrize("factor", FACTORS_WITHIN)
def test_a_deviation_within_tol_never_fails_whatever_the_seed(name, n, factor):
    W, g = near_ones(name, n)
    W = off_by(W, factor)
    for seed in SEEDS:
        r = gdlcheck.verify(W, g, seed=seed)
        assert r.verdict == "holds_within_tolerance", (seed, [c.relative_error for c in r.checks])
        numeric = gdlcheck.verify(W, g, seed=seed, method="numeric")
        assert numeric.verdict == "holds_numerically", (seed, [c.relative_error for c in numeric.checks])


@pytest.mark.parametrize("name, n", GROUPS)
@pytest.mark.parametrize("factor", FACTORS_BEYOND)
def test_a_deviation_past_tol_never_passes_whatever_the_seed(name, n, factor):
    W, g = near_ones(name, n)
    W = off_by(W, factor)
    for seed in SEEDS:
        r = gdlcheck.verify(W, g, seed=seed)
        assert r.verdict == "fails" and not r.passed, seed
        exact = [c for c in r.checks if c.method == "exact"]
        assert any(c.relative_error == pytest.approx(factor * TOL, rel=1e-6) for c in exact)


def test_the_case_of_the_issue_symmetric_5_near_the_all_ones_matrix():
    # 0.3 I + 1 with one entry off by 0.9 tol x max|W|: the numeric check divided by the
    # largest output (close to |sum x|, which cancels) and failed for half the seeds
    W = 0.3 * np.eye(5) + 1
    W[2, 3] -= 0.9 * TOL * 1.3
    for seed in range(50):
        r = gdlcheck.verify(W, "symmetric", seed=seed)
        assert r.verdict == "holds_within_tolerance", seed
        numeric = [c for c in r.checks if c.method == "numeric"]
        assert all(c.relative_error <= 0.9 * TOL * (1 + 1e-6) for c in numeric)


@given(st.sampled_from(GROUPS), st.integers(0, 2**16), st.floats(0.0, 0.99), st.integers(1, 12))
def test_the_numeric_check_of_numeric_weights_never_exceeds_the_exact_one(case, seed, factor, entries):
    name, n = case
    W, g = near_ones(name, n, seed)
    W = off_by(W, factor, entries=entries, seed=seed)
    r = gdlcheck.verify(W, g, seed=seed, trials=3)
    # a generator the rules prove has no deviation at all (its check carries no relative error)
    exact = max(c.relative_error or 0.0 for c in r.checks if c.method == "exact")
    numeric = max(c.relative_error for c in r.checks if c.method == "numeric")
    assert numeric <= exact + 1e-14
    assert r.passed


@pytest.mark.parametrize("tol", ["nan", "inf", "-inf", "-1", "1e400", "0x10", "1_0"])
def test_tol_must_be_a_finite_non_negative_number(run, samples, tol):
    for args in (
        ["verify", samples / "layer.yaml"],
        ["symmetries", samples / "petersen.csv"],
        ["verify", samples / "layer.yaml", "--format", "json"],
        ["symmetries", samples / "petersen.csv", "--format", "json"],
    ):
        result = run(args + ["--tol", tol])
        assert result.exit_code == 2, (args, tol, result.stdout)
        assert result.stderr.startswith("gdlcheck: error: ") and "--tol" in result.stderr
        assert result.stderr.count("\n") == 1 and result.stdout == ""


@pytest.mark.parametrize("tol", [float("nan"), float("inf"), -1.0, "1e-9", True])
def test_the_api_refuses_a_tolerance_that_is_not_a_finite_non_negative_number(tol):
    W = np.eye(3)
    with pytest.raises(GdlcheckError, match="tol"):
        gdlcheck.verify(W, "cyclic", tol=tol)
    with pytest.raises(GdlcheckError, match="tol"):
        gdlcheck.find_symmetries(W, tol=tol)


@pytest.mark.parametrize("tol", ["0", "1e-9", "0.5", "1E-3"])
def test_tol_accepts_decimal_numbers(run, samples, tol):
    assert run(["verify", samples / "layer.yaml", "--tol", tol, "-q"]).exit_code == 0
    assert run(["symmetries", samples / "petersen.csv", "--tol", tol, "--format", "json"]).exit_code == 0


def _moves(W, g) -> float:
    g = np.asarray(g)
    return float(np.max(np.abs(W[np.ix_(g, g)] - W)))


def test_symmetries_never_chain_near_equal_values_past_tol():
    # 1, 1 + 0.7 tol, 1 + 1.4 tol used to be one chained colour: the whole symmetric group S_3,
    # with a generator mapping entries 1.4 tol apart onto each other
    W = np.zeros((3, 3))
    off = [(i, j) for i in range(3) for j in range(3) if i != j]
    for k, (i, j) in enumerate(off):
        W[i, j] = 1 + (k % 3) * 0.7 * TOL
    found = gdlcheck.find_symmetries(W, tol=TOL)
    assert found.group.order < 6 and found.colours == 3
    for g in found.group.gens:
        assert _moves(W, g) <= TOL * np.max(np.abs(W))


@given(st.integers(2, 7), st.integers(0, 2**16), st.floats(0.1, 0.9))
def test_every_symmetry_found_moves_no_entry_by_more_than_tol(n, seed, step):
    rng = np.random.default_rng(seed)
    W = 1 + rng.integers(0, 4, size=(n, n)) * step * TOL
    W = (W + W.T) / 2 if seed % 2 else W
    found = gdlcheck.find_symmetries(W, tol=TOL)
    top = np.max(np.abs(W))
    for g in found.group.gens:
        assert _moves(W, g) <= TOL * top * (1 + 1e-12)


def test_symmetries_help_says_how_colours_are_cut(run):
    text = " ".join(run(["symmetries", "--help"]).stdout.split())
    assert "greedily" in text and "no two entries of a colour" in text
