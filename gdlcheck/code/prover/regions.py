"""Writes into part of a tensor: which views a write reaches, and the moves of a tensor the call
made and then filled block by block (``out = x.new_zeros(n, 2 d); out[:, :d] = x; out[:, d:] = y``).

A write into a view changes only the storage cells the view covers.  Another view of the same
storage that shares none of them keeps what the walk knew (an LSTM writes its gates' chunks in
place, one by one).  A view that contains the written one (its *container*, the tensor the call
made) is the old container with one block replaced: where the block is a box of it, whole on every
axis but one, the container's moves are those of a ``cat`` of its old parts and the block.

Cells, offsets and strides follow from the shapes, which the moved call repeats (the path check).
"""

from __future__ import annotations

import enum

import numpy as np

from gdlcheck.code.prover import conditions
from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.table import Halt
from gdlcheck.code.prover.values import Abstract

_CELLS = 1 << 22  # past this many entries a write is taken to reach every view of its storage


def cells(t):
    """The storage cells a strided tensor covers (sorted element offsets), or False when it is too
    large to list or not strided: then it is taken to share every cell of its storage."""
    import torch

    if t.layout != torch.strided or t.numel() > _CELLS:
        return False
    at = np.full((1,), t.storage_offset(), dtype=np.int64)
    axes = [(size, stride) for size, stride in zip(t.shape, t.stride()) if size != 1]
    axes.sort(key=lambda a: -a[1])
    if t.numel() and _increasing(axes):  # listed outer axis first, the offsets come sorted and distinct
        for size, stride in axes:
            at = (at[:, None] + np.arange(size, dtype=np.int64)[None, :] * stride).ravel()
        return at
    for size, stride in zip(t.shape, t.stride()):
        at = (at[:, None] + np.arange(size, dtype=np.int64)[None, :] * stride).ravel()
    return np.unique(at)


def _increasing(axes) -> bool:
    """Axes ``(size, stride)``, largest stride first, each stride past the last cell the axes inside
    it reach: their offsets, listed in this order, strictly increase (a mixed radix)."""
    span = 1  # cells the inner axes reach, from their first
    for size, stride in reversed(axes):
        if stride < span:
            return False
        span = stride * (size - 1) + span
    return True


class Relation(enum.Enum):
    """How a view stands to a written one."""

    APART = "no common cell"
    CONTAINS = "holds every written cell, and more or as many"
    OVERLAPS = "anything else, or not known"


def relation(written, written_cells, other) -> Relation:
    """How ``other`` stands to the written view."""
    if written_cells is False or other.element_size() != written.element_size():
        return Relation.OVERLAPS
    mine = cells(other)
    if mine is False:
        return Relation.OVERLAPS
    common = np.intersect1d(written_cells, mine, assume_unique=True).size
    if not common:
        return Relation.APART
    return Relation.CONTAINS if common == written_cells.size else Relation.OVERLAPS


def _box(block, whole):
    """``block``'s index range on each axis of ``whole`` when it is ``whole[s0:e0, s1:e1, ...]``
    (same axes, same strides), else None."""
    if block.dim() != whole.dim() or block.stride() != whole.stride():
        return None
    rest = block.storage_offset() - whole.storage_offset()
    starts = [0] * whole.dim()
    for a in sorted(range(whole.dim()), key=lambda a: -whole.stride(a)):
        if whole.shape[a] > 1 and whole.stride(a) > 0:
            starts[a], rest = divmod(rest, whole.stride(a))
    if rest or any(s < 0 or s + block.shape[a] > whole.shape[a] for a, s in enumerate(starts)):
        return None
    return [(s, s + block.shape[a]) for a, s in enumerate(starts)]


def refill(walk, block, whole, halt: Halt, constant_block: bool = False) -> Abstract:
    """The container ``whole`` once ``block`` (a view into it) was written: per generator its moves,
    or ``halt`` where they are not known.  A block written with a constant does not move; the
    container's other cells must then move as it does, or be fixed where it does not."""
    old, new = walk.of(whole), walk.of(block)
    if walk.unwritten.pristine(whole):  # a fresh buffer's first write: its other cells, unwritten in
        old = Abstract(True)  # both calls, may be taken to move as the block does
        fixed = _vacuous
    elif old.foreign:
        return Abstract(False, [halt] * len(walk.gens))
    else:
        fixed = _fixed
    if block.dim() == whole.dim() - 1:  # a row picked by select (``edge_index[0] += k``): that row's block
        block, new = _unselected(block, whole, new)
    box = None if block is None else _box(block, whole)
    partial = [] if box is None else [a for a, (s, e) in enumerate(box) if (s, e) != (0, whole.shape[a])]
    if box is None or len(partial) > 1:
        return Abstract(False, [halt] * len(walk.gens))
    constant_block = constant_block or new.const  # its values are read only then: the same in every call
    per = [
        _one(whole, block, old, None if constant_block else new.per[k], k, box, partial, halt, fixed)
        for k in range(len(walk.gens))
    ]
    return Abstract(False, per, free=old.free or new.free)


def _one(whole, block, old, pv, k: int, box, partial, halt: Halt, fixed):
    """The container's moves for generator ``k``: its old moves outside the block, the block's
    (``pv``; None for a constant block) inside."""
    if isinstance(pv, Halt):
        return pv
    po = None if old.const else old.per[k]
    if isinstance(po, Halt):
        return po
    labels = None if pv is None else pv.labels  # node labels: the same relabelling in and out of the block
    if partial and (labels is not None or (po is not None and po.labels is not None)):
        if labels is None or po is None or po.labels is None or not mv.same(labels, po.labels):
            return halt
    if mv.turned(pv) or mv.turned(po):  # axes swapped: blocks are followed axis by axis
        return halt
    old_axes = mv.still(whole.dim()).axes if po is None else po.axes
    new_axes = mv.still(whole.dim()).axes if pv is None else pv.axes
    if any(isinstance(p, mv.Unordered) for p in old_axes + new_axes):
        return halt
    if not partial:  # every cell written: the block's moves
        return mv.Moves(new_axes, labels)
    b = partial[0]
    s, e = box[b]
    axes = list(new_axes)
    for a in range(whole.dim()):
        if a == b or mv.same(old_axes[a], new_axes[a]):
            continue
        if po is None and fixed(whole, b, s, e, a, new_axes[a], outside=True):
            continue  # the constant rest is fixed where the block moves
        if pv is None and _fixed(block, b, 0, e - s, a, old_axes[a], outside=False):
            axes[a] = old_axes[a]  # the constant block is fixed where the rest moves
            continue
        return halt
    pb = old_axes[b]
    inside = np.arange(s, e)
    if pb is not None and not np.array_equal(np.sort(pb[inside]), inside):
        return halt  # the old moves carry cells across the block's border
    q = np.arange(whole.shape[b]) if pb is None else np.array(pb, copy=True)
    q[inside] = s + (np.arange(e - s) if new_axes[b] is None else new_axes[b])
    axes[b] = None if mv.is_identity(q) else q
    return mv.Moves(tuple(axes), labels)


def _unselected(block, whole, new):
    """A view that picks one index of an axis of ``whole`` (``select``) as the block of that index,
    the axis kept (size 1, not moved), with its moves; ``(None, new)`` where it is no such view."""
    for a in range(whole.dim()):
        if (
            block.shape == whole.shape[:a] + whole.shape[a + 1 :]
            and block.stride() == whole.stride()[:a] + whole.stride()[a + 1 :]
        ):
            kept = block.unsqueeze(a)
            if kept.stride()[a] != whole.stride(a):
                kept = kept.as_strided(kept.shape, whole.stride(), kept.storage_offset())
            if new.const:
                return kept, new
            per = [m if isinstance(m, Halt) else mv.Moves(m.axes[:a] + (None,) + m.axes[a:], m.labels) for m in new.per]
            return kept, Abstract(False, per, free=new.free)
    return None, new


def _vacuous(t, b: int, s: int, e: int, a: int, p, outside: bool) -> bool:
    """The cells outside the block of a buffer nothing wrote before: unwritten in both calls, so any
    moves hold of them; the block's own cells are read as :func:`_fixed` reads them."""
    return outside or _fixed(t, b, s, e, a, p, outside)


def _fixed(t, b: int, s: int, e: int, a: int, p, outside: bool) -> bool:
    """The constant cells of ``t`` outside (or inside) ``[s, e)`` on axis ``b`` are the same when
    axis ``a`` is moved by ``p``, bit for bit: a constant, read as constants are."""
    import torch

    rows = torch.cat([torch.arange(0, s), torch.arange(e, t.shape[b])]) if outside else torch.arange(s, e)
    if not rows.numel() or p is None:
        return True
    return conditions.first_moved(t.detach().index_select(b, rows), {a: p}) is None
