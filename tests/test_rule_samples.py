"""Every rule on its own, fast, over the sample table (``tests/rule_samples.py``, one sample per key
of ``RULES``, as torch's ``OpInfo`` gives each operator its samples):

* the rule proves its sample, and a float64 trial of the sample under a random permutation agrees;
* the rule says the same on two independent draws of the points (it cannot see their values);
* a key without a sample fails.

The moved call's cross-check is turned off here: these test the rules alone."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rule_samples import SAMPLES, D, N, SampleModule  # noqa: E402

import gdlcheck  # noqa: E402
import gdlcheck.code.prover.rules  # noqa: E402,F401  (fills the table)
from gdlcheck.code.prover import moves as mv  # noqa: E402
from gdlcheck.code.prover import prove, table, walk  # noqa: E402

KEYS = list(SAMPLES)


def _name(key) -> str:
    return "pointwise" if key is table.POINTWISE else str(key)


def _is(key, func) -> bool:
    return func is key or (
        key is table.POINTWISE and table.RULES.get(func) is None and table.lookup(func) is table.RULES[table.POINTWISE]
    )


def _plain(m):
    if isinstance(m, table.Halt):
        return ("halt", m.reason.value)
    if m is None:
        return None
    if isinstance(m, (list, tuple)):
        return tuple(_plain(x) for x in m)

    def axis(p):
        return "unordered" if isinstance(p, mv.Unordered) else (None if p is None else tuple(int(v) for v in p))

    return (tuple(axis(p) for p in m.axes), axis(m.labels))


def _prove(key, seed, monkeypatch):
    """The sample's proof (``method="exact"``, the moved call's cross-check off) from the draw
    ``seed``, and what the rule of ``key`` said at each of its calls."""
    said = []
    one = walk.Walk._one

    def spy(self, found, func, bound, moves, out, k, count):
        result = one(self, found, func, bound, moves, out, k, count)
        if _is(key, func):
            said.append((str(func), k, _plain(result)))
        return result

    monkeypatch.setattr(walk.Walk, "_one", spy)
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    sample = SAMPLES[key]
    result = gdlcheck.verify_callable(
        SampleModule(sample), "symmetric", shape=(N, D), expect=sample.expect, method="exact", seed=seed
    )
    monkeypatch.undo()
    return result, said


def test_every_rule_key_has_a_sample():
    assert set(table.RULES) == set(SAMPLES)


@pytest.mark.parametrize("key", KEYS, ids=_name)
def test_the_rule_proves_its_sample_and_a_float64_trial_agrees(key, monkeypatch):
    result, _ = _prove(key, 0, monkeypatch)
    assert result.verdict == "holds", [str(s.step.label) for s in result.proof.stops.values()]
    sample = SAMPLES[key]
    rng = np.random.default_rng(7)
    x = torch.as_tensor(rng.standard_normal((N, D)))
    g = torch.as_tensor(rng.permutation(N))
    with torch.no_grad():
        fx, fgx = sample.fn(x), sample.fn(x[g])
    want = fx if sample.expect == "invariant" else fx[g]
    assert torch.allclose(fgx.double(), want.double(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("key", KEYS, ids=_name)
def test_the_rule_says_the_same_on_two_draws(key, monkeypatch):
    first = _prove(key, 1, monkeypatch)[1]
    second = _prove(key, 2, monkeypatch)[1]
    assert first == second


def _gather_reading(call):
    """``gather``'s rule made to read its index: the gathered axis said to move by the order of the
    index's first row (values of the random points, another in each draw)."""
    from gdlcheck.code.prover.rules import reindex
    from gdlcheck.code.prover.table import Out

    out = reindex.gather(call)
    idx, d = call.args["index"], call.args["dim"] % call.args["index"].dim()
    first = idx.detach().cpu().numpy().reshape(-1, idx.shape[-1])[0]
    axes = list(out.moves.axes)
    if len(first) == idx.shape[d]:
        axes[d] = np.argsort(first, kind="stable").astype(np.int64)
    return Out(mv.Moves(tuple(axes)), out.conditions)


def test_a_new_rule_that_reads_a_moving_index_is_caught_by_the_two_draws(monkeypatch):
    """The same check for a rule of today's (``gather``, at an index of the random points)."""
    key = torch.ops.aten.gather.default
    said = []
    for seed in range(1, 7):
        with monkeypatch.context() as patch:
            patch.setattr(walk.Walk, "blind", lambda self, value: value)  # the rules see the values
            patch.setitem(table.RULES, key, _gather_reading)
            said.append(repr(_prove(key, seed, patch)[1]))
    assert len(set(said)) > 1
    assert len({repr(_prove(key, seed, monkeypatch)[1]) for seed in range(1, 7)}) == 1  # the rule as it is
