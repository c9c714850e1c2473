"""Eighth soundness hunt (issue 28): a counter hidden from a container's own methods.

The state fingerprint read a container subclass's entries through its own ``items`` and
iteration.  A ``dict`` (or ``list``) subclass that lists no entry that way, and copies faithfully,
kept a call counter the fingerprint never saw: the module returned ``x`` for three calls and
``x + x[0]`` after, and exact and auto said ``holds`` (n = 8 and 1400).  The entries of a
subclass are now read with its base type's own methods.  Likewise a counter rebound to values of
a ``str`` or ``int`` subclass whose ``==`` says every value is equal: the snapshots compared
equal; such a value is now read by its base type's ``repr``."""

import copy

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402


class HidingDict(dict):
    def items(self):
        return iter(())

    def keys(self):
        return iter(())

    def values(self):
        return iter(())

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __deepcopy__(self, memo):
        new = type(self)()
        for k, v in dict.items(self):
            dict.__setitem__(new, k, copy.deepcopy(v, memo))
        return new


class HidingList(list):
    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def __deepcopy__(self, memo):
        return type(self)(copy.deepcopy(list(list.__iter__(self)), memo))


class Counter(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.box = HidingDict() if kind == "dict" else HidingList([0])
        if kind == "dict":
            dict.__setitem__(self.box, "k", 0)

    def tick(self) -> int:
        if self.kind == "dict":
            dict.__setitem__(self.box, "k", dict.__getitem__(self.box, "k") + 1)
            return dict.__getitem__(self.box, "k")
        list.__setitem__(self.box, 0, list.__getitem__(self.box, 0) + 1)
        return list.__getitem__(self.box, 0)

    def forward(self, x):
        return x if self.tick() <= 3 else x + x[0]


@pytest.mark.parametrize("kind", ["dict", "list"])
@pytest.mark.parametrize("n", [8, 1400])
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_counter_hidden_from_the_containers_own_methods_stops_the_proof(kind, n, method):
    assert gdlcheck.verify_callable(Counter(kind), "symmetric", shape=(n, 3), method=method).verdict != "holds"


class EqualToAll(str):
    """A string equal to every value by its own ``==``."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


class IntEqualToAll(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


class Rebinds(torch.nn.Module):
    """The counter rebound to a new value of a subclass whose ``==`` says every value is equal:
    the snapshots compared equal before and after the call."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.k = EqualToAll("0") if kind == "str" else IntEqualToAll(0)

    def forward(self, x):
        k = int(str.__str__(self.k)) if self.kind == "str" else int.__int__(self.k)
        self.k = EqualToAll(str(k + 1)) if self.kind == "str" else IntEqualToAll(k + 1)
        return x if k < 3 else x + x[0]


@pytest.mark.parametrize("kind", ["str", "int"])
@pytest.mark.parametrize("n", [8, 1400])
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_counter_in_a_value_whose_equality_lies_stops_the_proof(kind, n, method):
    assert gdlcheck.verify_callable(Rebinds(kind), "symmetric", shape=(n, 3), method=method).verdict != "holds"
