"""Stacking, repeating and rolling, and the softmax that leaves a row of ``-inf`` at zero.

* ``stack`` lays tensors side by side on a new axis: the new axis does not move, and every other
  axis must move alike in every piece (a constant piece fixed there), as ``cat``'s other axes;
* ``repeat`` tiles an axis ``r`` times: a moving axis of ``s`` entries becomes ``r`` copies of its
  permutation, ``(block, entry)`` row-major;
* ``roll`` by ``s`` along a moving axis moves it by the permutation conjugated by the roll
  (``q[i] = p[i - s] + s``): a shift again under the cyclic group, another reflection under the
  dihedral one (so ``x + roll(x)`` is proved only where it is equivariant);
* ``_safe_softmax`` (``scaled_dot_product_attention`` with a float mask in float64) is a softmax
  whose fully masked rows are 0: it keeps every permutation of every axis.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import axes_or_still, uniform
from gdlcheck.code.prover.table import Fixed, NoRule, Out, rule

aten = torch.ops.aten


@rule(aten.stack.default)
def stack(call):
    tensors, ms = call.args["tensors"], call.moves["tensors"]
    nd = call.out.dim()
    d = call.args["dim"] % nd
    labels = {id(m.labels): m.labels for m in ms if m is not None and m.labels is not None}
    if len(labels) > 1 or (labels and any(m is None or m.labels is None for m in ms)):
        raise NoRule("node labels stacked beside values relabelled otherwise")
    axes = [None] * (nd - 1)
    for t, m in zip(tensors, ms):
        for a, p in enumerate(axes_or_still(m, t.dim())):
            if p is None:
                continue
            if axes[a] is not None and not mv.same(axes[a], p):
                raise NoRule("pieces moved differently")
            axes[a] = p
    conditions = []
    for t, m in zip(tensors, ms):
        mine = axes_or_still(m, t.dim())
        need = {a: axes[a] for a in range(t.dim()) if mine[a] is None and mv.moving(axes[a]) and t.shape[a] != 1}
        if not need:
            continue
        if m is not None and not all(uniform(t, m, a) for a in need):
            raise NoRule("a piece that does not move where the others do")
        if m is None:
            conditions.append(Fixed(t, need))
    out = list(axes)
    out.insert(d, None)
    return Out(mv.Moves(tuple(out), next(iter(labels.values()), None)), conditions)


@rule(aten.repeat.default)
def repeat(call):
    m = call.moves["self"]
    shape = call.shape("self")
    reps = [int(r) for r in call.args["repeats"]]
    new = len(reps) - len(shape)
    axes = [None] * new
    for a, p in enumerate(m.axes):
        r = reps[new + a]
        axes.append(p if r == 1 or mv.known(p) is None else mv.product([None, p], [r, shape[a]]))
    # a size-1 axis repeated holds one entry r times (an invariant value laid along the points), and
    # a new leading axis holds the whole tensor r times
    same = {new + a for a in range(len(shape)) if shape[a] == 1 and reps[new + a] > 1}
    return mv.Moves(tuple(axes), m.labels, frozenset(same | {a for a in range(new) if reps[a] > 1}))


@rule(aten.roll.default)
def roll(call):
    m = call.moves["self"]
    shifts, dims = list(call.args["shifts"]), list(call.args["dims"] or [])
    shape = call.shape("self")
    if not dims:  # the flattened tensor rolled: no axis's permutation survives but a still one
        if any(mv.moving(p) for p in m.axes):
            raise NoRule("a roll of the flattened entries of a moving tensor")
        return mv.Moves(m.axes, m.labels)
    axes = list(m.axes)
    for s, d in zip(shifts, dims):
        d %= len(shape)
        p = mv.known(axes[d])
        if p is None:
            continue
        n = shape[d]
        i = np.arange(n)
        axes[d] = (p[(i - int(s)) % n] + int(s)) % n
    return mv.Moves(tuple(axes), m.labels)


@rule(aten._safe_softmax.default)
def safe_softmax(call):
    m = call.moves["self"]
    if m.labels is not None:
        raise NoRule("a softmax of node labels")
    return mv.Moves(m.axes)
