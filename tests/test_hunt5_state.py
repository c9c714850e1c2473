"""Fifth soundness hunt: state a call changes where the fingerprint did not look.  Each module
below returns its input for 3 calls, then adds row 0 to every row; the proof makes 3 calls
(the signature's, its own, the moved call) and saw only the first branch.  The counter was kept

* in an object of a C type, whose state is in neither ``__dict__`` nor ``__slots__`` (an
  ``itertools.count``, an iterator, a ``StringIO``'s position, a ``deque``, an ``array``, a
  ``bytearray``, a ``ctypes`` number), also three containers deep;
* in a default value of the user's own function (a mutable default argument, keyword-only,
  of a static method, of a helper the method calls, of a lambda kept as an attribute), or in an
  attribute of the function itself;
* in a module the function imports inside itself (``import builtins``), or at the end of a
  chain of modules (``holder.inner.box.k``);
* in a closure of the user's function met as a value, not as an attribute: in a list or a dict,
  in a module's hook table (a forward hook, a pre-hook, a hook on a submodule), behind a
  ``functools.partial``; in the object a bound method is bound to; in a property's default;
* in an attribute of a ``dict``, ``list``, ``int`` or ``str`` subclass the module holds (its
  items, or its value, alone were read); in the class of an object the module holds (a class counter, a method's default or the
  global its method names);
* in a global or a module's attribute named only by a string (``globals()["k"]``,
  ``vars(OTHER)["k"]``);
* in a Python attribute set on a tensor (a buffer's ``self.b.k``, a plain tensor attribute's);
* in a hook on every module (``register_module_forward_hook``), below.

The fingerprint now reads what pickling reads of an object a C type keeps, a function's
defaults and attributes, the modules a function imports, chains of modules by the names the
code uses, the user's functions wherever they are met (and a bound method's object), a
property's functions, a container subclass's attributes, the user's classes of the objects it
holds, the strings in the code that could be names, tensors' Python attributes, and torch's
tables of hooks on every module."""

import array
import collections
import ctypes
import functools
import io
import itertools
import types
import uuid

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, points, verdict  # noqa: E402

# a chain of modules, as a package's submodules are (holder.inner.box): a module's attribute
# that is a module was fingerprinted by its identity
HOLDER = types.ModuleType("hunt5_holder")
HOLDER.inner = types.ModuleType("hunt5_holder.inner")
HOLDER.inner.box = {}


class Counting(torch.nn.Module):
    """``x`` for the first 3 calls, then ``x + x[0]``; ``tick`` counts the calls."""

    def forward(self, x):
        return x if self.tick() < 3 else x + x[0]


class InObject(Counting):
    def __init__(self, make, advance):
        super().__init__()
        self.c, self.advance = make(), advance

    def tick(self):
        return self.advance(self.c)


def _in_deque_deep():
    module = InObject(
        lambda: types.SimpleNamespace(a=[{"b": collections.deque()}]),
        lambda c: (c.a[0]["b"].append(1), len(c.a[0]["b"]) - 1)[1],
    )
    return module


def _bump(c, i=0):
    c[i] += 1
    return c[i] - 1


def _string_position(c):
    c.read(1)
    return c.tell() - 1


def _ctypes_number(c):
    c.value += 1
    return c.value - 1


C_STATE = {
    "itertools.count": lambda: InObject(itertools.count, next),
    "an iterator": lambda: InObject(lambda: iter(range(100)), next),
    "a StringIO's position": lambda: InObject(lambda: io.StringIO("abcdefgh"), _string_position),
    "a deque": lambda: InObject(collections.deque, lambda c: (c.append(1), len(c) - 1)[1]),
    "an array.array": lambda: InObject(lambda: array.array("i", [0]), _bump),
    "a bytearray": lambda: InObject(lambda: bytearray(1), _bump),
    "a ctypes number": lambda: InObject(lambda: ctypes.c_int(0), _ctypes_number),
    "a deque three containers deep": _in_deque_deep,
}


def _default_argument():
    class DefaultArgument(Counting):  # a class per module: its defaults are its own
        def tick(self, box=[0]):  # noqa: B006 (the point of the test)
            box[0] += 1
            return box[0] - 1

    return DefaultArgument()


def _keyword_default():
    class KeywordDefault(Counting):
        def tick(self, *, box={"k": 0}):  # noqa: B006
            box["k"] += 1
            return box["k"] - 1

    return KeywordDefault()


def _static_default():
    class StaticDefault(Counting):
        @staticmethod
        def helper(box=[0]):  # noqa: B006
            box[0] += 1
            return box[0] - 1

        def tick(self):
            return self.helper()

    return StaticDefault()


def _helper_default():
    def helper(box=[0]):  # noqa: B006
        box[0] += 1
        return box[0] - 1

    class HelperDefault(Counting):
        def tick(self):
            return helper()

    return HelperDefault()


def _lambda_default():
    module = Counting()
    module.tick = lambda box=[0]: (box.__setitem__(0, box[0] + 1), box[0] - 1)[1]  # noqa: B006
    return module


def _function_attribute():
    class FunctionAttribute(Counting):
        def tick(self):
            f = type(self).tick
            f.k = getattr(f, "k", 0) + 1
            return f.k - 1

    return FunctionAttribute()


class ImportsBuiltins(Counting):
    def __init__(self):
        super().__init__()
        self.key = uuid.uuid4().hex

    def tick(self):
        import builtins

        if not hasattr(builtins, "hunt5_counts"):
            builtins.hunt5_counts = {}
        builtins.hunt5_counts[self.key] = builtins.hunt5_counts.get(self.key, 0) + 1
        return builtins.hunt5_counts[self.key] - 1


class ModuleChain(Counting):
    def __init__(self):
        super().__init__()
        self.key = uuid.uuid4().hex

    def tick(self):
        HOLDER.inner.box[self.key] = HOLDER.inner.box.get(self.key, 0) + 1
        return HOLDER.inner.box[self.key] - 1


def counter():
    """A closure that counts its calls from 0."""
    k = [0]

    def tick():
        k[0] += 1
        return k[0] - 1

    return tick


class Calls(Counting):
    def __init__(self, hold, call):
        super().__init__()
        self.held, self.call = hold(counter()), call

    def tick(self):
        return self.call(self.held)


class Box:
    def __init__(self):
        self.k = 0

    def tick(self):
        self.k += 1
        return self.k - 1


class Hooked(torch.nn.Module):
    """A hook on itself or on a submodule: its output for 3 calls, then plus row 0."""

    def __init__(self, where):
        super().__init__()
        self.inner = torch.nn.Identity()
        tick = counter()
        if where == "pre":
            self.register_forward_pre_hook(lambda m, i: None if tick() < 3 else (i[0] + i[0][0],))
        else:
            (self.inner if where == "inner" else self).register_forward_hook(
                lambda m, i, o: o if tick() < 3 else o + o[0]
            )

    def forward(self, x):
        return self.inner(x * 1)

    def tick(self):  # one call of the hook's count (the fingerprint test calls it)
        return self(torch.zeros(2, 1))


def _property_default():
    class PropertyDefault(Counting):
        @property
        def count(self, _tick=counter()):  # noqa: B008
            return _tick()

        def tick(self):
            return self.count

    return PropertyDefault()


AS_VALUES = {
    "a closure in a list": lambda: Calls(lambda t: [t], lambda held: held[0]()),
    "a closure in a dict": lambda: Calls(lambda t: {"t": t}, lambda held: held["t"]()),
    "a closure behind functools.partial": lambda: Calls(functools.partial, lambda held: held()),
    "the object of a bound method": lambda: Calls(lambda t: Box().tick, lambda held: held()),
    "a forward hook's closure": lambda: Hooked("self"),
    "a forward pre-hook's closure": lambda: Hooked("pre"),
    "a submodule's hook's closure": lambda: Hooked("inner"),
    "a property's default": _property_default,
}

HELD_CALLS = [0]


def _dict_subclass():
    class Table(dict):
        pass

    table = Table()
    table.k = 0
    return InObject(lambda: table, lambda c: (setattr(c, "k", c.k + 1), c.k - 1)[1])


def _list_subclass():
    class Items(list):
        pass

    items = Items()
    items.k = 0
    return InObject(lambda: items, lambda c: (setattr(c, "k", c.k + 1), c.k - 1)[1])


def _number_subclass(kind, value):
    def make():
        class Tagged(kind):
            pass

        tagged = Tagged(value)
        tagged.k = 0
        return InObject(lambda: tagged, lambda c: (setattr(c, "k", c.k + 1), c.k - 1)[1])

    return make


def _held_class_counter():
    class Helper:
        count = 0

    return InObject(Helper, lambda h: (setattr(type(h), "count", type(h).count + 1), type(h).count - 1)[1])


def _held_method_default():
    class Helper:
        def tick(self, box=[0]):  # noqa: B006
            box[0] += 1
            return box[0] - 1

    return InObject(Helper, lambda h: h.tick())


class HelperNamingAGlobal:
    def tick(self):
        HELD_CALLS[0] += 1
        return HELD_CALLS[0] - 1


HELD = {
    "an attribute of a dict subclass": _dict_subclass,
    "an attribute of a list subclass": _list_subclass,
    "an attribute of an int subclass": _number_subclass(int, 3),
    "an attribute of a str subclass": _number_subclass(str, "a"),
    "a held object's class counter": _held_class_counter,
    "a held object's method's default": _held_method_default,
    "the global a held object's method names": lambda: InObject(HelperNamingAGlobal, lambda h: h.tick()),
}


class ThroughGlobals(Counting):
    def tick(self):
        held = globals()
        held["hunt5_calls"] = held.get("hunt5_calls", 0) + 1
        return held["hunt5_calls"] - 1


class ThroughVars(Counting):
    def tick(self):
        held = vars(HOLDER)
        held["calls"] = held.get("calls", 0) + 1
        return held["calls"] - 1


class OnATensor(Counting):
    def __init__(self, buffer):
        super().__init__()
        t = torch.zeros(1, dtype=torch.float64)  # float64: the check's copy keeps the same tensor
        if buffer:
            self.register_buffer("t", t)
        else:
            self.t = t
        self.t.calls = [0]

    def tick(self):
        self.t.calls[0] += 1
        return self.t.calls[0] - 1


BY_STRINGS = {
    "an attribute of a buffer": lambda: OnATensor(True),
    "an attribute of a tensor attribute": lambda: OnATensor(False),
    "a global set through globals()": ThroughGlobals,
    "a module's attribute set through vars()": ThroughVars,
}

OUTSIDE = {
    "a mutable default argument": _default_argument,
    "a keyword-only default": _keyword_default,
    "a static method's default": _static_default,
    "a helper's default": _helper_default,
    "a lambda attribute's default": _lambda_default,
    "an attribute of the method": _function_attribute,
    "a module imported inside the method": ImportsBuiltins,
    "a chain of modules": ModuleChain,
}

MODULES = {**C_STATE, **OUTSIDE, **AS_VALUES, **HELD, **BY_STRINGS}


@pytest.fixture(autouse=True)
def fresh_counter():
    HELD_CALLS[0] = 0
    globals().pop("hunt5_calls", None)
    vars(HOLDER).pop("calls", None)


@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_the_fourth_call_breaks_the_symmetry(make):
    module, x = make(), points(8, 3)
    perm = torch.as_tensor(np.argsort(np.random.default_rng(1).permutation(8)))
    with torch.no_grad():
        agree = [bool(torch.allclose(module(x[perm]), module(x)[perm])) for _ in range(2)]
    assert agree == [True, False]


# past auto's trial threshold the sweep is slow (a proof of 1025 points per case): the fast loop
# keeps n = 8 and the fingerprint test below
SIZES_FAST_FIRST = [SIZES[0], *[pytest.param(size, marks=pytest.mark.slow) for size in SIZES[1:]]]


@pytest.mark.parametrize("size", SIZES_FAST_FIRST, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_state_the_fingerprint_missed_is_never_proved(make, method, size):
    assert verdict(make(), size, method) != "holds"


@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_the_fingerprint_names_what_one_call_changed(make):
    from gdlcheck.code.prover import state

    module = make()
    before = state.snapshot(module)
    module.tick()
    assert state.changed(before, state.snapshot(module))


class Holds(torch.nn.Module):
    """Keeps each kind of state above and reads it without changing it: stays proved."""

    def __init__(self):
        super().__init__()
        self.count, self.seen = itertools.count(5), collections.deque([1, 2])
        self.raw, self.number = bytearray(b"ab"), ctypes.c_int(3)

    def forward(self, x, box=[1.0]):  # noqa: B006
        import builtins

        scale = box[0] * len(self.seen) * len(self.raw) * self.number.value * len(HOLDER.inner.box.get("", "ab"))
        return x * scale if builtins.len(x) else x


def test_state_read_and_not_changed_stays_proved():
    assert verdict(Holds(), (8, 3), "exact") == "holds"


class Plain(torch.nn.Module):
    def forward(self, x):
        return x * 1


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
def test_a_hook_on_every_module_that_counts_is_never_proved(method, size):
    """``register_module_forward_hook``: torch's table of hooks on every module is state too."""
    calls = [0]

    def hook(module, args, out):
        if not isinstance(module, Plain):
            return out
        calls[0] += 1
        return out if calls[0] <= 3 else out + out[0]

    handle = torch.nn.modules.module.register_module_forward_hook(hook)
    try:
        module, x = Plain(), points(8, 3)
        perm = torch.as_tensor(np.argsort(np.random.default_rng(1).permutation(8)))
        with torch.no_grad():
            assert [bool(torch.allclose(module(x[perm]), module(x)[perm])) for _ in range(2)] == [True, False]
        calls[0] = 0
        assert verdict(Plain(), size, method) != "holds"
    finally:
        handle.remove()


def test_a_hook_on_every_module_that_keeps_nothing_leaves_it_proved():
    handle = torch.nn.modules.module.register_module_forward_hook(lambda module, args, out: out)
    try:
        assert verdict(Plain(), (8, 3), "exact") == "holds"
    finally:
        handle.remove()
