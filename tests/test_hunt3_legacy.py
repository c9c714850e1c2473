"""Third soundness hunt: torch's legacy constructors (``torch.LongTensor([k])``, ``torch.Tensor``,
``FloatTensor``, ``x.new``, ...) read a 0-d tensor inside a list through its number protocol
(``__index__``, ``__float__``) with the Python dispatch key off: the walk never saw the read.

With ``k`` a count of the points' own values (how many have a zero first coordinate), the proof's
draw and its moved call read the same count, and a split at it was proved; an input with a zero
takes the other path: a wrong ``holds``.  The same for ``torch.tensor`` and ``tensor_split`` bound
to other names before the call, which a patch of torch's module attributes does not reach."""

import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, a_zero_breaks_the_symmetry, verdict  # noqa: E402
from torch import as_tensor, tensor_split  # noqa: E402  (bound before any proof)

import gdlcheck  # noqa: E402

T = torch.tensor
SPLIT = torch.Tensor.tensor_split

AT = {
    "LongTensor": lambda x, k: torch.LongTensor([k]),
    "IntTensor": lambda x, k: torch.IntTensor([k]).long(),
    "Tensor": lambda x, k: torch.Tensor([k]).long(),
    "FloatTensor": lambda x, k: torch.FloatTensor([k]).long(),
    "DoubleTensor": lambda x, k: torch.DoubleTensor([[k]])[0].long(),
    "ByteTensor": lambda x, k: torch.ByteTensor([k]).long(),
    "x.new": lambda x, k: x.new([k]).long(),
    "Tensor.new": lambda x, k: torch.Tensor.new(x, [k]).long(),
    "x.new, a float": lambda x, k: x.new([k.double()]).long(),
    "tensor bound as T": lambda x, k: T([k]),
    "as_tensor bound": lambda x, k: as_tensor((k,)),
}
SPLITS = {
    "tensor_split bound": lambda x, at: tensor_split(x, at),
    "Tensor.tensor_split bound": lambda x, at: SPLIT(x, at),
}


class SplitsAtACount(torch.nn.Module):
    def __init__(self, at, split=torch.tensor_split):
        super().__init__()
        self.at, self.split = at, split

    def forward(self, x):
        k = (x[:, 0] == 0).long().sum()
        at = self.at(x, k)
        return x if self.split(x, at)[0].shape[0] == 0 else x.flip(0)


MODULES = {
    **{name: (at,) for name, at in AT.items()},
    **{name: (lambda x, k: k.reshape(1), split) for name, split in SPLITS.items()},
}


@pytest.mark.parametrize("args", MODULES.values(), ids=MODULES.keys())
def test_a_point_with_a_zero_breaks_the_symmetry(args):
    assert a_zero_breaks_the_symmetry(SplitsAtACount(*args))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("args", MODULES.values(), ids=MODULES.keys())
def test_a_count_of_the_points_read_by_a_constructor_is_never_proved(args, method, size):
    assert verdict(SplitsAtACount(*args), size, method) != "holds"


@pytest.mark.parametrize("args", MODULES.values(), ids=MODULES.keys())
def test_the_note_says_where_the_value_is_read(args):
    result = gdlcheck.verify_callable(SplitsAtACount(*args), "symmetric", shape=(8, 3), method="exact")
    assert not any(result.proof.proven.values())
    assert "that depend" in str(result.proof.stops) and "with no operation" in str(result.proof.stops)


class ConstantsThroughConstructors(torch.nn.Module):
    """The same constructors given constants: followed, and an equivariant module stays proved."""

    def forward(self, x):
        n = torch.tensor(x.shape[0])
        scale = torch.Tensor([n]) + torch.LongTensor([n]) + x.new([n]) + T([n])
        return x * scale / (4 * x.shape[0]) + tensor_split(x, torch.tensor([x.shape[0]]))[0]


@pytest.mark.parametrize("method", METHODS)
def test_constructors_of_constants_stay_proved(method):
    assert verdict(ConstantsThroughConstructors(), (8, 3), method) == "holds"
