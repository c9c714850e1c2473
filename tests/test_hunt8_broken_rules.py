"""Deliberately broken rules caught (issue 28): ``unsqueeze``, ``squeeze``, ``repeat``, ``copy_``,
``numpy_T`` and ``contiguous``, in the manner of ``test_broken_rules_more.py``.

Each key has a *negative* sample (a use that a float64 trial shows is not equivariant, or not
invariant) and a plausible broken rule: the new axis appended at the end whatever ``dim`` says,
the last axis dropped whatever axis was squeezed, the copies of a repeated axis left in place
but the first, ``copy_`` read as keeping its destination, ``x.T`` read as keeping its axes, ``contiguous`` as a constant.  The
real rule, the moved call's cross-check off, must not prove the sample; the broken rule in its
place proves it (so the first check catches the break), and the moved call says ``fails``."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rule_samples import F64, D, N, Sample  # noqa: E402
from test_hunt7_broken_rules import (  # noqa: E402
    _moving,
    _square,
    assert_break_caught,
    assert_not_equivariant_nor_proved,
)

from gdlcheck.code.prover import moves as mv  # noqa: E402

aten = torch.ops.aten


def _inv(fn):
    return Sample(fn, "invariant")


def _appended(call):
    """``unsqueeze`` with its new axis put last, not at ``dim``."""
    m = _moving(call)
    return mv.Moves(tuple(m.axes) + (None,), m.labels)


def _last_dropped(call):
    """``squeeze`` that drops the last axis, not the one named."""
    m = _moving(call)
    return mv.Moves(tuple(m.axes[:-1]), m.labels)


def _first_copy_moves(call):
    """``repeat`` whose first copy of each axis moves and whose other copies stay in place."""
    m, reps = _moving(call), [int(r) for r in call.args["repeats"]]
    shape = call.shape("self")
    lead = len(reps) - len(shape)
    axes = [None] * lead
    for p, r, n in zip(m.axes, reps[lead:], shape):
        axes.append(
            None if p is None else np.concatenate([np.asarray(p)] + [np.arange(n) + k * n for k in range(1, r)])
        )
    return mv.Moves(tuple(axes))


def _destination(call):
    """``copy_`` read as keeping its destination (a constant): the source forgotten."""
    return mv.still(call.out.dim())


def _inference(fn):
    def run(x):
        with torch.inference_mode():
            return fn(x)

    return run


# key -> (a use that is not equivariant (or not invariant), a subtly wrong rule for the key)
CASES = {
    # (N, N) whose columns move: put after a new leading axis, read back as rows that move
    aten.unsqueeze.default: (Sample(lambda x: _square(x).t().unsqueeze(0)[0][:, :D].contiguous()), _appended),
    aten.squeeze.dim: (_inv(lambda x: x.T[None].squeeze(0)[:, :2].contiguous()), _last_dropped),
    aten.squeeze.dims: (_inv(lambda x: x.T[None].squeeze((0,))[:, :2].contiguous()), _last_dropped),
    aten.squeeze.default: (_inv(lambda x: x.T[None].squeeze()[:, :2].contiguous()), _last_dropped),
    aten.repeat.default: (_inv(lambda x: x.repeat(2, 1)[N:]), _first_copy_moves),
    aten.copy_.default: (_inv(lambda x: torch.zeros(N, D, dtype=F64).copy_(x)), _destination),
    aten.numpy_T.default: (Sample(_inference(lambda x: _square(x).T[:, :D] * 1.0)), _moving),
    aten.contiguous.default: (_inv(_inference(lambda x: x.T.contiguous()[:, :2] * 1.0)), _destination),
}


@pytest.mark.parametrize("key", list(CASES), ids=str)
def test_the_negative_sample_is_not_equivariant_and_its_rule_does_not_prove_it(key, monkeypatch):
    assert_not_equivariant_nor_proved(CASES[key][0], monkeypatch)


@pytest.mark.parametrize("key", list(CASES), ids=str)
def test_a_broken_rule_proves_the_negative_sample_and_the_moved_call_refutes_it(key, monkeypatch):
    assert_break_caught(key, CASES[key][1], CASES[key][0], monkeypatch)
