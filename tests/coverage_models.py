"""The second half of the coverage test's modules (issue 29): hand-written models from the texts
and from papers as people write them (stored operators, broadcast global features, attention with
float biases, hand-made convolutions), PyG's model classes, and more of torch.nn; and their twins,
each broken in one named place.  ``tests/test_code_coverage.py`` runs them."""

from __future__ import annotations

import warnings

import numpy as np
import torch

import gdlcheck

nn, F = torch.nn, torch.nn.functional
N, D = 8, 4
F64 = torch.float64


def circulant(theta):
    n = len(theta)
    return torch.stack([torch.stack([theta[(i - j) % n] for j in range(n)]) for i in range(n)])


def ring_operator(n=N):
    """Theorem 3's ``D~^-1/2 (A + I) D~^-1/2`` of the n-ring."""
    A = torch.eye(n, dtype=F64)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    d = A.sum(1).rsqrt()
    return d[:, None] * A * d[None]


THETA = torch.linspace(-1, 1, N, dtype=F64) ** 3 + 0.1
CIRCULANT = circulant(THETA)
RING = ring_operator()
DIST = torch.tensor([[min((i - j) % N, (j - i) % N) for j in range(N)] for i in range(N)], dtype=F64)
LINEAR_DIST = torch.tensor([[abs(i - j) for j in range(N)] for i in range(N)], dtype=F64)
REVERSAL = gdlcheck.group(generators=["[" + ", ".join(str(N - 1 - i) for i in range(N)) + "]"], n=N)


class Stored(nn.Module):
    """``M @ x W``: a stored operator on the points (a buffer), then a per-point map."""

    def __init__(self, M, how="matmul", layers=1):
        super().__init__()
        self.register_buffer("M", M.to_sparse() if how == "sparse" else M.clone())
        self.how = how
        self.lins = nn.ModuleList(nn.Linear(D, D) for _ in range(layers))

    def forward(self, x):
        for lin in self.lins:
            h = lin(x)
            if self.how == "sparse":
                h = torch.sparse.mm(self.M, h)
            elif self.how == "einsum":
                h = torch.einsum("ij,jd->id", self.M, h)
            else:
                h = self.M @ h
            x = h.relu()
        return x


class Mixer(nn.Module):
    """An MLP-Mixer block: token mixing by a ``Linear`` over the points, then channel mixing."""

    def __init__(self, weight):
        super().__init__()
        self.norm = nn.LayerNorm(D)
        self.tokens = nn.Linear(N, N)
        self.channels = nn.Sequential(nn.Linear(D, 8), nn.GELU(), nn.Linear(8, D))
        with torch.no_grad():
            self.tokens.weight.copy_(weight)
            self.tokens.bias.fill_(0.25)

    def forward(self, x):
        x = x + self.tokens(self.norm(x).T).T
        return x + self.channels(self.norm(x))


class PointNetSeg(nn.Module):
    """PointNet segmentation: per-point features, a max-pooled global feature concatenated to every
    point (``expand``), a per-point head.  Points on the last axis, as PointNet writes it."""

    def __init__(self, transform=False):
        super().__init__()
        self.transform = transform
        self.tnet = nn.Sequential(nn.Conv1d(D, 8, 1), nn.ReLU())
        self.tnet_head = nn.Linear(8, D * D)
        self.local = nn.Sequential(nn.Conv1d(D, 8, 1), nn.ReLU())
        self.head = nn.Conv1d(16, 3, 1)

    def forward(self, x):  # (B, D, N)
        if self.transform:  # a T-Net: a D x D matrix from the global feature
            t = self.tnet_head(self.tnet(x).amax(2)).view(-1, D, D) + torch.eye(D, dtype=x.dtype)
            x = torch.bmm(x.transpose(1, 2), t).transpose(1, 2)
        h = self.local(x)
        g = h.amax(2, keepdim=True)
        return self.head(torch.cat([h, g.expand(-1, -1, x.shape[2])], 1))


class Biased(nn.Module):
    """Self-attention with a stored float bias (ALiBi: minus the distance) through
    ``scaled_dot_product_attention``."""

    def __init__(self, distance):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.register_buffer("bias", -0.5 * distance)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        return F.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=self.bias)[0]


class GraphAttention(nn.Module):
    """Attention restricted to a stored graph's edges (``masked_fill`` of the non-edges)."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
        self.register_buffer("adjacency", RING > 0)

    def forward(self, x):
        scores = (self.q(x) @ self.k(x).T).masked_fill(~self.adjacency, float("-inf"))
        return scores.softmax(-1) @ self.v(x)


class RollConv(nn.Module):
    """A circular convolution written with ``roll``: ``sum_k x[i - k] W_k``."""

    def __init__(self, width=3):
        super().__init__()
        self.taps = nn.ModuleList(nn.Linear(D, D, bias=k == 0) for k in range(width))

    def forward(self, x):
        return sum(tap(torch.roll(x, k, 0)) for k, tap in enumerate(self.taps))


class PadConv(nn.Module):
    """A circular convolution written by hand: ``F.pad(mode="circular")`` then ``F.conv1d``."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(D, D, 3)

    def forward(self, x):  # (D, N)
        return self.conv(F.pad(x[None], (1, 1), mode="circular"))[0]


class PadConv2d(nn.Module):
    """The same on a torus, in two dimensions: ``F.pad(mode="circular")`` then ``F.conv2d``."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 3, 3, 2))

    def forward(self, x):  # (3, H, W)
        return F.conv2d(F.pad(x[None], (1, 0, 1, 1), mode="circular"), self.weight)[0]


class SetPooling(nn.Module):
    """Set Transformer's pooling by attention: a learned seed query attends to the set."""

    def __init__(self):
        super().__init__()
        self.seed = nn.Parameter(torch.randn(1, 1, D))
        self.attn = nn.MultiheadAttention(D, 2, batch_first=True)

    def forward(self, x):
        return self.attn(self.seed, x[None], x[None])[0][0, 0]


class Centred(nn.Module):
    """Features centred and scaled over the set (``F.normalize`` over the points), then stacked
    with the input as two views of each point."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D)

    def forward(self, x):
        h = F.normalize(self.lin(x - x.mean(0, keepdim=True)), dim=0)
        return torch.stack([x, h], -1).flatten(1)


class Filled(nn.Module):
    """Features written block by block into a tensor the call made (``copy_`` into views)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(D, D), nn.Linear(D, D)

    def forward(self, x):
        out = x.new_zeros(x.shape[0], 2 * D)
        out[:, :D] = self.a(x)
        out[:, D:] = self.b(x).tanh()
        return out


class Repeated(nn.Module):
    """A set's mean repeated to every point (``repeat``) and concatenated, as PNA-style code does."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2 * D, D)

    def forward(self, x):
        return self.lin(torch.cat([x, x.mean(0, keepdim=True).repeat(x.shape[0], 1)], 1))


class PerPoint(nn.Module):
    """A torch.nn module that takes a batch of points: applied to the points as its batch."""

    def __init__(self, module, two=False):
        super().__init__()
        self.m, self.two = module, two

    def forward(self, x):
        return self.m(x, x) if self.two else self.m(x)


class Sequence(nn.Module):
    """A recurrent network run over a short sequence at each point (the points are its batch)."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x):
        return self.rnn(x.view(x.shape[0], 2, D // 2))[0]


def models():
    """(name, module, group, options) of the hand-written and torch.nn models, all equivariant."""
    torch.manual_seed(0)
    points = {"shape": (N, D)}
    dihedral = gdlcheck.group("dihedral", n=N)
    out = [
        ("circulant token mixing (Theorem 1)", Stored(CIRCULANT).double(), "cyclic", points),
        ("circulant token mixing by einsum", Stored(CIRCULANT, "einsum").double(), "cyclic", points),
        ("Mixer block, circulant token mixing", Mixer(CIRCULANT).double(), "cyclic", points),
        ("GCN on a stored normalised adjacency (Theorem 3)", Stored(RING, layers=2).double(), dihedral, points),
        ("GCN on a stored sparse adjacency", Stored(RING, "sparse").double(), dihedral, points),
        (
            "DeepSets as an operator alpha I + beta 11^T",
            Stored(0.7 * torch.eye(N, dtype=F64) + 0.2).double(),
            "symmetric",
            points,
        ),
        (
            "PointNet segmentation (global feature expanded)",
            PointNetSeg().double(),
            "symmetric",
            {"shape": (1, D, N), "points_axis": 2},
        ),
        (
            "PointNet segmentation with a T-Net (bmm)",
            PointNetSeg(transform=True).double(),
            "symmetric",
            {"shape": (1, D, N), "points_axis": 2},
        ),
        ("ALiBi with a circular distance, dihedral", Biased(DIST).double(), dihedral, points),
        ("ALiBi with a linear distance, reversal", Biased(LINEAR_DIST).double(), REVERSAL, points),
        ("attention on a stored graph's edges", GraphAttention().double(), dihedral, points),
        ("circular convolution written with roll", RollConv().double(), "cyclic", points),
        ("circular convolution by F.pad and conv1d", PadConv().double(), "cyclic", {"shape": (D, N), "points_axis": 1}),
        (
            "circular convolution by F.pad and conv2d, translations",
            PadConv2d().double(),
            "translations",
            {"shape": (3, 5, 6), "points_axis": (1, 2)},
        ),
        (
            "circular convolution by F.pad and conv1d, symmetric kernel, dihedral",
            _mirrored(PadConv().double()),
            dihedral,
            {"shape": (D, N), "points_axis": 1},
        ),
        (
            "Set Transformer pooling by a seed query",
            SetPooling().double(),
            "symmetric",
            dict(points, expect="invariant"),
        ),
        ("features normalised over the set, stacked", Centred().double(), "symmetric", points),
        ("features written into a fresh tensor", Filled().double(), "symmetric", points),
        ("the set's mean repeated to every point", Repeated().double(), "symmetric", points),
        (
            "TransformerEncoder with a padding mask (nested tensors)",
            PaddedEncoder().double(),
            "symmetric",
            {"shape": (1, N, D), "points_axis": 1},
        ),
    ]
    for name, module in [
        ("Bilinear", PerPoint(nn.Bilinear(D, D, 3), two=True)),
        ("GRUCell", PerPoint(nn.GRUCell(D, 3))),
        ("ELU", nn.ELU()),
        ("Softplus", nn.Softplus()),
        ("Hardswish", nn.Hardswish()),
        ("Mish", nn.Mish()),
        ("LeakyReLU", nn.LeakyReLU(0.1)),
        ("LogSoftmax over channels", nn.LogSoftmax(-1)),
        ("Sigmoid", nn.Sigmoid()),
        ("Hardtanh", nn.Hardtanh()),
        ("RMSNorm", nn.RMSNorm(D)),
        ("LogSigmoid", nn.LogSigmoid()),
        ("Hardsigmoid", nn.Hardsigmoid()),
        ("ReLU6", nn.ReLU6()),
        ("SELU", nn.SELU()),
        ("CELU", nn.CELU()),
        ("Softsign", nn.Softsign()),
        ("Tanhshrink", nn.Tanhshrink()),
        ("Softmin over channels", nn.Softmin(-1)),
        ("GRU over a short sequence per point", Sequence(nn.GRU(D // 2, 3, batch_first=True))),
        ("LSTM over a short sequence per point", Sequence(nn.LSTM(D // 2, 3, batch_first=True))),
    ]:
        out.append((name, module.double(), "symmetric", points))
    channels_first = {"shape": (1, D, N), "points_axis": 2}
    out += [
        ("GroupNorm over channels and points", nn.GroupNorm(2, D).double(), "symmetric", channels_first),
        ("InstanceNorm1d", nn.InstanceNorm1d(D, affine=True).double(), "symmetric", channels_first),
    ]
    return out


def pyg_models(gnn, moving):
    """PyG's model classes on a moving graph."""
    torch.manual_seed(0)

    class OnGraph(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x, edge_index):
            return self.m(x, edge_index)

    deg = torch.tensor([0, 0, N])
    made = [
        ("GCN model", gnn.GCN(D, 8, 2, 5)),
        ("GCN model, jk='cat'", gnn.GCN(D, 8, 2, 5, jk="cat")),
        ("GCN model, jk='max'", gnn.GCN(D, 8, 2, 5, jk="max")),
        ("GCN model, jk='lstm'", gnn.GCN(D, 8, 2, 5, jk="lstm")),
        ("GraphSAGE model", gnn.GraphSAGE(D, 8, 2, 5)),
        ("GIN model", gnn.GIN(D, 8, 2, 5)),
        ("GAT model", gnn.GAT(D, 8, 2, 5, heads=2)),
        ("EdgeCNN model", gnn.EdgeCNN(D, 8, 2, 5)),
        (
            "PNA model",
            gnn.PNA(D, 8, 2, 5, aggregators=["mean", "max", "std"], scalers=["identity", "amplification"], deg=deg),
        ),
        ("GPSConv (to_dense_batch, then h[mask])", gnn.GPSConv(D, gnn.GCNConv(D, D), heads=2)),
        ("DeepGCNLayer, res+", gnn.DeepGCNLayer(gnn.GENConv(D, D), nn.LayerNorm(D), nn.ReLU(), block="res+")),
    ]
    out = [(f"PyG {name}, moving graph", OnGraph(m), "symmetric", moving) for name, m in made]
    out.append(("PyG MLP", gnn.MLP([D, 8, 5]), "symmetric", {"shape": (N, D)}))
    ring = _ring_ids()
    A = np.zeros((N, N))
    A[ring[0], ring[1]] = 1
    held = {"shape": (N, D), "inputs": ["points", gdlcheck.fixed(ring)]}
    autos = gdlcheck.group("automorphisms", graph=A)
    for name, m in [
        ("GCN model", gnn.GCN(D, 8, 2, 5)),
        ("GraphSAGE model", gnn.GraphSAGE(D, 8, 2, 5)),
        ("GIN model", gnn.GIN(D, 8, 2, 5)),
    ]:
        out.append((f"PyG {name}, fixed ring", OnGraph(m), autos, held))
    return out


def wrapped():
    """Code wrapped as people wrap it: TorchScript, vmap, inference mode."""
    torch.manual_seed(0)

    def mlp():
        return nn.Sequential(nn.Linear(D, 8), nn.ReLU(), nn.Linear(8, D)).double()

    class Mapped(nn.Module):
        def __init__(self):
            super().__init__()
            self.f = mlp()

        def forward(self, x):
            return torch.vmap(self.f)(x)

    class Inference(nn.Module):
        def __init__(self):
            super().__init__()
            self.f = nn.TransformerEncoderLayer(D, 2, 8).double()

        def forward(self, x):
            with torch.inference_mode():
                return self.f(x)

    points = {"shape": (N, D)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's note on jit.trace
        traced = torch.jit.trace(mlp(), torch.randn(N, D, dtype=F64))
    return [
        ("MLP under torch.jit.script", torch.jit.script(mlp()), "symmetric", points),
        ("MLP under torch.jit.trace", traced, "symmetric", points),
        ("MLP under torch.vmap over the points", Mapped(), "symmetric", points),
        ("TransformerEncoderLayer under torch.inference_mode", Inference(), "symmetric", points),
    ]


def _ring_ids(n=N):
    s = np.arange(n)
    return np.concatenate([np.stack([s, (s + 1) % n]), np.stack([(s + 1) % n, s])], axis=1)


# equivariant, not proved, and why (each a line of docs/code.md's "what is not proved")
NOT_PROVED: dict[str, str] = {
    # the proof stops where torch asks whether the mask is left-aligned (an operation that returns a
    # Python bool); past it the points are packed into a nested tensor, whose operations have no rule
    "TransformerEncoder with a padding mask (nested tensors)": "aten._nested_tensor_from_mask_left_aligned",
}


def _mirrored(module):
    """``module`` with its convolution's kernel made symmetric in its taps (a reflection keeps it)."""
    with torch.no_grad():
        module.conv.weight.copy_((module.conv.weight + module.conv.weight.flip(-1)) / 2)
    return module


def _broken(module, attr, index):
    """``module`` with one entry of a named buffer or parameter changed."""
    with torch.no_grad():
        t = getattr(module, attr)
        t.index_put_(index, t[index] + 0.5)
    return module


def twins():
    """(name, module, group, options, culprit path): each model above broken in one named place."""
    torch.manual_seed(0)
    points = {"shape": (N, D)}
    dihedral = gdlcheck.group("dihedral", n=N)
    bad_mixer = Mixer(CIRCULANT).double()
    _broken(bad_mixer.tokens, "weight", (torch.tensor(0), torch.tensor(3)))
    bad_alibi = Biased(DIST).double()
    _broken(bad_alibi, "bias", (torch.tensor(0), torch.tensor(2)))
    return [
        (
            "circulant token mixing, one entry off",
            _broken(Stored(CIRCULANT).double(), "M", (torch.tensor(0), torch.tensor(3))),
            "cyclic",
            points,
            "M",
        ),
        ("Mixer block, one token weight off", bad_mixer, "cyclic", points, "tokens.weight"),
        (
            "GCN on a stored adjacency, one edge off",
            _broken(Stored(RING, layers=2).double(), "M", (torch.tensor(0), torch.tensor(4))),
            dihedral,
            points,
            "M",
        ),
        ("ALiBi, one bias off", bad_alibi, dihedral, points, "bias"),
        ("a circulant under reflections", Stored(CIRCULANT).double(), dihedral, points, "M"),
        (
            "a circular convolution by F.pad and conv1d under reflections",
            PadConv().double(),
            dihedral,
            {"shape": (D, N), "points_axis": 1},
            "conv.weight",
        ),
        (
            "PointNet segmentation with a per-point offset",
            Offset(PointNetSeg().double()),
            "symmetric",
            {"shape": (1, D, N), "points_axis": 2},
            "offset",
        ),
        ("a scripted layer, then a per-point table", FirstRow(), "symmetric", points, "1.table"),
    ]


class Offset(nn.Module):
    """A model with a learned per-point offset added to its input (a position table)."""

    def __init__(self, model):
        super().__init__()
        self.offset = nn.Parameter(torch.randn(D, N, dtype=F64))
        self.model = model

    def forward(self, x):
        return self.model(x + self.offset)


class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(N, D, dtype=F64))

    def forward(self, x):
        return x + self.table


def FirstRow():
    """A scripted layer, then a per-point table added."""
    return nn.Sequential(torch.jit.script(nn.Linear(D, D).double()), Table())


def _c4(kernel):
    """A kernel equal to its own 90-degree rotations (the mean of the four)."""
    return sum(torch.rot90(kernel, k, (-2, -1)) for k in range(4)) / 4


def _integers(*shape):
    """A random kernel of small integers: the sums of its rotations are exact in any order."""
    return torch.randint(-4, 5, shape).to(F64)


def _d4(kernel):
    c4 = _c4(kernel)
    return (c4 + c4.flip(-1)) / 2


class Lifting(nn.Module):
    """A P4 lifting layer (Cohen and Welling): a circular ``Conv2d`` whose output channels are one
    kernel in its four rotations (``rot90(k, r)``, biases alike), then the maximum over the
    rotations: invariant in the rotation axis, equivariant on the grid."""

    def __init__(self, kernel=None):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, padding_mode="circular").double()
        kernel = torch.randn(2, 3, 3, 3, dtype=F64) if kernel is None else kernel
        with torch.no_grad():
            self.conv.weight.copy_(torch.cat([torch.rot90(kernel, r, (-2, -1)) for r in range(4)]))
            self.conv.bias.copy_(torch.randn(2, dtype=F64).repeat(4))

    def forward(self, x):  # (3, H, W)
        y = self.conv(x[None])[0]
        return y.view(4, 2, *y.shape[1:]).amax(0)


def _group_kernels(kernel):
    """A P4 group convolution's weight from ``kernel`` ``(Cout, 4, Cin, k, k)``: output rotation ``r``
    reads input rotation ``s`` through ``kernel[:, s - r]`` turned ``r`` times (Cohen and Welling)."""
    cout, _, cin = kernel.shape[:3]
    rows = [torch.cat([torch.rot90(kernel[:, (s - r) % 4], r, (-2, -1)) for s in range(4)], 1) for r in range(4)]
    return torch.cat(rows).reshape(4 * cout, 4 * cin, *kernel.shape[-2:])


class GCNN(nn.Module):
    """A P4 G-CNN: the lifting layer, a group convolution over the rotations (its input channels
    move with the rotation), then the maximum over the rotations."""

    def __init__(self):
        super().__init__()
        self.lift = Lifting()
        self.group = nn.Conv2d(8, 8, 3, padding=1, padding_mode="circular").double()
        with torch.no_grad():
            self.group.weight.copy_(_group_kernels(torch.randn(2, 4, 2, 3, 3, dtype=F64)))
            self.group.bias.copy_(torch.randn(2, dtype=F64).repeat(4))

    def forward(self, x):  # (3, H, W)
        h = self.group(self.lift.conv(x[None]).relu())[0]
        return h.view(4, 2, *h.shape[1:]).amax(0)


class PaddedLifting(nn.Module):
    """The same lifting layer written by hand: the kernel's rotations made in ``forward``, the
    image padded by ``F.pad(mode="circular")``, then ``F.conv2d``."""

    def __init__(self):
        super().__init__()
        self.kernel = nn.Parameter(torch.randn(2, 3, 3, 3))

    def forward(self, x):  # (3, H, W)
        kernels = torch.cat([torch.rot90(self.kernel, k, (-2, -1)) for k in range(4)])
        y = F.conv2d(F.pad(x[None], (1, 1, 1, 1), mode="circular"), kernels)[0]
        return y.view(4, 2, *y.shape[1:]).amax(0)


class PaddedConv(nn.Module):
    """A circular convolution by ``F.pad(mode="circular")`` and ``F.conv2d`` with a given kernel."""

    def __init__(self, kernel):
        super().__init__()
        self.weight = nn.Parameter(kernel)

    def forward(self, x):  # (3, H, W)
        return F.conv2d(F.pad(x[None], (1, 1, 1, 1), mode="circular"), self.weight)[0]


class Outer(nn.Module):
    """A module around another, named ``conv`` (where a culprit is to be found)."""

    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x):
        return self.conv(x)


class D4Net(nn.Module):
    """Two circular convolutions with D4-symmetric kernels and a global mean: p4m invariant."""

    def __init__(self):
        super().__init__()
        self.one = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular").double()
        self.two = nn.Conv2d(4, 2, 3, padding=1, padding_mode="circular").double()
        with torch.no_grad():  # in float64: a kernel averaged in float32 is symmetric only to rounding
            for conv in (self.one, self.two):
                conv.weight.copy_(_d4(conv.weight))

    def forward(self, x):
        return self.two(self.one(x[None]).relu())[0].mean((-2, -1))


class D4Skip(nn.Module):
    """A D4-symmetric CNN with batch norm, a skip concatenated along the channels and a head
    over channels last, then a global mean: p4m invariant."""

    def __init__(self):
        super().__init__()
        self.one = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular").double()
        self.norm = nn.BatchNorm2d(4).double()
        self.two = nn.Conv2d(8, 4, 3, padding=1, padding_mode="circular").double()
        self.head = nn.Linear(4, 2).double()
        with torch.no_grad():
            for conv in (self.one, self.two):
                conv.weight.copy_(_d4(conv.weight))

    def forward(self, x):  # (3, H, W)
        h = self.one(x[None]).relu()
        h = self.two(torch.cat([h, self.norm(h)], 1))
        return self.head(h[0].permute(1, 2, 0)).mean((0, 1))


class PaddedEncoder(nn.Module):
    """A TransformerEncoder (``enable_nested_tensor`` on, its default) given a padding mask that
    pads nothing: in eval mode without grad, torch runs it on a nested tensor (its fast path)."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, 2, 16, batch_first=True), 2).eval()
        self.register_buffer("pad", torch.zeros(1, N, dtype=torch.bool))

    def forward(self, x):  # (1, N, D)
        return self.encoder(x, src_key_padding_mask=self.pad)


class PixelViT(nn.Module):
    """A ViT on pixels with a CLS token and no positions: invariant under every pixel permutation."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(3, 8)
        self.cls = nn.Parameter(torch.randn(1, 8))
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False)

    def forward(self, x):  # (3, H, W)
        tokens = self.embed(x.flatten(1).T)
        return self.encoder(torch.cat([self.cls, tokens])[:, None])[0, 0]


GRID = {"shape": (3, 6, 6), "points_axis": (1, 2)}


def _symmetric_conv(symmetrise):
    conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular").double()
    with torch.no_grad():
        conv.weight.copy_(symmetrise(conv.weight))
    return conv


def grid_models():
    """The p4/p4m modules of the issue: a rotation swaps the grid's axes."""
    torch.manual_seed(0)
    return [
        ("C4-symmetric circular Conv2d under p4", _symmetric_conv(_c4), "p4", GRID),
        ("D4-symmetric circular Conv2d under p4m", _symmetric_conv(_d4), "p4m", GRID),
        ("P4 lifting layer, max over rotations", Lifting(), "p4", GRID),
        ("P4 lifting layer by F.pad and conv2d", PaddedLifting().double(), "p4", GRID),
        ("P4 G-CNN: lifting, a group convolution, max over rotations", GCNN(), "p4", GRID),
        ("C4-symmetric kernel by F.pad and conv2d under p4", PaddedConv(_c4(_integers(4, 3, 3, 3))), "p4", GRID),
        ("D4-symmetric CNN with a global mean", D4Net().double(), "p4m", dict(GRID, expect="invariant")),
        (
            "D4 CNN with batch norm, a skip by cat and a head over channels last",
            D4Skip(),
            "p4m",
            dict(GRID, expect="invariant"),
        ),
        ("pixel ViT with a CLS token, no positions", PixelViT().double(), "p4", dict(GRID, expect="invariant")),
    ]


def grid_twins():
    """(name, module, group, options, culprit path): the grid models with a kernel that is not
    symmetric, or not rotated alike in every output channel."""
    torch.manual_seed(0)
    plain = nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular").double()
    d4 = D4Net().double()
    with torch.no_grad():
        d4.one.weight[0, 0, 0, 1] += 0.5
    lifting = Lifting()
    with torch.no_grad():
        lifting.conv.weight[3, 0, 0, 0] += 0.5
    padded = _c4(_integers(4, 3, 3, 3))
    padded[1, 2, 0, 1] += 0.5
    return [
        ("a circular Conv2d with a kernel that is not symmetric, under p4", plain, "p4", GRID, ""),
        ("C4 kernel by F.pad and conv2d, one entry off, under p4", Outer(PaddedConv(padded)), "p4", GRID, "conv"),
        ("D4 CNN, one kernel entry off", d4, "p4m", dict(GRID, expect="invariant"), "one"),
        ("P4 lifting layer, one rotated kernel off", lifting, "p4", GRID, "conv"),
    ]
