"""Second soundness hunt: ``t.data = other`` swaps a tensor's memory with no operation dispatched.

The walk still said ``y = x * 2`` held the points' values moved like them, while it held a
constant column that a generator (2 3 4 5) does not keep: a wrong ``holds``."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

N, D = 6, 4
GROUP = gdlcheck.group(generators=["(0 1)", "(2 3 4 5)"], n=N)
COLUMN = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0]  # kept by (0 1), not by (2 3 4 5)


def constant():
    return torch.tensor(COLUMN, dtype=torch.float64)[:, None].expand(N, D).clone()


class SetsData(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        y.data = constant()
        return y


class SetsDataThroughTheDescriptor(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        torch._C.TensorBase.data.__set__(y, constant())
        return y


MODULES = [SetsData, SetsDataThroughTheDescriptor]


def commutes(module, perm) -> bool:
    x = torch.randn(N, D, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    index = torch.as_tensor(np.argsort(np.asarray(perm)))
    return bool(torch.allclose(module(x[index]), module(x)[index]))


@pytest.mark.parametrize("module", MODULES)
def test_the_swapped_memory_does_not_commute_with_a_generator(module):
    assert commutes(module(), [1, 0, 2, 3, 4, 5])
    assert not commutes(module(), [0, 1, 3, 4, 5, 2])


@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("module", MODULES)
def test_setting_data_stops_the_proof(module, method):
    result = gdlcheck.verify_callable(module(), GROUP, shape=(N, D), method=method)
    assert result.verdict != "holds"
    if method == "exact":
        assert not any(result.proof.proven.values())
        assert "sets a tensor's .data" in str(result.proof.stops)


def test_data_is_put_back_after_the_proof():
    descriptor = vars(torch._C.TensorBase)["data"]
    gdlcheck.verify_callable(SetsData(), GROUP, shape=(N, D), method="exact")
    assert vars(torch._C.TensorBase)["data"] is descriptor
    y = torch.zeros(2)
    y.data = torch.ones(3)
    assert y.tolist() == [1.0, 1.0, 1.0]
