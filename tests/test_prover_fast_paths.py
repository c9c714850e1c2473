"""The prover's per-operation shortcuts (issue 33, item 5) answer exactly as the long way does.

``regions.cells`` lists a view's cells without sorting them where the strides say they come
sorted and distinct; ``table.bind`` and ``table.writes`` read each operation's schema once;
``values._tensors`` is a list.  Each is checked against the plain computation it replaces.
"""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from gdlcheck.code.prover import regions, table, values  # noqa: E402

aten = torch.ops.aten


def every_cell(t) -> np.ndarray:
    """The sorted distinct storage offsets of a strided tensor, by listing every entry's."""
    at = np.full((1,), t.storage_offset(), dtype=np.int64)
    for size, stride in zip(t.shape, t.stride()):
        at = (at[:, None] + np.arange(size, dtype=np.int64)[None, :] * stride).ravel()
    return np.unique(at)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 25)), max_size=4), st.integers(0, 9))
def test_cells_are_every_cell_sorted_once(axes, offset):
    base = torch.zeros(4096)
    t = base.as_strided([s for s, _ in axes], [st for _, st in axes], offset)
    got, want = regions.cells(t), every_cell(t)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_cells_of_the_views_code_writes_through():
    x = torch.zeros(6, 8, 4)
    for v in (
        x,
        x[:, :3],
        x[1:4, ::2],
        x.transpose(0, 1),
        x[..., 1],
        x.permute(2, 0, 1),
        x.expand(2, 6, 8, 4),
        x[:, 2:5, 1:3],
        x[:, ::3],
        x.narrow(1, 2, 3),
        x.unsqueeze(1),
        x[:0],
    ):
        assert np.array_equal(regions.cells(v), every_cell(v))


def plain_bind(func, args, kwargs) -> dict:
    out = {}
    for k, a in enumerate(func._schema.arguments):
        if k < len(args) and not a.kwarg_only:
            out[a.name] = args[k]
        elif a.name in kwargs:
            out[a.name] = kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
        else:
            out[a.name] = None
    return out


CALLS = [
    (aten.add.Tensor, (1, 2), {}),
    (aten.add_.Tensor, (1, 2), {"alpha": 3}),
    (aten.sum.dim_IntList, (1, [0]), {"keepdim": True}),
    (aten.mean.dim, (1, None), {}),
    (aten.copy_.default, (1, 2), {}),
    (aten.mm.out, (1, 2), {"out": 3}),
    (aten.native_batch_norm.default, (1, 2, 3, 4, 5, True, 0.1, 1e-5), {}),
    (aten.index_put_.default, (1, [None, 2], 3), {}),
    (aten.scatter_reduce.two, (1, 0, 2, 3, "sum"), {}),
    (aten.constant_pad_nd.default, (1, [1, 1]), {}),
]


@pytest.mark.parametrize("func,args,kwargs", CALLS, ids=[str(c[0]) for c in CALLS])
def test_bind_and_writes_read_the_schema_as_before(func, args, kwargs):
    for _ in range(2):  # the second time from what was read once
        assert table.bind(func, args, kwargs) == plain_bind(func, args, kwargs)
        assert table.writes(func, args, kwargs) == [
            a.name for a in func._schema.arguments if a.alias_info is not None and a.alias_info.is_write
        ] + (["running_mean", "running_var"] if func is aten.native_batch_norm.default and args[5] else [])
        assert table.out_arguments(func) == [
            a.name
            for a in func._schema.arguments
            if a.kwarg_only and a.alias_info is not None and a.alias_info.is_write
        ]


def test_a_default_list_is_a_fresh_one_each_time():
    padded = table.bind(aten.avg_pool1d.default, (1, [2]), {})
    padded["padding"].append(99)
    assert table.bind(aten.avg_pool1d.default, (1, [2]), {})["padding"] == [0]


def test_tensors_in_order_to_four_levels():
    a, b, c, d, e = (torch.zeros(1) for _ in range(5))
    found = values._tensors((a, [b, {"k": c, "j": 3}], {"x": (d,)}, [[[[[e]]]]]))
    assert [id(t) for t in found] == [id(a), id(b), id(c), id(d)]
    assert values._tensors(a) == [a] and values._tensors(3) == []


class Annotated(torch.nn.Module):
    """Class attributes of typing's aliases, one over a function (whose ``__dict__`` the alias answers)."""

    plain: list[int] = [1]
    union: int | None = None

    def forward(self, x):
        return x


def _helper():
    return 1


_helper.count = 3
Annotated.over_function = __import__("types").GenericAlias(_helper, int)
Annotated.union_kept = int | str
Annotated.table = {"a": dict[str, int], "b": (list[float], float | None)}


@pytest.mark.parametrize(
    "module",
    [torch.nn.Linear(3, 2), torch.nn.TransformerEncoderLayer(8, 2, 16), Annotated()],
    ids=["linear", "encoder", "annotated"],
)
def test_the_state_walk_meets_typing_aliases_by_type_as_the_long_chain_does(module, monkeypatch):
    from gdlcheck.code.prover import state

    fast = state.snapshot(module)
    monkeypatch.setattr(state, "_ALIASES", frozenset())
    assert state.snapshot(module) == fast


def test_a_change_behind_an_alias_is_still_seen():
    from gdlcheck.code.prover import state

    module = Annotated()
    before = state.snapshot(module)
    _helper.count += 1  # the alias over a function answers that function's __dict__
    try:
        assert state.changed(before, state.snapshot(module))
    finally:
        _helper.count -= 1


def _moved_entries(value, axes):
    """The entries a permutation of the axes moves to another value, bit for bit, the long way."""
    moved = value
    for a, p in axes.items():
        moved = moved.index_select(a, torch.as_tensor(p))
    real = torch.view_as_real if value.is_complex() else (lambda t: t)
    bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}
    as_bits = [real(t).contiguous() for t in (moved, value)]
    if as_bits[0].is_floating_point():
        as_bits = [t.view(bits[t.element_size()]) for t in as_bits]
    differs = as_bits[0] != as_bits[1]
    return differs.any(-1) if value.is_complex() else differs


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, -0.0, 1.0, float("nan"), float("inf"), -float("inf")]), min_size=4, max_size=4),
    st.permutations(range(4)),
    st.sampled_from([torch.float64, torch.float32, torch.complex64, torch.int64, torch.bool]),
)
def test_a_fixed_constant_is_told_in_one_comparison_as_the_mask_tells_it(entries, p, dtype):
    """``first_moved`` answers None at once where the moved constant's bits equal its own, and
    otherwise names the first entry the mask of differing bits names (-0.0 is not 0.0, a NaN is
    the same NaN)."""
    from gdlcheck.code.prover import conditions

    raw = torch.tensor(entries, dtype=torch.float64)
    value = raw.nan_to_num(0.0).to(dtype) if dtype in (torch.int64, torch.bool) else raw.to(dtype)
    value = torch.stack([value, value.flip(0)], 1)  # (4, 2): the rows move
    axes = {0: np.asarray(p)}
    found = conditions.first_moved(value, axes)
    differs = _moved_entries(value, axes)
    assert (found is None) == (not bool(differs.any()))
    if found is not None:
        assert found[0] == (int(torch.nonzero(differs)[0][0]),)


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(2, 12), st.integers(0, 2), st.booleans())
def test_a_constant_is_read_where_a_permutation_moves_it_as_the_mask_tells_it(data, n, axis, swap_only):
    """Along one axis, ``first_moved`` reads only the slices a permutation moving at most half of it
    moves: the same answer, and the same first entry, as the mask over the whole constant."""
    from gdlcheck.code.prover import conditions

    shape = [3, 3, 3]
    shape[axis] = n
    kinds = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))  # slices alike where kinds agree
    value = torch.stack([torch.full(shape[:axis] + shape[axis + 1 :], float(k)) for k in kinds], axis)
    value = value.to(torch.float64)
    if data.draw(st.booleans()):  # one entry of one slice otherwise (-0.0: its bits differ)
        at = tuple(data.draw(st.integers(0, s - 1)) for s in shape)
        value[at] = -0.0 if value[at] == 0 else float("nan")
    if swap_only:  # a few transpositions: the support path
        p = np.arange(n)
        for _ in range(data.draw(st.integers(0, 2))):
            i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
            p[[i, j]] = p[[j, i]]
    else:
        p = np.asarray(data.draw(st.permutations(range(n))))
    axes = {axis: p}
    with mock.patch.object(conditions, "SUPPORT_FROM", 0):  # read on their own at any size
        found = conditions.first_moved(value, axes)
    differs = _moved_entries(value, axes)
    assert (found is None) == (not bool(differs.any()))
    if found is not None:
        assert found[0] == (int(torch.nonzero(differs)[0][axis]),)
