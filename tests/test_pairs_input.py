"""An input that moves as pairs (``inputs=["pairs"]``: ``P X P^T``, an order-2 input ``(n, n, c)``),
and the diagonal rule that reads it.

The random pairs value is a fixed function of two rows of the random points, so moving the points
moves it both ways exactly; the tracer moves both its axes and its rules never see its values, so a
proof holds for every order-2 input.  Each equivariant use is proved, each broken one fails."""

import numpy as np
import pytest

import gdlcheck
from gdlcheck.code.actions import pairs_of
from gdlcheck.errors import GdlcheckError

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow  # torch

N, C = 6, 2


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


UPPER = torch.triu(torch.ones(N, N, dtype=torch.float64))[..., None]


def check(fn, group="symmetric", outputs="pairs:0,1", shape=(N, N, C)):
    obj = gdlcheck.verify_callable(
        Fn(fn), gdlcheck.group(group, n=N), shape=shape, inputs=["pairs"], outputs=outputs
    ).to_json()
    exact = [c["passed"] for c in obj["checks"] if c["method"] == "exact"]
    return obj["verdict"], bool(exact) and all(exact)


def test_the_random_pairs_value_moves_both_ways_exactly_and_is_not_symmetric():
    rng = np.random.default_rng(0)
    U = rng.standard_normal((N, C))
    p = rng.permutation(N)
    moved = np.empty_like(U)
    moved[p] = U  # the rows moved: the entry at j goes to p[j]
    Y, Z = pairs_of(U), pairs_of(moved)
    assert np.array_equal(Z[np.ix_(p, p)], Y)  # P Y P^T, bit for bit
    assert not np.allclose(Y, Y.transpose(1, 0, 2))


@pytest.mark.parametrize(
    "fn, outputs",
    [
        (lambda x: x + 2 * x.transpose(0, 1), "pairs:0,1"),
        (lambda x: torch.diagonal(x, dim1=0, dim2=1).T.tanh(), "points"),
        (lambda x: x.sum(0) - torch.diagonal(x, dim1=0, dim2=1).T, "points"),
        (lambda x: x.sum((0, 1)), "invariant"),
    ],
)
def test_equivariant_uses_of_a_pairs_input_are_proved(fn, outputs):
    assert check(fn, outputs=outputs) == ("holds", True)


@pytest.mark.parametrize(
    "fn, outputs, group",
    [
        (lambda x: x * UPPER, "pairs:0,1", "symmetric"),  # a fixed triangle
        (lambda x: x[0], "points", "symmetric"),  # one row
        (lambda x: torch.diagonal(x, offset=1, dim1=0, dim2=1).T.sum(0), "invariant", "cyclic"),  # no wrap
        (lambda x: torch.diagonal(x, dim1=0, dim2=1).T + x[:, 0], "points", "symmetric"),  # pairs read as points
    ],
)
def test_broken_uses_fail_and_are_not_proved(fn, outputs, group):
    verdict, exact = check(fn, group=group, outputs=outputs)
    assert verdict == "fails" and not exact


def test_a_pairs_input_whose_axes_do_not_hold_the_points_is_refused():
    with pytest.raises(GdlcheckError, match=r"its pairs on axes \(0, 1\) hold 6x7, not 6x6"):
        check(lambda x: x, shape=(N, N + 1, C))
