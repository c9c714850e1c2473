"""Given points as the only points input: token ids for an Embedding, any integer-input model.

``inputs=[gdlcheck.points(ids)]`` is a value the group moves (``ids[g^-1]``), and nothing is
drawn: the trials call the code on the moved value.
"""

import numpy as np
import pytest
import torch

import gdlcheck
from gdlcheck.code.describe import build_signature
from gdlcheck.errors import CallableError

pytestmark = pytest.mark.slow  # torch

IDS = torch.tensor([3, 1, 4, 1, 5, 9])


class Bag(torch.nn.Module):
    """The mean embedding of one bag of ids: invariant."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.bag = torch.nn.EmbeddingBag(10, 4, mode="mean")

    def forward(self, ids):
        return self.bag(ids.view(1, -1))


class Positional(torch.nn.Module):
    """Token plus position embeddings: the positions break the symmetry."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.tok, self.pos = torch.nn.Embedding(10, 4), torch.nn.Embedding(6, 4)

    def forward(self, ids):
        return self.tok(ids) + self.pos(torch.arange(len(ids)))


def test_given_points_alone_draw_nothing():
    sig = build_signature([gdlcheck.points(IDS)], None, shape=(6, 1), points_axes=(0,), n=6, grid=None)
    assert sig.channels == 0 and [i.given for i in sig.inputs] == [True]


def test_nothing_that_moves_is_still_refused():
    with pytest.raises(CallableError, match="has no points input"):
        build_signature([gdlcheck.unchanged(IDS)], None, shape=(6, 1), points_axes=(0,), n=6, grid=None)


@pytest.mark.parametrize("method", ["auto", "numeric"])
def test_an_embedding_of_given_ids_is_equivariant(method):
    torch.manual_seed(0)
    emb = torch.nn.Embedding(10, 4)
    swap = [1, 0, 2, 3, 4, 5]
    with torch.no_grad():  # by hand: looking up moved ids moves the rows
        assert torch.equal(emb(IDS[swap]), emb(IDS)[swap])
    result = gdlcheck.verify_callable(emb, "symmetric", shape=(6, 1), inputs=[gdlcheck.points(IDS)], method=method)
    # auto proves it (ids moving as points give rows that move with them); numeric samples it
    assert result.verdict == ("holds" if method == "auto" else "holds_numerically") and result.passed


def test_an_embedding_bag_of_given_ids_is_invariant():
    result = gdlcheck.verify_callable(
        Bag(), "symmetric", shape=(6, 1), inputs=[gdlcheck.points(IDS)], expect="invariant"
    )
    assert result.passed, result.to_json()


def test_position_embeddings_over_given_ids_fail():
    module = Positional()
    swap = [1, 0, 2, 3, 4, 5]
    with torch.no_grad():  # by hand: ids 3 and 1 at swapped positions get each other's position
        assert not torch.allclose(module(IDS[swap]), module(IDS)[swap])
    result = gdlcheck.verify_callable(module, "symmetric", shape=(6, 1), inputs=[gdlcheck.points(IDS)])
    assert result.verdict == "fails"


def test_an_integer_model_of_given_ids():
    ids = np.arange(6)
    held = gdlcheck.verify_callable(lambda i: (3 * i) % 7, "cyclic", shape=(6, 1), inputs=[gdlcheck.points(ids)])
    assert held.verdict == "holds_numerically"
    broken = gdlcheck.verify_callable(lambda i: i + np.arange(6), "cyclic", shape=(6, 1), inputs=[gdlcheck.points(ids)])
    assert broken.verdict == "fails"
