"""Combinators: ``residual`` (``X + f(X)``), ``sequential`` (composition), ``pool`` (sum, mean or
max over the points: an invariant output) and ``transformer_encoder`` (blocks of the above).

Sums and compositions of equivariant maps are equivariant; pooling over the points after an
equivariant map is invariant.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.layers.attention import Attention
from gdlcheck.layers.base import Composite, Layer, is_symbolic_array, points_of, run
from gdlcheck.layers.build import build_layer, register
from gdlcheck.layers.exactness import exact_entries, exact_product, exact_sum, product_rounding
from gdlcheck.layers.proofs import EQUIVARIANT, INVARIANT, Rule
from gdlcheck.layers.rowwise import MLP, LayerNorm
from gdlcheck.limits import MAX_ENCODER_BLOCKS, MAX_MATRIX_ENTRIES, MAX_PRODUCT_OPS, MAX_SYMBOLIC_PRODUCT_OPS


class Residual(Composite):
    """``Y = X + f(X)``."""

    kind = "residual"
    _children = ("layer",)
    combinator = "residual"

    def rule(self, group, gens):
        """``X + f(X)`` commutes with g when f does (an invariant f adds the same row to every point)."""
        return Rule("residual")

    def symbolic_size(self, n, d, size):
        inner = self.layer.symbolic_size(n, d, size)
        return None if inner is None else (d, size + inner[1] + 1)

    def __init__(self, layer: Layer):
        self.layer = layer
        self.in_channels = layer.in_channels
        self.out_channels = layer.in_channels

    def forward(self, X, A=None):
        return X + run(self.layer, X, A)

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

    def form_is_exact(self) -> bool:
        """``I + W`` did not round (``1 + 1e-17`` is 1 in float64)."""
        form = self.linear_form()
        if form is None:
            return True
        if not self.layer.form_is_exact():
            return False
        inner = self.layer.linear_form()[0]
        return exact_entries(form[0]) if inner.dtype == object else exact_sum(inner, np.ones(1))


@register("residual", keys=("layer",), required=("layer",))
def _build_residual(raw, ctx, where):
    inner = build_layer(raw["layer"], ctx, f"{where}.layer")
    if inner.in_channels is not None and inner.out_channels is not None and inner.in_channels != inner.out_channels:
        raise ctx.error(
            f"the inner layer maps {inner.in_channels} channels to {inner.out_channels}; X + f(X) "
            "needs the same number",
            f"{where}.layer",
        )
    return Residual(inner)


class Sequential(Composite):
    kind = "sequential"
    _children = ("layers",)
    combinator = "sequence"

    def rule(self, group, gens):
        """A composition of maps that commute with g commutes with g."""
        return Rule("composition")

    def symbolic_size(self, n, d, size):
        for layer in self.layers:
            step = layer.symbolic_size(n, d, size)
            if step is None:
                return None
            d, size = step
            if layer.invariant:
                n = 1
        return d, size

    def __init__(self, layers: list[Layer]):
        self.layers = layers
        self.in_channels = next((c.in_channels for c in layers if c.in_channels is not None), None)
        out = None
        for c in layers:
            if c.out_channels is not None:
                out = c.out_channels
        self.out_channels = out

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
        return self._composed()[0]

    def form_is_exact(self) -> bool:
        """The product (and the biases carried through it) did not round: see
        :mod:`~gdlcheck.layers.exactness`."""
        form, exact = self._composed()
        return form is None or exact

    def form_rounding(self) -> float | None:
        """Bound the product's rounding (:func:`~gdlcheck.layers.exactness.product_rounding`)."""
        form, exact = self._composed()
        if form is None or exact:
            return 0.0
        forms = [c.linear_form() for c in self.layers]
        if any(b is not None or W.dtype == object for W, b in forms):
            return None
        return product_rounding(forms, [c.form_rounding() for c in self.layers])

    def _composed(self):
        """The product of the layers' forms, and whether float64 computed it without rounding; once
        per list of layers (``linear_form``, ``form_is_exact`` and ``form_rounding`` each ask, and a
        nested sequence asks its parts again)."""
        key = tuple(map(id, self.layers))
        kept = getattr(self, "_kept", None)
        if kept is None or kept[0] != key:
            kept = self._kept = (key, self._compose())
        return kept[1]

    def _compose(self):
        forms = [c.linear_form() for c in self.layers]
        if any(f is None for f in forms):
            return None, True
        _check_product_cost(forms)
        exact = all(c.form_is_exact() for c in self.layers)
        W, b = forms[0]
        for W2, b2 in forms[1:]:
            if W2.shape[1] != W.shape[0]:
                return None, True
            if b is not None:
                if not (isinstance(b, np.ndarray) and b.ndim == 1):
                    b = np.full(W.shape[0], b, dtype=object if hasattr(b, "free_symbols") else np.float64)
                exact = exact and (W2.dtype == object or b.dtype == object or exact_product(W2, b[:, None]))
                b = W2 @ b
            exact = exact and (W2.dtype == object or W.dtype == object or exact_product(W2, W))
            W = W2 @ W
            if b2 is not None:
                if b is not None:
                    exact = exact and (_symbolic(b) or _symbolic(b2) or exact_sum(b, b2))
                b = b2 if b is None else b + b2
        return (W, b), exact and exact_entries(W) and exact_entries(b)


def _symbolic(b) -> bool:
    return (isinstance(b, np.ndarray) and b.dtype == object) or hasattr(b, "free_symbols")


def _check_product_cost(forms) -> None:
    """Composing the matrices costs rows x inner x columns per product (one sympy operation each
    for symbolic entries): refused past the budget before the first product."""
    W = forms[0][0]
    ops = 0
    symbolic = W.dtype == object
    for W2, _ in forms[1:]:
        ops += int(W2.shape[0]) * int(W2.shape[1]) * int(W.shape[1])
        symbolic = symbolic or W2.dtype == object
        W = W2
    limit = MAX_SYMBOLIC_PRODUCT_OPS if symbolic else MAX_PRODUCT_OPS
    if ops > limit:
        kind = "symbolic " if symbolic else ""
        raise LimitError(
            f"composing the sequence's {kind}matrices into one would take {ops:.3g} operations, over "
            f"the limit of {limit}"
        )


@register("sequential", keys=("layers",), required=("layers",))
def _build_sequential(raw, ctx, where, items_at: str | None = None):
    items = raw["layers"]
    at = items_at if items_at is not None else f"{where}.layers"
    if not isinstance(items, list) or not items:
        raise ctx.error("layers is a non-empty list of layers", at)
    spec_channels = ctx.spec.channels if ctx.spec is not None else None
    current = spec_channels
    layers: list[Layer] = []
    for k, item in enumerate(items):
        here = f"{at}[{k}]"
        layer = build_layer(item, ctx, here)
        if layer.in_channels is not None and current is not None and layer.in_channels != current:
            before = f"the previous layer outputs {current}" if k else f"the input has {current}"
            raise ctx.error(f"reads {layer.in_channels} channels but {before}", here)
        if any(prev.invariant for prev in layers) and (points_of(layer) is not None or layer.uses_graph):
            raise ctx.error(
                f"a {layer.kind} layer tied to the n points comes after a pooling layer, whose output has one row", here
            )
        if layer.out_channels is not None:
            current = layer.out_channels
        elif layer.in_channels is not None and current is None:
            current = layer.in_channels
        if layer.uses_graph and any(prev.uses_graph for prev in layers):
            first = next(prev.graph() for prev in layers if prev.uses_graph)
            graph = layer.graph()
            if first is None or graph is None or not np.array_equal(first, graph):
                raise ctx.error(
                    "all graph: input layers of a sequence read one graph, but this adjacency differs "
                    "from the first one's",
                    here,
                )
        layers.append(layer)
    return Sequential(layers)


class Pool(Composite):
    """Sum, mean or max over the rows: an invariant output of shape 1 x d."""

    kind = "pool"
    invariant = True

    def rule(self, group, gens):
        """Sum, mean and max over the points do not change when the points are permuted."""
        return Rule("pooling")

    def transfer(self, state):
        return INVARIANT if state == EQUIVARIANT else state

    def symbolic_size(self, n, d, size):
        return d, n * (size + 1) + 2

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
    return Pool(ctx.choice(raw, "op", where, ("sum", "mean", "max"), "sum"), ctx.n)


# --------------------------------------------------------------------------- transformer encoder


class TransformerEncoder(Sequential):
    """``layers`` blocks of ``X <- LN(X + MHA(X)); X <- LN(X + FF(X))`` (post-norm), seeded random weights."""

    kind = "transformer_encoder"


@register(
    "transformer_encoder",
    keys=("layers", "d_model", "heads", "d_ff", "activation", "mask", "eps"),
    required=("d_model",),
)
def _build_transformer(raw, ctx, where):
    blocks = ctx.integer(raw, "layers", where, default=1)
    d = ctx.integer(raw, "d_model", where)
    heads = ctx.integer(raw, "heads", where, default=1)
    if d % heads:
        raise ctx.error(f"d_model = {d} is not a multiple of heads = {heads}", f"{where}.heads")
    d_ff = ctx.integer(raw, "d_ff", where, default=4 * d)
    activation = ctx.activation(raw, "activation", where, "relu")
    mask = ctx.choice(raw, "mask", where, ("none", "causal"), "none")
    eps = ctx.eps(raw, where)

    if blocks > MAX_ENCODER_BLOCKS:
        raise ctx.error(
            f"{blocks} encoder blocks exceed the limit of {MAX_ENCODER_BLOCKS} (every trial runs them all)",
            f"{where}.layers",
        )
    if blocks * (4 * d * d + 2 * d * d_ff) > MAX_MATRIX_ENTRIES:
        raise ctx.error(
            f"{blocks * (4 * d * d + 2 * d * d_ff)} weights exceed the limit of {MAX_MATRIX_ENTRIES}", where
        )

    def rand(block, name, rows, cols=None):
        rng = ctx.rng(f"{where}.layers[{block}].{name}")
        if cols is None:
            return 0.1 * rng.standard_normal(rows)
        return rng.standard_normal((rows, cols)) / math.sqrt(rows)

    layers: list[Layer] = []
    for b in range(blocks):
        mha = Attention(
            rand(b, "wq", d, d), rand(b, "wk", d, d), rand(b, "wv", d, d), rand(b, "wo", d, d), heads=heads, mask=mask
        )
        ff = MLP([rand(b, "w1", d, d_ff), rand(b, "w2", d_ff, d)], [rand(b, "b1", d_ff), rand(b, "b2", d)], activation)
        block = [Residual(mha), LayerNorm(float(eps)), Residual(ff), LayerNorm(float(eps))]
        for part, name in zip(block, ("attention", "norm1", "feedforward", "norm2")):
            part.path = f"{where}.blocks[{b}].{name}"
        mha.path, ff.path = f"{where}.blocks[{b}].attention.layer", f"{where}.blocks[{b}].feedforward.layer"
        layers += block
    enc = TransformerEncoder(layers)
    enc.in_channels = enc.out_channels = d
    return enc
