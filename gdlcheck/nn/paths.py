"""How :class:`~gdlcheck.nn.EquivariantLinear` computes ``W x`` without a dense basis.

Each path is picked from what the derivation knows of the form, and states its memory
(``n`` points, ``c``/``c'`` the input and output channels, ``k -> l`` the orders):

=================  ===============================================  =================================
path               computes                                          memory beyond input and output
=================  ===============================================  =================================
``convolution``    the circular convolution on the group's grid     the taps (``n`` ints), the kernel
                   (one to three axes), as circular padding and     (``n c c'``) and the padded input
                   a convolution (cyclic, dihedral,                 (``2^d n c`` on ``d`` axes); no
                   translations, p4, p4m at order 1 -> 1)           ``n x n`` array
``deepsets``       ``alpha*x + beta*sum(x)``: the symmetric group    ``c c'``: no ``n x n`` array
                   at 1 -> 1; the sum, then one product that        and no other array of ``n``
                   adds the shift row as it writes ``y``            rows
``set-partition``  the symmetric group's basis for orders up to 2   ``n^max(k, l) c'`` for the
                   as sums, diagonals, transposes and broadcasts    sums and the output's
                                                                    diagonal
``gathered``       any other group: ``theta[pattern]``, the         the pattern (``n^(k+l)`` int64)
                   pattern kept as a buffer                         and the weight ``n^(k+l) c c'``
=================  ===============================================  =================================
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import torch


def convolve(x: torch.Tensor, kernel: torch.Tensor, grid: tuple[int, ...]) -> torch.Tensor:
    """``y[i, o] = sum_(j, c) W[(coord(i) - coord(j)) mod grid, o, c] x[j, c]``: circular padding, then a
    convolution without padding (as ``Conv1d(padding_mode="circular")`` computes, and gdlcheck proves).

    ``x : (*batch, *grid, c)`` with one to three grid axes, ``kernel : (*grid, c', c)``, the taps of
    the convolution: ``kernel[t] = W[grid - 1 - t]`` (:func:`taps`); returns ``(*batch, *grid, c')``.
    Each grid axis of length ``m`` is padded by ``m - 1`` on the left, so output ``i`` reads inputs
    ``i - m + 1 .. i`` mod ``m``.
    """
    s = len(grid)
    batch = x.shape[: x.dim() - 1 - s]
    h = x.reshape((-1,) + grid + (x.shape[-1],)).permute(0, s + 1, *range(1, s + 1))  # (B, c, *grid)
    pad = [amount for m in reversed(grid) for amount in (m - 1, 0)]
    h = torch.nn.functional.pad(h, pad, mode="circular")
    weight = kernel.permute(s, s + 1, *range(s))  # (c', c, *grid)
    y = _CONVOLUTIONS[s](h, weight)  # (B, c', *grid)
    return y.permute(0, *range(2, s + 2), 1).reshape(batch + grid + (kernel.shape[-2],))


_CONVOLUTIONS = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}


def taps(offsets: np.ndarray) -> np.ndarray:
    """The orbit of each tap of :func:`convolve`'s kernel from the orbit of each offset: flipped on every
    grid axis (tap ``t`` reads offset ``grid - 1 - t``)."""
    return np.ascontiguousarray(np.flip(offsets, axis=tuple(range(offsets.ndim))))


def _mobius(fine: tuple[int, ...], coarse: tuple[int, ...]) -> int:
    """The Moebius function of the set-partition lattice, 0 unless ``fine`` refines ``coarse``:
    ``prod (-1)^(m - 1) (m - 1)!`` over the blocks of ``coarse``, each made of ``m`` blocks of ``fine``."""
    inside: dict[int, set[int]] = defaultdict(set)
    for f, c in zip(fine, coarse):
        inside[c].add(f)
    merged_into = defaultdict(set)
    for c, fs in inside.items():
        for f in fs:
            merged_into[f].add(c)
    if any(len(cs) > 1 for cs in merged_into.values()):
        return 0
    return math.prod((-1) ** (len(fs) - 1) * math.factorial(len(fs) - 1) for fs in inside.values())


def diagram_weights(blocks: list[tuple[int, ...]]) -> np.ndarray:
    """``M[q, p]``: the orbit basis in the diagram basis, ``O_p = sum_q M[q, p] D_q``.

    ``O_p`` is the indicator of the cells whose slots are equal exactly as the partition ``p``
    says (derive's orbits); ``D_q`` of the cells whose slots in one block of ``q`` are equal (and
    any others too), so ``D_q = sum_(p coarser than q) O_p`` and Moebius inversion gives ``M``.
    """
    return np.array([[_mobius(p, q) for p in blocks] for q in blocks], dtype=np.int64)


class SetPartitionPlan:
    """The symmetric group's maps from order ``k`` to order ``l`` (both at most 2), term by term.

    A diagram ``D_q`` reads the input's diagonal where input slots share a block, sums the blocks
    with input slots only, mixes channels, and writes its result on the output's diagonal where
    output slots share a block, broadcast over the blocks with output slots only.  Terms that read
    alike are mixed in one product and terms written alike are added before they are broadcast, so
    an order 1 -> 1 layer is ``x @ A + sum(x) @ B``: ``O(n c c')``.  Only sums, transposes,
    diagonals, products and broadcasts run.
    """

    def __init__(self, blocks: list[tuple[int, ...]], in_order: int, out_order: int):
        self.in_order, self.out_order = in_order, out_order
        self.terms = []  # (how the input is read, how the result is written), one per diagram
        for rgs in blocks:
            outs, ins = rgs[:out_order], rgs[out_order:]
            through = [b for b in dict.fromkeys(outs) if b in ins]
            read = (tuple(through.index(b) if b in through else None for b in ins), len(ins) == 2 and ins[0] == ins[1])
            place = tuple(("through", through.index(b)) if b in through else ("broadcast", outs.index(b)) for b in outs)
            self.terms.append((read, place))

    def apply(self, x: torch.Tensor, phi: torch.Tensor, n: int) -> torch.Tensor:
        """``x : (*batch, (n,) * k, c)``, ``phi : (terms, c', c)`` (the diagram coefficients)."""
        reads: dict[tuple, list[int]] = defaultdict(list)
        for t, (read, _) in enumerate(self.terms):
            reads[read].append(t)
        placed: dict[tuple, torch.Tensor] = {}
        for read, terms in reads.items():
            z = _read(x, *read)
            # the terms that read alike are mixed by one product: (..., c) @ (c, c' * terms)
            weight = phi[terms].permute(2, 0, 1).reshape(phi.shape[2], -1)
            # a vector is mixed as a row: matmul of a vector squeezes in place, which no proof follows
            mixed = z @ weight if z.dim() > 1 else (z.unsqueeze(0) @ weight)[0]
            for j, t in enumerate(terms):
                part = mixed[..., j * phi.shape[1] : (j + 1) * phi.shape[1]]
                place = self.terms[t][1]
                placed[place] = placed[place] + part if place in placed else part
        batch = x.shape[: x.dim() - 1 - self.in_order]
        out = _diagonal(placed.pop(_DIAGONAL, None), placed.pop(_DIAGONAL_CONSTANT, None), n)
        for place, z in placed.items():
            term = _place(z, place, len(batch))
            out = term if out is None else out + term
        shape = batch + (n,) * self.out_order + (phi.shape[1],)
        if out is None:  # no diagram: the empty sum
            return x.new_zeros(shape)
        return out.expand(shape) if out.shape != shape else out


def _read(x: torch.Tensor, slots: tuple, diagonal: bool) -> torch.Tensor:
    """The input's part that a diagram reads: ``slots[s]`` is the result axis of input slot ``s``
    (None: summed), ``diagonal`` says that both input slots are one block."""
    k = len(slots)
    if diagonal:  # (*batch, n, n, c) -> its diagonal (*batch, n, c)
        x = x.diagonal(dim1=-3, dim2=-2).transpose(-1, -2)
        slots = slots[:1]
        k = 1
    summed = tuple(s - 1 - k for s, axis in enumerate(slots) if axis is None)
    if summed:
        x = x.sum(dim=summed)
    kept = [axis for axis in slots if axis is not None]
    if kept == [1, 0]:
        x = x.transpose(-3, -2)
    return x


# the output's diagonal: a result read through one block, or one entry per channel
_DIAGONAL = (("through", 0), ("through", 0))
_DIAGONAL_CONSTANT = (("broadcast", 0), ("broadcast", 0))


def _diagonal(through: torch.Tensor | None, constant: torch.Tensor | None, n: int) -> torch.Tensor | None:
    """``(*batch, n, n, c')`` holding ``through[i] + constant`` at ``(i, i)`` and 0 elsewhere.

    Written by selecting with the identity, no arithmetic on the values (so nothing overflows and
    an infinity stays on the diagonal): first ``through[i]`` on the diagonal and ``through[j]`` off
    it, so that both axes move with the points, then 0 off the diagonal.  The identity is fixed
    when both of its axes move alike, which is all the proof needs (no rule for a diagonal).
    """
    like = through if through is not None else constant
    if like is None:
        return None
    mask = torch.eye(n, dtype=torch.bool, device=like.device)[:, :, None]
    if through is None:
        d = like[..., None, None, :]  # the constant alone
    else:
        d = torch.where(mask, through.unsqueeze(-2), through.unsqueeze(-3))
        if constant is not None:
            d = d + constant[..., None, None, :]
    return torch.where(mask, d, like.new_zeros(()))


def _place(z: torch.Tensor, place: tuple, batch: int) -> torch.Tensor:
    """Write one term's result into the output's slots off the diagonal (broadcastable to
    ``(*batch, (n,) * l, c')``): the through axes of ``z`` are in the order of the output slots
    that hold them, and a slot of a block that the input does not read is broadcast."""
    for slot, (kind, _) in enumerate(place):
        if kind == "broadcast":
            z = z.unsqueeze(batch + slot)
    return z
