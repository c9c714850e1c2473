"""The spec reference: every layer kind's keys with their type, default and meaning, as data.

``gdlcheck kinds [NAME]`` prints it and ``gdlcheck schema`` turns it into a JSON Schema
(:mod:`gdlcheck.output.schema`).  The parser's registry (:data:`gdlcheck.layers.KINDS`)
decides what a spec may contain; this module says what it means, and a test checks that the
two agree on every key of every kind, on the required keys and on every choice.

A key's ``value`` names the JSON Schema it takes (a definition of the schema, e.g.
``weight_matrix``, or a tuple of the allowed choices); ``default`` is the value the builder
uses when the key is absent, as a spec writes it (None: no default, the key is required or
the feature is off).
"""

from __future__ import annotations

from dataclasses import dataclass

from gdlcheck.layers.activations import ACTIVATION_NAMES


@dataclass(frozen=True)
class Key:
    """One key of a spec mapping."""

    name: str
    type: str  # for people: "matrix (n x n)", "one of sum, mean, max", ...
    meaning: str
    value: str | tuple = "any"  # a key of VALUES, or a tuple of the allowed choices
    default: object = None  # as a spec writes it; None: none
    required: bool = False


@dataclass(frozen=True)
class KindReference:
    """A layer kind: what it computes, the rule that proves it, its keys and an example."""

    name: str
    summary: str
    computes: str
    rule: str
    keys: tuple[Key, ...]
    example: str  # the layer mapping, in YAML, for symmetry {group: cyclic, n: 4}
    one_of: tuple[tuple[str, ...], ...] = ()  # exactly one of these groups of keys (deepsets)
    expect: str = "equivariant"  # what the example's spec expects

    def key(self, name: str) -> Key:
        return next(k for k in self.keys if k.name == name)

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys if k.required)


_NAME = Key("name", "text", "a name for the layer, shown in reports", "name")
ACTIVATIONS = ACTIVATION_NAMES
_ACTIVATION = "one of " + ", ".join(ACTIVATIONS)
_WEIGHT = "a literal, {file: PATH} (relative to the spec) or {random: [rows, cols]} (seeded)"

KIND_REFERENCE: dict[str, KindReference] = {
    k.name: k
    for k in (
        KindReference(
            "linear",
            "a linear layer with an n x n weight",
            "Y = W X + b",
            "commutation: W[g i, g j] = W[i, j]",
            (
                Key("weight", "matrix (n x n)", f"W, acting on the points; {_WEIGHT}", "weight_matrix", required=True),
                Key(
                    "bias",
                    "number or vector (length n)",
                    "b, added to every row (a vector: one entry per point)",
                    "bias",
                ),
                _NAME,
            ),
            "kind: linear\nweight: [[a, b, c, b], [b, a, b, c], [c, b, a, b], [b, c, b, a]]",
        ),
        KindReference(
            "conv",
            "a circular convolution (a circulant weight)",
            "W[i, j] = kernel[(i - j) mod n], 0 past the kernel",
            "Theorem 1: a circulant commutes with every cyclic shift",
            (
                Key(
                    "kernel",
                    "vector (length m <= n), or an array of as many axes as shape",
                    f"the kernel; {_WEIGHT}; a file holds a 1-D array, or one row or column, unless shape is given",
                    "weight_tensor",
                    required=True,
                ),
                Key("bias", "number or vector (length n)", "b, added to every row", "bias"),
                Key(
                    "shape",
                    "[H, W] (any number of axes)",
                    "the grid (a torus) the kernel slides over; without it the points are a line of n",
                    "shape",
                ),
                _NAME,
            ),
            "kind: conv\nkernel: [a, b, c]",
        ),
        KindReference(
            "deepsets",
            "the DeepSets layer (Theorem 2)",
            "Y = alpha X + beta 11^T X, or Y = X Lambda + 11^T X Gamma",
            "Theorem 2: alpha*I + beta*11^T commutes with every permutation",
            (
                Key("alpha", "number or expression", "the weight of each point itself (with beta)", "expression"),
                Key("beta", "number or expression", "the weight of the sum over all points (with alpha)", "expression"),
                Key("lambda", "matrix (d x d')", "Lambda, the per-point channel map (with gamma)", "weight_matrix"),
                Key(
                    "gamma",
                    "matrix (d x d')",
                    "Gamma, the channel map of the sum over the points (with lambda)",
                    "weight_matrix",
                ),
                _NAME,
            ),
            "kind: deepsets\nalpha: a\nbeta: b",
            one_of=(("alpha", "beta"), ("lambda", "gamma")),
        ),
        KindReference(
            "gcn",
            "a graph convolution (GCN)",
            "Y = act(G(A) X W), G(A) = D~^-1/2 (A + I) D~^-1/2",
            "Theorem 3: G(P A P^T) = P G(A) P^T",
            (
                Key("adjacency", "matrix (n x n, numbers)", f"A, the graph; {_WEIGHT}", "weight_matrix", required=True),
                Key("weight", "matrix (d x d')", "W, the channel map", "weight_matrix", required=True),
                Key("activation", _ACTIVATION, "act, applied elementwise", ACTIVATIONS, "relu"),
                Key(
                    "normalization",
                    "one of symmetric, random_walk, none",
                    "G(A): D~^-1/2 (A+I) D~^-1/2, D~^-1 (A+I), or A+I",
                    ("symmetric", "random_walk", "none"),
                    "symmetric",
                ),
                Key("self_loops", "true or false", "add I to A before normalising", "boolean", True),
                Key(
                    "graph",
                    "one of input, fixed",
                    "input: A is permuted with the features (Y(PX, P A P^T) = P Y(X, A)); "
                    "fixed: A is held (holds for the automorphisms of A)",
                    ("input", "fixed"),
                    "input",
                ),
                _NAME,
            ),
            "kind: gcn\nadjacency: [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]\nweight: {random: [2, 2]}",
        ),
        KindReference(
            "attention",
            "self-attention (one or several heads)",
            "Y = G(X) X Wv, G = softmax_row(X Wq Wk^T X^T / sqrt(dk) + B)",
            "Theorem 4: G(PX) = P G(X) P^T; a mask or positions must be kept by P",
            (
                Key("wq", "matrix (d x dk)", "the query weight", "weight_matrix", required=True),
                Key("wk", "matrix (d x dk)", "the key weight (the shape of wq)", "weight_matrix", required=True),
                Key("wv", "matrix (d x dv)", "the value weight", "weight_matrix", required=True),
                Key("wo", "matrix (dv x d_out)", "the output projection after the heads are joined", "weight_matrix"),
                Key("heads", "integer >= 1", "heads; dk and dv are split among them", "positive_integer", 1),
                Key(
                    "weights",
                    "softmax or " + _ACTIVATION,
                    "how scores become weights: row softmax, or a pointwise activation",
                    ("softmax",) + ACTIVATIONS,
                    "softmax",
                ),
                Key("scale", "number or expression", "the scores' scale [default: 1/sqrt(dk)]", "expression"),
                Key("mask", "one of none, causal", "causal keeps G[i, j] only for j <= i", ("none", "causal"), "none"),
                Key(
                    "positional",
                    "{absolute: TABLE (n x d)} or {relative: [b_0 .. b_(n-1)]}",
                    "an absolute table added to X, or a relative bias B[i, j] = b_((i - j) mod n) added to the scores",
                    "positional",
                ),
                _NAME,
            ),
            "kind: attention\nwq: {random: [2, 2]}\nwk: {random: [2, 2]}\nwv: {random: [2, 2]}",
        ),
        KindReference(
            "pointwise",
            "an activation applied to every entry",
            "Y = act(X)",
            "row-wise maps commute with row permutations",
            (Key("activation", _ACTIVATION, "act", ACTIVATIONS, required=True), _NAME),
            "kind: pointwise\nactivation: tanh",
        ),
        KindReference(
            "mlp",
            "the same MLP on every row (point)",
            "Y = act(X W1 + b1) W2 + b2 ... (no activation after the last)",
            "row-wise maps commute with row permutations",
            (
                Key(
                    "weights",
                    "list of matrices (d_k x d_(k+1))",
                    f"W1, W2, ...; each {_WEIGHT}",
                    "matrices",
                    required=True,
                ),
                Key(
                    "biases", "list of vectors (or null), one per weight", "b1, b2, ... [default: no biases]", "biases"
                ),
                Key("activation", _ACTIVATION, "act, between the weights", ACTIVATIONS, "relu"),
                _NAME,
            ),
            "kind: mlp\nweights: [{random: [2, 8]}, {random: [8, 2]}]",
        ),
        KindReference(
            "layernorm",
            "layer normalisation of every row over its channels",
            "Y[i] = (X[i] - mean) / sqrt(var + eps)",
            "row-wise maps commute with row permutations",
            (Key("eps", "positive number", "added to the variance", "positive_number", 1e-5), _NAME),
            "kind: layernorm\neps: 1e-5",
        ),
        KindReference(
            "residual",
            "a skip connection around a layer",
            "Y = X + f(X)",
            "sums of equivariant maps are equivariant",
            (Key("layer", "a layer", "f, keeping the number of channels", "layer", required=True), _NAME),
            "kind: residual\nlayer: {kind: pointwise, activation: tanh}",
        ),
        KindReference(
            "sequential",
            "layers one after another (a list of layers is one too)",
            "Y = f_k(... f_2(f_1(X)))",
            "compositions of equivariant maps are equivariant",
            (Key("layers", "list of layers", "f_1, f_2, ... in order", "layers", required=True), _NAME),
            "kind: sequential\nlayers:\n  - {kind: deepsets, alpha: 1, beta: 0.5}\n"
            "  - {kind: pointwise, activation: relu}",
        ),
        KindReference(
            "pool",
            "pooling over the points: an invariant output",
            "y = sum_i X[i] (or the mean, or the maximum)",
            "sum, mean and max over the points are invariant",
            (Key("op", "one of sum, mean, max", "the reduction", ("sum", "mean", "max"), "sum"), _NAME),
            "kind: pool\nop: mean",
            expect="invariant",
        ),
        KindReference(
            "transformer_encoder",
            "a transformer encoder with seeded random weights",
            "N x [X <- LN(X + MHA(X)); X <- LN(X + FF(X))]",
            "Theorem 4, then sums and compositions",
            (
                Key("layers", "integer >= 1", "the number of blocks N", "positive_integer", 1),
                Key(
                    "d_model", "integer >= 1", "the channels d (a multiple of heads)", "positive_integer", required=True
                ),
                Key("heads", "integer >= 1", "attention heads", "positive_integer", 1),
                Key(
                    "d_ff",
                    "integer >= 1",
                    "the hidden channels of the feed-forward MLP [default: 4 d_model]",
                    "positive_integer",
                ),
                Key("activation", _ACTIVATION, "the feed-forward activation", ACTIVATIONS, "relu"),
                Key("mask", "one of none, causal", "the attention mask", ("none", "causal"), "none"),
                Key("eps", "positive number", "the layer norms' eps", "positive_number", 1e-5),
                _NAME,
            ),
            "kind: transformer_encoder\nd_model: 4\nheads: 2",
        ),
    )
}

# The top level of a spec, and its symmetry mapping (inputs/spec.py reads them).
SPEC_KEYS = (
    Key("name", "text", "the spec's name, shown in reports", "name"),
    Key(
        "symmetry",
        "a group name, or {group, n, shape, graph, generators}",
        "the group to check (the command line's --group wins)",
        "symmetry",
    ),
    Key(
        "expect",
        "one of equivariant, invariant",
        "what the layer should be (invariant: for pooled outputs)",
        ("equivariant", "invariant"),
        "equivariant",
    ),
    Key("seed", "integer >= 0", "seeds the {random: ...} weights and the random test inputs", "seed", 0),
    Key(
        "channels",
        "integer >= 1",
        "the input channels d [default: from the first layer whose weights fix it, else 1]",
        "positive_integer",
    ),
    Key("layer", "a layer, or a list of layers", "the layer to verify", "layer"),
    Key("layers", "list of layers", "the same as layer: [...] (give one of layer and layers)", "layers"),
    Key("description", "text", "free text; not read", "any"),
)

SYMMETRY_KEYS = (
    Key(
        "group",
        "a group name (gdlcheck groups)",
        "cyclic, dihedral, symmetric, alternating, trivial, translations, "
        "p4, p4m, automorphisms, generators (or an alias)",
        "group",
        required=True,
    ),
    Key("n", "integer >= 1", "the number of points [default: the layer's size]", "positive_integer"),
    Key("shape", "[H, W] or 'HxW'", "the grid of translations, p4, p4m (points row-major)", "shape"),
    Key(
        "graph",
        "matrix (n x n), or 'layer'",
        "the graph of automorphisms: its adjacency, or the layer's own (layer, adjacency-of-layer)",
        "graph",
    ),
    Key(
        "generators",
        "list of permutations",
        "the generators of group generators: cycle notation '(0 1 2)' or array form [1, 2, 0]",
        "generators",
    ),
)
