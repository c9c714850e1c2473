"""Third soundness hunt: memory no operation wrote.  ``torch.empty``, ``new_empty`` and
``empty_like`` hand out memory as it is: after ``y = x[:1] * 2; del y`` the allocator may give
back ``y``'s cells, so ``x + torch.empty(1, d)`` may be ``x + 2 x[0]``, which no permutation
that moves point 0 keeps.  The walk took such a tensor for a constant (of the shape only) and
proved the module; the moved call caught it only where its element moved point 0.  What the
memory holds is the allocator's choice, so no float64 check here can make it break on demand:
the proof must not rest on it, whatever it holds."""

import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, verdict  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck.errors import LayerError  # noqa: E402

MAKE = {
    "torch.empty": lambda x: torch.empty(1, x.shape[1], dtype=x.dtype),
    "new_empty": lambda x: x.new_empty(1, x.shape[1]),
    "empty_like": lambda x: torch.empty_like(x[:1]),
    "empty_strided": lambda x: torch.empty_strided((1, x.shape[1]), (x.shape[1], 1), dtype=x.dtype),
    "torch.Tensor(1, d)": lambda x: torch.Tensor(1, x.shape[1]).to(x.dtype),
}


class AddsUnwrittenMemory(torch.nn.Module):
    def __init__(self, make):
        super().__init__()
        self.make = make

    def forward(self, x):
        y = x[:1] * 2
        del y  # its cells are free: the next allocation of that size may get them
        return x + self.make(x)


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("make", MAKE.values(), ids=MAKE.keys())
def test_memory_no_operation_wrote_is_never_proved(make, method, size):
    try:
        assert verdict(AddsUnwrittenMemory(make), size, method) != "holds"
    except LayerError as err:  # the memory held an inf or a NaN: the trials refuse the output, nothing is proved
        assert "not finite" in str(err), err


@pytest.mark.parametrize("make", MAKE.values(), ids=MAKE.keys())
def test_the_note_names_the_unwritten_memory(make):
    result = gdlcheck.verify_callable(AddsUnwrittenMemory(make), "symmetric", shape=(8, 3), method="exact")
    assert not any(result.proof.proven.values())
    assert "memory no operation wrote" in str(result.proof.stops)


WRITTEN = {
    "copy_": lambda x: torch.empty_like(x).copy_(x * 2),
    "zero_": lambda x: x.new_empty(x.shape).zero_() + x,
    "fill_": lambda x: torch.empty(x.shape, dtype=x.dtype).fill_(2.0) * x,
    "out=": lambda x: torch.mul(x, 2, out=torch.empty(0, dtype=x.dtype)),
    "cat out=": lambda x: torch.cat([x, x], 1, out=torch.empty(x.shape[0], 2 * x.shape[1], dtype=x.dtype)),
}


class WritesItWhole(torch.nn.Module):
    def __init__(self, make):
        super().__init__()
        self.make = make

    def forward(self, x):
        return self.make(x)


@pytest.mark.parametrize("make", WRITTEN.values(), ids=WRITTEN.keys())
def test_memory_written_whole_before_it_is_read_stays_proved(make):
    assert verdict(WritesItWhole(make), (8, 3), "exact") == "holds"
