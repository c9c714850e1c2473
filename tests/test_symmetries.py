"""gdlcheck symmetries: the whole permutation group a matrix commutes with."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.groups.colours import colour_classes, has_edges, value_classes
from gdlcheck.symmetries import _one_cycle, _power_of, find_symmetries


def circulant(theta):
    n = len(theta)
    i, j = np.indices((n, n))
    return np.asarray(theta)[(i - j) % n]


def test_random_circulant_has_the_cyclic_group():
    W = circulant(np.random.default_rng(0).normal(size=7))
    found = find_symmetries(W)
    assert found.group.order == 7
    assert set(found.group.elements()) == set(groups.cyclic(7).elements())
    assert "cyclic" in found.contains and "dihedral" not in found.contains


def test_deepsets_matrix_has_the_symmetric_group():
    W = 1.5 * np.eye(6) - 0.25 * np.ones((6, 6))
    found = find_symmetries(W)
    assert found.group.order == math.factorial(6)
    assert {"symmetric", "alternating", "dihedral", "cyclic", "translations 2x3"} <= set(found.contains)


def test_symmetric_circulant_has_the_dihedral_group():
    theta = np.random.default_rng(1).normal(size=8)
    theta = theta + theta[(-np.arange(8)) % 8]
    found = find_symmetries(circulant(theta))
    assert found.group.order == 16 and "dihedral" in found.contains and "symmetric" not in found.contains


def test_grid_convolution_contains_translations():
    g = groups.build_group("p4", shape="5x5")
    from gdlcheck.derivation import derive

    d = derive(g)
    W = np.random.default_rng(2).normal(size=d.dimension)[d.pattern]
    found = find_symmetries(W)
    assert {"translations 5x5", "p4 5x5"} <= set(found.contains) and "p4m 5x5" not in found.contains
    assert found.group.order == 100


def test_tolerance_merges_rounding_noise():
    W = circulant(np.random.default_rng(3).normal(size=5))
    noisy = W + 1e-13 * np.random.default_rng(4).normal(size=W.shape)
    assert find_symmetries(noisy, tol=0).group.order == 1
    assert find_symmetries(noisy, tol=1e-9).group.order == 5


def test_random_matrix_has_only_the_identity():
    found = find_symmetries(np.random.default_rng(5).normal(size=(9, 9)))
    assert found.group.order == 1 and found.group.gens == () and found.contains == ["trivial"]


def test_cli_json_and_text(run, tmp_path):
    path = tmp_path / "w.csv"
    np.savetxt(path, circulant([3.0, 1.0, 0.5, 0.25, 0.5, 1.0]), delimiter=",")
    result = run(["symmetries", path, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    obj = json.loads(result.stdout)
    assert set(obj) >= {"schema_version", "input", "group", "contains"}
    assert obj["group"]["order"] == 12 and "dihedral" in obj["contains"]
    assert all(isinstance(g, str) and g.startswith("(") for g in obj["group"]["generators"])
    text = run(["symmetries", path])
    assert text.exit_code == 0 and "dihedral" in text.stdout and "12" in text.stdout


@pytest.mark.parametrize("content, message", [("1,2,3\n4,5,6\n", "square"), ("a,b\nc,d\n", "numbers")])
def test_cli_bad_matrices(run, tmp_path, content, message):
    path = tmp_path / "w.csv"
    path.write_text(content)
    result = run(["symmetries", path])
    assert result.exit_code == 2 and result.stderr.startswith("gdlcheck: error:")


# --------------------------------------------------------------------------- the fast paths' laws
# (issue 33: colours by a hash table, edges found by the first block, powers of a kept n-cycle)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 12), st.sampled_from([0.0, 1e-9, 0.25]), st.integers(0, 2**32 - 1))
def test_colours_by_hash_are_the_binary_search_colours(n, distinct, tol, seed):
    rng = np.random.default_rng(seed)
    values = np.r_[rng.standard_normal(distinct), 0.0, -0.0, 1e-320, -1e300]
    W = rng.choice(values, size=(n, n))
    uniq, cluster = value_classes(W.ravel(), tol)
    expected = cluster[np.searchsorted(uniq, W.ravel())].reshape(n, n)
    assert np.array_equal(colour_classes(W, tol), expected)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 30), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_has_edges_is_more_than_one_colour_off_the_diagonal(n, colours, seed):
    C = np.random.default_rng(seed).integers(0, colours, (n, n))
    off = C[~np.eye(n, dtype=bool)]
    assert has_edges(C) == (np.unique(off).size > 1)


@given(st.permutations(range(9)), st.integers(0, 20))
def test_a_power_of_an_n_cycle_is_told_from_any_other_permutation(g, k):
    s = np.roll(np.arange(9), 1)
    power = np.arange(9)
    for _ in range(k):
        power = s[power]
    order, place = _one_cycle(s)
    assert _power_of(power, order, place)
    g = np.asarray(g)
    assert _power_of(g, order, place) == any(np.array_equal(g, np.roll(np.arange(9), t)) for t in range(9))
    assert (_one_cycle(g) is not None) == (len({*range(9)}) == len(_cycle_of_zero(g)))


def _cycle_of_zero(g):
    seen, point = [], 0
    while point not in seen:
        seen.append(point)
        point = int(g[point])
    return seen


@settings(max_examples=80, deadline=None)
@given(st.integers(65, 400), st.integers(1, 40), st.integers(0, 5), st.integers(0, 2**32 - 1))
def test_distinct_values_from_a_sample_are_numpys_unique(size, distinct, rare, seed):
    """The distinct values read from a sample and checked by the bit table (a small SAMPLE here, so
    that small arrays take that path) are np.unique's, rare values past the sample included."""
    import gdlcheck.groups.colours as colours

    rng = np.random.default_rng(seed)
    flat = rng.choice(np.r_[rng.standard_normal(distinct), 0.0], size=size)
    flat[rng.integers(0, size, rare)] = rng.standard_normal(rare) * 1e-300
    flat[rng.integers(0, size, 2)] = -0.0
    saved = colours.SAMPLE
    colours.SAMPLE = 16
    try:
        found = colours._sorted_distinct(flat)
    finally:
        colours.SAMPLE = saved
    assert np.array_equal(found, np.unique(flat))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.integers(0, 2**32 - 1))
def test_the_bit_table_finds_every_value_it_holds_and_no_other(distinct, seed):
    """Values that share a slot are found in a further level (one table alone left about one in
    nine of 4096 values to the binary search, and a sampled circulant's values to a full sort)."""
    from gdlcheck.groups.colours import _BitTable

    rng = np.random.default_rng(seed)
    uniq = np.unique(rng.standard_normal(distinct))
    table = _BitTable(uniq)
    probe = rng.permutation(uniq)
    assert np.array_equal(uniq[table.find(probe)], probe)
    others = rng.standard_normal(200) + 10.0
    assert (table.find(others) == -1).all()


@settings(max_examples=60, deadline=None)
@given(
    st.integers(9, 40), st.integers(1, 30), st.sampled_from([0.0, 1e-9, 0.25]), st.booleans(), st.integers(0, 2**32 - 1)
)
def test_labels_that_come_with_the_sampled_values_are_the_colour_classes(n, distinct, tol, rare, seed):
    """value_labels: where the sample finds every entry, its lookups are the labels; they are
    colour_classes' exactly (a small SAMPLE here, so that these matrices take that path)."""
    import gdlcheck.groups.colours as colours
    from gdlcheck.groups.colours import value_labels

    rng = np.random.default_rng(seed)
    values = np.r_[rng.standard_normal(distinct), 0.0, 1.0 + 1e-10]
    W = rng.choice(values, size=(n, n))
    if rare:
        W[rng.integers(0, n), rng.integers(0, n)] = -0.0  # bits the table does not hold: no labels
    saved = colours.SAMPLE
    colours.SAMPLE = 16
    try:
        uniq, cluster, labels = value_labels(W, tol)
    finally:
        colours.SAMPLE = saved
    assert np.array_equal(uniq, np.unique(W)) and np.array_equal(cluster, value_classes(W.ravel(), tol)[1])
    if labels is not None:
        assert labels.shape == W.shape and np.array_equal(labels, colour_classes(W, tol))


def test_a_sampled_circulant_comes_with_its_labels():
    """A 1024 circulant of 1024 random values takes the sample's path to the end: its labels come
    with the distinct values (no sort of the entries, no second lookup)."""
    from gdlcheck.groups.colours import value_labels

    W = circulant(np.random.default_rng(0).standard_normal(1024))
    uniq, cluster, labels = value_labels(W)
    assert labels is not None and np.array_equal(labels, colour_classes(W))
