"""Circular convolutions under turns and mirrors of their grid: the kernel's condition.

A ``Conv2d`` with circular padding reads, at output position ``p``, the input at ``p + delta`` over
the kernel's offsets ``delta``.  Under a move ``g(p) = A p + t`` of the grid (``A`` swaps or
reverses axes: a rotation or a mirror) the moved output at ``g(p)`` reads the input at
``p + A^-1 delta``, so it is the output moved by ``g`` exactly where the kernel turned by ``A`` is
the kernel (a C4- or D4-symmetric kernel), or is the kernel of another output channel (a P4
lifting layer, whose channels are one kernel's rotations ``rot90(k, r)``): the channels then move
too.  The unit of :mod:`gdlcheck.code.prover.rules.units` calls :func:`turned_convolution` for every move
that is not a translation.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules import grid
from gdlcheck.code.prover.rules.grid import normal_order, plain
from gdlcheck.code.prover.rules.pad import _at, affine
from gdlcheck.code.prover.table import Fixed, NoRule, Out, turned


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


def spatial_axes(module) -> int:
    """The spatial axes of a ``Conv1d``/``Conv2d``/``Conv3d`` by its class, whose forward calls
    ``conv1d``/``conv2d``/``conv3d`` (its ``kernel_size`` attribute is read by no computation)."""
    return {torch.nn.Conv1d: 1, torch.nn.Conv2d: 2, torch.nn.Conv3d: 3}[type(module)]


def _as_torch_reads(module) -> None:
    """The kernel's values and sizes the condition reads are those torch computes with: a tensor
    subclass's ``detach`` or an ``int`` subclass's ``int()`` is the program's code (torch reads the
    values underneath), so only torch's own types are read."""
    if any(t is not None and type(t) not in (torch.nn.Parameter, torch.Tensor) for t in (module.weight, module.bias)):
        raise NoRule("a convolution whose kernel is a tensor subclass")
    sizes = (module.kernel_size, module.dilation, module._reversed_padding_repeated_twice)
    if type(module.groups) is not int or any(
        type(f) not in (tuple, list) or any(type(v) is not int for v in f) for f in sizes
    ):
        raise NoRule("a convolution whose sizes are not plain ints")


def turned_convolution(module, moves, x, out):
    """A circular convolution under a move of its spatial axes that is affine on each
    (``i -> +-i + t``, perhaps swapping axes): output position ``p`` reads ``x`` at ``p + delta``
    over the kernel's offsets, so with ``g(p) = A p + t`` the moved output at ``g(p)`` reads
    ``x`` at ``p + A^-1 delta``; it is the output moved by ``g`` where the kernel turned by ``A``
    is the kernel, up to a permutation ``pi`` of the output channels (a lifting layer's rotated
    copies, with their biases), which then moves the channel axis by ``pi``.  The offsets must be
    centred (symmetric padding) and alike on swapped axes.  Input channels that move by ``rho`` (a
    P4 group convolution reads the lifting layer's rotations) ask ``W[pi(o), rho(c), A d] =
    W[o, c, d]``: the turned kernel's input channels are moved by ``rho`` before the match."""
    _as_torch_reads(module)
    spatial = spatial_axes(module)
    nd = x.dim()
    lead = nd - spatial - 1
    m = plain(moves)
    o = normal_order(m, tuple(x.shape))
    if any(o[a] != a for a in range(lead + 1)):
        raise NoRule("a convolution whose channels trade places with another axis")
    rho = m.axes[lead]
    if mv.moving(rho) and module.groups != 1:
        raise NoRule("a grouped convolution over channels that move")
    sp_order = tuple(o[lead + 1 + k] - lead - 1 for k in range(spatial))
    signs = []
    for k in range(spatial):
        found = _affine(m.axes[lead + 1 + k], x.shape[lead + 1 + k])
        if found is None:
            raise NoRule("a circular convolution under a move that is not a turn, mirror or shift")
        signs.append(found[0])
    ks, dil = tuple(int(k) for k in module.weight.shape[2:]), tuple(module.dilation)  # the kernel torch convolves with
    if len(ks) != spatial or len(dil) != spatial:
        raise NoRule("a convolution whose kernel or dilation has another number of axes")
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
    turned_w = turned_kernel(w, sp_order, tuple(signs))
    if mv.moving(rho):  # turned W[o, rho(c)] = turned W[o, c] before: the input channels moved
        moved = np.empty_like(turned_w)
        moved[:, np.asarray(rho)] = turned_w
        turned_w = moved
    pi = channel_match(w, turned_w, bias, module.groups)
    if pi is None:
        raise NoRule("the kernel turned as the grid turns is none of its output channels")
    axes = list(m.axes)
    axes[lead] = None if mv.is_identity(pi) else pi
    return mv.with_order(axes, o)


@turned(torch.ops.aten.convolution.default)
def convolution(call):
    """``aten.convolution`` under a move that swaps axes: of axes padded circularly (``F.pad``), a
    circular convolution (:func:`padded_convolution`); else one of kernel width 1 (:func:`grid.convolution`)."""
    if mv.wrapped(call.moves["input"]):
        return padded_convolution(call)
    return grid.convolution(call)


convolution.wrapped = True  # it reads axes padded circularly (gdlcheck.code.prover.rules.pad)


def padded_convolution(call):
    """A circular convolution written by hand (``F.pad(mode="circular")``, then a convolution without
    padding of its own) under a shift, a reflection, or a turn or mirror of the grid.

    The input ``X`` moves by ``g(j) = A j + t``: ``X'[q_0[j_o0], q_1[j_o1], ...] = X[j]`` with
    ``q_a(i) = e_a i + t_a mod n`` (``e_a`` a unit mod ``n``, read off ``q_a``; swapped axes have one
    length ``n``), so ``(A u)_a = e_a u_o[a]``.  Axis ``a`` was padded by ``left_a`` (and ``right_a``,
    ``left_a + right_a = k_a - 1``), so tap ``t`` of output ``i`` reads ``X[i + u]`` with the offset
    ``u_a = t_a - left_a mod n``: ``Y[o, i] = sum_u c[o, u] X[i + u]`` (input channels left out,
    ``c`` zero off the kernel's offsets, which are distinct as ``k_a <= n``).  Then
    ``Y'[g(j)] = sum_u c[u] X[g^-1(g(j) + u)] = sum_u c[u] X[j + A^-1 u] = sum_u c[A u] X[j + u]``,
    which is ``Y[pi o, j]`` for every input exactly when ``c[pi o, A u] = c[o, u]`` for every
    offset.  Tap ``t`` has offset ``u``; offset ``A u`` is tap
    ``t'_a = e_a (t_o[a] - left_o[a]) + left_a mod n``, which must be a tap (``t'_a < k_a``; the map
    is then one-to-one on the taps, as ``A`` is invertible, so it permutes them and ``A`` keeps the
    offsets off the kernel off it).  So the condition reads ``K[pi o, c, t'] = K[o, c, t]``: the
    kernel with its taps moved by ``t -> t'`` is the kernel up to a permutation ``pi`` of the output
    channels (with the biases alike: ``b[pi o] = b[o]``), found by :func:`channel_match` as for the
    unit; the output then moves by ``g`` on the grid, ``pi`` on its channels.  Where no axes swap,
    ``t -> t'`` is a permutation of each axis's taps and the condition is the walk's, on the
    kernel's values (``pi`` the identity where none matches: the condition then fails at the
    kernel); where they swap, :func:`channel_match` checks it bit for bit.  The input channels stay
    in place; a batch axis may move."""
    w, m = call.args["weight"], call.moves["input"]
    if m.labels is not None:
        raise NoRule("a convolution of node labels")
    if call.moves.get("weight") is not None or call.moves.get("bias") is not None:
        raise NoRule("a convolution whose kernel depends on the inputs")
    if call.args["transposed"]:
        raise NoRule("a transposed convolution of an axis padded circularly")
    shape = call.shape("input")
    o = normal_order(m, shape)
    if o[0] != 0 or o[1] != 1 or isinstance(m.axes[0], mv.Wrapped):
        raise NoRule("a convolution whose batch or channels trade places with the grid")
    if isinstance(m.axes[1], mv.Unordered) or mv.moving(m.axes[1]):
        raise NoRule("a convolution over channels that move")
    stride, padding, dilation = (list(call.args[k]) for k in ("stride", "padding", "dilation"))
    nd, ks = len(shape), tuple(int(k) for k in w.shape[2:])
    sources, out_axes = [], [m.axes[0], None]
    for a in range(2, nd):
        p, k = m.axes[a], ks[a - 2]
        if not isinstance(p, mv.Wrapped):
            if o[a] != a or isinstance(p, mv.Unordered) or mv.moving(p):
                raise NoRule("a convolution along an axis that moves without circular padding")
            sources.append(np.arange(k))  # a tap of an axis left alone stays
            out_axes.append(None)
            continue
        src = m.axes[o[a]]
        if not isinstance(src, mv.Wrapped) or src.period != p.period:
            raise NoRule("a convolution along an axis swapped with one not padded alike")
        if _at(stride, a - 2) != 1 or _at(dilation, a - 2) != 1 or _at(padding, a - 2) != 0:
            raise NoRule("a circular convolution with a stride, a dilation or padding of its own")
        if p.left + p.right != k - 1 or k > p.period:
            raise NoRule("a circular convolution whose output is not as long as its input")
        found = affine(p.base)
        if found is None:
            raise NoRule("a circular convolution commutes with maps j -> a j + b mod n, not with this permutation")
        image = (found[0] * (np.arange(ks[o[a] - 2]) - src.left) + p.left) % p.period  # t'_a from t_o[a]
        if (image >= k).any():
            raise NoRule("the map carries an offset of the kernel outside it")
        sources.append(image)
        out_axes.append(p.base)
    weight = w.detach().cpu().numpy()
    bias = call.args.get("bias")
    b = None if bias is None else bias.detach().cpu().numpy()
    taps = np.meshgrid(*[np.arange(k) for k in ks], indexing="ij")
    turned_w = np.zeros_like(weight)  # turned_w[o, c, t'] = w[o, c, t], with t'_a = sources[a](t_o[a])
    turned_w[(slice(None), slice(None)) + tuple(sources[a - 2][taps[o[a] - 2]] for a in range(2, nd))] = weight[
        (slice(None), slice(None)) + tuple(taps)
    ]
    pi = channel_match(weight, turned_w, b, int(call.args["groups"]))
    swapped = any(o[a] != a for a in range(nd))
    if pi is None and swapped:
        raise NoRule("the kernel turned as the grid turns is none of its output channels")
    pi = None if pi is None or mv.is_identity(pi) else pi
    out_axes[1] = pi
    moves = mv.with_order(out_axes, o)
    if swapped:
        return moves
    axes = {0: pi} | {a: q for a, q in enumerate(sources, 2) if not mv.is_identity(q)}
    conditions = [Fixed(w, axes, "circular_kernel")] if any(q is not None for q in axes.values()) else []
    if pi is not None and bias is not None:
        conditions.append(Fixed(bias, {0: pi}, "bias"))
    return Out(moves, conditions)
