"""A circular convolution written by hand: ``F.pad(x, pad, mode="circular")`` and the convolution
that reads what it padded (Theorem 1 without ``nn.ConvNd``).

* ``F.pad`` in circular mode is a theorem about torch's function, met where the call enters it
  (``torch._C._nn.pad``; its operations write the pads slice by slice from the middle, which no
  rule follows): each padded
  axis of length ``left + n + right`` holds at ``i`` the input's entry ``(i - left) mod n``.  Where
  the input's axis moves by ``p``, the padded axis is no permutation of its own entries (the pads
  copy other entries in the two calls): it is a :class:`~gdlcheck.code.moves.Wrapped` axis, which
  the walk hands only to the rules marked ``wrapped``.
* ``aten.convolution`` of such an axis, with stride 1, dilation 1, no padding of its own and
  ``left + right = kernel - 1`` (at most ``n`` taps), is the circular convolution
  ``y[i] = sum_d c[d] x[(i + d) mod n]`` with ``c[(t - left) mod n] = K[t]``: ``y`` has the input's
  length, and it moves by ``p`` when ``p`` is ``j -> a j + b mod n`` and ``c[a d] = c[d]`` (for every
  input: ``y'[p(j)] = sum_d c[a d] x[j + d]``).  A shift (``a = 1``) asks nothing of the kernel; a
  reflection (``a = -1``) asks that it be symmetric in its offsets, checked on the kernel's values
  as a permutation of its taps.  Axes the generator leaves alone may be convolved in any way.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code import moves as mv
from gdlcheck.code.table import Fixed, NoRule, Out, function

_PAD_ARGS = ("input", "pad", "mode", "value")


@function(torch._C._nn.pad)   # what F.pad calls (and nn.ConvNd, nn.CircularPadNd through it)
def circular_pad(args, kwargs, moves, x, out):
    """Each axis padded circularly and moved by ``p`` becomes a :class:`~gdlcheck.code.moves.Wrapped`
    axis; the others keep their moves.  Other modes are not this theorem (None)."""
    bound = dict(zip(_PAD_ARGS, args))
    bound.update({k: v for k, v in (kwargs or {}).items() if k in _PAD_ARGS})
    if bound.get("mode", "constant") != "circular":
        return None
    if moves.labels is not None:
        raise NoRule("circular padding of node labels")
    pad = [int(v) for v in bound["pad"]]
    axes = list(moves.axes)
    nd = x.dim()
    for k in range(len(pad) // 2):
        d = nd - 1 - k
        left, right, p = pad[2 * k], pad[2 * k + 1], axes[d]
        if left == right == 0:
            continue
        if min(left, right) < 0 or max(left, right) > x.shape[d]:
            raise NoRule("circular padding that crops, or wraps more than once")
        if isinstance(p, mv.Unordered):
            raise NoRule("circular padding of an axis in an order not known")
        axes[d] = mv.Wrapped(np.asarray(p, dtype=np.int64), int(x.shape[d]), left, right) if mv.moving(p) else None
    return mv.Moves(tuple(axes))


def affine(p: np.ndarray):
    """``(a, b)`` when ``p[j] = a j + b mod n`` for every ``j``, else None."""
    n = len(p)
    a, b = int(p[1] - p[0]) % n if n > 1 else 1, int(p[0])
    return (a, b) if np.array_equal(p, (a * np.arange(n) + b) % n) else None


def _taps(p: mv.Wrapped, k: int) -> np.ndarray | None:
    """The permutation of the kernel's taps by which ``c[a d] = c[d]`` reads ``K[q[t]] = K[t]`` (None for
    a shift); NoRule when the map is not affine or carries a tap's offset outside the kernel."""
    found = affine(p.base)
    if found is None:
        raise NoRule("a circular convolution commutes with maps j -> a j + b mod n, not with this permutation")
    a, n = found[0], p.period
    if a == 1:
        return None
    offsets = (np.arange(k) - p.left) % n          # tap t reads offset d = t - left
    q = (a * offsets + p.left) % n                 # the tap of offset a d
    if (q >= k).any():
        raise NoRule("the map carries an offset of the kernel outside it")
    return q


def _at(values: list, d: int) -> int:
    """The value of spatial axis ``d`` (one value stands for every axis)."""
    return int(values[d] if len(values) > 1 else values[0])


def circular_convolution(call):
    """``aten.convolution`` of an input with axes padded circularly (module docstring)."""
    w, m = call.args["weight"], call.moves["input"]
    if m.labels is not None:
        raise NoRule("a convolution of node labels")
    if call.moves.get("weight") is not None or call.moves.get("bias") is not None:
        raise NoRule("a convolution whose kernel depends on the inputs")
    if call.args["transposed"]:
        raise NoRule("a transposed convolution of an axis padded circularly")
    if isinstance(m.axes[0], mv.Wrapped) or isinstance(m.axes[1], mv.Unordered) or mv.moving(m.axes[1]):
        raise NoRule("a convolution over channels that move")
    stride, padding, dilation = (list(call.args[k]) for k in ("stride", "padding", "dilation"))
    spatial = w.dim() - 2
    out_axes, taps = [m.axes[0], None], {}
    for d in range(spatial):
        p, k = m.axes[2 + d], int(w.shape[2 + d])
        if not isinstance(p, mv.Wrapped):
            if isinstance(p, mv.Unordered) or mv.moving(p):
                raise NoRule("a convolution along an axis that moves without circular padding")
            out_axes.append(None)
            continue
        if _at(stride, d) != 1 or _at(dilation, d) != 1 or _at(padding, d) != 0:
            raise NoRule("a circular convolution with a stride, a dilation or padding of its own")
        if p.left + p.right != k - 1 or k > p.period:
            raise NoRule("a circular convolution whose output is not as long as its input")
        q = _taps(p, k)
        if q is not None:
            taps[2 + d] = q
        out_axes.append(p.base)
    return Out(mv.Moves(tuple(out_axes)), [Fixed(w, taps, "circular_kernel")] if taps else [])
