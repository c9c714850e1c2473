"""Index cells of a derivation: the budget, writing a pattern block by block, and the
reference method (orbits of the group on ``[n]^m`` as connected components).

A linear map from order-``k`` tensors to order-``l`` tensors on ``n`` points commutes with a
permutation group exactly when it is constant on each orbit of the group acting on the
index tuples ``[n]^(l+k)`` (output indices first).  The reference method labels those
orbits directly: ``O(generators x n^(l+k))`` work per round of the components kernel, never
a null space of an ``n^2 x n^2`` system.  Every faster path (closed forms, the orbits through
point stabilisers that derive uses for any other group) gives exactly its pattern, and tests
compare them.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.groups.components import label_components
from gdlcheck.limits import MAX_CELLS

# The basis array (int8) may hold this many entries: dimension x n^(l+k).
MAX_BASIS_ENTRIES = 4 * MAX_CELLS
# Cells per block when a pattern is written in pieces: small temporaries, few Python steps.
_BLOCK_CELLS = 1 << 16


def check_cells(n: int, order: int, what: str = "derivation") -> int:
    """Refuse a pattern of more than MAX_CELLS index tuples, stating the estimate."""
    cells = n**order
    if cells > MAX_CELLS:
        raise LimitError(
            f"the {what} has n^{order} = {n}^{order} = {cells:.3g} index cells "
            f"(the pattern alone needs {cells * 4 / 2**30:.3g} GiB as int32, the orbit search about 4x that), "
            f"over the limit of {MAX_CELLS} cells; the text report of a closed form (cyclic, dihedral, "
            "symmetric, translations, p4, p4m) needs no pattern"
        )
    return cells


def check_count(count: int, what: str) -> None:
    if count > MAX_CELLS:
        raise LimitError(
            f"{count:.3g} {what} are over the limit of {MAX_CELLS}; the text report prints the form without them"
        )


def full_labels(label, n: int, order: int) -> np.ndarray:
    """The whole pattern of a closed form, written block by block of the first index.

    Index arrays are int32 and each block's temporaries stay near ``_BLOCK_CELLS`` cells, so
    the peak stays close to the int32 pattern itself (docs/design.md section 7: within 4x).
    """
    if order == 0:
        return np.asarray(label(), dtype=np.int32).reshape(())
    itype = np.int32 if n < 2**31 else np.int64
    idx = [np.arange(n, dtype=itype).reshape([n if a == b else 1 for b in range(order)]) for a in range(order)]
    out = np.empty((n,) * order, dtype=np.int32)
    step = max(1, _BLOCK_CELLS // max(1, n ** (order - 1)))
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = label(idx[0][start:stop], *idx[1:])
        out[start:stop] = np.broadcast_to(block, (stop - start,) + (n,) * (order - 1))
    return out


# --------------------------------------------------------------------------- reference method


def orbit_labels(group: PermGroup, order: int) -> np.ndarray:
    """Orbits of ``group`` on ``[n]^order`` as connected components, numbered by first appearance.

    The reference method.  Returns an int32 array of shape ``(n,) * order``; cell
    ``(i1, .., im)`` holds its orbit's index, and orbits are numbered in the row-major order of
    their first cell.

    The components of the graph ``cell -- generator(cell)`` come from the connected-components
    kernel (:func:`gdlcheck.groups.components.label_components`): every cell ends holding its
    orbit's first cell.  All in place on one int32 array, the edges made in blocks of the first
    index, so the peak stays within a few times the pattern (no edge list).
    """
    n = group.n
    cells = check_cells(n, order)
    if order == 0:
        return np.zeros((), dtype=np.int32)
    gens = [np.asarray(s, dtype=np.int64) for s in group.gen_arrays()]
    if not gens:
        return np.arange(cells, dtype=np.int32).reshape((n,) * order)
    itype = np.int32 if cells < 2**31 else np.int64
    label = np.arange(cells, dtype=itype)
    rest = n ** (order - 1)
    step = max(1, _BLOCK_CELLS // rest)
    maps = [((s * rest).astype(itype), _moved_cells(s, order - 1, itype)) for s in gens]

    def edges():
        # cell c -- g(c) for every generator, a block of the first index at a time
        for head, tail in maps:
            for start in range(0, n, step):
                stop = min(start + step, n)
                yield slice(start * rest, stop * rest), (head[start:stop, None] + tail[None, :]).ravel()

    label_components(label, edges)
    # the roots (cells that are their own label) are the orbits' first cells, in row-major
    # order: an orbit's number is the count of roots before it
    rank = np.empty(cells, dtype=np.int32)
    total = 0
    for start in range(0, cells, _BLOCK_CELLS):
        block = label[start : start + _BLOCK_CELLS]
        is_root = block == np.arange(start, start + block.size, dtype=itype)
        np.cumsum(is_root, dtype=np.int32, out=rank[start : start + block.size])
        rank[start : start + block.size] += np.int32(total - 1)
        total += int(is_root.sum())
    for start in range(0, cells, _BLOCK_CELLS):
        block = label[start : start + _BLOCK_CELLS]
        block[...] = rank[block]
    return label.astype(np.int32, copy=False).reshape((n,) * order)


def _moved_cells(s: np.ndarray, order: int, dtype) -> np.ndarray:
    """Flat index of ``(s[i1], .., s[im])`` for every cell ``(i1, .., im)``, row-major."""
    n = len(s)
    out = np.zeros((n,) * order, dtype=dtype)
    for axis in range(order):
        shape = [1] * order
        shape[axis] = n
        out += (s.astype(dtype) * dtype(n ** (order - 1 - axis))).reshape(shape)
    return out.ravel()


def first_appearance(labels: np.ndarray) -> np.ndarray:
    """Renumber non-negative labels ``0, 1, ..`` in the order of their first occurrence."""
    labels = np.asarray(labels).ravel()
    if labels.size == 0:
        return labels.astype(np.int32)
    size = int(labels.max()) + 1
    first = np.full(size, labels.size, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(labels.size, dtype=np.int64))
    present = np.nonzero(first < labels.size)[0]
    remap = np.full(size, -1, dtype=np.int32)
    remap[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present), dtype=np.int32)
    return remap[labels]
