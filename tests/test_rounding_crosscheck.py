"""The cross-check of a proof by trials reads rounding at the computation's own scale.

A proved generator whose trials deviate is either rounding (the proof stands) or a wrong rule
of gdlcheck's (the counterexample wins, and the notes ask for a report). Rounding is a few ulps
(64) of the largest magnitude on the way -- inputs, outputs, a module's parameters and buffers --
in the dtype the trials run in; float32 inside a float64 check fails that check, but is no wrong
rule. Each case is first worked by hand: the exact value, in rational arithmetic, of what the
trials compare, and the float bound the deviation stays under.
"""

from fractions import Fraction

import numpy as np
import pytest
import torch

import gdlcheck

pytestmark = pytest.mark.slow  # torch

ALARM = "a rule of gdlcheck's is wrong"
EPS64, EPS32 = 2.0**-52, 2.0**-23


class Centred(torch.nn.Module):
    """``lin(x) - lin(x).mean(0)`` with a bias of 1e7: map coordinates with a fixed origin."""

    def __init__(self, bias: float = 1e7):
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(3, 2)
        with torch.no_grad():
            self.lin.bias.fill_(bias)

    def forward(self, x):
        return self.lin(x) - self.lin(x).mean(0)


class Float32Mean(torch.nn.Module):
    """Centres its input with a mean taken in float32 (a ``.float()`` cast inside)."""

    def forward(self, x):
        return x - x.float().mean(0).double()


def exact_centred(module: Centred, X: np.ndarray) -> list[list[Fraction]]:
    """``lin(X) - mean(lin(X))`` of the very same floats, in rational arithmetic."""
    W = [[Fraction(float(w)) for w in row] for row in module.lin.weight.detach().double()]
    b = [Fraction(float(v)) for v in module.lin.bias.detach().double()]
    rows = [[sum((W[o][i] * Fraction(float(x[i])) for i in range(len(x))), b[o]) for o in range(len(b))] for x in X]
    mean = [sum(r[o] for r in rows) / len(rows) for o in range(len(b))]
    return [[r[o] - mean[o] for o in range(len(b))] for r in rows]


def notes(result) -> str:
    return " ".join(result.to_json().get("notes", []))


def test_a_bias_of_1e7_that_cancels_is_proved_and_its_trials_are_rounding():
    module = Centred().double().eval()
    X = np.random.default_rng(1).standard_normal((6, 3))
    swap = [1, 0, 2, 3, 4, 5]
    # by hand: in exact arithmetic f(PX) = P f(X) for these floats, so any deviation is rounding
    exact, exact_moved = exact_centred(module, X), exact_centred(module, X[swap])
    assert exact_moved == [exact[i] for i in swap]
    # and the float deviation is a few ulps of the bias: within 64 ulps of 1e7 (1.3e-7), which an
    # absolute 1e-9 would call a counterexample whenever it is 1 ulp of 1e7 or more (1.9e-9)
    with torch.no_grad():
        fx, fpx = module(torch.from_numpy(X)).numpy(), module(torch.from_numpy(X[swap])).numpy()
    assert np.abs(fpx - fx[swap]).max() <= 64 * EPS64 * 1e7
    result = gdlcheck.verify_callable(Centred(), "symmetric", shape=(6, 3))
    assert result.verdict == "holds" and result.passed
    assert ALARM not in notes(result)


def test_the_same_module_without_the_bias_still_holds_with_no_alarm():
    result = gdlcheck.verify_callable(Centred(bias=0.5), "symmetric", shape=(6, 3))
    assert result.verdict == "holds" and ALARM not in notes(result)


def test_float32_inside_a_float64_check_gets_the_float32_note_only():
    module = Float32Mean()
    X = np.random.default_rng(2).standard_normal((16, 3))
    cycle = list(range(1, 16)) + [0]
    # by hand: a mean in float64 commutes within 64 float64 ulps of the largest |x|; the float32
    # mean within 64 float32 ulps of it -- far past float64 rounding, far below a real break
    big = np.abs(X).max()
    with torch.no_grad():
        exact_mean = X - X.mean(0)
        got, moved = module(torch.from_numpy(X)).numpy(), module(torch.from_numpy(X[cycle])).numpy()
    assert np.abs((X[cycle] - X[cycle].mean(0)) - exact_mean[cycle]).max() <= 64 * EPS64 * big
    assert np.abs(moved - got[cycle]).max() <= 64 * EPS32 * big
    result = gdlcheck.verify_callable(module, "symmetric", shape=(16, 3))
    assert result.verdict == "fails"  # a float64 check of code that rounds in float32
    assert ALARM not in notes(result)
    assert "at float32 rounding level" in notes(result)
    # checked in the dtype it computes in, the proof stands
    result = gdlcheck.verify_callable(module, "symmetric", shape=(16, 3), dtype="float32")
    assert result.verdict == "holds" and ALARM not in notes(result)
