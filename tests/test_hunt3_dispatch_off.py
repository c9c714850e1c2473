"""Third soundness hunt: a count of the points computed and read with torch's dispatch turned off
by the code (``_disable_current_modes``, ``no_dispatch``, ``torch._C._DisableTorchDispatch``,
the Python dispatch key excluded).  The walk saw none of the operations, took the count for a
tensor made outside the call (a constant), and let the code read it; the moved call reads the
same count, so a branch on it was proved.  A value read with the dispatch off must now come from
a tensor the walk knows."""

import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, a_zero_breaks_the_symmetry, verdict  # noqa: E402
from torch.utils._mode_utils import no_dispatch  # noqa: E402
from torch.utils._python_dispatch import _disable_current_modes  # noqa: E402

import gdlcheck  # noqa: E402


def _excluded():
    return torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python))


OFF = {
    "_disable_current_modes, item": (_disable_current_modes, lambda k: k.item()),
    "_disable_current_modes, int": (_disable_current_modes, int),
    "_disable_current_modes, tolist": (_disable_current_modes, lambda k: k.tolist()),
    "no_dispatch": (no_dispatch, lambda k: k.item()),
    "_DisableTorchDispatch": (torch._C._DisableTorchDispatch, lambda k: k.item()),
    "Python key excluded": (_excluded, float),
}


class CountsOutOfSight(torch.nn.Module):
    def __init__(self, off, read):
        super().__init__()
        self.off, self.read = off, read

    def forward(self, x):
        with self.off():
            k = self.read((x[:, 0] == 0).long().sum())
        return x if k == 0 else x.flip(0)


@pytest.mark.parametrize("args", OFF.values(), ids=OFF.keys())
def test_a_point_with_a_zero_breaks_the_symmetry(args):
    assert a_zero_breaks_the_symmetry(CountsOutOfSight(*args))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("args", OFF.values(), ids=OFF.keys())
def test_a_value_read_with_the_dispatch_off_is_never_proved(args, method, size):
    assert verdict(CountsOutOfSight(*args), size, method) != "holds"


@pytest.mark.parametrize("args", OFF.values(), ids=OFF.keys())
def test_the_note_says_the_dispatch_was_off(args):
    result = gdlcheck.verify_callable(CountsOutOfSight(*args), "symmetric", shape=(8, 3), method="exact")
    assert "with torch's dispatch turned off" in str(result.proof.stops)


class ReadsItsBufferOutOfSight(torch.nn.Module):
    """A buffer read with the dispatch off: the walk knows it (a constant), so it stays proved."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(2.0, dtype=torch.float64))

    def forward(self, x):
        with _disable_current_modes():
            s = self.scale.item()
        return x * s


def test_a_buffer_read_with_the_dispatch_off_stays_proved():
    assert verdict(ReadsItsBufferOutOfSight(), (8, 3), "exact") == "holds"
