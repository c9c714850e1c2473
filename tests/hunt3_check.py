"""What the third soundness hunt's tests share: the sizes each module is checked at (n = 8, and
past ``auto``'s trial threshold, n x d > 4096, where ``auto`` runs no trials), and a float64
check of whether a module commutes with a permutation."""

import numpy as np
import torch

import gdlcheck

SIZES = [(8, 3), (1025, 4)]
METHODS = ["exact", "auto"]


def commutes(module, perm, x) -> bool:
    """``module(x[perm^-1]) == module(x)[perm^-1]`` in float64 (the points moved by ``perm``)."""
    index = torch.as_tensor(np.argsort(np.asarray(perm)))
    with torch.no_grad():
        return bool(torch.allclose(module(x[index]), module(x)[index]))


def points(n: int, d: int, seed: int = 0, zero: bool = False):
    """Random float64 points; with ``zero``, point 2 has a zero first coordinate."""
    x = torch.randn(n, d, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))
    if zero:
        x[2, 0] = 0.0
    return x


def a_zero_breaks_the_symmetry(module, n: int = 8, d: int = 3) -> bool:
    """Commutes with a transposition and a random permutation on generic points, not with the
    random permutation once point 2 has a zero first coordinate."""
    perm = np.random.default_rng(1).permutation(n)
    swap = [1, 0, *range(2, n)]
    generic = points(n, d)
    return (
        commutes(module, swap, generic)
        and commutes(module, perm, generic)
        and not commutes(module, perm, points(n, d, zero=True))
    )


def verdict(module, size, method, group="symmetric", **kwargs) -> str:
    n, d = size
    return gdlcheck.verify_callable(module, group, shape=(n, d), method=method, **kwargs).verdict
