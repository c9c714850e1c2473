"""Products, softmax, norms and convolutions.

A product sums over one axis of each operand: where both move by the same permutation the sum
does not change (``(A P^T)(P B) = A B``); a constant on the other side must be fixed by it.
Softmax along any axis, and a norm over trailing axes, keep every permutation of every axis (the
same entries in another order give the same sums).  A convolution with a kernel of width 1 acts
on each position alone."""

from __future__ import annotations

import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules import operators
from gdlcheck.code.prover.rules.common import axes_or_still, broadcast
from gdlcheck.code.prover.rules.grid_conv import padded_convolution
from gdlcheck.code.prover.table import Fixed, NoRule, Out, rule

aten = torch.ops.aten


def _plain(m):
    if m is not None and m.labels is not None:
        raise NoRule("a product of node labels")


def contract(a, ma, b, mb, conditions: list) -> list:
    """The contracted axis (last of ``a``, first of ``b`` after batching) must move alike.  A constant
    on one side is fixed along it (``P E = E``: the product does not move on the constant's other
    axis), or else it is an operator on the points (``P M P^T = M``: the product moves on its other
    axis as the contracted one did).  Returns, per side, the permutation of a constant's other axis
    (None: it does not move)."""
    pa = axes_or_still(ma, a.dim())[-1]
    ib = b.dim() - 2 if b.dim() >= 2 else 0
    pb = axes_or_still(mb, b.dim())[ib]
    free = [None, None]
    if mv.same(pa, pb):
        return free
    sides = (
        (a, ma, pb, a.dim() - 1, a.dim() - 2 if a.dim() >= 2 else None),
        (b, mb, pa, ib, b.dim() - 1 if b.dim() >= 2 else None),
    )
    for side, (t, m, p_other, axis, other) in enumerate(sides):
        mine = axes_or_still(m, t.dim())[axis]
        if mine is None and mv.moving(p_other):
            if m is not None:
                raise NoRule("a contracted axis that moves on one side only")
            condition, free[side] = operators.law(t, axis, p_other, other)
            conditions.append(condition)
    if mv.moving(pa) and mv.moving(pb):
        raise NoRule("a contracted axis moved by two permutations")
    return free


def _or(q, p):
    return p if q is None else q


@rule(aten.mm.default)
def mm(call):
    a, b = call.args["self"], call.args["mat2"]
    ma, mb = call.moves["self"], call.moves["mat2"]
    _plain(ma), _plain(mb)
    conditions: list = []
    qa, qb = contract(a, ma, b, mb, conditions)
    return Out(mv.Moves((_or(qa, axes_or_still(ma, 2)[0]), _or(qb, axes_or_still(mb, 2)[1]))), conditions)


@rule(aten.mv.default)
def mv_(call):
    a, b = call.args["self"], call.args["vec"]
    ma, mb = call.moves["self"], call.moves["vec"]
    _plain(ma), _plain(mb)
    conditions: list = []
    qa, _ = contract(a, ma, b, mb, conditions)
    return Out(mv.Moves((_or(qa, axes_or_still(ma, 2)[0]),)), conditions)


def _batched(call, a_name, b_name):
    a, b = call.args[a_name], call.args[b_name]
    ma, mb = call.moves[a_name], call.moves[b_name]
    _plain(ma), _plain(mb)
    conditions: list = []
    qa, qb = contract(a, ma, b, mb, conditions)
    pa, pb = axes_or_still(ma, 3), axes_or_still(mb, 3)
    batch = pa[0] if pa[0] is not None else pb[0]
    for t, m, p in ((a, ma, pa[0]), (b, mb, pb[0])):
        if p is None and mv.moving(batch):
            if m is not None:
                raise NoRule("a batch axis that moves on one side only")
            conditions.append(Fixed(t, {0: batch}))
        elif p is not None and not mv.same(p, batch):
            raise NoRule("batch axes moved by two permutations")
    return mv.Moves((batch, _or(qa, pa[1]), _or(qb, pb[2]))), conditions


@rule(aten.bmm.default)
def bmm(call):
    moves, conditions = _batched(call, "self", "mat2")
    return Out(moves, conditions)


def _plus(call, product: mv.Moves, conditions: list):
    """``beta * self + alpha * product``: the added term broadcast against the product."""
    bias = call.args["self"]
    perms, more = broadcast([(bias, call.moves["self"]), (call.out, product)], call.out.dim())
    return Out(mv.Moves(tuple(perms)), conditions + [c for c in more if c.tensor is bias])


@rule(aten.addmm.default, aten._sparse_addmm.default)
def addmm(call):
    a, b = call.args["mat1"], call.args["mat2"]
    ma, mb = call.moves["mat1"], call.moves["mat2"]
    _plain(ma), _plain(mb)
    conditions: list = []
    qa, qb = contract(a, ma, b, mb, conditions)
    return _plus(call, mv.Moves((_or(qa, axes_or_still(ma, 2)[0]), _or(qb, axes_or_still(mb, 2)[1]))), conditions)


@rule(aten.addmv.default)
def addmv(call):
    """``beta * self + alpha * (mat @ vec)``: the product as ``mv``'s, the added term broadcast against it."""
    a, b = call.args["mat"], call.args["vec"]
    ma, mb = call.moves["mat"], call.moves["vec"]
    _plain(ma), _plain(mb)
    conditions: list = []
    qa, _ = contract(a, ma, b, mb, conditions)
    return _plus(call, mv.Moves((_or(qa, axes_or_still(ma, 2)[0]),)), conditions)


@rule(aten.baddbmm.default)
def baddbmm(call):
    moves, conditions = _batched(call, "batch1", "batch2")
    return _plus(call, moves, conditions)


@rule(aten._softmax.default, aten._log_softmax.default)
def softmax(call):
    m = call.moves["self"]
    _plain(m)
    return mv.Moves(m.axes)


@rule(aten.native_layer_norm.default)
def layer_norm(call):
    """Mean and variance over the normalised (trailing) axes do not change when entries move
    within them; the affine weight and bias, laid along those axes, must be fixed there."""
    x, m = call.args["input"], call.moves["input"]
    _plain(m)
    k = len(call.args["normalized_shape"])
    conditions = []
    for name in ("weight", "bias"):
        w = call.args.get(name)
        if w is None:
            continue
        if call.moves.get(name) is not None:
            raise NoRule("a layer norm whose weight depends on the inputs")
        need = {a: m.axes[x.dim() - k + a] for a in range(k) if mv.moving(m.axes[x.dim() - k + a])}
        if need:
            conditions.append(Fixed(w, need))
    stats = mv.Moves(m.axes[: x.dim() - k] + (None,) * k)
    return Out((mv.Moves(m.axes), stats, stats), conditions)


@rule(aten._native_batch_norm_legit_no_training.default, aten.native_batch_norm.default)
def batch_norm(call):
    """Batch norm in eval mode: a per-channel affine map (axis 1); the channels must not move."""
    x, m = call.args["input"], call.moves["input"]
    _plain(m)
    if x.dim() < 2 or mv.moving(m.axes[1]):
        raise NoRule("a batch norm over channels that move")
    return (mv.Moves(m.axes), mv.still(call.out[1].dim()), mv.still(call.out[2].dim()))


@rule(aten.convolution.default)
def convolution(call):
    """A convolution whose kernel has width 1 on every spatial axis, with stride 1 and no padding,
    maps each position on its own (PointNet's ``Conv1d(d, d', 1)``): its spatial axes keep their
    permutations.  The channels must not move; the batch axis may."""
    w = call.args["weight"]
    m = call.moves["input"]
    if mv.wrapped(m):  # padded circularly first (F.pad): a circular convolution
        return padded_convolution(call)
    _plain(m)
    if call.moves.get("weight") is not None or call.moves.get("bias") is not None:
        raise NoRule("a convolution whose kernel depends on the inputs")
    pointwise = (
        all(int(k) == 1 for k in w.shape[2:])
        and all(int(s) == 1 for s in call.args["stride"])
        and all(int(p) == 0 for p in call.args["padding"])
        and not call.args["transposed"]
    )
    if not pointwise:
        raise NoRule("a convolution with a kernel wider than 1, a stride or padding: it mixes neighbouring positions")
    if mv.moving(m.axes[1]):
        raise NoRule("a convolution over channels that move")
    return mv.Moves((m.axes[0], None) + tuple(m.axes[2:]))


convolution.wrapped = True  # it reads axes padded circularly (gdlcheck.code.prover.rules.pad)


@rule(aten.linalg_cross.default)
def cross(call):
    """The cross product of 3-vectors along ``dim``, broadcast elementwise on the other axes (the
    point pair features of PPFConv); the vectors' axis must not move."""
    a, b = call.args["self"], call.args["other"]
    ma, mb = call.moves["self"], call.moves["other"]
    nd = max(a.dim(), b.dim())
    d = call.args["dim"] % nd
    perms, conditions = broadcast([(a, ma), (b, mb)], nd)
    if mv.moving(perms[d]):
        raise NoRule("a cross product along an axis that moves")
    return Out(mv.Moves(tuple(perms)), conditions)
