"""The tracer's coverage of real equivariant code: torch.nn modules, PyG layers and models, and
hand-written models from the texts and papers (``tests/coverage_models.py``) as people write them,
each proved with ``method="exact"`` (no trial), except the few whose reason is named here.  The
count is the closing note's "proved / equivariant".  Each twin, broken in one named place, fails
and its culprit names that place."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
gnn = pytest.importorskip("torch_geometric.nn")

import coverage_models  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402

pytestmark = pytest.mark.slow
nn = torch.nn
D = 8


def ring(n):
    s = np.arange(n)
    return np.concatenate([np.stack([s, (s + 1) % n]), np.stack([(s + 1) % n, s])], axis=1)


RING = ring(8)
IDS = np.array([1, 4, 2, 2, 9, 0])


class SelfAttention(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.attn = nn.MultiheadAttention(D, 2, **kw)

    def forward(self, x):
        return self.attn(x, x, x)[0]


class Decoder(nn.Module):
    def __init__(self, layers=1):
        super().__init__()
        layer = nn.TransformerDecoderLayer(D, 2, 16, batch_first=True)
        self.dec = layer if layers == 1 else nn.TransformerDecoder(layer, layers)

    def forward(self, tgt, memory):
        return self.dec(tgt, memory)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(D, 2, 1, 1, 16, batch_first=True)

    def forward(self, src, tgt):
        return self.t(src, tgt)


class Bag(nn.Module):
    def __init__(self):
        super().__init__()
        self.bag = nn.EmbeddingBag(10, D, mode="mean")

    def forward(self, ids):
        return self.bag(ids.view(1, -1))


class Pool(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.pool = getattr(gnn, name)

    def forward(self, x):
        return self.pool(x, None)


class DeepSets(nn.Module):
    def __init__(self):
        super().__init__()
        self.phi, self.rho = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.rho(self.phi(x).relu().sum(0))


def cases():
    torch.manual_seed(0)
    rows = 6
    out = [
        (name, module, "symmetric", {"shape": (rows, D)})
        for name, module in [
            ("Linear", nn.Linear(D, 4)),
            ("MLP", nn.Sequential(nn.Linear(D, 16), nn.GELU(), nn.Linear(16, 4))),
            ("LayerNorm", nn.LayerNorm(D)),
            ("BatchNorm1d in eval mode", nn.BatchNorm1d(D)),
            ("ReLU", nn.ReLU()),
            ("Tanh", nn.Tanh()),
            ("Softmax over channels", nn.Softmax(-1)),
            ("Softmax over the points", nn.Softmax(0)),
            ("Dropout in eval mode", nn.Dropout(0.5)),
            ("GLU", nn.GLU()),
            ("PReLU", nn.PReLU()),
            ("SiLU", nn.SiLU()),
            ("Identity", nn.Identity()),
            ("MultiheadAttention", SelfAttention()),
            ("TransformerEncoderLayer", nn.TransformerEncoderLayer(D, 2, 16)),
            ("TransformerEncoderLayer, norm first", nn.TransformerEncoderLayer(D, 2, 16, norm_first=True)),
            (
                "TransformerEncoder, 2 layers",
                nn.TransformerEncoder(nn.TransformerEncoderLayer(D, 2, 16), 2, enable_nested_tensor=False),
            ),
        ]
    ]
    batch_first = {"shape": (1, rows, D), "points_axis": 1}
    two = dict(batch_first, inputs=["points", "points"])
    out += [
        ("MultiheadAttention, batch first", SelfAttention(batch_first=True), "symmetric", batch_first),
        (
            "TransformerEncoderLayer, batch first",
            nn.TransformerEncoderLayer(D, 2, 16, batch_first=True),
            "symmetric",
            batch_first,
        ),
        ("TransformerDecoderLayer", Decoder(1), "symmetric", two),
        ("TransformerDecoder, 2 layers", Decoder(2), "symmetric", two),
        ("Transformer", Transformer(), "symmetric", two),
        ("Conv1d with kernel 1 (PointNet)", nn.Conv1d(D, 4, 1), "symmetric", {"shape": (2, D, rows), "points_axis": 2}),
        (
            "Conv1d, circular",
            nn.Conv1d(3, 4, 3, padding=1, padding_mode="circular"),
            "cyclic",
            {"shape": (3, 12), "points_axis": 1},
        ),
        (
            "Conv2d, circular",
            nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular"),
            "translations",
            {"shape": (3, 6, 6), "points_axis": (1, 2)},
        ),
        ("Conv2d with kernel 1 under p4", nn.Conv2d(3, 4, 1), "p4", {"shape": (3, 6, 6), "points_axis": (1, 2)}),
        ("Embedding of given ids", nn.Embedding(10, D), "symmetric", {"shape": (6,), "inputs": [gdlcheck.points(IDS)]}),
        (
            "EmbeddingBag of given ids",
            Bag(),
            "symmetric",
            {"shape": (6,), "inputs": [gdlcheck.points(IDS)], "expect": "invariant"},
        ),
        ("DeepSets", DeepSets(), "symmetric", {"shape": (8, 4), "expect": "invariant"}),
    ]
    moving = {"shape": (8, 4), "inputs": ["points", gdlcheck.graph(RING)]}
    for name, layer in [
        ("GCNConv", gnn.GCNConv(4, 5)),
        ("GraphConv", gnn.GraphConv(4, 5)),
        ("SAGEConv", gnn.SAGEConv(4, 5)),
        ("GINConv", gnn.GINConv(nn.Linear(4, 5))),
        ("GATConv", gnn.GATConv(4, 5, heads=2)),
        ("GATv2Conv", gnn.GATv2Conv(4, 5)),
        ("TransformerConv", gnn.TransformerConv(4, 5, heads=2)),
        ("ChebConv", gnn.ChebConv(4, 5, 2)),
        ("GENConv", gnn.GENConv(4, 5)),
        ("EdgeConv", gnn.EdgeConv(nn.Linear(8, 5))),
    ]:
        out.append((f"{name}, moving graph", layer, "symmetric", moving))
    A = np.zeros((8, 8))
    A[RING[0], RING[1]] = 1
    autos = groups.automorphism_group(A)
    held = {"shape": (8, 4), "inputs": ["points", gdlcheck.fixed(RING)]}
    for name, layer in [
        ("GCNConv", gnn.GCNConv(4, 5)),
        ("GATConv", gnn.GATConv(4, 5)),
        ("SAGEConv", gnn.SAGEConv(4, 5)),
    ]:
        out.append((f"{name}, fixed ring", layer, autos, held))
    attrs = np.random.default_rng(0).standard_normal((RING.shape[1], 3))
    edges = {"shape": (8, 4), "inputs": ["points", gdlcheck.graph(RING), gdlcheck.edges(attrs)]}
    for name, layer in [
        ("GINEConv", gnn.GINEConv(nn.Linear(4, 5), edge_dim=3)),
        ("NNConv", gnn.NNConv(4, 5, nn.Linear(3, 20))),
        ("GATConv with edge_dim", gnn.GATConv(4, 5, edge_dim=3)),
    ]:
        out.append((f"{name}, moving graph and edges", layer, "symmetric", edges))
    for name in ("global_add_pool", "global_mean_pool", "global_max_pool"):
        out.append((name, Pool(name), "symmetric", {"shape": (8, 4), "expect": "invariant"}))
    return out


MOVING = {"shape": (8, 4), "inputs": ["points", gdlcheck.graph(RING)]}
CASES = (
    cases()
    + coverage_models.models()
    + coverage_models.pyg_models(gnn, MOVING)
    + coverage_models.wrapped()
    + coverage_models.grid_models()
)
PROVED = (
    118  # of 119 (issue 29 with issue 36's recurrent cells and masks, and issue 32's circular padding, under turns too)
)
# equivariant, not proved, and why (each a line of docs/code.md's "what is not proved")
NOT_PROVED = dict(coverage_models.NOT_PROVED)


@pytest.mark.parametrize("name, module, group, kw", CASES, ids=[c[0] for c in CASES])
def test_real_equivariant_code_is_proved(name, module, group, kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verdict = gdlcheck.verify_callable(module, group, method="exact", **kw).verdict
    assert verdict == ("inconclusive" if name in NOT_PROVED else "holds")


def test_the_coverage_is_what_the_closing_note_says():
    assert len({name for name, *_ in CASES}) == len(CASES)
    assert set(NOT_PROVED) <= {name for name, *_ in CASES}
    assert (len(CASES) - len(NOT_PROVED), len(CASES)) == (PROVED, len(CASES))
    assert PROVED >= 0.9 * len(CASES) and len(CASES) >= 80


TWINS = coverage_models.twins() + coverage_models.grid_twins()


@pytest.mark.parametrize("name, module, group, kw, path", TWINS, ids=[t[0] for t in TWINS])
def test_each_twin_fails_and_its_culprit_names_the_broken_place(name, module, group, kw, path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(module, group, **kw).to_json()
    assert obj["verdict"] == "fails"
    assert obj["culprit"]["path"] == path
