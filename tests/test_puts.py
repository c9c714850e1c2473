"""Writes at indices (issue 36): ``index_put``, ``index_copy``, a scatter at a held index, and
in-place writes into views that share no element with the others.  Each proved use holds under
the trials too; each use that is not equivariant is never proved."""

import warnings

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

N, D = 6, 3
F64 = torch.float64


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def check(fn, group="symmetric", method="exact", **kw):
    kw.setdefault("shape", (N, D))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gdlcheck.verify_callable(Fn(fn), group, method=method, **kw).verdict


def test_a_repeated_index_is_never_proved():
    # the last write wins: the row written last moves with the points
    last = lambda x: torch.zeros(1, D, dtype=F64).index_copy(0, torch.zeros(N, dtype=torch.long), x)  # noqa: E731
    assert check(last, expect="invariant") == "inconclusive"
    assert check(last, expect="invariant", method="auto") == "fails"
    put = lambda x: aten_put(torch.zeros(1, D, dtype=F64), torch.zeros(N, dtype=torch.long), x)  # noqa: E731
    assert check(put, expect="invariant") == "inconclusive"


def aten_put(t, idx, v):
    return torch.ops.aten.index_put(t, [idx], v)


def test_rows_written_at_a_constant_index_move_as_the_index_maps_them():
    # rows written in reverse: the output moves by the reversed permutation, not by g
    rev = lambda x: torch.zeros(N, D, dtype=F64).index_copy(0, torch.arange(N - 1, -1, -1), x)  # noqa: E731
    assert check(rev) == "inconclusive"
    assert check(rev, method="auto") == "fails"
    assert check(lambda x: rev(x).sum(0), expect="invariant") == "holds"
    assert check(lambda x: torch.zeros(N, D, dtype=F64).index_copy(0, torch.arange(N), x)) == "holds"


def test_a_masked_write_follows_the_mask():
    assert check(lambda x: aten_put_mask(x.clone(), x > 0, torch.tensor(0.0, dtype=F64))) == "holds"
    # the rows a mask of moving values keeps are in an order only those values decide
    sel = lambda x: aten_put_mask(x.clone(), x[:, 0] > 0, x[x[:, 0] > 0].flip(0))  # noqa: E731
    assert check(sel) == "inconclusive"


def aten_put_mask(t, mask, v):
    return t.index_put_((mask,), v)


def test_a_scatter_at_a_held_index_needs_the_generator_to_keep_it():
    batch = torch.tensor([0, 0, 0, 1, 1, 1])
    pool = lambda x, b: torch.zeros(2, D, dtype=F64).index_add(0, b, x)  # noqa: E731
    held = {"inputs": ["points", gdlcheck.unchanged(batch)], "expect": "invariant"}
    within = gdlcheck.group("generators", n=N, generators=["(0 1 2)", "(0 1)", "(3 4 5)", "(3 4)"])
    assert check(pool, within, **held) == "holds"
    assert check(pool, **held) == "inconclusive"  # (0 1 2 3 4 5) moves a node to the other graph
    assert check(pool, method="auto", **held) == "fails"


def test_a_write_into_a_view_leaves_the_views_it_does_not_touch():
    def disjoint(x):
        y = x.clone()
        a, b = y.split([1, 2], 1)
        a.mul_(2)
        return torch.cat([a, b], 1)

    def overlapping(x):
        y = x.clone()
        a, b = y[:, :2], y[:, 1:]
        a.mul_(2)
        return b

    assert check(disjoint) == "holds"
    assert check(overlapping) == "inconclusive"  # b is written through a: what it holds is not followed
    assert check(overlapping, method="auto") == "holds_numerically"


def test_a_mask_of_several_leading_axes_selects_as_one():
    whole = torch.ones(1, N, dtype=torch.bool)
    assert check(lambda x: x[None][whole]) == "holds"  # to_dense_batch's mask, read back (GPSConv)
    kept = lambda x: x[None][x[None, :, 0] > 0]  # noqa: E731
    # a mask of the points' own values: its count is this draw's, which code may read and branch on
    assert check(lambda x: kept(x).sum(0), expect="invariant") == "inconclusive"
    assert check(lambda x: kept(x)[:1].sum(0), expect="invariant") == "inconclusive"


def test_flip_gather_and_one_hot_codes():
    assert check(lambda x: x.flip(0)) == "inconclusive"  # the reversal moves by another permutation
    assert check(lambda x: x.flip(0).sum(0), expect="invariant") == "holds"
    code = lambda x: torch.zeros(N, 2, dtype=F64).scatter_(1, (x[:, :1] > 0).long(), 1.0)  # noqa: E731
    assert check(code) == "holds"
    assert check(lambda x: x.gather(1, torch.zeros(N, 1, dtype=torch.long))) == "holds"
    # rows read at a constant index that the generators do not map onto itself
    rows = lambda x: x.gather(0, torch.arange(N)[:, None].expand(N, D).flip(0).contiguous())  # noqa: E731
    assert check(rows) == "inconclusive"
    assert check(rows, method="auto") == "fails"


def test_a_mask_reads_values_moved_by_another_description_of_the_same_move():
    # weights of a fixed graph's edges then its self loops (one value): the loops' mask moves
    # the loop block by the loops' permutation, the weights by none; both give the same tensor
    ring = torch.tensor([[0, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 0, 0, 1, 2, 3, 4, 5]])

    def chebyshev(x, edge_index):
        loops = torch.arange(N).repeat(2, 1)
        ei = torch.cat([edge_index, loops], 1)
        w = torch.cat([torch.ones(edge_index.shape[1], dtype=F64), torch.full((N,), 2.0, dtype=F64)])
        w[ei[0] == ei[1]] -= 1
        return torch.zeros(N, D, dtype=F64).index_add(0, ei[1], x[ei[0]] * w[:, None])

    autos = gdlcheck.group("automorphisms", graph=ring)
    assert check(chebyshev, autos, inputs=["points", gdlcheck.fixed(ring)]) == "holds"
    assert check(chebyshev, inputs=["points", gdlcheck.graph(ring)]) == "holds"


def test_a_softmax_within_held_groups():
    batch = torch.tensor([0, 0, 0, 1, 1, 1])

    def grouped(x, b):  # PyG's softmax over each graph, pooled
        top = torch.zeros(2, D, dtype=F64).scatter_reduce(0, b[:, None].expand(N, D), x, "amax", include_self=False)
        e = (x - top.index_select(0, b)).exp()
        return torch.zeros(2, D, dtype=F64).index_add(0, b, e / torch.zeros(2, D, dtype=F64).index_add(0, b, e)[b] * x)

    held = {"inputs": ["points", gdlcheck.unchanged(batch)], "expect": "invariant"}
    within = gdlcheck.group("generators", n=N, generators=["(0 1 2)", "(0 1)", "(3 4 5)", "(3 4)"])
    assert check(grouped, within, **held) == "holds"
    assert check(grouped, **held) == "inconclusive"  # a generator that mixes the graphs
    assert check(grouped, method="auto", **held) == "fails"
