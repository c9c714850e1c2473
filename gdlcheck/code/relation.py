"""Whether two tensors are related by a generator: equal, moved along an axis of the points (or a
grid's axes), moved on two such axes (``P W P^T``), following the edges, or node labels
relabelled, within a tolerance (the culprit's test of a submodule's inputs and outputs).
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.code import graphs
from gdlcheck.code.actions import Action, Motion, move_array
from gdlcheck.groups import is_sparse


def relation(
    p, a, b, n: int, grid: tuple[int, ...] | None, tol: float, edge_order: np.ndarray | None = None
) -> tuple[Action | None, float]:
    """How ``b`` relates to ``a`` under ``p``: the first action among unchanged, points on an axis
    (or on a grid's axes), pairs, following the edges (``edge_order``: the relabelled graph's
    new order of the edges, if it has one) and relabelled node labels that maps ``a`` onto ``b``
    within ``tol`` (relative to ``a``'s largest entry); else ``(None, smallest error)``.

    Used to find the submodule that breaks the symmetry: its inputs relate, its outputs do not.
    """
    if is_sparse(a) or is_sparse(b):
        if not (is_sparse(a) and is_sparse(b)) or a.shape != b.shape:
            return None, math.inf
        if a.shape == (n, n):
            moved, _ = graphs.move_graph(p, a, graphs.GraphLaw.BOTH)
            if _sparse_close(moved, b, tol):
                return Action(Motion.GRAPH), 0.0
        return (Action(Motion.UNCHANGED), 0.0) if _sparse_close(a, b, tol) else (None, math.inf)
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return None, math.inf
    scale = _finite_scale(a)
    best = math.inf

    def close(x) -> float:
        if x.dtype.kind == "b" or b.dtype.kind == "b":
            return 0.0 if np.array_equal(x, b) else math.inf
        d = largest_difference(x, b)
        return d / scale if scale > 0 else (0.0 if d == 0 else math.inf)

    err = close(a)
    if err <= tol:
        return Action(Motion.UNCHANGED), err
    best = min(best, err)
    candidates: list[Action] = []
    point_axes = [k for k, d in enumerate(a.shape) if d == n]
    candidates += [Action(Motion.POINTS, (k,)) for k in point_axes]
    if grid is not None and len(grid) > 1:
        g = len(grid)
        candidates += [
            Action(Motion.POINTS, tuple(range(k, k + g)))
            for k in range(a.ndim - g + 1)
            if tuple(a.shape[k : k + g]) == tuple(grid)
        ]
    candidates += [Action(Motion.PAIRS, (i, j)) for i in point_axes for j in point_axes if i < j]
    if edge_order is not None and a.ndim and a.shape[0] == len(edge_order):
        candidates.append(Action(Motion.EDGES))
    for action in candidates:
        err = close(move_array(action, p, a, edge_order))
        if err <= tol:
            return action, err
        best = min(best, err)
    if a.dtype.kind in "iu" and a.size and a.min() >= 0 and a.max() < n:
        labels = np.asarray(p)[a]
        if np.array_equal(labels, b) or (
            edge_order is not None
            and a.ndim
            and a.shape[-1] == len(edge_order)
            and np.array_equal(labels[..., edge_order], b)
        ):
            return Action(Motion.GRAPH), 0.0
        if a.ndim == 2 and a.shape[0] == 2:
            if np.array_equal(np.sort(labels[0] * n + labels[1]), np.sort(b[0] * n + b[1])):
                return Action(Motion.GRAPH), 0.0
    return None, best


def _finite_scale(a: np.ndarray) -> float:
    """The largest finite ``|entry|`` of ``a`` (a mask's ``-inf`` entries are no scale)."""
    if not a.size or a.dtype.kind not in "fiub":
        return 0.0
    finite = np.abs(a[np.isfinite(a)]) if a.dtype.kind == "f" else np.abs(a)
    return float(finite.max()) if finite.size else 0.0


def largest_difference(x: np.ndarray, y: np.ndarray) -> float:
    """``max |x - y|``, with equal entries (``-inf`` and ``-inf`` of a mask, NaN and NaN) differing by 0
    and no numpy warning."""
    if not x.size:
        return 0.0
    x, y = x.astype(np.float64), y.astype(np.float64)
    same = (x == y) | (np.isnan(x) & np.isnan(y))
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.where(same, 0.0, np.abs(x - y))
    return float(np.where(np.isnan(d), np.inf, d).max())


def _sparse_close(x, y, tol: float) -> bool:
    d = x - y
    scale = float(abs(x).max()) if x.nnz else 0.0
    worst = float(abs(d).max()) if d.nnz else 0.0
    return worst <= tol * scale if scale > 0 else worst == 0
