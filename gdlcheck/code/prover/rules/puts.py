"""Writes at indices and the GRU's split: ``index_put``, ``index_copy``, ``unsafe_split``.

``T[mask] = v`` with a bool mask of ``T``'s shape and one value is elementwise
(``where(mask, v, T)``): it moves as ``T`` and the mask do.  ``T[idx] = V`` (and
``T.index_copy(d, idx, V)``) writes row ``idx[k]`` from ``V[k]``:

* ``idx`` holds node labels relabelled by ``lam`` and ``V`` moves as ``idx`` does: the rows land
  where ``lam`` puts them, as a scatter's sums do (:mod:`gdlcheck.code.prover.rules.index`);
* ``idx`` is a constant and ``V``'s rows move by ``p``: row ``idx[p[k]]`` of the moved call holds
  what row ``idx[k]`` holds, so the written rows move by ``r`` with ``r[idx[k]] = idx[p[k]]``, and
  the others stay; with ``accumulate`` the rows are added to ``T``'s, which must then be fixed by
  ``r``.

Either way each row must be written once: with a repeated index the last write wins, and which
one is last depends on the order, which moves.  The index's values are read only where the rule
may read them (a constant, or a value of given inputs only); else there is no rule.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import axes_or_still, broadcast
from gdlcheck.code.prover.rules.index import _masked, _with, readable, redescribed
from gdlcheck.code.prover.table import Fixed, NoRule, Out, rule

aten = torch.ops.aten


@rule(aten.index_put.default, aten.index_put_.default)
def index_put(call):
    t, mt = call.args["self"], call.moves["self"]
    indices = list(call.args["indices"])
    ms = list(call.moves["indices"] or [None] * len(indices))
    v, mv_ = call.args["values"], call.moves["values"]
    used = [k for k, i in enumerate(indices) if i is not None]
    if len(used) != 1:
        raise NoRule("a write at more than one index tensor")
    d = used[0]
    idx, mi = indices[d], ms[d]
    if idx.dtype == torch.bool:
        return _masked_put(t, mt, idx, mi, v, mv_, d)
    if idx.dim() != 1 or v.dim() != t.dim():
        raise NoRule("a write at an index of more than one axis, or of values broadcast")
    return _put(t, mt, idx, mi, v, mv_, d, accumulate=bool(call.args.get("accumulate")))


def _masked_put(t, mt, mask, mmask, v, mv_, d: int):
    """``T[mask] = v``: one value (a constant, or a value no generator moves) where a mask of
    ``T``'s shape is set; or ``T[mask] = V`` along the first axis, with ``V``'s rows moving as the
    rows the mask selects (:func:`~gdlcheck.code.prover.rules.index._masked`) do."""
    if mmask is not None and mmask.labels is not None:
        raise NoRule("a mask of node labels")
    if mt is not None and mt.labels is not None:
        raise NoRule("a masked write into node labels")
    if d == 0 and tuple(mask.shape) == tuple(t.shape) and v.numel() == 1 and (mv_ is None or mv_.still):
        perms, conditions = broadcast([(t, mt), (mask, mmask)], t.dim())
        return Out(mv.Moves(tuple(perms)), conditions)
    if d != 0 or mask.dim() != 1 or v.dim() != t.dim() or (mv_ is not None and mv_.labels is not None):
        raise NoRule("a masked write of values that are not whole rows")
    axes = redescribed(t, axes_or_still(mt, t.dim()), 0, mmask)
    q, conditions = _masked(axes[0], mask, mmask)
    if conditions:
        return Out(None, conditions)
    rows = axes_or_still(mv_, v.dim())
    if not mv.same(rows[0], q) or any(not mv.same(a, b) for a, b in zip(rows[1:], axes[1:])):
        raise NoRule("rows written that do not move as the rows the mask selects")
    return mv.Moves(tuple(axes))


def _put(t, mt, idx, mi, v, mv_, d: int, accumulate: bool = False):
    if mv_ is not None and mv_.labels is not None:
        raise NoRule("node labels written as values")
    if not accumulate:
        _once(idx)
    src_axes = axes_or_still(mv_, v.dim())
    if mi is not None and mi.labels is not None:  # labels: as a scatter of the rows
        if not mv.same(mi.axes[0], src_axes[d]):
            raise NoRule("values written that do not move as their index does")
        return _with(None, t, mt, t.dim(), d, mi.labels, src_axes)
    if mi is not None:
        raise NoRule("an index that depends on the inputs but holds no labels")
    p = src_axes[d]
    if not mv.moving(p):
        return _with(None, t, mt, t.dim(), d, None, src_axes)
    if mt is not None or any(q is not None for a, q in enumerate(src_axes) if a != d):
        raise NoRule("rows written at a constant index into values that move, or rows that move inside")
    if accumulate:
        _once(idx)
    rows = idx.detach().cpu().numpy().astype(np.int64) % max(t.shape[d], 1)
    r = np.arange(t.shape[d], dtype=np.int64)
    r[rows] = rows[mv.known(p)]
    out: list[np.ndarray | None] = [None] * t.dim()
    out[d] = None if mv.is_identity(r) else r
    if accumulate and out[d] is not None:  # the rows are added to T's: those must move alike
        return Out(mv.Moves(tuple(out)), [Fixed(t, {d: r})])
    return mv.Moves(tuple(out))


def _once(idx) -> None:
    """Each row is written once (the rule reads the index's values: a constant, or a value of the
    given inputs only)."""
    if not readable(idx):
        raise NoRule("a write at an index of values that depend on the random points")
    values = idx.detach().cpu().numpy().ravel()
    if len(np.unique(values)) != len(values):
        raise NoRule("a write at a repeated index: the last write wins, in an order that moves")


@rule(aten.index_copy.default, aten.index_copy_.default)
def index_copy(call):
    t, mt = call.args["self"], call.moves["self"]
    v, mv_ = call.args["source"], call.moves["source"]
    idx, mi = call.args["index"], call.moves["index"]
    d = call.args["dim"] % max(t.dim(), 1)
    if idx.dim() != 1 or v.dim() != t.dim():
        raise NoRule("a copy at an index of more than one axis, or of values broadcast")
    return _put(t, mt, idx, mi, v, mv_, d)


@rule(aten.unsafe_split.Tensor)
def unsafe_split(call):
    """``split`` without the views (a GRU cell's gates): each piece moves as the whole."""
    from gdlcheck.code.prover.rules.layout import split

    return split(call)
