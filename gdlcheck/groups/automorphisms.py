"""The automorphism group of a weighted, directed graph: which search finds it.

``sigma`` is an automorphism when ``W[sigma(i), sigma(j)] == W[i, j]`` for all ``i, j``: it
keeps every entry's colour (:mod:`~gdlcheck.groups.colours`).  The cheap cases come first
(every vertex told apart by its invariants: only the identity), then whichever of the two
searches reads less: BLISS on the layered graph (:mod:`~gdlcheck.groups.layered`, which also
takes a scipy.sparse graph without densifying it) when that graph is small beside the matrix,
else the numpy search (:mod:`~gdlcheck.groups.refinement`), which reads every entry each round,
within a budget of entries read tied to the layered graph's size, then BLISS.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import GroupError
from gdlcheck.groups.colours import colour_classes, compact, has_edges, vertex_invariants
from gdlcheck.groups.layered import (
    bliss_automorphisms,
    bliss_generators,
    check_layered_size,
    class_symmetric_group,
    count_automorphisms,
    layered,
    layered_edges,
)
from gdlcheck.groups.perm import fixes
from gdlcheck.groups.refinement import refinement_search
from gdlcheck.limits import MAX_LAYERED_EDGES

# Entries the numpy search may read per edge of the layered graph BLISS would get instead.  Measured
# (2026-12-03): a round of refinement costs 16-18 ns an entry, BLISS about 4-5 us an edge of the
# layered graph (Paley graphs, circulants, a random dense regular graph), so a search past its budget
# has cost at most about what BLISS then takes; a Paley graph's search needs 17-21 rounds (at least
# 32 are allowed: a matrix that comes here has more than n^2/4 such edges).
SEARCH_CELLS_PER_EDGE = 128


def _automorphisms(C: np.ndarray, fixed: int | None = None, count: bool = True, progress=None, compacted: bool = False):
    """``(generators, order)`` of the colour matrix's automorphisms (fixing ``fixed``).

    Cheap cases first (every vertex told apart; no edges).  Then, where the layered graph has
    fewer edges than a quarter of the entries (a graph: edges and non-edges), BLISS at once:
    each round of the numpy search reads all ``n^2`` entries, and a graph whose points
    refinement cannot tell apart (a random regular graph, order 1) needs a round or more for
    each of its points.  Otherwise individualisation and refinement in numpy
    (:func:`refinement_search`), within ``SEARCH_CELLS_PER_EDGE`` entries read per edge of the
    layered graph, then BLISS within its edge budget.  ``compacted``: the colours are
    ``0..k-1`` already (:func:`compact` would return ``C``; it costs a pass over the entries).
    """
    n = C.shape[0]
    if fixed is None and n > 1:
        K = C if compacted else compact(C)
        vertex_class = vertex_invariants(K)
        if int(vertex_class.max()) + 1 == n:  # every vertex told apart: only the identity
            return [], 1
        if has_edges(C):
            edges = layered_edges(K, sample=64)  # a dense matrix is told at once, without a pass
            if edges * 4 <= n * n and edges <= MAX_LAYERED_EDGES:
                edges = layered_edges(K)
                if edges * 4 <= n * n and edges <= MAX_LAYERED_EDGES:
                    return bliss_automorphisms(C, fixed, count)
            found = refinement_search(K, progress=progress, compacted=True, max_cells=SEARCH_CELLS_PER_EDGE * edges)
            if found is not None:
                return found
            check_layered_size(C)
    return bliss_automorphisms(C, fixed, count)


def coloured_automorphisms(C: np.ndarray, progress=None, compacted: bool = False) -> tuple[list[tuple[int, ...]], int]:
    """Generators and order of the permutations ``sigma`` with ``C[sigma(i), sigma(j)] == C[i, j]``, by BLISS.

    Parameters
    ----------
    C : (n, n) integer colour matrix (equal entries = same colour).
    progress : None, or called with a short description of each step of a long search.
    compacted : the colours are ``0..k-1``, each present (:func:`colour_classes`' labels), so
        they need no renumbering.

    Returns
    -------
    (generators, order): array forms, and the true order (igraph's exact count).
    """
    C = np.asarray(C)
    n = C.shape[0]
    if n == 0:
        raise GroupError("the graph has no nodes")
    gens, order = _automorphisms(C, progress=progress, compacted=compacted)
    if len(gens) * n * n <= 1 << 24:
        # cheap insurance that the layering kept every colour: each generator must fix C
        if not all(fixes(g, C) for g in gens):  # pragma: no cover - a bug, not a user error
            raise RuntimeError("an automorphism from BLISS does not preserve the colour matrix")
    return gens, order


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
        return class_symmetric_group(vertex_class)
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
    graph, colours = layered(n, src, dst, code, directed, vertex_class, n_classes)
    gens = bliss_generators(graph, colours, n)
    if not all(fixes(g, A) for g in gens[:64]):  # pragma: no cover - a bug, not a user error
        raise RuntimeError("an automorphism from BLISS does not preserve the sparse graph")
    return gens, count_automorphisms(graph, colours)


def stabiliser_generators(C: np.ndarray, point: int) -> list[tuple[int, ...]]:
    """Generators of the stabiliser of ``point`` in the automorphism group of colour matrix ``C``."""
    gens, _ = _automorphisms(np.asarray(C), fixed=point, count=False)
    return gens
