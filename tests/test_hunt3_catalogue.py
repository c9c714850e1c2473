"""Third soundness hunt, the modules that did not find a wrong ``holds``, kept as a net: each reads
a count of the points' own values (how many have a zero first coordinate: 0 on random points) by
one more route into Python, a shape or a constructor, and takes another path when it is not 0.
None may be proved, with ``exact`` or ``auto``, at n = 8 or past ``auto``'s trial threshold."""

import io
import math
import pickle
import struct

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from hunt3_check import METHODS, SIZES, a_zero_breaks_the_symmetry, verdict  # noqa: E402

pytestmark = pytest.mark.slow


def count(x):
    return (x[:, 0] == 0).long().sum()


def _saved(k):
    buffer = io.BytesIO()
    torch.save(k, buffer)
    buffer.seek(0)
    return torch.load(buffer)


READS = {
    "int": lambda x, k: int(k),
    "float": lambda x, k: float(k),
    "__index__": lambda x, k: k.__index__(),
    "bool in a comprehension": lambda x, k: sum(bool(v == 0) for v in x[:, 0]),
    "torch.Size": lambda x, k: torch.Size([k])[0],
    "range": lambda x, k: len(range(k)),
    "split by a list of 0-d tensors": lambda x, k: torch.split(x, [k, x.shape[0] - k])[0].shape[0],
    "repeat_interleave": lambda x, k: x.repeat_interleave(k + 1, dim=0).shape[0] - x.shape[0],
    "full with a tensor fill": lambda x, k: int(torch.full((2,), k).sum()),
    "arange": lambda x, k: torch.arange(k).shape[0],
    "F.pad": lambda x, k: F.pad(x, (0, 0, 0, k)).shape[0] - x.shape[0],
    "format": lambda x, k: int(f"{k}".split("(")[-1].rstrip(")")),
    "str": lambda x, k: 0 if "(0)" in str(k) else 1,
    "np.asarray": lambda x, k: int(np.asarray(k)),
    "np.float64": lambda x, k: np.float64(k),
    "a slice x[:k]": lambda x, k: x[:k].shape[0],
    "zeros(k)": lambda x, k: torch.zeros(k).shape[0],
    "view(k + 1, -1)": lambda x, k: x.reshape(-1)[: 4 * (k + 1)].view(k + 1, -1).shape[0] - 1,
    "torch.Tensor(k, 2)": lambda x, k: torch.Tensor(k, 2).shape[0],
    "x.new(k, 2)": lambda x, k: x.new(k, 2).shape[0],
    "eye(k)": lambda x, k: torch.eye(k).shape[0],
    "struct": lambda x, k: struct.unpack("d", struct.pack("d", k))[0],
    "math.floor": lambda x, k: math.floor(k),
    "pickle": lambda x, k: pickle.loads(pickle.dumps(k)),
    "torch.save": lambda x, k: _saved(k),
    "memoryview": lambda x, k: bytes(memoryview(k.numpy()))[0],
    "torch.ops.aten._local_scalar_dense": lambda x, k: torch.ops.aten._local_scalar_dense(k),
    "to_sparse's nnz": lambda x, k: x.numel() - x.to_sparse()._nnz(),
    "DLPack": lambda x, k: int(torch.from_dlpack(k)),
    "storage[0]": lambda x, k: k.untyped_storage()[0],
    "cpu().numpy().item()": lambda x, k: k.cpu().numpy().item(),
}


class TakesAnotherPath(torch.nn.Module):
    def __init__(self, read):
        super().__init__()
        self.read = read

    def forward(self, x):
        return x if self.read(x, count(x)) == 0 else x.flip(0)


@pytest.mark.parametrize("read", READS.values(), ids=READS.keys())
def test_a_point_with_a_zero_breaks_the_symmetry(read):
    assert a_zero_breaks_the_symmetry(TakesAnotherPath(read))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("read", READS.values(), ids=READS.keys())
def test_a_count_of_the_points_read_by_any_route_is_never_proved(read, method, size):
    assert verdict(TakesAnotherPath(read), size, method) != "holds"
