"""``gdlcheck symmetries``: every permutation a matrix commutes with, and the catalogue groups inside.

The permutations ``sigma`` with ``W[sigma(i), sigma(j)] == W[i, j]`` are the automorphisms
of W as an edge-coloured directed graph (equal entries share a colour); BLISS finds them
(:mod:`gdlcheck.groups.automorphisms`).  Which catalogue groups the result contains is
read off the catalogue: every family sized by ``n``, and the grid families on every grid
shape with ``n`` points.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gdlcheck.groups import FAMILIES, PermGroup, fixes, grid_shape
from gdlcheck.groups.automorphisms import colour_classes, coloured_automorphisms
from gdlcheck.groups.catalogue import make
from gdlcheck.tolerances import TOL


@dataclass
class Symmetries:
    """What ``gdlcheck symmetries`` finds: the group of ``W`` and the catalogue groups inside it."""

    group: PermGroup
    colours: int                  # colour classes of the entries
    contains: list[str]           # catalogue groups (with their shape) whose generators fix W
    tol: float


def find_symmetries(W: np.ndarray, tol: float = TOL) -> Symmetries:
    """The permutations ``sigma`` with ``W[sigma(i), sigma(j)] == W[i, j]`` (within ``tol`` times
    the largest entry), as a group, and the catalogue groups it contains.

    Parameters
    ----------
    W : (n, n) numbers.
    """
    W = np.asarray(W, dtype=float)
    C = colour_classes(W, tol)
    gens, order = coloured_automorphisms(C)
    group = PermGroup("symmetries", C.shape[0], tuple(gens), order_formula=order, graph=C)
    return Symmetries(group=group, colours=int(C.max()) + 1 if C.size else 0, contains=contained_groups(C), tol=tol)


def contained_groups(C: np.ndarray) -> list[str]:
    """The catalogue groups on ``n = len(C)`` points whose generators all keep the colour matrix ``C``.

    Grid groups are tried on every 2-D and 3-D shape with ``n`` points (sides >= 2) and named
    with their shape; for small ``n`` the dihedral and alternating groups may be small or
    trivial, and are listed when they hold, like the others.
    """
    n = C.shape[0]
    candidates = [(family.name, make(family, n)) for family in FAMILIES.values() if family.size == "n"]
    grids = [family for family in FAMILIES.values() if family.size in ("shape", "square")]
    for shape in _grid_shapes(n):
        label = "x".join(map(str, shape))
        for family in grids:
            if family.size == "shape" or (len(shape) == 2 and shape[0] == shape[1]):
                candidates.append((f"{family.name} {label}", make(family, grid_shape(family, shape))))
    return [name for name, group in candidates if all(fixes(g, C) for g in group.gens)]


def _grid_shapes(n: int) -> list[tuple[int, ...]]:
    """Ordered factorisations of ``n`` into 2 or 3 sides, each at least 2."""
    two = [(h, n // h) for h in range(2, n // 2 + 1) if n % h == 0 and n // h >= 2]
    three = [(a,) + rest for a in range(2, n // 4 + 1) if n % a == 0 for rest in _grid_shapes_2(n // a)]
    return two + three


def _grid_shapes_2(m: int) -> list[tuple[int, int]]:
    return [(h, m // h) for h in range(2, m // 2 + 1) if m % h == 0 and m // h >= 2]
