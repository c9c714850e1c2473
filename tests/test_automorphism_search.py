"""The automorphism searches give the whole group, on graphs BLISS counts independently.

Each graph is checked three ways: ``coloured_automorphisms`` (whichever search it picks), the
numpy refinement search on its own, and that search again on a weighted copy whose colours make
the layered graph large (the path the refinement search takes).  The reference is igraph's
``count_automorphisms`` on the plain graph; the generators must keep the matrix and generate a
group of exactly that order (sympy's Schreier-Sims), so a missing generator shows.
"""

from __future__ import annotations

import random

import igraph
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.combinatorics import Permutation, PermutationGroup

from gdlcheck.groups import automorphisms
from gdlcheck.groups.automorphisms import coloured_automorphisms
from gdlcheck.groups.colours import colour_classes
from gdlcheck.groups.perm import fixes
from gdlcheck.groups.refinement import refinement_search


def adjacency(g: igraph.Graph) -> np.ndarray:
    A = np.zeros((g.vcount(), g.vcount()))
    for a, b in g.get_edgelist():
        A[a, b] = A[b, a] = 1
    return A


def paley(q: int) -> igraph.Graph:
    squares = {x * x % q for x in range(1, q)}
    return igraph.Graph([(a, b) for a in range(q) for b in range(a + 1, q) if (b - a) % q in squares])


def random_regular(n: int, degree: int, seed: int) -> igraph.Graph:
    random.seed(seed)  # igraph draws from Python's random module
    return igraph.Graph.K_Regular(n, degree)


def random_tree(n: int, seed: int) -> igraph.Graph:
    rng = np.random.default_rng(seed)
    return igraph.Graph([(int(rng.integers(0, i)), i) for i in range(1, n)])


GRAPHS = {
    "petersen": igraph.Graph.Famous("Petersen"),
    "paley 13": paley(13),
    "paley 17": paley(17),
    "paley 29": paley(29),
    "cube": igraph.Graph.Lattice([2, 2, 2], circular=False),
    "grid 4x5": igraph.Graph.Lattice([4, 5], circular=False),
    "torus 4x4": igraph.Graph.Lattice([4, 4], circular=True),
    "cycle 12": igraph.Graph.Ring(12),
    "path 9": igraph.Graph.Ring(9, circular=False),
    "binary tree 15": igraph.Graph.Tree(15, 2),
    "random tree 20": random_tree(20, 3),
    "3-regular 24": random_regular(24, 3, 0),
    "3-regular 40": random_regular(40, 3, 1),
    "4-regular 30": random_regular(30, 4, 2),
    "10-regular 20": random_regular(20, 10, 4),  # half the pairs are edges: the numpy search's path
    "two petersens and a 5-cycle": igraph.Graph.disjoint_union(
        igraph.Graph.Famous("Petersen"), [igraph.Graph.Famous("Petersen"), igraph.Graph.Ring(5)]
    ),
    "star 8": igraph.Graph.Star(8),
    "complete bipartite 3,4": igraph.Graph.Full_Bipartite(3, 4),
}


def weighted(A: np.ndarray) -> np.ndarray:
    """The same automorphisms with many colours: entry ``(i, j)`` coloured by ``A`` and its
    distance class, so no colour is a large majority and the layered graph is big."""
    n = A.shape[0]
    D = np.full((n, n), n + 1.0)
    np.fill_diagonal(D, 0)
    reach = np.eye(n, dtype=bool)
    step = A > 0
    for d in range(1, n):
        reach_next = reach | ((reach.astype(int) @ step.astype(int)) > 0)
        D[reach_next & ~reach] = d
        if (reach_next == reach).all():
            break
        reach = reach_next
    return D


def assert_whole_group(found, C: np.ndarray, order: int) -> None:
    gens, got = found
    assert got == order
    assert all(fixes(np.asarray(g), C) for g in gens)
    n = C.shape[0]
    generated = (
        PermutationGroup([Permutation(list(g)) for g in gens])
        if gens
        else PermutationGroup([Permutation(list(range(n)))])
    )
    assert generated.order() == order


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_both_searches_find_the_whole_group(name):
    g = GRAPHS[name]
    order = int(g.count_automorphisms())
    A = adjacency(g)
    C = colour_classes(A)
    assert_whole_group(coloured_automorphisms(C), C, order)
    found = refinement_search(C)
    if found is not None:  # None: not conclusive, BLISS decides (tested above)
        assert_whole_group(found, C, order)
    W = colour_classes(weighted(A))  # distances keep the automorphisms, and only them
    assert_whole_group(coloured_automorphisms(W), W, order)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 14), st.integers(0, 2**32 - 1), st.sampled_from([0.2, 0.5, 0.8]))
def test_random_graphs_and_their_colourings_agree_with_bliss(n, seed, p):
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)) < p, 1)
    A = (upper | upper.T).astype(float) * rng.integers(1, 3, size=(n, n))
    A = np.maximum(A, A.T)
    graph = igraph.Graph.Weighted_Adjacency(A.tolist(), mode="undirected")
    C = colour_classes(A)
    # the reference: BLISS counts the plain graph with each weight as an edge colour's layer
    found = coloured_automorphisms(C)
    plain = refinement_search(C)
    if plain is not None:
        assert plain[1] == found[1]
    if (A <= 1).all():
        assert found[1] == int(graph.count_automorphisms())
    assert_whole_group(found, C, found[1])


def test_a_random_regular_graph_goes_to_bliss_without_the_numpy_search(monkeypatch):
    # the numpy search on such a graph needs a failed leaf per point, each rounds of O(n^2)
    def refused(*args, **kwargs):
        raise AssertionError("the numpy search ran on a sparse graph")

    monkeypatch.setattr(automorphisms, "refinement_search", refused)
    g = random_regular(300, 3, 0)
    C = colour_classes(adjacency(g))
    assert coloured_automorphisms(C)[1] == int(g.count_automorphisms())


def test_the_numpy_search_stops_at_its_budget_and_bliss_decides(monkeypatch):
    g = random_regular(40, 3, 1)
    W = colour_classes(weighted(adjacency(g)))
    order = int(g.count_automorphisms())
    n = W.shape[0]
    assert refinement_search(W, max_cells=n * n - 1) is None  # not one round
    assert refinement_search(W, max_cells=None) is not None
    # the budget is a count of entries read: the same budget gives the same answer every time
    answers = {refinement_search(W, max_cells=40 * n * n) is None for _ in range(3)}
    assert len(answers) == 1
    monkeypatch.setattr(automorphisms, "SEARCH_CELLS_PER_EDGE", 0)
    assert_whole_group(coloured_automorphisms(W), W, order)
