"""Edge attributes on a fixed graph follow their edges under its automorphisms.

A layer that holds its graph (``inputs=["points", "fixed", gdlcheck.edges(ea)]``) is checked
under the automorphisms ``g`` of that graph: edge ``k = (u, v)`` goes to the column of
``(g u, g v)`` of the same edge_index (of parallel edges, the ``j``-th to the ``j``-th), and
edge-indexed inputs and outputs move by that permutation of the columns. The permutation is
worked out by hand here (a dictionary of columns) and each layer is checked against it directly
before gdlcheck checks it (``method="numeric"``: the trials, not the tracer).
"""

import numpy as np
import pytest
import torch

import gdlcheck
from gdlcheck.code.graphs import automorphism_edge_order

pytestmark = pytest.mark.slow  # torch and PyG

pyg = pytest.importorskip("torch_geometric.nn")


def both_ways(pairs) -> np.ndarray:
    return np.array([[u for u, v in pairs] + [v for u, v in pairs], [v for u, v in pairs] + [u for u, v in pairs]])


def ring(n=6):
    return both_ways([(i, (i + 1) % n) for i in range(n)])


def grid(rows=3, cols=3):
    cell = lambda r, c: r * cols + c  # noqa: E731
    pairs = [(cell(r, c), cell(r, c + 1)) for r in range(rows) for c in range(cols - 1)]
    pairs += [(cell(r, c), cell(r + 1, c)) for r in range(rows - 1) for c in range(cols)]
    return both_ways(pairs)


def petersen():
    pairs = [(i, (i + 1) % 5) for i in range(5)] + [(i, i + 5) for i in range(5)]
    pairs += [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    return both_ways(pairs)


GRAPHS = {"ring": ring(), "grid": grid(), "petersen": petersen()}


def hand_order(g, ei) -> np.ndarray:
    """By hand: column ``m`` of the moved attributes holds edge ``order[m]``, where edge
    ``k = (u, v)`` goes to the next unused column of ``(g u, g v)``."""
    columns: dict[tuple[int, int], list[int]] = {}
    for m, (u, v) in enumerate(zip(ei[0], ei[1])):
        columns.setdefault((int(u), int(v)), []).append(m)
    order = np.full(ei.shape[1], -1)
    for k, (u, v) in enumerate(zip(ei[0], ei[1])):
        order[columns[(int(g[u]), int(g[v]))].pop(0)] = k
    assert sorted(order) == list(range(ei.shape[1]))
    return order


def moved_points(g, X):
    """``P X`` with ``P[g[j], j] = 1``: row ``j`` goes to row ``g[j]``."""
    Y = np.empty_like(X)
    Y[g] = X
    return Y


def layers():
    torch.manual_seed(0)
    return {
        "GINEConv": pyg.GINEConv(torch.nn.Linear(3, 3), edge_dim=2),
        "NNConv": pyg.NNConv(3, 4, torch.nn.Linear(2, 12)),
        "GATConv": pyg.GATConv(3, 4, edge_dim=2),
        "TransformerConv": pyg.TransformerConv(3, 4, edge_dim=2),
    }


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_the_edge_order_is_the_hand_computed_one(name):
    ei = GRAPHS[name]
    group = gdlcheck.group("automorphisms", graph=torch.tensor(ei))
    for g in group.gen_arrays():
        assert np.array_equal(automorphism_edge_order(g, ei, group.n), hand_order(g, ei))


def test_parallel_edges_are_matched_in_order_and_a_non_automorphism_has_no_order():
    ei = np.array([[0, 0, 1, 1, 2, 2], [1, 1, 2, 2, 0, 0]])  # a directed triangle, every edge twice
    g = np.array([1, 2, 0])  # (0, 1) -> (1, 2) -> (2, 0) -> (0, 1): the j-th copy to the j-th copy
    assert list(automorphism_edge_order(g, ei, 3)) == list(hand_order(g, ei)) == [4, 5, 0, 1, 2, 3]
    assert automorphism_edge_order(np.array([1, 0, 2]), ei, 3) is None


@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("layer", sorted(layers()))
def test_a_layer_with_edge_attributes_holds_under_the_automorphisms(layer, graph):
    ei = GRAPHS[graph]
    module = layers()[layer].double().eval()
    n = int(ei.max()) + 1
    rng = np.random.default_rng(0)
    X, ea = rng.standard_normal((n, 3)), rng.standard_normal((ei.shape[1], 2))
    ei_t = torch.tensor(ei)
    group = gdlcheck.group("automorphisms", graph=ei_t)

    def run(x, attrs):
        with torch.no_grad():
            return module(torch.tensor(x), ei_t, torch.tensor(attrs)).numpy()

    # by hand: with the attributes moved along their edges the layer commutes; held, it need not
    for g in group.gen_arrays():
        order = hand_order(g, ei)
        assert np.allclose(run(moved_points(g, X), ea[order]), moved_points(g, run(X, ea)), atol=1e-12)
    result = gdlcheck.verify_callable(
        module,
        group,
        shape=(n, 3),
        graph=ei_t,
        method="numeric",
        inputs=["points", "fixed", gdlcheck.edges(torch.tensor(ea))],
    )
    assert result.verdict == "holds_numerically", result.to_json()


def test_holding_the_attributes_would_break_the_hand_check():
    """The case is not vacuous: on the ring, a layer given its attributes unmoved does not commute."""
    ei = GRAPHS["ring"]
    module = layers()["GINEConv"].double().eval()
    rng = np.random.default_rng(0)
    X, ea = rng.standard_normal((6, 3)), rng.standard_normal((ei.shape[1], 2))
    g = np.array([1, 2, 3, 4, 5, 0])
    with torch.no_grad():
        held = module(torch.tensor(moved_points(g, X)), torch.tensor(ei), torch.tensor(ea)).numpy()
        want = moved_points(g, module(torch.tensor(X), torch.tensor(ei), torch.tensor(ea)).numpy())
    assert not np.allclose(held, want)


@pytest.mark.parametrize("graph", sorted(GRAPHS))
def test_an_edge_output_moves_with_its_edges(graph):
    """Per-edge messages ``x[source] - 2 x[target] + attr`` move by the same permutation of the columns."""
    ei = GRAPHS[graph]
    n = int(ei.max()) + 1
    ea = np.random.default_rng(1).standard_normal((ei.shape[1], 3))

    def messages(x, edge_index, attrs):
        return x[edge_index[0]] - 2 * x[edge_index[1]] + attrs

    group = gdlcheck.group("automorphisms", graph=ei)
    X = np.random.default_rng(2).standard_normal((n, 3))
    for g in group.gen_arrays():
        order = hand_order(g, ei)
        assert np.allclose(messages(moved_points(g, X), ei, ea[order]), messages(X, ei, ea)[order])
    result = gdlcheck.verify_callable(
        messages,
        group,
        shape=(n, 3),
        graph=ei,
        method="numeric",
        inputs=["points", "fixed", gdlcheck.edges(ea)],
        outputs="edges",
    )
    assert result.verdict == "holds_numerically", result.to_json()
