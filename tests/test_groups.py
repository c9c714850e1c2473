"""Permutations and the catalogue: conventions pinned against the seed's formulas."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.errors import GroupError


def test_unit_shift_matrix_is_the_seeds_S():
    # The seed: (S x)[i] = x[i - 1]; the unit shift sigma(j) = j + 1 has P[sigma[j], j] = 1.
    n = 5
    g = groups.cyclic(n)
    (shift,) = g.gens
    assert shift == (1, 2, 3, 4, 0)
    P = groups.perm_matrix(shift)
    S = np.zeros((n, n), dtype=int)
    for i in range(n):
        S[i, (i - 1) % n] = 1
    np.testing.assert_array_equal(P, S)
    x = np.arange(n) * 10
    np.testing.assert_array_equal(groups.act(shift, x), np.roll(x, 1))
    np.testing.assert_array_equal(groups.act(shift, x), P @ x)


@given(st.permutations(range(6)), st.permutations(range(6)))
def test_matrix_of_then_is_product_in_application_order(p, q):
    p, q = tuple(p), tuple(q)
    # p first, then q: the matrix of the composite is Q P.
    np.testing.assert_array_equal(groups.perm_matrix(groups.then(p, q)), groups.perm_matrix(q) @ groups.perm_matrix(p))


@given(st.permutations(range(7)), st.permutations(range(7)))
def test_then_agrees_with_sympy_mul(p, q):
    from sympy.combinatorics import Permutation

    assert groups.then(tuple(p), tuple(q)) == tuple((Permutation(p) * Permutation(q)).array_form)


@given(st.permutations(range(7)))
def test_inverse_and_act(p):
    p = tuple(p)
    assert groups.then(p, groups.inverse(p)) == groups.identity(7)
    x = np.random.default_rng(0).standard_normal(7)
    np.testing.assert_array_equal(groups.act(p, x), groups.perm_matrix(p) @ x)
    A = np.random.default_rng(1).standard_normal((7, 7))
    P = groups.perm_matrix(p)
    np.testing.assert_array_equal(groups.conjugate(p, A), P @ A @ P.T)


@pytest.mark.parametrize(
    "text, n, expected",
    [
        ("(0 1 2)(3 4)", 5, (1, 2, 0, 4, 3)),
        ("(0 1)", 4, (1, 0, 2, 3)),
        ("[1, 0, 3, 2]", 4, (1, 0, 3, 2)),
        ("[2,0,1]", None, (2, 0, 1)),
        ("(0 3)", None, (3, 1, 2, 0)),
        ("()", 3, (0, 1, 2)),
    ],
)
def test_parse_perm(text, n, expected):
    assert groups.parse_perm(text, n) == expected


@pytest.mark.parametrize(
    "text, n, message",
    [
        ("[1, 1, 0]", 3, "not a bijection"),
        ("[1, 0]", 3, "length 2, expected n = 3"),
        ("(0 5)", 3, "out of range"),
        ("(0 1)(1 2)", 3, "disjoint"),
        ("(0 a)", 3, "not an integer"),
        ("0 1 2", 3, "neither cycle notation"),
        ("[0, 3, 1]", 3, "out of range"),
    ],
)
def test_bad_generators(text, n, message):
    with pytest.raises(GroupError, match=message):
        groups.parse_perm(text, n)


def test_cycle_string_round_trip():
    p = (1, 2, 0, 4, 3, 5)
    assert groups.cycle_string(p) == "(0 1 2)(3 4)"
    assert groups.parse_perm(groups.cycle_string(p), 6) == p
    assert groups.cycle_string((0, 1)) == "()"


@pytest.mark.parametrize(
    "name, n, order",
    [
        ("trivial", 4, 1),
        ("cyclic", 7, 7),
        ("shift", 3, 3),
        ("dihedral", 6, 12),
        ("dihedral", 2, 2),
        ("dihedral", 1, 1),
        ("symmetric", 5, 120),
        ("permutation", 1, 1),
        ("symmetric", 2, 2),
        ("alternating", 5, 60),
        ("alternating", 4, 12),
        ("alternating", 3, 3),
        ("alternating", 1, 1),
        ("alternating", 2, 1),
    ],
)
def test_catalogue_orders_agree_with_schreier_sims(name, n, order):
    g = groups.build_group(name, n=n)
    assert g.order == order
    if g.gens:
        assert g.to_sympy().order() == order


def test_order_formula_for_large_n_is_exact_and_json_safe():
    g = groups.build_group("symmetric", n=30)
    assert g.order == math.factorial(30)
    assert g.order_json() == str(math.factorial(30))  # 33 digits: a string, exact
    assert groups.symmetric(17).order_json() == math.factorial(17)  # 15 digits: an integer


def test_generators_group_order_by_schreier_sims():
    g = groups.build_group("generators", generators=["(0 1 2 3 4)", "(0 1)"])
    assert g.n == 5 and g.order == 120
    g = groups.build_group("generators", n=6, generators=["(0 1)(2 3)", "[1, 0, 2, 3, 5, 4]"])
    assert g.order == 4


@pytest.mark.parametrize("name", ["dihedral", "alternating", "symmetric"])
def test_generators_generate_the_named_sympy_group(name):
    from sympy.combinatorics.named_groups import AlternatingGroup, DihedralGroup, SymmetricGroup

    ref = {"dihedral": DihedralGroup, "alternating": AlternatingGroup, "symmetric": SymmetricGroup}[name](6)
    g = groups.build_group(name, n=6).to_sympy()
    assert g.order() == ref.order()
    assert all(ref.contains(x) for x in g.generators)


def test_unknown_group_suggests():
    with pytest.raises(GroupError, match="did you mean 'cyclic'"):
        groups.build_group("cyclc", n=4)


def test_missing_n():
    with pytest.raises(GroupError, match="needs a size"):
        groups.build_group("cyclic")


def test_transitivity():
    assert groups.build_group("cyclic", n=5).is_transitive
    assert not groups.build_group("generators", n=4, generators=["(0 1)"]).is_transitive


@given(st.integers(1, 9).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.permutations(range(n)), max_size=3))))
def test_point_orbits_agree_with_sympy(case):
    n, gens = case
    g = groups.from_generators(n, [list(p) for p in gens]) if gens else groups.trivial(n)
    expected = sorted(sorted(o) for o in g.to_sympy().orbits()) if g.gens else [[i] for i in range(n)]
    assert g.point_orbits() == expected


# --------------------------------------------------------------------------- the catalogue's records


def test_a_hand_built_group_named_cyclic_derives_by_the_general_method():
    # the name says nothing: only the catalogue's constructors set a family
    from gdlcheck.derivation import derive, orbit_labels
    from gdlcheck.layers import Linear
    from gdlcheck.verification import verify_layer

    g = groups.PermGroup("cyclic", 4, ((1, 0, 2, 3),))
    d = derive(g)
    assert g.family is None and d.form == "orbit basis" and d.dimension == 10
    assert np.array_equal(d.pattern, orbit_labels(g, 2))
    W = np.arange(1.0, d.dimension + 1)[d.pattern]
    assert verify_layer(Linear(W), g).verdict == "holds"
    # the circulant a name check would have given does not commute with (0 1)
    circ = derive(groups.cyclic(4))
    assert verify_layer(Linear(np.arange(1.0, 5)[circ.pattern]), g).verdict == "fails"


@pytest.mark.parametrize("n", range(1, 12))
def test_the_alternating_group_is_generated_by_two_permutations_as_sympy_does(n):
    from sympy.combinatorics import Permutation
    from sympy.combinatorics.named_groups import AlternatingGroup

    g = groups.alternating(n)
    assert len(g.gens) <= 2
    assert g.to_sympy().order() == g.order == max(1, math.factorial(n) // 2)
    if n >= 3:
        ref = AlternatingGroup(n)
        assert sorted(g.gens) == sorted(tuple(p.array_form) for p in ref.generators)
    assert all(Permutation(list(p)).is_even for p in g.gens) if g.gens else g.order == 1


@pytest.mark.parametrize(
    "name, size",
    [
        ("cyclic", 7),
        ("dihedral", 6),
        ("symmetric", 5),
        ("alternating", 7),
        ("alternating", 6),
        ("translations", (3, 4)),
        ("p4", (4, 4)),
        ("p4m", (5, 5)),
    ],
)
def test_every_role_is_what_its_generator_is(name, size):
    g = groups.build_group(name, n=size) if isinstance(size, int) else groups.build_group(name, shape=size)
    assert len(g.roles) == len(g.gens) and g.family is groups.FAMILIES[name]
    for p, role in zip(g.gens, g.roles):
        if role.kind == "shift":
            assert p == groups.shift(g.n)
        elif role.kind == "reflection":
            assert p == tuple((-j) % g.n for j in range(g.n))
        elif role.kind == "transposition":
            assert sum(i != x for i, x in enumerate(p)) == 2
        elif role.kind == "3-cycle":
            assert sum(i != x for i, x in enumerate(p)) == 3
        elif role.kind == "translation":
            coords = np.array(np.unravel_index(np.arange(g.n), g.shape))
            moved = np.array(np.unravel_index(np.array(p), g.shape))
            step = np.zeros(len(g.shape), dtype=int)
            step[role.axis] = 1
            assert np.array_equal(moved, (coords + step[:, None]) % np.array(g.shape)[:, None])
        elif role.kind in ("rotation", "grid-reflection"):
            assert p[0] == 0  # they fix the origin
        elif role.kind == "cycle":  # (1 2 .. n-1), fixing 0
            assert p == (0,) + tuple(range(2, g.n)) + (1,)
        else:
            pytest.fail(f"unexpected role {role}")


def test_families_are_found_by_name_and_alias_and_near_misses_are_suggested():
    assert groups.find_family("Shift") is groups.FAMILIES["cyclic"]
    assert groups.find_family("torus") is groups.FAMILIES["translations"]
    with pytest.raises(GroupError, match="did you mean 'cyclic'"):
        groups.find_family("cyclc")


@given(st.integers(1, 40), st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=60))
def test_the_components_kernel_agrees_with_scipy(n, pairs):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    from gdlcheck.groups.components import label_components

    pairs = [(a % n, b % n) for a, b in pairs]
    u = np.array([a for a, _ in pairs], dtype=np.int64)
    v = np.array([b for _, b in pairs], dtype=np.int64)
    root = label_components(np.arange(n), lambda: [(u, v)] if len(pairs) else [])
    _, ref = connected_components(coo_matrix((np.ones(len(u)), (u, v)), shape=(n, n)), directed=False)
    # the same partition, each node labelled with the least node of its component
    least = {c: min(np.nonzero(ref == c)[0]) for c in set(ref.tolist())}
    assert root.tolist() == [least[c] for c in ref.tolist()]


def test_each_family_says_how_it_is_sized_and_only_one_way():
    sized = {name: [f.on_points, f.is_grid, f.of_a_graph, f.generated] for name, f in groups.FAMILIES.items()}
    assert all(flags.count(True) == 1 for flags in sized.values()), sized
    assert [name for name, f in groups.FAMILIES.items() if f.is_grid] == ["translations", "p4", "p4m"]
    assert [name for name, f in groups.FAMILIES.items() if f.of_a_graph] == ["automorphisms"]
    # every family sized by n alone is built from n alone
    for f in groups.FAMILIES.values():
        if f.on_points:
            assert groups.build_group(f.name, n=6).n == 6


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 3, 4), (6,)])
def test_a_grid_family_takes_the_shapes_it_acts_on(shape):
    square = len(shape) == 2 and shape[0] == shape[1]
    assert groups.FAMILIES["translations"].takes(shape)
    for name in ("p4", "p4m"):
        assert groups.FAMILIES[name].takes(shape) == square
        if square:
            assert groups.build_group(name, shape=shape).shape == shape
        else:
            with pytest.raises(GroupError, match="square"):
                groups.build_group(name, shape=shape)


def test_a_grid_family_without_a_shape_takes_a_line_or_a_square_of_n_points():
    assert groups.build_group("translations", n=6).shape == (6,)
    assert groups.build_group("p4", n=9).shape == (3, 3)
    with pytest.raises(GroupError, match="n = 8 is not a square"):
        groups.build_group("p4m", n=8)


@pytest.mark.parametrize(
    "name, args, option",
    [
        ("cyclic", {"n": 4}, "n"),
        ("automorphisms", {}, "graph"),
        ("generators", {"generators": ["(0 1)"]}, "generators"),
    ],
)
def test_a_shape_for_a_family_not_sized_by_one_names_what_sizes_it(name, args, option):
    with pytest.raises(GroupError, match=f"{name!r} is sized by {option}"):
        groups.build_group(name, shape="2x2", **args)


@pytest.mark.parametrize(
    "name, size",
    [
        ("cyclic", 5),
        ("dihedral", 6),
        ("symmetric", 4),
        ("alternating", 6),
        ("alternating", 7),
        ("translations", (3, 4)),
        ("p4", (3, 3)),
        ("p4m", (4, 4)),
        ("generators", 5),
    ],
)
def test_every_generators_sentence_is_filled_by_what_its_role_says(name, size):
    # a role's kind is asked of the role: its sentence and the fields that sentence names
    if name == "generators":
        g = groups.build_group(name, n=size, generators=["(0 1)", "(1 2 3)", "(0 1 2 3 4)"])
    elif isinstance(size, int):
        g = groups.build_group(name, n=size)
    else:
        g = groups.build_group(name, shape=size)
    for slots in (["i", "j"], ["i1", "i2", "j1"]):
        base = {
            "T": "W" if len(slots) == 2 else "T",
            "slots": ", ".join(slots),
            "shifted": "",
            "negated": "",
            "moved_slots": "",
        }
        for k, p in enumerate(g.gens):
            role = g.role(k)
            matrix, tensor = role.sentence(g.family)
            text = (matrix if len(slots) == 2 else tensor).format(**base, **role.fields(p, g.shape, slots))
            assert "{" not in text and text
            if role.kind == "transposition":
                a, b = (i for i, x in enumerate(p) if x != i)
                assert f"points {a} and {b} are interchangeable" in text


def test_a_long_permutations_cycle_string_is_remembered_and_the_same_as_written_out():
    from gdlcheck.groups import perm

    rng = np.random.default_rng(0)
    n = perm.LONG_PERM + 1
    p = tuple(int(v) for v in rng.permutation(n))
    text = perm.cycle_string(p)
    assert text == perm._cycles(p)  # what the short path writes
    assert perm.parse_perm(text, n) == p  # and it reads back as the same permutation
    assert perm.cycle_string(list(p)) == perm.cycle_string(np.array(p)) == text
    q = perm.then(p, p)  # another permutation is not given the remembered one
    assert perm.cycle_string(q) == perm._cycles(q) != text
