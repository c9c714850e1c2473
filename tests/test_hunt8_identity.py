"""Eighth soundness hunt (issue 28): code that tells gdlcheck's copy from the module.

gdlcheck proves a copy of the user's module.  Code that asks whether it is *the* module (a
``weakref.WeakSet`` of instances its ``__init__`` filled, a set of ``id(self)`` or of
``hash(self)``, ``self is MODELS[-1]``, a submodule as a weak key) and adds the first point's row
``x[0]`` when it is (not equivariant) runs the other branch in the copy, which no registry holds:
exact and auto said ``holds`` (n = 8 and 1400).  The state the proof fingerprints (what the
module's code reaches) is now searched for the user's module and its parts, a weak reference to
one, or the id or default hash of one; found, the proof stops with that reason."""

import weakref

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code import running  # noqa: E402
from gdlcheck.code.prover import state  # noqa: E402
from tests.test_hunt7_copy import Plain  # noqa: E402  (a Linear, nothing else)

INSTANCES: weakref.WeakSet = weakref.WeakSet()
IDS: set = set()
MODELS: list = []
BY_MODULE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
REASON = "can tell the copy from the module"


class InRegistry(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        INSTANCES.add(self)

    def forward(self, x):
        return self.lin(x) + (x[0] if self in INSTANCES else 0)


class ItsId(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        IDS.add(id(self))

    def forward(self, x):
        return self.lin(x) + (x[0] if id(self) in IDS else 0)


HASHES: set = set()


class ItsHash(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        HASHES.add(hash(self))

    def forward(self, x):
        return self.lin(x) + (x[0] if hash(self) in HASHES else 0)


class Itself(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        MODELS.append(self)

    def forward(self, x):
        return self.lin(x) + (x[0] if self is MODELS[-1] else 0)


class ItsPart(torch.nn.Module):
    """A submodule as a weak key: its copy is no key."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        BY_MODULE[self.lin] = True

    def forward(self, x):
        return self.lin(x) + (x[0] if BY_MODULE.get(self.lin) else 0)


def _moves(module, n=8) -> bool:
    x = torch.randn(n, 3, generator=torch.Generator().manual_seed(0))
    g = torch.tensor([1, 0] + list(range(2, n)))
    with torch.no_grad():
        return torch.allclose(module(x[g]), module(x)[g])


@pytest.mark.parametrize("cls", [InRegistry, ItsId, ItsHash, Itself, ItsPart], ids=lambda c: c.__name__)
@pytest.mark.parametrize("n", [8, 1400])
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_code_that_can_tell_the_copy_from_the_module_is_not_proved(cls, n, method):
    module = cls()
    assert not _moves(module, n)
    result = gdlcheck.verify_callable(module, "symmetric", shape=(n, 3), method=method)
    assert result.verdict != "holds"
    if method == "exact":
        assert result.verdict == "inconclusive"
        assert any(REASON in str(fact.args) for fact in result.notes)


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_module_that_names_no_instance_is_still_proved(method):
    assert gdlcheck.verify_callable(Plain(), "symmetric", shape=(8, 3), method=method).verdict == "holds"


def test_the_snapshot_of_the_copy_says_so_and_of_the_module_does_not():
    module = Itself()
    clone = running.prepare_module(module)
    assert state.TELLS in state.snapshot(clone)
    assert state.TELLS not in state.snapshot(module)  # the module itself: nothing to tell apart
    assert state.TELLS not in state.snapshot(running.prepare_module(Plain()))


def _built_from_a_closure(asks: bool):
    """A class a test writes around a layer it built (``self.lin = lin`` from the closure): its
    ``__init__`` holds the user's part, which only construction reads; with ``asks`` its forward
    holds the same closure too (``self.lin is lin``: the copy's part is not)."""
    lin = torch.nn.Linear(3, 3)

    class Around(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lin

        def forward(self, x):
            return self.lin(x)

    class Asks(Around):
        def forward(self, x):
            return self.lin(x) + (x[0] if self.lin is lin else 0)

    return Asks() if asks else Around()


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_part_held_only_by_init_s_closure_is_still_proved(method):
    module = _built_from_a_closure(asks=False)
    assert gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method=method).verdict == "holds"


@pytest.mark.parametrize("n", [8, 1400])
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_part_a_forward_reads_from_the_same_closure_tells_the_copy(n, method):
    module = _built_from_a_closure(asks=True)
    assert not _moves(module, n)
    result = gdlcheck.verify_callable(module, "symmetric", shape=(n, 3), method=method)
    assert result.verdict != "holds"
    if method == "exact":
        assert any(REASON in str(fact.args) for fact in result.notes)
