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

import math

import numpy as np

from gdlcheck.errors import GroupError, LimitError
from gdlcheck.groups.components import point_orbit_labels
from gdlcheck.groups.perm import fixes, identity
from gdlcheck.limits import MAX_LAYERED_EDGES


def colour_classes(values: np.ndarray, tol: float = 0.0, classes=None) -> np.ndarray:
    """Class labels ``0..k-1`` of ``values``: equal values share a class.

    With ``tol > 0`` no two values of a class differ by more than ``tol * max|values|``: the
    sorted distinct values are cut greedily, each class taking every value within that width
    of its smallest one (so values 1, 1 + 0.7 tol, 1 + 1.4 tol make two classes, never one
    chained class).  Classes are numbered in increasing value.  Widths are compared on the
    values scaled by a power of two, so they neither overflow nor underflow.

    Labels are int32 (int64 past 2^31 entries), no Python object per entry.  ``classes``:
    :func:`value_classes` of the values, when the caller has them already.
    """
    flat = np.asarray(values, dtype=float).ravel()
    if flat.size == 0:
        return np.zeros(0, dtype=np.int64)
    uniq, cluster = classes if classes is not None else value_classes(flat, tol)
    dtype = np.int32 if flat.size < 2**31 else np.int64
    labels = np.empty(flat.size, dtype=dtype)
    if uniq.size <= 1 << 16:
        # few distinct values: a binary search per entry (the table stays in cache), in blocks
        step = 1 << 20
        for s0 in range(0, flat.size, step):
            labels[s0:s0 + step] = cluster[np.searchsorted(uniq, flat[s0:s0 + step])]
    else:
        # many distinct values: a binary search per entry misses the cache; rank by one argsort
        order = np.argsort(flat)
        ranked = flat[order]
        new = np.empty(flat.size, dtype=bool)
        new[0] = True
        np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
        del ranked
        labels[order] = cluster[np.cumsum(new, dtype=np.int64) - 1]
    return labels.reshape(np.shape(values))


def value_classes(flat: np.ndarray, tol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values and the class of each (greedy cut within ``tol``, see
    :func:`colour_classes`); one sort of the values."""
    uniq = _sorted_distinct(flat)
    if not (np.isfinite(uniq[0]) and np.isfinite(uniq[-1])):   # sorted: NaN and inf sort to the ends
        raise GroupError("the matrix holds NaN or infinite entries; a colour needs a finite number")
    if not (tol > 0 and uniq.size > 1):
        return uniq, np.arange(uniq.size, dtype=np.int64)
    top = max(abs(float(uniq[0])), abs(float(uniq[-1])))   # sorted: the largest |value| is at an end
    e = math.frexp(top)[1] if top > 0 else 0
    width = tol * math.ldexp(top, -e)
    starts = np.zeros(uniq.size, dtype=bool)
    starts[0] = True
    step = 1 << 22
    with np.errstate(over="ignore"):
        for s0 in range(0, uniq.size - 1, step):
            gap = np.ldexp(np.diff(uniq[s0:s0 + step + 1]), -e)   # exact: scaling by a power of two
            starts[s0 + 1:s0 + 1 + gap.size] = gap > width
    _split_long_runs(uniq, starts, e, width)
    return uniq, np.cumsum(starts, dtype=np.int32 if uniq.size < 2**31 else np.int64) - 1


def _sorted_distinct(flat: np.ndarray) -> np.ndarray:
    """``np.unique(flat)`` in about twice the memory of ``flat`` (numpy's own takes 3.5x)."""
    ranked = np.sort(flat)
    keep = np.empty(ranked.size, dtype=bool)
    keep[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=keep[1:])
    return ranked if keep.all() else ranked[keep]


def _split_long_runs(ranked: np.ndarray, starts: np.ndarray, e: int, width: float) -> None:
    """Runs of sorted values with no gap over ``width`` but a spread over it are cut greedily
    (a class starts at a value and takes every value within ``width`` of it), in place."""
    # runs of two values or more only (a run of one has no spread): their first and last index
    after = np.append(starts[1:], True)
    firsts = np.nonzero(starts & ~after)[0]
    lasts = np.nonzero(~starts & after)[0]
    if firsts.size == 0:
        return
    with np.errstate(over="ignore"):
        spread = np.ldexp(ranked[lasts] - ranked[firsts], -e)
    for r in np.nonzero(spread > width)[0].tolist():
        i, end = int(firsts[r]), int(lasts[r]) + 1
        run = np.ldexp(ranked[i:end], -e)
        k = 0
        while k < run.size:
            starts[i + k] = True
            j = int(np.searchsorted(run, run[k] + width, side="right"))
            while j - 1 > k and run[j - 1] - run[k] > width:  # run[k] + width rounded up past a value
                j -= 1
            k = max(j, k + 1)


def _layered_graph(C: np.ndarray, fixed: int | None = None):
    """The layered graph of a colour matrix ``C`` (n x n ints): ``(graph, vertex colours)``.

    With ``fixed`` that point gets a colour of its own (its stabiliser is then computed).
    """

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
    return _layered(n, src, dst, _compact(C[src, dst]) + 1, directed, vertex_class, n_vertex_classes)


def _layered(n: int, src, dst, code, directed: bool, vertex_class, n_classes: int):
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


def _automorphisms(C: np.ndarray, fixed: int | None = None, count: bool = True, progress=None):
    """``(generators, order)`` of the colour matrix's automorphisms (fixing ``fixed``).

    Cheap cases first (every vertex told apart; no edges), then individualisation and
    refinement in numpy (:func:`refinement_search`), then BLISS on the layered graph within
    its edge budget.
    """
    n = C.shape[0]
    if fixed is None and n > 1:
        vertex_class = vertex_invariants(_compact(C))
        if int(vertex_class.max()) + 1 == n:   # every vertex told apart: only the identity
            return [], 1
        if _has_edges(C):
            found = refinement_search(C, progress=progress)
            if found is not None:
                return found
            _check_layered_size(C)
    return _automorphisms_bliss(C, fixed, count)


def _automorphisms_bliss(C: np.ndarray, fixed: int | None = None, count: bool = True):
    """BLISS on the layered graph (the benchmarks' peer; the search's fallback)."""
    n = C.shape[0]
    graph, colours = _layered_graph(C, fixed)
    if colours is None:  # every vertex told apart by its invariants
        return [], 1
    if graph is None:  # no edges: the vertex classes are all that counts
        return _class_symmetric_group(np.asarray(colours))
    gens = _bliss_generators(graph, colours, n)
    return gens, (_count(graph, colours) if count else None)


def _bliss_generators(graph, colours, n: int) -> list[tuple[int, ...]]:
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


def _has_edges(C: np.ndarray) -> bool:
    """Whether the off-diagonal entries hold more than one colour (else: no edges at all)."""
    counts = np.bincount(C.ravel()) - np.bincount(np.diag(C), minlength=int(C.max()) + 1)
    return int(np.count_nonzero(counts)) > 1


def _check_layered_size(C: np.ndarray) -> None:
    """BLISS's graph has an edge per entry and bit of its colour: refused past MAX_LAYERED_EDGES
    before it is built (a circulant of distinct values at n = 2048 took 3.7 GB)."""
    n = C.shape[0]
    colours = int(C.max()) + 1 if C.size else 1
    estimate = n * (n - 1) * max(1, colours.bit_length()) // 2
    if estimate > MAX_LAYERED_EDGES and colours > 2:
        raise LimitError(f"the automorphism search would give BLISS a layered graph of about {estimate:.3g} edges "
                         f"({n} points, {colours} colours), over the limit of {MAX_LAYERED_EDGES}; the fast search "
                         "(refinement) did not settle this matrix")


# --------------------------------------------------------------------------- refinement search
#
# Individualisation and refinement, as BLISS and nauty do it, on the colour matrix itself in
# numpy: no graph with an edge per entry.  A partition of the points is refined until stable
# (each point's new colour: its colour and hashes of the multisets of (entry colour, point
# colour) along its row and its column; labels are ranks of those keys, so the refinement
# commutes with every relabelling of the points).  Base points are individualised until the
# partition is discrete; an automorphism mapping the base to other points is the map between
# two discrete leaves, verified on the whole matrix.  Only conclusive searches are kept: where a
# failed leaf does not prove that no automorphism exists, the search gives up (None) and BLISS
# decides.  A regular group (a circulant of distinct values: the cyclic group) costs three
# refinements, each O(n^2) array work.

MAX_BASE = 24          # base points tried before the search leaves the matrix to BLISS
MAX_TESTS = 4096       # leaves tried in all


def _hash_tables(size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, 2**63 - 1, size=size, dtype=np.uint64) | np.uint64(1)


def refine(C: np.ndarray, col: np.ndarray, tables) -> np.ndarray:
    """The coarsest stable refinement of the point colouring ``col`` (labels 0..k-1, canonical)."""
    n = C.shape[0]
    entry_out, entry_in, vertex = tables
    k = int(col.max()) + 1
    step = max(1, (1 << 18) // max(n, 1))
    while True:
        bv = vertex[col]
        out = np.empty(n, dtype=np.uint64)
        inn = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for start in range(0, n, step):
                block = C[start:start + step]
                out[start:start + step] = (entry_out[block] * bv[None, :]).sum(axis=1, dtype=np.uint64)
                inn += (entry_in[block] * bv[start:start + step, None]).sum(axis=0, dtype=np.uint64)
        keys = np.stack([col.astype(np.uint64), out, inn], axis=1)
        _, new = np.unique(keys, axis=0, return_inverse=True)
        new = new.ravel().astype(np.int64)
        classes = int(new.max()) + 1
        if classes == k:
            return new
        col, k = new, classes


def _individualise(col: np.ndarray, v: int) -> np.ndarray:
    out = col.copy()
    out[v] = int(col.max()) + 1
    return out


def _target_class(col: np.ndarray) -> int:
    """The label of the first smallest class with more than one point (-1: discrete)."""
    sizes = np.bincount(col)
    candidates = np.nonzero(sizes > 1)[0]
    if candidates.size == 0:
        return -1
    return int(candidates[np.argmin(sizes[candidates])])


def refinement_search(C: np.ndarray, progress=None):
    """``(generators, order)`` of the automorphisms of the colour matrix ``C`` by
    individualisation and refinement, or None where it is not conclusive (see above)."""
    n = C.shape[0]
    C = _compact(C)
    k = int(C.max()) + 1
    tables = (_hash_tables(k, 11), _hash_tables(k, 12), _hash_tables(n + MAX_BASE + 2, 13))
    start = refine(C, _compact(np.diag(C)).astype(np.int64), tables)
    # the base: individualise the least point of the first smallest class until discrete
    levels = []             # (partition before, target label, base point)
    P = start
    while True:
        label = _target_class(P)
        if label < 0:
            break
        if len(levels) >= MAX_BASE:
            return None
        b = int(np.nonzero(P == label)[0][0])
        levels.append((P, label, b))
        P = refine(C, _individualise(P, b), tables)
        if progress:
            progress(f"base point {len(levels)}")
    leaf0 = np.argsort(P)          # leaf0[label] = point
    gens: list[np.ndarray] = []
    order = 1
    tests = 0
    complete_below = True          # every deeper level's class is one orbit: a failed leaf is conclusive
    for depth in range(len(levels) - 1, -1, -1):
        P_l, label, b = levels[depth]
        members = np.nonzero(P_l == label)[0]
        orbit = _orbit(n, gens, b)
        for w in members.tolist():
            if orbit[w]:
                continue
            tests += 1
            if tests > MAX_TESTS:
                return None
            leaf = _descend(C, _individualise(P_l, w), levels, depth, tables)
            sigma = None
            if leaf is not None:
                candidate = np.empty(n, dtype=np.int64)
                candidate[leaf0] = np.argsort(leaf)   # the point of label x in leaf0 goes to that of x in leaf
                if fixes(candidate, C):
                    sigma = candidate
            if sigma is not None:
                gens.append(sigma)
                orbit = _orbit(n, gens, b)
            elif not complete_below:
                return None
        size = int(np.count_nonzero(orbit))
        order *= size
        complete_below = complete_below and size == members.size
        if progress:
            progress(f"level {depth + 1}: orbit of {size}")
    return [tuple(int(x) for x in g) for g in gens], order


def _descend(C, col, levels, depth, tables):
    """Refine after individualising, then follow the base's choices (the least point of the class
    with the base's label) to a discrete leaf; None where the labels do not match the base."""
    P = refine(C, col, tables)
    for P_l, label, _ in levels[depth + 1:]:
        if P.max() != P_l.max() or not np.array_equal(np.bincount(P), np.bincount(P_l)):
            return None
        members = np.nonzero(P == label)[0]
        if members.size == 0:
            return None
        P = refine(C, _individualise(P, int(members[0])), tables)
    if int(P.max()) + 1 != len(P):
        return None
    return P


def _orbit(n: int, gens: list[np.ndarray], b: int) -> np.ndarray:
    """The orbit of ``b`` under ``gens`` as a boolean mask (one components labelling)."""
    labels = point_orbit_labels(n, gens) if gens else np.arange(n)
    return labels == labels[b]


def coloured_automorphisms(C: np.ndarray, progress=None) -> tuple[list[tuple[int, ...]], int]:
    """Generators and order of the permutations ``sigma`` with ``C[sigma(i), sigma(j)] == C[i, j]``, by BLISS.

    Parameters
    ----------
    C : (n, n) integer colour matrix (equal entries = same colour).
    progress : None, or called with a short description of each step of a long search.

    Returns
    -------
    (generators, order): array forms, and the true order (igraph's exact count).
    """
    C = np.asarray(C)
    n = C.shape[0]
    if n == 0:
        raise GroupError("the graph has no nodes")
    gens, order = _automorphisms(C, progress=progress)
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


def sparse_automorphisms(A) -> tuple[list[tuple[int, ...]], int]:
    """Generators and order of the automorphisms of a scipy.sparse graph, by BLISS, never dense.

    The same layered construction as for a dense colour matrix, built from the stored entries:
    absent entries (and stored zeros) are "no edge", every other value a colour class, the
    diagonal the vertices' colours.  ``O(nnz)`` memory besides BLISS's own.
    """

    n = A.shape[0]
    if n == 0:
        raise GroupError("the graph has no nodes")
    C = A.tocoo()
    keep = C.data != 0
    rows, cols, vals = C.row[keep].astype(np.int64), C.col[keep].astype(np.int64), C.data[keep]
    if rows.size:  # duplicates (an uncoalesced matrix) add up, as they do in A itself
        key = rows * n + cols
        uniq, inverse = np.unique(key, return_inverse=True)
        vals = np.bincount(inverse.ravel(), weights=vals)
        rows, cols = uniq // n, uniq % n
        keep = vals != 0
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    classes = colour_classes(vals) + 1 if vals.size else np.zeros(0, dtype=np.int64)
    loop = rows == cols
    diag = np.zeros(n, dtype=np.int64)
    diag[rows[loop]] = classes[loop]
    src, dst, code = rows[~loop], cols[~loop], classes[~loop]
    # vertex invariants: the diagonal colour and hashes of each vertex's out- and in-colours
    rng = np.random.default_rng(20240601)
    k = int(code.max()) + 1 if code.size else 1
    R1 = rng.integers(1, 2**63 - 1, size=k, dtype=np.uint64)
    R2 = rng.integers(1, 2**63 - 1, size=k, dtype=np.uint64)
    out_hash = np.zeros(n, dtype=np.uint64)
    in_hash = np.zeros(n, dtype=np.uint64)
    np.add.at(out_hash, src, R1[code])
    np.add.at(in_hash, dst, R2[code])
    keys = np.stack([diag.astype(np.uint64), out_hash, in_hash], axis=1)
    _, vertex_class = np.unique(keys, axis=0, return_inverse=True)
    vertex_class = vertex_class.ravel().astype(np.int64)
    n_classes = int(vertex_class.max()) + 1
    if n_classes == n:
        return [], 1
    if not src.size:
        return _class_symmetric_group(vertex_class)
    forward = src * n + dst
    order = np.argsort(forward)
    backward = dst * n + src
    position = np.searchsorted(forward[order], backward)
    position = np.minimum(position, forward.size - 1)
    mirrored = forward[order][position] == backward
    directed = not (np.all(mirrored) and np.array_equal(code[order][position], code))
    if not directed:
        upper = src < dst
        src, dst, code = src[upper], dst[upper], code[upper]
    graph, colours = _layered(n, src, dst, code, directed, vertex_class, n_classes)
    gens = _bliss_generators(graph, colours, n)
    if not all(fixes(g, A) for g in gens[:64]):  # pragma: no cover - a bug, not a user error
        raise RuntimeError("an automorphism from BLISS does not preserve the sparse graph")
    return gens, _count(graph, colours)


def stabiliser_generators(C: np.ndarray, point: int) -> list[tuple[int, ...]]:
    """Generators of the stabiliser of ``point`` in the automorphism group of colour matrix ``C``."""
    gens, _ = _automorphisms(np.asarray(C), fixed=point, count=False)
    return gens
