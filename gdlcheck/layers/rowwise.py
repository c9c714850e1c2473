"""Row-wise kinds: the same function on every point's row (``pointwise``, ``mlp``, ``layernorm``).

A row-wise map commutes with every permutation of the rows: ``f(PX) = P f(X)``.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.layers.activations import activate, sqrt
from gdlcheck.layers.base import Composite
from gdlcheck.layers.build import register
from gdlcheck.layers.proofs import Rule


class RowWise(Composite):
    """The same function on every row: ``f(PX) = P f(X)`` for every permutation, with no condition
    (no parameter of a row-wise map has a point axis)."""

    def rule(self, group, gens):
        return Rule("rowwise")


class Pointwise(RowWise):
    kind = "pointwise"

    def symbolic_size(self, n, d, size):
        return d, size + 8

    def __init__(self, activation: str):
        self.activation = activation

    def forward(self, X, A=None):
        return activate(self.activation, X)


@register("pointwise", keys=("activation",), required=("activation",))
def _build_pointwise(raw, ctx, where):
    return Pointwise(ctx.activation(raw, "activation", where, "relu"))


class MLP(RowWise):
    """The same MLP on every row: ``act(X W1 + b1) W2 + b2 ...`` (no activation after the last)."""

    kind = "mlp"
    _weights = ("weights", "biases")

    def __init__(self, weights: list, biases: list, activation: str):
        self.weights, self.biases, self.activation = weights, biases, activation
        self.in_channels = int(weights[0].shape[0])
        self.out_channels = int(weights[-1].shape[1])

    def symbolic_size(self, n, d, size):
        for k, W in enumerate(self.weights):
            d, size = int(W.shape[1]), W.shape[0] * (size + 2) + 2 + (8 if k < len(self.weights) - 1 else 0)
        return d, size

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
        raise ctx.error(
            "weights is a non-empty list of matrices, e.g. [{random: [2, 8]}, {random: [8, 2]}]", f"{where}.weights"
        )
    # a list of numbers or of rows is one matrix, not a list of matrices
    if all(not isinstance(x, (list, dict)) for x in items) or (
        isinstance(items[0], list) and items[0] and not isinstance(items[0][0], list)
    ):
        raise ctx.error(
            "weights is a list of matrices (a list of lists of rows); wrap one matrix in [ ]", f"{where}.weights"
        )
    weights: list[np.ndarray] = []
    for k, item in enumerate(items):
        W = ctx.matrix(item, f"{where}.weights[{k}]")
        if weights and W.shape[0] != weights[-1].shape[1]:
            raise ctx.error(
                f"has {W.shape[0]} rows but the previous weight has {weights[-1].shape[1]} columns",
                f"{where}.weights[{k}]",
            )
        weights.append(W)
    biases: list = [None] * len(weights)
    if raw.get("biases") is not None:
        braw = raw["biases"]
        if not isinstance(braw, list) or len(braw) != len(weights):
            raise ctx.error(f"biases is a list of {len(weights)} vectors (one per weight)", f"{where}.biases")
        biases = [
            None if b is None else ctx.vector(b, f"{where}.biases[{k}]", length=weights[k].shape[1])
            for k, b in enumerate(braw)
        ]
    return MLP(weights, biases, ctx.activation(raw, "activation", where, "relu"))


class LayerNorm(RowWise):
    """Each row minus its mean, divided by ``sqrt(var + eps)`` (over the channels)."""

    kind = "layernorm"
    _weights = ("eps",)

    def __init__(self, eps: float = 1e-5):
        self.eps = eps

    def symbolic_size(self, n, d, size):
        centred = size + d * size + 2
        return d, centred + 2 * d * (centred + 2) + 4

    def forward(self, X, A=None):
        d = X.shape[1]
        mean = X.sum(axis=1, keepdims=True) / d
        C = X - mean
        var = (C * C).sum(axis=1, keepdims=True) / d
        return C / sqrt(var + self.eps)


@register("layernorm", keys=("eps",))
def _build_layernorm(raw, ctx, where):
    return LayerNorm(ctx.eps(raw, where))
