"""Every class of ``torch_geometric.nn.conv`` and ``torch_geometric.nn.aggr``, built with the
constructor arguments of PyG's own tests (``test/nn/conv/test_*.py``, ``test/nn/aggr/test_*.py``),
and the call each takes: a convolution ``f(x, edge_index)`` (a thin wrapper passes what else it
needs: ``pos``, ``x_0``, relation types, a heterogeneous dict), an aggregation ``f(x, index)``.

:func:`catalogue` gives ``name -> (build, kind)``; ``build()`` returns the module, or raises where
the class does not build on a plain install (pyg-lib, torch_sparse, torch_cluster, CUDA).
``kind`` is ``"conv"`` or ``"aggr"``.  :data:`NOT_EQUIVARIANT` names the classes that are not
equivariant (or not invariant) by design, and why; the sweep (tests/test_pyg_catalogue.py) checks
that none of them is proved.
"""

from __future__ import annotations

import torch
from torch import nn
from torch_geometric.nn import aggr as A
from torch_geometric.nn import conv as C

F = 8  # input channels
RELATIONS = 2

# by design not equivariant (a convolution) or not invariant (an aggregation): never proved
NOT_EQUIVARIANT = {
    "WLConv": "its colour table grows as it is used: a later call gives other colours",
    "MeshCNNConv": "its input is edge features of a mesh, each edge's four neighbours in a fixed order",
    "LSTMAggregation": "reads the nodes of a graph as a sequence",
    "GRUAggregation": "reads the nodes of a graph as a sequence",
    "MLPAggregation": "an MLP over the nodes of a graph in their order",
    "LCMAggregation": "a binary tree over the nodes of a graph in their order",
    "PatchTransformerAggregation": "patches of consecutive nodes of a graph",
    "SortAggregation": "ties in its sort key pick the order",
}


class Pos(nn.Module):
    """A point convolution on positions taken from the features (the first three channels)."""

    def __init__(self, conv, x=True, normals=False):
        super().__init__()
        self.conv, self.x, self.normals = conv, x, normals

    def forward(self, x, edge_index):
        pos = x[:, :3]
        if self.normals:
            return self.conv(x, pos, x[:, 3:6], edge_index)
        return self.conv(x if self.x else None, pos, edge_index)


class X0(nn.Module):
    """A convolution that also takes the first layer's features (GCN2Conv, FAConv)."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv(x, x, edge_index)


class Typed(nn.Module):
    """A relational convolution: each edge's type is an edge attribute (it follows its edge); a
    heterogeneous one also takes each node's type (it moves with its node) and edge features."""

    def __init__(self, conv, node_types=False):
        super().__init__()
        self.conv, self.node_types = conv, node_types

    def forward(self, x, edge_index, edge_type, node_type=None, edge_attr=None):
        if self.node_types:
            return self.conv(x, edge_index, node_type, edge_type, edge_attr)
        return self.conv(x, edge_index, edge_type)


class Signed(nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv(x, edge_index, edge_index.flip(0))


class Hetero(nn.Module):
    """A heterogeneous convolution on one node type and one edge type."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv({"n": x}, {("n", "e", "n"): edge_index})["n"]


class First(nn.Module):
    """The node features of a convolution that returns more (PANConv returns its matrix too)."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv(x, edge_index)[0]


class Colours(nn.Module):
    """A colour refinement of each node's colour: the channel where its features are largest."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv(x.argmax(-1), edge_index)


class NoGraph(nn.Module):
    """A convolution that builds its own graph from the features (k nearest neighbours)."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv(x)


def _mlp(i, o):
    return nn.Sequential(nn.Linear(i, 16), nn.ReLU(), nn.Linear(16, o))


def _hetero_meta():
    return (["n"], [("n", "e", "n")])


def _convs() -> dict:
    deg = torch.tensor([0, 3, 5, 2, 1])
    return {
        "AGNNConv": lambda: C.AGNNConv(requires_grad=True),
        "APPNP": lambda: C.APPNP(K=3, alpha=0.1),
        "ARMAConv": lambda: C.ARMAConv(F, 4, num_stacks=2, num_layers=2),
        "AntiSymmetricConv": lambda: C.AntiSymmetricConv(F),
        "CGConv": lambda: C.CGConv(F),
        "ChebConv": lambda: C.ChebConv(F, 4, K=3),
        "ClusterGCNConv": lambda: C.ClusterGCNConv(F, 4, diag_lambda=1.0),
        "CuGraphGATConv": lambda: C.CuGraphGATConv(F, 4),
        "CuGraphRGCNConv": lambda: C.CuGraphRGCNConv(F, 4, RELATIONS),
        "CuGraphSAGEConv": lambda: C.CuGraphSAGEConv(F, 4),
        "DNAConv": lambda: _dna(),
        "DirGNNConv": lambda: C.DirGNNConv(C.SAGEConv(F, 4)),
        "DynamicEdgeConv": lambda: NoGraph(C.DynamicEdgeConv(_mlp(2 * F, 4), k=2)),
        "EGConv": lambda: C.EGConv(F, 8, aggregators=["sum", "mean", "max"], num_heads=2, num_bases=2),
        "EdgeConv": lambda: C.EdgeConv(_mlp(2 * F, 4)),
        "FAConv": lambda: X0(C.FAConv(F, eps=1.0)),
        "FastRGCNConv": lambda: Typed(C.FastRGCNConv(F, 4, RELATIONS)),
        "FeaStConv": lambda: C.FeaStConv(F, 4, heads=2),
        "FiLMConv": lambda: C.FiLMConv(F, 4),
        "FusedGATConv": lambda: C.FusedGATConv(F, 4, heads=2, add_self_loops=False),
        "GATConv": lambda: C.GATConv(F, 4, heads=2),
        "GATv2Conv": lambda: C.GATv2Conv(F, 4, heads=2),
        "GCN2Conv": lambda: X0(C.GCN2Conv(F, alpha=0.2)),
        "GCNConv": lambda: C.GCNConv(F, 4),
        "GENConv": lambda: C.GENConv(F, 4),
        "GMMConv": lambda: _gmm(),
        "GPSConv": lambda: C.GPSConv(F, C.GINConv(nn.Linear(F, F)), heads=2),
        "GatedGraphConv": lambda: C.GatedGraphConv(F, num_layers=3),
        "GINConv": lambda: C.GINConv(_mlp(F, 4), train_eps=True),
        "GINEConv": lambda: _EdgePos(C.GINEConv(_mlp(F, 4), train_eps=True, edge_dim=3), 3),
        "GeneralConv": lambda: C.GeneralConv(F, 4),
        "GraphConv": lambda: C.GraphConv(F, 4),
        "GravNetConv": lambda: NoGraph(C.GravNetConv(F, 4, space_dimensions=2, propagate_dimensions=2, k=2)),
        "HANConv": lambda: Hetero(C.HANConv(F, 4, _hetero_meta(), heads=2)),
        "HEATConv": lambda: Typed(
            C.HEATConv(
                F,
                4,
                num_node_types=2,
                num_edge_types=RELATIONS,
                edge_type_emb_dim=3,
                edge_dim=2,
                edge_attr_emb_dim=3,
                heads=2,
            ),
            node_types=True,
        ),
        "HGTConv": lambda: Hetero(C.HGTConv(F, 4, _hetero_meta(), heads=2)),
        "HeteroConv": lambda: Hetero(C.HeteroConv({("n", "e", "n"): C.GCNConv(F, 4)})),
        "HypergraphConv": lambda: C.HypergraphConv(F, 4),
        "LEConv": lambda: C.LEConv(F, 4),
        "LGConv": lambda: C.LGConv(),
        "MFConv": lambda: C.MFConv(F, 4),
        "MeshCNNConv": lambda: C.MeshCNNConv(F, 4),
        "MixHopConv": lambda: C.MixHopConv(F, 4),
        "NNConv": lambda: _edge_conv_nn(),
        "PANConv": lambda: First(C.PANConv(F, 4, filter_size=2)),
        "PDNConv": lambda: _pdn(),
        "PNAConv": lambda: C.PNAConv(
            F, 4, ["mean", "min", "max", "std"], ["identity", "amplification", "attenuation"], deg, towers=2
        ),
        "PPFConv": lambda: Pos(C.PPFConv(nn.Linear(F + 4, 4), nn.Linear(4, 4)), normals=True),
        "PointGNNConv": lambda: _point_gnn(),
        "PointNetConv": lambda: Pos(C.PointNetConv(nn.Linear(F + 3, 4), nn.Linear(4, 4))),
        "PointTransformerConv": lambda: Pos(C.PointTransformerConv(F, 4)),
        "RGATConv": lambda: Typed(C.RGATConv(F, 4, RELATIONS)),
        "RGCNConv": lambda: Typed(C.RGCNConv(F, 4, RELATIONS)),
        "ResGatedGraphConv": lambda: C.ResGatedGraphConv(F, 4),
        "SAGEConv": lambda: C.SAGEConv(F, 4),
        "SGConv": lambda: C.SGConv(F, 4, K=2),
        "SSGConv": lambda: C.SSGConv(F, 4, alpha=0.1, K=2),
        "SignedConv": lambda: Signed(C.SignedConv(F, 4, first_aggr=True)),
        "SimpleConv": lambda: C.SimpleConv(combine_root="sum"),
        "SplineConv": lambda: _spline(),
        "SuperGATConv": lambda: C.SuperGATConv(F, 4, heads=2),
        "TAGConv": lambda: C.TAGConv(F, 4),
        "TransformerConv": lambda: C.TransformerConv(F, 4, heads=2),
        "WLConv": lambda: Colours(C.WLConv()),
        "WLConvContinuous": lambda: C.WLConvContinuous(),
        "XConv": lambda: NoGraph(_xconv()),
    }


class _EdgePos(nn.Module):
    """An edge-attribute convolution with attributes from the endpoints' positions (they move with
    the graph): ``pos[dst] - pos[src]``."""

    def __init__(self, conv, dim):
        super().__init__()
        self.conv, self.dim = conv, dim

    def forward(self, x, edge_index):
        pos = x[:, : self.dim]
        return self.conv(x, edge_index, (pos[edge_index[1]] - pos[edge_index[0]]).abs())


class _PointGNN(nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x, edge_index):
        return self.conv(x, x[:, :3], edge_index)


def _dna():
    class DNA(nn.Module):  # DNAConv takes the stack of previous layers' features: (N, L, F)
        def __init__(self):
            super().__init__()
            self.conv = C.DNAConv(F, heads=2, groups=2)

        def forward(self, x, edge_index):
            return self.conv(torch.stack([x, x.tanh()], 1), edge_index)

    return DNA()


def _gmm():
    return _EdgePos(C.GMMConv(F, 4, dim=3, kernel_size=2), 3)


def _edge_conv_nn():
    return _EdgePos(C.NNConv(F, 4, nn.Linear(3, F * 4)), 3)


def _pdn():
    return _EdgePos(C.PDNConv(F, 4, edge_dim=3, hidden_channels=8), 3)


def _spline():
    return _EdgePos(C.SplineConv(F, 4, dim=3, kernel_size=5), 3)


def _point_gnn():
    return _PointGNN(C.PointGNNConv(mlp_h=nn.Linear(F, 3), mlp_f=nn.Linear(3 + F, F), mlp_g=nn.Linear(F, F)))


def _xconv():
    class X(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = C.XConv(F, 4, dim=3, kernel_size=2)

        def forward(self, x):
            return self.conv(x, x[:, :3])

    return X()


def _aggrs() -> dict:
    deg = torch.tensor([0, 3, 5, 2, 1])
    return {
        "AttentionalAggregation": lambda: A.AttentionalAggregation(nn.Linear(F, 1), nn.Linear(F, 4)),
        "DeepSetsAggregation": lambda: A.DeepSetsAggregation(nn.Linear(F, 4), nn.Linear(4, 4)),
        "DegreeScalerAggregation": lambda: A.DegreeScalerAggregation(
            ["mean", "sum"], ["identity", "amplification"], deg
        ),
        "EquilibriumAggregation": lambda: A.EquilibriumAggregation(F, 4, num_layers=[8, 8], grad_iter=2),
        "GRUAggregation": lambda: A.GRUAggregation(F, 4),
        "GraphMultisetTransformer": lambda: A.GraphMultisetTransformer(F, k=2, heads=2),
        "LCMAggregation": lambda: A.LCMAggregation(F, 4),
        "LSTMAggregation": lambda: A.LSTMAggregation(F, 4),
        "MLPAggregation": lambda: A.MLPAggregation(F, 4, max_num_elements=24, num_layers=1),
        "MaxAggregation": lambda: A.MaxAggregation(),
        "MeanAggregation": lambda: A.MeanAggregation(),
        "MedianAggregation": lambda: A.MedianAggregation(),
        "MinAggregation": lambda: A.MinAggregation(),
        "MulAggregation": lambda: A.MulAggregation(),
        "MultiAggregation": lambda: A.MultiAggregation(["mean", "sum", "max"]),
        "PatchTransformerAggregation": lambda: A.PatchTransformerAggregation(F, 4, patch_size=2, hidden_channels=8),
        "PowerMeanAggregation": lambda: A.PowerMeanAggregation(learn=True),
        "QuantileAggregation": lambda: A.QuantileAggregation([0.25, 0.75]),
        "Set2Set": lambda: A.Set2Set(F, processing_steps=2),
        "SetTransformerAggregation": lambda: A.SetTransformerAggregation(F, heads=2),
        "SoftmaxAggregation": lambda: A.SoftmaxAggregation(learn=True),
        "SortAggregation": lambda: A.SortAggregation(k=3),
        "StdAggregation": lambda: A.StdAggregation(),
        "SumAggregation": lambda: A.SumAggregation(),
        "VarAggregation": lambda: A.VarAggregation(),
        "VariancePreservingAggregation": lambda: A.VariancePreservingAggregation(),
    }


def catalogue() -> dict:
    """``name -> (build, kind)`` for every public class of the two packages but the two bases."""
    out = {name: (build, "conv") for name, build in _convs().items()}
    out.update({name: (build, "aggr") for name, build in _aggrs().items()})
    listed = (set(C.__all__) | set(A.__all__)) - {"MessagePassing", "Aggregation"}
    missing = listed - set(out)
    if missing:
        raise LookupError(f"classes without a constructor here: {sorted(missing)}")
    return out


N = 24


def random_graph(n: int = N, edges: int = 40, seed: int = 0):
    """A random undirected graph (both directions, sorted, no self loops)."""
    from torch_geometric.utils import to_undirected

    g = torch.Generator().manual_seed(seed)
    ei = torch.randint(0, n, (2, edges), generator=g)
    return to_undirected(ei[:, ei[0] != ei[1]], num_nodes=n)


def ring(n: int = N):
    i = torch.arange(n)
    return torch.stack([torch.cat([i, (i + 1) % n]), torch.cat([(i + 1) % n, i])])


# what a class takes besides x and edge_index: edge types, or node and edge types and edge features
TYPED = {"FastRGCNConv": "edges", "RGATConv": "edges", "RGCNConv": "edges", "HEATConv": "nodes"}


# the first call stores a choice of kernel (segment_matmul or not) on the module: checked once used
WARM = {"RGCNConv", "FastRGCNConv"}


def _typed(what: str, edges: int, held: bool) -> list:
    """The extra inputs: on a fixed graph, types its automorphisms keep (all alike)."""
    import gdlcheck

    kinds = torch.zeros(edges, dtype=torch.long) if held else torch.arange(edges) % RELATIONS
    out = [gdlcheck.edges(kinds)]
    if what == "nodes":
        nodes = torch.zeros(N, dtype=torch.long) if held else torch.arange(N) % 2
        attr = (
            torch.ones(edges, 2, dtype=torch.float64)
            if held
            else torch.randn(edges, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        )
        out += [gdlcheck.points(nodes), gdlcheck.edges(attr)]
    return out


def settings(kind: str, name: str = "") -> dict:
    """The checks of one class: ``setting -> (group, keywords)``.  A convolution on a random graph
    that moves with the nodes, on a fixed ring under its automorphisms, and (the negative control)
    on the fixed ring under the full symmetric group; an aggregation of one graph whose index moves
    with its nodes, and of two graphs held fixed under the permutations within each."""
    import gdlcheck

    if kind == "conv":
        moving, fixed = random_graph(), ring()
        more = (
            (_typed(TYPED[name], moving.shape[1], False), _typed(TYPED[name], fixed.shape[1], True))
            if name in TYPED
            else ([], [])
        )
        held = {"shape": (N, F), "inputs": ["points", gdlcheck.fixed(fixed)] + more[1]}
        return {
            "moving": ("symmetric", {"shape": (N, F), "inputs": ["points", gdlcheck.graph(moving)] + more[0]}),
            "ring": (gdlcheck.group("automorphisms", graph=ring()), held),
            "control": ("symmetric", held),
        }
    half = N // 2
    within = gdlcheck.group(
        "generators",
        n=N,
        generators=[
            "(" + " ".join(map(str, range(half))) + ")",
            "(0 1)",
            "(" + " ".join(map(str, range(half, N))) + ")",
            f"({half} {half + 1})",
        ],
    )
    two = torch.tensor([0] * half + [1] * half)
    return {
        "moving": (
            "symmetric",
            {
                "shape": (N, F),
                "expect": "invariant",
                "inputs": ["points", gdlcheck.points(torch.zeros(N, dtype=torch.long))],
            },
        ),
        "ring": (within, {"shape": (N, F), "expect": "invariant", "inputs": ["points", gdlcheck.unchanged(two)]}),
    }


def check(name: str, setting: str, method: str = "exact"):
    """The verdict of one class in one setting, and the reason its proof stopped (or "")."""
    import warnings

    import gdlcheck

    build, kind = catalogue()[name]
    group, kw = settings(kind, name)[setting]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = build()
        if name in WARM:  # the first call caches a choice of kernel; a used module keeps it
            module = module.double()
            with torch.no_grad():
                module(
                    torch.randn(N, F, dtype=torch.float64), random_graph(), torch.arange(random_graph().shape[1]) % 2
                )
        r = gdlcheck.verify_callable(module, group, method=method, **kw)
    return r.verdict, reason(r)


def reason(r) -> str:
    """Why the proof stopped, from its first ``not_proven`` note: the reason's word, the place and
    what stopped it ("" for a proof that holds)."""
    for fact in r.notes:
        if getattr(fact, "what", "") == "not_proven":
            stop = fact.args["stop"]
            return f"{stop.reason.value}: {stop.step.path}: {stop.step.label}"
    return ""
