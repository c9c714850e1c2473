"""The tracer's edge permutations, against their definition: under a generator ``s``, edge ``k``
of an ``edge_index`` goes to column ``q[k]``, so relabelling the edges by ``s`` gives the columns
``q`` picks (``s[E[:, k]] == E[:, q[k]]``); ``None`` is the identity.

A held graph's ``q`` is the permutation an automorphism induces on its edges (parallel edges
matched in order); it must agree with the trials' own match (``graphs.automorphism_edge_order``),
which moves edge attributes as ``Y[order]``. An inverted ``q`` is the classic slip: the
generators below are not involutions on the edges, so it cannot pass.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gdlcheck.code import graphs  # noqa: E402
from gdlcheck.code.prover.arguments import edge_perms  # noqa: E402
from gdlcheck.code.prover.table import Halt  # noqa: E402

pytestmark = pytest.mark.slow  # imports torch

N = 7
RING = np.array([list(range(N)) + [(i + 1) % N for i in range(N)], [(i + 1) % N for i in range(N)] + list(range(N))])
SHIFT = np.array([(i + 1) % N for i in range(N)])
REFLECT = np.array([(-i) % N for i in range(N)])


def _doubled(ei):
    """Every edge twice, the copies shuffled among the originals: a multigraph."""
    both = np.concatenate([ei, ei], axis=1)
    return both[:, np.random.default_rng(1).permutation(both.shape[1])]


@pytest.mark.parametrize("ei", [RING, RING[:, ::-1].copy(), _doubled(RING)], ids=["ring", "reversed", "multigraph"])
@pytest.mark.parametrize("s", [SHIFT, REFLECT, SHIFT[SHIFT]], ids=["shift", "reflection", "double shift"])
def test_a_held_graphs_edges_move_as_the_automorphism_takes_them(ei, s):
    (q,) = edge_perms(torch.as_tensor(ei), [s], moving=False, n=N)
    q = np.arange(ei.shape[1]) if q is None else q
    assert np.array_equal(s[ei], ei[:, q])
    # parallel edges keep their order: the j-th copy of (u, v) goes to the j-th copy of its image
    order = graphs.automorphism_edge_order(s, ei, N)
    assert np.array_equal(order[q], np.arange(ei.shape[1]))


def test_the_shift_moves_the_ring_edges_by_a_shift_not_its_inverse():
    (q,) = edge_perms(torch.as_tensor(RING), [SHIFT], moving=False, n=N)
    # edge k = (k, k+1) goes to (k+1, k+2), column k+1; a hand computation, not gdlcheck's
    assert list(q[:N]) == [(k + 1) % N for k in range(N)]
    assert list(q[N:]) == [N + (k + 1) % N for k in range(N)]


def test_a_permutation_that_is_no_automorphism_stops_the_proof():
    swap = np.arange(N)
    swap[[0, 2]] = [2, 0]
    (q,) = edge_perms(torch.as_tensor(RING), [swap], moving=False, n=N)
    assert isinstance(q, Halt) and "does not map the fixed graph's edges onto themselves" in q.what


def test_a_moving_graphs_edges_take_the_order_the_trials_give_them():
    # sorted by (source, target), so the trials sort the relabelled list again: edge k's image
    # is then the column q[k] of the list the trials pass
    ring = RING[:, np.lexsort((RING[1], RING[0]))]
    (q,) = edge_perms(torch.as_tensor(ring), [SHIFT], moving=True, n=N)
    moved, order = graphs.relabel(SHIFT, ring, N)
    assert order is not None and q is not None
    assert np.array_equal(moved[:, q], SHIFT[ring])
