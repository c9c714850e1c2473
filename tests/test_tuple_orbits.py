"""Orbits on index tuples through point stabilisers equal the orbits themselves.

``tuple_orbits`` (derive's general method, any order) is compared with a slow reference kept
here, a breadth-first search over the tuples with every generator, and with the components
method ``orbit_labels``.  Small cases would take the direct labelling, so the stabiliser path
is forced (``_SMALL = 0``), with the smallest first sample so that Schreier generators join
it as the certification finds them.  Not timed.
"""

import importlib
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import derive, orbit_labels
from gdlcheck.groups import PermGroup

stabilisers = importlib.import_module("gdlcheck.derivation.orbitals")  # the package's `orbitals` is the function


def reference_orbits(n: int, gens, order: int) -> np.ndarray:
    """Orbits of the tuples of ``[n]^order`` by search, numbered by first cell in row-major order."""
    label: dict[tuple, int] = {}
    number = -1
    for cell in itertools.product(range(n), repeat=order):
        if cell in label:
            continue
        number += 1
        label[cell] = number
        stack = [cell]
        while stack:
            x = stack.pop()
            for g in gens:
                y = tuple(g[i] for i in x)
                if y not in label:
                    label[y] = number
                    stack.append(y)
    cells = [label[c] for c in itertools.product(range(n), repeat=order)]
    return np.array(cells, dtype=np.int32).reshape((n,) * order)


@pytest.fixture(params=[(1 << 20, 32), (0, 32), (0, 0)], ids=["direct", "stabilisers", "stabilisers-joining"])
def path(request):
    """(``_SMALL``, ``_FIRST_SAMPLE``): the direct labelling, the stabiliser path, and the
    stabiliser path from the smallest first sample."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stabilisers, "_SMALL", request.param[0])
        mp.setattr(stabilisers, "_FIRST_SAMPLE", request.param[1])
        yield


groups_and_orders = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.permutations(range(n)).map(tuple), max_size=3),
        st.integers(0, 4 if n <= 5 else 3),
        st.integers(0, 2**16),
    )
)


# the fixture only sets two constants for the whole test: nothing to reset between examples
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(groups_and_orders)
def test_tuple_orbits_equal_the_search_on_random_groups(path, case):
    n, gens, order, seed = case
    group = PermGroup("generated", n, tuple(gens))
    expected = reference_orbits(n, gens, order)
    got = stabilisers.tuple_orbits(group, order, seed=seed)
    assert got.dtype == np.int32 and got.shape == (n,) * order
    assert np.array_equal(got, expected)
    assert np.array_equal(orbit_labels(group, order), expected)


STRUCTURED = [
    # transitive, imprimitive: a transposition and a long cycle that do not make S_n
    groups.from_generators(8, ["(0 1)", "(0 2 4 6 1 3 5 7)"]),
    # intransitive with fixed points: stabilisers of different orbits, one shared by the fixed points
    groups.from_generators(9, ["(0 1 2)(3 4)", "(0 1)"]),
    groups.from_generators(10, ["(0 5)(1 6)(2 7)(3 8)(4 9)", "(0 1 2 3 4)"]),
    # two random involutions
    groups.from_generators(8, ["(0 3)(1 6)(2 5)(4 7)", "(0 7)(1 2)(3 5)(4 6)"]),
    # regular (every stabiliser trivial) and trivial
    groups.from_generators(7, ["(0 1 2 3 4 5 6)"]),
    groups.trivial(4),
]


@pytest.mark.parametrize("group", STRUCTURED, ids=lambda g: " ".join(g.generator_strings) or "trivial")
@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_tuple_orbits_equal_the_components_method_on_structured_groups(path, group, order):
    assert np.array_equal(stabilisers.tuple_orbits(group, order), orbit_labels(group, order))


def test_orbits_do_not_depend_on_the_schreier_sample(monkeypatch):
    # the first sample is seeded; the orbits, and their numbering by first cell, are not
    monkeypatch.setattr(stabilisers, "_SMALL", 0)
    group = groups.from_generators(8, ["(0 1)", "(0 2 4 6 1 3 5 7)"])
    patterns = [stabilisers.tuple_orbits(group, 4, seed=seed) for seed in range(6)]
    assert all(np.array_equal(p, patterns[0]) for p in patterns)


@pytest.mark.parametrize("in_order, out_order", [(2, 2), (2, 1), (0, 3), (1, 1), (2, 0)])
def test_derive_of_a_generated_group_takes_the_stabiliser_path(monkeypatch, in_order, out_order):
    # derive's general method is tuple_orbits at every order; the pattern is the reference one
    group = groups.from_generators(6, ["(0 1)", "(0 2 4)(1 3 5)"])
    calls = []
    real = stabilisers.tuple_orbits

    def spy(g, order, seed=0):
        calls.append(order)
        return real(g, order, seed)

    monkeypatch.setattr(importlib.import_module("gdlcheck.derivation.basis"), "tuple_orbits", spy)
    d = derive(group, in_order, out_order)
    assert calls == [in_order + out_order]
    assert np.array_equal(d.pattern, orbit_labels(group, in_order + out_order))
    assert d.dimension == int(d.pattern.max()) + 1
