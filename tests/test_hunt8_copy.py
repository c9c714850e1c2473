"""Eighth soundness hunt (issue 28): a flag inside a container or a config object, changed by the
class's copy hooks.

The copy that runs (``copy.deepcopy``, then ``Module.to``) was compared with the module on its
classes, plain attributes, parameters and buffers only.  A flag kept one level down (in a list, a
dict, a config object's attributes, a tensor attribute that is no buffer), which the class's own
``__deepcopy__``, ``_apply`` or ``to`` changes on the way, made the copy another module, and the
check was of that one.  Each module below adds the first point's row ``x[0]`` to every row (not
equivariant) while its flag is set; the copy has it cleared.  The copy is now compared at any
depth (plain values, tensors and arrays, in containers and objects' attributes, cycles met once),
and a copy that differs is an input error."""

import collections
import copy
import types
from dataclasses import dataclass

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code import copies  # noqa: E402
from gdlcheck.errors import CallableError  # noqa: E402


@dataclass
class Config:
    bad: bool = True
    scale: float = 1.0


class Holder(torch.nn.Module):
    """``lin(x) + x[0]`` while the flag that ``flag()`` reads is set; ``clear`` clears it."""

    def __init__(self, kind: str):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.kind = kind
        self.state = {
            "list": [[True]],
            "dict": {"opts": {"bad": True}},
            "config": Config(),
            "namespace": types.SimpleNamespace(inner=types.SimpleNamespace(bad=True)),
            "tuple": ({"bad": True},),
            "tensor": torch.ones(1),
            "array": np.ones(1),
        }[kind]

    def flag(self) -> bool:
        s = self.state
        return bool(
            {
                "list": lambda: s[0][0],
                "dict": lambda: s["opts"]["bad"],
                "config": lambda: s.bad,
                "namespace": lambda: s.inner.bad,
                "tuple": lambda: s[0]["bad"],
                "tensor": lambda: s[0] > 0,
                "array": lambda: s[0] > 0,
            }[self.kind]()
        )

    def clear(self) -> None:
        s = self.state
        if self.kind == "list":
            s[0][0] = False
        elif self.kind == "dict":
            s["opts"]["bad"] = False
        elif self.kind == "config":
            s.bad = False
        elif self.kind == "namespace":
            s.inner.bad = False
        elif self.kind == "tuple":
            s[0]["bad"] = False
        else:
            s[0] = 0

    def forward(self, x):
        return self.lin(x) + (x[0] if self.flag() else 0)


class ClearsOnDeepcopy(Holder):
    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        new.__dict__ = copy.deepcopy(self.__dict__, memo)
        new.clear()
        return new


class ClearsOnApply(Holder):
    def _apply(self, fn, recurse=True):
        self.clear()  # on the copy: gdlcheck calls it on its own copy
        return super()._apply(fn, recurse)


class ClearsOnTo(Holder):
    def to(self, *args, **kwargs):
        out = super().to(*args, **kwargs)
        out.clear()
        return out


KINDS = ["list", "dict", "config", "namespace", "tuple", "tensor", "array"]


def _moves(module) -> bool:
    x = torch.randn(8, 3, generator=torch.Generator().manual_seed(0))
    g = torch.tensor([1, 0, 2, 3, 4, 5, 6, 7])
    with torch.no_grad():
        return torch.allclose(module(x[g]), module(x)[g])


@pytest.mark.parametrize("cls", [ClearsOnDeepcopy, ClearsOnApply, ClearsOnTo], ids=lambda c: c.__name__)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_flag_inside_a_container_cleared_by_the_copy_is_refused(cls, kind, method):
    module = cls(kind)
    assert module.flag() and not _moves(module)
    with pytest.raises(CallableError, match=r"is not the module \(state\)"):
        gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method=method)


@pytest.mark.parametrize("kind", KINDS)
def test_the_same_module_copied_faithfully_is_checked_as_it_is(kind):
    module = Holder(kind)
    assert gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact").verdict != "holds"
    module.clear()
    assert gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact").verdict == "holds"


class Key:
    """Hashed by identity: its copy is another key."""


class Cycles(torch.nn.Module):
    """Containers that hold themselves, a shared config, keys that are objects, a set of objects."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        loop: list = [1.0]
        loop.append(loop)
        shared = Config()
        self.state = {"loop": loop, "a": shared, "b": shared, Key(): "key", "set": {Key(), "x"}}
        self.state["self"] = self.state

    def forward(self, x):
        return self.lin(x)


def test_cycles_shared_objects_and_object_keys_are_the_same_in_the_copy():
    assert gdlcheck.verify_callable(Cycles(), "symmetric", shape=(8, 3), method="exact").verdict == "holds"


def test_an_attribute_the_copy_adds_is_refused():
    class Adds(Holder):
        def _apply(self, fn, recurse=True):
            self.extra = 1
            return super()._apply(fn, recurse)

    with pytest.raises(CallableError, match=r"is not the module \(extra\)"):
        gdlcheck.verify_callable(Adds("list"), "symmetric", shape=(8, 3), method="exact")


def test_empty_builtin_tables_are_the_same_but_an_attribute_on_one_is_compared():
    """Two empty builtin containers with no attributes are the same at once (most of a module's
    hook tables); an empty ``OrderedDict`` that carries a flag is still compared by it."""
    a, b = Holder("list"), Holder("list")
    b.load_state_dict(a.state_dict())
    for module in (a, b):
        module.table = collections.OrderedDict()
        module.table.bad = True
        module.empties = [[], {}, (), set(), frozenset()]
    copies.check_same(a, b)
    b.table.bad = False
    with pytest.raises(CallableError, match=r"\(table\)"):
        copies.check_same(a, b)
    b.table.bad, b.empties[1]["k"] = True, 1
    with pytest.raises(CallableError, match=r"\(empties\)"):
        copies.check_same(a, b)


def test_a_chain_deeper_than_python_recurses_is_compared():
    a, b = Holder("list"), Holder("list")
    b.load_state_dict(a.state_dict())
    for module in (a, b):
        chain: list = [True]
        for _ in range(20_000):
            chain = [chain]
        module.chain = chain
    copies.check_same(a, b)
    b.chain = b.chain[0]  # one level shorter: False where a list was
    with pytest.raises(CallableError, match=r"\(chain\)"):
        copies.check_same(a, b)


def test_the_comparison_is_bounded(monkeypatch):
    """Past the bound nothing more is compared (a module that large stops the proof anyway)."""
    a, b = Holder("list"), Holder("list")
    b.load_state_dict(a.state_dict())
    b.clear()
    with pytest.raises(CallableError):
        copies.check_same(a, b)
    monkeypatch.setattr(copies, "MAX_COMPARED", 1)  # the first object compared: a table of the module's own
    copies.check_same(a, b)


# A class may redefine how torch lists its parts: the copy's checks read torch's own tables.
def _nothing(self, *args, **kwargs):
    return iter(())


def _itself(self, memo=None, prefix="", remove_duplicate=True):
    yield prefix, self


HIDING = {"named_modules": _itself, "parameters": _nothing, "named_parameters": _nothing}
HIDING |= {"buffers": _nothing, "named_buffers": _nothing}


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bad = True
        shift = torch.zeros(8, 1, dtype=torch.complex64)
        shift[0] = 1j  # on the first point only: |x + i| there
        self.register_buffer("shift", shift)
        self.scale = torch.nn.Parameter(torch.full((1,), 1j, dtype=torch.complex64))


class ClearsItsFlag(Inner):
    def _apply(self, fn, recurse=True):
        self.bad = False
        return super()._apply(fn, recurse)


class Outer(torch.nn.Module):
    """``lin(x)`` plus ``x[0]`` while the part's flag is set (``part`` is ``"flag"``), or the modulus
    of ``x`` shifted by ``i`` on the first point and scaled by ``i`` (``"complex"``)."""

    def __init__(self, part: str):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.inner = ClearsItsFlag() if part == "flag" else Inner()
        self.part = part

    def forward(self, x):
        if self.part == "complex":
            return ((x + self.inner.shift[: x.shape[0]]) * self.inner.scale).abs()
        return self.lin(x) + (x[0] if self.inner.bad else 0)


@pytest.mark.parametrize("name", list(HIDING))
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_class_that_hides_its_parts_hides_no_flag_from_the_comparison(name, method):
    cls = type("Hides", (Outer,), {name: HIDING[name]})
    module = cls("flag")
    assert not _moves(module)
    with pytest.raises(CallableError, match=r"is not the module \(inner\.bad\)"):
        gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method=method)


@pytest.mark.parametrize("name", list(HIDING))
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_class_that_hides_its_parts_keeps_its_complex_weights_complex(name, method):
    cls = type("Hides", (Outer,), {name: HIDING[name]})
    module = cls("complex")
    assert not _moves(module)
    assert gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method=method).verdict != "holds"


class Liar(str):
    """A string equal to every string (its own ``==``), with an attribute of its own."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


class Tagged(float):
    def __eq__(self, other):
        return True


class Mode(torch.nn.Module):
    """``lin(x) + x[0]`` while ``mode`` reads ``"bad"``, or while its ``strict`` attribute is set."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.mode = Liar("bad")
        self.mode.strict = True
        self.scale = Tagged(1.0)

    def forward(self, x):
        bad = str.__eq__(self.mode, "bad") or getattr(self.mode, "strict", False)
        return self.lin(x) * float(self.scale) + (x[0] if bad else 0)


class ModeChangedOnApply(Mode):
    def _apply(self, fn, recurse=True):
        self.mode = Liar("good")
        self.mode.strict = True
        return super()._apply(fn, recurse)


class StrictClearedOnApply(Mode):
    def _apply(self, fn, recurse=True):
        self.mode.strict = False
        return super()._apply(fn, recurse)


class ScaleChangedOnApply(Mode):
    def _apply(self, fn, recurse=True):
        self.scale = Tagged(2.0)
        return super()._apply(fn, recurse)


@pytest.mark.parametrize(
    ("cls", "where"),
    [(ModeChangedOnApply, "mode"), (StrictClearedOnApply, "mode"), (ScaleChangedOnApply, "scale")],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_a_plain_value_of_a_subclass_is_compared_by_its_plain_type_and_its_attributes(cls, where):
    """The subclass's own ``==`` says every value is equal: it does not decide."""
    with pytest.raises(CallableError, match=rf"is not the module \({where}\)"):
        gdlcheck.verify_callable(cls(), "symmetric", shape=(8, 3), method="exact")


def test_a_subclass_value_copied_faithfully_is_the_same():
    module = Mode()
    module.mode.strict = False
    module.mode = Liar("good")
    assert gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact").verdict == "holds"


class HidesItsEntries(dict):
    """A dict that lists no entry through its own methods."""

    def keys(self):
        return iter(())

    def values(self):
        return iter(())

    def items(self):
        return iter(())

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0


class HidingList(list):
    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0


class Hidden(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.kind = kind
        self.box = HidesItsEntries(bad=True) if kind == "dict" else HidingList([True])

    def flag(self):
        return dict.__getitem__(self.box, "bad") if self.kind == "dict" else list.__getitem__(self.box, 0)

    def forward(self, x):
        return self.lin(x) + (x[0] if self.flag() else 0)

    def _apply(self, fn, recurse=True):
        if self.kind == "dict":
            dict.__setitem__(self.box, "bad", False)
        elif list.__len__(self.box):  # (deepcopy itself, iterating it, copied no entry)
            list.__setitem__(self.box, 0, False)
        return super()._apply(fn, recurse)


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_a_container_that_hides_its_entries_from_its_own_methods_is_compared_by_its_base_type(kind):
    with pytest.raises(CallableError, match=r"is not the module \(box\)"):
        gdlcheck.verify_callable(Hidden(kind), "symmetric", shape=(8, 3), method="exact")
