"""The generators of each named family of the catalogue, each with what it is (its ``Role``).

The permutations DESIGN.md section 2 gives each family: the unit shift, the reflection
``j -> -j``, an n-cycle and a transposition, the 3-cycles of the alternating group, the
unit shift along each axis of a grid, and the grid's rotation and reflection.  Grid points
are flattened row-major.  Each function maps the size (``n``, or a shape tuple) to the
generators; the records (:mod:`~gdlcheck.groups.catalogue`) name them.
"""

from __future__ import annotations

import math

import numpy as np

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
