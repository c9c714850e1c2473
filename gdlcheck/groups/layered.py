"""BLISS (through igraph) on the layered graph of a colour matrix: automorphisms from a real library.

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

import math

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.groups.colours import compact, vertex_invariants
from gdlcheck.groups.perm import identity
from gdlcheck.limits import MAX_LAYERED_EDGES


def layered_graph(C: np.ndarray, fixed: int | None = None):
    """The layered graph of a colour matrix ``C`` (n x n ints): ``(graph, vertex colours)``.

    With ``fixed`` that point gets a colour of its own (its stabiliser is then computed).
    """

    n = C.shape[0]
    C = compact(C)
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
    return layered(n, src, dst, compact(C[src, dst]) + 1, directed, vertex_class, n_vertex_classes)


def layered(n: int, src, dst, code, directed: bool, vertex_class, n_classes: int):
    """The layered graph of coloured edges ``src -> dst`` (colour ``code >= 1``): bit ``k`` of an
    edge's colour is an edge in layer ``k``, and each vertex is joined to its copy in the next
    layer.  Returns the igraph graph and its vertex colours (layer, then vertex class)."""
    import igraph

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
    colours = (np.repeat(np.arange(layers), n) * n_classes + np.tile(vertex_class, layers)).tolist()
    return graph, colours


def class_symmetric_group(classes: np.ndarray) -> tuple[list[tuple[int, ...]], int]:
    """No edges: every permutation inside each vertex class; an n-cycle and a transposition each."""

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


def bliss_automorphisms(C: np.ndarray, fixed: int | None = None, count: bool = True):
    """BLISS on the layered graph (the benchmarks' peer; the search's fallback)."""
    n = C.shape[0]
    graph, colours = layered_graph(C, fixed)
    if colours is None:  # every vertex told apart by its invariants
        return [], 1
    if graph is None:  # no edges: the vertex classes are all that counts
        return class_symmetric_group(np.asarray(colours))
    gens = bliss_generators(graph, colours, n)
    return gens, (count_automorphisms(graph, colours) if count else None)


def bliss_generators(graph, colours, n: int) -> list[tuple[int, ...]]:
    """BLISS's generators of the coloured graph, on the first ``n`` vertices (the points), each once."""
    ident = identity(n)
    gens: list[tuple[int, ...]] = []
    seen = set()
    for g in graph.automorphism_group(color=colours):
        p = tuple(int(x) for x in g[:n])
        if p != ident and p not in seen:
            seen.add(p)
            gens.append(p)
    return gens


def check_layered_size(C: np.ndarray) -> None:
    """BLISS's graph has an edge per entry and bit of its colour: refused past MAX_LAYERED_EDGES
    before it is built (a circulant of distinct values at n = 2048 took 3.7 GB)."""
    n = C.shape[0]
    colours = int(C.max()) + 1 if C.size else 1
    estimate = n * (n - 1) * max(1, colours.bit_length()) // 2
    if estimate > MAX_LAYERED_EDGES and colours > 2:
        raise LimitError(
            f"the automorphism search would give BLISS a layered graph of about {estimate:.3g} edges "
            f"({n} points, {colours} colours), over the limit of {MAX_LAYERED_EDGES}; the fast search "
            "(refinement) did not settle this matrix"
        )


def layered_edges(C: np.ndarray, sample: int | None = None) -> int:
    """About how many edges :func:`layered_graph` would build for the colour matrix ``C``
    (colours ``0..k-1``): an edge per entry off the diagonal that is not "no edge", per bit of
    its colour, and the paths between the layers.  An upper bound read from every entry, or with
    ``sample`` an estimate from that many rows evenly spaced (a choice of speed only)."""
    n = C.shape[0]
    if n < 2:
        return 0
    stride = 1 if sample is None else max(1, n // sample)
    rows = np.arange(0, n, stride)
    counts = np.bincount(C[rows].ravel(), minlength=int(C.max()) + 1)
    diag = C[rows, rows]
    counts[: int(diag.max()) + 1] -= np.bincount(diag)
    entries = int(counts.sum() - counts.max()) * n // len(rows)
    bits = max(1, (len(counts) - 1).bit_length())
    return entries * bits + n * (bits - 1)


def count_automorphisms(graph, colours) -> int:
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
