"""Seventh soundness hunt (issue 28): a deliberately broken rule is caught.

The sample table (``tests/rule_samples.py``) gives each rule an equivariant use, and
``tests/test_rule_samples.py`` checks that the rule proves it.  That alone does not catch a rule
that proves too much: ten rules replaced by subtly wrong ones (``roll`` or ``cumsum`` as if
elementwise, ``flip`` or ``index_select`` keeping the input's moves, a ``transpose`` that forgets
to swap, ``sort`` whose values move like its input, ``cat`` that reads only its first tensor)
still proved their samples, and only the moved call (or, for ``roll``, the random search of
``tests/test_code_soundness.py``) stood between them and a wrong ``holds``.

Here each of those rules has a *negative* sample too: a use of the same operation that is not
equivariant (a float64 trial shows it).  The rule as it is must not prove it (the moved call's
cross-check off: the rules alone); with the broken rule in its place, the rules alone prove it
(so the first check fails: the break is caught), and the moved call says ``fails``."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rule_samples import D, N, Sample, SampleModule, c  # noqa: E402

import gdlcheck  # noqa: E402
import gdlcheck.code.prover.rules  # noqa: E402,F401  (fills the table)
from gdlcheck.code.prover import moves as mv  # noqa: E402
from gdlcheck.code.prover import prove, table  # noqa: E402
from gdlcheck.code.prover.rules.elementwise import elementwise  # noqa: E402

aten = torch.ops.aten


def _moving(call):
    """The moves of the first moving tensor argument: the output said to move as it does."""
    for value in call.moves.values():
        for m in value if isinstance(value, list) else [value]:
            if m is not None:
                return m
    raise table.NoRule("nothing moves")


def _both(call):
    m = _moving(call)
    return (m, m)


def _constant(key):
    """The rule of ``key``, with its output said to be fixed (every axis unmoved)."""

    original = table.RULES[key]

    def rule(call):
        out = original(call)
        moves = out.moves if isinstance(out, table.Out) else out
        return mv.Moves(tuple(None for _ in moves.axes))

    return rule


def _square(x):
    """The first coordinate laid out as an ``N x N`` matrix, cut back to ``N x D``."""
    return x[:, :1].expand(N, N)


# key -> (a use that is not equivariant (or not invariant), a subtly wrong rule for the key)
CASES = {
    aten.roll.default: (Sample(lambda x: x.roll(1, 0)), elementwise),
    aten.cumsum.default: (Sample(lambda x: x.cumsum(0)), elementwise),
    aten.cummax.default: (Sample(lambda x: x.cummax(0).values), _both),
    aten.flip.default: (Sample(lambda x: x.flip(0)), _moving),
    aten.sort.default: (Sample(lambda x: x.sort(0).values), _both),
    aten.transpose.int: (Sample(lambda x: _square(x).transpose(0, 1).contiguous()[:, :D]), _moving),
    aten.t.default: (Sample(lambda x: _square(x).t().contiguous()[:, :D]), _moving),
    aten.cat.default: (Sample(lambda x: torch.cat([x, c(N, D)], 1)), _moving),
    aten.index_select.default: (Sample(lambda x: x.index_select(0, torch.tensor([0, 0, 1, 2, 3, 4]))), _moving),
    aten.sum.dim_IntList: (Sample(lambda x: x.sum(1), "invariant"), None),  # None: _constant(key)
}


def _verdict(sample, *, rules_alone, seed=0, monkeypatch):
    with monkeypatch.context() as patch:
        if rules_alone:
            patch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
        result = gdlcheck.verify_callable(
            SampleModule(sample), "symmetric", shape=(N, D), expect=sample.expect, method="exact", seed=seed
        )
    return result.verdict


def _broken(key):
    wrong = CASES[key][1]
    return wrong if wrong is not None else _constant(key)


def assert_not_equivariant_nor_proved(sample, monkeypatch) -> None:
    """A float64 trial under the transposition (0 1) shows the negative sample does not commute, and
    the rules alone do not prove it."""
    x = torch.as_tensor(np.random.default_rng(3).standard_normal((N, D)))
    g = torch.tensor([1, 0] + list(range(2, N)))  # the transposition (0 1), a generator of the group
    with torch.no_grad():
        fx, fgx = sample.fn(x), sample.fn(x[g])
    want = fx if sample.expect == "invariant" else fx[g]
    assert not torch.allclose(fgx, want)
    assert _verdict(sample, rules_alone=True, monkeypatch=monkeypatch) != "holds"


def assert_break_caught(key, wrong, sample, monkeypatch) -> None:
    """With ``wrong`` in place of the rule of ``key`` the rules alone prove the negative sample (so
    the check above catches the break), and the moved call refutes it."""
    with monkeypatch.context() as patch:
        patch.setitem(table.RULES, key, wrong)
        assert _verdict(sample, rules_alone=True, monkeypatch=monkeypatch) == "holds"
        assert _verdict(sample, rules_alone=False, seed=1, monkeypatch=monkeypatch) == "fails"


@pytest.mark.parametrize("key", list(CASES), ids=str)
def test_the_negative_sample_is_not_equivariant_and_its_rule_does_not_prove_it(key, monkeypatch):
    assert_not_equivariant_nor_proved(CASES[key][0], monkeypatch)


@pytest.mark.parametrize("key", list(CASES), ids=str)
def test_a_broken_rule_proves_the_negative_sample_and_the_moved_call_refutes_it(key, monkeypatch):
    assert_break_caught(key, _broken(key), CASES[key][0], monkeypatch)
