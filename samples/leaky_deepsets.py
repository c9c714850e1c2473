"""A DeepSets model with a per-position leak, for ``gdlcheck measure`` (docs/measure.md).

``samples/leaky-deepsets.safetensors`` holds its weights after a short training on a target that
depends on the first element of each set, so the leak (a scale per position) learned to break
the permutation symmetry; ``samples/sets.npy`` is a batch of 16 sets of 6 points in 2-D.
"""

import torch
from torch import nn


class PosLeak(nn.Module):
    """A scale per position: permutation equivariant only while ``pos`` is the same on every row."""

    def __init__(self, n=6, h=16):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(n, h))

    def forward(self, x):
        return x * (1 + self.pos)


class LeakyDeepSets(nn.Module):
    def __init__(self, d=2, h=16):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h))
        self.leak = PosLeak(6, h)
        self.rho = nn.Sequential(nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))

    def forward(self, x):
        return self.rho(self.leak(self.phi(x)).sum(-2))
