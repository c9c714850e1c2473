"""Conditions on constants, checked on their values: is a constant fixed when some of its axes
are permuted (``P E = E`` along one axis, ``P M P^T = M`` along two)?  Bit for bit: ``-inf`` equals
``-inf`` and a NaN equals a NaN at the same place, so masks and padded tables compare as they are."""

from __future__ import annotations


def first_moved(value, axes: dict):
    """The first entry of a constant that its axes' permutations move to a different value:
    ``(entry, image, values)`` on the moved axes, or None when the constant is fixed."""
    import torch

    if value.layout != torch.strided:  # a sparse constant (a stored adjacency): compared as the matrix it is
        value = value.to_dense()
    if len(axes) == 1 and _fixed_off_support(value, *next(iter(axes.items()))):
        return None
    moved = value
    for a, p in axes.items():
        moved = moved.index_select(a, torch.as_tensor(p, dtype=torch.long, device=value.device))
    if torch.equal(_bits(moved), _bits(value)):  # the usual answer, in one pass and no mask
        return None
    differs = _bits(moved) != _bits(value)
    if value.is_complex():  # the real and the imaginary part, each bit for bit
        differs = differs.any(-1)
    if not bool(differs.any()):
        return None
    where = [int(i) for i in torch.nonzero(differs)[0]]
    entry = tuple(where[a] for a in axes)
    image = tuple(int(axes[a][where[a]]) for a in axes)
    at = list(where)
    for a in axes:
        at[a] = int(axes[a][where[a]])
    return entry, image, (_number(value[tuple(where)]), _number(value[tuple(at)]))


# entries of a constant from which the slices a permutation moves are read on their own (below, the whole
# comparison costs no more than finding them)
SUPPORT_FROM = 16_384


def _fixed_off_support(value, axis: int, p) -> bool:
    """Along one axis, only the slices a permutation moves can differ (a transposition moves two of
    4,000 nodes; a relabelling leaves most edges where they are): True when each of them holds what
    its image holds, bit for bit, read where the permutation moves at most half the axis (else, and
    where one differs, the whole comparison below decides and finds the entry)."""
    import numpy as np
    import torch

    if value.numel() < SUPPORT_FROM or not -value.dim() <= axis < value.dim():
        return False
    p = np.asarray(p)
    if p.ndim != 1 or len(p) != value.shape[axis]:
        return False
    moving = np.flatnonzero(p != np.arange(len(p)))
    if 2 * len(moving) > len(p):
        return False
    index = torch.as_tensor(moving, dtype=torch.long, device=value.device)
    image = torch.as_tensor(p[moving], dtype=torch.long, device=value.device)
    return torch.equal(_bits(value.index_select(axis, image)), _bits(value.index_select(axis, index)))


def _bits(t):
    """The tensor's entries as integers of the same width: -0.0 differs from 0.0 (copysign, 1/x
    tell them apart), -inf equals -inf, a NaN equals the same NaN."""
    import torch

    if t.is_complex():
        t = torch.view_as_real(t)
    if not t.is_floating_point():
        return t
    ints = {2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()]
    return t.contiguous().view(ints)


def _number(entry) -> str:
    v = entry.item()
    return f"{v:.6g}" if isinstance(v, float) else str(v)
