"""The graph kind: ``gcn``, ``Y = act(G(A) X W)`` with ``G(A) = D~^-1/2 (A + I) D~^-1/2`` (Theorem 3)."""

from __future__ import annotations

import copy

import numpy as np

from gdlcheck.groups.perm import is_sparse
from gdlcheck.layers.activations import activate
from gdlcheck.layers.base import Composite, Fact, Layer, exact_array, is_symbolic_array, shape_text
from gdlcheck.layers.build import register
from gdlcheck.layers.exactness import exact_entries, exact_product, exact_sum
from gdlcheck.layers.proofs import Rule, conjugation_condition


def normalize_adjacency(A: np.ndarray, normalization: str = "symmetric", self_loops: bool = True) -> np.ndarray:
    """``G(A)``: ``D~^-1/2 (A + I) D~^-1/2`` (symmetric), ``D~^-1 (A + I)`` (random_walk) or ``A + I``.

    ``D~`` is the diagonal of row sums of ``A + I``; a node of degree 0 gets a zero row.
    Works on float arrays, on object arrays of exact sympy numbers, and on scipy.sparse
    matrices (the result is then sparse CSR, scaled by sparse diagonals: never dense n x n).
    """
    if is_sparse(A):
        return _normalize_sparse(A, normalization, self_loops)
    n = A.shape[0]
    At = A
    if self_loops:
        At = A + np.eye(n, dtype=np.int64)  # integer I keeps sympy entries exact
    if normalization == "none":
        return At
    deg = At.sum(axis=1)
    if A.dtype == object:
        import sympy

        if normalization == "symmetric":
            inv = np.array([sympy.Integer(0) if d == 0 else 1 / sympy.sqrt(d) for d in deg], dtype=object)
            return inv[:, None] * At * inv[None, :]
        inv = np.array([sympy.Integer(0) if d == 0 else 1 / d for d in deg], dtype=object)
        return inv[:, None] * At
    with np.errstate(divide="ignore"):
        if normalization == "symmetric":
            inv = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
            return inv[:, None] * At * inv[None, :]
        inv = np.where(deg != 0, 1.0 / np.where(deg != 0, deg, 1.0), 0.0)
        return inv[:, None] * At


def _normalize_sparse(A, normalization: str, self_loops: bool):
    import scipy.sparse as sp

    n = A.shape[0]
    At = sp.csr_matrix(A, dtype=np.float64)
    if self_loops:
        At = At + sp.identity(n, dtype=np.float64, format="csr")
    if normalization == "none":
        return At
    deg = np.asarray(At.sum(axis=1)).ravel()
    with np.errstate(divide="ignore"):
        if normalization == "symmetric":
            inv = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
            D = sp.diags(inv, format="csr")
            return (D @ At @ D).tocsr()
        inv = np.where(deg != 0, 1.0 / np.where(deg != 0, deg, 1.0), 0.0)
        return (sp.diags(inv, format="csr") @ At).tocsr()


class GCN(Composite):
    """``Y = act(G(A) X W)`` (Theorem 3).

    ``A`` may be a scipy.sparse matrix (from the Python API): ``G(A)`` stays sparse and the
    forward pass is a sparse-times-dense product, so a large sparse graph never becomes a
    dense n x n array (the exact symbolic check, n <= 6, densifies).
    """

    kind = "gcn"
    mixes_points = True  # G(A) X
    _weights = ("A", "W")

    def __init__(self, A, W, activation="relu", normalization="symmetric", self_loops=True, graph_mode="input"):
        self.A, self.W = A, W
        self.activation, self.normalization, self.self_loops = activation, normalization, self_loops
        self.graph_mode = graph_mode
        self.in_channels, self.out_channels = int(W.shape[0]), int(W.shape[1])
        self.points = int(A.shape[0])

    depends_on = "graph"

    @property
    def uses_graph(self):  # type: ignore[override]
        return self.graph_mode == "input"

    def graph(self):
        return self.A

    def _G(self, A):
        if A is None or self.graph_mode == "fixed":
            A = self.A
        if is_sparse(A) and is_symbolic_array(self.W):
            A = A.toarray()  # the symbolic check runs for n <= 6 only
        if is_symbolic_array(self.W) or is_symbolic_array(A):
            A = exact_array(A)
        return normalize_adjacency(A, self.normalization, self.self_loops)

    def forward(self, X, A=None):
        return activate(self.activation, self._G(A) @ X @ self.W)

    def aggregations(self, X, A=None):
        return [self._G(A)]

    def linear_form(self):
        # With a fixed graph, no activation and one channel, Y = (w G(A)) X: a linear map (dense
        # graphs only: a sparse one stays sparse, and its rule's condition P A P^T = A decides).
        if (
            self.graph_mode == "fixed"
            and self.activation == "identity"
            and self.W.shape == (1, 1)
            and not is_symbolic_array(self.W)
            and isinstance(self.A, np.ndarray)
        ):
            return self.W[0, 0] * self._G(None), None
        return None

    def form_is_exact(self) -> bool:
        """``w G(A)`` holds the exact values where float64 formed it without rounding: a degree's
        square root or inverse rounds, and so can ``A + I`` (``1e-17 + 1`` is 1)."""
        form = self.linear_form()
        if form is None or form[0].dtype == object:
            return form is None or exact_entries(form[0])
        A = np.asarray(self.A, dtype=np.float64)
        return (
            self.normalization == "none"
            and (not self.self_loops or exact_sum(A, np.ones(1)))
            and exact_product(self.W[:1, :1].astype(np.float64), (A + np.eye(len(A)) * self.self_loops).reshape(1, -1))
        )

    def form_rounding(self) -> float | None:
        """With ``A + I`` non-negative, each entry of ``w G(A)`` is a few correctly rounded operations
        of a degree (a sum of at most n non-negative terms) and its entry: off by a relative
        ``(n + 8) u`` at most.  Entries of either sign can cancel in a degree: no bound."""
        if self.form_is_exact():
            return 0.0
        A = np.asarray(self.A)
        if A.dtype == object or self.W.dtype == object:
            return None
        loops = A + np.eye(len(A)) * self.self_loops
        if np.any(loops < 0) or np.any(loops.sum(axis=1) <= 0):
            return None
        return (len(A) + 8) * 2.0**-53 * 2  # twice over: the bound's own rounding

    def rule(self, group, gens):
        """Theorem 3: ``G(P A P^T) = P G(A) P^T`` for every normalisation, so with the graph
        permuted with the features the layer commutes with every permutation; with the graph
        held fixed it commutes with the automorphisms of A (``P A P^T = A``)."""
        if self.graph_mode == "input":
            return Rule("theorem3", "Theorem 3")
        return Rule(
            "theorem3_fixed", "Theorem 3", tuple(conjugation_condition(self.A, s, "graph", "adjacency") for s in gens)
        )

    def symbolic_size(self, n, d, size):
        return int(self.W.shape[1]), self.W.shape[0] * (n * (size + 6) + 2) + 8

    def asymmetries(self) -> list[Fact]:
        out = []
        if is_sparse(self.A):
            is_symmetric = (self.A != self.A.T).nnz == 0
        else:
            A = np.asarray(self.A, dtype=np.float64)
            is_symmetric = np.array_equal(A, A.T)
        if not is_symmetric:
            out.append(Fact("directed_graph"))
        if self.normalization == "random_walk":
            out.append(Fact("random_walk"))
        return out


def with_graph_mode(layer: Layer, mode: str) -> Layer:
    """A copy of ``layer`` whose GCN sublayers read the graph as ``mode`` (``input`` or ``fixed``)."""
    if isinstance(layer, GCN):
        new = copy.copy(layer)
        new.graph_mode = mode
        return new
    if isinstance(layer, Composite) and layer._children:
        return layer.mapped(lambda a: a, lambda c: with_graph_mode(c, mode))
    return layer


@register(
    "gcn",
    keys=("adjacency", "weight", "activation", "normalization", "self_loops", "graph"),
    required=("adjacency", "weight"),
)
def _build_gcn(raw, ctx, where):
    A = ctx.value(raw["adjacency"], f"{where}.adjacency", ndim=2)
    if A.dtype == object:
        raise ctx.error("the adjacency must hold numbers, not symbols", f"{where}.adjacency")
    if A.shape[0] != A.shape[1]:
        raise ctx.error(f"adjacency is {shape_text(A)}, expected a square n x n matrix", f"{where}.adjacency")
    ctx.check_points(A.shape[0], f"{where}.adjacency", "adjacency")
    W = ctx.matrix(raw["weight"], f"{where}.weight")
    normalization = ctx.choice(raw, "normalization", where, ("symmetric", "random_walk", "none"), "symmetric")
    self_loops = ctx.flag(raw, "self_loops", where, True)
    mode = ctx.choice(raw, "graph", where, ("input", "fixed"), "input")
    if normalization == "symmetric":
        deg = A.sum(axis=1) + (1.0 if self_loops else 0.0)
        if np.any(deg < 0):
            raise ctx.error(
                "symmetric normalisation needs non-negative degrees (row sums of A + I)", f"{where}.adjacency"
            )
    return GCN(A, W, ctx.activation(raw, "activation", where, "relu"), normalization, self_loops, mode)
