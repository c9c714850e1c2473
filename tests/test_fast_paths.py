"""Every fast path of derive gives exactly the pattern of the general component method.

The reference is ``orbit_labels`` (orbits as connected components, numbered by first
appearance).  Cyclic, dihedral and translations number their orbits by the offset instead
(documented);
for them the partition is the same and the numbering is the formula.  Not timed.
"""

import numpy as np
import pytest

from gdlcheck import derivation, groups
from gdlcheck.derivation import derive, orbit_labels, orbitals


def same_partition(a, b) -> bool:
    pairs = set(zip(a.ravel().tolist(), b.ravel().tolist()))
    return len(pairs) == a.max() + 1 == b.max() + 1


def cycle_graph(n):
    A = np.zeros((n, n))
    i = np.arange(n)
    A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    return A


FIRST_APPEARANCE = [
    # closed forms numbered by first appearance, every order they serve
    (groups.symmetric(5), 1, 1),
    (groups.symmetric(5), 2, 1),
    (groups.symmetric(4), 2, 2),
    (groups.symmetric(3), 2, 2),
    (groups.symmetric(7), 0, 3),
    (groups.alternating(6), 2, 2),
    (groups.alternating(5), 1, 1),
    (groups.trivial(3), 2, 1),
    (groups.trivial(4), 1, 1),
    (groups.build_group("p4", shape="4x4"), 1, 1),
    (groups.build_group("p4", shape="5x5"), 1, 1),
    (groups.build_group("p4m", shape="4x4"), 1, 1),
    (groups.build_group("p4m", shape="5x5"), 1, 1),
    # orbitals from a Schreier sample (any group, 1 -> 1)
    (groups.from_generators(9, ["(0 1 2)(3 4 5)", "(0 3)(1 4)(2 5)", "(6 7)"]), 1, 1),
    (groups.from_generators(12, [list(np.roll(np.arange(12), 1)), [1, 0] + list(range(2, 12))]), 1, 1),
    # orbitals with exact stabilisers from BLISS (automorphisms)
    (groups.build_group("automorphisms", graph=cycle_graph(10)), 1, 1),
    (groups.build_group("automorphisms", graph=np.kron(np.eye(3), cycle_graph(4))), 1, 1),
]


@pytest.mark.parametrize("g, in_order, out_order", FIRST_APPEARANCE, ids=lambda x: getattr(x, "name", str(x)))
def test_fast_paths_equal_the_component_method(g, in_order, out_order):
    ref = orbit_labels(g, in_order + out_order)
    assert np.array_equal(derive(g, in_order, out_order).pattern, ref)
    if (in_order, out_order) == (1, 1):
        assert np.array_equal(orbitals(g), ref)


@pytest.mark.parametrize("n", [1, 2, 5, 8, 9])
def test_cyclic_and_dihedral_are_the_reference_partition_numbered_by_offset(n):
    i, j = np.indices((n, n))
    k = (i - j) % n
    for g, formula in (
        (groups.cyclic(n), k),
        (groups.dihedral(n) if n >= 3 else groups.cyclic(n), np.minimum(k, (n - k) % n)),
    ):
        fast = derive(g).pattern
        assert np.array_equal(fast, formula)
        assert same_partition(fast, orbit_labels(g, 2))


@pytest.mark.parametrize("shape", ["1", "4", "7", "3x4", "2x2x3"])
def test_translations_are_the_reference_partition_numbered_by_offset(shape):
    # orbit k is the offset vector (coord(i) - coord(j)) mod shape, flattened row-major:
    # the circulant's sign, so a 1-D shape is exactly cyclic
    g = groups.build_group("translations", shape=shape)
    dims = tuple(int(s) for s in shape.split("x"))
    coords = np.unravel_index(np.arange(g.n), dims)
    offset = [(c[:, None] - c[None, :]) % size for c, size in zip(coords, dims)]
    expected = np.ravel_multi_index(offset, dims)
    fast = derive(g).pattern
    assert np.array_equal(fast, expected)
    assert same_partition(fast, orbit_labels(g, 2))
    assert np.array_equal(orbitals(g), orbit_labels(g, 2))


@pytest.mark.parametrize("n", [1, 2, 4, 9])
def test_one_dimensional_translations_derive_exactly_as_cyclic(n):
    t, c = derive(groups.build_group("translations", shape=str(n))), derive(groups.cyclic(n))
    assert np.array_equal(t.pattern, c.pattern)
    assert t.parameters == c.parameters == [f"theta_{k}" for k in range(n)]
    assert t.matrix_strings() == c.matrix_strings()


def test_blocked_construction_matches_the_one_block_result(monkeypatch):
    # the closed forms and the component method write their arrays in blocks; force many
    cases = [
        (groups.cyclic(7), 1, 1),
        (groups.dihedral(7), 1, 1),
        (groups.symmetric(5), 2, 2),
        (groups.build_group("p4", shape="3x3"), 1, 1),
        (groups.from_generators(5, ["(0 1 2 3 4)", "(0 1)"]), 2, 2),
        (groups.from_generators(6, ["(0 1 2)(3 4)"]), 2, 1),
    ]
    whole = [derive(g, k, l).pattern for g, k, l in cases]
    whole_ref = [orbit_labels(g, k + l) for g, k, l in cases]
    monkeypatch.setattr(derivation.cells, "_BLOCK_CELLS", 7)
    for (g, k, l), a, b in zip(cases, whole, whole_ref):
        assert np.array_equal(derive(g, k, l).pattern, a)
        assert np.array_equal(orbit_labels(g, k + l), b)


def test_patterns_are_int32():
    for g, k, l in [
        (groups.cyclic(6), 1, 1),
        (groups.symmetric(4), 2, 2),
        (groups.build_group("p4", shape="3x3"), 1, 1),
        (groups.from_generators(4, ["(0 1 2 3)"]), 1, 1),
        (groups.from_generators(4, ["(0 1)"]), 2, 1),
    ]:
        assert derive(g, k, l).pattern.dtype == np.int32
