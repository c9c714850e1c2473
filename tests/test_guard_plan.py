"""Which guards the walk runs for an operation (``guards.plan``): a guard is left out only for an
overload whose schema and tags say its check can do nothing, the proofs are the same as with every
guard run, and each case a guard is left out for does not hide the cases it is there for."""

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import guards, table, unwritten, walk  # noqa: E402
from gdlcheck.code.prover.values import _SHAPE_ONLY  # noqa: E402

F = torch.nn.functional
aten = torch.ops.aten
WRITING = {"foreign write", "aliasing", "written", "writes seen"}


def _aten_overloads() -> list:
    out = []
    for name in sorted(torch._C._dispatch_get_all_op_names()):
        if name.startswith("aten::"):
            base, _, overload = name[len("aten::") :].partition(".")
            out.append(getattr(getattr(aten, base), overload or "default"))
    return out


def test_a_guard_is_left_out_only_where_the_schema_says_it_cannot_apply():
    order = [g.name for g in guards.GUARDS]
    always = {g.name for g in guards.GUARDS if g.applies is None}
    overloads = _aten_overloads()
    assert len(overloads) > 1000
    for func in overloads:
        ahead, after = guards.plan(func)
        names = [g.name for g in ahead + after]
        assert [n for n in order if n in names] == names, func  # the table's order
        assert always <= set(names), func
        tags = set(func.tags)
        # read afresh from the schema, not through the table's copy of it
        if any(a.alias_info is not None and a.alias_info.is_write for a in func._schema.arguments):
            assert WRITING <= set(names), func
        if func.is_view:
            assert "writes seen" in names, func
        if torch.Tag.nondeterministic_seeded in tags:
            assert "random" in names, func
        if torch.Tag.data_dependent_output in tags:
            assert {"data shape", "selection"} <= set(names), func
        if torch.Tag.dynamic_output_shape in tags or func in table._SELECTING or func in table._INDEXED:
            assert "selection" in names, func
        if func not in _SHAPE_ONLY:
            assert "value read" in names, func
    # writes the schema does not say (batch norm's running statistics) keep the write guards
    assert WRITING - {"writes seen"} <= {g.name for g in sum(guards.plan(aten.native_batch_norm.default), ())}
    # a fresh buffer's first write is marked (walk.vacuous) only by writes, whose "written" clears the mark
    assert all("written" in {g.name for g in guards.plan(f)[1]} for f in unwritten.REPLACING)


class Scale(torch.nn.Module):
    def forward(self, x):
        return x * float(x.sum())  # value read: aten._local_scalar_dense


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(()))

    def forward(self, x):
        self.seen.add_(x.sum())  # foreign write: a buffer written from the points
        return x


class Dropped(torch.nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5, training=True)  # random


class Close(torch.nn.Module):
    def forward(self, x):
        return x * torch.allclose(x, x.roll(1, 0))  # data shape: aten.allclose


class ViewOfWritten(torch.nn.Module):
    def forward(self, x):
        h = torch.zeros_like(x)
        v = h[0]  # a view of a constant; the write below changes it
        h.copy_(x)
        return x + v  # aliasing: v is no longer the zeros it was


class Masked(torch.nn.Module):
    def forward(self, x):
        return x * x[x > 0].sum()  # selection: a shape that depends on the values


class ViewWrite(torch.nn.Module):
    def forward(self, x):
        h = x.clone()
        h.mul_(2)  # writes seen: a write, counted on h's counter, which the views below share
        return h.view(-1).view(5, 4) + 1


class Unwritten(torch.nn.Module):
    def forward(self, x):
        return torch.empty_like(x) + x  # reads memory no operation wrote


class Written(torch.nn.Module):
    def forward(self, x):
        b = torch.empty_like(x)
        b.copy_(x)  # written: every cell of the fresh buffer
        return b * 2


CASES = [
    (Scale(), False),
    (Counter(), False),
    (Dropped(), False),
    (Close(), False),
    (ViewOfWritten(), False),
    (Masked(), False),
    (ViewWrite(), True),
    (Unwritten(), False),
    (Written(), True),
    (torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4)), True),
]


def _proof(module):
    result = gdlcheck.verify_callable(module, gdlcheck.group("symmetric", n=5), shape=(5, 4), method="exact")
    return result.verdict, repr(result.proof)


@pytest.mark.parametrize(("module", "holds"), CASES, ids=[type(m).__name__ for m, _ in CASES])
def test_each_case_a_guard_is_left_out_for_still_reaches_it(module, holds):
    verdict, _ = _proof(module)
    assert (verdict == "holds") is holds


@pytest.mark.parametrize(("module", "holds"), CASES, ids=[type(m).__name__ for m, _ in CASES])
def test_the_proof_is_the_one_every_guard_gives(module, holds, monkeypatch):
    planned = _proof(module)
    monkeypatch.setattr(walk, "plan", lambda func: (guards.BEFORE, guards.AFTER))
    assert _proof(module) == planned
