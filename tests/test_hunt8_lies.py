"""Eighth soundness hunt (issue 28): values a rule read through the program's own methods.

A circular convolution under a reflection of its ring is equivariant when its taps are centred
and its kernel is symmetric.  The rules read the pad amounts with ``int()``, the padding mode
with ``==`` and the kernel with ``.detach()``; torch computes with the values underneath.  An
``int`` subclass whose ``int()`` says 2 where torch pads by 4 and 0, a ``tuple`` subclass whose
iteration says ``(2, 2)``, a ``str`` subclass equal to ``"circular"`` that torch reads as
``"reflect"``, and a ``Parameter`` subclass whose ``detach`` returns a symmetric kernel made the
rules prove a convolution that is not reflection-equivariant: the rules alone said ``holds``, and
with the moved call, every seed whose element is a rotation said ``holds`` too (exact and auto,
n = 8 and 1400).  The rules now read only torch's own types (``int``, ``str``, ``list``/``tuple``,
``Parameter``/``Tensor``) and stop elsewhere."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import prove  # noqa: E402

F = torch.nn.functional
N, D = 8, 3


class Lie(int):
    """An int whose ``int()`` is 2: torch reads the int itself."""

    def __int__(self):
        return 2


class Circular(str):
    """A string equal to every string by its own ``==``: torch reads the string itself."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


class Centred(tuple):
    """Pads that iterate as ``(2, 2)``: torch reads the items themselves."""

    def __iter__(self):
        return iter((2, 2))


class Symmetrised(torch.nn.Parameter):
    """A kernel whose ``detach`` is its symmetric part: torch convolves with the kernel itself."""

    def detach(self):
        t = torch.Tensor.detach(self)
        return (t + t.flip(-1)) / 2


def _symmetric(k):
    w = torch.randn(D, D, k, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    return w + w.flip(-1)


class Along(torch.nn.Module):
    """``f`` applied to ``x.T[None]`` (the points along the last axis), transposed back."""

    def __init__(self, f, **parts):
        super().__init__()
        self.f = f
        for name, value in parts.items():
            setattr(self, name, value)

    def forward(self, x):
        return self.f(self, x.T[None])[0].T


def _conv(k, padding, **attributes):
    conv = torch.nn.Conv1d(D, D, k, padding=padding, padding_mode="circular", bias=False).double()
    with torch.no_grad():
        conv.weight.copy_(_symmetric(k))
    for name, value in attributes.items():
        setattr(conv, name, value)
    return conv


def _asymmetric_kernel_shown_symmetric():
    conv = _conv(3, 1)
    w = conv.weight.detach().clone()
    w[..., 0] += 1.0
    conv.weight = Symmetrised(w, requires_grad=False)
    return conv


CASES = {
    "Conv1d pads int()-lying": lambda: Along(
        lambda m, x: m.c(x), c=_conv(5, 2, _reversed_padding_repeated_twice=[Lie(4), Lie(0)])
    ),
    "Conv1d kernel detach-lying": lambda: Along(lambda m, x: m.c(x), c=_asymmetric_kernel_shown_symmetric()),
    "F.pad ints int()-lying": lambda: Along(
        lambda m, x: F.conv1d(F.pad(x, [Lie(4), Lie(0)], mode="circular"), m.w), w=_symmetric(5)
    ),
    "F.pad pads iterating otherwise": lambda: Along(
        lambda m, x: F.conv1d(F.pad(x, Centred((4, 0)), mode="circular"), m.w), w=_symmetric(5)
    ),
    "F.pad mode ==-lying": lambda: Along(
        lambda m, x: F.conv1d(F.pad(x, (1, 1), mode=Circular("reflect")), m.w), w=_symmetric(3)
    ),
}
HONEST = {
    "Conv1d": lambda: Along(lambda m, x: m.c(x), c=_conv(5, 2)),
    "F.pad": lambda: Along(lambda m, x: F.conv1d(F.pad(x, (2, 2), mode="circular"), m.w), w=_symmetric(5)),
}


def _reflection_breaks(module) -> bool:
    x = torch.as_tensor(np.random.default_rng(3).standard_normal((N, D)))
    g = torch.as_tensor((-np.arange(N)) % N)  # j -> -j, a generator of the dihedral group
    with torch.no_grad():
        moved = torch.empty_like(x)
        moved[g] = x
        out = module(x)
        want = torch.empty_like(out)
        want[g] = out
        return not torch.allclose(module(moved), want)


def _verdict(module, *, rules_alone, seed=0, method="exact", monkeypatch=None):
    with monkeypatch.context() as patch:
        if rules_alone:
            patch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
        return gdlcheck.verify_callable(module, "dihedral", shape=(N, D), method=method, seed=seed).verdict


@pytest.mark.parametrize("name", list(CASES))
def test_the_rules_alone_do_not_prove_a_convolution_read_through_the_programs_methods(name, monkeypatch):
    assert _reflection_breaks(CASES[name]())
    assert _verdict(CASES[name](), rules_alone=True, monkeypatch=monkeypatch) != "holds"


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_no_seed_says_holds(name, method, monkeypatch):
    """Seeds 2 and 3 drew a rotation for the moved call: it saw nothing wrong."""
    for seed in (2, 3):
        assert _verdict(CASES[name](), rules_alone=False, seed=seed, method=method, monkeypatch=monkeypatch) != "holds"


@pytest.mark.parametrize("name", list(HONEST))
def test_the_same_convolutions_with_torchs_own_values_are_proved(name, monkeypatch):
    assert not _reflection_breaks(HONEST[name]())
    assert _verdict(HONEST[name](), rules_alone=True, monkeypatch=monkeypatch) == "holds"


def _channels_conv(kernel_size):
    """A circular ``Conv1d`` over 8 channels, the points: its weight ``A[(o - c) mod 8, o mod 2]``
    commutes with the even shifts of the channels only."""
    conv = torch.nn.Conv1d(N, N, 3, padding=1, padding_mode="circular", bias=False).double()
    a = torch.randn(N, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    o, c = torch.meshgrid(torch.arange(N), torch.arange(N), indexing="ij")
    with torch.no_grad():
        conv.weight.copy_(a[(o - c) % N, o % 2])
    conv.kernel_size = kernel_size
    return Channels(conv)


class Channels(torch.nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.conv = conv

    def forward(self, x):  # x : (points, 5): the points are the convolution's channels
        return self.conv(x[None])[0]


def test_a_kernel_size_attribute_of_another_length_does_not_move_the_channels_axis(monkeypatch):
    """``kernel_size = (3, 3)`` on a ``Conv1d`` made the unit count two spatial axes, so it took the
    batch axis for the channels and said the channels move as the input's: the rules alone proved
    a convolution that commutes with even shifts only, and the moved call missed it whenever it
    drew one.  The spatial axes are the class's (``conv1d`` is what its forward calls)."""
    module = _channels_conv((3, 3))
    x = torch.randn(N, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        assert not torch.allclose(module(x.roll(1, 0)), module(x).roll(1, 0))
        assert torch.allclose(module(x.roll(2, 0)), module(x).roll(2, 0))
    with monkeypatch.context() as patch:
        patch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
        assert gdlcheck.verify_callable(module, "cyclic", shape=(N, 5), method="exact").verdict != "holds"
    for seed in range(8):
        verdict = gdlcheck.verify_callable(_channels_conv((3, 3)), "cyclic", shape=(N, 5), method="exact", seed=seed)
        assert verdict.verdict != "holds"
