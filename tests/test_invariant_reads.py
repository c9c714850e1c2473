"""Values read into Python (issue 36): a value of the given inputs that every generator leaves
where it is (a count per graph, the largest graph of a batch) is read and the proof goes on; a
value of the random points is never read, even one no generator changes, since another draw may
read another value and take a path the proof did not follow."""

import warnings

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

N, D = 8, 3
BATCH = torch.tensor([0, 0, 0, 1, 1, 1, 1, 1])


class Largest(torch.nn.Module):
    """Pads each graph to the largest one, as to_dense_batch does: the count is read into Python."""

    def forward(self, x, batch):
        counts = torch.zeros(2, dtype=torch.long).scatter_add_(0, batch, torch.ones_like(batch))
        largest = int(counts.max())
        return x * largest + torch.zeros(2, dtype=x.dtype).index_add_(0, batch, x[:, 0])[batch, None]


class Branch(torch.nn.Module):
    """A count of the random points no permutation changes, on which the path depends: for another
    draw it takes the branch that is not equivariant."""

    def forward(self, x):
        if int((x[:, 0] > 0).sum()) == 3:
            return x[:1].expand_as(x)
        return x


def verdict(module, method="exact", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gdlcheck.verify_callable(module, "symmetric", shape=(N, D), method=method, **kw).verdict


def test_a_count_of_given_values_is_read_and_the_proof_goes_on():
    assert verdict(Largest(), inputs=["points", gdlcheck.points(BATCH)]) == "holds"


def test_a_count_of_the_random_points_stops_the_proof():
    assert verdict(Branch()) == "inconclusive"
    x = torch.tensor([[1.0], [2.0], [3.0], [-1.0], [-1.0], [-1.0], [-1.0], [-1.0]]).repeat(1, D).double()
    perm = torch.arange(N - 1, -1, -1)
    assert not torch.equal(Branch()(x[perm]), Branch()(x)[perm])  # not equivariant on such a draw


def test_the_moved_call_must_read_the_same_value(monkeypatch):
    from gdlcheck.code.prover import prove

    original = prove._moved_call

    def reads_differ(walk, *args, **kwargs):
        walk.reads[min(walk.checked_reads)] = "another value"
        return original(walk, *args, **kwargs)

    monkeypatch.setattr(prove, "_moved_call", reads_differ)
    assert verdict(Largest(), inputs=["points", gdlcheck.points(BATCH)]) == "inconclusive"


class Nodes(torch.nn.Module):
    """PyG's num_nodes: the largest label of the edges, plus one."""

    def forward(self, x, edge_index):
        return x * (int(edge_index.max()) + 1)


def test_the_largest_label_is_read_where_the_labels_that_occur_stay():
    ring = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 0]])
    assert verdict(Nodes(), graph=ring) == "holds"  # every node is in an edge
    path = ring[:, :6]  # node 7 is in none: a relabelling moves the largest
    assert verdict(Nodes(), graph=path) == "inconclusive"
    assert verdict(Nodes(), graph=path, method="auto") == "fails"


def test_a_storage_freed_and_reused_is_no_longer_a_member():
    from gdlcheck.code.prover.values import Storages

    seen = Storages()
    t = torch.randn(4096)
    seen.add(t)
    assert t[5:] in seen and t.view(64, 64) in seen  # views share the storage
    del t
    fresh = [torch.zeros(4096) for _ in range(8)]  # likely at the freed address: never a member
    assert all(u not in seen for u in fresh)
