"""Layers written as plain Python, for ``gdlcheck verify --callable`` (run from this folder).

    cd samples
    gdlcheck verify --callable mylayers:centred --input-shape 6x2 --group symmetric   # passes
    gdlcheck verify --callable mylayers:cumsum --input-shape 6x2 --group cyclic       # fails
    gdlcheck verify --callable mylayers:TorchDeepSets --input-shape 5x3 --group symmetric  # needs torch

Importing this module does not need torch: the torch layer is built only when asked for.
"""

import numpy as np


def centred(X):
    """Subtract the mean over the set: ``Y = X - 1 mean(X)``, permutation equivariant."""
    return X - X.mean(axis=0)


def cumsum(X):
    """The running sum over the points: depends on their order, so not even shift equivariant."""
    return np.cumsum(X, axis=0)


def total(X):
    """Sum pooling over the set: an invariant output (``--expect invariant``)."""
    return X.sum(axis=0)


def broken(X):
    """A layer with a bug: raises on every input."""
    raise ValueError("shapes (6,2) and (3,3) not aligned")


def TorchDeepSets():
    """A factory (no arguments): a DeepSets layer ``Y = X Lambda + 1 1^T X Gamma`` in PyTorch."""
    import torch

    class DeepSets(torch.nn.Module):
        def __init__(self, d_in=3, d_out=4):
            super().__init__()
            torch.manual_seed(0)
            self.own = torch.nn.Linear(d_in, d_out)
            self.pooled = torch.nn.Linear(d_in, d_out, bias=False)

        def forward(self, X):
            return self.own(X) + self.pooled(X.sum(dim=0, keepdim=True))

    return DeepSets()
