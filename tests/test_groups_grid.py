"""Grid groups (translations, p4, p4m): orders, conventions, and orbit counts against Burnside."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import burnside_dimension, derive, orbit_labels, orbitals


def bfs_partition(group, order):
    """Orbits on [n]^order by a plain breadth-first search over the generators."""
    n = group.n
    label = {}
    cells = [tuple(np.unravel_index(f, (n,) * order)) for f in range(n**order)]
    count = 0
    for cell in cells:
        if cell in label:
            continue
        label[cell] = count
        frontier = [cell]
        while frontier:
            nxt = []
            for c in frontier:
                for s in group.gens:
                    for img in (tuple(s[x] for x in c), tuple(groups.inverse(s)[x] for x in c)):
                        if img not in label:
                            label[img] = count
                            nxt.append(img)
            frontier = nxt
        count += 1
    return np.array([label[c] for c in cells]).reshape((n,) * order)


@pytest.mark.parametrize(
    "name, shape, order",
    [
        ("translations", "3x5", 15),
        ("translations", "2x2x3", 12),
        ("p4", "4x4", 64),
        ("p4", "5x5", 100),
        ("p4m", "4x4", 128),
        ("p4", "2x2", 8),
        ("p4m", "3x3", 72),
    ],
)
def test_grid_orders_are_true_orders(name, shape, order):
    g = groups.build_group(name, shape=shape)
    assert g.order == order == len(g.elements())


@pytest.mark.parametrize(
    "name, shape",
    [("translations", "3x5"), ("p4", "4x4"), ("p4", "5x5"), ("p4m", "4x4"), ("p4m", "5x5"), ("translations", "2x2x2")],
)
def test_dimension_is_burnside_count(name, shape):
    g = groups.build_group(name, shape=shape)
    d = derive(g)
    assert d.dimension == burnside_dimension(g, 2)
    ref = orbit_labels(g, 2)
    if name == "translations":
        # numbered by the offset (coord(i) - coord(j)) mod shape, as cyclic is: the same
        # partition as the reference, which numbers by first appearance
        assert len(set(zip(d.pattern.ravel().tolist(), ref.ravel().tolist()))) == d.dimension
    else:
        # p4/p4m: the fast path gives exactly the reference pattern, numbering included
        assert np.array_equal(d.pattern, ref)
    assert np.array_equal(orbitals(g), orbit_labels(g, 2))


def test_rotation_and_reflection_follow_the_convention():
    N = 5
    g = groups.p4m((N, N))
    rotation, reflection = g.gens[2], g.gens[3]
    for a in range(N):
        for b in range(N):
            assert rotation[a * N + b] == b * N + (-a) % N
            assert reflection[a * N + b] == a * N + (-b) % N


def test_translations_form_is_doubly_block_circulant():
    H, W = 3, 5
    d = derive(groups.build_group("translations", shape=f"{H}x{W}"))
    P = d.pattern
    for i in range(H * W):
        for j in range(H * W):
            (ai, bi), (aj, bj) = divmod(i, W), divmod(j, W)
            assert d.parameters[P[i, j]] == f"theta_{(ai - aj) % H}_{(bi - bj) % W}"


@given(st.integers(2, 6).flatmap(lambda n: st.lists(st.permutations(range(n)), min_size=1, max_size=3)))
def test_random_generator_sets_match_burnside_and_bfs(perms):
    n = len(perms[0])
    g = groups.from_generators(n, [list(p) for p in perms])
    ref = orbit_labels(g, 2)
    assert derive(g).dimension == burnside_dimension(g, 2) == ref.max() + 1
    assert np.array_equal(orbitals(g), ref)
    assert np.array_equal(bfs_partition(g, 2), ref)  # BFS numbers by first appearance too
    assert np.array_equal(bfs_partition(g, 3), orbit_labels(g, 3))


def test_bad_grid_shapes_are_input_errors(run):
    result = run(["groups", "p4", "--shape", "3x4"])
    assert result.exit_code == 2 and "square shape" in result.stderr
    result = run(["derive", "-g", "translations", "--shape", "3xq"])
    assert result.exit_code == 2 and "not like" in result.stderr


def test_groups_command_shows_every_catalogue_group(run, samples):
    import json

    cases = [
        ["trivial", "-n", "3"],
        ["cyclic", "-n", "5"],
        ["dihedral", "-n", "5"],
        ["symmetric", "-n", "5"],
        ["alternating", "-n", "5"],
        ["translations", "--shape", "3x5"],
        ["p4", "--shape", "4x4"],
        ["p4m", "--shape", "4x4"],
        ["automorphisms", "--graph", samples / "petersen.csv"],
        ["generators", "-n", "4", "--generators", "(0 1)", "--generators", "(2 3)"],
    ]
    orders = [1, 5, 10, 120, 60, 15, 64, 128, 120, 4]
    for args, order in zip(cases, orders):
        result = run(["groups", *args, "--format", "json"])
        assert result.exit_code == 0, result.stderr
        obj = json.loads(result.stdout)
        assert obj["order"] == order and obj["schema_version"] == 1
