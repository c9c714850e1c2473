"""Derivations of order 1 -> 1: Theorems 1 and 2, and laws that hold for every group."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import burnside_dimension, closed_form_pattern, derive, orbit_labels, project
from gdlcheck.layers import Linear
from gdlcheck.verification import verify_layer


def seed_circulant(n):
    """The seed's circulant, written from its definition: W[i, j] = theta_((i - j) mod n)."""
    return [[f"theta_{(i - j) % n}" for j in range(n)] for i in range(n)]


def test_theorem_1_cyclic_gives_the_seeds_circulant():
    d = derive(groups.build_group("cyclic", n=8))
    assert d.form == "circulant"
    assert d.dimension == 8
    assert d.parameters == [f"theta_{k}" for k in range(8)]
    assert d.matrix_strings() == seed_circulant(8)
    # theta_0 on the diagonal, theta_1 on the first subdiagonal, theta_(n-1) on the superdiagonal
    m = d.matrix_strings()
    assert m[3][3] == "theta_0" and m[4][3] == "theta_1" and m[3][4] == "theta_7"


def test_theorem_2_symmetric_gives_alpha_I_plus_beta_ones():
    d = derive(groups.build_group("symmetric", n=5))
    assert d.dimension == 2
    assert d.parameters == ["alpha", "beta"]
    m = d.matrix_strings()
    for i in range(5):
        for j in range(5):
            assert m[i][j] == ("alpha + beta" if i == j else "beta")


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9])
def test_dihedral_dimension(n):
    assert derive(groups.build_group("dihedral", n=n)).dimension == n // 2 + 1


@pytest.mark.parametrize("n", [4, 5, 6, 7])
def test_alternating_dimension_is_two(n):
    d = derive(groups.build_group("alternating", n=n))
    assert d.dimension == 2
    # the general method agrees with the closed form
    assert orbit_labels(groups.build_group("alternating", n=n), 2).max() == 1


@pytest.mark.parametrize(
    "name, n",
    [
        ("cyclic", 1),
        ("cyclic", 2),
        ("cyclic", 7),
        ("dihedral", 2),
        ("dihedral", 6),
        ("dihedral", 7),
        ("symmetric", 1),
        ("symmetric", 2),
        ("symmetric", 6),
        ("alternating", 4),
        ("alternating", 6),
        ("trivial", 3),
    ],
)
def test_closed_forms_partition_like_the_component_method(name, n):
    g = groups.build_group(name, n=n)
    fast = closed_form_pattern(g)
    slow = orbit_labels(g, 2)
    # the same partition of the cells (the numbering may differ by design: offsets vs first appearance)
    pairs = set(zip(fast.ravel().tolist(), slow.ravel().tolist()))
    assert len(pairs) == len(set(fast.ravel().tolist())) == len(set(slow.ravel().tolist()))


generator_sets = st.integers(min_value=1, max_value=7).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.permutations(range(n)), min_size=1, max_size=3))
)


@given(generator_sets)
def test_every_basis_element_commutes_with_every_generator(case):
    n, gens = case
    g = groups.from_generators(n, [list(p) for p in gens])
    d = derive(g)
    for B in d.basis:
        for s in g.gens:
            P = groups.perm_matrix(s)
            np.testing.assert_array_equal(P @ B, B @ P)


@given(generator_sets)
def test_dimension_is_burnsides_count(case):
    n, gens = case
    g = groups.from_generators(n, [list(p) for p in gens])
    assert derive(g).dimension == burnside_dimension(g, 2)


@given(generator_sets, st.integers(0, 2**32 - 1))
def test_a_random_dense_matrix_fails_and_the_derived_form_passes(case, seed):
    n, gens = case
    g = groups.from_generators(n, [list(p) for p in gens])
    rng = np.random.default_rng(seed)
    d = derive(g)
    theta = rng.standard_normal(d.dimension)
    W = theta[d.pattern]
    assert verify_layer(Linear(W), g).passed
    dense = rng.standard_normal((n, n))
    assert verify_layer(Linear(dense), g).passed is (not g.gens)


def test_pattern_numbering_by_first_appearance_for_other_groups():
    g = groups.build_group("generators", n=4, generators=["(0 1)(2 3)"])
    d = derive(g)
    flat = d.pattern.ravel().tolist()
    seen = []
    for x in flat:
        if x not in seen:
            seen.append(x)
    assert seen == list(range(d.dimension))
    assert d.parameters[0] == "w_0"


@pytest.mark.parametrize("name, n", [("cyclic", 5), ("dihedral", 6), ("generators", 4)])
def test_explain_lists_only_cells_of_each_orbit(name, n):
    import re

    from gdlcheck.output.explain import explain

    g = groups.build_group(name, n=n, generators=["(0 1)(2 3)"] if name == "generators" else None)
    d = derive(g)
    names = d.entry_names()
    listed = 0
    for line in explain(d):
        m = re.match(r"\s+(\S+) \((\d+) entries\): (.*)", line)
        if not m:
            continue
        k = names.index(m.group(1))
        cells = [tuple(map(int, c.split(", "))) for c in re.findall(r"\((\d+, \d+)\)", m.group(3))]
        assert cells and all(d.pattern[c] == k for c in cells)
        assert len(cells) <= int(m.group(2))
        listed += 1
    assert listed >= 1


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("cyclic", {"n": 9}),
        ("dihedral", {"n": 8}),
        ("translations", {"shape": (3, 4)}),
        ("p4", {"shape": (5, 5)}),
        ("p4m", {"shape": (4, 4)}),
        ("translations", {"shape": (2, 2, 3)}),
    ],
)
def test_the_convolution_kernel_gives_every_entry_by_its_offset(name, size):
    g = groups.build_group(name, **size)
    d = derive(g)
    kernel = d.convolution_kernel()
    grid = g.shape or (g.n,)
    assert kernel.shape == tuple(grid)
    # W[i, j] depends on the offset (coord(i) - coord(j)) mod grid only, written here by numpy
    coords = np.stack(np.unravel_index(np.arange(g.n), grid), axis=1)
    offsets = (coords[:, None, :] - coords[None, :, :]) % np.array(grid)
    assert np.array_equal(kernel[tuple(np.moveaxis(offsets, -1, 0))], d.pattern)


def test_no_convolution_kernel_without_a_grid_form():
    assert derive(groups.build_group("symmetric", n=5)).convolution_kernel() is None
    assert derive(groups.build_group("cyclic", n=5), in_order=2, out_order=2).convolution_kernel() is None
    assert derive(groups.build_group("generators", n=4, generators=["(0 1 2 3)"])).convolution_kernel() is None


@given(st.integers(0, 2**32 - 1))
def test_orbit_means_are_the_projection(seed):
    g = groups.build_group("dihedral", n=6)
    d = derive(g)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((6, 6, 2))  # two channels, projected one by one
    means = d.orbit_means(W)
    assert means.shape == (d.dimension, 2)
    for c in range(2):
        projected, _ = project(W[..., c], g)
        np.testing.assert_allclose(means[d.pattern, c], projected, rtol=1e-12, atol=1e-12)
