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

from gdlcheck.errors import GroupError
from gdlcheck.groups import FAMILIES, PermGroup, fixes, grid_shape
from gdlcheck.groups.automorphisms import coloured_automorphisms
from gdlcheck.groups.catalogue import make
from gdlcheck.groups.colours import colour_classes, has_edges, value_labels
from gdlcheck.shown import Shown, presenter_of
from gdlcheck.tolerances import TOL


@dataclass(repr=False)
class Found(Shown):
    """What ``gdlcheck symmetries`` finds (:func:`gdlcheck.find_symmetries`): the group of ``W``
    and the catalogue groups inside it."""

    group: PermGroup
    colours: int  # colour classes of the entries
    contains: list[str]  # catalogue groups (with their shape) whose generators fix W
    tol: float
    # values within tol of each other that the greedy cut put in different colours: how many such
    # neighbouring pairs, and the closest one (a symmetry moving one onto the other is not found)
    near_ties: int = 0
    near_tie: tuple[float, float] | None = None

    def to_json(self, input: str = "<matrix>") -> dict:
        """The ``symmetries --format json`` object (``input``: the matrix's name)."""
        return presenter_of(self).json(self, input)

    def __repr__(self) -> str:
        return f"<Found {self.group.describe()}, order {self.group.order_text}>"


def find_symmetries(W: np.ndarray, tol: float = TOL, progress=None) -> Found:
    """The permutations ``sigma`` with ``W[sigma(i), sigma(j)] == W[i, j]`` (within ``tol`` times
    the largest entry), as a group, and the catalogue groups it contains.

    Parameters
    ----------
    W : (n, n) numbers.
    progress : None, or called with a short description of each step (``gdlcheck symmetries``
        shows them on a terminal when a run takes more than two seconds).
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] == 0 or W.shape[0] != W.shape[1]:
        raise GroupError(f"symmetries need a square matrix with at least one row, got shape {list(W.shape)}")
    uniq, cluster, C = value_labels(W, tol)  # C: the entries' colours where they came with the values
    ties = _near_ties(uniq, cluster, tol)
    diagonal = cluster[np.searchsorted(uniq, np.diag(W))]
    if np.unique(diagonal).size == W.shape[0]:
        # every diagonal entry a colour of its own: sigma must map each point to the one point with
        # its diagonal colour, itself -- only the identity commutes (no n x n labels needed)
        group = PermGroup("symmetries", W.shape[0], (), order_formula=1)
        return Found(
            group=group, colours=int(cluster[-1]) + 1, contains=_without_generators(W.shape[0]), tol=tol, **ties
        )
    if C is None:
        C = colour_classes(W, tol, classes=(uniq, cluster))
    # colour_classes' labels, and the sample's, are 0..k-1 with each present
    gens, order = coloured_automorphisms(C, progress=progress, compacted=True)
    if progress:
        progress("the catalogue groups inside")
    group = PermGroup("symmetries", C.shape[0], tuple(gens), order_formula=order, graph=C)
    return Found(group=group, colours=int(C.max()) + 1 if C.size else 0, contains=contained_groups(C), tol=tol, **ties)


def _near_ties(uniq: np.ndarray, cluster: np.ndarray, tol: float) -> dict:
    """Neighbouring distinct values closer than the colour width that the greedy cut still put in
    two colours (tolerance is not transitive: 1, 1 + 0.9 tol and 1 + 1.1 tol cannot all share
    one).  Gaps are measured on the values scaled by a power of two, as the cut measures them."""
    import math

    if not (tol > 0 and uniq.size > 1):
        return {}
    top = max(abs(float(uniq[0])), abs(float(uniq[-1])))
    e = math.frexp(top)[1] if top > 0 else 0
    limit = tol * math.ldexp(top, -e)
    ties, closest, at = 0, math.inf, -1
    step = 1 << 18  # a block of values at a time: a matrix of distinct entries has n^2 of them
    with np.errstate(over="ignore"):
        for s0 in range(0, uniq.size - 1, step):
            gap = np.ldexp(np.diff(uniq[s0 : s0 + step + 1]), -e)
            part = cluster[s0 : s0 + step + 1]
            tie = (part[1:] != part[:-1]) & (gap <= limit)
            if tie.any():
                ties += int(tie.sum())
                k = int(np.argmin(np.where(tie, gap, np.inf)))
                if gap[k] < closest:
                    closest, at = float(gap[k]), s0 + k
    if not ties:
        return {}
    return {"near_ties": ties, "near_tie": (float(uniq[at]), float(uniq[at + 1]))}


def _without_generators(n: int) -> list[str]:
    """The catalogue groups on n points with no generators (they hold for every matrix)."""
    return [family.name for family in FAMILIES.values() if family.on_points and not make(family, n).gens]


def contained_groups(C: np.ndarray) -> list[str]:
    """The catalogue groups on ``n = len(C)`` points whose generators all keep the colour matrix ``C``.

    Grid groups are tried on every 2-D and 3-D shape with ``n`` points (sides >= 2) and named
    with their shape; for small ``n`` the dihedral and alternating groups may be small or
    trivial, and are listed when they hold, like the others.
    """
    n = C.shape[0]
    candidates = [(family.name, make(family, n)) for family in FAMILIES.values() if family.on_points]
    grids = [family for family in FAMILIES.values() if family.is_grid]
    for shape in _grid_shapes(n):
        label = "x".join(map(str, shape))
        for family in grids:
            if family.takes(shape):
                candidates.append((f"{family.name} {label}", make(family, grid_shape(family, shape))))
    keeps = _keeper(C)
    return [name for name, group in candidates if all(keeps(np.asarray(g)) for g in group.gens)]


def _keeper(C: np.ndarray):
    """``keeps(g)``: whether ``g`` keeps ``C``, cheaply where it can be told cheaply.

    Without edges (every off-diagonal entry one colour) ``g`` keeps ``C`` exactly when it keeps
    the diagonal's colours, O(n).  Otherwise a few rows are compared first (most catalogue
    generators that do not keep ``C`` fail on the first row, O(n)), then every row.
    """
    n = C.shape[0]
    diag = np.diag(C)
    if not has_edges(C):
        return lambda g: bool(np.array_equal(diag[g], diag))
    probe = np.unique(np.linspace(0, n - 1, num=min(n, 8)).astype(np.int64))

    seen: dict[bytes, bool] = {}  # grid shapes share generators (the shift by W is the first axis of H x W)
    cycles: list[tuple[np.ndarray, np.ndarray]] = []  # keepers that are one n-cycle: (its points in order, place)

    def keeps(g: np.ndarray) -> bool:
        g = g.astype(np.int64)
        key = g.tobytes()
        if key not in seen:
            if any(_power_of(g, order, place) for order, place in cycles):
                seen[key] = True  # a power of a permutation that keeps C keeps it: no full compare
            else:
                seen[key] = bool(
                    np.array_equal(diag[g], diag) and np.array_equal(C[np.ix_(g[probe], g)], C[probe]) and fixes(g, C)
                )
                if seen[key]:
                    cycle = _one_cycle(g)
                    if cycle is not None:
                        cycles.append(cycle)
        return seen[key]

    return keeps


def _one_cycle(g: np.ndarray):
    """``(order, place)`` of a permutation that is one cycle through every point: ``order[t]`` is
    ``g^t(0)`` and ``place`` its inverse; None for any other permutation."""
    n = len(g)
    order = np.empty(n, dtype=np.int64)
    point = 0
    for t in range(n):  # O(n); a cycle that closes early is not one n-cycle
        order[t] = point
        point = int(g[point])
        if point == 0 and t < n - 1:
            return None
    place = np.empty(n, dtype=np.int64)
    place[order] = np.arange(n)
    return order, place


def _power_of(g: np.ndarray, order: np.ndarray, place: np.ndarray) -> bool:
    """Whether ``g`` is a power ``s^k`` of the n-cycle ``s`` with ``order[t] = s^t(0)``:
    ``s^k`` moves ``order[t]`` to ``order[t + k]``, ``k`` read off ``g(0)``."""
    n = len(order)
    k = int(place[g[0]])
    return bool(np.array_equal(g[order], order[(np.arange(n) + k) % n]))


def _grid_shapes(n: int) -> list[tuple[int, ...]]:
    """Ordered factorisations of ``n`` into 2 or 3 sides, each at least 2."""
    two: list[tuple[int, ...]] = [(h, n // h) for h in range(2, n // 2 + 1) if n % h == 0 and n // h >= 2]
    three = [(a, *rest) for a in range(2, n // 4 + 1) if n % a == 0 for rest in _grid_shapes_2(n // a)]
    return two + three


def _grid_shapes_2(m: int) -> list[tuple[int, int]]:
    return [(h, m // h) for h in range(2, m // 2 + 1) if m % h == 0 and m // h >= 2]
