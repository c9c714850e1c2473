"""The rule table's samples, in the manner of torch's ``OpInfo``: per key of ``RULES``, a small
call that dispatches that operation on ``x`` (``N x D`` random float64 points, moved on axis 0 by
the symmetric group) in a use that is equivariant (or invariant, as ``expect`` says).  The fast
tests (``tests/test_rule_samples.py``) loop over this table; a key without a sample fails there."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from gdlcheck.code.prover import table

aten = torch.ops.aten
F = torch.nn.functional
N, D = 6, 4
F64 = torch.float64


def c(*shape):
    """A constant of the sample: fixed, non-symmetric numbers (never laid along the points)."""
    size = 1
    for s in shape:
        size *= s
    return (torch.arange(size, dtype=F64).reshape(shape) * 0.37 + 0.1).sin()


NORM = (c(D), c(D), c(D).abs(), c(D).abs() + 1)  # weight, bias, running mean and variance
# an operator on the points every permutation keeps (P M P^T = M): alpha I + beta 11^T
OPERATOR = 0.7 * torch.eye(N, dtype=F64) + 0.2


def groups_of(x):
    """Two groups of the points, by the sign of their first coordinate (moving with them)."""
    return (x[:, 0] > 0).long()


@dataclass(frozen=True)
class Sample:
    fn: object
    expect: str = "equivariant"


def eq(fn):
    return Sample(fn)


def inv(fn):
    return Sample(fn, "invariant")


def _inference(fn):
    """The sample in inference mode, where torch keeps ``linear``, ``layer_norm`` and ``dropout`` whole."""

    def run(x):
        with torch.inference_mode():
            return fn(x)

    return run


def _bag(x, op):
    ids = groups_of(x)
    return op(c(2, D), ids, torch.tensor([0]), False, 1)[0]  # one bag, mean


def _encoder(x):
    return aten._transformer_encoder_layer_fwd(
        x[None],
        D,
        2,
        c(3 * D, D),
        c(3 * D),
        c(D, D),
        c(D),
        False,
        False,
        1e-5,
        torch.ones(D, dtype=F64),
        torch.zeros(D, dtype=F64),
        torch.ones(D, dtype=F64),
        torch.zeros(D, dtype=F64),
        c(8, D),
        c(8),
        c(D, 8),
        c(D),
    )[0]


def _heads(x):
    q = x.reshape(1, N, 2, 2).transpose(1, 2)
    return aten._scaled_dot_product_flash_attention_for_cpu(q, q, q)[0].transpose(1, 2).reshape(N, D)


SAMPLES = {
    table.POINTWISE: eq(lambda x: x.relu()),
    aten._embedding_bag.default: inv(lambda x: _bag(x, aten._embedding_bag)),
    aten._embedding_bag_forward_only.default: inv(lambda x: _bag(x, aten._embedding_bag_forward_only)),
    aten._log_softmax.default: eq(lambda x: x.log_softmax(-1)),
    aten._native_batch_norm_legit_no_training.default: eq(
        lambda x: aten._native_batch_norm_legit_no_training(x, *NORM, 0.1, 1e-5)[0]
    ),
    aten._native_multi_head_attention.default: eq(
        lambda x: aten._native_multi_head_attention(
            x[None], x[None], x[None], D, 2, c(3 * D, D), c(3 * D), c(D, D), c(D), None, False
        )[0][0]
    ),
    aten._prelu_kernel.default: eq(lambda x: aten._prelu_kernel(x, c(D))),
    aten._scaled_dot_product_flash_attention_for_cpu.default: eq(_heads),
    aten._safe_softmax.default: eq(lambda x: aten._safe_softmax(x, -1)),
    aten._softmax.default: eq(lambda x: x.softmax(-1)),
    aten._trilinear.default: eq(lambda x: F.bilinear(x, x.tanh(), c(3, D, D), c(3))),
    aten._sparse_addmm.default: eq(lambda x: torch.sparse.mm(OPERATOR.to_sparse(), x)),
    aten._to_copy.default: eq(lambda x: x.float()),
    aten._transformer_encoder_layer_fwd.default: eq(_encoder),
    aten._unsafe_view.default: eq(lambda x: aten._unsafe_view(x * 2, (N, 2, 2))),
    aten.addmm.default: eq(lambda x: aten.addmm(c(D), x, c(D, D))),
    aten.addmv.default: eq(lambda x: aten.addmv(c(1) + x.sum(), x, c(D))),
    aten.alias.default: eq(lambda x: aten.alias(x)),
    aten.rot90.default: eq(lambda x: torch.rot90(torch.rot90(x, 1, (0, 1)), -1, (0, 1))),
    aten.all.default: inv(lambda x: (x > -100).all()),
    aten.all.dim: eq(lambda x: (x > 0).all(1)),
    aten.amax.default: inv(lambda x: x.amax(0)),
    aten.amin.default: inv(lambda x: x.amin(0)),
    aten.any.default: inv(lambda x: (x > 0).any()),
    aten.any.dim: eq(lambda x: (x > 0).any(1)),
    aten.baddbmm.default: eq(lambda x: aten.baddbmm(c(1, 1, D), x[None], c(1, D, D))[0]),
    aten.bmm.default: eq(lambda x: aten.bmm(x[None], c(1, D, D))[0]),
    aten.cat.default: eq(lambda x: torch.cat([x, 2 * x], 1)),
    aten.clone.default: eq(lambda x: x.clone()),
    aten.convolution.default: eq(
        lambda x: aten.convolution(x[:, :, None], c(3, D, 1), c(3), [1], [0], [1], False, [0], 1)[:, :, 0]
    ),
    aten.copy_.default: eq(lambda x: torch.zeros(N, D, dtype=F64).copy_(x)),
    aten.add.Tensor: eq(lambda x: aten.add.Tensor(x, c(D))),
    aten.add_.Tensor: eq(lambda x: (2 * x).add_(c(D))),
    aten.diagonal.default: eq(lambda x: torch.diagonal(x @ x.T)[:, None] + x),
    aten.count_nonzero.dim_IntList: inv(lambda x: torch.count_nonzero(x > 0, dim=[0])),
    aten.cummax.default: eq(lambda x: x.cummax(1)[0]),
    aten.cummin.default: eq(lambda x: x.cummin(1)[0]),
    aten.cumprod.default: eq(lambda x: x.cumprod(1)),
    aten.cumsum.default: eq(lambda x: x.cumsum(1)),
    aten.detach.default: eq(lambda x: x.detach()),
    aten.embedding.default: eq(lambda x: aten.embedding(c(2, D), groups_of(x))),
    aten.empty_like.default: eq(lambda x: torch.empty_like(x).zero_() + x),
    aten.empty_strided.default: eq(lambda x: aten.empty_strided((N, D), (D, 1), dtype=F64).zero_() + x),
    aten.dropout.default: eq(_inference(lambda x: F.dropout(x, 0.5, False))),
    aten.feature_dropout.default: eq(_inference(lambda x: torch.feature_dropout(x, 0.5, False))),
    aten.alpha_dropout.default: eq(_inference(lambda x: torch.alpha_dropout(x, 0.5, False))),
    aten.feature_alpha_dropout.default: eq(_inference(lambda x: torch.feature_alpha_dropout(x, 0.5, False))),
    aten.eq.Tensor: eq(lambda x: x.eq(2 * x)),
    aten.expand.default: eq(lambda x: x[:, :1].expand(N, D)),
    aten.fill_.Scalar: eq(lambda x: x.clone().fill_(2.0) + x),
    aten.full_like.default: eq(lambda x: torch.full_like(x, 3.0) + x),
    aten.glu.default: eq(lambda x: aten.glu(x, 1)),
    aten.hardswish.default: eq(lambda x: F.hardswish(x)),
    aten.index.Tensor: eq(lambda x: x[:, torch.arange(D) % 2 == 0]),  # a mask of the points' values stops the proof
    aten.index_add.default: inv(lambda x: torch.zeros(2, D, dtype=F64).index_add(0, groups_of(x), x)),
    aten.index_add_.default: inv(lambda x: torch.zeros(2, D, dtype=F64).index_add_(0, groups_of(x), x)),
    aten.index_reduce.default: inv(
        lambda x: aten.index_reduce(torch.zeros(2, D, dtype=F64), 0, groups_of(x), x, "amax", include_self=False)
    ),
    aten.index_reduce_.default: inv(
        lambda x: torch.zeros(2, D, dtype=F64).index_reduce_(0, groups_of(x), x, "amax", include_self=False)
    ),
    aten.index_select.default: eq(lambda x: x.index_select(1, torch.tensor([1, 0]))),
    aten.index_put.default: eq(lambda x: aten.index_put(x, [x > 0], torch.tensor(0.5, dtype=F64))),
    aten.index_put_.default: eq(lambda x: x.clone().index_put_((torch.ones(N, dtype=torch.bool),), x * 2)),
    aten.index_copy.default: eq(lambda x: torch.zeros(N, D, dtype=F64).index_copy(0, torch.arange(N), x)),
    aten.index_copy_.default: inv(
        lambda x: torch.zeros(N + 2, D, dtype=F64).index_copy_(0, torch.arange(N + 1, 1, -1), x).sum(0)
    ),
    aten.layer_norm.default: eq(_inference(lambda x: F.layer_norm(x, (D,), c(D), c(D)))),
    aten.linear.default: eq(_inference(lambda x: F.linear(x, c(3, D), c(3)))),
    aten.lift_fresh.default: eq(lambda x: aten.lift_fresh(torch.ones(D, dtype=F64)) + x),
    aten.lift_fresh_copy.default: eq(lambda x: aten.lift_fresh_copy(c(D)) + x),
    aten.linalg_vector_norm.default: eq(lambda x: x.norm(dim=1)),
    aten.log_sigmoid_forward.default: eq(lambda x: F.logsigmoid(x)),
    aten.logcumsumexp.default: eq(lambda x: x.logcumsumexp(1)),
    aten.logsumexp.default: eq(lambda x: x.logsumexp(1)),
    aten.masked_fill_.Scalar: eq(lambda x: x.clone().masked_fill_(x > 0, 0.0)),
    aten.masked_fill_.Tensor: eq(lambda x: x.clone().masked_fill_(x > 0, torch.tensor(0.5, dtype=F64))),
    aten.max.default: inv(lambda x: x.max()),
    aten.max.dim: eq(lambda x: x.max(1)[0]),
    aten.mean.default: inv(lambda x: x.mean()),
    aten.mean.dim: eq(lambda x: x.mean(1)),
    aten.min.default: inv(lambda x: x.min()),
    aten.min.dim: eq(lambda x: x.min(1)[0]),
    aten.mm.default: eq(lambda x: aten.mm(OPERATOR, aten.mm(x, c(D, D)))),
    aten.mv.default: eq(lambda x: aten.mv(x, c(D))),
    aten.nansum.default: inv(lambda x: x.nansum()),
    aten.native_batch_norm.default: eq(lambda x: aten.native_batch_norm(x, *NORM, False, 0.1, 1e-5)[0]),
    aten.native_group_norm.default: eq(lambda x: F.group_norm(x.T[None], 2, c(D), c(D))[0].T),
    aten.native_layer_norm.default: eq(lambda x: F.layer_norm(x, (D,))),
    aten.ne.Tensor: eq(lambda x: x.ne(2 * x)),
    aten.new_empty.default: eq(lambda x: x.new_empty((N, D)).zero_() + x),
    aten.new_empty_strided.default: eq(lambda x: x.new_empty_strided((N, D), (D, 1)).zero_() + x),
    aten.new_full.default: eq(lambda x: x.new_full((N, D), 1.5) + x),
    aten.new_ones.default: eq(lambda x: x.new_ones((N, D)) + x),
    aten.new_zeros.default: eq(lambda x: x.new_zeros((N, D)) + x),
    aten.nonzero.default: eq(
        lambda x: x[:, torch.nonzero(torch.arange(D) % 2 == 0)[:, 0]]
    ),  # of the points' values: stops
    aten.ones_like.default: eq(lambda x: torch.ones_like(x) + x),
    aten.permute.default: eq(lambda x: x[None].permute(1, 0, 2)[:, 0]),
    aten.numpy_T.default: eq(_inference(lambda x: x.T.T + (x.T * 2).T)),
    aten.contiguous.default: eq(_inference(lambda x: x.T.contiguous().T.contiguous())),
    aten.prod.default: inv(lambda x: x.prod()),
    aten.prod.dim_int: eq(lambda x: x.prod(1)),
    aten.scatter_add.default: inv(
        lambda x: torch.zeros(2, D, dtype=F64).scatter_add(0, groups_of(x)[:, None].expand(N, D), x)
    ),
    aten.scatter_add_.default: inv(
        lambda x: torch.zeros(2, D, dtype=F64).scatter_add_(0, groups_of(x)[:, None].expand(N, D), x)
    ),
    aten.scatter_reduce.two: inv(
        lambda x: torch.zeros(2, D, dtype=F64).scatter_reduce(
            0, groups_of(x)[:, None].expand(N, D), x, "amax", include_self=False
        )
    ),
    aten.scatter_reduce_.two: inv(
        lambda x: torch.zeros(2, D, dtype=F64).scatter_reduce_(
            0, groups_of(x)[:, None].expand(N, D), x, "amax", include_self=False
        )
    ),
    aten.repeat.default: eq(lambda x: x.repeat(1, 2)[:, 1 : D + 1] + x.sum(0, keepdim=True).repeat(N, 1)),
    aten.roll.default: eq(lambda x: x.roll(1, 1)),
    aten.reshape.default: eq(_inference(lambda x: x.reshape(N, 2, 2).reshape(N, D))),
    aten.scaled_dot_product_attention.default: eq(
        _inference(lambda x: F.scaled_dot_product_attention(x[None], x[None], x[None])[0])
    ),
    aten.select.int: eq(lambda x: x[:, 0]),
    aten.slice.Tensor: eq(lambda x: x[:, 1:3]),
    aten.sort.default: eq(lambda x: x.sort(1)[0]),
    aten.sort.stable: eq(lambda x: torch.sort(x, dim=1, stable=True)[0]),
    aten.split.Tensor: eq(lambda x: x.split(2, 1)[0]),
    aten.linalg_cross.default: eq(lambda x: torch.linalg.cross(x[:, :3], x[:, 1:] + c(3))),
    aten.flip.default: eq(lambda x: x.flip(0, 1).flip(0)),
    aten.gather.default: eq(lambda x: x.gather(1, (x[:, :2] > 0).long())),
    aten.scatter.value: eq(lambda x: torch.zeros(N, D, dtype=F64).scatter(1, (x[:, :1] > 0).long(), 1.0)),
    aten.scatter_.value: eq(lambda x: torch.zeros(N, D, dtype=F64).scatter_(1, (x[:, :1] > 0).long(), 1.0)),
    aten.unsafe_split.Tensor: eq(lambda x: aten.unsafe_split(x, 2, 1)[0]),
    aten.split_with_sizes.default: eq(lambda x: x.split([1, 3], 1)[1]),
    aten.squeeze_.default: eq(lambda x: x.clone().squeeze_()),
    aten.squeeze_.dim: eq(lambda x: x[None].clone().squeeze_(0)),
    aten.squeeze_.dims: eq(lambda x: x[None].clone().squeeze_((0,))),
    aten.squeeze.default: eq(lambda x: x[None].squeeze()),
    aten.squeeze.dim: eq(lambda x: x[None].squeeze(0)),
    aten.squeeze.dims: eq(lambda x: x[None].squeeze((0,))),
    aten.stack.default: eq(lambda x: torch.stack([x, c(D).expand(N, D), x.amax(0).expand(N, D)], 1)),
    aten.std.correction: eq(lambda x: x.std(1)),
    aten.std_mean.correction: eq(lambda x: torch.std_mean(x, 1)[0]),
    aten.sum.default: inv(lambda x: x.sum()),
    aten.sum.dim_IntList: eq(lambda x: x.sum(1)),
    aten.t.default: eq(lambda x: aten.t(aten.t(x))),
    aten.topk.default: eq(lambda x: x.topk(2, 1)[0]),
    aten.transpose_.default: eq(lambda x: x.clone().transpose_(0, 1).T),
    aten.transpose.int: eq(lambda x: x.transpose(0, 1).transpose(0, 1)),
    aten.unbind.int: eq(lambda x: x.unbind(1)[0]),
    aten.unsqueeze_.default: eq(lambda x: x.clone().unsqueeze_(1)[:, 0]),
    aten.unsqueeze.default: eq(lambda x: x.unsqueeze(1)[:, 0]),
    aten.var.correction: eq(lambda x: x.var(1)),
    aten.var_mean.correction: eq(lambda x: torch.var_mean(x, 1)[0]),
    aten.view.default: eq(lambda x: x.view(N, 2, 2)),
    aten.zero_.default: eq(lambda x: x.clone().zero_() + x),
    aten.zeros_like.default: eq(lambda x: torch.zeros_like(x) + x),
}


# The rules for moves that swap axes (``table.TURNED``), each with a sample on ``(C, S, S)`` random
# float64 images moved on axes (1, 2) by ``p4m``: its rotation swaps the grid's axes.
C, S = 2, 4


@dataclass(frozen=True)
class GridSample:
    fn: object
    expect: str = "equivariant"
    outputs: object = None  # where the output's points are, when not on axes (1, 2)


def geq(fn, outputs=None):
    return GridSample(fn, outputs=outputs)


def ginv(fn):
    return GridSample(fn, "invariant")


def _both(x, op):
    """A reduction over the channels (the grid's axes kept, swapped) plus one over the grid."""
    return op(x, (0,), keepdim=True) + op(op(x, (1, 2), keepdim=True), (0,), keepdim=True)


def d4_kernel(out: int, inp: int, k: int, left: int, n: int):
    """A kernel of ``k x k`` taps whose tap ``t`` reads the offset ``u = t - left mod n`` of an image
    ``n`` wide padded circularly by ``left`` (``F.pad``), with one value per orbit of the offsets under
    the turns and mirrors of ``Z_n^2``: every element of ``p4m`` keeps it, bit for bit."""
    index, orbits = torch.empty(k, k, dtype=torch.long), {}
    for t0 in range(k):
        for t1 in range(k):
            u0, u1 = (t0 - left) % n, (t1 - left) % n
            key = min(((s0 * a) % n, (s1 * b) % n) for a, b in ((u0, u1), (u1, u0)) for s0 in (1, -1) for s1 in (1, -1))
            index[t0, t1] = orbits.setdefault(key, len(orbits))
    return c(out, inp, len(orbits))[:, :, index]


def _padded(x, kernel, left: int, right: int, bias=None):
    """A circular convolution written by hand: ``F.pad(mode="circular")`` then ``F.conv2d``."""
    return F.conv2d(F.pad(x[None], (left, right, left, right), mode="circular"), kernel, bias)[0]


# one kernel in its eight turns and mirrors: the channels of a p4m lifting layer, which p4m permutes
_KERNEL = c(1, C, 3, 3)
LIFT = torch.cat([torch.rot90(k, r, (-2, -1)) for k in (_KERNEL, _KERNEL.flip(-1)) for r in range(4)])
D4_CENTRED, D4_WIDE = d4_kernel(3, C, 3, 1, S), d4_kernel(3, C, S, S - 1, S)

GRID_SAMPLES = {
    table.POINTWISE: geq(lambda x: x.relu() * x + 1.5),
    aten._prelu_kernel.default: geq(lambda x: aten._prelu_kernel(x, torch.tensor([0.25], dtype=F64))),
    aten.masked_fill_.Scalar: geq(lambda x: x.clone().masked_fill_(x > 0, 0.0)),
    aten.masked_fill_.Tensor: geq(lambda x: x.clone().masked_fill_(x > 0, torch.tensor(0.5, dtype=F64))),
    aten.rot90.default: geq(
        lambda x: torch.rot90(torch.rot90(x, 1, (1, 2)), 3, (1, 2)) + torch.rot90(x, 2, (1, 2)).flip(1, 2)
    ),
    aten.flip.default: geq(lambda x: x.flip(1).flip(1) + x.flip(1, 2).flip(2, 1)),
    aten.alias.default: geq(lambda x: aten.alias(x)),
    aten.detach.default: geq(lambda x: x.detach()),
    aten.clone.default: geq(lambda x: x.clone()),
    aten._to_copy.default: geq(lambda x: x.float()),
    aten.transpose.int: geq(lambda x: x.transpose(1, 2).transpose(2, 1)),
    aten.t.default: geq(lambda x: x[0].t().t()[None]),
    aten.numpy_T.default: geq(_inference(lambda x: x * x[0].T.T[None])),
    aten.contiguous.default: geq(_inference(lambda x: x.transpose(1, 2).contiguous().transpose(1, 2).contiguous())),
    aten.permute.default: geq(lambda x: x.permute(2, 0, 1).permute(1, 2, 0)),
    aten.unsqueeze.default: geq(lambda x: x.unsqueeze(3)[..., 0]),
    aten.squeeze.default: geq(lambda x: x[None].squeeze()),
    aten.squeeze.dim: geq(lambda x: x[None].squeeze(0)),
    aten.squeeze.dims: geq(lambda x: x[None].squeeze((0,))),
    aten.expand.default: geq(lambda x: x[None].expand(3, -1, -1, -1).sum(0)),
    aten.select.int: geq(lambda x: x[1][None]),
    # merged, then split back into the grid's axes (the split's move swaps them: layout's view), merged
    aten.view.default: geq(lambda x: x.flatten(1) + x.flatten(1).view(C, S, S).flatten(1), outputs="points:1"),
    aten._unsafe_view.default: geq(lambda x: aten._unsafe_view(x * 2, (C, S * S)), outputs="points:1"),
    aten.copy_.default: geq(lambda x: torch.zeros(C, S, S, dtype=F64).copy_(x)),
    aten.sum.dim_IntList: geq(lambda x: _both(x, torch.sum)),
    aten.mean.dim: geq(lambda x: _both(x, torch.mean)),
    aten.sum.default: ginv(lambda x: x.sum()),
    aten.mean.default: ginv(lambda x: x.mean()),
    aten.amax.default: geq(lambda x: _both(x, torch.amax)),
    aten.amin.default: geq(lambda x: _both(x, torch.amin)),
    aten.var.correction: ginv(lambda x: x.var((1, 2))),
    aten.std.correction: ginv(lambda x: x.std((1, 2))),
    aten.logsumexp.default: ginv(lambda x: x.logsumexp((1, 2))),
    aten.linalg_vector_norm.default: ginv(lambda x: torch.linalg.vector_norm(x, dim=(1, 2))),
    aten.max.default: ginv(lambda x: x.max()),
    aten.min.default: ginv(lambda x: x.min()),
    # width 1; padded circularly with centred taps, with taps as wide as the grid (gdlcheck.nn's
    # layout), and a lifting layer's channels (permuted by p4m) pooled
    aten.convolution.default: geq(
        lambda x: (
            F.conv2d(x[None], c(3, C, 1, 1), c(3))[0]
            + _padded(x, D4_CENTRED, 1, 1, c(3))
            + _padded(x, D4_WIDE, S - 1, 0)
            + _padded(x, LIFT, 1, 1).amax(0, keepdim=True)
        )
    ),
    aten.cat.default: geq(lambda x: torch.cat([x, x.relu(), torch.ones(1, 1, 1, dtype=F64).expand(1, S, S)])),
    aten.stack.default: geq(lambda x: torch.stack([x, 2 * x]).sum(0)),
    aten.slice.Tensor: geq(lambda x: x[1:]),
    aten.split.Tensor: geq(lambda x: x.split(1)[1]),
    aten.split_with_sizes.default: geq(lambda x: x.split([1, 1])[0]),
    aten._native_batch_norm_legit_no_training.default: geq(
        lambda x: aten._native_batch_norm_legit_no_training(x[None], c(C), c(C), c(C), c(C).abs() + 1, 0.1, 1e-5)[0][0]
    ),
    aten.native_batch_norm.default: geq(lambda x: F.batch_norm(x[None], c(C), c(C).abs() + 1, c(C), c(C), False)[0]),
    aten.native_layer_norm.default: geq(lambda x: F.layer_norm(x.permute(1, 2, 0), (C,), c(C), c(C)).permute(2, 0, 1)),
}


class SampleModule(torch.nn.Module):
    """A sample as the module the prover proves."""

    def __init__(self, sample: Sample):
        super().__init__()
        self.sample = sample

    def forward(self, x):
        return self.sample.fn(x)
