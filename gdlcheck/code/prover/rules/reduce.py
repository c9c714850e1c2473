"""Reductions: a sum, mean, maximum, variance or norm over an axis does not change when the
entries along it are permuted, so the reduced axes' permutations disappear and the others stay.
The position of a maximum (``argmax``) is a label of the reduced axis: it is relabelled by that
axis's permutation.  A cumulative sum, or a sort's order, along a moving axis has no rule."""

from __future__ import annotations

import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import reduced_axes
from gdlcheck.code.prover.table import Halt, NoRule, rule

aten = torch.ops.aten


def _reduced(m, nd, dims, keepdim):
    if m.labels is not None:
        raise NoRule("a reduction of node labels")
    if keepdim:
        return tuple(None if a in dims else p for a, p in enumerate(m.axes))
    return tuple(p for a, p in enumerate(m.axes) if a not in dims)


@rule(
    aten.sum.dim_IntList,
    aten.sum.default,
    aten.mean.dim,
    aten.mean.default,
    aten.amax.default,
    aten.amin.default,
    aten.var.correction,
    aten.std.correction,
    aten.prod.dim_int,
    aten.prod.default,
    aten.logsumexp.default,
    aten.linalg_vector_norm.default,
    aten.all.dim,
    aten.any.dim,
    aten.all.default,
    aten.any.default,
    aten.max.default,
    aten.min.default,
    aten.nansum.default,
    aten.count_nonzero.dim_IntList,
)
def reduction(call):
    m = call.moves["self"]
    nd = call.ndim("self")
    dims = reduced_axes(call, nd)
    keep = bool(call.args.get("keepdim"))
    if (
        m.labels is not None
        and call.func in _EXTREMES
        and dims == set(range(nd))
        and _keeps_its_labels(call.args["self"], m.labels)
    ):
        return mv.Moves((None,) * nd if keep else ())
    return mv.Moves(_reduced(m, nd, dims, keep))


def _extremes():
    return frozenset({aten.amax.default, aten.amin.default, aten.max.default, aten.min.default})


_EXTREMES = _extremes()


def _keeps_its_labels(t, lam) -> bool:
    """The largest (or smallest) label of ``t`` is the same in the moved call where the relabelling
    maps the labels that occur onto themselves (every node of a graph is in an edge): then every
    element of the group does, and PyG's ``int(edge_index.max()) + 1`` is read alike.  The labels
    are read only where the rule may read them (a value of given inputs only); a relabelling
    that changes which labels occur changes the maximum, and there is no rule."""
    import numpy as np

    if t.device.type == "meta" or isinstance(lam, mv.Unordered):
        return False
    occur = np.unique(t.detach().cpu().numpy().astype(np.int64))
    if occur.size == 0 or occur.min() < 0 or occur.max() >= len(lam):
        return False
    return bool(np.array_equal(np.unique(lam[occur]), occur))


@rule(aten.var_mean.correction, aten.std_mean.correction)
def two_reductions(call):
    moves = reduction(call)
    return (moves, moves)


@rule(aten.max.dim, aten.min.dim)
def extreme(call):
    """Values as any reduction; indices are labels of the reduced axis (relabelled by its
    permutation) only where the extreme is unique, which the values cannot promise: no rule."""
    m = call.moves["self"]
    nd = call.ndim("self")
    d = call.args["dim"] % max(nd, 1)
    axes = _reduced(m, nd, {d}, bool(call.args.get("keepdim")))
    if not mv.moving(m.axes[d]):
        return (mv.Moves(axes), mv.Moves(axes))
    return (mv.Moves(axes), Halt("", "the position of a maximum along a moving axis (ties)", "no_op_rule"))


@rule(aten.cumsum.default, aten.cumprod.default, aten.cummax.default, aten.cummin.default, aten.logcumsumexp.default)
def cumulative(call):
    m = call.moves["self"]
    d = call.args["dim"] % call.ndim("self")
    if m.labels is not None or mv.moving(m.axes[d]):
        raise NoRule("a cumulative operation along a moving axis")
    out = call.out if isinstance(call.out, (tuple, list)) else (call.out,)
    return tuple(mv.Moves(m.axes) for _ in out)


@rule(aten.sort.default, aten.sort.stable, aten.topk.default)
def sort(call):
    """Sorted values along a moving axis do not move (the same entries, in their order); the
    positions do, in a way ties make unknown: no rule for them."""
    m = call.moves["self"]
    if m.labels is not None:
        raise NoRule("a sort of node labels")
    d = call.args.get("dim", -1) % call.ndim("self")
    axes = list(m.axes)
    moved = mv.moving(axes[d])
    axes[d] = None
    if call.func is aten.topk.default and moved and call.args.get("sorted") is False:
        raise NoRule("topk without sorting along a moving axis")
    values = mv.Moves(tuple(axes))
    if not moved:
        return (mv.Moves(m.axes), mv.Moves(m.axes))
    return (values, Halt("", "the positions of sorted entries along a moving axis", "no_op_rule"))
