"""The texts' architectures as layer kinds: GCN, self-attention, transformer encoders, pooling.

Every kind here computes ``f(X)`` (``f(X, A)`` for graph layers) on ``X`` of shape n x d
with numpy in float64, and the same function on an object array of sympy symbols
(``forward_symbolic``), which is how non-linear layers are checked exactly for small n.
One implementation serves both: the helpers below (activations, softmax, square roots)
look at the array's dtype.

Kinds (DESIGN.md section 4): ``gcn``, ``attention``, ``pointwise``, ``mlp``, ``layernorm``,
``residual``, ``sequential``, ``pool``, ``transformer_encoder``, and ``deepsets`` with
channel matrices ``lambda``/``gamma``.

Each layer may also give the matrices G of the unified form ``Y = G(X, A) V(X)``
(``aggregations``), which ``gdlcheck inspect`` measures (:func:`inspect_layer`).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.groups import act_on_both
from gdlcheck.errors import GdlcheckError
from gdlcheck.layers import (BuildContext, Layer, build_layer, exact_array, free_symbols, identity_plus_ones,
                             numeric, register)
from gdlcheck.spec import check_keys, suggest

# --------------------------------------------------------------------------- elementwise helpers

LEAKY_SLOPE = 0.01
ACTIVATION_NAMES = ("relu", "leaky_relu", "tanh", "sigmoid", "gelu", "softplus", "identity", "square")
DEPENDS_ORDER = {"constant": 0, "offset": 1, "graph": 2, "content": 3}


def is_symbolic_array(X) -> bool:
    return isinstance(X, np.ndarray) and X.dtype == object


def _num_activation(name: str, x: np.ndarray) -> np.ndarray:
    if name == "identity":
        return x
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "leaky_relu":
        return np.where(x > 0, x, LEAKY_SLOPE * x)
    if name == "tanh":
        return np.tanh(x)
    if name == "sigmoid":
        from scipy.special import expit

        return expit(x)
    if name == "gelu":
        from scipy.special import erf

        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    if name == "softplus":
        return np.logaddexp(0.0, x)
    if name == "square":
        return x * x
    raise KeyError(name)


def _sym_activation(name: str):
    import sympy

    table = {
        "identity": lambda e: e,
        "relu": lambda e: sympy.Max(0, e),
        # max(x, 0.01 x) is leaky ReLU for a slope below 1, and keeps its structure
        "leaky_relu": lambda e: sympy.Max(e, sympy.Rational(1, 100) * e),
        "tanh": sympy.tanh,
        "sigmoid": lambda e: 1 / (1 + sympy.exp(-e)),
        "gelu": lambda e: e / 2 * (1 + sympy.erf(e / sympy.sqrt(2))),
        "softplus": lambda e: sympy.log(1 + sympy.exp(e)),
        "square": lambda e: e**2,
    }
    return table[name]


def activate(name: str, x: np.ndarray) -> np.ndarray:
    """Apply a named activation elementwise, to numbers or sympy expressions."""
    if is_symbolic_array(x):
        fn = _sym_activation(name)
        return _map_objects(fn, x)
    return _num_activation(name, x)


def _map_objects(fn, x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=object)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    for k in range(flat_in.size):
        flat_out[k] = fn(flat_in[k])
    return out


def _sqrt(x):
    if is_symbolic_array(x):
        import sympy

        return _map_objects(sympy.sqrt, x)
    return np.sqrt(x)


def softmax_rows(S: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Row-wise softmax; entries where ``keep`` is False get weight 0 (a mask)."""
    if is_symbolic_array(S):
        import sympy

        E = _map_objects(sympy.exp, S)
        if keep is not None:
            E[~keep] = sympy.Integer(0)
        return E / E.sum(axis=1, keepdims=True)
    if keep is not None:
        S = np.where(keep, S, -np.inf)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def _call(layer: Layer, X, A=None):
    """Run a sublayer numerically or symbolically, as ``X`` is."""
    return layer.forward_symbolic(X, A) if is_symbolic_array(X) else layer.forward(X, A)


def _exact_scalar(x):
    return exact_array(x)


# --------------------------------------------------------------------------- the base of this module's kinds


class NNLayer(Layer):
    """A layer whose weights are named attributes (``_weights``) and sublayers ``_children``.

    ``symbols``/``subs`` and the exact (rational) copy used by ``forward_symbolic`` come from
    those two lists, so a kind only writes ``forward``.
    """

    _weights: tuple[str, ...] = ()
    _children: tuple[str, ...] = ()
    supports_symbolic = True

    def children(self) -> list[Layer]:
        out: list[Layer] = []
        for name in self._children:
            value = getattr(self, name)
            out.extend(value if isinstance(value, list) else [value])
        return out

    def _arrays(self):
        for name in self._weights:
            value = getattr(self, name)
            if isinstance(value, list):
                yield from (v for v in value if v is not None)
            elif value is not None:
                yield value

    def symbols(self) -> set:
        out = free_symbols(*self._arrays())
        for child in self.children():
            out |= child.symbols()
        return out

    def _mapped(self, fn, children_fn=None):
        new = copy.copy(self)
        for name in self._weights:
            value = getattr(self, name)
            if isinstance(value, list):
                setattr(new, name, [None if v is None else fn(v) for v in value])
            elif value is not None:
                setattr(new, name, fn(value))
        if children_fn is not None:
            for name in self._children:
                value = getattr(self, name)
                setattr(new, name, [children_fn(c) for c in value] if isinstance(value, list) else children_fn(value))
        return new

    def subs(self, values: dict) -> "NNLayer":
        if not self.symbols():
            return self
        return self._mapped(lambda a: numeric(a, values), lambda c: c.subs(values))

    def forward_symbolic(self, X, A=None):
        # own weights become exact; children convert theirs when _call runs them
        return self._mapped(exact_array).forward(X, A)

    @property
    def depends_on(self) -> str:  # type: ignore[override]
        kids = self.children()
        if not kids:
            return "constant"
        return max((c.depends_on for c in kids), key=lambda d: DEPENDS_ORDER.get(d, 0))

    @property
    def uses_graph(self) -> bool:  # type: ignore[override]
        return any(c.uses_graph for c in self.children())

    def graph(self):
        for c in self.children():
            A = c.graph()
            if A is not None:
                return A
        return None


# --------------------------------------------------------------------------- spec helpers


def _activation(raw: dict, key: str, ctx: BuildContext, where: str, default: str, extra: tuple = ()) -> str:
    name = raw.get(key, default)
    if name is None:
        name = default
    allowed = tuple(extra) + ACTIVATION_NAMES
    if not isinstance(name, str) or name not in allowed:
        raise ctx.error(f"unknown activation {name!r}{suggest(name, allowed)}; known: {', '.join(allowed)}",
                        f"{where}.{key}")
    return name


def _choice(raw: dict, key: str, ctx: BuildContext, where: str, allowed: tuple, default):
    value = raw.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or value not in allowed:
        raise ctx.error(f"{key} must be one of {', '.join(map(str, allowed))}, got {value!r}{suggest(value, allowed)}",
                        f"{where}.{key}")
    return value


def _int(raw: dict, key: str, ctx: BuildContext, where: str, default=None, minimum: int = 1) -> int:
    value = raw.get(key, default)
    if value is None:
        raise ctx.error(f"missing key {key!r}", where)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ctx.error(f"{key} must be an integer >= {minimum}, got {value!r}", f"{where}.{key}")
    return value


def _bool(raw: dict, key: str, ctx: BuildContext, where: str, default: bool) -> bool:
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise ctx.error(f"{key} must be true or false, got {value!r}", f"{where}.{key}")
    return value


def _matrix(raw_value, ctx: BuildContext, where: str, rows: int | None = None) -> np.ndarray:
    a = ctx.value(raw_value, where, ndim=2)
    if a.dtype == object and not free_symbols(a):
        a = a.astype(np.float64)
    if rows is not None and a.shape[0] != rows:
        raise ctx.error(f"has {a.shape[0]} rows, expected {rows} (the input channels)", where)
    return a


def _vector(raw_value, ctx: BuildContext, where: str, length: int | None = None) -> np.ndarray:
    a = ctx.value(raw_value, where, ndim=1)
    if a.dtype == object and not free_symbols(a):
        a = a.astype(np.float64)
    if length is not None and a.shape[0] != length:
        raise ctx.error(f"has {a.shape[0]} entries, expected {length}", where)
    return a


def _check_points(ctx: BuildContext, count: int, where: str, what: str) -> None:
    if ctx.n is not None and count != ctx.n:
        raise ctx.error(f"{what} has {count} points but the group acts on n = {ctx.n}", where)


def _shape(a: np.ndarray) -> str:
    return " x ".join(map(str, a.shape))


# --------------------------------------------------------------------------- gcn


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


def is_sparse(A) -> bool:
    """A scipy.sparse matrix or array (scipy is not imported to answer no)."""
    import sys

    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(A)


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


class GCN(NNLayer):
    """``Y = act(G(A) X W)`` (Theorem 3).

    ``A`` may be a scipy.sparse matrix (from the Python API): ``G(A)`` stays sparse and the
    forward pass is a sparse-times-dense product, so a large sparse graph never becomes a
    dense n x n array (the exact symbolic check, n <= 6, densifies).
    """

    kind = "gcn"
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
        # With a fixed graph, no activation and one channel, Y = (w G(A)) X: a linear map.
        if (self.graph_mode == "fixed" and self.activation == "identity" and self.W.shape == (1, 1)
                and not is_symbolic_array(self.W)):
            return self.W[0, 0] * self._G(None), None
        return None

    def breaks(self, s):
        if self.graph_mode == "fixed":
            moved = act_on_both(s, self.A)
            same = (moved != self.A).nnz == 0 if is_sparse(self.A) else np.array_equal(moved, self.A)
            if not same:
                return ["P A P^T != A: this generator is not an automorphism of the graph, which graph: fixed "
                        "needs"]
        return []

    def why_not_symmetric(self) -> list[str]:
        out = []
        if is_sparse(self.A):
            is_symmetric = (self.A != self.A.T).nnz == 0
        else:
            A = np.asarray(self.A, dtype=np.float64)
            is_symmetric = np.array_equal(A, A.T)
        if not is_symmetric:
            out.append("the adjacency A is not symmetric (a directed graph)")
        if self.normalization == "random_walk":
            out.append("random_walk normalisation D~^-1 (A + I) scales each row by its own degree, so G[i, j] = "
                       "1/deg(i) differs from G[j, i] = 1/deg(j) when the degrees differ")
        return out


def with_graph_mode(layer: Layer, mode: str) -> Layer:
    """A copy of ``layer`` whose GCN sublayers read the graph as ``mode`` (``input`` or ``fixed``)."""
    if isinstance(layer, GCN):
        new = copy.copy(layer)
        new.graph_mode = mode
        return new
    if isinstance(layer, NNLayer) and layer._children:
        return layer._mapped(lambda a: a, lambda c: with_graph_mode(c, mode))
    return layer


@register("gcn", keys=("adjacency", "weight", "activation", "normalization", "self_loops", "graph"),
          required=("adjacency", "weight"))
def _build_gcn(raw, ctx, where):
    A = ctx.value(raw["adjacency"], f"{where}.adjacency", ndim=2)
    if A.dtype == object:
        raise ctx.error("the adjacency must hold numbers, not symbols", f"{where}.adjacency")
    if A.shape[0] != A.shape[1]:
        raise ctx.error(f"adjacency is {_shape(A)}, expected a square n x n matrix", f"{where}.adjacency")
    _check_points(ctx, A.shape[0], f"{where}.adjacency", "adjacency")
    W = _matrix(raw["weight"], ctx, f"{where}.weight")
    normalization = _choice(raw, "normalization", ctx, where, ("symmetric", "random_walk", "none"), "symmetric")
    self_loops = _bool(raw, "self_loops", ctx, where, True)
    mode = _choice(raw, "graph", ctx, where, ("input", "fixed"), "input")
    if normalization == "symmetric":
        deg = A.sum(axis=1) + (1.0 if self_loops else 0.0)
        if np.any(deg < 0):
            raise ctx.error("symmetric normalisation needs non-negative degrees (row sums of A + I)",
                            f"{where}.adjacency")
    return GCN(A, W, _activation(raw, "activation", ctx, where, "relu"), normalization, self_loops, mode)


# --------------------------------------------------------------------------- attention


class Attention(NNLayer):
    """``Y = concat_h(G_h(X) X Wv_h) Wo`` with ``G_h = softmax_row(scale X Wq_h Wk_h^T X^T + B)`` (Theorem 4)."""

    kind = "attention"
    depends_on = "content"
    _weights = ("wq", "wk", "wv", "wo", "table", "bias_b")

    def __init__(self, wq, wk, wv, wo=None, heads=1, weights="softmax", scale=None, mask="none", table=None,
                 bias_b=None):
        self.wq, self.wk, self.wv, self.wo = wq, wk, wv, wo
        self.heads, self.weights, self.scale, self.mask = heads, weights, scale, mask
        self.table, self.bias_b = table, bias_b
        self.in_channels = int(wq.shape[0])
        self.out_channels = int(wo.shape[1] if wo is not None else wv.shape[1])
        self.points = int(table.shape[0]) if table is not None else (int(bias_b.shape[0]) if bias_b is not None
                                                                      else None)
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
            Q = Z @ self.wq[:, h * dk:(h + 1) * dk]
            K = Z @ self.wk[:, h * dk:(h + 1) * dk]
            V = Z @ self.wv[:, h * dv:(h + 1) * dv]
            S = (Q @ K.T) * scale
            if B is not None:
                S = S + B
            if self.weights == "softmax":
                G = softmax_rows(S, keep)
            else:
                G = activate(self.weights, S)
                if keep is not None:
                    G = np.where(keep, G, 0) if not symbolic else _masked(G, keep)
            out.append((G, V))
        return out

    def forward(self, X, A=None):
        parts = [G @ V for G, V in self._heads(X)]
        Y = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
        return Y @ self.wo if self.wo is not None else Y

    def aggregations(self, X, A=None):
        return [G for G, _ in self._heads(X)]

    def breaks(self, s):
        out = []
        n = len(s)
        if self.mask == "causal" and np.any(s != np.arange(n)):
            out.append("the causal mask keeps G[i, j] only for j <= i, an order of the positions that only the "
                       "identity preserves: masked attention is not permutation equivariant")
        if self.table is not None and not np.array_equal(self.table[s], self.table):
            out.append("the absolute positional table E is added to X and E[sigma[i]] != E[i]: it tells positions "
                       "apart, so the layer commutes only with permutations that fix E")
        if self.bias_b is not None:
            B = self._relative(n, None)
            moved = B[np.ix_(s, s)]
            if not np.array_equal(moved, B):
                out.append("the relative positional bias B[i, j] = b_((i-j) mod n) depends on the offset i - j: "
                           "cyclic shifts keep it, other permutations change the offsets (B[sigma[i], sigma[j]] "
                           "!= B[i, j])")
        return out

    def why_not_symmetric(self) -> list[str]:
        out = []
        if self.mask == "causal":
            out.append("the causal mask zeroes G[i, j] for j > i, so G is lower triangular")
        if self.weights == "softmax":
            out.append("softmax normalises each row on its own (rows sum to 1, columns do not), so G[i, j] != "
                       "G[j, i] in general, whatever Wq and Wk are")
        dk = self.dk
        for h in range(self.heads):
            M = np.asarray(self.wq[:, h * dk:(h + 1) * dk] @ self.wk[:, h * dk:(h + 1) * dk].T, dtype=np.float64)
            gap = float(np.max(np.abs(M - M.T))) if M.size else 0.0
            if gap > 1e-12 * max(1.0, float(np.max(np.abs(M)))):
                head = f" of head {h}" if self.heads > 1 else ""
                out.append(f"Wq Wk^T{head} is not symmetric (largest |M - M^T| = {gap:.3g}), so the scores "
                           "S[i, j] = x_i Wq Wk^T x_j^T differ from S[j, i]; a pointwise activation keeps that "
                           "asymmetry (G is symmetric when Wq Wk^T is, e.g. Wq = Wk)")
        if self.bias_b is not None:
            n = self.bias_b.shape[0]
            if not np.array_equal(self.bias_b, self.bias_b[(-np.arange(n)) % n]):
                out.append("the relative bias has b_k != b_(n-k), so B[i, j] != B[j, i]")
        return out


def _masked(G, keep):
    import sympy

    out = G.copy()
    out[~keep] = sympy.Integer(0)
    return out


@register("attention", keys=("wq", "wk", "wv", "wo", "heads", "weights", "scale", "mask", "positional"),
          required=("wq", "wk", "wv"))
def _build_attention(raw, ctx, where):
    wq = _matrix(raw["wq"], ctx, f"{where}.wq")
    d = wq.shape[0]
    wk = _matrix(raw["wk"], ctx, f"{where}.wk")
    if wk.shape != wq.shape:
        raise ctx.error(f"wk is {_shape(wk)}, expected the shape of wq ({_shape(wq)})", f"{where}.wk")
    wv = _matrix(raw["wv"], ctx, f"{where}.wv", rows=d)
    heads = _int(raw, "heads", ctx, where, default=1)
    if wq.shape[1] % heads:
        raise ctx.error(f"wq has {wq.shape[1]} columns, not a multiple of heads = {heads}", f"{where}.heads")
    if wv.shape[1] % heads:
        raise ctx.error(f"wv has {wv.shape[1]} columns, not a multiple of heads = {heads}", f"{where}.heads")
    wo = None
    if raw.get("wo") is not None:
        wo = _matrix(raw["wo"], ctx, f"{where}.wo", rows=wv.shape[1])
    weights = _activation(raw, "weights", ctx, where, "softmax", extra=("softmax",))
    scale = None
    if raw.get("scale") is not None:
        scale = ctx.scalar(raw["scale"], f"{where}.scale")
    mask = _choice(raw, "mask", ctx, where, ("none", "causal"), "none")
    table = bias_b = None
    pos = raw.get("positional")
    if pos is not None:
        pwhere = f"{where}.positional"
        if not isinstance(pos, dict) or len(pos) != 1:
            raise ctx.error("positional is {absolute: TABLE} or {relative: [b_0, .., b_(n-1)]}", pwhere)
        check_keys(pos, ("absolute", "relative"), pwhere, ctx.spec)
        if "absolute" in pos:
            table = _matrix(pos["absolute"], ctx, f"{pwhere}.absolute")
            if table.shape[1] != d:
                raise ctx.error(f"table is {_shape(table)}, expected n x {d} (it is added to X)", f"{pwhere}.absolute")
            _check_points(ctx, table.shape[0], f"{pwhere}.absolute", "the positional table")
        else:
            bias_b = _vector(pos["relative"], ctx, f"{pwhere}.relative")
            _check_points(ctx, bias_b.shape[0], f"{pwhere}.relative", "the relative bias")
    return Attention(wq, wk, wv, wo, heads, weights, scale, mask, table, bias_b)


# --------------------------------------------------------------------------- rowwise kinds


class Pointwise(NNLayer):
    kind = "pointwise"

    def __init__(self, activation: str):
        self.activation = activation

    def forward(self, X, A=None):
        return activate(self.activation, X)


@register("pointwise", keys=("activation",), required=("activation",))
def _build_pointwise(raw, ctx, where):
    return Pointwise(_activation(raw, "activation", ctx, where, "relu"))


class MLP(NNLayer):
    """The same MLP on every row: ``act(X W1 + b1) W2 + b2 ...`` (no activation after the last)."""

    kind = "mlp"
    _weights = ("weights", "biases")

    def __init__(self, weights: list, biases: list, activation: str):
        self.weights, self.biases, self.activation = weights, biases, activation
        self.in_channels = int(weights[0].shape[0])
        self.out_channels = int(weights[-1].shape[1])

    def forward(self, X, A=None):
        Y = X
        for k, (W, b) in enumerate(zip(self.weights, self.biases)):
            Y = Y @ W
            if b is not None:
                Y = Y + b[None, :]
            if k < len(self.weights) - 1:
                Y = activate(self.activation, Y)
        return Y


@register("mlp", keys=("weights", "biases", "activation"), required=("weights",))
def _build_mlp(raw, ctx, where):
    items = raw["weights"]
    if not isinstance(items, list) or not items:
        raise ctx.error("weights is a non-empty list of matrices, e.g. [{random: [2, 8]}, {random: [8, 2]}]",
                        f"{where}.weights")
    # a list of numbers or of rows is one matrix, not a list of matrices
    if all(not isinstance(x, (list, dict)) for x in items) or (isinstance(items[0], list) and items[0]
                                                               and not isinstance(items[0][0], list)):
        raise ctx.error("weights is a list of matrices (a list of lists of rows); wrap one matrix in [ ]",
                        f"{where}.weights")
    weights = []
    for k, item in enumerate(items):
        W = _matrix(item, ctx, f"{where}.weights[{k}]")
        if weights and W.shape[0] != weights[-1].shape[1]:
            raise ctx.error(f"has {W.shape[0]} rows but the previous weight has {weights[-1].shape[1]} columns",
                            f"{where}.weights[{k}]")
        weights.append(W)
    biases: list = [None] * len(weights)
    if raw.get("biases") is not None:
        braw = raw["biases"]
        if not isinstance(braw, list) or len(braw) != len(weights):
            raise ctx.error(f"biases is a list of {len(weights)} vectors (one per weight)", f"{where}.biases")
        biases = [None if b is None else _vector(b, ctx, f"{where}.biases[{k}]", length=weights[k].shape[1])
                  for k, b in enumerate(braw)]
    return MLP(weights, biases, _activation(raw, "activation", ctx, where, "relu"))


class LayerNorm(NNLayer):
    """Each row minus its mean, divided by ``sqrt(var + eps)`` (over the channels)."""

    kind = "layernorm"
    _weights = ("eps",)

    def __init__(self, eps: float = 1e-5):
        self.eps = eps

    def forward(self, X, A=None):
        d = X.shape[1]
        mean = X.sum(axis=1, keepdims=True) / d
        C = X - mean
        var = (C * C).sum(axis=1, keepdims=True) / d
        return C / _sqrt(var + self.eps)


def _eps(raw: dict, ctx: BuildContext, where: str) -> float:
    """``eps``: a positive number; ``1e-5`` is accepted although YAML reads it as a string."""
    value = raw.get("eps", 1e-5)
    try:
        eps = float(ctx.scalar(value, f"{where}.eps"))
    except (GdlcheckError, TypeError):
        eps = math.nan
    if not (math.isfinite(eps) and eps > 0):
        raise ctx.error(f"eps must be a positive number, got {value!r}", f"{where}.eps")
    return eps


@register("layernorm", keys=("eps",))
def _build_layernorm(raw, ctx, where):
    return LayerNorm(_eps(raw, ctx, where))


class Residual(NNLayer):
    """``Y = X + f(X)``."""

    kind = "residual"
    _children = ("layer",)

    def __init__(self, layer: Layer):
        self.layer = layer
        self.in_channels = layer.in_channels
        self.out_channels = layer.in_channels

    @property
    def points(self):
        return _points(self.layer)

    def forward(self, X, A=None):
        return X + _call(self.layer, X, A)

    def forward_symbolic(self, X, A=None):
        return self.forward(X, A)

    def aggregations(self, X, A=None):
        return None

    def linear_form(self):
        form = self.layer.linear_form()
        if form is None or form[0].shape[0] != form[0].shape[1]:
            return None
        W, b = form
        return W + np.eye(W.shape[0], dtype=np.int64), b  # integer I keeps sympy entries exact


@register("residual", keys=("layer",), required=("layer",))
def _build_residual(raw, ctx, where):
    inner = build_layer(raw["layer"], ctx, f"{where}.layer")
    if inner.in_channels is not None and inner.out_channels is not None and inner.in_channels != inner.out_channels:
        raise ctx.error(f"the inner layer maps {inner.in_channels} channels to {inner.out_channels}; X + f(X) "
                        "needs the same number", f"{where}.layer")
    return Residual(inner)


def _points(layer: Layer) -> int | None:
    p = getattr(layer, "points", None)
    if p is not None:
        return int(p)
    for child in layer.children():
        p = _points(child)
        if p is not None:
            return p
    return None


class Sequential(NNLayer):
    kind = "sequential"
    _children = ("layers",)

    def __init__(self, layers: list[Layer]):
        self.layers = layers
        self.in_channels = next((c.in_channels for c in layers if c.in_channels is not None), None)
        out = None
        for c in layers:
            if c.out_channels is not None:
                out = c.out_channels
        self.out_channels = out

    @property
    def points(self):
        return next((p for p in map(_points, self.layers) if p is not None), None)

    @property
    def invariant(self):  # type: ignore[override]
        return any(c.invariant for c in self.layers)

    def forward(self, X, A=None):
        for layer in self.layers:
            X = layer.forward(X, A)
        return X

    def forward_symbolic(self, X, A=None):
        for layer in self.layers:
            X = layer.forward_symbolic(X, A)
        return X

    def linear_form(self):
        forms = [c.linear_form() for c in self.layers]
        if any(f is None for f in forms):
            return None
        W, b = forms[0]
        for W2, b2 in forms[1:]:
            if W2.shape[1] != W.shape[0]:
                return None
            if b is not None:
                if not (isinstance(b, np.ndarray) and b.ndim == 1):
                    b = np.full(W.shape[0], b, dtype=object if hasattr(b, "free_symbols") else np.float64)
                b = W2 @ b
            W = W2 @ W
            if b2 is not None:
                b = b2 if b is None else b + b2
        return W, b


@register("sequential", keys=("layers",), required=("layers",))
def _build_sequential(raw, ctx, where, items_at: str | None = None):
    items = raw["layers"]
    at = items_at if items_at is not None else f"{where}.layers"
    if not isinstance(items, list) or not items:
        raise ctx.error("layers is a non-empty list of layers", at)
    spec_channels = ctx.spec.channels if ctx.spec is not None else None
    current = spec_channels
    layers = []
    for k, item in enumerate(items):
        here = f"{at}[{k}]"
        layer = build_layer(item, ctx, here)
        if layer.in_channels is not None and current is not None and layer.in_channels != current:
            before = f"the previous layer outputs {current}" if k else f"the input has {current}"
            raise ctx.error(f"reads {layer.in_channels} channels but {before}", here)
        if any(prev.invariant for prev in layers) and (_points(layer) is not None or layer.uses_graph):
            raise ctx.error(f"a {layer.kind} layer tied to the n points comes after a pooling layer, whose output "
                            "has one row", here)
        if layer.out_channels is not None:
            current = layer.out_channels
        elif layer.in_channels is not None and current is None:
            current = layer.in_channels
        if layer.uses_graph and any(prev.uses_graph for prev in layers):
            first = next(prev.graph() for prev in layers if prev.uses_graph)
            if not np.array_equal(first, layer.graph()):
                raise ctx.error("all graph: input layers of a sequence read one graph, but this adjacency differs "
                                "from the first one's", here)
        layers.append(layer)
    return Sequential(layers)


class Pool(NNLayer):
    """Sum, mean or max over the rows: an invariant output of shape 1 x d."""

    kind = "pool"
    invariant = True

    def __init__(self, op: str, n: int | None):
        self.op, self.n = op, n

    def forward(self, X, A=None):
        if is_symbolic_array(X):
            import sympy

            if self.op == "max":
                return np.array([[sympy.Max(*X[:, c]) for c in range(X.shape[1])]], dtype=object)
            total = X.sum(axis=0, keepdims=True)
            return total / X.shape[0] if self.op == "mean" else total
        if self.op == "max":
            return X.max(axis=0, keepdims=True)
        return X.mean(axis=0, keepdims=True) if self.op == "mean" else X.sum(axis=0, keepdims=True)

    def linear_form(self):
        if self.op == "max" or self.n is None:
            return None
        return np.full((1, self.n), 1.0 / self.n if self.op == "mean" else 1.0), None

    def aggregations(self, X, A=None):
        n = X.shape[0]
        if self.op == "max":
            # Y[c] = X[argmax_i X[i, c], c]: per channel, G is the one-hot row of the winner,
            # chosen by the content (ties go to the first row, as numpy's argmax does)
            winners = np.argmax(np.asarray(X, dtype=np.float64), axis=0)
            return [np.eye(n)[[w]] for w in winners]
        return [np.full((1, n), 1.0 / n if self.op == "mean" else 1.0)]

    @property
    def depends_on(self):  # type: ignore[override]
        return "content" if self.op == "max" else "constant"


@register("pool", keys=("op",))
def _build_pool(raw, ctx, where):
    return Pool(_choice(raw, "op", ctx, where, ("sum", "mean", "max"), "sum"), ctx.n)


# --------------------------------------------------------------------------- transformer encoder


class TransformerEncoder(Sequential):
    """``layers`` blocks of ``X <- LN(X + MHA(X)); X <- LN(X + FF(X))`` (post-norm), seeded random weights."""

    kind = "transformer_encoder"


@register("transformer_encoder", keys=("layers", "d_model", "heads", "d_ff", "activation", "mask", "eps"),
          required=("d_model",))
def _build_transformer(raw, ctx, where):
    blocks = _int(raw, "layers", ctx, where, default=1)
    d = _int(raw, "d_model", ctx, where)
    heads = _int(raw, "heads", ctx, where, default=1)
    if d % heads:
        raise ctx.error(f"d_model = {d} is not a multiple of heads = {heads}", f"{where}.heads")
    d_ff = _int(raw, "d_ff", ctx, where, default=4 * d)
    activation = _activation(raw, "activation", ctx, where, "relu")
    mask = _choice(raw, "mask", ctx, where, ("none", "causal"), "none")
    eps = _eps(raw, ctx, where)
    from gdlcheck.limits import MAX_ENCODER_BLOCKS, MAX_MATRIX_ENTRIES

    if blocks > MAX_ENCODER_BLOCKS:
        raise ctx.error(f"{blocks} encoder blocks exceed the limit of {MAX_ENCODER_BLOCKS} (every trial runs "
                        "them all)", f"{where}.layers")
    if blocks * (4 * d * d + 2 * d * d_ff) > MAX_MATRIX_ENTRIES:
        raise ctx.error(f"{blocks * (4 * d * d + 2 * d * d_ff)} weights exceed the limit of {MAX_MATRIX_ENTRIES}",
                        where)

    def rand(name, rows, cols=None):
        rng = ctx.rng(f"{where}.layers[{b}].{name}")
        if cols is None:
            return 0.1 * rng.standard_normal(rows)
        return rng.standard_normal((rows, cols)) / math.sqrt(rows)

    layers: list[Layer] = []
    for b in range(blocks):
        mha = Attention(rand("wq", d, d), rand("wk", d, d), rand("wv", d, d), rand("wo", d, d), heads=heads,
                        mask=mask)
        ff = MLP([rand("w1", d, d_ff), rand("w2", d_ff, d)], [rand("b1", d_ff), rand("b2", d)], activation)
        layers += [Residual(mha), LayerNorm(float(eps)), Residual(ff), LayerNorm(float(eps))]
    enc = TransformerEncoder(layers)
    enc.in_channels = enc.out_channels = d
    return enc


# --------------------------------------------------------------------------- deepsets with channels


class ChannelDeepSets(NNLayer):
    """``Y = X Lambda + 11^T X Gamma`` (Theorem 2 with channels)."""

    kind = "deepsets"
    _weights = ("lam", "gamma")

    def __init__(self, lam, gamma, n=None):
        self.lam, self.gamma, self.n = lam, gamma, n
        self.in_channels, self.out_channels = int(lam.shape[0]), int(lam.shape[1])

    def forward(self, X, A=None):
        pooled = X.sum(axis=0, keepdims=True) @ self.gamma
        return X @ self.lam + np.repeat(pooled, X.shape[0], axis=0)

    def linear_form(self):
        if self.lam.shape == (1, 1) and self.n is not None:
            n = self.n
            return identity_plus_ones(self.lam[0, 0], self.gamma[0, 0], n), None
        return None

    def aggregations(self, X, A=None):
        n = X.shape[0]
        if self.lam.shape == (1, 1) and not is_symbolic_array(self.lam) and not is_symbolic_array(self.gamma):
            # one channel: Y = (lambda I + gamma 11^T) X, the same G as alpha/beta DeepSets
            return [float(self.lam[0, 0]) * np.eye(n) + float(self.gamma[0, 0]) * np.ones((n, n))]
        return [np.eye(n), np.ones((n, n))]  # Y = I X Lambda + 11^T X Gamma: two terms, each static


def build_channel_deepsets(raw, ctx, where):
    if "alpha" in raw or "beta" in raw:
        raise ctx.error("give alpha and beta, or lambda and gamma, not both", where)
    for key in ("lambda", "gamma"):
        if key not in raw:
            raise ctx.error(f"layer kind 'deepsets' with channels needs key {key!r}", where)
    lam = _matrix(raw["lambda"], ctx, f"{where}.lambda")
    gamma = _matrix(raw["gamma"], ctx, f"{where}.gamma")
    if gamma.shape != lam.shape:
        raise ctx.error(f"gamma is {_shape(gamma)}, expected the shape of lambda ({_shape(lam)})", f"{where}.gamma")
    return ChannelDeepSets(lam, gamma, ctx.n)


# --------------------------------------------------------------------------- inspect


PROPERTIES = ("static", "square", "sparse", "approximately_sparse", "symmetric", "row_stochastic", "nonnegative")
INSPECT_SAMPLES = 8
APPROX_SPARSE_RATIO = 1e-3
SAME_TOL = 1e-12


@dataclass
class Inspection:
    """The layer in the unified form ``Y = G(X, A) V(X)`` and the properties of G."""

    input: str
    kind: str
    depends_on: str
    properties: dict
    measured: str = ""
    shape: tuple = ()
    samples: int = INSPECT_SAMPLES
    notes: list[str] = field(default_factory=list)
    heads: int = 1

    def to_json(self) -> dict:
        return {
            "schema_version": 1,
            "input": self.input,
            "kind": self.kind,
            "depends_on": self.depends_on,
            "properties": {k: bool(self.properties[k]) for k in PROPERTIES},
            "aggregation": {"layer": self.measured, "shape": list(self.shape), "matrices": self.heads,
                            "samples": self.samples},
            "notes": self.notes,
        }


def _aggregating(layer: Layer) -> Layer | None:
    """The sublayer whose G says most: the first of those depending on the most
    (content > graph > offset > constant) among the layers that have a G of their own."""
    best, best_rank = None, -1

    def walk(node: Layer):
        nonlocal best, best_rank
        if _has_aggregation(node):
            rank = DEPENDS_ORDER.get(node.depends_on, 0)
            if rank > best_rank:
                best, best_rank = node, rank
            return
        for child in node.children():
            walk(child)

    walk(layer)
    return best


def _has_aggregation(node: Layer) -> bool:
    return type(node).aggregations is not Layer.aggregations and not isinstance(node, Residual)


class _Identity(Layer):
    """G = I: a layer that treats every row on its own (pointwise, MLP, layer norm)."""

    kind = "rowwise"

    def aggregations(self, X, A=None):
        return [np.eye(X.shape[0])]


def inspect_layer(layer: Layer, n: int, channels: int, *, input: str = "-", kind: str | None = None,
                  seed: int = 0, samples: int = INSPECT_SAMPLES) -> Inspection:
    """Measure G on ``samples`` seeded inputs (the graph held fixed).

    A property holds when it holds on every sample; sparse and approximately sparse count
    the entries of all samples together.
    """
    rng0 = np.random.default_rng([seed, 999])
    syms = sorted(layer.symbols(), key=str)
    numeric_layer = layer.subs({x: float(rng0.standard_normal()) for x in syms}) if syms else layer
    node = _aggregating(numeric_layer)
    if node is None:
        node = _Identity()
    A = node.graph()
    mats: list[list[np.ndarray]] = []
    for t in range(samples):
        X = np.random.default_rng([seed, t]).standard_normal((n, channels))
        # G is measured on what the aggregating sublayer receives inside the whole layer
        X_node = _input_of(numeric_layer, node, X, numeric_layer.graph()) if node is not numeric_layer else None
        if X_node is None:
            X_node = X if (node.in_channels or channels) == channels else \
                np.random.default_rng([seed, t]).standard_normal((n, node.in_channels))
        Gs = node.aggregations(X_node, A)
        mats.append([np.asarray(G, dtype=np.float64) for G in Gs])
    flat = [G for Gs in mats for G in Gs]
    first = mats[0]
    static = all(all(_same(G, G0) for G, G0 in zip(Gs, first)) for Gs in mats[1:])
    square = all(G.shape[0] == G.shape[1] for G in flat)
    entries = np.concatenate([G.ravel() for G in flat])
    zeros = float(np.mean(entries == 0))
    small = np.concatenate([(np.abs(G) < APPROX_SPARSE_RATIO * np.max(np.abs(G))).ravel() if np.max(np.abs(G)) > 0
                            else np.ones(G.size, dtype=bool) for G in flat])
    props = {
        "static": static,
        "square": square,
        "sparse": zeros >= 0.5,
        "approximately_sparse": float(np.mean(small)) >= 0.5,
        "symmetric": square and all(_same(G, G.T) for G in flat),
        "row_stochastic": all(bool(np.all(G >= 0)) and bool(np.allclose(G.sum(axis=1), 1.0, rtol=0, atol=1e-9))
                              for G in flat),
        "nonnegative": all(bool(np.all(G >= 0)) for G in flat),
    }
    notes = []
    if not props["symmetric"] and square:
        reasons = node.why_not_symmetric() if hasattr(node, "why_not_symmetric") else []
        if not reasons and isinstance(node, Layer) and node.kind == "conv":
            reasons = ["the kernel is not symmetric: theta_k != theta_(n-k), so W[i, j] = theta_(i-j) differs "
                       "from W[j, i] = theta_(j-i)"]
        if not reasons:
            G = flat[0]
            i, j = np.unravel_index(int(np.argmax(np.abs(G - G.T))), G.shape)
            reasons = [f"G[{i}, {j}] = {G[i, j]:.6g} but G[{j}, {i}] = {G[j, i]:.6g}"]
        notes.extend("not symmetric: " + r for r in reasons)
    if not static:
        notes.append("dynamic: G is computed from the content X (the scores x_i Wq Wk^T x_j^T), so it changes "
                     "with every input" if isinstance(node, Attention) else "dynamic: G changes with X")
    if isinstance(node, Attention) and node.weights == "softmax":
        notes.append("row-stochastic by construction: softmax makes every row non-negative with sum 1")
    shown_kind = kind or layer.kind
    return Inspection(input=input, kind=shown_kind, depends_on=layer.depends_on, properties=props,
                      measured=node.kind, shape=tuple(first[0].shape), samples=samples, notes=notes,
                      heads=len(first))


def _input_of(node: Layer, target: Layer | None, X: np.ndarray, A) -> np.ndarray | None:
    """The input ``target`` receives when ``node`` runs on ``X`` (None: it is not inside ``node``)."""
    if target is None:
        return None
    if node is target:
        return X
    if isinstance(node, Sequential):
        for child in node.layers:
            found = _input_of(child, target, X, A)
            if found is not None:
                return found
            X = child.forward(X, A)
        return None
    for child in node.children() if isinstance(node, NNLayer) else []:
        found = _input_of(child, target, X, A)  # a residual's layer sees the residual's input
        if found is not None:
            return found
    return None


def _same(G: np.ndarray, H: np.ndarray) -> bool:
    if G.shape != H.shape:
        return False
    scale = max(float(np.max(np.abs(G))) if G.size else 0.0, 1e-300)
    return bool(np.max(np.abs(G - H)) <= SAME_TOL * scale) if G.size else True


# What the Transformers-vs-GCN text says about the two matrices (None: the text is silent).
TEXT_TABLE = {
    "adjacency": {"static": True, "square": True, "sparse": True, "approximately_sparse": True, "symmetric": True,
                  "row_stochastic": None, "nonnegative": True},
    "attention": {"static": False, "square": True, "sparse": False, "approximately_sparse": True,
                  "symmetric": False, "row_stochastic": True, "nonnegative": True},
}
