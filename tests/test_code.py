"""Real torch.nn layers as they are written: the points on their own axis, several inputs and
outputs, the traps that give a believable answer about the wrong thing, the culprit submodule,
random code and the notes.  CI installs torch, so these run rather than skip."""

import json

import numpy as np
import pytest
import torch

import gdlcheck
from gdlcheck.errors import CallableError

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'


def verify(f, group, shape, **kw):
    return gdlcheck.verify_callable(f, group, shape=shape, **kw)


# --------------------------------------------------------------------------- axes


def conv1d(padding_mode="circular", kernel=3):
    torch.manual_seed(0)
    return torch.nn.Conv1d(3, 4, kernel, padding=kernel // 2, padding_mode=padding_mode)


def test_conv1d_on_its_positions_axis():
    assert verify(conv1d(), "cyclic", (3, 16), points_axis=-1).passed
    assert verify(conv1d(), "cyclic", (2, 3, 16), points_axis=-1).passed  # batched (B, C, L)
    assert not verify(conv1d("zeros"), "cyclic", (3, 16), points_axis=-1).passed  # zero padding breaks the wrap
    assert not verify(conv1d(), "dihedral", (3, 16), points_axis=-1).passed  # the kernel is not symmetric
    assert not verify(conv1d(), "symmetric", (3, 16), points_axis=1).passed


def test_conv1d_is_not_checked_on_its_channels():
    # the trap: shape (C, L) with the group on axis 0 permutes the channels
    with pytest.raises(
        CallableError,
        match=r"Conv1d reads \(C, L\): axis 0 of the input \(3, 16\) is its channels.*"
        r"points_axis=1",
    ):
        verify(conv1d(), "cyclic", (3, 16))
    with pytest.raises(CallableError, match="is the batch"):
        verify(conv1d(), "cyclic", (3, 3, 16))
    # named explicitly, it is the user's question: 3 channels in, 4 out, the output has no such points
    with pytest.raises(CallableError, match="first axis is the 3 points"):
        verify(conv1d(), "cyclic", (3, 16), points_axis=0)


def test_conv2d_on_the_two_grid_axes():
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular")
    assert verify(conv, "translations", (3, 6, 5), points_axis=(1, 2)).passed
    assert verify(conv, gdlcheck.group("translations", shape=(6, 5)), (2, 3, 6, 5)).passed  # the grid is found
    assert not verify(conv, "p4", (3, 6, 6), points_axis=(1, 2)).passed  # a generic kernel is not rotation-invariant
    with pytest.raises(CallableError, match=r"Conv2d reads \(C, H, W\).*points_axis=\(1, 2\) with a grid group"):
        verify(conv, "translations", (3, 6, 6))


def test_a_grid_in_the_last_axes_of_hwc():
    def blur(X):  # (H, W, C), the same 5-point stencil along both axes: p4m-symmetric
        return X + sum(np.roll(X, k, a) for k in (1, -1) for a in (0, 1))

    assert verify(blur, gdlcheck.group("p4m", shape=(5, 5)), (5, 5, 3)).passed
    assert verify(lambda X: X + np.roll(X, 1, 0), gdlcheck.group("translations", shape=(5, 4)), (5, 4, 3)).passed
    assert not verify(lambda X: X + np.roll(X, 1, 0), gdlcheck.group("p4", shape=(5, 5)), (5, 5, 3)).passed
    with pytest.raises(CallableError, match=r"fits axes \(0, 1\) and \(1, 2\)"):
        verify(blur, gdlcheck.group("p4", shape=(5, 5)), (5, 5, 5))


class PositionalEmbedding(torch.nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.table = torch.nn.Parameter(0.5 * torch.randn(n, d))

    def forward(self, x):
        return x + self.table[: x.shape[-2]]


class Shift(torch.nn.Module):
    """Mixes each point with the next: no rule of the tracer covers roll, so the proof stops
    without a condition and the culprit comes from running the module with hooks."""

    def __init__(self, n=None, d=None):
        super().__init__()

    def forward(self, x):
        return x + 0.5 * x.roll(1, dims=-2)


def test_batch_first_transformer_on_its_points_axis():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, batch_first=True)
    r = verify(layer, "symmetric", (2, 6, 16), batch_axes=0)
    assert r.passed and r.to_json()["notes"][0].startswith("the module was in training mode")
    # the trap: the group on the batch axis
    with pytest.raises(
        CallableError,
        match=r"self_attn is batch_first: axis 0 of the input \(2, 6, 16\) is the batch.*"
        "batch_axes=0",
    ):
        verify(layer, "symmetric", (2, 6, 16))
    # with a learned positional embedding the points axis fails, the batch axis (asked for) holds and says so
    model = torch.nn.Sequential(PositionalEmbedding(6, 16), layer)
    assert not verify(model, "symmetric", (2, 6, 16), batch_axes=0).passed
    trap = verify(model, "symmetric", (2, 6, 16), points_axis=0)
    assert trap.passed and any("batch_first, so axis 0 is its batch" in n for n in trap.to_json()["notes"])


def test_sequence_first_transformer_encoder():
    torch.manual_seed(0)
    block = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)  # (L, B, E)
    encoder = torch.nn.TransformerEncoder(block, num_layers=2, enable_nested_tensor=False)
    assert verify(encoder, "symmetric", (5, 3, 8)).passed  # axis 0 is the sequence, axis 1 the batch
    assert verify(encoder, "symmetric", (5, 3, 8), batch_axes=1).passed


# --------------------------------------------------------------------------- several inputs and outputs


def test_multihead_attention_with_both_outputs():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2)
    three = ("points", "points", "points")  # query, key, value
    assert verify(mha, "symmetric", (6, 4), inputs=three, outputs=("points", "pairs")).passed
    wrong = verify(mha, "symmetric", (6, 4), inputs=three, outputs=("points", "points"))
    numeric = [c for c in wrong.checks if c.method == "numeric"]
    assert not wrong.passed and numeric[0].counterexample["output"] == "[1]"
    with pytest.raises(CallableError, match="returned a tuple of 2 items; say how each moves with outputs"):
        verify(mha, "symmetric", (6, 4), inputs=three)
    # batched, batch first: the weights are (B, L, L), pairs on the last two axes
    torch.manual_seed(0)
    batched = torch.nn.MultiheadAttention(4, 2, batch_first=True)
    assert verify(batched, "symmetric", (3, 6, 4), batch_axes=0, inputs=three, outputs=("points", "pairs")).passed
    # per-head weights (B, H, L, L); a function around a float32 module runs in float32
    per_head = lambda q, k, v: batched(q, k, v, average_attn_weights=False)  # noqa: E731
    with pytest.raises(CallableError, match="same dtype.*give dtype='float32'"):
        verify(per_head, "symmetric", (3, 6, 4), batch_axes=0, inputs=three, outputs=("points", "pairs"))
    assert verify(
        per_head, "symmetric", (3, 6, 4), batch_axes=0, inputs=three, outputs=("points", "pairs"), dtype="float32"
    ).passed
    # a causal mask holds for no permutation but the identity
    causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), 1)
    r = verify(
        mha,
        "cyclic",
        (6, 4),
        inputs={"query": "points", "key": "points", "value": "points", "attn_mask": causal},
        outputs=("points", "ignored"),
    )
    assert not r.passed


def test_self_attention_with_one_input_keyword_arguments_and_a_dict_output():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2).double().eval()  # inside a function: the check cannot convert it

    def self_attention(x, need_weights):
        out, weights = mha(x, x, x, need_weights=need_weights)
        return {"out": out, "weights": weights}

    r = verify(
        self_attention,
        "symmetric",
        (5, 4),
        inputs={"x": "points", "need_weights": True},
        outputs={"out": "points", "weights": "pairs"},
    )
    assert r.passed, r.to_json()


def gcn_dense(X, A):
    At = A + torch.eye(A.shape[0], dtype=A.dtype)
    d = At.sum(dim=1).rsqrt()
    return d[:, None] * At * d[None, :] @ X


def gcn_sparse(X, A):
    """A GCN on a torch sparse adjacency (COO or CSR), never dense."""
    deg = torch.sparse.mm(A, torch.ones(X.shape[0], 1, dtype=X.dtype)) + 1
    d = deg.rsqrt()
    return d * (torch.sparse.mm(A, d * X) + d * X)


def ring(n):
    A = np.zeros((n, n))
    A[np.arange(n), (np.arange(n) + 1) % n] = A[(np.arange(n) + 1) % n, np.arange(n)] = 1
    return A


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta")
def test_graphs_dense_and_torch_sparse(monkeypatch):
    rng = np.random.default_rng(0)
    A = np.triu((rng.random((9, 9)) < 0.4).astype(float), 1)
    A = A + A.T
    T = torch.from_numpy(A)
    assert verify(gcn_dense, "symmetric", (9, 3), graph=T).passed
    monkeypatch.setattr(torch.Tensor, "to_dense", lambda *a, **k: pytest.fail("densified"), raising=True)
    for layout in (torch.sparse_coo, torch.sparse_csr):
        S = T.to_sparse(layout=layout)
        assert verify(gcn_sparse, "symmetric", (9, 3), graph=S).passed
        assert not verify(gcn_sparse, "symmetric", (9, 3), graph=S, inputs=("points", "fixed")).passed


def test_a_fixed_graph_holds_for_its_automorphisms_only():
    A = torch.from_numpy(ring(8))
    autos = gdlcheck.group("automorphisms", graph=A)
    assert autos.order == 16
    assert verify(gcn_dense, autos, (8, 3), graph=A, inputs=("points", "fixed")).passed
    r = verify(gcn_dense, "symmetric", (8, 3), graph=A, inputs=("points", "fixed"))
    assert not r.passed
    assert any("is not an automorphism of the fixed graph (argument 1)" in line for line in r.to_json()["diagnosis"])


# --------------------------------------------------------------------------- the culprit


class Block(torch.nn.Module):
    def __init__(self, d, pos=None):
        super().__init__()
        self.mix = torch.nn.TransformerEncoderLayer(d, 2, dim_feedforward=2 * d, batch_first=True)
        self.pos_emb = pos

    def forward(self, x):
        x = self.mix(x)
        return self.pos_emb(x) if self.pos_emb is not None else x


class Encoder(torch.nn.Module):
    def __init__(self, n=6, d=8, breaker=Shift):
        super().__init__()
        self.layers = torch.nn.ModuleList([Block(d), Block(d, breaker(n, d)), Block(d)])

    def forward(self, x):
        for block in self.layers:
            x = block(x)
        return x


class Model(torch.nn.Module):
    def __init__(self, breaker=Shift):
        super().__init__()
        torch.manual_seed(0)
        self.embed = torch.nn.Linear(3, 8)
        self.encoder = Encoder(breaker=breaker)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)))


def test_the_culprit_is_the_first_submodule_that_breaks_it():
    r = verify(Model(), "symmetric", (2, 6, 3), batch_axes=0)
    assert r.verdict == "fails"
    culprit = r.to_json()["culprit"]
    assert culprit["path"] == "encoder.layers.1.pos_emb" and culprit["kind"] == "Shift"
    failing = next(c.generator for c in r.checks if c.passed is False)
    assert culprit["generator"] == failing and culprit["relative_error"] > 1e-3
    assert "encoder.layers.1.pos_emb (Shift) breaks it under" in culprit["text"]
    # the same model without the embedding has no culprit: it holds
    model = Model()
    model.encoder.layers[1].pos_emb = None
    ok = verify(model, "symmetric", (2, 6, 3), batch_axes=0)
    assert ok.passed and ok.culprit is None and "culprit" not in ok.to_json()


def test_a_proof_that_stops_at_a_parameter_names_it_and_its_rows():
    """The tracer's proof names the parameter and the entries that break it, exactly."""
    r = verify(Model(breaker=PositionalEmbedding), "symmetric", (2, 6, 3), batch_axes=0)
    assert r.verdict == "fails"
    culprit = r.to_json()["culprit"]
    assert (culprit["path"], culprit["kind"], culprit["condition"]) == (
        "encoder.layers.1.pos_emb.table",
        "parameter",
        "P E = E",
    )
    assert culprit["text"].startswith("rows 0 and 1 of encoder.layers.1.pos_emb.table differ, so P E != E")


def test_the_culprit_search_keeps_its_copies_within_a_budget(monkeypatch):
    from gdlcheck.code import culprit

    monkeypatch.setattr(culprit, "RECORD_BYTES", 3000)  # about the first calls only
    r = verify(Model(), "symmetric", (2, 6, 3), batch_axes=0)
    assert r.verdict == "fails" and r.culprit is None  # not named rather than named wrongly
    monkeypatch.setattr(culprit, "RECORD_BYTES", 0)
    assert verify(Model(), "symmetric", (2, 6, 3), batch_axes=0).culprit is None


def test_a_break_in_the_parents_own_code_is_placed_between_its_children():
    class Bare(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.first = torch.nn.Linear(3, 3)
            self.second = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.second(torch.relu(self.first(x)).roll(1, 0))

    culprit = verify(Bare(), "symmetric", (5, 3)).to_json()["culprit"]
    assert (culprit["path"], culprit["after"], culprit["before"]) == ("", "first", "second")
    assert "the module itself (Bare)" in culprit["text"] and "between first and second" in culprit["text"]
    seq = torch.nn.Sequential(torch.nn.Linear(3, 3), Shift(), torch.nn.Linear(3, 2))
    assert verify(seq, "symmetric", (5, 3)).culprit["path"] == "1"


def test_the_text_report_prints_the_culprit(tmp_path, run, monkeypatch):
    (tmp_path / "ul_culprit.py").write_text(
        "import torch\n"
        "class Pos(torch.nn.Module):\n"
        "    def forward(self, x):\n        return x + x.roll(1, 0)\n"
        "def model():\n    torch.manual_seed(0)\n"
        "    return torch.nn.Sequential(torch.nn.Linear(3, 3), Pos(), torch.nn.ReLU())\n"
    )
    monkeypatch.chdir(tmp_path)  # the command line in this process (click's runner), from that folder
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    args = ["verify", "--callable", "ul_culprit:model", "--input-shape", "5x3", "--group", "symmetric"]
    out = run(args)
    assert out.exit_code == 1, out.stderr
    obj = json.loads(run(args + ["--format", "json"]).stdout)
    assert obj["culprit"]["path"] == "1"
    # the worst failing generator is named (issue 29), not the first
    failing = [c for c in obj["checks"] if c["method"] == "numeric" and not c["passed"]]
    worst = max(failing, key=lambda c: c["relative_error"])["generator"]
    assert obj["culprit"]["generator"] == worst
    assert f"culprit: 1 (Pos) breaks it under {worst}" in " ".join(out.stdout.split())


# --------------------------------------------------------------------------- honest about the code


def test_dropout_in_training_mode_is_random_not_a_broken_symmetry():
    r = verify(lambda X: torch.nn.functional.dropout(X, 0.5, training=True), "symmetric", (6, 3))
    assert (r.verdict, r.passed, r.diagnosis, r.culprit) == ("inconclusive", False, None, None)
    assert "random: two calls on the same input gave different outputs" in r.to_json()["notes"][0]

    class Noisy(torch.nn.Module):
        def forward(self, x):
            return x + torch.randn_like(x)

    state = torch.random.get_rng_state()
    assert verify(Noisy(), "symmetric", (6, 3)).verdict == "inconclusive"
    assert torch.equal(torch.random.get_rng_state(), state)  # the check leaves torch's random state as it was
    # a module with dropout is put in eval mode, and the notes say so
    torch.manual_seed(0)
    drop = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.5))
    r = verify(drop, "symmetric", (6, 3))
    assert r.passed and any("put in eval mode" in n for n in r.to_json()["notes"])
    assert not any("eval mode" in n for n in verify(drop.eval(), "symmetric", (6, 3)).to_json().get("notes", []))


def test_a_float32_cast_inside_hints_dtype_float32():
    class Cast(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):  # sort over the channels: equivariant, but the tracer has no rule for it
            return self.lin(x).float().sort(-1).values.to(x.dtype) + x.float().sum(0).to(x.dtype)

    r = verify(Cast(), "symmetric", (6, 3))
    assert r.verdict == "fails"
    assert 1e-9 < max(c.relative_error for c in r.checks if c.method == "numeric") < 1e-5
    assert any("float32 rounding level" in n and "--dtype float32" in n for n in r.to_json()["notes"])
    assert verify(Cast(), "symmetric", (6, 3), dtype="float32").passed
    # a real break gets no such hint
    bad = verify(torch.nn.Sequential(torch.nn.Linear(3, 3), PositionalEmbedding(6, 3)), "symmetric", (6, 3))
    assert not any("float32" in n for n in bad.to_json().get("notes", []))


def test_a_module_on_the_meta_device_is_an_input_error(run, tmp_path, monkeypatch):
    with pytest.raises(CallableError, match="on the meta device"):
        verify(torch.nn.Linear(3, 3, device="meta"), "symmetric", (4, 3))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "ul_meta.py").write_text(
        "import torch\ndef layer():\n    return torch.nn.Linear(3, 3, device='meta')\n"
    )
    result = run(["verify", "--callable", "ul_meta:layer", "--input-shape", "4x3", "-g", "symmetric"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "on the meta device" in result.stderr and "Traceback" not in result.stderr


def test_the_same_seed_gives_the_same_json():
    runs = [json.dumps(verify(Model(), "symmetric", (2, 6, 3), batch_axes=0).to_json()) for _ in range(2)]
    assert runs[0] == runs[1]
