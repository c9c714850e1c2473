"""Colours of a matrix's entries and of its points, the automorphism searches' input.

An automorphism of a weighted, directed graph keeps each entry's value; the searches see
values as colour classes (:func:`colour_classes`: equal values, or values within a
tolerance, share a class) and start from vertex colours every automorphism keeps
(:func:`vertex_invariants`).
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.errors import GroupError


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
        # few distinct values: each entry looked up in a hash table of their bit patterns
        _hashed_labels(flat, uniq, cluster, labels)
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


# Fibonacci hashing of a float64's bits (odd constants near 2^64 / golden ratio), one per level of
# a _BitTable
_HASHES = tuple(
    np.uint64(h)
    for h in (
        0x9E3779B97F4A7C15,
        0xC2B2AE3D27D4EB4F,
        0x165667B19E3779F9,
        0xD6E8FEB86659FD93,
        0xFF51AFD7ED558CCD,
        0xC4CEB9FE1A85EC53,
    )
)
_SHARED = -2  # a slot two values share: they are found in the next level


class _BitTable:
    """A hash table of distinct float64 values by their bit patterns: :meth:`find` gives each value's
    index among them, or -1 where the bits cannot tell (other bits for an equal value: ``-0.0``
    where the table holds ``0.0``; a value not among them; or a slot shared at every level).  A few
    passes per lookup, where a binary search takes ~log2(k) dependent steps per value.

    Values that share a slot go to a further table with another hash, and so on: a quarter of the
    slots used still puts about one value in nine in a shared slot, which a single table would
    leave to the binary search (or, for :func:`_distinct_by_sample`, count as missed)."""

    def __init__(self, uniq: np.ndarray):
        keys = np.ascontiguousarray(uniq, dtype=np.float64).view(np.uint64)
        which = np.arange(uniq.size)
        self.levels = []  # (hash, shift, keys by slot, index by slot)
        for mult in _HASHES:
            if keys.size == 0:
                break
            bits_of = int(keys.size).bit_length() + 2  # 2^bits slots, at most a quarter used
            shift = np.uint64(64 - bits_of)
            slots = (keys * mult) >> shift
            shared = np.bincount(slots.astype(np.intp), minlength=1 << bits_of) > 1
            table = np.zeros(1 << bits_of, dtype=np.uint64)
            table[slots] = keys
            index = np.full(1 << bits_of, -1, dtype=np.int32 if uniq.size < 2**31 else np.int64)
            index[slots] = which
            index[shared] = _SHARED
            self.levels.append((mult, shift, table, index))
            again = shared[slots]
            keys, which = keys[again], which[again]
        if keys.size:  # shared at every level (not met in practice): the caller's search decides
            self.levels[-1][3][self.levels[-1][3] == _SHARED] = -1

    def find(self, values: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(values).view(np.uint64)
        found = None
        at = None  # positions (in values) still to look up, None: all
        for mult, shift, table, index in self.levels:
            where = np.multiply(bits, mult)
            np.right_shift(where, shift, out=where)
            here = index.take(where)
            other = np.not_equal(table.take(where), bits)
            other &= here >= 0
            here[other] = -1
            if found is None:
                found = here
            else:
                found[at] = here
            later = np.nonzero(here == _SHARED)[0]
            if later.size == 0:
                break
            at = later if at is None else at[later]
            bits = bits[later]
        if found is None:  # no level: an empty table finds nothing
            return np.full(bits.shape, -1, dtype=np.int32)
        return found


_BLOCK = 1 << 20  # entries looked up at a time: the temporaries stay small


def _hashed_labels(flat: np.ndarray, uniq: np.ndarray, cluster: np.ndarray, labels: np.ndarray) -> None:
    """``labels = cluster[searchsorted(uniq, flat)]`` for values that all appear in ``uniq``, by a
    :class:`_BitTable`; what it cannot tell is found by the binary search, so the labels are the
    search's exactly."""
    table = _BitTable(uniq)
    for s0 in range(0, flat.size, _BLOCK):
        values = flat[s0 : s0 + _BLOCK]
        found = table.find(values)
        miss = found < 0
        if miss.any():
            found[miss] = np.searchsorted(uniq, values[miss])
        labels[s0 : s0 + _BLOCK] = cluster[found]


def value_classes(flat: np.ndarray, tol: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values and the class of each (greedy cut within ``tol``, see
    :func:`colour_classes`); one sort of the values."""
    return _classes(_sorted_distinct(flat), tol)


def value_labels(values: np.ndarray, tol: float = 0.0):
    """``(uniq, cluster, labels)``: :func:`value_classes` of ``values``, and their
    :func:`colour_classes` where they come with the distinct values (a large array of few
    distinct values: every entry was looked up to find them), else None (then ask
    :func:`colour_classes` with ``classes=(uniq, cluster)`` if they are needed)."""
    flat = np.asarray(values, dtype=float).ravel()
    found = _distinct_by_sample(flat, index=True) if flat.size > 4 * SAMPLE else None
    uniq, index = found if found is not None else (_sort_distinct(flat), None)
    uniq, cluster = _classes(uniq, tol)
    if index is None:
        return uniq, cluster, None
    if cluster[-1] + 1 != uniq.size:  # a class holds several values: label the entries by class
        cluster32 = cluster.astype(index.dtype)
        for s0 in range(0, index.size, _BLOCK):
            index[s0 : s0 + _BLOCK] = cluster32[index[s0 : s0 + _BLOCK]]
    return uniq, cluster, index.reshape(np.shape(values))


def _classes(uniq: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """The greedy cut of the sorted distinct values ``uniq`` within ``tol`` (see :func:`colour_classes`)."""
    if not (np.isfinite(uniq[0]) and np.isfinite(uniq[-1])):  # sorted: NaN and inf sort to the ends
        raise GroupError("the matrix holds NaN or infinite entries; a colour needs a finite number")
    if not (tol > 0 and uniq.size > 1):
        return uniq, np.arange(uniq.size, dtype=np.int64)
    top = max(abs(float(uniq[0])), abs(float(uniq[-1])))  # sorted: the largest |value| is at an end
    e = math.frexp(top)[1] if top > 0 else 0
    width = tol * math.ldexp(top, -e)
    starts = np.zeros(uniq.size, dtype=bool)
    starts[0] = True
    step = 1 << 20  # gaps a block at a time: a matrix of distinct entries has n^2 values
    with np.errstate(over="ignore"):
        for s0 in range(0, uniq.size - 1, step):
            gap = np.ldexp(np.diff(uniq[s0 : s0 + step + 1]), -e)  # exact: scaling by a power of two
            starts[s0 + 1 : s0 + 1 + gap.size] = gap > width
    _split_long_runs(uniq, starts, e, width)
    cluster = np.cumsum(starts, dtype=np.int32 if uniq.size < 2**31 else np.int64)
    cluster -= 1
    return uniq, cluster


# entries of the sample the distinct values are first read from (twice this many: the first ones,
# and a stride through all)
SAMPLE = 1 << 16


def _sorted_distinct(flat: np.ndarray) -> np.ndarray:
    """``np.unique(flat)`` in about twice the memory of ``flat`` (numpy's own takes 3.5x); for a
    large matrix of few distinct values (a layer's tied weights), without sorting its entries."""
    found = _distinct_by_sample(flat) if flat.size > 4 * SAMPLE else None
    return found[0] if found is not None else _sort_distinct(flat)


def _distinct_by_sample(flat: np.ndarray, index: bool = False):
    """``(distinct values, where)``: the distinct values of a sample (the first entries and a
    stride through all), then every entry looked up among them (:class:`_BitTable`) and the few it
    misses added; None where the sample holds many distinct values or misses many entries (the
    sort is then the way).  With ``index``, ``where`` is each entry's index among the distinct
    values (int32) where the sample missed none, else None."""
    sample = _sort_distinct(np.concatenate([flat[:SAMPLE], flat[:: flat.size // SAMPLE]]))
    if sample.size > SAMPLE // 4:
        return None
    table = _BitTable(sample)
    where = np.empty(flat.size, dtype=np.int32) if index else None
    misses, missed = [], 0
    for s0 in range(0, flat.size, _BLOCK):
        values = flat[s0 : s0 + _BLOCK]
        found = table.find(values)
        out = values[found < 0]
        missed += out.size
        if missed > flat.size // 64:
            return None
        if out.size:
            misses.append(out)
        elif where is not None and not misses:
            where[s0 : s0 + _BLOCK] = found
    if misses:
        return _sort_distinct(np.concatenate([sample, *misses])), None
    return sample, where


def _sort_distinct(flat: np.ndarray) -> np.ndarray:
    """The sorted distinct values, by one sort."""
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
        block = C[start : start + step]
        rows[start : start + step] = R1[block].sum(axis=1, dtype=np.uint64)
        cols += R2[block].sum(axis=0, dtype=np.uint64)
    keys = np.stack([np.diag(C).astype(np.uint64), rows, cols, np.zeros(n, dtype=np.uint64)], axis=1)
    if fixed is not None:
        keys[fixed, 3] = 1
    _, classes = np.unique(keys, axis=0, return_inverse=True)
    return classes.ravel().astype(np.int64)


def compact(values: np.ndarray) -> np.ndarray:
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


def has_edges(C: np.ndarray) -> bool:
    """Whether the off-diagonal entries hold more than one colour (else: no edges at all).

    Rows are compared with one off-diagonal colour a block at a time, and the first block with
    another off its diagonal answers (most matrices: the first row)."""
    n = C.shape[0]
    if n < 3:
        return n == 2 and C[0, 1] != C[1, 0]
    first = C[0, 1]
    step = max(1, (1 << 16) // n)
    for start in range(0, n, step):
        block = C[start : start + step]
        other = block != first
        rows = np.arange(start, start + block.shape[0])
        other[rows - start, rows] = False  # the diagonal is not an edge
        if other.any():
            return True
    return False
