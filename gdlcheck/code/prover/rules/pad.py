"""A circular convolution written by hand: ``F.pad(x, pad, mode="circular")`` and the convolution
that reads what it padded (Theorem 1 without ``nn.ConvNd``).

* ``F.pad`` in circular mode is a theorem about torch's function, met where the call enters it
  (``torch._C._nn.pad``; its operations write the pads slice by slice from the middle, which no
  rule follows): each padded
  axis of length ``left + n + right`` holds at ``i`` the input's entry ``(i - left) mod n``.  Where
  the input's axis moves by ``p``, the padded axis is no permutation of its own entries (the pads
  copy other entries in the two calls): it is a :class:`~gdlcheck.code.prover.moves.Wrapped` axis, which
  the walk hands only to the rules marked ``wrapped``.  Under a move that swaps axes (a turn of a
  square grid, ``X'[q_0[j_o0], q_1[j_o1]] = X[j]``) the padded tensor keeps the order: each padded
  axis ``a`` is a :class:`~gdlcheck.code.prover.moves.Wrapped` axis of base ``q_a``, the padded ``X'``
  being ``X'`` padded alike, so two axes the move swaps must be padded alike.
* ``aten.convolution`` of such axes, with stride 1, dilation 1, no padding of its own and
  ``left + right = kernel - 1`` (at most ``n`` taps), is the circular convolution
  ``y[i] = sum_d c[d] x[(i + d) mod n]`` with ``c[(t - left) mod n] = K[t]``: ``y`` has the input's
  length, and it moves by ``p`` when ``p`` is ``j -> a j + b mod n`` and ``c[a d] = c[d]`` (for every
  input: ``y'[p(j)] = sum_d c[a d] x[j + d]``), or ``c[pi o, a d] = c[o, d]`` with the output
  channels moved by ``pi``.  A shift (``a = 1``) asks nothing of the kernel; a reflection
  (``a = -1``) asks that it be symmetric in its offsets, checked on the kernel's values as a
  permutation of its taps; a turn of the grid asks the same of the turned kernel
  (:func:`gdlcheck.code.prover.rules.grid_conv.padded_convolution`, which works the index algebra out for
  every such move).  Axes the generator leaves alone may be convolved in any way.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.grid import normal_order
from gdlcheck.code.prover.table import NoRule, function

_PAD_ARGS = ("input", "pad", "mode", "value")


@function(torch._C._nn.pad)  # what F.pad calls (and nn.ConvNd, nn.CircularPadNd through it)
def circular_pad(args, kwargs, moves, x, out):
    """Each axis padded circularly and moved by ``p`` becomes a :class:`~gdlcheck.code.prover.moves.Wrapped`
    axis; the others keep their moves.  Other modes are not this theorem (None)."""
    bound = dict(zip(_PAD_ARGS, args))
    bound.update({k: v for k, v in (kwargs or {}).items() if k in _PAD_ARGS})
    mode = bound.get("mode", "constant")
    if type(mode) is not str or mode != "circular":  # a str subclass's == is the program's: torch reads the str
        return None
    if moves.labels is not None:
        raise NoRule("circular padding of node labels")
    if type(bound["pad"]) not in (list, tuple, torch.Size) or any(type(v) is not int for v in bound["pad"]):
        raise NoRule("circular padding by amounts that are not plain ints")  # int() of a subclass is its own
    pad = list(bound["pad"])
    axes = list(moves.axes)
    nd = x.dim()
    o = normal_order(moves, tuple(x.shape))
    amounts = {nd - 1 - k: (pad[2 * k], pad[2 * k + 1]) for k in range(len(pad) // 2)}
    for d in range(nd):
        if o[d] != d and amounts.get(d, (0, 0)) != amounts.get(o[d], (0, 0)):
            raise NoRule("circular padding unlike on two axes the generator swaps")
    for d, (left, right) in amounts.items():
        p = axes[d]
        if left == right == 0:
            continue
        if min(left, right) < 0 or max(left, right) > x.shape[d]:
            raise NoRule("circular padding that crops, or wraps more than once")
        if isinstance(p, mv.Unordered):
            raise NoRule("circular padding of an axis in an order not known")
        base = np.arange(x.shape[d], dtype=np.int64) if p is None else np.asarray(p, dtype=np.int64)
        axes[d] = mv.Wrapped(base, int(x.shape[d]), left, right) if mv.moving(p) or o[d] != d else None
    return mv.with_order(axes, o)


circular_pad.turns = True  # it follows moves that swap axes (the padded axes keep the order)


def affine(p: np.ndarray):
    """``(a, b)`` when ``p[j] = a j + b mod n`` for every ``j``, else None."""
    n = len(p)
    a, b = int(p[1] - p[0]) % n if n > 1 else 1, int(p[0])
    return (a, b) if np.array_equal(p, (a * np.arange(n) + b) % n) else None


def _at(values: list, d: int) -> int:
    """The value of spatial axis ``d`` (one value stands for every axis)."""
    return int(values[d] if len(values) > 1 else values[0])
