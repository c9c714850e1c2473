"""Sixth soundness hunt: a ``torch.nn`` unit whose class's code was replaced at run time.

A circular ``Conv1d`` is proved whole by its class's theorem (``code/prover/rules/units.py``), in
place of the operations inside it.  The theorem is about torch's own code: where the program
replaced ``torch.nn.Conv1d.forward``, its ``_conv_forward``, or the ``F.conv1d`` that code calls
(a patch a quantisation or adapter library may make), the unit ran other code and the theorem
still spoke for it.  Here the replacement adds ``x * mask`` with a mask of period 2 along the
positions: equivariant under even shifts only.  The rules alone proved it under the cyclic group,
and with the moved call on, every seed whose element is an even shift said ``holds``.  A unit now
stands for its class only where the class's methods and the functions their code names are
torch's own; otherwise the operations inside are followed (and refused)."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import prove  # noqa: E402

F = torch.nn.functional
ORIGINAL_FORWARD = torch.nn.Conv1d.forward
ORIGINAL_CONV_FORWARD = torch.nn.Conv1d._conv_forward
ORIGINAL_CONV1D = F.conv1d


def _period_two(x):
    return x * (torch.arange(x.shape[-1]) % 2).to(x.dtype)


def _forward(self, input):
    return ORIGINAL_FORWARD(self, input) + _period_two(input)


def _conv_forward(self, input, weight, bias):
    return ORIGINAL_CONV_FORWARD(self, input, weight, bias) + _period_two(input)


def _conv1d(input, *args, **kwargs):
    return ORIGINAL_CONV1D(input, *args, **kwargs) + _period_two(input)[..., : input.shape[-1] - 2]


PATCHES = {
    "forward": (torch.nn.Conv1d, "forward", _forward),
    "_conv_forward": (torch.nn.Conv1d, "_conv_forward", _conv_forward),
    "F.conv1d": (F, "conv1d", _conv1d),
}


class Positions(torch.nn.Module):
    """A circular convolution along the points: ``x : (n, c)``."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv1d(2, 2, 3, padding=1, padding_mode="circular", bias=False).double()

    def forward(self, x):
        return self.conv(x.T[None])[0].T


def _shift_commutes(module, n: int, shift: int) -> bool:
    x = torch.as_tensor(np.random.default_rng(0).standard_normal((n, 2)))
    with torch.no_grad():
        return bool(torch.allclose(module(x.roll(shift, 0)), module(x).roll(shift, 0)))


@pytest.mark.parametrize("patch", PATCHES.values(), ids=PATCHES.keys())
def test_a_replaced_unit_is_not_proved_by_its_class(patch, monkeypatch):
    monkeypatch.setattr(*patch)
    module = Positions()
    assert not _shift_commutes(module, 8, 1) and _shift_commutes(module, 8, 2)
    for seed in range(6):  # some seeds' moved call is an even shift, which does not see it
        for method in ("exact", "auto"):
            verdict = gdlcheck.verify_callable(Positions(), "cyclic", shape=(8, 2), method=method, seed=seed).verdict
            assert verdict != "holds", (seed, method)


@pytest.mark.parametrize("patch", PATCHES.values(), ids=PATCHES.keys())
def test_the_rules_alone_do_not_prove_it(patch, monkeypatch):
    monkeypatch.setattr(*patch)
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    assert gdlcheck.verify_callable(Positions(), "cyclic", shape=(8, 2), method="exact").verdict != "holds"


def test_torchs_own_unit_stays_proved(monkeypatch):
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # by its theorem alone
    module = Positions()
    assert _shift_commutes(module, 8, 1)
    assert gdlcheck.verify_callable(module, "cyclic", shape=(8, 2), method="exact").verdict == "holds"


# ------------------------------------------------------------------ a function proved whole
# ``torch._C._nn.pad`` (what ``F.pad`` calls) has a theorem of its own: the proof replaced it, for
# the call, by torch's function with the walk watching.  Where the program had replaced it first,
# the proof ran torch's pad in its place, proved that, and then put torch's back: the module was
# proved for every seed, and the program lost its own pad.

ORIGINAL_PAD = torch._C._nn.pad


def _pad(input, pad, mode="constant", value=None):
    out = ORIGINAL_PAD(input, pad, mode) if value is None else ORIGINAL_PAD(input, pad, mode, value)
    return out + _period_two(out)


class PaddedByHand(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = torch.randn(2, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))

    def forward(self, x):
        return F.conv1d(F.pad(x.T[None], (1, 1), mode="circular"), self.kernel)[0].T


def test_a_replaced_function_is_run_and_not_proved_by_its_theorem(monkeypatch):
    import gdlcheck.code.prover.rules  # noqa: F401  (the theorem registered for torch's own pad)

    monkeypatch.setattr(torch._C._nn, "pad", _pad)
    assert not _shift_commutes(PaddedByHand(), 8, 1)
    for seed in range(3):
        for method in ("exact", "auto"):
            verdict = gdlcheck.verify_callable(PaddedByHand(), "cyclic", shape=(8, 2), method=method, seed=seed).verdict
            assert verdict != "holds", (seed, method)
    assert torch._C._nn.pad is _pad  # the program's own function, still in place


def test_torchs_own_pad_stays_proved():
    assert _shift_commutes(PaddedByHand(), 8, 1)
    assert gdlcheck.verify_callable(PaddedByHand(), "cyclic", shape=(8, 2), method="exact").verdict == "holds"


# ------------------------------------------------------------------ a kernel of the program's
# torch.library lets a program register its own kernel for an aten operation on the CPU: the walk
# saw aten.sigmoid, applied the elementwise rule, and the program's kernel ran (here adding a term
# of period 2 along the points): proved by the rules alone, and by the moved call at seed 3.


@pytest.fixture
def sigmoid_of_the_programs():
    library = torch.library.Library("aten", "IMPL")

    def kernel(x):
        with torch._C._AutoDispatchBelowAutograd():
            y = torch.exp(-x).add(1).reciprocal()
        return y + _period_two(x.T).T

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch says it overrides its own kernel
        library.impl("sigmoid", kernel, "CPU")
    try:
        yield
    finally:
        library._destroy()


class Sigmoid(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(x) * 2.0


def test_an_operation_with_a_kernel_of_the_programs_is_not_proved(sigmoid_of_the_programs, monkeypatch):
    assert not _shift_commutes(Sigmoid(), 8, 1)
    for seed in range(4):
        for method in ("exact", "auto"):
            verdict = gdlcheck.verify_callable(Sigmoid(), "cyclic", shape=(8, 2), method=method, seed=seed).verdict
            assert verdict != "holds", (seed, method)
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    result = gdlcheck.verify_callable(Sigmoid(), "cyclic", shape=(8, 2), method="exact")
    assert result.verdict == "inconclusive"
    assert "a kernel the program registered for it" in str(result.proof.stops)


def test_torchs_own_sigmoid_stays_proved():
    assert gdlcheck.verify_callable(Sigmoid(), "cyclic", shape=(8, 2), method="exact").verdict == "holds"


class Agreeable(str):
    """A padding mode equal to every string and different from none: torch's code reads "zeros"
    (no padding of its own), the theorem read "circular"."""

    __hash__ = str.__hash__

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


def test_a_unit_reads_its_attributes_as_torchs_types(monkeypatch):
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the rules alone
    module = Positions()
    module.conv.padding_mode = Agreeable("circular")
    assert not _shift_commutes(module, 8, 1)
    assert gdlcheck.verify_callable(module, "cyclic", shape=(8, 2), method="exact").verdict != "holds"
