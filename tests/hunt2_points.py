"""What the second soundness hunt's modules that branch on a point with a zero share: a float64
check that they commute with (0 1) on generic points and not once a point has a zero."""

import numpy as np
import torch

SWAP = [1, 0, 2, 3, 4, 5]


def commutes(module, perm, x) -> bool:
    index = torch.as_tensor(np.argsort(np.asarray(perm)))
    return bool(torch.allclose(module(x[index]), module(x)[index]))


def a_zero_breaks_the_symmetry(module, n: int, d: int) -> bool:
    """Commutes with (0 1) on generic points, not once point 2 has a zero first coordinate."""
    x = torch.randn(n, d, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    generic = commutes(module, SWAP, x)
    x[2, 0] = 0.0
    return generic and not commutes(module, SWAP, x)
