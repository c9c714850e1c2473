"""Real PyTorch Geometric layers checked with edge_index as PyG takes it: on a graph permuted with
the features, and on a fixed graph under its automorphisms (BLISS).  CI installs torch_geometric
(the pyg extra), so these run rather than skip."""

import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch_geometric.nn import (
    GATConv,
    GCNConv,
    GINConv,
    GINEConv,
    SAGEConv,
    TransformerConv,
    global_add_pool,
    global_mean_pool,
)
from torch_geometric.utils import to_undirected

import gdlcheck

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'

N = 10


def random_graph(n=N, edges=18, seed=0):
    g = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, n, (2, edges), generator=g)
    ei = ei[:, ei[0] != ei[1]]
    return to_undirected(ei, num_nodes=n)  # sorted, both directions


def ring(n=N):
    i = torch.arange(n)
    return torch.stack([torch.cat([i, (i + 1) % n]), torch.cat([(i + 1) % n, i])])


def layers():
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    return {
        "GCNConv": GCNConv(4, 3),
        "GATConv": GATConv(4, 3, heads=2),
        "GINConv": GINConv(mlp),
        "SAGEConv": SAGEConv(4, 3),
        "TransformerConv": TransformerConv(4, 3, heads=2),
    }


@pytest.mark.parametrize("name", list(layers()))
def test_message_passing_layers_on_a_permuted_graph(name):
    layer = layers()[name]
    r = gdlcheck.verify_callable(layer, "symmetric", shape=(N, 4), graph=random_graph())
    assert r.passed and r.kind == "torch.nn.Module", r.to_json()
    assert max(c.relative_error for c in r.checks if c.method == "numeric") < 1e-12  # float64, not float32 rounding
    # the graph held fixed while the features move: a random graph has no symmetry to keep
    held = gdlcheck.verify_callable(layer, "symmetric", shape=(N, 4), graph=random_graph(), inputs=("points", "fixed"))
    assert not held.passed


@pytest.mark.parametrize("name", list(layers()))
def test_message_passing_layers_on_a_fixed_graph_under_its_automorphisms(name):
    layer = layers()[name]
    autos = gdlcheck.group("automorphisms", graph=ring())
    assert autos.order == 2 * N  # the dihedral group of the ring, from BLISS
    assert gdlcheck.verify_callable(layer, autos, shape=(N, 4), graph=ring(), inputs=("points", "fixed")).passed
    # by name, the group is the automorphisms of the graph given
    assert gdlcheck.verify_callable(
        layer, "automorphisms", shape=(N, 4), graph=ring(), inputs={"x": "points", "edge_index": "fixed"}
    ).passed


def test_cached_gcn_holds_the_first_graph():
    # the trap: GCNConv(cached=True) keeps the normalised graph of its first call, so it is no
    # longer a function of the graph it is given: it fails on a permuted graph, and holds on a
    # fixed graph under that graph's automorphisms
    torch.manual_seed(0)
    cached = GCNConv(4, 3, cached=True)
    assert not gdlcheck.verify_callable(cached, "symmetric", shape=(N, 4), graph=random_graph()).passed
    assert gdlcheck.verify_callable(
        cached, "automorphisms", shape=(N, 4), graph=ring(), inputs=("points", "fixed")
    ).passed


def test_edge_attributes_follow_their_edges():
    torch.manual_seed(0)
    ei = random_graph()
    attr = torch.randn(ei.shape[1], 2)
    conv = GINEConv(torch.nn.Linear(4, 3), edge_dim=2)
    r = gdlcheck.verify_callable(
        conv, "symmetric", shape=(N, 4), graph=ei, inputs=("points", "graph", gdlcheck.edges(attr))
    )
    assert r.passed, r.to_json()
    conv = TransformerConv(4, 3, heads=2, edge_dim=2)
    assert gdlcheck.verify_callable(
        conv,
        "symmetric",
        shape=(N, 4),
        graph=ei,
        inputs={"x": "points", "edge_index": "graph", "edge_attr": gdlcheck.edges(attr)},
    ).passed
    # the edge list is sorted, so relabelling reorders it: attributes left in place miss their edges
    assert not gdlcheck.verify_callable(
        conv,
        "symmetric",
        shape=(N, 4),
        graph=ei,
        inputs={"x": "points", "edge_index": "graph", "edge_attr": gdlcheck.unchanged(attr)},
    ).passed


def test_torch_sparse_adjacency_as_pyg_takes_it(monkeypatch):
    from torch_geometric.utils import to_torch_csr_tensor

    ei = random_graph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        adj_t = to_torch_csr_tensor(ei.flip(0), size=(N, N))  # PyG's adj_t: row = target, in CSR
    monkeypatch.setattr(torch.Tensor, "to_dense", lambda *a, **k: pytest.fail("densified"))
    torch.manual_seed(0)
    for conv in (GCNConv(4, 3), SAGEConv(4, 3), GINConv(torch.nn.Linear(4, 3))):
        assert gdlcheck.verify_callable(conv, "symmetric", shape=(N, 4), graph=adj_t).passed


def test_pooling_is_invariant():
    assert gdlcheck.verify_callable(
        global_mean_pool, "symmetric", shape=(N, 4), inputs=("points", None), expect="invariant"
    ).passed
    batch = torch.tensor([0] * 5 + [1] * 5)
    # the batch vector moves with its nodes: any permutation keeps which graph a node is in
    assert gdlcheck.verify_callable(
        global_add_pool, "symmetric", shape=(N, 4), inputs=("points", gdlcheck.points(batch)), expect="invariant"
    ).passed
    # held, it keeps the symmetry only for permutations within each graph
    held = ("points", gdlcheck.unchanged(batch))
    assert not gdlcheck.verify_callable(
        global_add_pool, "symmetric", shape=(N, 4), inputs=held, expect="invariant"
    ).passed
    within = gdlcheck.group("generators", n=N, generators=["(0 1 2 3 4)", "(0 1)", "(5 6 7 8 9)", "(5 6)"])
    assert gdlcheck.verify_callable(global_mean_pool, within, shape=(N, 4), inputs=held, expect="invariant").passed
    # not equivariant: the pooled output has no points axis
    assert gdlcheck.verify_callable(
        global_mean_pool, "symmetric", shape=(N, 4), inputs=("points", None), outputs="invariant"
    ).passed


def test_a_gnn_that_breaks_it_names_the_submodule():
    class NodeIds(torch.nn.Module):
        """A learned embedding of each node's index: ties the model to the node order."""

        def __init__(self, n, d):
            super().__init__()
            self.emb = torch.nn.Embedding(n, d)

        def forward(self, x):
            return x + self.emb.weight[: x.shape[0]]

    class GNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv1 = GCNConv(4, 8)
            self.ids = NodeIds(N, 8)
            self.conv2 = GCNConv(8, 3)

        def forward(self, x, edge_index):
            return self.conv2(self.ids(self.conv1(x, edge_index).relu()), edge_index)

    r = gdlcheck.verify_callable(GNN(), "symmetric", shape=(N, 4), graph=random_graph())
    assert r.verdict == "fails" and r.culprit["path"] in (
        "ids",
        "ids.emb.weight",
    )  # the submodule, or its parameter the proof names


def test_a_large_graph_stays_sparse():
    n = 20_000  # a dense float64 adjacency: 3.2 GB
    rng = np.random.default_rng(0)
    ei = torch.from_numpy(rng.integers(0, n, size=(2, 4 * n)))
    torch.manual_seed(0)
    r = gdlcheck.verify_callable(GCNConv(8, 8), "symmetric", shape=(n, 8), graph=ei, trials=2)
    assert r.passed
    autos = gdlcheck.group("automorphisms", graph=ei, n=n)
    assert autos.n == n


@settings(max_examples=15)
@given(st.integers(3, 12), st.integers(0, 2**16))
def test_gcn_and_sage_hold_on_every_random_graph(n, seed):
    ei = random_graph(n, edges=2 * n, seed=seed)
    torch.manual_seed(seed)
    for conv in (GCNConv(3, 2), SAGEConv(3, 2, aggr="max")):
        assert gdlcheck.verify_callable(conv, "symmetric", shape=(n, 3), graph=ei, trials=3, seed=seed).passed


def test_a_module_that_holds_its_graph_from_the_command_line(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "ul_held.py").write_text(
        "import torch\nfrom torch_geometric.nn import GCNConv\n"
        "class Held(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        torch.manual_seed(0)\n"
        "        self.conv = GCNConv(4, 3)\n        i = torch.arange(8)\n"
        "        self.register_buffer('edge_index', torch.stack([torch.cat([i, (i + 1) % 8]),"
        " torch.cat([(i + 1) % 8, i])]))\n"
        "    def forward(self, x):\n        return self.conv(x, self.edge_index)\n"
    )
    (tmp_path / "ring.csv").write_text("0,1,2,3,4,5,6,7,1,2,3,4,5,6,7,0\n1,2,3,4,5,6,7,0,0,1,2,3,4,5,6,7\n")
    base = ["verify", "--callable", "ul_held:Held", "--input-shape", "8x4"]
    # the graph names the group and the module holds it: --input points says the module takes only x
    assert run(base + ["-g", "automorphisms", "--graph", "ring.csv", "--input", "points", "-q"]).exit_code == 0
    assert run(base + ["-g", "symmetric", "-q"]).exit_code == 1
    passed = run(base + ["-g", "automorphisms", "--graph", "ring.csv"])
    assert passed.exit_code == 2 and "if the code takes only the points, say so with --input points" in passed.stderr
