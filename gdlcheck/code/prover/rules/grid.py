"""Moves that swap axes: the rotations and mirrors of a square grid (``p4``, ``p4m``).

A rotation ``(a, b) -> (b, -a)`` of an ``N x N`` grid moves an image ``T`` to ``T'`` with
``T'[b, -a] = T[a, b]``: the two axes trade places, then one is reversed.  Such a move carries an
order of the axes (:attr:`~gdlcheck.code.prover.moves.Moves.order`), and the walker hands it only to the
rules of this module (registered with :func:`~gdlcheck.code.prover.table.turned`): each says where the
order goes.  Entry by entry, a view, a copy or an elementwise operation keeps it; a transpose, a
``permute``, a ``flip`` or a ``rot90`` composes with it; a reduction over the swapped axes together
forgets it; a reshape that merges the swapped axes into one makes it a permutation of that axis
(a pixel ViT's tokens); a circular convolution keeps it where its kernel, turned as the grid
turns, is itself (a C4- or D4-symmetric kernel) or another of its output channels (a P4 lifting
layer: the channels then move too).  ``rot90`` has a rule on both paths: of a tensor that moves
axis by axis it is a flip and a transpose, and the move stays axis by axis.

Where ``T'[q_0[i_o0], q_1[i_o1], ...] = T[i]`` (``o`` the order), ``permute(rho)`` gives order
``rho^-1[o[rho[k]]]`` and permutations ``q[rho[k]]``; ``flip`` of the axes ``S`` gives
``q'_k = r_k . q_k . r_o[k]`` (``r_a`` reverses axis ``a`` when ``a`` is in ``S``).
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import broadcast, reduced_axes, reshape_groups, squeezed_axes
from gdlcheck.code.prover.table import POINTWISE, Broken, NoRule, Out, rule, turned

aten = torch.ops.aten


def plain(m):
    """A move of values that are not labels, with every axis's entries known."""
    if m.labels is not None:
        raise NoRule("node labels under swapped axes")
    for p in m.axes:
        mv.known(p)
    return m


def normal_order(m, shape) -> tuple:
    """The order of ``m`` with its size-1 axes in their places (a swap of two size-1 axes moves
    nothing); an order maps axes only onto axes of their size, so this is still an order."""
    o = list(mv.order_of(m, len(shape)))
    return tuple(a if shape[a] == 1 else o[a] for a in range(len(shape)))


def _permuted(m, rho, nd):
    """The move of ``T.permute(rho)`` (axis ``k`` of the result is axis ``rho[k]`` of ``T``)."""
    o = mv.order_of(m, nd)
    inv = np.argsort(rho)
    return mv.with_order([m.axes[rho[k]] for k in range(nd)], [int(inv[o[rho[k]]]) for k in range(nd)])


def _reverse(n: int):
    return np.arange(n - 1, -1, -1)


def _flipped(m, dims: set, shape):
    """The move of ``T.flip(dims)``: ``q'_k = r_k . q_k . r_o[k]``."""
    o = mv.order_of(m, len(shape))
    axes = []
    for k, p in enumerate(m.axes):
        q = np.arange(shape[k]) if p is None else np.asarray(p)
        if o[k] in dims:
            q = q[_reverse(shape[k])]
        if k in dims:
            q = (shape[k] - 1) - q
        axes.append(q)
    return mv.with_order(axes, o)


@rule(aten.rot90.default)
@turned(aten.rot90.default)
def rot90(call):
    """``rot90(T, k, (d0, d1))`` is ``T.flip(d1).transpose(d0, d1)`` per quarter turn: the two axes
    trade places with their permutations, the flipped one reversed; an order of the axes composes
    with the transpose (a move that swaps them may come out axis by axis, and the other way)."""
    m = call.moves["self"]
    shape = list(call.shape("self"))
    nd = len(shape)
    plain(m)
    d0, d1 = (int(d) % nd for d in call.args["dims"])
    for _ in range(int(call.args["k"]) % 4):
        m = _flipped(m, {d1}, shape)
        rho = list(range(nd))
        rho[d0], rho[d1] = d1, d0
        m = _permuted(m, rho, nd)
        shape[d0], shape[d1] = shape[d1], shape[d0]
    return m


@turned(aten.flip.default)
def flip(call):
    m = plain(call.moves["self"])
    shape = call.shape("self")
    return _flipped(m, {int(d) % max(len(shape), 1) for d in call.args["dims"]}, shape)


@turned(aten.alias.default, aten.detach.default, aten.clone.default, aten._to_copy.default, aten.contiguous.default)
def same_entries(call):
    m = plain(call.moves["self"])
    return mv.with_order(m.axes, m.order)


@turned(aten.transpose.int)
def transpose(call):
    m = plain(call.moves["self"])
    nd = call.ndim("self")
    a, b = call.args["dim0"] % max(nd, 1), call.args["dim1"] % max(nd, 1)
    rho = list(range(nd))
    rho[a], rho[b] = b, a
    return _permuted(m, rho, nd)


@turned(aten.t.default, aten.numpy_T.default)
def transpose_2d(call):
    m = plain(call.moves["self"])
    return _permuted(m, list(reversed(range(call.ndim("self")))), call.ndim("self"))


@turned(aten.permute.default)
def permute(call):
    m = plain(call.moves["self"])
    nd = call.ndim("self")
    return _permuted(m, [int(d) % nd for d in call.args["dims"]], nd)


@turned(aten.unsqueeze.default)
def unsqueeze(call):
    m = plain(call.moves["self"])
    nd = call.ndim("self")
    d = call.args["dim"] % (nd + 1)
    place = [a if a < d else a + 1 for a in range(nd)]
    o = mv.order_of(m, nd)
    order = list(range(nd + 1))
    for a in range(nd):
        order[place[a]] = place[o[a]]
    axes = list(m.axes)
    axes.insert(d, None)
    return mv.with_order(axes, order)


def _drop(m, shape, gone: set):
    """The move once the size-1 axes ``gone`` are taken away."""
    o = normal_order(m, shape)
    kept = [a for a in range(len(shape)) if a not in gone]
    place = {a: i for i, a in enumerate(kept)}
    return mv.with_order([m.axes[a] for a in kept], [place[o[a]] for a in kept])


@turned(aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims)
def squeeze(call):
    m = plain(call.moves["self"])
    shape = call.shape("self")
    gone = squeezed_axes(call, shape)
    return _drop(m, shape, gone)


@turned(aten.expand.default)
def expand(call):
    """New leading axes and size-1 axes broadcast to the new size do not move."""
    m = plain(call.moves["self"])
    old, new = call.shape("self"), tuple(call.out.shape)
    shift = len(new) - len(old)
    o = normal_order(m, old)
    axes = [None] * shift + [p if old[a] == new[a + shift] else None for a, p in enumerate(m.axes)]
    return mv.with_order(axes, list(range(shift)) + [shift + o[a] for a in range(len(old))])


@turned(aten.select.int)
def select(call):
    """An entry of an axis that stays in its place, which its permutation keeps."""
    m = plain(call.moves["self"])
    shape = call.shape("self")
    d = call.args["dim"] % len(shape)
    k = call.args["index"] % shape[d]
    if normal_order(m, shape)[d] != d:
        raise NoRule("an entry of an axis the generator swaps with another")
    p = m.axes[d]
    if p is not None and int(p[k]) != k:
        return Out(None, [Broken(f"entry {k} of an axis the generator moves (to {int(p[k])})")])
    axes = list(m.axes)
    axes[d] = None
    return _drop(mv.Moves(tuple(axes), order=m.order), shape[:d] + (1,) + shape[d + 1 :], {d})


def _flat(m, o, group, old):
    """The permutation of the flattened axes ``group`` (an order maps them onto themselves):
    point ``i`` goes to ``image_k = q_k[i_o[k]]``."""
    sizes = [old[a] for a in group]
    coords = np.unravel_index(np.arange(int(np.prod(sizes))), tuple(sizes))
    at = {a: c for a, c in zip(group, coords)}
    image = [at[o[a]] if m.axes[a] is None else np.asarray(m.axes[a])[at[o[a]]] for a in group]
    return np.ravel_multi_index(tuple(image), tuple(sizes)).astype(np.int64)


@turned(aten.view.default, aten._unsafe_view.default)
def view(call):
    """A reshape keeps swapped axes that it passes through whole, and makes swapped axes that it
    merges into one (``x.flatten(1)`` of a ``(C, H, W)`` image) one permutation of that axis; a
    permutation of one axis split into a grid it turns (the pixels back into ``(H, W)``) swaps them.
    The per-axis rule of ``view`` hands it the reshapes it cannot follow axis by axis."""
    m = plain(call.moves["self"])
    old, new = call.shape("self"), tuple(call.out.shape)
    found = reshape_groups(old, new)
    if found is None:
        raise NoRule("a reshape that splits or merges a moving axis")
    o = normal_order(m, old)
    whole = {gi[0]: gj[0] for gi, gj in found if len(gi) == len(gj) == 1}
    axes, order = [None] * len(new), list(range(len(new)))
    for gi, gj in found:
        if all(o[a] in gi for a in gi):  # the order keeps the group: a permutation of its points
            if all(o[a] == a and m.axes[a] is None for a in gi):
                continue
            flat = _flat(m, o, gi, old)
            parts = mv.factor(flat, [new[b] for b in gj])
            if parts is False:  # not axis by axis: a grid that turns, split back out of its pixels
                found = mv.turn(flat, [new[b] for b in gj]) if len(gj) > 1 else None
                if found is None:
                    raise NoRule("a reshape that splits a moving axis otherwise than into a grid")
                inner, parts = found
                for k, b in enumerate(gj):
                    order[b] = gj[inner[k]]
            for b, q in zip(gj, parts):
                axes[b] = q
        elif len(gi) == len(gj) == 1 and o[gi[0]] in whole:  # passed through whole, and its partner too
            axes[gj[0]] = m.axes[gi[0]]
            order[gj[0]] = whole[o[gi[0]]]
        else:
            raise NoRule("a reshape that merges an axis with part of the axes it is swapped with")
    return mv.with_order(axes, order)


def _operands(call):
    return [(v, call.moves.get(name)) for name, v in call.args.items() if isinstance(v, torch.Tensor)]


@turned(aten.copy_.default)
def copy(call):
    """``self.copy_(src)`` of the same shape: every entry becomes ``src``'s."""
    src, m = call.args["src"], call.moves["src"]
    if m is None or tuple(src.shape) != tuple(call.out.shape) or call.moves.get("self") is not None:
        raise NoRule("a copy into a tensor that moves, or broadcast, under swapped axes")
    m = plain(m)
    return mv.with_order(m.axes, m.order)


def elementwise(call):
    """Operands broadcast together, entry by entry: every operand that moves swaps the same axes
    (where it has more than one entry), and a constant is broadcast along the swapped axes (one
    entry there); along the other axes as any elementwise operation."""
    out_shape = tuple(call.out.shape)
    nd = len(out_shape)
    order = [None] * nd
    stripped = []
    for t, m in _operands(call):
        shift = nd - t.dim()
        if m is None:
            stripped.append((t, m))
            continue
        plain(m)
        o = normal_order(m, tuple(t.shape))
        for a in range(t.dim()):
            if t.shape[a] == 1:
                continue
            want = shift + o[a]
            if order[shift + a] is None:
                order[shift + a] = want
            elif order[shift + a] != want:
                raise NoRule("operands whose axes are swapped otherwise")
        stripped.append((t, mv.Moves(m.axes, uniform=m.uniform)))
    order = [a if o is None else o for a, o in enumerate(order)]
    if sorted(order) != list(range(nd)):
        raise NoRule("operands whose axes are swapped otherwise")
    swapped = {a for a in range(nd) if order[a] != a}
    for t, m in _operands(call):  # an operand that moves swaps them alike (above)
        shift = nd - t.dim()
        if m is None and any(a >= shift and t.shape[a - shift] != 1 and t.stride(a - shift) != 0 for a in swapped):
            raise NoRule("a constant laid along axes the generator swaps")
    perms, conditions = broadcast(stripped, nd)
    return Out(mv.with_order(perms, order), conditions)


turned(POINTWISE, aten._prelu_kernel.default, aten.masked_fill_.Scalar, aten.masked_fill_.Tensor)(elementwise)


@turned(
    aten.sum.dim_IntList,
    aten.sum.default,
    aten.mean.dim,
    aten.mean.default,
    aten.amax.default,
    aten.amin.default,
    aten.var.correction,
    aten.std.correction,
    aten.logsumexp.default,
    aten.linalg_vector_norm.default,
    aten.max.default,
    aten.min.default,
)
def reduction(call):
    """A reduction over axes that the order maps onto themselves (both of the swapped axes, or
    neither) does not see the entries' order: the reduced axes' moves disappear."""
    m = plain(call.moves["self"])
    shape = call.shape("self")
    nd = len(shape)
    dims = reduced_axes(call, nd)
    o = normal_order(m, shape)
    if {o[a] for a in dims} != dims:
        raise NoRule("a reduction over one of two axes the generator swaps")
    axes = [None if a in dims else p for a, p in enumerate(m.axes)]
    order = [a if a in dims else o[a] for a in range(nd)]
    m = mv.Moves(tuple(axes), order=tuple(order))
    if call.args.get("keepdim"):
        return mv.with_order(m.axes, order)
    return _drop(m, tuple(1 if a in dims else s for a, s in enumerate(shape)), dims)


def convolution(call):  # the rule under swapped axes: grid_conv.convolution, which also reads padded axes
    """A convolution with a kernel of width 1, stride 1 and no padding maps each position on its
    own: the spatial axes keep their moves, swapped or not.  Batch and channels stay in place."""
    w = call.args["weight"]
    m = plain(call.moves["input"])
    if call.moves.get("weight") is not None or call.moves.get("bias") is not None:
        raise NoRule("a convolution whose kernel depends on the inputs")
    pointwise = (
        all(int(k) == 1 for k in w.shape[2:])
        and all(int(s) == 1 for s in call.args["stride"])
        and all(int(p) == 0 for p in call.args["padding"])
        and not call.args["transposed"]
    )
    if not pointwise:
        raise NoRule("a convolution with a kernel wider than 1 under swapped axes")
    o = normal_order(m, call.shape("input"))
    if o[0] != 0 or o[1] != 1 or mv.moving(m.axes[1]):
        raise NoRule("a convolution over channels that move")
    return mv.with_order((m.axes[0], None) + tuple(m.axes[2:]), o)
