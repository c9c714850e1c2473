"""Node labels offset in place (HGTConv's ``construct_bipartite_edge_index``: ``edge_index[0] +=
src_offset``): with one node type the offset is 0, and the row written back through its
``select`` view holds the same labels (gdlcheck/code/prover/rules/offsets.py, code/prover/regions.py).  Any
other offset, or a row of constants written into the labels, is not proved."""

import pytest
import torch

import gdlcheck

N, D = 7, 3


def ring():
    i = torch.arange(N)
    return torch.stack([torch.cat([i, (i + 1) % N]), torch.cat([(i + 1) % N, i])])


class Shifted(torch.nn.Module):
    """Sums each node's in-neighbours' features after shifting the sources' labels in place."""

    def __init__(self, how):
        super().__init__()
        self.how = how

    def forward(self, x, edge_index):
        ei = edge_index.clone()
        if self.how == "zero":
            ei[0] += 0
        elif self.how == "tensor zero":
            ei[1] += torch.zeros((), dtype=ei.dtype)
        elif self.how == "float zero":  # labels made floats: no longer labels
            return torch.zeros_like(x).index_add_(0, ei[1], x.index_select(0, (ei[0] + 0.0).long()))
        elif self.how == "one":
            ei[0] = (ei[0] + 1) % N
        else:  # every source is node 0
            ei[0] = 0
        return torch.zeros_like(x).index_add_(0, ei[1], x.index_select(0, ei[0]))


@pytest.mark.parametrize(
    "how, holds", [("zero", True), ("tensor zero", True), ("float zero", False), ("one", False), ("constant", False)]
)
def test_labels_offset_by_zero_are_the_labels(how, holds):
    torch.manual_seed(0)
    r = gdlcheck.verify_callable(Shifted(how), "symmetric", shape=(N, D), graph=ring(), method="exact")
    assert (r.verdict == "holds") == holds, r.notes
    if not holds:
        assert r.verdict == "inconclusive"
