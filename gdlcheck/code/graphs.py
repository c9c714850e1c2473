"""Graphs as code has them: a dense adjacency, a scipy.sparse or torch sparse matrix, or an
``edge_index`` of shape ``(2, E)`` -- recognised, checked, moved and compared, never densified.

A graph value is kept here in one of three forms (torch values are converted by
:func:`as_graph`; the call converts them back):

* ``dense``: a numpy ``(n, n)`` array, moved as ``P A P^T`` (``B[p[i], p[j]] = A[i, j]``);
* ``sparse``: a scipy.sparse matrix, its stored entries moved (``O(nnz)``);
* ``edge_index``: a numpy integer ``(2, E)`` array, PyG's convention (column ``k`` is the edge
  ``edge_index[0, k] -> edge_index[1, k]``, source to target, so ``A[target, source]``), moved
  by relabelling every node ``i`` as ``p[i]``.  The edges keep their order, except that an edge
  list sorted by (source, target) or by (target, source) stays sorted (PyG's
  ``sort_edge_index`` order, which CSR-based code may rely on); :func:`move_graph` returns
  the edge order it used, so edge attributes follow their edges.

A 2 x E array is an edge list when it holds integers and ``E != 2``, or is a torch integer
tensor; a 2 x 2 numpy array is a dense adjacency.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.errors import GdlcheckError
from gdlcheck.groups import act_rows, conjugate, fixes, is_sparse
from gdlcheck.groups.perm import match
from gdlcheck.inputs.graph_files import load_graph_file  # noqa: F401  (read by the API from here)
from gdlcheck.verdicts import Word


class Form(Word):
    """The form a graph value is kept in (:func:`form`), its word in the notes."""

    DENSE = "dense"
    SPARSE = "sparse"
    EDGE_INDEX = "edge_index"


class GraphLaw(Word):
    """How a graph moves with the points (a check's law, ``Signature.graph_law``)."""

    BOTH = "both"  # permuted with the points: P A P^T (an edge list relabelled)
    ROWS = "rows"  # only its rows: P A (an edge list's targets relabelled)
    FIXED = "fixed"  # held as it is (the law of a graph's automorphisms)


def form(A) -> Form:
    """:class:`Form` of a value :func:`as_graph` returned (an edge list is kept as int64, a dense
    adjacency as float64)."""
    if is_sparse(A):
        return Form.SPARSE
    if isinstance(A, np.ndarray) and A.ndim == 2 and A.shape[0] == 2 and A.dtype.kind in "iu":
        return Form.EDGE_INDEX
    return Form.DENSE


def looks_like_edge_index(value) -> bool:
    """An integer ``(2, E)`` array (``E != 2``) or torch integer tensor of shape ``(2, E)``."""
    if torch_bridge.is_tensor(value) and not torch_bridge.is_sparse_tensor(value):
        return (
            value.dim() == 2
            and value.shape[0] == 2
            and not value.is_floating_point()
            and not value.is_complex()
            and str(value.dtype) != "torch.bool"
        )
    if isinstance(value, np.ndarray) and value.ndim == 2 and value.shape[0] == 2 and value.shape[1] != 2:
        if value.dtype.kind in "iu":
            return True
        return (
            value.dtype.kind == "f"
            and value.size > 0
            and bool(np.all(np.isfinite(value)))
            and bool(np.all(value == np.round(value)))
        )
    return False


def as_graph(value, where: str = "graph", n: int | None = None, error=GdlcheckError):
    """A graph value in one of the three forms, checked: square (dense and sparse) or node labels in
    ``0..n-1`` (an edge list), finite numbers.

    Accepts numpy arrays, nested lists, scipy.sparse matrices, torch tensors (dense, sparse or
    an edge_index) and a ``torch_geometric`` ``EdgeIndex``.  ``n`` is the number of nodes when
    it is known (an edge list may have isolated nodes past its largest label).
    """
    edge_list = False
    if torch_bridge.is_tensor(value):
        edge_list = looks_like_edge_index(value)  # a torch integer (2, E) tensor, E = 2 included
        value = (
            torch_bridge.as_numpy(value)
            if not torch_bridge.is_sparse_tensor(value)
            else torch_bridge.sparse_to_scipy(value)
        )
        if isinstance(value, np.ndarray) and value.dtype.kind == "b":
            value = value.astype(np.float64)
    if is_sparse(value):
        if value.ndim != 2 or value.shape[0] != value.shape[1]:
            raise error(f"{where}: a sparse adjacency must be square, got {value.shape[0]} x {value.shape[1]}")
        _check_structure(value, where, error)
        if not np.all(np.isfinite(value.data)):
            raise error(f"{where}: the sparse adjacency holds NaN or infinite entries")
        if n is not None and value.shape[0] != n:
            raise error(f"{where} has {value.shape[0]} nodes but the group acts on n = {n}")
        return value
    if edge_list or looks_like_edge_index(value):
        ei = np.asarray(value)
        ei = ei.astype(np.int64) if ei.dtype.kind != "i" or ei.dtype != np.int64 else ei
        if ei.size and ei.min() < 0:
            raise error(f"{where}: an edge_index holds node labels 0..n-1, found {int(ei.min())}")
        if n is not None and ei.size and ei.max() >= n:
            raise error(f"{where}: an edge_index names node {int(ei.max())}, but there are n = {n} nodes (0..{n - 1})")
        return ei
    try:
        A = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise error(
            f"{where} is an adjacency matrix of numbers, a scipy.sparse matrix or an edge_index "
            f"(2 x E), not {type(value).__name__}"
        ) from None
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        shape = " x ".join(map(str, A.shape)) or "a scalar"
        raise error(f"{where} is {shape}: an adjacency is square (n x n) and an edge_index is 2 x E integers")
    if not np.all(np.isfinite(A)):
        raise error(f"{where} holds NaN or infinite entries")
    if n is not None and A.shape[0] != n:
        raise error(f"{where} is {A.shape[0]} x {A.shape[0]} but the group acts on n = {n}")
    return A


def _check_structure(A, where: str, error) -> None:
    """A scipy.sparse matrix's index arrays checked in full before any use: scipy's C code trusts
    them, and a CSR whose row pointers were not monotone crashed the process (SIGSEGV)."""
    try:
        if hasattr(A, "check_format"):
            A.check_format(full_check=True)
        elif A.format == "coo":
            n_rows, n_cols = A.shape
            for name, index, size in (("row", A.row, n_rows), ("column", A.col, n_cols)):
                if index.size and (int(index.min()) < 0 or int(index.max()) >= size):
                    raise ValueError(f"a {name} index is outside 0..{size - 1}")
            if not (len(A.row) == len(A.col) == len(A.data)):
                raise ValueError("its row, column and data arrays differ in length")
    except (ValueError, TypeError, IndexError) as err:
        raise error(f"{where}: a malformed scipy.sparse matrix ({err})") from None


def nodes(A) -> int:
    """The number of nodes of a graph value (an edge list: its largest label plus one)."""
    if form(A) is Form.EDGE_INDEX:
        return int(A.max()) + 1 if A.size else 0
    return int(A.shape[0])


def to_sparse(A, n: int | None = None):
    """A scipy.sparse adjacency ``A[target, source]`` (an edge list counted: duplicates add up);
    dense and sparse values are returned as they are."""
    if form(A) is not Form.EDGE_INDEX:
        return A
    import scipy.sparse as sp

    n = nodes(A) if n is None else n
    return sp.coo_matrix((np.ones(A.shape[1]), (A[1], A[0])), shape=(n, n)).tocsr()


# --------------------------------------------------------------------------- moving


def _sort_key(ei: np.ndarray, n: int) -> tuple[int, int] | None:
    """Which order an edge list is sorted in, as the rows of its key: ``(0, 1)`` by (source,
    target) ascending, ``(1, 0)`` by (target, source), or None."""
    if ei.shape[1] < 2:
        return None
    for a, b in ((0, 1), (1, 0)):
        key = ei[a] * n + ei[b]
        if np.all(key[1:] >= key[:-1]):
            return a, b
    return None


def relabel(p, ei: np.ndarray, n: int, rows_only: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """Node ``i`` relabelled ``p[i]`` (only the targets ``edge_index[1]`` with ``rows_only``, the
    rows of ``A[target, source]``), and the edge order used (None: the edges keep their order).

    An edge list sorted by (source, target) or (target, source) is sorted the same way after
    relabelling; moved edge ``k`` is then edge ``order[k]`` of the input.
    """
    p = np.asarray(p, dtype=np.int64)
    moved = np.empty_like(ei)
    moved[0] = ei[0] if rows_only else p[ei[0]]
    moved[1] = p[ei[1]]
    order = None
    sorted_by = _sort_key(ei, n)
    if sorted_by is not None:
        a, b = sorted_by
        order = np.argsort(moved[a] * n + moved[b], kind="stable")
        moved = moved[:, order]
    return moved, order


def move_graph(p, A, how: GraphLaw = GraphLaw.BOTH, n: int | None = None):
    """``(P A P^T, edge order)`` (``how`` both) or ``(P A, edge order)`` (rows), in A's form.

    A dense ``A`` becomes a new array, a sparse one stays sparse, an edge list is relabelled
    (:func:`relabel`); the edge order is None except for a sorted edge list.
    """
    if form(A) is Form.EDGE_INDEX:
        return relabel(p, A, len(p) if n is None else n, rows_only=how is GraphLaw.ROWS)
    return (conjugate(p, A) if how is GraphLaw.BOTH else act_rows(p, A)), None


def automorphism_edge_order(p, ei: np.ndarray, n: int) -> np.ndarray | None:
    """Where the edges of a held edge list go under an automorphism ``p`` of it: ``order`` with
    edge ``order[m]`` of ``ei`` moved onto column ``m`` of the same ``ei`` (None when ``p`` is
    not an automorphism: no column takes the edge).

    Edge ``k = (u, v)`` goes to the column of ``(p u, p v)``; of several parallel edges, the
    ``j``-th ``(u, v)`` goes to the ``j``-th ``(p u, p v)`` (a stable match), so edge attributes
    and edge outputs move as ``Y[order]``, like those of a relabelled graph.
    """
    p = np.asarray(p, dtype=np.int64)
    ei = np.asarray(ei, dtype=np.int64)
    # column m of ei takes the edge order[m]: the edge whose image is column m's edge
    return match(p[ei[0]] * n + p[ei[1]], ei[0] * n + ei[1])


def is_fixed(p, A) -> bool:
    """Whether ``p`` is an automorphism of the graph: ``P A P^T == A`` (an edge list: the same
    multiset of edges after relabelling).  Sparse and edge-list graphs are never densified."""
    if form(A) is Form.EDGE_INDEX:
        n = max(len(p), nodes(A))
        moved, _ = relabel(p, A, n)
        before = np.sort(A[0] * n + A[1])
        after = np.sort(moved[0] * n + moved[1])
        return bool(np.array_equal(before, after))
    return fixes(p, A)
