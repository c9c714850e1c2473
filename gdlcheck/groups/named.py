"""The generators of each named family of the catalogue, each with what it is (its ``Role``).

The permutations docs/design.md section 2 gives each family: the unit shift, the reflection
``j -> -j``, an n-cycle and a transposition, the 3-cycles of the alternating group, the
unit shift along each axis of a grid, and the grid's rotation and reflection.  Grid points
are flattened row-major.  Each function maps the size (``n``, or a shape tuple) to the
generators; the records (:mod:`~gdlcheck.groups.catalogue`) name them.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.groups.components import is_odd
from gdlcheck.groups.family import Gens, Role
from gdlcheck.groups.perm import Perm, identity, shift


def trivial_gens(n: int) -> Gens:
    return ()


def cyclic_gens(n: int) -> Gens:
    return ((shift(n), Role("shift")),) if n > 1 else ()


def dihedral_gens(n: int) -> Gens:
    reflection = tuple((-j) % n for j in range(n))
    return distinct(((shift(n), Role("shift")), (reflection, Role("reflection"))), n)


def symmetric_gens(n: int) -> Gens:
    if n == 1:
        return ()
    transposition = (1, 0) + tuple(range(2, n))
    if n == 2:
        return ((transposition, Role("transposition")),)
    return ((shift(n), Role("shift")), (transposition, Role("transposition")))


def alternating_gens(n: int) -> Gens:
    """A 3-cycle and a long cycle, as sympy's ``AlternatingGroup``: ``(0 1 2)`` and, for odd
    ``n``, the shift ``(0 1 .. n-1)``; for even ``n``, ``(1 2 .. n-1)``.  Both are even
    permutations and together they generate ``A_n``."""
    if n < 3:
        return ()
    three = (1, 2, 0) + tuple(range(3, n))
    if n == 3:
        return ((three, Role("3-cycle")),)
    if n % 2:
        return ((three, Role("3-cycle")), (shift(n), Role("shift")))
    long_cycle = (0,) + tuple(range(2, n)) + (1,)
    return ((three, Role("3-cycle")), (long_cycle, Role("3-cycle" if n == 4 else "cycle")))


def _grid_perm(shape: tuple[int, ...], image_of_coords) -> Perm:
    """The permutation sending point ``coords`` to ``image_of_coords(coords)`` (row-major)."""
    coords = np.indices(shape).reshape(len(shape), -1)
    new = image_of_coords(coords)
    return tuple(np.ravel_multi_index(tuple(new), shape).tolist())


def translation_gens(shape: tuple[int, ...]) -> Gens:
    gens = []
    for axis, size in enumerate(shape):
        if size == 1:
            continue

        def step(c, axis=axis, size=size):
            c = c.copy()
            c[axis] = (c[axis] + 1) % size
            return c

        gens.append((_grid_perm(shape, step), Role("translation", axis)))
    return tuple(gens)


def p4_gens(shape: tuple[int, ...]) -> Gens:
    N = shape[0]
    rotation = _grid_perm(shape, lambda c: np.stack([c[1], (-c[0]) % N]))
    return distinct(translation_gens(shape) + ((rotation, Role("rotation")),), N * N)


def p4m_gens(shape: tuple[int, ...]) -> Gens:
    N = shape[0]
    reflection = _grid_perm(shape, lambda c: np.stack([c[0], (-c[1]) % N]))
    return distinct(p4_gens(shape) + ((reflection, Role("grid-reflection")),), N * N)


def distinct(gens: Gens, n: int) -> Gens:
    """Generators without the identity and without repeats (the first role stays)."""
    out: list = []
    seen = set()
    for g, role in gens:
        if g != identity(n) and g not in seen:
            seen.add(g)
            out.append((g, role))
    return tuple(out)


def lazy_factorial(n: int, divisor: int):
    """``n! / divisor``, computed only when asked (``1000000!`` takes seconds and has 5.5M digits)."""
    if n <= 25:
        return math.factorial(n) // divisor
    return lambda: math.factorial(n) // divisor


# --------------------------------------------------------------------------- uniformly random elements
#
# Per family, a uniformly random element of the group its generators generate, drawn from ``rng``
# in linear work (the numeric checks and the proof's moved call apply one; a generator alone
# rarely moves the maximum of 64 points, a random permutation does).


def trivial_element(n: int, rng) -> np.ndarray:
    return np.arange(n, dtype=np.int64)


def cyclic_element(n: int, rng) -> np.ndarray:
    """``j -> j + k mod n`` for a uniform ``k``: every power of the shift once."""
    return (np.arange(n, dtype=np.int64) + int(rng.integers(n))) % n


def dihedral_element(n: int, rng) -> np.ndarray:
    """``j -> +-j + k mod n``: the group the shift and the reflection ``j -> -j`` generate, each
    element once (for n <= 2 the reflection is the identity or the shift, and so is the set)."""
    sign = 1 if n <= 2 else int(rng.choice((-1, 1)))
    return (sign * np.arange(n, dtype=np.int64) + int(rng.integers(n))) % n


def symmetric_element(n: int, rng) -> np.ndarray:
    return rng.permutation(n).astype(np.int64)


def alternating_element(n: int, rng) -> np.ndarray:
    """A uniform permutation, made even by swapping two images when it is odd: a bijection between
    the odd and the even permutations, so the result is uniform on ``A_n``."""
    if n < 3:
        return np.arange(n, dtype=np.int64)
    p = rng.permutation(n).astype(np.int64)
    if is_odd(p):
        p[[0, 1]] = p[[1, 0]]
    return p


def translation_element(shape: tuple[int, ...], rng) -> np.ndarray:
    """A uniform offset along each axis, on the row-major points of the grid."""
    offsets = [int(rng.integers(size)) for size in shape]
    return np.asarray(
        _grid_perm(shape, lambda c: np.stack([(c[a] + offsets[a]) % size for a, size in enumerate(shape)])),
        dtype=np.int64,
    )


def p4_element(shape: tuple[int, ...], rng) -> np.ndarray:
    """A uniform rotation about the origin (0 to 3 quarter turns), then a uniform translation."""
    return _turned(shape, rng, mirrored=False)


def p4m_element(shape: tuple[int, ...], rng) -> np.ndarray:
    """As :func:`p4_element`, with the reflection ``(a, b) -> (a, -b)`` first half of the time."""
    return _turned(shape, rng, mirrored=True)


def _turned(shape: tuple[int, ...], rng, mirrored: bool) -> np.ndarray:
    N = shape[0]
    turns = int(rng.integers(4))
    flip = mirrored and bool(rng.integers(2))
    offsets = (int(rng.integers(N)), int(rng.integers(N)))

    def image(c):
        a, b = c[0], (-c[1]) % N if flip else c[1]
        for _ in range(turns):
            a, b = b, (-a) % N
        return np.stack([(a + offsets[0]) % N, (b + offsets[1]) % N])

    return np.asarray(_grid_perm(shape, image), dtype=np.int64)
