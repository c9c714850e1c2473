"""Second soundness hunt: the length of ``nonzero`` (and ``argwhere``, ``torch.where(mask)``) of
the points' own values, read into Python.

``nonzero`` has a rule for its moves, so the check that stops where a value-shaped output's length
depends on the random points skipped it: ``k = torch.nonzero(x[:, 0]).shape[0]`` is 6 for the
proof's draw, and the moved call keeps the count, but an input with a zero takes another path."""

import pytest

torch = pytest.importorskip("torch")

from hunt2_points import a_zero_breaks_the_symmetry  # noqa: E402

import gdlcheck  # noqa: E402

N, D = 6, 3
GROUP = gdlcheck.group(generators=["(0 1)", "(2 3 4 5)"], n=N)

COUNTS = {
    "nonzero of floats": (lambda x: torch.nonzero(x[:, 0]).shape[0], 6),
    "nonzero of a mask": (lambda x: torch.nonzero(x[:, 0] == 0).shape[0], 0),
    "argwhere of a mask": (lambda x: torch.argwhere(x[:, 0] == 0).shape[0], 0),
    "where of a mask": (lambda x: len(torch.where(x[:, 0] == 0)[0]), 0),
    "rows indexed by nonzero": (lambda x: x.index_select(0, torch.nonzero(x[:, 0]).squeeze(1)).shape[0], 6),
}


class Branches(torch.nn.Module):
    """Returns the points if the count is the one of a generic draw, else the points reversed."""

    def __init__(self, count, generic):
        super().__init__()
        self.count, self.generic = count, generic

    def forward(self, x):
        return x if self.count(x) == self.generic else x.flip(0)


@pytest.mark.parametrize("count,generic", COUNTS.values(), ids=COUNTS.keys())
def test_an_input_with_a_zero_takes_the_other_path(count, generic):
    assert a_zero_breaks_the_symmetry(Branches(count, generic), N, D)


@pytest.mark.parametrize("count,generic", COUNTS.values(), ids=COUNTS.keys())
def test_the_length_of_nonzero_of_the_points_stops_the_proof(count, generic):
    result = gdlcheck.verify_callable(Branches(count, generic).double(), GROUP, shape=(N, D), method="exact")
    assert result.verdict != "holds"
    assert not any(result.proof.proven.values())
    assert "a shape that depends on the values of the points" in str(result.proof.stops)
