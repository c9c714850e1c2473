"""Values of given inputs that a generator leaves as they are are constants of its proof
(gdlcheck/code/prover/held.py): HEATConv checks whether its node types are sorted, slices of the nodes'
axis read into Python.  Types all alike are the same after any permutation: proved.  Types that
differ can be sorted by a relabelling, and the code then takes the other path: never proved."""

import pytest
import torch

import gdlcheck

N, D = 6, 3


class SortedOrNot(torch.nn.Module):
    """Doubles its output where the node types are not sorted (HeteroLinear's check, made visible)."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(D, D, dtype=torch.float64))

    def forward(self, x, types):
        y = x @ self.w
        return 2 * y if bool((types[1:] < types[:-1]).any()) else y


class PerType(torch.nn.Module):
    """Reads how many nodes come before each type (an operation without a rule: HEATConv's
    ``index2ptr``) and scales by the count of the first type."""

    def forward(self, x, types):
        ptr = torch._convert_indices_from_coo_to_csr(types, 2)
        return x * int(ptr[1])


def verdict(module, types):
    torch.manual_seed(0)
    return gdlcheck.verify_callable(
        module, "symmetric", shape=(N, D), method="exact", inputs=["points", gdlcheck.points(types)]
    ).verdict


@pytest.mark.parametrize("module", [SortedOrNot(), PerType()], ids=["refused rule", "no rule"])
def test_types_all_alike_are_constants_of_every_permutation(module):
    assert verdict(module, torch.zeros(N, dtype=torch.long)) == "holds"


@pytest.mark.parametrize("types", [torch.arange(N) % 2, torch.tensor([0, 0, 0, 1, 1, 1])], ids=["unsorted", "sorted"])
def test_types_a_relabelling_changes_are_not(types):
    # sorted types: the transposition (2 3) unsorts them and doubles the output, which the trials see
    assert verdict(SortedOrNot(), types) == "inconclusive"
