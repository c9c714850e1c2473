"""The attention kind: ``Y = concat_h(G_h(X) X Wv_h) Wo``, ``G_h = softmax_row(X Wq_h Wk_h^T X^T / sqrt(dk) + B)``.

Theorem 4: the scores transform as ``S(PX) = P S(X) P^T`` and softmax by rows (or any
pointwise weighting) keeps that, so the layer is equivariant unless a mask, an absolute
positional table or a relative bias ties it to the positions.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.inputs.spec import check_keys
from gdlcheck.layers.activations import activate, masked, softmax_rows
from gdlcheck.layers.base import Composite, Fact, is_symbolic_array, shape_text
from gdlcheck.layers.build import register
from gdlcheck.layers.proofs import Condition, Rule, generator_text, vector_condition
from gdlcheck.limits import MAX_CONDITION_ENTRIES, MAX_SPEC_ENTRIES
from gdlcheck.tolerances import SCORE_SYMMETRY_TOL


class Attention(Composite):
    """``Y = concat_h(G_h(X) X Wv_h) Wo`` with ``G_h = softmax_row(scale X Wq_h Wk_h^T X^T + B)`` (Theorem 4)."""

    kind = "attention"
    depends_on = "content"
    mixes_points = True  # G X, G an n x n matrix of scores
    _weights: tuple[str, ...] = ("wq", "wk", "wv", "wo", "table", "bias_b")

    def __init__(
        self, wq, wk, wv, wo=None, heads=1, weights="softmax", scale=None, mask="none", table=None, bias_b=None
    ):
        self.wq, self.wk, self.wv, self.wo = wq, wk, wv, wo
        self.heads, self.weights, self.scale, self.mask = heads, weights, scale, mask
        self.table, self.bias_b = table, bias_b
        self.in_channels = int(wq.shape[0])
        self.out_channels = int(wo.shape[1] if wo is not None else wv.shape[1])
        self.points = (
            int(table.shape[0]) if table is not None else (int(bias_b.shape[0]) if bias_b is not None else None)
        )
        if scale is not None:
            self._weights = self._weights + ("scale",)

    @property
    def dk(self) -> int:
        return int(self.wq.shape[1]) // self.heads

    def _scale(self, symbolic: bool):
        if self.scale is not None:
            return self.scale
        if symbolic:
            import sympy

            return 1 / sympy.sqrt(self.dk)
        return 1.0 / math.sqrt(self.dk)

    def _keep(self, n: int):
        if self.mask == "causal":
            return np.tril(np.ones((n, n), dtype=bool))
        return None

    def _relative(self, n: int, like):
        idx = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
        return self.bias_b[idx]

    def _heads(self, X):
        """Per head: (G, V)."""
        symbolic = is_symbolic_array(X)
        n = X.shape[0]
        Z = X + self.table if self.table is not None else X
        keep = self._keep(n)
        B = self._relative(n, X) if self.bias_b is not None else None
        scale = self._scale(symbolic)
        out = []
        dk, dv = self.dk, int(self.wv.shape[1]) // self.heads
        for h in range(self.heads):
            Q = Z @ self.wq[:, h * dk : (h + 1) * dk]
            K = Z @ self.wk[:, h * dk : (h + 1) * dk]
            V = Z @ self.wv[:, h * dv : (h + 1) * dv]
            S = (Q @ K.T) * scale
            if B is not None:
                S = S + B
            if self.weights == "softmax":
                G = softmax_rows(S, keep)
            else:
                G = activate(self.weights, S)
                if keep is not None:
                    G = masked(G, keep)
            out.append((G, V))
        return out

    def forward(self, X, A=None):
        parts = [G @ V for G, V in self._heads(X)]
        Y = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
        return Y @ self.wo if self.wo is not None else Y

    def aggregations(self, X, A=None):
        return [G for G, _ in self._heads(X)]

    def rule(self, group, gens):
        """Theorem 4: the scores transform as ``S(PX) = P S(X) P^T``, and softmax by rows (or a
        pointwise weighting) keeps that, in every head; so the layer commutes with g when g
        keeps the mask (``P M P^T = M``), the absolute table (``P E = E``) and the relative bias
        (``P B P^T = B``) it has."""
        conditions = []
        for s in gens:
            if self.mask == "causal":
                conditions.append(causal_mask_condition(np.asarray(s)))
            if self.table is not None:
                conditions.append(vector_condition(self.table, s, "table", "positional"))
            if self.bias_b is not None:
                conditions.append(relative_bias_condition(self.bias_b, np.asarray(s)))
        return Rule("theorem4", "Theorem 4", tuple(conditions))

    def symbolic_size(self, n, d, size):
        z = size + (2 if self.table is not None else 0)
        q = d * (z + 2)  # an entry of X Wq or X Wk
        score = self.dk * (2 * q + 1) + 4  # an entry of Q K^T, scaled, plus a bias
        weight = (n + 1) * (score + 2) if self.weights == "softmax" else score + 8
        out = n * (weight + d * (z + 2) + 1)  # an entry of G V
        if self.wo is not None:
            out = self.wo.shape[0] * (out + 2)
        return self.out_channels, out

    def holds_point_matrices(self) -> bool:
        return True  # the n x n scores, whatever the graph

    def asymmetries(self) -> list[Fact]:
        out = []
        if self.mask == "causal":
            out.append(Fact("causal_mask_triangular"))
        if self.weights == "softmax":
            out.append(Fact("softmax_rows"))
        dk = self.dk
        for h in range(self.heads):
            Q = np.asarray(self.wq[:, h * dk : (h + 1) * dk], dtype=np.float64)
            K = np.asarray(self.wk[:, h * dk : (h + 1) * dk], dtype=np.float64)
            measured = _score_gap(Q, K)
            if measured is None:
                continue  # d x d past the budget: the fact is not measured (it only explains)
            gap, top = measured
            if gap > SCORE_SYMMETRY_TOL * max(1.0, top):
                out.append(Fact("scores", {"head": h if self.heads > 1 else None, "gap": gap}))
        if self.bias_b is not None:
            n = self.bias_b.shape[0]
            if not np.array_equal(self.bias_b, self.bias_b[(-np.arange(n)) % n]):
                out.append(Fact("relative_bias_asymmetric"))
        return out


def causal_mask_condition(s: np.ndarray) -> Condition:
    """``P M P^T = M`` for the causal mask ``M[i, j] = (j <= i)``, in O(n): ``M[g i, g j] = M[i, j]``
    for all pairs says g keeps the order of the points, and only the identity does.  Where g
    moves a point, the first one ``i`` goes up (``g i > i``), and the point ``j`` that g takes
    to ``i`` comes after it: ``M[i, j] = 0`` but ``M[g i, g j] = 1``."""
    moved = np.nonzero(s != np.arange(len(s)))[0]
    gen = generator_text(s)
    if not moved.size:
        return Condition("mask", gen, True, "mask")
    i = int(moved[0])
    j = int(np.nonzero(s == i)[0][0])
    return Condition("mask", gen, False, "mask", (i, j), (int(s[i]), int(s[j])), (np.int8(0), np.int8(1)))


def relative_bias_condition(b: np.ndarray, s: np.ndarray) -> Condition:
    """``P B P^T = B`` for ``B[i, j] = b_((i - j) mod n)``, never building B: a shift of the points
    (and a constant b) keeps it at once; otherwise ``b[(g i - g j) mod n] = b[(i - j) mod n]`` is
    compared a block of rows at a time, stopping at the first pair that breaks it, within
    ``MAX_CONDITION_ENTRIES`` pairs (past them, a LimitError that says the estimate)."""
    n = len(s)
    gen = generator_text(s)
    offsets = (s - np.arange(n)) % n
    if np.all(offsets == offsets[0]) or np.all(b == b[0]):
        return Condition("relative_bias", gen, True, "positional")
    step = max(1, (1 << 20) // n)
    for start in range(0, n, step):
        if min(n, start + step) * n > MAX_CONDITION_ENTRIES:
            raise LimitError(
                f"checking P B P^T = B for {gen if len(gen) <= 40 else 'a generator'} compares "
                f"{n * n:.3g} pairs of the relative bias, over the limit of {MAX_CONDITION_ENTRIES}"
            )
        rows = np.arange(start, min(n, start + step))
        given = b[(rows[:, None] - np.arange(n)[None, :]) % n]
        moved = b[(s[rows][:, None] - s[None, :]) % n]
        differ = np.argwhere(given != moved)
        if differ.size:
            k, j = (int(v) for v in differ[0])
            i = int(rows[k])
            return Condition(
                "relative_bias", gen, False, "positional", (i, j), (int(s[i]), int(s[j])), (given[k, j], moved[k, j])
            )
    return Condition("relative_bias", gen, True, "positional")


def _score_gap(Q: np.ndarray, K: np.ndarray) -> tuple[float, float] | None:
    """``max |M - M^T|`` and ``max |M|`` of ``M = Q K^T`` (d x d), in blocks of rows (no d x d
    array); None past MAX_SPEC_ENTRIES entries of M."""
    d = Q.shape[0]
    if d * d > MAX_SPEC_ENTRIES:
        return None
    gap = top = 0.0
    step = max(1, (1 << 22) // max(d, 1))
    for start in range(0, d, step):
        rows = Q[start : start + step] @ K.T  # M[rows, :]
        mirror = K[start : start + step] @ Q.T  # M^T[rows, :]
        if rows.size:
            gap = max(gap, float(np.max(np.abs(rows - mirror))))
            top = max(top, float(np.max(np.abs(rows))))
    return gap, top


@register(
    "attention",
    keys=("wq", "wk", "wv", "wo", "heads", "weights", "scale", "mask", "positional"),
    required=("wq", "wk", "wv"),
)
def _build_attention(raw, ctx, where):
    wq = ctx.matrix(raw["wq"], f"{where}.wq")
    d = wq.shape[0]
    wk = ctx.matrix(raw["wk"], f"{where}.wk")
    if wk.shape != wq.shape:
        raise ctx.error(f"wk is {shape_text(wk)}, expected the shape of wq ({shape_text(wq)})", f"{where}.wk")
    wv = ctx.matrix(raw["wv"], f"{where}.wv", rows=d)
    heads = ctx.integer(raw, "heads", where, default=1)
    if wq.shape[1] % heads:
        raise ctx.error(f"wq has {wq.shape[1]} columns, not a multiple of heads = {heads}", f"{where}.heads")
    if wv.shape[1] % heads:
        raise ctx.error(f"wv has {wv.shape[1]} columns, not a multiple of heads = {heads}", f"{where}.heads")
    wo = None
    if raw.get("wo") is not None:
        wo = ctx.matrix(raw["wo"], f"{where}.wo", rows=wv.shape[1])
    weights = ctx.activation(raw, "weights", where, "softmax", extra=("softmax",))
    scale = None
    if raw.get("scale") is not None:
        scale = ctx.scalar(raw["scale"], f"{where}.scale")
    mask = ctx.choice(raw, "mask", where, ("none", "causal"), "none")
    table = bias_b = None
    pos = raw.get("positional")
    if pos is not None:
        pwhere = f"{where}.positional"
        if not isinstance(pos, dict) or len(pos) != 1:
            raise ctx.error("positional is {absolute: TABLE} or {relative: [b_0, .., b_(n-1)]}", pwhere)
        check_keys(pos, ("absolute", "relative"), pwhere, ctx.spec)
        if "absolute" in pos:
            table = ctx.matrix(pos["absolute"], f"{pwhere}.absolute")
            if table.shape[1] != d:
                raise ctx.error(
                    f"table is {shape_text(table)}, expected n x {d} (it is added to X)", f"{pwhere}.absolute"
                )
            ctx.check_points(table.shape[0], f"{pwhere}.absolute", "the positional table")
        else:
            bias_b = ctx.vector(pos["relative"], f"{pwhere}.relative")
            ctx.check_points(bias_b.shape[0], f"{pwhere}.relative", "the relative bias")
    return Attention(wq, wk, wv, wo, heads, weights, scale, mask, table, bias_b)
