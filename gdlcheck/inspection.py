"""``gdlcheck inspect``: a layer in the unified form ``Y = G(X, A) V(X)``, and the properties of G.

What G depends on (constant, offset, graph, content) and whether it is static, square,
sparse or approximately sparse, symmetric, row-stochastic and non-negative, measured on
seeded sample inputs, beside the Transformers-vs-GCN text's comparison of the adjacency
and the attention matrix.  Reasons are typed facts; :mod:`gdlcheck.output.words` words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.layers import Attention, Composite, Fact, Layer, Residual, Sequential
from gdlcheck.layers.base import DEPENDS_ORDER
from gdlcheck.limits import MAX_SPEC_ENTRIES
from gdlcheck.shown import Shown
from gdlcheck.tolerances import APPROX_SPARSE_RATIO, ROW_SUM_TOL, SAME_TOL

PROPERTIES = ("static", "square", "sparse", "approximately_sparse", "symmetric", "row_stochastic", "nonnegative")
INSPECT_SAMPLES = 8


@dataclass(repr=False)
class Inspected(Shown):
    """The layer in the unified form ``Y = G(X, A) V(X)`` and the properties of G
    (:func:`gdlcheck.inspect`); ``to_json()`` is the ``inspect --format json`` object."""

    input: str
    kind: str
    depends_on: str
    properties: dict
    measured: str = ""
    shape: tuple = ()
    samples: int = INSPECT_SAMPLES
    notes: list[Fact] = field(default_factory=list)
    heads: int = 1

    def __repr__(self) -> str:
        return f"<Inspected {self.input}: G depends on {self.depends_on}>"


def _aggregating(layer: Layer) -> Layer | None:
    """The sublayer whose G says most: the first of those depending on the most
    (content > graph > offset > constant) among the layers that have a G of their own."""
    best, best_rank = None, -1

    def visit(node: Layer):
        nonlocal best, best_rank
        if _has_aggregation(node):
            rank = DEPENDS_ORDER.get(node.depends_on, 0)
            if rank > best_rank:
                best, best_rank = node, rank
            return
        for child in node.children():
            visit(child)

    visit(layer)
    return best


def _has_aggregation(node: Layer) -> bool:
    return type(node).aggregations is not Layer.aggregations and not isinstance(node, Residual)


class _Identity(Layer):
    """G = I: a layer that treats every row on its own (pointwise, MLP, layer norm)."""

    kind = "rowwise"

    def aggregations(self, X, A=None):
        return [np.eye(X.shape[0])]


def inspect_layer(
    layer: Layer,
    n: int,
    channels: int,
    *,
    input: str = "-",
    kind: str | None = None,
    seed: int = 0,
    samples: int = INSPECT_SAMPLES,
) -> Inspected:
    """Measure G on ``samples`` seeded inputs (the graph held fixed).

    A property holds when it holds on every sample; sparse and approximately sparse count
    the entries of all samples together.
    """
    if n * max(n, channels) * samples > MAX_SPEC_ENTRIES:
        # every sample's G is n x n (and X n x d): refused before the first is measured
        raise LimitError(
            f"inspecting at n = {n} measures {samples} matrices G of {n} x {n} = {n * n:.3g} entries, "
            f"over the limit of {MAX_SPEC_ENTRIES} entries together"
        )
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
            width = node.in_channels or channels
            X_node = X if width == channels else np.random.default_rng([seed, t]).standard_normal((n, width))
        Gs = node.aggregations(X_node, A)
        if Gs is None:
            raise TypeError(f"the {node.kind} layer aggregates nothing to inspect")
        mats.append([np.asarray(G, dtype=np.float64) for G in Gs])
    flat = [G for Gs in mats for G in Gs]
    first = mats[0]
    static = all(all(_same(G, G0) for G, G0 in zip(Gs, first)) for Gs in mats[1:])
    square = all(G.shape[0] == G.shape[1] for G in flat)
    entries = np.concatenate([G.ravel() for G in flat])
    zeros = float(np.mean(entries == 0))
    small = np.concatenate(
        [
            (np.abs(G) < APPROX_SPARSE_RATIO * np.max(np.abs(G))).ravel()
            if np.max(np.abs(G)) > 0
            else np.ones(G.size, dtype=bool)
            for G in flat
        ]
    )
    props = {
        "static": static,
        "square": square,
        "sparse": zeros >= 0.5,
        "approximately_sparse": float(np.mean(small)) >= 0.5,
        "symmetric": square and all(_same(G, G.T) for G in flat),
        "row_stochastic": all(
            bool(np.all(G >= 0)) and bool(np.allclose(G.sum(axis=1), 1.0, rtol=0, atol=ROW_SUM_TOL)) for G in flat
        ),
        "nonnegative": all(bool(np.all(G >= 0)) for G in flat),
    }
    notes: list[Fact] = []
    if not props["symmetric"] and square:
        reasons = node.asymmetries()
        if not reasons:
            G = flat[0]
            i, j = np.unravel_index(int(np.argmax(np.abs(G - G.T))), G.shape)
            reasons = [Fact("entry", {"entry": (int(i), int(j)), "value": float(G[i, j]), "mirror": float(G[j, i])})]
        notes.extend(Fact("not_symmetric", {"reason": r}) for r in reasons)
    if not static:
        notes.append(Fact("dynamic_content" if isinstance(node, Attention) else "dynamic"))
    if isinstance(node, Attention) and node.weights == "softmax":
        notes.append(Fact("softmax_stochastic"))
    shown_kind = kind or layer.kind
    return Inspected(
        input=input,
        kind=shown_kind,
        depends_on=layer.depends_on,
        properties=props,
        measured=node.kind,
        shape=tuple(first[0].shape),
        samples=samples,
        notes=notes,
        heads=len(first),
    )


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
    for child in node.children() if isinstance(node, Composite) else []:
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
TEXT_TABLE: dict[str, dict[str, bool | None]] = {
    "adjacency": {
        "static": True,
        "square": True,
        "sparse": True,
        "approximately_sparse": True,
        "symmetric": True,
        "row_stochastic": None,
        "nonnegative": True,
    },
    "attention": {
        "static": False,
        "square": True,
        "sparse": False,
        "approximately_sparse": True,
        "symmetric": False,
        "row_stochastic": True,
        "nonnegative": True,
    },
}
