"""Deliberately broken rules caught (issue 28): ``unsqueeze``, ``squeeze``, ``repeat``, ``copy_``,
``numpy_T`` and ``contiguous``, in the manner of ``test_broken_rules_more.py``.

Each key has a *negative* sample (a use that a float64 trial shows is not equivariant, or not
invariant) and a plausible broken rule: the new axis appended at the end whatever ``dim`` says,
the last axis dropped whatever axis was squeezed, the copies of a repeated axis left in place
but the first, ``copy_`` read as keeping its destination, ``x.T`` read as keeping its axes, ``contiguous`` as a constant.  The
real rule, the moved call's cross-check off, must not prove the sample; the broken rule in its
place proves it (so the first check catches the break), and the moved call says ``fails``.
Twenty-one more keys (in-place squeezes, ``rot90``, copies and views, ``add_``, ``hardswish``,
``log_sigmoid``, group norm, ``linalg_cross``, label comparisons, and what inference mode keeps
whole) are read as fixed by their broken rule: a use along the points then looks invariant."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rule_samples import F64, D, N, Sample, c  # noqa: E402
from test_broken_rules_more import _inv, _still  # noqa: E402  (an invariant sample; every output fixed)
from test_hunt7_broken_rules import (  # noqa: E402
    _moving,
    _square,
    assert_break_caught,
    assert_not_equivariant_nor_proved,
)

from gdlcheck.code.prover import moves as mv  # noqa: E402

aten = torch.ops.aten
F = torch.nn.functional


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
    # entry by entry, a copy or a view, read as fixed: its output said not to move with the points
    aten.squeeze_.dim: (_inv(lambda x: x[None].clone().squeeze_(0)), _still),
    aten.squeeze_.dims: (_inv(lambda x: x[None].clone().squeeze_((0,))), _still),
    aten.squeeze_.default: (_inv(lambda x: x[None].clone().squeeze_()), _still),
    aten.unsqueeze_.default: (_inv(lambda x: x.clone().unsqueeze_(1)[:, 0]), _still),
    aten.rot90.default: (_inv(lambda x: torch.rot90(x, 2, (0, 1))), _still),
    aten._to_copy.default: (_inv(lambda x: x.float().double()), _still),
    aten.clone.default: (_inv(lambda x: x.clone()), _still),
    aten.detach.default: (_inv(lambda x: x.detach()), _still),
    aten.alias.default: (_inv(lambda x: aten.alias(x)), _still),
    aten.add_.Tensor: (_inv(lambda x: x.clone().add_(c(1, D))), _still),
    aten.hardswish.default: (_inv(lambda x: F.hardswish(x)), _still),
    aten.log_sigmoid_forward.default: (_inv(lambda x: F.logsigmoid(x)), _still),
    aten.native_group_norm.default: (_inv(lambda x: F.group_norm(x.T[None], 1)[0].T), _still),
    aten.linalg_cross.default: (_inv(lambda x: torch.linalg.cross(x[:, :3], c(1, 3).expand(N, 3))), _still),
    aten.eq.Tensor: (_inv(lambda x: ((x > 0) == (c(1, D) > 0.5)).double()), _still),
    aten.ne.Tensor: (_inv(lambda x: ((x > 0) != (c(1, D) > 0.5)).double()), _still),
    aten.reshape.default: (_inv(_inference(lambda x: x.reshape(D, N) * 1.0)), _still),
    aten.dropout.default: (_inv(_inference(lambda x: torch.dropout(x, 0.5, False) * 1.0)), _still),
    aten.feature_dropout.default: (_inv(_inference(lambda x: torch.feature_dropout(x, 0.5, False) * 1.0)), _still),
    aten.alpha_dropout.default: (_inv(_inference(lambda x: torch.alpha_dropout(x, 0.5, False) * 1.0)), _still),
    aten.feature_alpha_dropout.default: (
        _inv(_inference(lambda x: torch.feature_alpha_dropout(x, 0.5, False) * 1.0)),
        _still,
    ),
}


@pytest.mark.parametrize("key", list(CASES), ids=str)
def test_the_negative_sample_is_not_equivariant_and_its_rule_does_not_prove_it(key, monkeypatch):
    assert_not_equivariant_nor_proved(CASES[key][0], monkeypatch)


@pytest.mark.parametrize("key", list(CASES), ids=str)
def test_a_broken_rule_proves_the_negative_sample_and_the_moved_call_refutes_it(key, monkeypatch):
    assert_break_caught(key, CASES[key][1], CASES[key][0], monkeypatch)
