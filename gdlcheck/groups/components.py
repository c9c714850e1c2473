"""Connected components, the one kernel behind every orbit computation.

Orbits of a group are the connected components of the graph ``x -- g(x)`` over its
generators ``g``: on points (point orbits), on index cells (derive's general method), on
the labels of stabiliser orbits (merged along Schreier generators).  All three call
:func:`label_components`.

The kernel is a forest in one integer array ``parent`` with ``parent[x] <= x`` and
``parent[x]`` in the component of ``x``.  A round hooks, for every edge ``(u, v)``, the
larger of ``parent[u]``, ``parent[v]`` under the smaller (a scatter-minimum, so a parent
only ever decreases), then jumps every pointer to its root.  When a round hooks nothing,
every edge joins two nodes of one star, so the stars are the components and each root is
its component's least node.  A star that is not a local minimum hooks in every round and a
local minimum is absorbed within two, so the number of stars at least halves every two
rounds: ``O(log)`` rounds of vectorised work over the edges, whatever the generators (plain
label propagation needs as many rounds as the components are wide).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

# Nodes per block when pointers are jumped in place: small temporaries, few Python steps.
BLOCK = 1 << 16

EdgeBlocks = Callable[[], Iterable[tuple[np.ndarray | slice, np.ndarray]]]


def label_components(parent: np.ndarray, edges: EdgeBlocks) -> np.ndarray:
    """The least node of each node's component, written into ``parent`` (in place).

    Parameters
    ----------
    parent : (size,) int array, ``arange(size)`` or a forest as described above.
    edges : called once per round; yields pairs ``(u, v)``: ``u`` a slice of nodes or an
        index array, ``v`` an index array of the same length (node ``u[k]`` -- ``v[k]``).

    Returns
    -------
    parent, now ``root[x]``: the least node of the component of ``x``.

    >>> p = np.arange(6)
    >>> label_components(p, lambda: [(np.array([0, 2, 5]), np.array([3, 4, 1]))]).tolist()
    [0, 1, 2, 0, 2, 1]
    """
    _compress(parent)
    while True:
        hooked = False
        for u, v in edges():
            a = parent[u]
            b = parent[v]
            low = np.minimum(a, b)
            high = np.maximum(a, b)
            moves = low < parent[high]
            if moves.any():
                np.minimum.at(parent, high[moves], low[moves])
                hooked = True
        if not hooked:
            return parent
        _compress(parent)


def _compress(parent: np.ndarray) -> None:
    """Jump every pointer to its root, in place and block by block (no full-size temporary)."""
    size = parent.size
    while True:
        jumped_any = False
        for start in range(0, size, BLOCK):
            block = parent[start : start + BLOCK]
            jumped = parent[block]
            if not np.array_equal(jumped, block):
                block[...] = jumped
                jumped_any = True
        if not jumped_any:
            return


def point_orbit_labels(n: int, gens: list[np.ndarray]) -> np.ndarray:
    """For every point, the least point of its orbit under ``gens`` (array forms).

    >>> point_orbit_labels(5, [np.array([1, 0, 2, 4, 3])]).tolist()
    [0, 0, 2, 3, 3]
    """
    parent = np.arange(n, dtype=np.int64)
    if not gens or n == 0:
        return parent
    points = np.arange(n)
    return label_components(parent, lambda: ((points, g) for g in gens))


def merge_along(labels: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """Point labels ``labels`` (each a point ``< n``) joined along the permutations ``sigma`` (rows).

    Points ``x`` and ``sigma_k(x)`` end with one label, the least label of their component.

    >>> merge_along(np.arange(4), np.array([[1, 0, 2, 3], [0, 1, 3, 2]])).tolist()
    [0, 0, 2, 2]
    """
    n = len(labels)
    sigma = np.asarray(sigma).reshape(-1, n)
    if not sigma.size:
        return labels
    parent = np.arange(n, dtype=labels.dtype)
    root = label_components(parent, lambda: ((labels, labels[row]) for row in sigma))
    return root[labels]


def is_odd(p: np.ndarray) -> bool:
    """A permutation is odd when n minus its number of cycles is odd."""
    labels = point_orbit_labels(len(p), [p])
    cycles = int(np.count_nonzero(labels == np.arange(len(p))))
    return (len(p) - cycles) % 2 == 1
