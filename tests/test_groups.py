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
    np.testing.assert_array_equal(groups.perm_matrix(groups.then(p, q)),
                                  groups.perm_matrix(q) @ groups.perm_matrix(p))


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


@pytest.mark.parametrize("text, n, expected", [
    ("(0 1 2)(3 4)", 5, (1, 2, 0, 4, 3)),
    ("(0 1)", 4, (1, 0, 2, 3)),
    ("[1, 0, 3, 2]", 4, (1, 0, 3, 2)),
    ("[2,0,1]", None, (2, 0, 1)),
    ("(0 3)", None, (3, 1, 2, 0)),
    ("()", 3, (0, 1, 2)),
])
def test_parse_perm(text, n, expected):
    assert groups.parse_perm(text, n) == expected


@pytest.mark.parametrize("text, n, message", [
    ("[1, 1, 0]", 3, "not a bijection"),
    ("[1, 0]", 3, "length 2, expected n = 3"),
    ("(0 5)", 3, "out of range"),
    ("(0 1)(1 2)", 3, "disjoint"),
    ("(0 a)", 3, "not an integer"),
    ("0 1 2", 3, "neither cycle notation"),
    ("[0, 3, 1]", 3, "out of range"),
])
def test_bad_generators(text, n, message):
    with pytest.raises(GroupError, match=message):
        groups.parse_perm(text, n)


def test_cycle_string_round_trip():
    p = (1, 2, 0, 4, 3, 5)
    assert groups.cycle_string(p) == "(0 1 2)(3 4)"
    assert groups.parse_perm(groups.cycle_string(p), 6) == p
    assert groups.cycle_string((0, 1)) == "()"


@pytest.mark.parametrize("name, n, order", [
    ("trivial", 4, 1), ("cyclic", 7, 7), ("shift", 3, 3), ("dihedral", 6, 12), ("dihedral", 2, 2),
    ("dihedral", 1, 1), ("symmetric", 5, 120), ("permutation", 1, 1), ("symmetric", 2, 2),
    ("alternating", 5, 60), ("alternating", 4, 12), ("alternating", 3, 3), ("alternating", 1, 1),
    ("alternating", 2, 1),
])
def test_catalogue_orders_agree_with_schreier_sims(name, n, order):
    g = groups.build_group(name, n=n)
    assert g.order == order
    if g.gens:
        assert g.to_sympy().order() == order


def test_order_formula_for_large_n_is_exact_and_json_safe():
    g = groups.build_group("symmetric", n=30)
    assert g.order == math.factorial(30)
    assert g.order_json() == str(math.factorial(30))          # 33 digits: a string, exact
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
