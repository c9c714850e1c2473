"""The state walks of a check of torch code (issue 33, item 5): the snapshot taken before the check
is the proof's "before" while no call of the module has run since, and the first call's "after" is
the moved call's "before".  Each change a call makes is still seen by the walk around that call."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils._python_dispatch import _disable_current_modes  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck.code import prove, state  # noqa: E402
from gdlcheck.groups import cyclic  # noqa: E402

N, D = 8, 2


class ChangesOnAnotherInput(torch.nn.Module):
    """Adds |x[0, 0] - c| to a buffer: nothing on the proof's first input (c is its x[0, 0]), something
    on the moved one (every shift of the cyclic group moves row 0), under disabled dispatch: the walk
    does not see the write, only the state walk after the call does."""

    def __init__(self):
        super().__init__()
        first = np.random.default_rng([0, prove.PROOF_TRIAL]).standard_normal((N, D))
        self.c = float(first[0, 0])
        self.register_buffer("total", torch.zeros((), dtype=torch.float64))

    def forward(self, x):
        with _disable_current_modes():
            self.total.add_((x[0, 0] - self.c).abs())
        return x * 1.0


def test_a_change_made_by_the_moved_call_alone_stops_the_proof(monkeypatch):
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)   # the state check alone
    result = gdlcheck.verify_callable(ChangesOnAnotherInput(), "cyclic", shape=(N, D), method="exact")
    assert result.verdict == "inconclusive"
    assert "a second call changes state" in str(result.proof.stops)


def _layer(monkeypatch):
    """The layer ``verify_callable`` builds for a Linear at (N, D)."""
    from gdlcheck.api import callables

    built = []
    original = callables.CallableLayer
    monkeypatch.setattr(callables, "CallableLayer", lambda *args, **kwargs: built.append(original(*args, **kwargs))
                        or built[-1])
    gdlcheck.verify_callable(torch.nn.Linear(D, D), cyclic(N), shape=(N, D), method="numeric")
    return built[0]


def test_the_kept_snapshot_is_given_once_and_dropped_by_a_call(monkeypatch):
    layer = _layer(monkeypatch)
    kept = layer.state()
    assert layer.state_before_call() is kept
    assert layer.state_before_call() is not kept            # given once: then a new walk
    kept = layer.state()
    layer.forward(np.random.default_rng(0).standard_normal((N, D)))
    assert layer.state_before_call() is not kept            # a call ran since: a new walk


def test_a_check_walks_the_state_four_times(monkeypatch):
    """Before and after the check, after the proof's first call and after its moved call."""
    walks = []
    original = state.snapshot
    monkeypatch.setattr(state, "snapshot", lambda module: walks.append(module) or original(module))
    result = gdlcheck.verify_callable(torch.nn.Linear(D, D), "cyclic", shape=(N, D))
    assert result.verdict == "holds" and len(walks) == 4
