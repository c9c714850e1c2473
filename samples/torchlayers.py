"""PyTorch and PyG layers as they are written, for ``gdlcheck verify --callable`` (run from this folder).

    cd samples
    gdlcheck verify --callable torchlayers:conv1d --input-shape 3x16 --group cyclic --points-axis -1
    gdlcheck verify --callable torchlayers:attention --input-shape 6x8 --group symmetric \\
        --input points --input points --input points --output points --output pairs
    gdlcheck verify --callable torchlayers:gcn --input-shape 8x4 --graph ring-edges.csv --group symmetric
    gdlcheck verify --callable torchlayers:gcn --input-shape 8x4 --graph ring-edges.csv \\
        --group automorphisms --input points --input fixed
    gdlcheck verify --callable torchlayers:encoder --input-shape 8x2x16 --group symmetric
    gdlcheck verify --callable torchlayers:median_centred --input-shape 6x4 --group symmetric --method exact

Each name is a factory (no arguments): torch and torch_geometric are imported only when one
is called, so importing this module needs neither.  ``ring-edges.csv`` is the edge_index of
the 8-cycle, both directions of every edge (2 x 16 node labels).
"""


def conv1d():
    """A circular 1-D convolution, 3 -> 4 channels: reads ``(C, L)``, its points are the L positions."""
    import torch

    torch.manual_seed(0)
    return torch.nn.Conv1d(3, 4, 3, padding=1, padding_mode="circular")


def attention():
    """``torch.nn.MultiheadAttention(8, 2)``: ``(query, key, value) -> (out, weights)``."""
    import torch

    torch.manual_seed(0)
    return torch.nn.MultiheadAttention(8, 2)


def gcn():
    """PyG's ``GCNConv(4, 3)``: ``(x, edge_index) -> out``."""
    import torch
    from torch_geometric.nn import GCNConv

    torch.manual_seed(0)
    return GCNConv(4, 3)


def encoder():
    """``torch.nn.TransformerEncoder``: 2 layers, d_model 16, ``(n, B, d) -> (n, B, d)``; proved by its trace."""
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32)
    return torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()


class _MedianCentred:
    """A Linear map, then each point's features less their median: equivariant, but median has no rule."""

    def __new__(cls):
        import torch

        class MedianCentred(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = torch.nn.Linear(4, 4)

            def forward(self, x):
                h = self.linear(x)
                return h - h.median(dim=-1, keepdim=True).values

        torch.manual_seed(0)
        return MedianCentred().eval()


def median_centred():
    """``Linear(4, 4)`` then each point less its features' median: commutes with the points, not
    proven (``median`` has no rule)."""
    return _MedianCentred()
