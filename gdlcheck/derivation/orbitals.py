"""Orbits on index tuples through point stabilisers: the pattern of any order, for any group,
in work linear in the cells times the generators (the 1 -> 1 pattern is the orbitals).

Cell ``(i1, y)`` (``y`` the other ``m - 1`` indices) lies in the orbit of ``(r, t^-1(y))``,
``r`` the least point of ``i1``'s orbit and ``t`` a transversal element mapping ``r`` to
``i1``; two cells ``(r, x)`` and ``(r, y)`` are in one orbit exactly when ``x`` and ``y`` are
in one orbit of the stabiliser ``G_r`` on ``[n]^(m-1)``.  So the orbits on ``[n]^m`` come from
the orbits of a stabiliser on one index fewer, recursively; the whole pattern is then written
once, a gather per cell.  Small levels (``cells x generators`` up to ``_SMALL``) are labelled
directly as the components of ``cell -- g(cell)``.  The components method over all cells
(:func:`~gdlcheck.derivation.cells.orbit_labels`) stays as the reference the tests compare with.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.derivation.cells import check_cells, first_appearance
from gdlcheck.groups import PermGroup
from gdlcheck.groups.automorphisms import stabiliser_generators
from gdlcheck.groups.components import label_components, merge_along

# Cells per block when a pattern is written or checked: small temporaries, few Python steps.
_BLOCK_CELLS = 1 << 16


def _generator_stack(group: PermGroup) -> np.ndarray:
    n = group.n
    gens = [g for g in group.gen_arrays() if not np.array_equal(g, np.arange(n))]
    return np.stack(gens).astype(np.int32) if gens else np.zeros((0, n), dtype=np.int32)


def _transversal(n: int, G: np.ndarray):
    """Point orbits and a transversal: ``T[i]`` maps the orbit's least point ``r`` to ``i``.

    Returns ``(orbit_of, reps, T, tree)``: ``orbit_of[i]`` the orbit's number, ``reps`` the
    least points (increasing), ``T`` an ``n x n`` int32 array, ``T[r] = identity``, and
    ``tree[i, k]`` whether ``T[G[k][i]]`` was made as ``T[i]`` then ``G[k]`` (its Schreier
    generator is the identity).  Breadth-first from every least point at once (the orbits are
    disjoint), one array step per level for all generators ``G`` (rows) together.
    """
    least = _least_in_orbit(n, G)
    reps = np.flatnonzero(least == np.arange(n))
    orbit_of = np.searchsorted(reps, least)
    T = np.empty((n, n), dtype=np.int32)
    T[reps] = np.arange(n, dtype=np.int32)
    seen = np.zeros(n, dtype=bool)
    seen[reps] = True
    tree = np.zeros((n, len(G)), dtype=bool)
    frontier = reps
    while frontier.size:
        img = G[:, frontier].ravel()  # generator-major
        which = np.repeat(np.arange(len(G)), frontier.size)
        src = np.tile(frontier, len(G))
        fresh = ~seen[img]
        img, which, src = img[fresh], which[fresh], src[fresh]
        img, first = np.unique(img, return_index=True)
        which, src = which[first], src[first]
        seen[img] = True
        tree[src, which] = True
        T[img] = G[which[:, None], T[src]]  # then(t_src, s): t_src first, then s
        frontier = img
    return orbit_of, reps, T, tree


def _least_in_orbit(n: int, G: np.ndarray) -> np.ndarray:
    """The least point of each point's orbit (the components of ``i -- g(i)``)."""
    parent = np.arange(n, dtype=np.intp)
    if not len(G):
        return parent
    if n * len(G) <= _SMALL:  # all generators as one block of edges: few Python steps
        points = np.tile(parent, len(G))
        return label_components(parent, lambda: [(points, G.ravel().astype(np.intp))])
    G = G.astype(np.intp)
    return label_components(parent, lambda: ((slice(None), g) for g in G))


def _numbered(least: np.ndarray) -> np.ndarray:
    """Labels ``0, 1, ..`` from each node's least node (roots numbered in increasing order)."""
    return (np.cumsum(least == np.arange(least.size)) - 1).astype(np.int32)[least]


def _inverse_rows(T: np.ndarray) -> np.ndarray:
    n = T.shape[1]
    Tinv = np.empty_like(T)
    ident = np.arange(n, dtype=np.int32)
    for start in range(0, len(T), 256):  # in row blocks: the index arrays stay small
        rows = np.arange(start, min(start + 256, len(T)))
        Tinv[rows[:, None], T[rows]] = ident[None, :]
    return Tinv


class _SchreierSample:
    """Seeded samples of the Schreier generators ``t_(s(i))^-1 s t_i`` of each stabiliser ``G_r``.

    For each orbit (representative ``r``), the pairs ``(i, s)`` (``i`` in the orbit, ``s`` a
    generator) in a seeded order, less the transversal's own tree (whose generators are the
    identity: ``n - 1`` of the pairs); :meth:`rows` makes the generators of the pairs
    ``[start, stop)`` of one orbit.  Only ``T^-1`` is kept: the rows of ``T`` a sample needs
    are inverted back from it.
    """

    def __init__(self, G: np.ndarray, orbit_of: np.ndarray, Tinv: np.ndarray, tree: np.ndarray, seed: int):
        self.G, self.Tinv = G, Tinv
        rng = np.random.default_rng(seed)
        points, which = np.nonzero(~tree)  # point-major, so grouped by orbit below
        by_orbit = np.argsort(orbit_of[points], kind="stable")
        pairs = np.stack([points[by_orbit], which[by_orbit]], axis=1)
        bounds = np.searchsorted(orbit_of[pairs[:, 0]], np.arange(int(orbit_of.max()) + 2 if orbit_of.size else 1))
        self.pairs = [rng.permutation(pairs[bounds[a] : bounds[a + 1]]) for a in range(len(bounds) - 1)]

    def rows(self, a: int, start: int, stop: int) -> np.ndarray:
        chunk = self.pairs[a][start:stop]
        pts, which = chunk[:, 0], chunk[:, 1]
        n = self.Tinv.shape[1]
        T_pts = np.empty((len(pts), n), dtype=np.int32)
        T_pts[np.arange(len(pts))[:, None], self.Tinv[pts]] = np.arange(n, dtype=np.int32)[None, :]
        # Schreier generator for (i, s): t_(s(i))^-1 after s after t_i; it fixes r
        return self.Tinv[self.G[which, pts][:, None], self.G[which[:, None], T_pts]]


def orbitals(group: PermGroup, seed: int = 0) -> np.ndarray:
    """The 1 -> 1 pattern of any group in ``O(n^2)`` array work; equal to ``orbit_labels(group, 2)``.

    Cell ``(i, j)`` lies in the orbit of ``(r, t_i^-1(j))``, ``r`` the least point of ``i``'s
    orbit and ``t_i`` a transversal element; two such cells ``(r, x)``, ``(r, y)`` are in one
    orbit exactly when ``x, y`` are in one orbit of the stabiliser ``G_r``.  For a graph's
    automorphism group the stabilisers come exactly from BLISS (the point ``r`` coloured
    apart); otherwise from Schreier generators, as :func:`tuple_orbits` does at any order.
    """
    n = group.n
    check_cells(n, 2)
    G = _generator_stack(group)
    if group.graph is None or not len(G):
        return _orbits(n, G, 2, seed).reshape(n, n)
    orbit_of, reps, T, _ = _transversal(n, G)
    if len(reps) > _MAX_BLISS_ORBITS:
        del T
        return _orbits(n, G, 2, seed).reshape(n, n)
    # T, T^-1 and the pattern are n x n each, and never more than two live at once
    Tinv = _inverse_rows(T)
    del T
    exact = [np.array(stabiliser_generators(group.graph, int(r)), dtype=np.int32).reshape(-1, n) for r in reps]
    return _orbitals_from([merge_along(np.arange(n, dtype=np.int32), sigma) for sigma in exact], orbit_of, Tinv, n)


def _orbitals_from(comps, orbit_of, Tinv, n: int) -> np.ndarray:
    """The 1 -> 1 pattern from the stabiliser orbits of each representative (``comps[a][x]``)."""
    k = len(comps)
    comp = (
        np.concatenate([np.asarray(c, dtype=np.int64) + a * n for a, c in enumerate(comps)])
        if k
        else np.zeros(0, dtype=np.int64)
    )
    # node (a, x) is cell (reps[a], x) (T[r] is the identity): node order is the row-major
    # order of the rows holding every orbit's first cell, so first appearance over the nodes
    # numbers the orbits as the reference method does
    remap = first_appearance(comp).astype(np.int32)
    offset = (orbit_of * n).astype(np.int32)
    pattern = np.empty(Tinv.shape, dtype=np.int32)
    for start in range(0, n, 256):  # in row blocks: no n x n int64 temporary
        stop = min(start + 256, n)
        pattern[start:stop] = remap[Tinv[start:stop] + offset[start:stop, None]]
    return pattern


# Individualising a point costs one BLISS run per point orbit; past this many orbits the
# Schreier sample is cheaper.
_MAX_BLISS_ORBITS = 64


# --------------------------------------------------------------------------- any order


def tuple_orbits(group: PermGroup, order: int, seed: int = 0) -> np.ndarray:
    """Orbits of ``group`` on ``[n]^order``, numbered by their first cell in row-major order.

    Equal to :func:`~gdlcheck.derivation.cells.orbit_labels` (the reference method), in work
    linear in the cells whatever the generators.  Order 1 is the point orbits; order ``m``
    comes from the orbits of each stabiliser ``G_r`` (``r`` the least point of a point orbit)
    on ``[n]^(m-1)``, recursively, written into the pattern with one gather per cell.

    ``G_r`` starts as a seeded sample of its Schreier generators ``t_(s(i))^-1 s t_i``
    (duplicates and the identity dropped).  Every other Schreier generator is then applied to
    the sample's orbits: the orbits are ``G_r``'s exactly when none of them moves a cell to
    another orbit (the Schreier generators generate ``G_r``); one that does joins the sample,
    which only makes the orbits coarser, so the generators already passed stay passed.  So
    the work at order ``m`` is the pattern plus one gather per cell and generator, and the
    result is exact whatever the sample: the orbits are the orbits, numbered by first cell.
    Memory: the int32 pattern, one labelling of ``n^(m-1)`` cells per distinct stabiliser
    sample (every fixed point has the whole group: one), and an ``n x n`` transversal.

    >>> from gdlcheck.derivation.cells import orbit_labels
    >>> g = PermGroup("generated", 5, ((1, 2, 0, 4, 3),))
    >>> bool(np.array_equal(tuple_orbits(g, 3), orbit_labels(g, 3)))
    True
    """
    n = group.n
    check_cells(n, order)
    if order == 2:
        return orbitals(group, seed)
    if order == 0:
        return np.zeros((), dtype=np.int32)
    return _orbits(n, _generator_stack(group), order, seed).reshape((n,) * order)


def _orbits(n: int, G: np.ndarray, order: int, seed: int) -> np.ndarray:
    """:func:`tuple_orbits` (flat) of the group generated by the rows of ``G`` (no identity rows)."""
    cells = n**order
    if not len(G):
        return np.arange(cells, dtype=np.int32)
    if order == 1:
        return _numbered(_least_in_orbit(n, G))
    if cells * len(G) <= _SMALL:
        # directly, where the stabilisers' bookkeeping would cost more in Python: the
        # components of cell -- g(cell) for two generators, then the others applied to those
        # orbits and joined where they leave them (many generators of a sample are redundant)
        images = _flat_images(G, order)
        u = np.tile(np.arange(cells, dtype=np.intp), min(2, len(G)))
        sub = _numbered(label_components(np.arange(cells, dtype=np.intp), lambda: [(u, images[:2].ravel())]))
        images = sub[images[2:]]
        moving = np.any(images != sub, axis=1)
        return _joined(sub, images[moving]) if moving.any() else sub
    orbit_of, reps, T, tree = _transversal(n, G)
    Tinv = _inverse_rows(T)
    del T
    sample = _SchreierSample(G, orbit_of, Tinv, tree, seed)
    # a stabiliser with few Schreier generators takes them all, and needs no certification; a
    # set already labelled is shared (every fixed point's is the whole group's generators)
    exhaustive: dict[bytes, np.ndarray] = {}
    subs = []
    for a in range(len(reps)):
        pairs = len(sample.pairs[a])
        if pairs <= _FIRST_SAMPLE:
            gens = _distinct(sample.rows(a, 0, pairs), n)
            key = gens.tobytes()
            if key not in exhaustive:
                exhaustive[key] = _orbits(n, gens, order - 1, seed)
            subs.append(exhaustive[key])
            continue
        first = _FIRST_SAMPLE
        gens = _distinct(sample.rows(a, 0, first), n)
        sub = _orbits(n, gens, order - 1, seed)
        step = max(1, _BLOCK_CELLS // sub.size)
        for start in range(first, pairs, step):
            images = _images(sub, sample.rows(a, start, min(start + step, pairs)), order - 1)
            moving = np.any(images != sub, axis=1)
            if moving.any():
                sub = _joined(sub, images[moving])
        subs.append(sub)
    # orbits whose first cell is in row reps[a] come after those of the rows before it
    counts = np.array([int(s.max()) + 1 for s in subs], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return _write_pattern(subs, offsets, orbit_of, Tinv, order)


# Schreier generators in a stabiliser's first sample (the others are checked against its orbits).
_FIRST_SAMPLE = 32
# Cells x generators up to which the components of the cells are labelled directly.
_SMALL = 1 << 20


def _distinct(rows: np.ndarray, n: int) -> np.ndarray:
    """The distinct rows other than the identity, sorted by their bytes (a canonical generating set)."""
    rows = np.ascontiguousarray(rows, dtype=np.int32)
    rows = rows[~np.all(rows == np.arange(n, dtype=np.int32), axis=1)]
    if len(rows) > 1:
        keys = rows.view(np.dtype((np.void, 4 * n))).ravel()
        _, first = np.unique(keys, return_index=True)
        rows = rows[first]
    return rows


def _flat_images(rows: np.ndarray, order: int) -> np.ndarray:
    """For each permutation in ``rows`` (``C x n``), the flat row-major index of
    ``(p[i1], .., p[im])`` for every cell ``(i1, .., im)``: ``C x n^order``, intp.

    Built an index at a time (``flat * n + p``): about one multiply-add per cell.
    """
    C, n = rows.shape
    p = rows.astype(np.intp)
    flat = p
    for _ in range(order - 1):
        flat = (flat[:, :, None] * n + p[:, None, :]).reshape(C, -1)
    return flat


def _moved(sub: np.ndarray, p: np.ndarray, order: int, out=None) -> np.ndarray:
    """``sub[(p[i1], .., p[im])]`` for every cell, flat: the labelling read through ``p``.

    Two gathers: whole rows of the last index (``n`` labels each) through the image of the
    first ``m - 1`` indices, then within the rows through ``p``; no index per cell.
    """
    n = len(p)
    if order == 1:
        return np.take(sub, p, out=out)
    rows = np.take(sub.reshape(-1, n), _flat_images(p[None, :], order - 1)[0], axis=0)
    return np.take(rows, p, axis=1, out=None if out is None else out.reshape(-1, n)).reshape(-1)


def _images(sub: np.ndarray, rows: np.ndarray, order: int) -> np.ndarray:
    """``sub`` read through each permutation in ``rows``: ``C x n^order``; a row equals ``sub``
    exactly when that permutation maps every cell into its own orbit."""
    if order == 1:
        return sub[rows]
    if not len(rows):
        return np.empty((0, sub.size), dtype=sub.dtype)
    return np.stack([_moved(sub, p, order) for p in rows])


def _joined(sub: np.ndarray, images: np.ndarray) -> np.ndarray:
    """The orbits of a sample with more generators: the old orbits (``sub``) joined along the
    new generators (``images``, ``sub`` read through each), a components labelling on the
    orbits with one edge per cell that leaves its orbit."""
    leaves = images != sub
    u = np.broadcast_to(sub, images.shape)[leaves].astype(np.int64)
    v = images[leaves].astype(np.int64)
    # each joined orbit keeps its least label, the one of its first cell: numbered in that order
    return _numbered(label_components(np.arange(int(sub.max()) + 1, dtype=np.int64), lambda: [(u, v)]))[sub]


def _write_pattern(subs, offsets, orbit_of, Tinv, order: int) -> np.ndarray:
    """``pattern[i1, y] = offsets[a] + subs[a][t_i1^-1 (y)]``, ``a`` the orbit of ``i1`` (flat)."""
    n = Tinv.shape[1]
    pattern = np.empty((n, n ** (order - 1)), dtype=np.int32)
    first = np.zeros(n, dtype=bool)
    first[np.unique(orbit_of, return_index=True)[1]] = True  # the least points: T^-1 is the identity
    for i in range(n):
        a = int(orbit_of[i])
        row = pattern[i]
        if first[i]:
            np.copyto(row, subs[a])
        else:
            _moved(subs[a], Tinv[i], order - 1, out=row)
        if offsets[a]:
            row += np.int32(offsets[a])
    return pattern.ravel()
