"""Soundness hunt: ``index_put`` with ``accumulate`` at a constant index, of rows that move.

``T.index_put((idx,), V, accumulate=True)`` adds ``V``'s rows to ``T``'s rows ``idx``: where ``V``'s
rows move by ``p``, the written rows move by ``r`` (``r[idx[k]] = idx[p[k]]``) only if ``T``'s own
rows there are fixed by ``r``.  The rule did not ask it, and a constant base that one generator
moves was proved."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402

N, D = 6, 3
GROUP = groups.build_group("generators", n=N, generators=[[1, 0, 2, 3, 4, 5], [0, 1, 3, 4, 5, 2]])
COLUMN = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0]  # fixed by (0 1) and (0 1)(2 4)(3 5), not by (2 3 4 5)


class AddedInto(torch.nn.Module):
    def __init__(self, base):
        super().__init__()
        self.base = base

    def forward(self, x):
        table = torch.tensor(self.base, dtype=x.dtype).unsqueeze(1).repeat(1, D)
        return table.index_put((torch.arange(N),), x, accumulate=True)


def commutes(module, perm) -> bool:
    x = torch.randn(N, D, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    index = torch.as_tensor(np.argsort(np.asarray(perm)))
    return bool(torch.allclose(module(x[index]), module(x)[index]))


def test_rows_added_to_a_base_that_a_generator_moves_are_not_proved():
    module = AddedInto(COLUMN)
    assert not commutes(module, [0, 1, 3, 4, 5, 2])
    result = gdlcheck.verify_callable(module, GROUP, shape=(N, D), method="exact")
    assert result.verdict != "holds"
    assert not result.proof.proven["(2 3 4 5)"]
    assert result.proof.proven["(0 1)"]


def test_rows_added_to_a_base_every_generator_keeps_stay_proved():
    module = AddedInto([1.0] * N)
    assert commutes(module, [0, 1, 3, 4, 5, 2])
    assert gdlcheck.verify_callable(module, GROUP, shape=(N, D), method="exact").verdict == "holds"
