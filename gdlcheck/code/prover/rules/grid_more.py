"""More rules for moves that swap axes: operations along an axis the swap leaves in its place.

A CNN on a turning grid also concatenates feature maps along the channels (a U-Net's skip), slices
or splits the channels, normalises them (batch norm in eval mode, a layer norm over channels
last).  Each acts along an axis that the move keeps in its place and entry by entry on the swapped
ones, so it is the per-axis rule of its operation, applied to the moves without their order, with
the order put back: ``op(Q pi T) = Q' pi op(T)`` where ``pi`` permutes only axes ``op`` treats
alike.  Every tensor that moves must swap the same axes; a constant laid along them (more than one
entry of memory there: an ``expand`` of one entry is one) has no rule.
"""

from __future__ import annotations

import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules import layout, linalg, stacking
from gdlcheck.code.prover.rules.grid import normal_order, plain
from gdlcheck.code.prover.table import Call, NoRule, Out, turned

aten = torch.ops.aten


def _stripped(m):
    return None if m is None else mv.Moves(plain(m).axes, uniform=m.uniform)


def _one_order(tensors, moves, nd: int, keep: set) -> tuple:
    """The order every moving tensor (of ``nd`` axes) swaps its axes in, which must keep the axes
    ``keep`` in place; a constant must have one entry along each swapped axis."""
    found = None
    for t, m in zip(tensors, moves):
        if m is None:
            continue
        o = normal_order(m, tuple(t.shape))
        if found is not None and o != found:
            raise NoRule("tensors whose axes are swapped otherwise")
        found = o
    if found is None or any(found[a] != a for a in keep):
        raise NoRule("an operation along an axis the generator swaps")
    swapped = [a for a in range(nd) if found[a] != a]
    for t, m in zip(tensors, moves):  # a constant broadcast along them (one entry of memory) stays as it is
        if m is None and any(t.shape[a] != 1 and t.stride(a) != 0 for a in swapped):
            raise NoRule("a constant laid along axes the generator swaps")
    return found


def _again(per_axis, call, moves: dict):
    """The per-axis rule of the operation on the moves without their order."""
    out = per_axis(Call(call.func, call.args, moves, call.out, call.gen))
    return out if isinstance(out, Out) else Out(out)


def _ordered(m, order):
    return m if not isinstance(m, mv.Moves) else mv.with_order(m.axes, order)


@turned(aten.cat.default)
def cat(call):
    """Blocks along an axis the move keeps in place (the channels), each swapping the same axes."""
    tensors, ms = list(call.args["tensors"]), list(call.moves["tensors"])
    nd = call.out.dim()
    d = call.args["dim"] % nd
    if any(t.dim() != nd for t in tensors):
        raise NoRule("a cat of tensors of other ranks under swapped axes")
    order = _one_order(tensors, ms, nd, {d})
    out = _again(layout.cat, call, {**call.moves, "tensors": [_stripped(m) for m in ms]})
    return Out(_ordered(out.moves, order), out.conditions)


@turned(aten.stack.default)
def stack(call):
    """Pieces stacked on a new axis, each swapping the same axes."""
    tensors, ms = list(call.args["tensors"]), list(call.moves["tensors"])
    nd = tensors[0].dim()
    d = call.args["dim"] % (nd + 1)
    order = _one_order(tensors, ms, nd, set())
    place = [a if a < d else a + 1 for a in range(nd)]
    new = list(range(nd + 1))
    for a in range(nd):
        new[place[a]] = place[order[a]]
    out = _again(stacking.stack, call, {**call.moves, "tensors": [_stripped(m) for m in ms]})
    return Out(_ordered(out.moves, new), out.conditions)


@turned(aten.slice.Tensor)
def slice_(call):
    m = call.moves["self"]
    t = call.args["self"]
    order = _one_order([t], [m], t.dim(), {call.args["dim"] % t.dim()})
    out = _again(layout.slice_, call, {**call.moves, "self": _stripped(m)})
    return Out(_ordered(out.moves, order), out.conditions)


@turned(aten.split.Tensor, aten.split_with_sizes.default)
def split(call):
    m = call.moves["self"]
    t = call.args["self"]
    order = _one_order([t], [m], t.dim(), {call.args["dim"] % t.dim()})
    per_axis = layout.split if call.func is aten.split.Tensor else layout.split_with_sizes
    out = _again(per_axis, call, {**call.moves, "self": _stripped(m)})
    return Out(tuple(_ordered(p, order) for p in out.moves), out.conditions)


@turned(aten._native_batch_norm_legit_no_training.default, aten.native_batch_norm.default)
def batch_norm(call):
    """Batch norm in eval mode: a per-channel affine map (axis 1), entry by entry on the grid."""
    x, m = call.args["input"], call.moves["input"]
    order = _one_order([x], [m], x.dim(), {0, 1})
    out = _again(linalg.batch_norm, call, {**call.moves, "input": _stripped(m)})
    first, *rest = out.moves
    return Out((_ordered(first, order), *rest), out.conditions)


@turned(aten.native_layer_norm.default)
def layer_norm(call):
    """A layer norm over trailing axes the move keeps in place (channels last)."""
    x, m = call.args["input"], call.moves["input"]
    nd, k = x.dim(), len(call.args["normalized_shape"])
    order = _one_order([x], [m], nd, set(range(nd - k, nd)))
    out = _again(linalg.layer_norm, call, {**call.moves, "input": _stripped(m)})
    first, stats, _ = out.moves
    stats = _ordered(stats, order[: nd - k] + tuple(range(nd - k, nd)))
    return Out((_ordered(first, order), stats, stats), out.conditions)
