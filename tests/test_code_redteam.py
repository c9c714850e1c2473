"""The red team's wrong ``holds`` against the tracer that follows the call, each fixed: with
``method="exact"`` none of these modules is proved (they do not commute with the group).  The
module of each is the red team's reproducer, cut down; the finding's number is in its name."""

import itertools
import random
import time

import numpy as np
import pytest

# every test here runs torch (the marker: pytest -m "not slow" is the loop without it)
pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

F = torch.nn.functional
N, D = 5, 3


# not proved: a guard stops the proof (inconclusive), or the proof's moved call shows a counterexample (fails)
NOT_PROVED = ("inconclusive", "fails")


def exact(module, group="symmetric", shape=(N, D), **kw):
    return gdlcheck.verify_callable(module, group, shape=shape, method="exact", **kw).verdict


class F1FillView(torch.nn.Module):
    def forward(self, x):
        z = x.clone()
        z[0].fill_(0.0)
        return z


class F1ZeroSlice(torch.nn.Module):
    def forward(self, x):
        z = x.clone()
        z[0:2].zero_()
        return z


class F2ParamWrap(torch.nn.Module):
    def forward(self, x):
        return x + torch.nn.Parameter(x, requires_grad=False)[0]


class F2AsSubclass(torch.nn.Module):
    def forward(self, x):
        class T(torch.Tensor):
            pass

        return x + x.as_subclass(T).as_subclass(torch.Tensor)[0]


class F7TensorOfTensors(torch.nn.Module):
    def forward(self, x):
        return x + torch.tensor([x[0, 0], x[0, 1], x[0, 2]], dtype=x.dtype)


class F8Apply(torch.nn.Module):
    def forward(self, x):
        z = x.clone()
        c = itertools.count()
        z.apply_(lambda v: v + next(c))
        return z


class F16Foreach(torch.nn.Module):
    def forward(self, x):
        z = torch.zeros(N, D, dtype=x.dtype)
        torch._foreach_add_([z], [x])
        return x + z[0]


class F5GlobalCounter(torch.nn.Module):
    calls = [0]

    def forward(self, x):
        self.calls[0] += 1
        return x * self.calls[0]


class F5Clock(torch.nn.Module):
    def forward(self, x):
        return x * (1.0 + (time.perf_counter_ns() % 1000) / 1000.0)


class F5OwnRandom(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.r = random.Random(0)

    def forward(self, x):
        return x * self.r.random()


class F18SignedZero(torch.nn.Module):
    def __init__(self):
        super().__init__()
        c = torch.zeros(N, 1)
        c[0] = -0.0
        self.register_buffer("c", c)

    def forward(self, x):
        return torch.copysign(x, self.c)


@pytest.mark.parametrize(
    "module",
    [
        F1FillView(),
        F1ZeroSlice(),
        F2ParamWrap(),
        F2AsSubclass(),
        F7TensorOfTensors(),
        F8Apply(),
        F16Foreach(),
        F5GlobalCounter(),
        F5Clock(),
        F5OwnRandom(),
        F18SignedZero(),
    ],
    ids=lambda m: type(m).__name__,
)
def test_a_module_that_does_not_commute_is_not_proved(module):
    assert exact(module) in NOT_PROVED


class F16BatchStats(torch.nn.Module):
    def forward(self, x):  # x : (B=2, N): the points are batch norm's channels
        rm, rv = torch.zeros(N, dtype=x.dtype), torch.ones(N, dtype=x.dtype)
        F.batch_norm(x, rm, rv, training=True, momentum=1.0)
        return x + rm[0]


def test_batch_norm_in_training_mode_writes_its_running_statistics():
    assert exact(F16BatchStats(), shape=(2, N), points_axis=1) in NOT_PROVED


POS = torch.arange(N, dtype=torch.float64)[:, None].repeat(1, D)


class F6EqualBranch(torch.nn.Module):
    def forward(self, x, pos):
        if torch.equal(pos, pos.sort(0).values):
            return x * 2 + pos
        return x * 3 + pos


class F13TryExcept(torch.nn.Module):
    def forward(self, x, pos):
        try:
            x.index_select(0, pos[:2, 0].long() * 100)
            return x * 2 + pos[:, :1]
        except IndexError:
            return x * 3 + pos[:, :1]


class F17CountRow0(torch.nn.Module):
    def forward(self, x, pos):
        return x * pos[0][pos[0] > 2].shape[0] + pos[:, :1]


@pytest.mark.parametrize("module", [F6EqualBranch(), F13TryExcept(), F17CountRow0()], ids=lambda m: type(m).__name__)
def test_a_path_that_depends_on_given_values_under_the_group_is_not_proved(module):
    assert exact(module, inputs=["points", gdlcheck.points(POS.numpy())]) in NOT_PROVED


def test_one_tensor_given_as_two_arguments_that_move_differently_is_not_proved():
    class M(torch.nn.Module):
        def forward(self, x, p, u):
            return x + u - p

    T = np.random.default_rng(0).standard_normal((N, D))
    assert exact(M(), inputs=["points", gdlcheck.points(T), gdlcheck.unchanged(T)]) in NOT_PROVED


EI = np.array([[0, 0, 0, 1, 2, 3, 4, 5], [1, 2, 3, 2, 3, 4, 5, 0]])


def test_a_shape_read_from_a_graph_and_scattered_labels_are_not_proved():
    class Degree(torch.nn.Module):
        def forward(self, x, ei):
            return x * ei[:, ei[0] == 0].shape[1]

    class ScatterLabels(torch.nn.Module):
        def forward(self, x, ei):
            out = torch.zeros(6, dtype=ei.dtype).index_add_(0, torch.arange(ei.shape[1]) % 6, ei[1])
            return x * out.double().pow(2).sum()

    for module in (Degree(), ScatterLabels()):
        assert exact(module, shape=(6, D), inputs=["points", gdlcheck.graph(EI)]) in NOT_PROVED


class F9HyperConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular", bias=False)

    def forward(self, x):
        return torch.func.functional_call(self.conv, {"weight": x[:, :3].reshape(1, 1, 3)}, (x,))


class F9PatchedConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular")
        orig = self.conv._conv_forward
        self.conv._conv_forward = lambda x, w, b: orig(x, w, b) + torch.arange(x.shape[-1], dtype=x.dtype)

    def forward(self, x):
        return self.conv(x)


def test_a_convolution_unit_is_the_class_as_torch_defines_it_only():
    for module in (F9HyperConv(), F9PatchedConv()):
        assert exact(module, "cyclic", shape=(1, 6), points_axis=1) in NOT_PROVED

    def hook(mod, inp, out):
        if isinstance(mod, torch.nn.Conv1d):
            return out + torch.arange(out.shape[-1], dtype=out.dtype)

    handle = torch.nn.modules.module.register_module_forward_hook(hook)
    try:
        conv = torch.nn.Sequential(torch.nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular"))
        assert exact(conv, "cyclic", shape=(1, 6), points_axis=1) in NOT_PROVED
    finally:
        handle.remove()
    plain = torch.nn.Sequential(torch.nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular"))
    assert exact(plain, "cyclic", shape=(1, 6), points_axis=1) == "holds"


B, S, E, H = 4, 3, 4, 2


class F10Encoder3D(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.layer = torch.nn.TransformerEncoderLayer(E, H, dim_feedforward=8, dropout=0.0, batch_first=True)
        m = torch.zeros(B * H, S, S)
        m[0:H, 0, 1] = float("-inf")
        self.register_buffer("mask", m)

    def forward(self, x):
        return self.layer(x, src_mask=self.mask)


class F11ConstantQueries(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.q = torch.nn.Parameter(torch.randn(B, H, S, E))

    def forward(self, x):
        return F.scaled_dot_product_attention(self.q, x, x)


class F11DecoderMemory(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.d = torch.nn.TransformerDecoderLayer(E, H, 8, dropout=0.0, batch_first=True)
        self.mem = torch.nn.Parameter(torch.randn(B, S, E))

    def forward(self, x):
        return self.d(x, self.mem)


def test_attention_checks_the_batch_axes_of_masks_and_constants():
    assert exact(F10Encoder3D(), shape=(B, S, E), points_axis=0) in NOT_PROVED
    assert exact(F11ConstantQueries(), shape=(B, H, S, E), points_axis=0) in NOT_PROVED
    assert exact(F11DecoderMemory(), shape=(B, S, E), points_axis=0) in NOT_PROVED
