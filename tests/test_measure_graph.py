"""``gdlcheck measure`` of a graph model: the graph given with the data moves with the nodes (an
edge_index relabelled, its edge values following their edges), and the numbers are the ones
computed here by hand."""

import json
import textwrap

import numpy as np
import pytest
import torch
from torch import nn

import gdlcheck
from gdlcheck.errors import GdlcheckError

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'

N, D = 7, 3

GNN_SOURCE = '''
import torch
from torch import nn


class Conv(nn.Module):
    """A sum over in-neighbours (index_add by target) plus the node itself: equivariant."""

    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x, edge_index):
        src, dst = edge_index
        return torch.zeros_like(x).index_add(0, dst, self.lin(x)[src]) + x


class EdgeScores(nn.Module):
    """A value per edge from its two ends: it follows its edge."""

    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(2 * d, 1)

    def forward(self, x, edge_index):
        return self.lin(torch.cat([x[edge_index[0]], x[edge_index[1]]], dim=-1))


class Leak(nn.Module):
    """A scale per node position: breaks the symmetry."""

    def __init__(self, n):
        super().__init__()
        self.pos = nn.Parameter(torch.linspace(0.5, 1.5, n)[:, None])

    def forward(self, x):
        return x * self.pos


class GNN(nn.Module):
    def __init__(self, n=7, d=3, leak=True):
        super().__init__()
        self.conv1 = Conv(d)
        self.leak = Leak(n) if leak else nn.Identity()
        self.edges = EdgeScores(d)
        self.conv2 = Conv(d)

    def forward(self, x, edge_index):
        h = self.leak(self.conv1(x, edge_index))
        w = torch.sigmoid(self.edges(h, edge_index))
        src, dst = edge_index
        return self.conv2(h, edge_index) + torch.zeros_like(h).index_add(0, dst, w * h[src])
'''


@pytest.fixture(scope="module")
def gnn(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gnn")
    (folder / "gnn.py").write_text(textwrap.dedent(GNN_SOURCE))
    namespace: dict = {}
    exec(compile(GNN_SOURCE, str(folder / "gnn.py"), "exec"), namespace)
    return folder, namespace["GNN"]


def random_graph(sort: bool = True) -> torch.Tensor:
    rng = np.random.default_rng(0)
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, N, (30, 2)) if a != b}
    edges = np.array(sorted(pairs) if sort else list(pairs)).T  # sorted by source, as PyG's sort_edge_index
    return torch.as_tensor(edges, dtype=torch.long)


def moved_by_hand(p, x, edge_index):
    """Node j moves to p[j]: x[p[j]] of the result is x[j]; edge (u, v) becomes (p u, p v)."""
    y = torch.empty_like(x)
    y[torch.as_tensor(p)] = x
    return y, torch.as_tensor(p)[edge_index]


@pytest.mark.parametrize("sort", [True, False])
def test_the_leak_of_a_graph_model_is_found_and_the_graph_moves_with_the_nodes(gnn, sort):
    _, GNN = gnn
    torch.manual_seed(0)
    model = GNN()
    x, edge_index = torch.randn(N, D), random_graph(sort)
    measured = gdlcheck.measure(model, "symmetric", x, graph=edge_index, elements=3)
    layers = {m.path: m for m in measured.layers}
    assert measured.points_axis == 0 and measured.data_shape == (N, D) and measured.graph == "<graph>"
    assert measured.largest.path == "leak"
    # the layers that keep the symmetry add nothing of their own, the edge scores included (edge values
    # follow their edges when the relabelled list is sorted again)
    for path in ("conv1", "edges", "conv2"):
        assert layers[path].own_contribution < 1e-12, path
    assert layers["conv1"].error < 1e-12 and layers["edges"].error > 1e-3  # its input is already broken
    # the model's error for each element, by hand: f(g x, g edge_index) against g f(x, edge_index)
    double = model.double().eval()
    with torch.no_grad():
        for p, error in zip(measured.elements, layers[""].errors):
            s = np.arange(N)
            for cycle in p.strip("()").split(")("):
                points = [int(v) for v in cycle.split()]
                for a, b in zip(points, points[1:] + points[:1]):
                    s[a] = b
            gx, gei = moved_by_hand(s, x.double(), edge_index)
            target, _ = moved_by_hand(s, double(x.double(), edge_index), edge_index)
            by_hand = torch.linalg.norm(double(gx, gei) - target) / torch.linalg.norm(target)
            assert error == pytest.approx(float(by_hand), rel=1e-9)


def test_an_equivariant_graph_model_measures_zero_and_a_dense_adjacency_moves_as_p_a_pt(gnn):
    _, GNN = gnn
    torch.manual_seed(1)
    model = GNN(leak=False)
    x, edge_index = torch.randn(N, D), random_graph()
    measured = gdlcheck.measure(model, "symmetric", x, graph=edge_index.numpy(), elements=2)
    assert all(m.error < 1e-12 for m in measured.layers) and measured.largest is None

    class Dense(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(D, D)

        def forward(self, x, A):
            return A @ self.lin(x)

    A = np.zeros((N, N))
    A[edge_index[1].numpy(), edge_index[0].numpy()] = 1.0
    measured = gdlcheck.measure(Dense(), "symmetric", x, graph=A, elements=2)
    assert measured.model.error < 1e-12


def test_the_graph_is_checked_against_the_nodes(gnn):
    _, GNN = gnn
    with pytest.raises(GdlcheckError, match="names node 9, but there are n = 7 nodes"):
        gdlcheck.measure(GNN(), "symmetric", torch.randn(N, D), graph=torch.tensor([[0, 9], [1, 2]]))
    with pytest.raises(GdlcheckError, match="graph is 8 x 8 but the group acts on n = 7"):
        gdlcheck.measure(GNN(), "symmetric", torch.randn(N, D), graph=np.ones((8, 8)))


def test_the_command_line_takes_the_graph_file_and_its_automorphisms(run, gnn, tmp_path, monkeypatch):
    folder, _ = gnn
    monkeypatch.chdir(tmp_path)
    torch.manual_seed(2)
    np.save(tmp_path / "x.npy", torch.randn(N, D).numpy())
    np.save(tmp_path / "ring.npy", np.array([np.arange(N), (np.arange(N) + 1) % N]))  # a directed ring
    args = ["measure", "--callable", f"{folder / 'gnn.py'}:GNN", "--data", "x.npy", "--graph", "ring.npy"]
    result = run([*args, "-g", "symmetric", "--format", "json", "--elements", "1"])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["graph"] == "ring.npy" and out["data"]["points_axis"] == 0
    assert out["largest_contributor"] == "leak"
    # without --group the group is the graph's automorphisms: the ring's rotations
    result = run([*args, "--format", "json", "--elements", "1"])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["group"]["name"] == "automorphisms" and out["group"]["order"] == N
    result = run([*args, "-g", "symmetric"])
    assert "with the graph ring.npy" in " ".join(result.stdout.split())
