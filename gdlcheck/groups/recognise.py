"""Recognising the symmetric and alternating groups among groups given by generators.

Schreier-Sims spends minutes on ``S_100`` given as ``(0 1)`` and ``(0 1 .. 99)`` (its order is
printed in every report), and derive's general method spends seconds where the symmetric
closed form takes milliseconds.  Two classical facts recognise both groups in linear work:

* the transpositions of a group generate the symmetric group on each connected component of
  their graph (an edge ``{a, b}`` per transposition ``(a b)``);
* its 3-cycles generate the alternating group on each connected component of their supports.

A transposition or a 3-cycle is found as a *Jordan element*: an element whose cycle type has a
single 2-cycle and only odd cycles besides (its power by the odd lcm of the others is that
transposition), or a single 3-cycle and cycles of lengths prime to 3 besides.  The generators
are tried, then seeded random products of them (product replacement).  The conjugates of that
element by the group are transpositions (3-cycles) of the group too: their supports are the
orbit of its support, whose graph is connected on all ``n`` points exactly when the finest
block system joining the support's points is one block (Atkinson's minimal-block walk, linear
in ``n``) -- then the group holds ``S_n`` (``A_n``).  The search is capped; past it the group
is simply not recognised (nothing is assumed about it).
"""

from __future__ import annotations

import numpy as np

from gdlcheck.groups.components import is_odd, point_orbit_labels

# product-replacement words tried for a Jordan element, at most (and at most WORK / n)
MAX_WORDS = 200
WORK = 1 << 24


def recognise(n: int, gens: list) -> str | None:
    """``"symmetric"`` or ``"alternating"`` when the group the generators generate is ``S_n``
    or ``A_n`` (recognised, see the module's docstring); None when not recognised."""
    if n < 3 or not gens:
        return None
    arrays = [np.asarray(g, dtype=np.int64) for g in gens]
    if np.any(point_orbit_labels(n, arrays) != 0):  # not transitive: neither
        return None
    support = _jordan_support(n, arrays)
    if support is None:
        return None
    if not _connected_orbit(n, arrays, support):
        return None
    if len(support) == 2 or any(is_odd(g) for g in arrays):
        return "symmetric"
    return "alternating"


def _cycle_lengths(p: np.ndarray) -> np.ndarray:
    """The length of the cycle through each point (vectorised: one components labelling)."""
    labels = point_orbit_labels(len(p), [p])
    return np.bincount(labels, minlength=len(p))[labels]


def _jordan_support(n: int, gens: list[np.ndarray]) -> tuple[int, ...] | None:
    """The support of a transposition or 3-cycle of the group, from a Jordan element."""
    for p in _elements(n, gens):
        lengths = _cycle_lengths(p)
        twos = np.nonzero(lengths == 2)[0]
        others = lengths[lengths != 2]
        if twos.size == 2 and np.all(others % 2 == 1):
            return tuple(int(x) for x in twos)
        threes = np.nonzero(lengths == 3)[0]
        others = lengths[lengths != 3]
        if threes.size == 3 and np.all(others % 3 != 0):
            return tuple(int(x) for x in threes)
    return None


def _elements(n: int, gens: list[np.ndarray]):
    """The generators, then seeded random products of them (product replacement)."""
    yield from gens
    words = min(MAX_WORDS, WORK // max(n, 1))
    rng = np.random.default_rng(n)
    state = [g.copy() for g in gens]
    while len(state) < 5:
        state.append(gens[len(state) % len(gens)].copy())
    x = np.arange(n)
    for _ in range(words):
        i, j = rng.choice(len(state), size=2, replace=False)
        state[i] = state[i][state[j]]
        x = x[state[i]]
        yield x


def _connected_orbit(n: int, gens: list[np.ndarray], support: tuple[int, ...]) -> bool:
    """Whether the supports in the orbit of ``support`` connect all n points.

    The graph of those supports is kept by the group, so its components are blocks of it: the
    finest block system with the points of ``support`` in one block (Atkinson's minimal-block
    walk, union-find closed under the generators: at most n - 1 unions, O(n x generators)).
    """
    if n * len(gens) > WORK:
        return False
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    images = [g.tolist() for g in gens]
    pending = []
    components = n
    first = support[0]
    for other in support[1:]:
        a, b = find(first), find(other)
        if a != b:
            parent[max(a, b)] = min(a, b)
            components -= 1
            pending.append((first, other))
    while pending and components > 1:
        x, y = pending.pop()
        for g in images:
            a, b = find(g[x]), find(g[y])
            if a != b:
                parent[max(a, b)] = min(a, b)
                components -= 1
                pending.append((g[x], g[y]))
    return components == 1
