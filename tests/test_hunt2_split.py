"""Second soundness hunt: ``tensor_split`` by a 1-D tensor of indices reads them in C++ through a
pointer, with no operation dispatched, then slices at constant bounds; ``torch.tensor([k, 1])``
(``as_tensor``, ``asarray``, ``new_tensor``) copies a 0-d ``k`` with the Python dispatch key off.

With indices counted from the points' own values (how many have a zero first coordinate), the
proof's draw and its moved call read the same count, and ``k == 0`` was proved; an input with a
zero takes the other path: a wrong ``holds``."""

import pytest

torch = pytest.importorskip("torch")

from hunt2_points import a_zero_breaks_the_symmetry  # noqa: E402

import gdlcheck  # noqa: E402

N, D = 6, 3
GROUP = gdlcheck.group(generators=["(0 1)", "(2 3 4 5)"], n=N)

SPLITS = {
    "torch.tensor_split": lambda x, at: torch.tensor_split(x, at),
    "Tensor.tensor_split": lambda x, at: x.tensor_split(at),
    "torch._C._VariableFunctions": lambda x, at: torch._C._VariableFunctions.tensor_split(x, at),
    "torch.tensor": lambda x, at: torch.tensor_split(x, torch.tensor([at[0]])),
    "torch.as_tensor": lambda x, at: torch.tensor_split(x, torch.as_tensor([at[0]])),
    "torch.asarray": lambda x, at: torch.tensor_split(x, torch.asarray((at[0],))),
    "Tensor.new_tensor": lambda x, at: torch.tensor_split(x, at.new_tensor([at[0]])),
}


class SplitsAtACount(torch.nn.Module):
    def __init__(self, split):
        super().__init__()
        self.split = split

    def forward(self, x):
        at = (x[:, 0] == 0).long().sum(0, keepdim=True)
        return x if self.split(x, at)[0].shape[0] == 0 else x.flip(0)


class SplitsAtConstants(torch.nn.Module):
    def forward(self, x):
        first, rest = torch.tensor_split(x, torch.tensor([N]))
        return first * 2 + rest.sum()


@pytest.mark.parametrize("split", SPLITS.values(), ids=SPLITS.keys())
def test_a_point_with_a_zero_breaks_the_symmetry(split):
    assert a_zero_breaks_the_symmetry(SplitsAtACount(split), N, D)


@pytest.mark.parametrize("split", SPLITS.values(), ids=SPLITS.keys())
def test_split_indices_from_the_points_stop_the_proof(split):
    result = gdlcheck.verify_callable(SplitsAtACount(split), GROUP, shape=(N, D), method="exact")
    assert result.verdict != "holds"
    assert not any(result.proof.proven.values())
    assert "with no operation" in str(result.proof.stops)


def test_split_indices_that_are_constants_are_followed_and_the_functions_put_back():
    held = (
        torch.tensor_split,
        vars(torch._C.TensorBase)["tensor_split"],
        vars(torch._C._VariableFunctionsClass)["tensor_split"],
    )
    result = gdlcheck.verify_callable(SplitsAtConstants(), GROUP, shape=(N, D), method="exact")
    assert result.verdict == "holds"
    assert (
        torch.tensor_split,
        vars(torch._C.TensorBase)["tensor_split"],
        vars(torch._C._VariableFunctionsClass)["tensor_split"],
    ) == held
