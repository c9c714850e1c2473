"""What a call may change: a fingerprint of the module's state, before and after.

State is every attribute of every submodule and of its classes (a counter kept on the class and read through
``type(self)``), followed through containers (a subclass's attributes too, as a number's) and objects at any depth
(their ``__dict__`` and ``__slots__``, their classes of the user's own code, and what pickling reads of the state a
C type keeps outside them: an ``itertools.count``, an iterator's position, a ``deque``, a ``bytearray``), once per
object (a cycle ends where it began): tensors by content and their Python attributes (a buffer rebound through
``.data`` is the same object with new values), numpy arrays by their bytes, random generators by their state,
numbers and strings by value; classes and Python modules met as values by identity. The user's own functions the
module holds, wherever (its classes' methods and properties, attributes, containers, hook tables, a ``partial``; a
bound method with its object), add what they keep outside it: their closures' cells, their defaults (a mutable
default argument) and attributes, and the globals their code names (``OTHER.n`` of another module too, through
chains of modules, the modules they import inside, a string that could be a name), through the user's functions they
name in turn, and what their ``lru_cache``s hold (an entry whose value a call changes is a change; one a call adds
is the cache at work); torch's, the standard library's and installed packages' functions are trusted to keep none.
torch's tables of hooks on every module, Python's and numpy's global random states are part of it; torch's generator
is compared by the caller. A call that changes any of it is not proved: its next call may compute something else.
Past :data:`MAX_STATE_NODES` objects the fingerprint is refused rather than cut short (the proof stops, saying so).
"""

from __future__ import annotations

import collections
import functools
import random
import sys
import types
import weakref
from typing import cast

import numpy as np

from gdlcheck.code.copies import TELLS_WHY, TellsTheCopy, originals
from gdlcheck.code.prover.kept import c_state, digest, function, functions, pickled, slots
from gdlcheck.code.prover.own import class_functions, code_names, users, users_class
from gdlcheck.code.prover.sight import cache_entries
from gdlcheck.code.prover.values import content_digest

# objects one fingerprint visits at most; past it the proof stops (a cut-short walk could miss a change)
MAX_STATE_NODES = 200_000

_BY_IDENTITY: tuple = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)
_BY_IDENTITY += (types.CodeType, types.FrameType, staticmethod, classmethod, property)


# the plain values and containers by their exact type, ahead of the isinstance chain (same fingerprint;
# a subclass, a tensor or an array goes the long way)
_AS_VALUE = frozenset((int, float, str, bool, type(None), complex, bytes))
_CONTAINERS = frozenset((list, tuple, set, frozenset, dict, collections.OrderedDict))
_PLAIN = _AS_VALUE | _CONTAINERS  # no function among them
# typing's aliases (list[int], int | None), which no isinstance below matches from Python 3.11 on (an alias answers
# its own __class__; 3.10's list[int] passed for a type): the long chain cost most of nn.Module's annotations' walk
_ALIASES = frozenset((types.GenericAlias, types.UnionType)) if sys.version_info >= (3, 11) else frozenset()
# the exact types of _BY_IDENTITY (a class's methods, most of its dict): no isinstance chain
_IDENTITY_KINDS = frozenset(_BY_IDENTITY)


class StateTooLarge(Exception):
    """The module's state has more objects than one fingerprint visits."""


TELLS = ("", TELLS_WHY)  # a snapshot's only key where the code can tell the copy from the module: the proof stops


def snapshot(module) -> dict:
    """What a call may change, by place: every attribute of every submodule and of the classes of
    the submodules, and the random states."""
    try:
        return _snapshot(module)
    except TellsTheCopy:
        return {TELLS: object()}
    except StateTooLarge:  # never equal to another snapshot: the proof stops, saying why
        return {("", f"its state (more than {MAX_STATE_NODES:,} objects, not compared)"): object()}


def _snapshot(module) -> dict:
    walk = _Fingerprint()
    walk.originals = originals(module)
    of = walk.of
    script_method = walk.torch._C.ScriptMethod
    modules = list(module.named_modules())
    for _, m in modules:  # a submodule met as a value is named by its place; its own keys walk it
        walk._visit(m)
    out = {}
    bound: list[list] = []  # per submodule, the user's functions set on it (key, function), in order
    for name, m in modules:
        bound.append([])
        for key, value in list(vars(m).items()):
            if isinstance(value, script_method):  # a scripted module binds its compiled methods on
                continue  # first use: code, not state (its tensors are walked as any module's)
            if key in ("_parameters", "_buffers", "_modules"):
                for k, v in list(value.items()):
                    out[(name, k)] = of(v)
            else:
                out[(name, key)] = of(value)
                fn = function(value) if type(value) not in _PLAIN else None
                if fn is not None and users(fn):
                    bound[-1].append((key, fn))
        for i, cls in enumerate(type(m).__mro__[:-1]):  # every class but object; a subclass named as its
            key = (name, f"<class {cls.__qualname__}>")  # base (class Linear(nn.Linear)) is a key of its own
            if key in out:
                key = (name, f"<class {cls.__module__}.{cls.__qualname__}, base {i}>")
            out[key] = walk.of_class(cls)
    # the user's own functions the module may run: what they keep outside it.  Each class's are
    # read once in this walk (nn.Module is in every submodule's MRO), by its id (a metaclass's
    # __hash__ is the user's code)
    own: dict[int, list] = {}
    inits = []  # each class's __init__, last: what it holds tells the copy only where other code reaches it too
    for (name, m), functions_set in zip(modules, bound):
        for cls in type(m).__mro__[:-1]:
            if id(cls) not in own:
                own[id(cls)] = class_functions(cls, functions)
            for attr, fn in own[id(cls)]:
                key = (name, f"<code {cls.__qualname__}.{attr}>")
                if attr == "__init__":
                    inits.append((key, fn))
                else:
                    out[key] = walk.code(fn)
        for key, fn in functions_set:
            out[(name, f"<code {key}>")] = walk.code(fn)
    # torch's hooks on every module (register_module_forward_hook): they run in the call too
    tables = vars(walk.torch.nn.modules.module)
    for key in [k for k in tables if k.startswith("_global_") and isinstance(tables[k], dict)]:
        out[("", f"<torch {key}>")] = of(tables[key])
    # a test's class that sets `self.attn = attn` from its closure holds the user's module there, which
    # only construction reads (a forward that ran __init__ again would rebind a part: a change)
    walk.originals = frozenset()
    out.update((key, walk.code(fn)) for key, fn in inits)
    for place, key, value in walk.cached():  # outside the walk: each with its own numbering
        out[(place, key)] = _Fingerprint().of(value)
    out[("", "python random")] = random.getstate()
    # numpy's stubs say a dict or a tuple; the legacy form (the default) is the tuple
    state = cast(tuple, np.random.get_state())
    out[("", "numpy random")] = (state[0], state[1].tobytes(), state[2:])
    return out


class _Fingerprint:
    """One cycle-safe walk: an object met again is named by the order it was first met in."""

    def __init__(self):
        import torch

        self.torch = torch
        self.tensor_kinds = (torch.Tensor, torch.nn.Parameter, getattr(torch.nn, "Buffer", torch.Tensor))
        self.seen: dict[int, int] = {}
        self.keep: list = []  # the objects seen, alive until the walk ends (ids stay theirs)
        self.codes: set[int] = set()  # the functions whose code state was taken
        self.modules: set[tuple] = set()  # (module, names) whose attributes were taken
        self.caches: list = []  # the user's functions' lru_caches met, in order
        self.originals: frozenset = frozenset()  # ids of the user's module and its parts (the module is a copy)

    def of_class(self, cls):
        key = self._visit(cls)
        if isinstance(key, tuple):  # fingerprinted once in this walk; a class is itself (no count of
            return ("class again", id(cls))  # objects met before it, which a lazily made cache shifts)
        of = self.of
        return (
            "class",
            cls.__qualname__,
            tuple(
                [
                    (k, of(v))
                    for k, v in list(vars(cls).items())
                    if type(v) not in _IDENTITY_KINDS and not isinstance(v, _BY_IDENTITY)
                ]
            ),
        )

    def of(self, value):
        kind = type(value)
        if kind in _AS_VALUE:
            if kind is int and value in self.originals:  # id() of the user's module or a part of it
                raise TellsTheCopy
            return value
        if kind in _CONTAINERS:  # most of a module's attributes (its hook tables): what the chain below gives
            key = self._visit(value)
            return key if key.__class__ is tuple else self._container(value)
        if kind in _IDENTITY_KINDS:
            return self._callable(value)
        torch = self.torch
        if kind in self.tensor_kinds:  # torch's own tensor, parameter and buffer: what the chain below gives
            key = self._visit(value)
            return key if key.__class__ is tuple else self._tensor(value)
        if kind in _ALIASES:  # typing's aliases (nn.Module's annotations): none of the kinds below, by their type
            key = self._visit(value)  # as _fields reads one (no slots, nothing pickled, not the user's class),
            attrs = getattr(value, "__dict__", None)  # without its chain: list[int] answers its origin's dict
            if key.__class__ is tuple or isinstance(attrs, dict):
                return key if key.__class__ is tuple else self._fields(value)
            return ("object", kind.__qualname__, () if attrs is not None else id(value))
        if isinstance(value, (int, float, str, complex, bytes)):  # a subclass: its value by its base type's repr
            base = next(t for t in (int, float, complex, str, bytes) if isinstance(value, t))  # (its == may lie)
            return (kind.__qualname__, base.__repr__(value), self.of(getattr(value, "__dict__", None) or {}))
        if isinstance(value, _BY_IDENTITY):
            return self._callable(value)
        key = self._visit(value)
        if isinstance(key, tuple):
            return key
        if isinstance(value, torch.Tensor):
            return self._tensor(value)
        if isinstance(value, np.ndarray):
            return (
                "array",
                value.dtype.str,
                value.shape,
                digest(np.ascontiguousarray(value).view(np.uint8))
                if value.dtype != object
                else tuple(self.of(v) for v in value.ravel().tolist()),
            )
        if isinstance(value, (random.Random, np.random.RandomState)):
            return ("generator", repr(value.getstate() if isinstance(value, random.Random) else value.get_state()))
        if isinstance(value, np.random.Generator):
            return ("generator", repr(value.bit_generator.state))
        if isinstance(value, torch.Generator):
            return ("generator", value.get_state().numpy().tobytes())
        if isinstance(value, (list, tuple, set, frozenset, dict)):  # a subclass: its attributes too
            extra = getattr(value, "__dict__", None)
            return (self._container(value), self.of(extra)) if extra else self._container(value)
        if isinstance(value, np.generic):
            return ("number", repr(value))
        if isinstance(value, functools._lru_cache_wrapper):
            return self._cache(value)
        if isinstance(value, weakref.ref) and id(value()) in self.originals:  # a WeakSet's, a WeakKeyDictionary's
            raise TellsTheCopy
        return self._fields(value)

    def _fields(self, value):
        """An object by its ``__dict__`` and slots (by identity where it has neither)."""
        fields = []
        attrs = getattr(value, "__dict__", None)
        if isinstance(attrs, dict):
            fields.extend((k, self.of(v)) for k, v in list(attrs.items()))
        for cls in type(value).__mro__:
            for slot in slots(cls):
                if slot not in ("__dict__", "__weakref__"):
                    fields.append((slot, self.of(getattr(value, slot, _MISSING))))
        kept = pickled(value) if not fields or c_state(type(value)) else None
        if kept is not None:
            fields.append(("<pickled>", self.of(kept)))
        for cls in type(value).__mro__[:-1]:  # the user's classes of what it holds: their counters and code
            if users_class(cls):
                code = tuple(self.code(fn) for v in list(vars(cls).values()) for fn in functions(v) if users(fn))
                fields.append((f"<class {cls.__qualname__}>", self.of_class(cls), code))
        if not fields and attrs is None:
            return ("object", type(value).__qualname__, id(value))
        return ("object", type(value).__qualname__, tuple(fields))

    def _tensor(self, value):
        """A tensor by its content, and the Python attributes set on it (``buffer.k = 0``)."""
        extra = value.__dict__
        return ("tensor", id(value), content_digest(value), self.of(extra) if extra else None)

    def _callable(self, value):
        """A function met as a value (a hook in a module's hook table, a callback in a list, a
        partial's function): the user's own by what it keeps (:meth:`code`), a bound method also by
        the object it is bound to; the rest (classes, modules, trusted functions) by identity."""
        if isinstance(value, types.MethodType):
            return ("method", self.of(value.__self__), self._callable(value.__func__))
        own = [fn for fn in functions(value) if users(fn)]
        return ("code", tuple(self.code(fn) for fn in own)) if own else ("identity", id(value))

    def code(self, fn):
        """What a function of the user's own code keeps outside the module: the contents of its
        closure's cells, and the globals its code names (a counter in a list, a module's attribute
        named in it, ``OTHER.n``), through the user's functions it names in turn."""
        if id(fn) in self.codes:
            return ("code again", fn.__qualname__)
        self.codes.add(id(fn))
        self.keep.append(fn)
        cells = []
        for cell in fn.__closure__ or ():
            try:
                cells.append(self._held(cell.cell_contents, ()))
            except ValueError:  # a cell not yet filled
                cells.append(("empty cell",))
        names = code_names(fn.__code__)
        held = fn.__globals__
        named = tuple((n, self._held(held[n], names)) for n in names if n in held)
        # what the function keeps on itself: its default values (a mutable default argument is
        # a counter) and its attributes; and the modules it imports inside (``import builtins``)
        kept = (
            self._held(fn.__defaults__, names),
            self._held(fn.__kwdefaults__, names),
            self._held(fn.__dict__, names),
        )
        imported = tuple(
            (n, self._held(sys.modules[n], names))
            for n in names
            if n not in held and isinstance(sys.modules.get(n), types.ModuleType)
        )
        return ("code", fn.__qualname__, tuple(cells), named, kept, imported)

    def _cache(self, wrapper):
        """An ``lru_cache`` (or ``functools.cache``) met as a value: of the user's own function, the
        wrapped code's state here, and what it holds (:meth:`cached`); an installed package's is
        trusted, as its functions are."""
        fn = getattr(wrapper, "__wrapped__", None)
        if not isinstance(fn, types.FunctionType) or not users(fn):
            return ("identity", id(wrapper))
        self.caches.append(wrapper)
        return ("lru_cache", fn.__qualname__, self.code(fn))

    def cached(self):
        """``(place, key, value)`` for each entry of the lru_caches met: what each returned for
        each of its keys.  The caller fingerprints each value on its own, so that a new entry (a
        first call for a key, which a cache exists to keep) shifts no other fingerprint; an entry
        whose value changes (a cached tensor or list the code then writes) is a change of state."""
        done: set[int] = set()
        for wrapper in self.caches:
            if id(wrapper) in done:
                continue
            done.add(id(wrapper))
            place = f"{CACHE} {wrapper.__wrapped__.__qualname__}"
            entries = cache_entries(wrapper)
            if entries is None:  # its layout is not one this Python's lru_cache is known to have
                yield place, "its entries (not readable)", object()
                continue
            for key, value in entries:
                found = _Fingerprint().of(key)
                try:
                    hash(found)
                except TypeError:
                    found = repr(found)
                yield place, found, value

    def _held(self, value, names):
        fn = function(value)
        if fn is not None:
            return self.code(fn) if users(fn) else ("identity", id(value))
        if isinstance(value, types.ModuleType):  # its attributes the code names (OTHER.n), through
            if (id(value), names) in self.modules:  # the modules among them (holder.inner.box)
                return ("module again", value.__name__)
            self.modules.add((id(value), names))
            attrs = vars(value)
            return (
                "module",
                value.__name__,
                tuple(
                    (n, self._held(attrs[n], names) if isinstance(attrs[n], types.ModuleType) else self.of(attrs[n]))
                    for n in names
                    if n in attrs
                ),
            )
        return self.of(value)

    def _container(self, value):
        """A list, tuple, set or dict (or a subclass) by its items: a set's sorted, the others in order."""
        of = self.of
        if type(value) not in _CONTAINERS:  # a subclass's own methods may hide an entry: its base type's read it
            base = next(t for t in (list, tuple, set, frozenset, collections.OrderedDict, dict) if isinstance(value, t))
            value = base(base.items(value)) if issubclass(base, dict) else base(base.__iter__(value))
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, tuple([of(v) for v in value]))
        if isinstance(value, (set, frozenset)):
            return (type(value).__name__, tuple(sorted([of(v) for v in value], key=repr)))
        return ("dict", tuple([(of(k), of(v)) for k, v in list(value.items())]) if value else ())

    def _visit(self, value):
        """The object's first-visit number, or ``("again", number)`` when it was met before."""
        seen = self.seen
        key = id(value)
        found = seen.get(key)
        if found is not None:
            return ("again", found)
        count = len(seen)
        if count >= MAX_STATE_NODES:
            raise StateTooLarge(f"more than {MAX_STATE_NODES:,} objects")
        if key in self.originals:
            raise TellsTheCopy
        seen[key] = count
        self.keep.append(value)
        return count


_MISSING = object()


# the place of an lru_cache's entries in a snapshot: an entry made by the call is no change of state
CACHE = "<lru_cache>"


def changed(before: dict, after: dict) -> list[str]:
    if before == after:  # the usual answer, in one comparison
        return []
    keys = list(dict.fromkeys(list(before) + list(after)))
    out = []
    for name, key in keys:
        if before.get((name, key)) == after.get((name, key)):
            continue
        if name.startswith(CACHE):  # an entry the call added or the cache let go of is no change
            if (name, key) in before and (name, key) in after:
                out.append(f"what {name[len(CACHE) + 1 :]} (an lru_cache) returned")
            continue
        out.append(f"{name + '.' if name else ''}{key}")
    return list(dict.fromkeys(out))
