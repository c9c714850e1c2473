"""Layout operations: the same entries in other places.  A view, a transpose or a copy moves its
axes' permutations with them; a reshape keeps a moving axis only when it stays whole (or splits
into axes whose permutations multiply back to it); a slice or a selected entry needs the
generator to map the chosen indices onto themselves (``x[:, 0]`` of a ``cat([cls, x])``)."""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import axes_or_still, reshape_groups, squeezed_axes, uniform
from gdlcheck.code.prover.table import Broken, Fixed, NoRule, Out, constant, rule

aten = torch.ops.aten


def _same(call, name="self"):
    m = call.moves.get(name)
    return mv.still(call.out.dim()) if m is None else mv.Moves(m.axes, m.labels)


@rule(aten._to_copy.default)
def cast(call):
    """A copy, perhaps into another dtype: node labels stay labels only in an integer dtype that
    holds every label (``int8`` wraps label 256 onto 0, ``bool`` makes every label but 0 one,
    ``half`` rounds labels past 2048): else equal labels would not be equal nodes."""
    m = call.moves.get("self")
    lam = None if m is None else m.labels
    if lam is not None:
        dtype = call.args.get("dtype") or call.args["self"].dtype
        if dtype.is_floating_point or dtype.is_complex or dtype == torch.bool:
            raise NoRule(f"node labels cast to {dtype}")
        info = torch.iinfo(dtype)
        if info.min > 0 or info.max < len(mv.known(lam)) - 1:
            raise NoRule(f"node labels cast to {dtype}, which does not hold every label")
    return _same(call)


@rule(
    aten.alias.default,
    aten.detach.default,
    aten.clone.default,
    aten.lift_fresh.default,
    aten.lift_fresh_copy.default,
    aten.contiguous.default,
)
def same_entries(call):
    """The same entries (``contiguous`` reaches the walk in inference mode only; ``resolve_conj`` and
    ``resolve_neg`` never do: torch decomposes them before the dispatcher's Python modes.)"""
    return _same(call)


@rule(
    aten.new_zeros.default,
    aten.new_ones.default,
    aten.new_full.default,
    aten.new_empty.default,
    aten.zeros_like.default,
    aten.ones_like.default,
    aten.full_like.default,
    aten.empty_like.default,
    aten.new_empty_strided.default,
    aten.empty_strided.default,
)
@constant
def shaped_like(call):
    """A new tensor of the shape of another, filled with a constant: it does not depend on the
    other's values, so it is a constant of the call (never called: the walker reads the mark)."""


@rule(aten.t.default, aten.numpy_T.default)  # numpy_T: ``x.T`` kept whole (inference mode)
def transpose_2d(call):
    """The axes reversed (``t`` of at most two axes, ``x.T`` of any number)."""
    m = call.moves["self"]
    return mv.Moves(tuple(reversed(m.axes)), m.labels)


@rule(aten.transpose.int)
def transpose(call):
    m = call.moves["self"]
    nd = call.ndim("self")
    a, b = call.args["dim0"] % max(nd, 1), call.args["dim1"] % max(nd, 1)
    axes = list(m.axes)
    axes[a], axes[b] = axes[b], axes[a]
    return mv.Moves(tuple(axes), m.labels)


@rule(aten.permute.default)
def permute(call):
    m = call.moves["self"]
    nd = call.ndim("self")
    return mv.Moves(tuple(m.axes[d % nd] for d in call.args["dims"]), m.labels)


@rule(aten.unsqueeze.default)
def unsqueeze(call):
    m = call.moves["self"]
    d = call.args["dim"] % (call.ndim("self") + 1)
    axes = list(m.axes)
    axes.insert(d, None)
    return mv.Moves(tuple(axes), m.labels)


@rule(aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims)
def squeeze(call):
    m = call.moves["self"]
    shape = call.shape("self")
    gone = squeezed_axes(call, shape)
    return mv.Moves(tuple(p for a, p in enumerate(m.axes) if a not in gone), m.labels)


@rule(aten.expand.default)
def expand(call):
    """New leading axes and size-1 axes broadcast to the new size do not move."""
    m = call.moves["self"]
    old = call.shape("self")
    new = tuple(call.out.shape)
    shift = len(new) - len(old)
    axes = [None] * shift + [p if old[a] == new[a + shift] else None for a, p in enumerate(m.axes)]
    return mv.Moves(tuple(axes), m.labels)


@rule(aten.view.default, aten._unsafe_view.default)
def view(call):
    m = call.moves["self"]
    old, new = call.shape("self"), tuple(call.out.shape)
    axes = reshape(old, new, m.axes)
    if axes is None:  # perhaps the pixels of a grid that turns, split back into its axes
        from gdlcheck.code.prover.rules import grid

        try:
            return grid.view(call)
        except NoRule:
            raise NoRule("a reshape that splits or merges a moving axis") from None
    return mv.Moves(tuple(axes), m.labels)


def reshape(old, new, perms):
    """Each axis's permutation after a row-major reshape from ``old`` to ``new``, or None.

    >>> p = np.array([1, 0])
    >>> [None if q is None else q.tolist() for q in reshape((2, 3), (2, 3, 1), (p, None))]
    [[1, 0], None, None]
    >>> [None if q is None else q.tolist() for q in reshape((1, 2, 3), (2, 3), (None, p, None))]
    [[1, 0], None]
    """
    groups = reshape_groups(old, new)
    if groups is None:
        return None
    out = [None] * len(new)
    for gi, gj in groups:
        group = [perms[a] for a in gi]
        if all(p is None for p in group):
            continue
        if len(gi) == 1 and len(gj) == 1:
            out[gj[0]] = group[0]
            continue
        merged = mv.product(group, [old[a] for a in gi])
        parts = mv.factor(merged, [new[b] for b in gj])
        if parts is False:
            return None
        for b, q in zip(gj, parts):
            out[b] = q
    return out


@rule(aten.select.int)
def select(call):
    m = call.moves["self"]
    nd = call.ndim("self")
    d = call.args["dim"] % nd
    k = call.args["index"] % call.shape("self")[d]
    p = m.axes[d]
    if p is not None and int(p[k]) != k:
        return Out(None, [Broken(f"entry {k} of an axis the generator moves (to {int(p[k])})")])
    return mv.Moves(m.axes[:d] + m.axes[d + 1 :], m.labels)


def _range(call, name="self"):
    nd = call.ndim(name)
    d = call.args["dim"] % nd
    size = call.shape(name)[d]
    start, end, step = call.args.get("start"), call.args.get("end"), call.args.get("step") or 1
    return d, np.arange(size)[slice(start, end, step)]


@rule(aten.slice.Tensor)
def slice_(call):
    m = call.moves["self"]
    d, index = _range(call)
    p = m.axes[d]
    r = mv.restrict(p, index)
    if r is False:
        return Out(None, [Broken("a slice of an axis the generator does not map onto itself")])
    axes = list(m.axes)
    axes[d] = None if r is None or mv.is_identity(r) else r
    return mv.Moves(tuple(axes), m.labels)


def _pieces(call, sizes):
    m = call.moves["self"]
    d = call.args["dim"] % call.ndim("self")
    p = m.axes[d]
    out, start = [], 0
    for size in sizes:
        index = np.arange(start, start + size)
        start += size
        r = mv.restrict(p, index)
        if r is False:
            raise NoRule("a split of an axis the generator does not map onto each piece")
        axes = list(m.axes)
        axes[d] = None if r is None or mv.is_identity(r) else r
        out.append(mv.Moves(tuple(axes), m.labels))
    return tuple(out)


@rule(aten.split.Tensor)
def split(call):
    return _pieces(call, [int(t.shape[call.args["dim"]]) for t in call.out])


@rule(aten.split_with_sizes.default)
def split_with_sizes(call):
    return _pieces(call, list(call.args["split_sizes"]))


@rule(aten.unbind.int)
def unbind(call):
    m = call.moves["self"]
    d = call.args["dim"] % call.ndim("self")
    p = m.axes[d]
    if mv.moving(p):
        raise NoRule("unbind of an axis the generator moves")
    return tuple(mv.Moves(m.axes[:d] + m.axes[d + 1 :], m.labels) for _ in range(call.shape("self")[d]))


@rule(aten.cat.default)
def cat(call):
    """Blocks of one axis, each moved by its own permutation: the axis moves by their
    concatenation; every other axis must move alike in every block (constants fixed there)."""
    tensors = [t for t in call.args["tensors"] if not (t.dim() == 1 and t.shape[0] == 0)]
    ms = [m for t, m in zip(call.args["tensors"], call.moves["tensors"]) if not (t.dim() == 1 and t.shape[0] == 0)]
    nd = call.out.dim()
    d = call.args["dim"] % nd
    labels = [m.labels for m in ms if m is not None and m.labels is not None]
    lam = labels[0] if labels else None
    parts, sizes, conditions = [], [], []
    others = [None] * nd
    for m in ms:
        axes = axes_or_still(m, nd)
        for a in range(nd):
            if a != d and axes[a] is not None:
                if others[a] is not None and not mv.same(others[a], axes[a]):
                    raise NoRule("blocks moved differently")
                others[a] = axes[a]
    for t, m in zip(tensors, ms):
        axes = axes_or_still(m, nd)
        if m is None and lam is not None:
            # a constant block beside node labels: it must itself be labels that the relabelling
            # maps to a permutation of its own entries (the self-loops arange(n) of add_self_loops)
            q = _as_labels(t, lam, d)
            if q is False:
                raise NoRule("a constant beside node labels that the relabelling does not map onto itself")
            parts.append(q)
        elif m is not None and m.labels is not None and not mv.same(m.labels, lam):
            raise NoRule("blocks of labels relabelled differently")
        elif m is not None and lam is not None and m.labels is None:
            raise NoRule("node labels beside values that are not labels")
        else:
            parts.append(axes[d])
        sizes.append(t.shape[d])
        need = {a: others[a] for a in range(nd) if a != d and axes[a] is None and mv.moving(others[a])}
        if need and m is not None:
            need = {a: p for a, p in need.items() if not uniform(t, m, a)}
        if need:
            if m is not None:
                raise NoRule("a block that does not move where the others do")
            conditions.append(Fixed(t, need))
    axes = list(others)
    axes[d] = mv.concat(parts, sizes)
    return Out(mv.Moves(tuple(axes), lam), conditions)


def _as_labels(t, lam, d):
    """The permutation ``q`` of axis ``d`` with ``t[..., q[k]] = lam[t[..., k]]``, when the constant
    ``t`` holds labels that way (every slice along the other axes relabelled alike), else False."""
    if t.dtype.is_floating_point or t.dim() == 0:
        return False
    values = t.detach().cpu().numpy()
    values = np.moveaxis(values, d, -1).reshape(-1, values.shape[d])
    if values.size and (values.min() < 0 or values.max() >= len(lam)):
        return False
    q = None
    for row in values:
        r = mv.restrict(None if lam is None else lam, row) if lam is not None else None
        if r is False:
            return False
        if q is None:
            q = r
        elif not mv.same(q, r):
            return False
    return q
