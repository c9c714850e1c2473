"""Automorphisms of weighted, directed graphs, from a real automorphism library.

igraph's ``automorphism_group`` and ``count_automorphisms`` run BLISS, which colours
vertices but not edges.  A weighted or directed adjacency matrix keeps its weights and
directions through the standard *layered-graph* construction:

* entries are grouped into colour classes (equal values, or values within a tolerance);
  the diagonal gives vertex colours, the most common off-diagonal class is "no edge";
* every other class gets a code ``c = 1, 2, ..`` written in binary with ``L`` bits;
* vertex ``v`` gets a copy ``v_l = l*n + v`` in each layer ``l < L``, coloured by its layer
  (and its diagonal class), with a path ``v_0 - v_1 - .. - v_(L-1)`` joining the copies;
* an entry ``W[u, v]`` of code ``c`` becomes the edge ``u_l -> v_l`` in every layer ``l``
  whose bit is set in ``c``.

An automorphism of the layered graph fixes the layers (their colours differ), moves every
layer by the same permutation (the paths), and so keeps each entry's colour and direction:
the automorphisms of the layered graph, restricted to layer 0, are exactly the permutations
``sigma`` with ``W[sigma(i), sigma(j)] == W[i, j]``.  A directed graph stays directed, so a
directed cycle gives the cyclic group, not the dihedral one.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import GroupError
from gdlcheck.groups.perm import fixes, identity
from gdlcheck.scale import exponent, scaled


def colour_classes(values: np.ndarray, tol: float = 0.0) -> np.ndarray:
    """Class labels ``0..k-1`` of ``values``: equal values share a class.

    With ``tol > 0`` no two values of a class differ by more than ``tol * max|values|``: the
    sorted distinct values are cut greedily, each class taking every value within that width
    of its smallest one (so values 1, 1 + 0.7 tol, 1 + 1.4 tol make two classes, never one
    chained class).  Classes are numbered in increasing value.  The width is taken of the
    values scaled by a power of two, so it neither overflows nor underflows.
    """
    flat = np.asarray(values, dtype=float).ravel()
    if flat.size == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.all(np.isfinite(flat)):
        raise GroupError("the matrix holds NaN or infinite entries; a colour needs a finite number")
    # unique values by a sort of the values (not an argsort), then a binary search per entry
    uniq = np.unique(flat)
    if tol > 0 and uniq.size > 1:
        u = scaled(uniq, exponent(uniq))
        cluster = _greedy_classes(u, tol * float(np.max(np.abs(u))))
    else:
        cluster = np.arange(uniq.size)
    if uniq.size <= 1 << 16:
        return cluster[np.searchsorted(uniq, flat)].reshape(np.shape(values))
    # many distinct values: a binary search per entry misses the cache; rank by one argsort
    order = np.argsort(flat)
    ranked = flat[order]
    labels = np.empty(flat.size, dtype=np.int64)
    labels[order] = cluster[np.concatenate([[0], np.cumsum(ranked[1:] != ranked[:-1])])]
    return labels.reshape(np.shape(values))


def _greedy_classes(u: np.ndarray, width: float) -> np.ndarray:
    """Class of each sorted distinct value ``u``: a class starts at its smallest value ``v`` and
    takes every value ``<= v + width``; the next class starts at the next value.

    Runs of values with no gap over ``width`` whose whole spread is within ``width`` are one
    class at once (vectorised); only longer runs are cut step by step, one step per class.
    """
    k = u.size
    starts = np.zeros(k, dtype=bool)
    run_starts = np.concatenate([[0], np.nonzero(np.diff(u) > width)[0] + 1])
    run_ends = np.concatenate([run_starts[1:], [k]])
    starts[run_starts] = True
    long_runs = np.nonzero(u[run_ends - 1] - u[run_starts] > width)[0]
    for r in long_runs.tolist():
        i, end = int(run_starts[r]), int(run_ends[r])
        while i < end:
            starts[i] = True
            j = int(np.searchsorted(u, u[i] + width, side="right"))
            while j - 1 > i and u[j - 1] - u[i] > width:  # u[i] + width rounded up past a value
                j -= 1
            i = max(j, i + 1)
    return np.cumsum(starts) - 1


def _layered_graph(C: np.ndarray, fixed: int | None = None):
    """The layered graph of a colour matrix ``C`` (n x n ints): ``(graph, vertex colours)``.

    With ``fixed`` that point gets a colour of its own (its stabiliser is then computed).
    """
    import igraph

    n = C.shape[0]
    C = _compact(C)
    # Boolean n x n temporaries only (no int64 copies of C): the stabiliser of each point
    # orbit's representative rebuilds this graph, inside derive's memory budget.
    diag = np.diag(C)
    if n > 1:
        counts = np.bincount(C.ravel())
        counts[: int(diag.max()) + 1] -= np.bincount(diag)
        background = int(np.argmax(counts))
    else:
        background = -1
    vertex_class = vertex_invariants(C, fixed)
    n_vertex_classes = int(vertex_class.max()) + 1 if n else 1
    if n_vertex_classes == n:  # every vertex told apart: only the identity, no graph needed
        return None, None
    is_edge = C != background
    np.fill_diagonal(is_edge, False)
    if not is_edge.any():
        return None, vertex_class
    directed = not np.array_equal(is_edge, is_edge.T) or not np.all((C == C.T)[is_edge])
    if not directed:
        is_edge = np.triu(is_edge, 1)
    src, dst = np.nonzero(is_edge)
    code = _compact(C[src, dst]) + 1
    layers = max(1, int(code.max()).bit_length()) if code.size else 1
    edges = []
    for layer in range(layers):
        on = (code >> layer) & 1 == 1
        edges.append(np.stack([src[on] + layer * n, dst[on] + layer * n], axis=1))
        if layer + 1 < layers:
            v = np.arange(n)
            edges.append(np.stack([v + layer * n, v + (layer + 1) * n], axis=1))
    edge_array = np.concatenate(edges) if edges else np.zeros((0, 2), dtype=np.int64)
    graph = igraph.Graph(n=n * layers, edges=edge_array.tolist(), directed=directed)
    colours = (np.repeat(np.arange(layers), n) * n_vertex_classes + np.tile(vertex_class, layers)).tolist()
    return graph, colours


def vertex_invariants(C: np.ndarray, fixed: int | None = None) -> np.ndarray:
    """Vertex colours every automorphism keeps: the diagonal colour and hashes of the multisets
    of colours in the vertex's row and column (a hash collision only merges classes, which
    is safe).  Numbered ``0..k-1``; ``fixed`` gets a class of its own."""
    n = C.shape[0]
    k = int(C.max()) + 1
    rng = np.random.default_rng(20240601)
    R1 = rng.integers(1, 2**63 - 1, size=k, dtype=np.uint64)
    R2 = rng.integers(1, 2**63 - 1, size=k, dtype=np.uint64)
    # row and column sums in blocks of rows: no n x n uint64 temporary
    rows = np.zeros(n, dtype=np.uint64)
    cols = np.zeros(n, dtype=np.uint64)
    step = max(1, (1 << 18) // max(n, 1))
    for start in range(0, n, step):
        block = C[start:start + step]
        rows[start:start + step] = R1[block].sum(axis=1, dtype=np.uint64)
        cols += R2[block].sum(axis=0, dtype=np.uint64)
    keys = np.stack([np.diag(C).astype(np.uint64), rows, cols, np.zeros(n, dtype=np.uint64)], axis=1)
    if fixed is not None:
        keys[fixed, 3] = 1
    _, classes = np.unique(keys, axis=0, return_inverse=True)
    return classes.ravel().astype(np.int64)


def _class_symmetric_group(classes: np.ndarray) -> tuple[list[tuple[int, ...]], int]:
    """No edges: every permutation inside each vertex class; an n-cycle and a transposition each."""
    import math

    n = len(classes)
    gens, order = [], 1
    for c in range(int(classes.max()) + 1 if n else 0):
        pts = np.nonzero(classes == c)[0].tolist()
        order *= math.factorial(len(pts))
        if len(pts) < 2:
            continue
        cyc = list(range(n))
        for a, b in zip(pts, pts[1:] + pts[:1]):
            cyc[a] = b
        swap = list(range(n))
        swap[pts[0]], swap[pts[1]] = pts[1], pts[0]
        gens.extend([tuple(cyc), tuple(swap)] if len(pts) > 2 else [tuple(swap)])
    return gens, order


def _automorphisms(C: np.ndarray, fixed: int | None = None, count: bool = True):
    """``(generators, order)`` of the colour matrix's automorphisms (fixing ``fixed``)."""
    n = C.shape[0]
    graph, colours = _layered_graph(C, fixed)
    if colours is None:  # every vertex told apart by its invariants
        return [], 1
    if graph is None:  # no edges: the vertex classes are all that counts
        return _class_symmetric_group(np.asarray(colours))
    ident = identity(n)
    gens: list[tuple[int, ...]] = []
    seen = set()
    for g in graph.automorphism_group(color=colours):
        p = tuple(int(x) for x in g[:n])
        if p != ident and p not in seen:
            seen.add(p)
            gens.append(p)
    return gens, (_count(graph, colours) if count else None)


def _compact(values: np.ndarray) -> np.ndarray:
    """Non-negative integer labels renumbered ``0..k-1`` in increasing order (no sort)."""
    values = np.asarray(values)
    if not np.issubdtype(values.dtype, np.integer):
        values = values.astype(np.int64)
    if values.size == 0:
        return values
    present = np.zeros(int(values.max()) + 1, dtype=bool)
    present[values] = True
    if present.all():  # already 0..k-1 (colour_classes' labels): no copy
        return values
    rank = np.cumsum(present) - 1
    return rank[values]


def coloured_automorphisms(C: np.ndarray) -> tuple[list[tuple[int, ...]], int]:
    """Generators and order of the permutations ``sigma`` with ``C[sigma(i), sigma(j)] == C[i, j]``, by BLISS.

    Parameters
    ----------
    C : (n, n) integer colour matrix (equal entries = same colour).

    Returns
    -------
    (generators, order): array forms, and the true order (igraph's exact count).
    """
    C = np.asarray(C)
    n = C.shape[0]
    if n == 0:
        raise GroupError("the graph has no nodes")
    gens, order = _automorphisms(C)
    if len(gens) * n * n <= 1 << 24:
        # cheap insurance that the layering kept every colour: each generator must fix C
        if not all(fixes(g, C) for g in gens):  # pragma: no cover - a bug, not a user error
            raise RuntimeError("an automorphism from BLISS does not preserve the colour matrix")
    return gens, order


def _count(graph, colours) -> int:
    """BLISS's exact group size (igraph hands it over as a decimal string; allow its length)."""
    import sys

    old = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
    if old is not None:
        sys.set_int_max_str_digits(0)
    try:
        return int(graph.count_automorphisms(color=colours))
    finally:
        if old is not None:
            sys.set_int_max_str_digits(old)


def stabiliser_generators(C: np.ndarray, point: int) -> list[tuple[int, ...]]:
    """Generators of the stabiliser of ``point`` in the automorphism group of colour matrix ``C``."""
    gens, _ = _automorphisms(np.asarray(C), fixed=point, count=False)
    return gens
