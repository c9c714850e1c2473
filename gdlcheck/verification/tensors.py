"""What each tensor of a trained weights file is, with respect to a group, and the checks that
apply to it (``gdlcheck verify model.safetensors``).

A tensor is judged as a map on the points only where that is what it is:

* a square ``n x n`` matrix, ``n`` the group's number of points: the linear layer ``Y = W X``;
* a vector of length ``n``: a bias on the points, equivariant when it is constant on each
  orbit (``b[g i] = b[i]``);
* a convolution kernel (``out x in x k`` for a line of points, ``out x in x k x k`` for a square
  grid): a circular convolution commutes with the shifts whatever its kernel (Theorem 1), and
  with the grid's rotations and mirrors when each kernel is turned or mirrored into itself.

Anything else (a square matrix of another size mixes features, not points) is *not on the
points*: nothing about the symmetry can be read from it alone, and it is never judged.

Without the group's size (``--group cyclic`` alone) nothing says which square tensors act on the
points: each is checked at its own n, and one that commutes holds; one that does not is *not
judged* (a feature map need not commute), with its check, its distance and a note that says to
give ``-n`` (:attr:`~gdlcheck.verification.result.TensorChecked.undecided`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gdlcheck.groups import PermGroup
from gdlcheck.scale import frobenius_ratio
from gdlcheck.verification.result import FAILS, HOLDS, HOLDS_WITHIN_TOLERANCE, OWN_N  # noqa: F401  (OWN_N: a why)

# what a tensor is (TensorChecked.role)
MATRIX, BIAS, KERNEL, OTHER = "matrix", "bias", "kernel", "other"
# why a tensor is not judged (OTHER), worded by gdlcheck.output.words.tensor_note
NOT_POINTS, NO_SIZE, EVEN_KERNEL, KERNEL_GROUP = "not_on_points", "no_size", "even_kernel", "kernel_group"
# the roles of generators a kernel condition answers for; a shift or translation sets none
_KERNEL_ROLES = {1: {"shift", "translation", "reflection"}, 2: {"translation", "rotation", "grid-reflection"}}


@dataclass(frozen=True)
class TensorRole:
    """What a tensor of ``shape`` is for a group: ``role``, the tensor's own ``n`` (its size as a
    map on points: the side of a square, the length of a vector), and ``why`` for one not judged."""

    role: str
    n: int | None
    why: str | None = None


def role_of(shape: tuple[int, ...], group: PermGroup | None, sized: bool = True) -> TensorRole:
    """What a tensor of ``shape`` is for ``group``.  ``sized``: the group's size was given, so only
    tensors on its ``n`` points are judged; else a square tensor is judged at its own n, a vector
    is not judged, and ``group`` (built at any size, or None) only says its generators' roles."""
    square = len(shape) == 2 and shape[0] == shape[1]
    own = shape[0] if len(shape) == 1 or square else None
    if square and shape[0] > 1:
        if not sized:
            return TensorRole(MATRIX, own, OWN_N)
        if group is not None and shape[0] == group.n:
            return TensorRole(MATRIX, own)
        return TensorRole(OTHER, own, NOT_POINTS)
    if len(shape) == 1:
        if not sized or group is None:
            return TensorRole(OTHER, own, NO_SIZE)
        return TensorRole(BIAS, own) if shape[0] == group.n else TensorRole(OTHER, own, NOT_POINTS)
    if len(shape) in (3, 4) and group is not None:
        axes = len(shape) - 2
        grid = group.shape if group.shape is not None else (group.n,)
        roles = {group.role(k).kind for k in range(len(group.gens))}
        if len(grid) != axes or not roles <= _KERNEL_ROLES[axes]:
            return TensorRole(OTHER, None, KERNEL_GROUP)
        kernel = shape[2:]
        turned = roles & {"reflection", "rotation", "grid-reflection"}
        if turned and (any(k % 2 == 0 for k in kernel) or len(set(kernel)) != 1):
            return TensorRole(OTHER, None, EVEN_KERNEL)
        return TensorRole(KERNEL, None)
    return TensorRole(OTHER, own, NOT_POINTS)


@dataclass(frozen=True)
class KernelCheck:
    """One condition on a kernel: the generator's role (``reflection``, ``rotation``,
    ``grid-reflection``), the largest difference between the kernel and its turned or mirrored
    self, relative to the largest entry, and the index where it is largest."""

    role: str
    max_abs_error: float
    relative_error: float
    index: tuple[int, ...] | None
    passed: bool


@dataclass(frozen=True)
class KernelChecked:
    """A convolution kernel judged under the group's kernel conditions: ``verdict`` and one
    :class:`KernelCheck` per condition (none for shifts and translations alone)."""

    verdict: str
    checks: list[KernelCheck] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.verdict != FAILS


def check_kernel(K: np.ndarray, group: PermGroup, tol: float) -> KernelChecked:
    """The kernel ``K : (out, in, k)`` or ``(out, in, k, k)`` under the reflections, rotations and
    mirrors among ``group``'s generators (a shift or translation sets no condition)."""
    checks: list[KernelCheck] = []
    for k in range(len(group.gens)):
        role = group.role(k).kind
        if role in ("reflection", "grid-reflection"):
            moved = K[..., ::-1]
        elif role == "rotation":
            moved = np.rot90(K, axes=(-2, -1))
        else:
            continue
        if any(c.role == role for c in checks):
            continue
        diff = np.abs(K - moved)
        worst = float(diff.max()) if diff.size else 0.0
        scale = float(np.abs(K).max()) if K.size else 0.0
        index = tuple(int(i) for i in np.unravel_index(int(diff.argmax()), diff.shape)) if worst > 0 else None
        relative = worst / scale if scale > 0 else 0.0
        checks.append(KernelCheck(role, worst, relative, index, relative <= tol))
    if not all(c.passed for c in checks):
        verdict = FAILS
    elif any(c.max_abs_error > 0 for c in checks):
        verdict = HOLDS_WITHIN_TOLERANCE
    else:
        verdict = HOLDS
    return KernelChecked(verdict, checks)


def bias_distance(b: np.ndarray, group: PermGroup) -> float:
    """``|b - m| / |b|``, ``m`` the mean of ``b`` over each orbit of points (the nearest
    invariant vector); 0 for a zero vector."""
    b = np.asarray(b, dtype=np.float64)
    nearest = np.empty_like(b)
    for orbit in group.point_orbits():
        nearest[orbit] = b[orbit].mean()
    return frobenius_ratio(b - nearest, b)
