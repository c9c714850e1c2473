"""gdlcheck inspect: the properties of G in Y = G(X, A) V(X), as the Transformers-vs-GCN text compares them."""

import json

import numpy as np
import pytest

from gdlcheck.inspection import inspect_layer
from gdlcheck.layers import BuildContext, build_layer
from gdlcheck.output.words import fact_text

WQ = [[1.0, -0.5], [0.5, 1.5]]
WK = [[0.5, 1.0], [-1.0, 0.5]]
WV = [[1.0, 0.5], [-0.5, 1.0]]


def props(raw, n=6, channels=2):
    layer = build_layer(raw, BuildContext(spec=None, n=n, channels=channels))
    return inspect_layer(layer, n, channels)


def test_gcn_is_static_symmetric_sparse(run, samples):
    result = run(["inspect", samples / "gcn.yaml", "--format", "json"])
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["schema_version"] == 1 and out["kind"] == "gcn" and out["depends_on"] == "graph"
    p = out["properties"]
    assert set(p) == {
        "static",
        "square",
        "sparse",
        "approximately_sparse",
        "symmetric",
        "row_stochastic",
        "nonnegative",
    }
    assert p["static"] and p["square"] and p["sparse"] and p["symmetric"] and p["nonnegative"]
    assert not p["row_stochastic"]


def test_softmax_attention_is_dynamic_row_stochastic_not_symmetric(run, samples):
    out = json.loads(run(["inspect", samples / "attention.yaml", "--format", "json"]).stdout)
    p = out["properties"]
    assert out["depends_on"] == "content"
    assert not p["static"] and p["square"] and p["row_stochastic"] and not p["symmetric"] and not p["sparse"]
    assert p["approximately_sparse"]  # the sample's weights make the attention peaked, as the text says
    assert any("softmax normalises each row" in note for note in out["notes"])


def test_sigmoid_attention_with_wq_equal_wk_is_symmetric():
    same = props({"kind": "attention", "wq": WQ, "wk": WQ, "wv": WV, "weights": "sigmoid"})
    assert same.properties["symmetric"] and not same.properties["static"]
    assert not same.properties["row_stochastic"]


def test_sigmoid_attention_with_wq_not_wk_says_why_it_is_not_symmetric():
    other = props({"kind": "attention", "wq": WQ, "wk": WK, "wv": WV, "weights": "sigmoid"})
    assert not other.properties["symmetric"]
    assert any("Wq Wk^T is not symmetric" in note for note in map(fact_text, other.notes))
    # softmax is not symmetric even with Wq = Wk: the rows are normalised one by one
    soft = props({"kind": "attention", "wq": WQ, "wk": WQ, "wv": WV})
    assert not soft.properties["symmetric"] and soft.properties["row_stochastic"]


def test_linear_conv_and_random_walk():
    conv = props({"kind": "conv", "kernel": [1.0, 0.5]})
    assert conv.depends_on == "offset" and conv.properties["static"] and not conv.properties["symmetric"]
    assert any("kernel is not symmetric" in note for note in map(fact_text, conv.notes))
    cycle = np.roll(np.eye(6), 1, axis=1) + np.roll(np.eye(6), -1, axis=1)
    rw = props({"kind": "gcn", "adjacency": cycle.tolist(), "weight": [[1.0], [1.0]], "normalization": "random_walk"})
    # on a regular graph random-walk normalisation is symmetric and row-stochastic
    assert rw.properties["symmetric"] and rw.properties["row_stochastic"]
    path = np.diag(np.ones(5), 1) + np.diag(np.ones(5), -1)
    rw_path = props(
        {"kind": "gcn", "adjacency": path.tolist(), "weight": [[1.0], [1.0]], "normalization": "random_walk"}
    )
    assert not rw_path.properties["symmetric"]
    assert any("random_walk" in note for note in map(fact_text, rw_path.notes))


def test_causal_mask_is_not_symmetric():
    causal = props({"kind": "attention", "wq": WQ, "wk": WQ, "wv": WV, "weights": "sigmoid", "mask": "causal"})
    assert not causal.properties["symmetric"]
    assert any("causal mask" in note for note in map(fact_text, causal.notes))


def test_text_report_shows_the_comparison_table(run, samples):
    result = run(["inspect", samples / "attention-pointwise.yaml"])
    assert result.exit_code == 0
    for word in ("adjacency (text)", "attention (text)", "static dynamic static dynamic", "symmetric", "content"):
        assert word in " ".join(result.stdout.split())


@pytest.mark.parametrize(
    "sample",
    ["transformer-encoder.yaml", "cnn.yaml", "set-pooling.yaml", "deepsets-channels.yaml", "gcn-cycle-fixed.yaml"],
)
def test_every_architecture_sample_can_be_inspected(run, samples, sample):
    result = run(["inspect", samples / sample, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["depends_on"] in ("constant", "offset", "graph", "content")


def test_inspect_errors(run, samples, tmp_path):
    result = run(["inspect", tmp_path / "missing.yaml"])
    assert result.exit_code == 2 and "gdlcheck: error:" in result.stderr
    spec = tmp_path / "nosize.yaml"
    spec.write_text("layer: {kind: pointwise, activation: relu}\n")
    result = run(["inspect", spec])
    assert result.exit_code == 2 and "number of points" in result.stderr
    assert run(["inspect", spec, "-n", "4", "--format", "json"]).exit_code == 0


def test_inspect_checks_a_specs_channels_as_verify_does(run, tmp_path):
    # a spec without a symmetry goes the inspect-only way; its channels are checked the same
    body = "channels: 3\nlayer: {kind: deepsets, lambda: [[1, 0], [0, 1]], gamma: [[1, 0], [0, 1]]}\n"
    spec = tmp_path / "channels.yaml"
    spec.write_text(body)
    inspected = run(["inspect", spec, "-n", "4"])
    spec.write_text("symmetry: {group: symmetric, n: 4}\n" + body)
    verified = run(["verify", spec])
    assert inspected.exit_code == verified.exit_code == 2
    assert "channels is 3 but the layer reads 2 channels" in inspected.stderr
    assert "channels is 3 but the layer reads 2 channels" in verified.stderr


def test_inspect_reads_a_spec_or_a_matrix_from_stdin(run, samples):
    spec = (samples / "gcn.yaml").read_text()
    assert json.loads(run(["inspect", "-", "--format", "json"], input=spec).stdout)["kind"] == "gcn"
    out = json.loads(run(["inspect", "-", "--format", "json"], input="1,2\n2,1\n").stdout)
    assert out["depends_on"] == "constant"


def test_G_is_measured_on_the_input_the_aggregating_sublayer_receives():
    from gdlcheck.inspection import _aggregating, _input_of
    from gdlcheck.layers import BuildContext, build_layer

    ctx = BuildContext(spec=None, n=5, channels=2)
    layer = build_layer(
        {
            "kind": "sequential",
            "layers": [{"kind": "pointwise", "activation": "square"}, {"kind": "pool", "op": "max"}],
        },
        ctx,
    )
    X = np.random.default_rng(1).standard_normal((5, 2))
    pool = _aggregating(layer)
    seen = _input_of(layer, pool, X, None)
    np.testing.assert_array_equal(seen, X**2)
    (G0, G1) = pool.aggregations(seen)
    assert G0[0, np.argmax(X[:, 0] ** 2)] == 1 and G1[0, np.argmax(X[:, 1] ** 2)] == 1
