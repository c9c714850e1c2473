"""Issue 28's last state gap: what an ``lru_cache`` (or ``functools.cache``) of the user's own code
holds, which the code then changes.  Each module here doubles its input for its first four calls,
then adds row 0 to every row, counting its calls in a value a cached function returns: a tensor
it adds to in place, or a list it appends to.  The proof makes fewer calls than four, so it saw
only the first branch; the state fingerprint did not look inside the cache.  It now reads what
each of the user's caches holds: an entry whose value a call changes stops the proof ("the call
changes state"), and an entry a call adds (the cache doing its work) does not."""

import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, commutes, points, verdict  # noqa: E402

import gdlcheck  # noqa: E402


@functools.cache
def tensor_counter():
    return torch.zeros(())


@functools.lru_cache(maxsize=8)
def list_counter(kind):
    return []


def _step_tensor(module):
    return int(tensor_counter().add_(1))


def _step_list(module):
    calls = list_counter("calls")
    calls.append(1)
    return len(calls)


def _step_closure():
    @functools.cache
    def counter():
        return []

    def step(module):
        calls = counter()
        calls.append(1)
        return len(calls)

    return step


class Counted(torch.nn.Module):
    @functools.lru_cache(maxsize=4)  # noqa: B019  (the code under test keeps its module alive so)
    def calls(self):
        return []


def _step_method(module):
    calls = module.calls()
    calls.append(1)
    return len(calls)


STEPS = {
    "a cached tensor, add_": _step_tensor,
    "a cached list (bounded cache)": _step_list,
    "a cache in a closure": _step_closure,
    "a cached method": _step_method,
}


class ChangesAfterFourCalls(Counted):
    def __init__(self, step, warm: bool):
        super().__init__()
        self.step = step
        if warm:  # the cache holds its entry before the proof
            self.step(self)
            self.step(self)

    def forward(self, x):
        if self.step(self) <= 4:
            return 2 * x
        return x + x[:1]


def fresh(name: str, warm: bool = True) -> ChangesAfterFourCalls:
    tensor_counter.cache_clear()
    list_counter.cache_clear()
    step = STEPS[name]() if name == "a cache in a closure" else STEPS[name]
    return ChangesAfterFourCalls(step, warm)


@pytest.mark.parametrize("name", STEPS)
def test_each_module_moves_otherwise_after_four_calls(name):
    module, x, perm = fresh(name, warm=False), points(8, 3), np.random.default_rng(1).permutation(8)
    assert commutes(module, perm, x) and commutes(module, perm, x)  # calls 1 to 4
    assert not commutes(module, perm, x)


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", STEPS)
def test_a_cached_value_the_call_changes_is_never_proved(name, method, size, warm):
    assert verdict(fresh(name, warm), size, method) != "holds"


@pytest.mark.parametrize("name", ["a cached list (bounded cache)", "a cache in a closure", "a cached method"])
def test_the_note_says_the_call_changes_state(name):
    """A cold cache: its entry is made in the first call (no change: the cache doing its work),
    and the moved call changes it."""
    result = gdlcheck.verify_callable(fresh(name, warm=False), "symmetric", shape=(8, 3), method="exact")
    assert result.verdict == "inconclusive"
    assert "changes state: what" in str(result.proof.stops) and "(an lru_cache) returned" in str(result.proof.stops)


def test_a_cached_tensor_written_in_place_is_a_change_of_state():
    result = gdlcheck.verify_callable(fresh("a cached tensor, add_"), "symmetric", shape=(8, 3), method="exact")
    assert "the call changes state" in str(result.proof.stops)


@functools.lru_cache(maxsize=16)
def positions(n: int):
    return torch.arange(n, dtype=torch.float64)


class CachesATable(torch.nn.Module):
    """A cache used as caches are: the entry is made once, and read."""

    def forward(self, x):
        return x * positions(x.shape[1]).sum()


@pytest.mark.parametrize("size", SIZES, ids=str)
def test_a_cache_that_is_only_read_stays_proved(size):
    """Filled before the proof (a cache filled in the first call only dispatches operations the
    moved call does not, and the path check stops it)."""
    positions.cache_clear()
    positions(size[1])
    assert verdict(CachesATable(), size, "exact") == "holds"


def test_an_entry_made_by_the_call_is_no_change_of_state():
    from gdlcheck.code.prover import state

    module = CachesATable()
    positions.cache_clear()
    before = state.snapshot(module)
    module(points(8, 3))
    assert state.changed(before, state.snapshot(module)) == []
