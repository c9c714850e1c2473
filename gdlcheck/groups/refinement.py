"""Automorphisms of a colour matrix by individualisation and refinement, in numpy.

Individualisation and refinement, as BLISS and nauty do it, on the colour matrix itself in
numpy: no graph with an edge per entry.  A partition of the points is refined until stable
(each point's new colour: its colour and hashes of the multisets of (entry colour, point
colour) along its row and its column; labels are ranks of those keys, so the refinement
commutes with every relabelling of the points).  Base points are individualised until the
partition is discrete; an automorphism mapping the base to other points is the map between
two discrete leaves, verified on the whole matrix.  Only conclusive searches are kept: where a
failed leaf does not prove that no automorphism exists, the search gives up (None) and BLISS
decides.  A regular group (a circulant of distinct values: the cyclic group) costs three
refinements, each O(n^2) array work.

Each round of refinement reads every entry, so the search is given a budget of entries read
(``max_cells``, a count, never seconds), besides its caps on base points and leaves: a graph
with no automorphism but the identity whose points the refinement cannot tell apart (a random
regular graph) needs a failed leaf for every point of a class, each leaf rounds of O(n^2),
and past the budget the search gives up (None) and BLISS decides.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.groups.colours import compact
from gdlcheck.groups.components import point_orbit_labels
from gdlcheck.groups.perm import fixes

MAX_BASE = 24  # base points tried before the search leaves the matrix to BLISS
MAX_TESTS = 4096  # leaves tried in all


class OverBudget(Exception):
    """The search read more entries than its budget allows: it gives up (not an error)."""


class Budget:
    """Entries the refinement may still read (None: no limit); each round spends ``n * n``."""

    def __init__(self, cells: int | None):
        self.left = cells

    def spend(self, cells: int) -> None:
        if self.left is not None:
            self.left -= cells
            if self.left < 0:
                raise OverBudget


def _hash_tables(size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(1, 2**63 - 1, size=size, dtype=np.uint64) | np.uint64(1)


def refine(C: np.ndarray, col: np.ndarray, tables, budget: Budget | None = None) -> np.ndarray:
    """The coarsest stable refinement of the point colouring ``col`` (labels 0..k-1, canonical).
    Each round reads every entry once and spends that from ``budget`` (:class:`OverBudget` past it)."""
    n = C.shape[0]
    entry_out, entry_in, vertex = tables
    k = int(col.max()) + 1
    step = max(1, (1 << 18) // max(n, 1))
    while True:
        if budget is not None:
            budget.spend(n * n)
        bv = vertex[col]
        out = np.empty(n, dtype=np.uint64)
        inn = np.zeros(n, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for start in range(0, n, step):
                block = C[start : start + step]
                out[start : start + step] = (entry_out[block] * bv[None, :]).sum(axis=1, dtype=np.uint64)
                inn += (entry_in[block] * bv[start : start + step, None]).sum(axis=0, dtype=np.uint64)
        keys = np.stack([col.astype(np.uint64), out, inn], axis=1)
        _, new = np.unique(keys, axis=0, return_inverse=True)
        new = new.ravel().astype(np.int64)
        classes = int(new.max()) + 1
        # no class split, or every point alone (a discrete colouring cannot split again, and the
        # round that would confirm it numbers the points as they are now)
        if classes == k or classes == n:
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


def refinement_search(C: np.ndarray, progress=None, compacted: bool = False, max_cells: int | None = None):
    """``(generators, order)`` of the automorphisms of the colour matrix ``C`` by
    individualisation and refinement, or None where it is not conclusive or would read more
    than ``max_cells`` entries in all (see above).  ``compacted``: the colours are ``0..k-1``
    already."""
    try:
        return _search(C, progress, compacted, Budget(max_cells))
    except OverBudget:
        if progress:
            progress("refinement past its budget")
        return None


def _search(C: np.ndarray, progress, compacted: bool, budget: Budget):
    n = C.shape[0]
    if not compacted:
        C = compact(C)
    k = int(C.max()) + 1
    tables = (_hash_tables(k, 11), _hash_tables(k, 12), _hash_tables(n + MAX_BASE + 2, 13))
    start = refine(C, compact(np.diag(C)).astype(np.int64), tables, budget)
    # the base: individualise the least point of the first smallest class until discrete
    levels: list[tuple[np.ndarray, int, int]] = []  # (partition before, target label, base point)
    P = start
    while True:
        label = _target_class(P)
        if label < 0:
            break
        if len(levels) >= MAX_BASE:
            return None
        b = int(np.nonzero(P == label)[0][0])
        levels.append((P, label, b))
        P = refine(C, _individualise(P, b), tables, budget)
        if progress:
            progress(f"base point {len(levels)}")
    leaf0 = np.argsort(P)  # leaf0[label] = point
    gens: list[np.ndarray] = []
    order = 1
    tests = 0
    complete_below = True  # every deeper level's class is one orbit: a failed leaf is conclusive
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
            leaf = _descend(C, _individualise(P_l, w), levels, depth, tables, budget)
            sigma = None
            if leaf is not None:
                candidate = np.empty(n, dtype=np.int64)
                candidate[leaf0] = np.argsort(leaf)  # the point of label x in leaf0 goes to that of x in leaf
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


def _descend(C, col, levels, depth, tables, budget):
    """Refine after individualising, then follow the base's choices (the least point of the class
    with the base's label) to a discrete leaf; None where the labels do not match the base."""
    P = refine(C, col, tables, budget)
    for P_l, label, _ in levels[depth + 1 :]:
        if P.max() != P_l.max() or not np.array_equal(np.bincount(P), np.bincount(P_l)):
            return None
        members = np.nonzero(P == label)[0]
        if members.size == 0:
            return None
        P = refine(C, _individualise(P, int(members[0])), tables, budget)
    if int(P.max()) + 1 != len(P):
        return None
    return P


def _orbit(n: int, gens: list[np.ndarray], b: int) -> np.ndarray:
    """The orbit of ``b`` under ``gens`` as a boolean mask (one components labelling)."""
    labels = point_orbit_labels(n, gens) if gens else np.arange(n)
    return labels == labels[b]
