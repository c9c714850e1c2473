"""Third soundness hunt: state the call changes outside the module.  Each module below doubles
its input for 4 calls, then adds row 0 to every row; the proof makes 3 calls and saw only the
first branch.  The counter was kept where the state fingerprint did not look: in a closure's
cell, in a global list of the user's file, in an attribute of another module object, behind a
helper function of the user's own code.  The fingerprint now follows the user's own functions
the module holds (its classes' methods, functions kept as attributes): their closures' cells and
the globals their code names, through the user's functions they name in turn."""

import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, points, verdict  # noqa: E402

CALLS = [0]
OTHER = types.ModuleType("other_state")
OTHER.n = 0


def after_four(x, count):
    return x * 2 if count <= 4 else x + x[0]


def global_list(self, x):
    CALLS[0] += 1
    return after_four(x, CALLS[0])


def other_module(self, x):
    OTHER.n += 1
    return after_four(x, OTHER.n)


def _tick():
    CALLS[0] += 1
    return CALLS[0]


def helper(self, x):
    return after_four(x, _tick())


def in_a_lambda(self, x):
    return (lambda: after_four(x, _tick()))()


def closure():
    count = [0]

    def forward(self, x):
        count[0] += 1
        return after_four(x, count[0])

    return forward


class Counts(torch.nn.Module):
    def __init__(self, forward):
        super().__init__()
        self.step = forward

    def forward(self, x):
        return self.step(self, x)


class CountsInItsMethod(torch.nn.Module):
    def forward(self, x):
        CALLS[0] += 1
        return after_four(x, CALLS[0])


MODULES = {
    "a closure's cell": lambda: Counts(closure()),
    "a global list": lambda: Counts(global_list),
    "another module's attribute": lambda: Counts(other_module),
    "a helper of the user's": lambda: Counts(helper),
    "a lambda inside": lambda: Counts(in_a_lambda),
    "the class's own method": CountsInItsMethod,
}


@pytest.fixture(autouse=True)
def fresh_counters():
    CALLS[0], OTHER.n = 0, 0


@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_the_fifth_call_breaks_the_symmetry(make):
    module, x = make(), points(8, 3)
    perm = torch.as_tensor(np.argsort(np.random.default_rng(1).permutation(8)))
    agree = [bool(torch.allclose(module(x[perm]), module(x)[perm])) for _ in range(3)]
    assert agree == [True, True, False]


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_state_kept_outside_the_module_is_never_proved(make, method, size):
    assert verdict(make(), size, method) != "holds"


class Reads(torch.nn.Module):
    """Names globals and helpers it does not change: stays proved."""

    def forward(self, x):
        return after_four(x, len(CALLS)) + OTHER.n


def test_globals_read_and_not_changed_stay_proved():
    assert verdict(Reads(), (8, 3), "exact") == "holds"
