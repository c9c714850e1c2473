"""Soundness hunt: constant writes into a view of a container that already holds moving values.

A container the call made and filled block by block (``base[:, :2] = x[:, :2]``) gets the moves of
a ``cat`` of its blocks, its constant cells checked at that write.  A later write of constants
through a view of the same storage (made before the fill, apart from the block, so it stayed a
constant) changes those cells: the container's moves are then no longer known.  Before the fix
the write was taken to change constants only, and the module below was said to hold."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402

N, D = 6, 4
# (0 1) and (2 3 4 5): the column written below is fixed by (0 1) and by (0 1)(2 4)(3 5), not by (2 3 4 5)
GROUP = groups.build_group("generators", n=N, generators=[[1, 0, 2, 3, 4, 5], [0, 1, 3, 4, 5, 2]])
COLUMN = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0]


class LateConstantWrite(torch.nn.Module):
    """Fills two columns with the points, then writes a constant column through a view made before."""

    def forward(self, x):
        base = torch.zeros(N, D, dtype=x.dtype)
        rest = base[:, 2:]
        base[:, :2] = x[:, :2]
        rest[:, 0] = torch.tensor(COLUMN, dtype=x.dtype)
        return base


class LateConstantAdd(torch.nn.Module):
    """The same through an in-place add of a constant table."""

    def forward(self, x):
        base = torch.zeros(N, D, dtype=x.dtype)
        rest = base[:, 2:]
        base[:, :2] = x[:, :2]
        rest.add_(torch.arange(2.0 * N, dtype=x.dtype).reshape(N, 2))
        return base


def commutes(module, perm) -> bool:
    x = torch.randn(N, D, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    index = torch.as_tensor(np.argsort(np.asarray(perm)))
    return bool(torch.allclose(module(x[index]), module(x)[index]))


def test_the_late_constant_write_does_not_commute_with_a_generator():
    assert not commutes(LateConstantWrite(), [0, 1, 3, 4, 5, 2])
    assert not commutes(LateConstantAdd(), [0, 1, 3, 4, 5, 2])


@pytest.mark.parametrize("module", [LateConstantWrite(), LateConstantAdd()])
def test_a_constant_written_into_a_filled_container_stops_its_proof(module):
    result = gdlcheck.verify_callable(module, GROUP, shape=(N, D), method="exact")
    assert result.verdict != "holds"
    assert not result.proof.proven["(2 3 4 5)"]


def test_without_the_moved_call_the_proof_itself_does_not_hold(monkeypatch):
    """The proof, not the moved call's cross-check, must refuse it (a random element may commute)."""
    from gdlcheck.code.prover import prove

    monkeypatch.setattr(prove, "_moved_call", lambda *args, **kwargs: None)
    for module in (LateConstantWrite(), LateConstantAdd()):
        result = gdlcheck.verify_callable(module, GROUP, shape=(N, D), method="exact")
        assert result.verdict != "holds"


class FilledThenRead(torch.nn.Module):
    """Still proved: the container filled whole by blocks, no write after (equivariant)."""

    def forward(self, x):
        base = torch.zeros(N, D, dtype=x.dtype)
        base[:, :2] = x[:, :2]
        base[:, 2:] = 2 * x[:, 2:]
        return base


def test_a_container_filled_by_moving_blocks_is_still_proved():
    assert commutes(FilledThenRead(), [0, 1, 3, 4, 5, 2])
    assert gdlcheck.verify_callable(FilledThenRead(), GROUP, shape=(N, D), method="exact").verdict == "holds"
