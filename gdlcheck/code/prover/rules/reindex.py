"""Reading a tensor in another order, and writing one number at indices: ``flip``, ``gather``,
``scatter`` of a value.

``flip`` reverses an axis: an axis moved by ``p`` comes out moved by ``r[i] = n - 1 - p[n - 1 - i]``
(node labels stay labels: an ``edge_index`` flipped on its first axis swaps sources and targets).
``gather(T, d, idx)`` reads ``out[..., i, ...] = T[..., idx[..., i, ...], ...]`` along ``d``: along
``d`` it is an ``index_select`` per position (labels relabelled as ``T``'s axis ``d`` moves, or
an index of positions on an axis that does not move); along the other axes ``out`` reads ``T``
and ``idx`` at the same position, so they must move alike, or the constant one be fixed by the
other's permutation.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import axes_or_still
from gdlcheck.code.prover.table import Fixed, NoRule, Out, rule

aten = torch.ops.aten


@rule(aten.flip.default)
def flip(call):
    t, m = call.args["self"], call.moves["self"]
    axes = list(axes_or_still(m, t.dim()))
    for d in {int(d) % max(t.dim(), 1) for d in call.args["dims"]}:
        p = mv.known(axes[d])
        if p is not None:
            rev = np.arange(len(p) - 1, -1, -1)
            r = rev[p[rev]]
            axes[d] = None if mv.is_identity(r) else r
    return mv.Moves(tuple(axes), None if m is None else m.labels)


@rule(aten.gather.default)
def gather(call):
    t, mt = call.args["self"], call.moves["self"]
    idx, mi = call.args["index"], call.moves["index"]
    nd = t.dim()
    d = call.args["dim"] % max(nd, 1)
    if idx.dim() != nd or (mt is not None and mt.labels is not None):
        raise NoRule("a gather of node labels, or at an index of another rank")
    src, at = axes_or_still(mt, nd), axes_or_still(mi, nd)
    out, conditions = [None] * nd, []
    for a in range(nd):
        if a == d:
            continue
        p, q = src[a], at[a]
        if mv.same(p, q):
            out[a] = q if q is not None else p
            continue
        if t.shape[a] != idx.shape[a]:
            raise NoRule("a gather whose index is shorter than its values on an axis that moves")
        if p is None and mt is None:  # constant values read at an index that moves
            conditions.append(Fixed(t, {a: q}))
            out[a] = q
        elif q is None and mi is None:  # a constant index reading values that move
            conditions.append(Fixed(idx, {a: p}, "index"))
            out[a] = p
        else:
            raise NoRule("values and index moved differently")
    lam = None if mi is None else mi.labels
    if lam is not None and not mv.same(src[d], lam):
        raise NoRule("an index relabelled otherwise than the axis it reads")
    if lam is None and mv.moving(src[d]):
        raise NoRule("a gather along a moving axis at an index without labels")
    out[d] = at[d]
    return Out(mv.Moves(tuple(out)), conditions)


@rule(aten.scatter.value, aten.scatter_.value)
def scatter_value(call):
    """``T.scatter(d, idx, v)``: one number written at the positions ``idx`` names along ``d``
    (a one-hot code).  Every write is the same number, so neither repeats nor their order count;
    the positions move as ``idx``'s labels do (or stay, for positions that are not labels)."""
    t, mt = call.args["self"], call.moves["self"]
    idx, mi = call.args["index"], call.moves["index"]
    nd = t.dim()
    d = call.args["dim"] % max(nd, 1)
    if idx.dim() != nd or (mt is not None and mt.labels is not None):
        raise NoRule("a write into node labels, or at an index of another rank")
    base, at = axes_or_still(mt, nd), axes_or_still(mi, nd)
    out, need, conditions = [None] * nd, {}, []
    for a in range(nd):
        if a == d:
            continue
        p, q = base[a], at[a]
        if mv.same(p, q):
            out[a] = p if p is not None else q
            continue
        if t.shape[a] != idx.shape[a]:
            raise NoRule("an index shorter than what it writes on an axis that moves")
        if p is None and mt is None:
            need[a], out[a] = q, q
        elif q is None and mi is None:
            conditions.append(Fixed(idx, {a: p}, "index"))
            out[a] = p
        else:
            raise NoRule("values and index moved differently")
    lam = None if mi is None else mi.labels
    if lam is not None:
        if mt is None:
            need[d] = lam
        elif not mv.same(base[d], lam):
            raise NoRule("a write at labels into values that do not move with the nodes")
        out[d] = lam
    elif mv.moving(base[d]):
        raise NoRule("a write along a moving axis at positions that are not labels")
    if need:
        conditions.append(Fixed(t, need))
    return Out(mv.Moves(tuple(out)), conditions)
