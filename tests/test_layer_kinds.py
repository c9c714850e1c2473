"""Each layer kind of gdlcheck.nn against a hand-written numpy reference on one small input."""

import numpy as np
import pytest
from scipy.special import expit

from gdlcheck.errors import GdlcheckError
from gdlcheck.layers import BuildContext, build_layer

RNG = np.random.default_rng(42)
X4 = RNG.standard_normal((4, 2))
# A path 0 - 1 - 2 - 3
PATH = np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 1, 0]], dtype=float)
WQ = [[1.0, -0.5], [0.5, 1.5]]
WK = [[0.5, 1.0], [-1.0, 0.5]]
WV = [[1.0, 0.5], [-0.5, 1.0]]


def build(raw, n=4, channels=2, seed=0):
    return build_layer(raw, BuildContext(spec=None, n=n, channels=channels, seed=seed))


def ref_softmax(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def test_gcn_symmetric_normalisation_by_hand():
    W = np.array([[1.0, -2.0, 0.5], [0.25, 1.0, -1.0]])
    layer = build({"kind": "gcn", "adjacency": PATH.tolist(), "weight": W.tolist(), "activation": "relu"})
    # degrees of A + I on the path: 2, 3, 3, 2
    d = np.array([2.0, 3.0, 3.0, 2.0])
    G = (PATH + np.eye(4)) / np.sqrt(np.outer(d, d))
    assert G[0, 1] == pytest.approx(1 / np.sqrt(6))
    np.testing.assert_allclose(layer.forward(X4), np.maximum(G @ X4 @ W, 0), rtol=1e-14, atol=1e-15)
    assert layer.uses_graph and layer.in_channels == 2 and layer.out_channels == 3


def test_gcn_random_walk_and_no_normalisation():
    W = [[1.0], [2.0]]
    rw = build(
        {
            "kind": "gcn",
            "adjacency": PATH.tolist(),
            "weight": W,
            "activation": "identity",
            "normalization": "random_walk",
        }
    )
    G = (PATH + np.eye(4)) / np.array([2.0, 3.0, 3.0, 2.0])[:, None]
    np.testing.assert_allclose(rw.forward(X4), G @ X4 @ np.array(W), rtol=1e-14)
    np.testing.assert_allclose(G.sum(axis=1), 1.0)
    plain = build(
        {
            "kind": "gcn",
            "adjacency": PATH.tolist(),
            "weight": W,
            "activation": "identity",
            "normalization": "none",
            "self_loops": False,
        }
    )
    np.testing.assert_allclose(plain.forward(X4), PATH @ X4 @ np.array(W), rtol=1e-14)


def test_gcn_input_graph_is_read_and_fixed_graph_is_not():
    other = np.ones((4, 4)) - np.eye(4)
    W = [[1.0], [0.0]]
    inp = build({"kind": "gcn", "adjacency": PATH.tolist(), "weight": W, "activation": "identity"})
    fixed = build({"kind": "gcn", "adjacency": PATH.tolist(), "weight": W, "activation": "identity", "graph": "fixed"})
    assert not np.allclose(inp.forward(X4, other), inp.forward(X4, PATH))
    np.testing.assert_array_equal(fixed.forward(X4, other), fixed.forward(X4, PATH))
    assert not fixed.uses_graph


def test_softmax_attention_rows_sum_to_one_and_match_reference():
    layer = build({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV})
    Q, K, V = X4 @ np.array(WQ), X4 @ np.array(WK), X4 @ np.array(WV)
    G = ref_softmax(Q @ K.T / np.sqrt(2))
    (G_layer,) = layer.aggregations(X4)
    np.testing.assert_allclose(G_layer.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(G_layer, G, rtol=1e-14)
    np.testing.assert_allclose(layer.forward(X4), G @ V, rtol=1e-13)


def test_causal_mask_zeroes_the_future():
    layer = build({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV, "mask": "causal", "scale": 0.5})
    S = 0.5 * (X4 @ np.array(WQ)) @ (X4 @ np.array(WK)).T
    S[np.triu_indices(4, 1)] = -np.inf
    G = ref_softmax(S)
    (G_layer,) = layer.aggregations(X4)
    assert np.all(G_layer[np.triu_indices(4, 1)] == 0)
    np.testing.assert_allclose(G_layer, G, rtol=1e-14)
    # the first position sees only itself
    np.testing.assert_allclose(layer.forward(X4)[0], X4[0] @ np.array(WV), rtol=1e-14)


def test_heads_are_concatenated_then_projected():
    wq = RNG.standard_normal((2, 4))
    wk = RNG.standard_normal((2, 4))
    wv = RNG.standard_normal((2, 4))
    wo = RNG.standard_normal((4, 3))
    layer = build(
        {"kind": "attention", "wq": wq.tolist(), "wk": wk.tolist(), "wv": wv.tolist(), "wo": wo.tolist(), "heads": 2}
    )
    outs = []
    for h in range(2):
        cols = slice(2 * h, 2 * h + 2)
        G = ref_softmax((X4 @ wq[:, cols]) @ (X4 @ wk[:, cols]).T / np.sqrt(2))
        outs.append(G @ X4 @ wv[:, cols])
    np.testing.assert_allclose(layer.forward(X4), np.concatenate(outs, axis=1) @ wo, rtol=1e-13)
    assert layer.out_channels == 3


def test_pointwise_attention_and_positional_terms():
    b = [0.3, -0.2, 0.1, 0.5]
    layer = build(
        {"kind": "attention", "wq": WQ, "wk": WQ, "wv": WV, "weights": "sigmoid", "positional": {"relative": b}}
    )
    B = np.array([[b[(i - j) % 4] for j in range(4)] for i in range(4)])
    S = (X4 @ np.array(WQ)) @ (X4 @ np.array(WQ)).T / np.sqrt(2) + B
    np.testing.assert_allclose(layer.forward(X4), expit(S) @ X4 @ np.array(WV), rtol=1e-13)
    E = RNG.standard_normal((4, 2))
    absolute = build({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV, "positional": {"absolute": E.tolist()}})
    Z = X4 + E
    G = ref_softmax((Z @ np.array(WQ)) @ (Z @ np.array(WK)).T / np.sqrt(2))
    np.testing.assert_allclose(absolute.forward(X4), G @ Z @ np.array(WV), rtol=1e-13)


@pytest.mark.parametrize(
    "name,ref",
    [
        ("relu", lambda x: np.maximum(x, 0)),
        ("leaky_relu", lambda x: np.where(x > 0, x, 0.01 * x)),
        ("tanh", np.tanh),
        ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
        ("softplus", lambda x: np.log1p(np.exp(x))),
        ("identity", lambda x: x),
        ("square", lambda x: x**2),
        ("gelu", lambda x: 0.5 * x * (1 + np.vectorize(__import__("math").erf)(x / np.sqrt(2)))),
    ],
)
def test_pointwise(name, ref):
    layer = build({"kind": "pointwise", "activation": name})
    np.testing.assert_allclose(layer.forward(X4), ref(X4), rtol=1e-13, atol=1e-15)


def test_mlp_runs_on_every_row():
    W1, b1 = RNG.standard_normal((2, 5)), RNG.standard_normal(5)
    W2 = RNG.standard_normal((5, 3))
    layer = build(
        {"kind": "mlp", "weights": [W1.tolist(), W2.tolist()], "biases": [b1.tolist(), None], "activation": "tanh"}
    )
    np.testing.assert_allclose(layer.forward(X4), np.tanh(X4 @ W1 + b1) @ W2, rtol=1e-13)
    for i in range(4):
        np.testing.assert_allclose(layer.forward(X4)[i], np.tanh(X4[i] @ W1 + b1) @ W2, rtol=1e-13)


def test_layernorm_and_residual():
    ln = build({"kind": "layernorm", "eps": 1e-5})
    mu = X4.mean(axis=1, keepdims=True)
    ref = (X4 - mu) / np.sqrt(X4.var(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln.forward(X4), ref, rtol=1e-13)
    res = build({"kind": "residual", "layer": {"kind": "pointwise", "activation": "relu"}})
    np.testing.assert_allclose(res.forward(X4), X4 + np.maximum(X4, 0))


def test_sequential_list_and_pooling():
    seq = build([{"kind": "pointwise", "activation": "relu"}, {"kind": "pool", "op": "sum"}])
    np.testing.assert_allclose(seq.forward(X4), np.maximum(X4, 0).sum(axis=0, keepdims=True))
    for op, fn in (("mean", np.mean), ("max", np.max), ("sum", np.sum)):
        pool = build({"kind": "pool", "op": op})
        np.testing.assert_allclose(pool.forward(X4), fn(X4, axis=0, keepdims=True))
        assert pool.invariant


def test_linear_bias_and_composed_linear_form():
    W = RNG.standard_normal((4, 4))
    b = [0.5, 0.0, 0.0, 0.0]
    lin = build({"kind": "linear", "weight": W.tolist(), "bias": b})
    np.testing.assert_allclose(lin.forward(X4), W @ X4 + np.array(b)[:, None])
    seq = build([{"kind": "linear", "weight": W.tolist(), "bias": 1.5}, {"kind": "conv", "kernel": [1.0, 2.0]}])
    Wc, bc = seq.linear_form()
    np.testing.assert_allclose(Wc @ X4 + bc[:, None], seq.forward(X4), rtol=1e-13)


def test_channel_deepsets():
    lam, gam = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    layer = build({"kind": "deepsets", "lambda": lam.tolist(), "gamma": gam.tolist()})
    ref = X4 @ lam + np.ones((4, 4)) @ X4 @ gam
    np.testing.assert_allclose(layer.forward(X4), ref, rtol=1e-13)


def test_transformer_encoder_is_seeded_and_normalised():
    raw = {"kind": "transformer_encoder", "layers": 2, "d_model": 4, "heads": 2, "d_ff": 8}
    X = RNG.standard_normal((5, 4))
    a, b, c = build(raw, n=5, channels=4, seed=1), build(raw, n=5, channels=4, seed=1), build(raw, n=5, seed=2)
    np.testing.assert_array_equal(a.forward(X), b.forward(X))
    assert not np.allclose(a.forward(X), c.forward(X))
    Y = a.forward(X)
    # post-norm: every output row has mean 0 and variance ~1
    np.testing.assert_allclose(Y.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(Y.var(axis=1), 1, rtol=1e-3)
    assert a.in_channels == 4 and a.depends_on == "content"


def test_symbolic_forward_matches_numeric():
    import sympy

    layer = build({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV, "mask": "causal"}, n=3)
    X = RNG.standard_normal((3, 2))
    syms = np.array([[sympy.Symbol(f"x{i}{c}") for c in range(2)] for i in range(3)], dtype=object)
    Y = layer.forward_symbolic(syms)
    values = {syms[i, c]: X[i, c] for i in range(3) for c in range(2)}
    got = np.array([[float(Y[i, c].subs(values)) for c in range(2)] for i in range(3)])
    np.testing.assert_allclose(got, layer.forward(X), rtol=1e-12)


@pytest.mark.parametrize(
    "raw,where",
    [
        ({"kind": "gcn", "adjacency": [[0, 1], [1, 0]], "weight": [[1.0]], "activation": "relux"}, "activation"),
        ({"kind": "attention", "wq": WQ, "wk": [[1.0, 2.0]], "wv": WV}, "wk"),
        ({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV, "heads": 3}, "heads"),
        ({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV, "mask": "future"}, "mask"),
        ({"kind": "mlp", "weights": [[[1.0, 2.0]], [[1.0]]]}, "weights[1]"),
        ({"kind": "gcn", "adjacency": [[0, 1], [1, 0]], "weight": [[1.0]], "graph": "both"}, "graph"),
    ],
)
def test_bad_specs_name_the_key(raw, where):
    with pytest.raises(GdlcheckError) as info:
        build(raw, n=2, channels=2)
    assert info.value.where.endswith(where)


def test_sequence_checks_channels_between_layers():
    with pytest.raises(GdlcheckError) as info:
        build([{"kind": "mlp", "weights": [[[1.0, 2.0, 3.0]]]}, {"kind": "attention", "wq": WQ, "wk": WK, "wv": WV}])
    assert "reads 2 channels but the previous layer outputs 3" in str(info.value)
    assert info.value.where == "layer[1]"


def test_a_sequence_reads_one_input_graph():
    other = [[0, 1, 1, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    gcn = {"kind": "gcn", "adjacency": PATH.tolist(), "weight": [[1.0, 0.0], [0.0, 1.0]]}
    assert build([gcn, gcn]).uses_graph
    with pytest.raises(GdlcheckError) as info:
        build([gcn, dict(gcn, adjacency=other)])
    assert info.value.where == "layer[1]"
