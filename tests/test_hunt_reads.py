"""Soundness hunt: the shape of an output whose length depends on the values, read into Python.

``torch.unique_consecutive`` has no rule, and torch tags it with a dynamic output shape (not
``data_dependent_output``): its output was not known, but reading its length (``numel``,
``len``, ``shape``), which dispatches no operation, did not stop the proof.  For given values
that a generator moves, runs of equal values may split: the length differs, and the module
below was said to hold under (0 1) and (2 3 4 5), though (2 3 4 5) breaks the runs."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402

N, D = 6, 3
RUNS = torch.tensor([1.0, 1.0, 2.0, 2.0, 3.0, 3.0], dtype=torch.float64)  # three runs; (2 3 4 5) makes four
GROUP = groups.build_group("generators", n=N, generators=[[1, 0, 2, 3, 4, 5], [0, 1, 3, 4, 5, 2]])


class RunCount(torch.nn.Module):
    """Scales the points by the number of runs of equal values in a given vector."""

    def __init__(self, read):
        super().__init__()
        self.read = read

    def forward(self, x, w):
        return x * self.read(torch.unique_consecutive(w))


READS = {"numel": lambda t: t.numel(), "len": len, "shape": lambda t: t.shape[0]}


def commutes(module, perm) -> bool:
    x = torch.randn(N, D, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    index = torch.as_tensor(np.argsort(np.asarray(perm)))
    return bool(torch.allclose(module(x[index], RUNS[index]), module(x, RUNS)[index]))


def test_the_run_count_does_not_commute_with_a_generator():
    assert commutes(RunCount(len), [1, 0, 2, 3, 4, 5])
    assert not commutes(RunCount(len), [0, 1, 3, 4, 5, 2])


@pytest.mark.parametrize("read", READS.values(), ids=READS.keys())
def test_the_length_of_a_dynamic_shape_output_not_known_stops_the_proof(read):
    result = gdlcheck.verify_callable(
        RunCount(read), GROUP, shape=(N, D), method="exact", inputs=["points", gdlcheck.points(RUNS)]
    )
    assert result.verdict != "holds"
    assert not result.proof.proven["(2 3 4 5)"]
