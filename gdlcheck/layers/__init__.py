"""Layers built from spec trees, each with a numpy forward pass (and a symbolic one).

* :mod:`~gdlcheck.layers.base`: the ``Layer`` protocol and the base of composite layers;
* :mod:`~gdlcheck.layers.build`: the registry of kinds, ``build_layer`` and ``BuildContext``;
* one module per family of kinds: :mod:`~gdlcheck.layers.linear` (linear, conv, deepsets),
  :mod:`~gdlcheck.layers.graph` (gcn), :mod:`~gdlcheck.layers.attention`,
  :mod:`~gdlcheck.layers.rowwise` (pointwise, mlp, layernorm) and
  :mod:`~gdlcheck.layers.compose` (residual, sequential, pool, transformer_encoder).

Importing this package registers every kind.
"""

from gdlcheck.layers.attention import Attention
from gdlcheck.layers.base import Composite, Fact, Layer, points_of
from gdlcheck.layers.build import KINDS, BuildContext, build_layer, register
from gdlcheck.layers.compose import Pool, Residual, Sequential, TransformerEncoder
from gdlcheck.layers.graph import GCN, normalize_adjacency, with_graph_mode
from gdlcheck.layers.linear import ChannelDeepSets, Conv, DeepSets, Linear, circulant, identity_plus_ones
from gdlcheck.layers.proofs import EQUIVARIANT, INVARIANT, Condition, Proof, Rule, Step, Stop
from gdlcheck.layers.rowwise import MLP, LayerNorm, Pointwise

__all__ = [
    "EQUIVARIANT",
    "GCN",
    "INVARIANT",
    "KINDS",
    "MLP",
    "Attention",
    "BuildContext",
    "ChannelDeepSets",
    "Proof",
    "Step",
    "Stop",
    "Composite",
    "Condition",
    "Conv",
    "DeepSets",
    "Fact",
    "Layer",
    "LayerNorm",
    "Linear",
    "Pointwise",
    "Pool",
    "Residual",
    "Rule",
    "Sequential",
    "TransformerEncoder",
    "build_layer",
    "circulant",
    "identity_plus_ones",
    "normalize_adjacency",
    "points_of",
    "register",
    "with_graph_mode",
]
