"""More deliberately broken rules caught (issue 28), in the manner of ``test_hunt7_broken_rules.py``.

Each key has a *negative* sample (a use of the operation that a float64 trial shows is not
equivariant, or not invariant) and a plausible broken rule: the output said to move as the first
moving input does (a transpose slip, a fixed operand or index forgotten: elementwise instead of
structural), or to be fixed (a reduction read over the wrong axis).  The real rule, the moved
call's cross-check off, must not prove the sample; the broken rule in its place proves it (so the
first check would catch the break), and the moved call says ``fails``."""

import pytest

torch = pytest.importorskip("torch")

from rule_samples import F64, D, N, Sample, c  # noqa: E402
from test_hunt7_broken_rules import (  # noqa: E402
    _both,
    _moving,
    _square,
    assert_break_caught,
    assert_not_equivariant_nor_proved,
)

from gdlcheck.code.prover import moves as mv  # noqa: E402
from gdlcheck.code.prover import table  # noqa: E402
from gdlcheck.code.prover.rules.elementwise import elementwise  # noqa: E402

aten = torch.ops.aten
F = torch.nn.functional
ROWS = torch.tensor([0, 0, 1, 2, 3, 4])  # a fixed index along the points, not a permutation
CYCLE = torch.tensor([1, 2, 0, 3, 4, 5])  # a fixed permutation of the points that (0 1) does not commute with


def _inv(fn):
    return Sample(fn, "invariant")


def _stacked(call):
    """``stack`` on axis 1 reading only its first tensor: the points stay on axis 0."""
    return mv.Moves((_moving(call).axes[0], None, None))


def _normed(call):
    """A norm whose statistics or weights are along the points, read as elementwise (its other outputs fixed)."""
    m = _moving(call)
    return (m, None, None)


def _inference(fn):
    """The sample in inference mode, where torch keeps ``layer_norm`` whole."""

    def run(x):
        with torch.inference_mode():
            return fn(x)

    return run


def _first(call):
    """A one-axis output said to move as the first axis of the moving input."""
    return mv.Moves(_moving(call).axes[:1])


def _swapped(call):
    """The moves of a two-axis input, its axes swapped: a layout that undoes a transpose it did not."""
    return mv.Moves(tuple(reversed(_moving(call).axes)))


def _zeros():
    return torch.zeros(N, D, dtype=F64)


# key -> (a use that is not equivariant (or not invariant), a subtly wrong rule; None: _still)
CASES = {
    # scans along the points read as elementwise, or as moving their values and indices alike
    aten.cumprod.default: (Sample(lambda x: x.cumprod(0)), elementwise),
    aten.logcumsumexp.default: (Sample(lambda x: x.logcumsumexp(0)), elementwise),
    aten.cummin.default: (Sample(lambda x: x.cummin(0).values), _both),
    aten.topk.default: (Sample(lambda x: x.topk(N, 0).values), _both),
    # a fixed index or operand along the points forgotten: the output moves as the moving input
    aten.gather.default: (Sample(lambda x: x.gather(0, ROWS[:, None].expand(N, D))), _moving),
    aten.index.Tensor: (Sample(lambda x: x[ROWS]), _moving),
    aten.index_add.default: (Sample(lambda x: _zeros().index_add(0, ROWS, x)), _moving),
    aten.index_copy.default: (Sample(lambda x: _zeros().index_copy(0, CYCLE, x)), _moving),
    aten.index_put_.default: (
        Sample(lambda x: x.clone().index_put_((ROWS[:1],), torch.tensor(0.0, dtype=F64))),
        _moving,
    ),
    aten.scatter_add.default: (Sample(lambda x: _zeros().scatter_add(0, ROWS[:, None].expand(N, D), x)), _moving),
    aten.scatter_reduce.two: (
        Sample(lambda x: _zeros().scatter_reduce(0, ROWS[:, None].expand(N, D), x, "amax", include_self=False)),
        _moving,
    ),
    aten.masked_fill_.Scalar: (Sample(lambda x: x.clone().masked_fill_(c(N, D) > 0.5, 0.0)), _moving),
    aten.mm.default: (Sample(lambda x: aten.mm(c(N, N), x)), _moving),
    aten.bmm.default: (Sample(lambda x: aten.bmm(c(1, N, N), x[None])[0]), _moving),
    aten.mv.default: (Sample(lambda x: aten.mv(c(N, N), x[:, 0])[:, None] + x), _moving),
    aten.addmm.default: (Sample(lambda x: aten.addmm(c(N, D), x, c(D, D))), _moving),
    aten.addmv.default: (Sample(lambda x: aten.addmv(c(N), x, c(D))), _moving),
    aten.baddbmm.default: (Sample(lambda x: aten.baddbmm(c(1, N, D), x[None], c(1, D, D))[0]), _moving),
    aten.stack.default: (Sample(lambda x: torch.stack([x, c(N, D)], 1)), _stacked),
    aten.permute.default: (Sample(lambda x: _square(x).permute(1, 0).contiguous()[:, :D]), _moving),
    aten.convolution.default: (Sample(lambda x: F.conv1d(x.T[None], c(D, D, 3), padding=1)[0].T), _moving),
    aten.index_add_.default: (Sample(lambda x: _zeros().index_add_(0, ROWS, x)), _moving),
    aten.index_copy_.default: (Sample(lambda x: _zeros().index_copy_(0, CYCLE, x)), _moving),
    aten.index_reduce.default: (
        Sample(lambda x: aten.index_reduce(_zeros(), 0, ROWS, x, "amax", include_self=False)),
        _moving,
    ),
    aten.scatter_add_.default: (Sample(lambda x: _zeros().scatter_add_(0, ROWS[:, None].expand(N, D), x)), _moving),
    aten.scatter_reduce_.two: (
        Sample(lambda x: _zeros().scatter_reduce_(0, ROWS[:, None].expand(N, D), x, "sum", include_self=False)),
        _moving,
    ),
    aten.sort.stable: (Sample(lambda x: torch.sort(x, dim=0, stable=True).values), _both),
    aten.transpose_.default: (Sample(lambda x: _square(x).clone().transpose_(0, 1)[:, :D]), _moving),
    aten.native_layer_norm.default: (Sample(lambda x: F.layer_norm(x.T, (N,), c(N), c(N)).T), _normed),
    aten.std.correction: (_inv(lambda x: x.std(1)), None),
    aten.any.dim: (_inv(lambda x: (x > 0).any(1).double()), None),
    aten.all.dim: (_inv(lambda x: (x < 1).all(1).double()), None),
    aten.masked_fill_.Tensor: (
        Sample(lambda x: x.clone().masked_fill_(c(N, D) > 0.5, torch.tensor(0.5, dtype=F64))),
        _moving,
    ),
    aten.index_put.default: (Sample(lambda x: aten.index_put(x, [ROWS[:1]], torch.tensor(0.0, dtype=F64))), _moving),
    aten.scatter.value: (Sample(lambda x: x.scatter(1, CYCLE[:, None] % D, 0.0)), _moving),
    aten.scatter_.value: (Sample(lambda x: x.clone().scatter_(1, CYCLE[:, None] % D, 0.0)), _moving),
    aten.embedding.default: (Sample(lambda x: aten.embedding(x, ROWS)), _moving),
    aten.diagonal.default: (Sample(lambda x: torch.diagonal(x @ c(D, N))[:, None] + x), _first),
    # a layout read with the wrong axis moving
    aten.view.default: (Sample(lambda x: x.T.contiguous().view(N, D)), _swapped),
    aten.expand.default: (Sample(lambda x: x[:, :1].T.expand(N, N).contiguous()[:, :D]), _swapped),
    aten._unsafe_view.default: (Sample(lambda x: aten._unsafe_view((x.T * 2).contiguous(), (N, D))), _swapped),
    # an elementwise operation (where, add) with a fixed operand laid along the points, read as one
    # with constants broadcast along the channels only
    table.POINTWISE: (Sample(lambda x: torch.where(c(N, D) > 0.5, x, 0.0)), _moving),
    aten.add.Tensor: (Sample(lambda x: aten.add.Tensor(x, c(N, D))), _moving),
    aten.glu.default: (_inv(lambda x: aten.glu(x, 0)), None),
    aten.layer_norm.default: (Sample(_inference(lambda x: F.layer_norm(x.t(), (N,), c(N), c(N)).t())), _moving),
    aten.linear.default: (Sample(_inference(lambda x: F.linear(x.t(), c(N, N)).t())), _moving),
    aten.index_reduce_.default: (
        Sample(lambda x: _zeros().index_reduce_(0, ROWS, x, "amax", include_self=False)),
        _moving,
    ),
    aten._sparse_addmm.default: (Sample(lambda x: torch.sparse.mm(c(N, N).to_sparse(), x)), _moving),
    aten._trilinear.default: (Sample(lambda x: F.bilinear(x, c(N, D), c(3, D, D), c(3))), _moving),
    aten._prelu_kernel.default: (Sample(lambda x: aten._prelu_kernel(x.t(), c(N)).t()), _moving),
    aten._native_batch_norm_legit_no_training.default: (
        Sample(
            lambda x: aten._native_batch_norm_legit_no_training(x[None], c(N), c(N), c(N), c(N).abs() + 1, 0.1, 1e-5)[
                0
            ][0]
        ),
        _normed,
    ),
    aten.native_batch_norm.default: (
        Sample(lambda x: aten.native_batch_norm(x[None], c(N), c(N), c(N), c(N).abs() + 1, False, 0.1, 1e-5)[0][0]),
        _normed,
    ),
    # a piece of the points read as fixed
    aten.split_with_sizes.default: (_inv(lambda x: x.split([2, 4])[0]), None),
    aten.unsafe_split.Tensor: (_inv(lambda x: aten.unsafe_split(x, 3)[0]), None),
    aten._safe_softmax.default: (_inv(lambda x: aten._safe_softmax(x, 0)), None),
    aten.split.Tensor: (_inv(lambda x: x.split(3)[0]), None),
    aten.slice.Tensor: (_inv(lambda x: x[1:3]), None),
    aten.unbind.int: (_inv(lambda x: x.unbind(0)[0]), None),
    aten.max.dim: (_inv(lambda x: x.max(1).values), None),
    aten.min.dim: (_inv(lambda x: x.min(1).values), None),
    aten.std_mean.correction: (_inv(lambda x: torch.std_mean(x, 1)[0]), None),
    aten.var_mean.correction: (_inv(lambda x: torch.var_mean(x, 1)[1]), None),
    aten.count_nonzero.dim_IntList: (_inv(lambda x: torch.count_nonzero(x > 0, dim=[1])), None),
    # a reduction over the channels read as one over the points: its output said fixed
    aten.mean.dim: (_inv(lambda x: x.mean(1)), None),
    aten.amax.default: (_inv(lambda x: x.amax(1)), None),
    aten.amin.default: (_inv(lambda x: x.amin(1)), None),
    aten.prod.dim_int: (_inv(lambda x: x.prod(1)), None),
    aten.logsumexp.default: (_inv(lambda x: x.logsumexp(1)), None),
    aten.var.correction: (_inv(lambda x: x.var(1)), None),
    aten.linalg_vector_norm.default: (_inv(lambda x: x.norm(dim=1)), None),
    aten._softmax.default: (_inv(lambda x: x.softmax(0)), None),
    aten._log_softmax.default: (_inv(lambda x: x.log_softmax(0)), None),
    aten.select.int: (_inv(lambda x: x[:, 0]), None),
}


def _still(call):
    """Every output said to be fixed: a reduction over the channels read as one over the points,
    or a piece of the points read as if it did not depend on which points are where."""
    if isinstance(call.out, (list, tuple)):
        return type(call.out)(mv.still(t.dim()) for t in call.out)
    return mv.still(call.out.dim())


def _name(key):
    return "POINTWISE" if key is table.POINTWISE else str(key)


def _broken(key):
    wrong = CASES[key][1]
    return wrong if wrong is not None else _still


@pytest.mark.parametrize("key", list(CASES), ids=_name)
def test_the_negative_sample_is_not_equivariant_and_its_rule_does_not_prove_it(key, monkeypatch):
    assert_not_equivariant_nor_proved(CASES[key][0], monkeypatch)


@pytest.mark.parametrize("key", list(CASES), ids=_name)
def test_a_broken_rule_proves_the_negative_sample_and_the_moved_call_refutes_it(key, monkeypatch):
    assert_break_caught(key, _broken(key), CASES[key][0], monkeypatch)
