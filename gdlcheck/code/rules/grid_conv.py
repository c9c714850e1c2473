"""Circular convolutions under turns and mirrors of their grid: the kernel's condition.

A ``Conv2d`` with circular padding reads, at output position ``p``, the input at ``p + delta`` over
the kernel's offsets ``delta``.  Under a move ``g(p) = A p + t`` of the grid (``A`` swaps or
reverses axes: a rotation or a mirror) the moved output at ``g(p)`` reads the input at
``p + A^-1 delta``, so it is the output moved by ``g`` exactly where the kernel turned by ``A`` is
the kernel (a C4- or D4-symmetric kernel), or is the kernel of another output channel (a P4
lifting layer, whose channels are one kernel's rotations ``rot90(k, r)``): the channels then move
too.  The unit of :mod:`gdlcheck.code.rules.units` calls :func:`turned_convolution` for every move
that is not a translation.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code import moves as mv
from gdlcheck.code.rules.grid import normal_order, plain
from gdlcheck.code.table import NoRule


def _affine(p, n: int):
    """``p`` as ``i -> e i + t mod n`` with ``e = +1`` or ``-1``: ``(e, t)``, or None."""
    i = np.arange(n)
    if p is None:
        return 1, 0
    t = int(p[0])
    for e in (1, -1):
        if np.array_equal(np.asarray(p), (e * i + t) % n):
            return e, t
    return None


def turned_kernel(w: np.ndarray, order: tuple, signs: tuple) -> np.ndarray:
    """The kernel turned as the grid turns: ``W'[..., v] = W[..., u]`` with
    ``v_k = e_k (u_order[k] - r) + r`` (``r`` the kernel's centre): a permutation of its spatial
    axes, then a reversal of those whose sign is -1."""
    lead = w.ndim - len(order)
    out = np.transpose(w, tuple(range(lead)) + tuple(lead + o for o in order))
    for k, e in enumerate(signs):
        if e == -1:
            out = np.flip(out, lead + k)
    return out


def channel_match(w: np.ndarray, turned_w: np.ndarray, bias, groups: int):
    """The permutation ``pi`` of the output channels with ``W[pi[o]] = turned W[o]`` and
    ``b[pi[o]] = b[o]`` bit for bit (equal channels matched in their order), or None.  With
    grouped channels, each stays in its group."""
    cout = w.shape[0]
    b = np.zeros(cout) if bias is None else bias
    have = [w[o].tobytes() + np.asarray(b[o]).tobytes() for o in range(cout)]
    want = [turned_w[o].tobytes() + np.asarray(b[o]).tobytes() for o in range(cout)]
    free: dict = {}
    for o, key in enumerate(have):
        free.setdefault(key, []).append(o)
    pi = np.empty(cout, dtype=np.int64)
    for o, key in enumerate(want):
        if not free.get(key):
            return None
        pi[o] = free[key].pop(0)
    size = cout // groups
    if groups > 1 and not np.array_equal(pi // size, np.arange(cout) // size):
        return None
    return pi


def turned_convolution(module, moves, x, out):
    """A circular convolution under a move of its spatial axes that is affine on each
    (``i -> +-i + t``, perhaps swapping axes): output position ``p`` reads ``x`` at ``p + delta``
    over the kernel's offsets, so with ``g(p) = A p + t`` the moved output at ``g(p)`` reads
    ``x`` at ``p + A^-1 delta``; it is the output moved by ``g`` where the kernel turned by ``A``
    is the kernel, up to a permutation ``pi`` of the output channels (a lifting layer's rotated
    copies, with their biases), which then moves the channel axis by ``pi``.  The offsets must be
    centred (symmetric padding) and alike on swapped axes; the input channels stay in place."""
    spatial = len(module.kernel_size)
    nd = x.dim()
    lead = nd - spatial - 1
    m = plain(moves)
    o = normal_order(m, tuple(x.shape))
    if any(o[a] != a for a in range(lead + 1)) or mv.moving(m.axes[lead]):
        raise NoRule("a convolution over channels that move")
    sp_order = tuple(o[lead + 1 + k] - lead - 1 for k in range(spatial))
    signs = []
    for k in range(spatial):
        found = _affine(m.axes[lead + 1 + k], x.shape[lead + 1 + k])
        if found is None:
            raise NoRule("a circular convolution under a move that is not a turn, mirror or shift")
        signs.append(found[0])
    ks, dil = tuple(module.kernel_size), tuple(module.dilation)
    # the padding the forward pass applies (F.pad's order: the last axis first, left then right)
    pads = [int(v) for v in module._reversed_padding_repeated_twice]
    left = [pads[2 * (spatial - 1 - k)] for k in range(spatial)]
    right = [pads[2 * (spatial - 1 - k) + 1] for k in range(spatial)]
    if any(left[k] != right[k] or 2 * left[k] != dil[k] * (ks[k] - 1) for k in range(spatial)):
        raise NoRule("a convolution whose offsets are not centred")
    if any(ks[k] != ks[c] or dil[k] != dil[c] for k, c in enumerate(sp_order)):
        raise NoRule("a kernel unlike along two axes the generator swaps")
    w = module.weight.detach().cpu().numpy()
    bias = None if module.bias is None else module.bias.detach().cpu().numpy()
    pi = channel_match(w, turned_kernel(w, sp_order, tuple(signs)), bias, module.groups)
    if pi is None:
        raise NoRule("the kernel turned as the grid turns is none of its output channels")
    axes = list(m.axes)
    axes[lead] = None if mv.is_identity(pi) else pi
    return mv.with_order(axes, o)
