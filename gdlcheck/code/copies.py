"""The copy of a torch module that runs is the module: compared with it once it is made.

gdlcheck checks a copy of the user's module (``copy.deepcopy``, then ``Module.to`` the run's
dtype, :mod:`gdlcheck.code.running`).  A class of the program can make that copy another module:
its own ``__deepcopy__``, ``__reduce_ex__`` or ``__getstate__``, or a ``to`` or ``_apply`` that
clears a flag, fills a mask, or changes an entry of a config object on the way; the check would
then be of that other module.  :func:`check_same` compares the two, submodule by submodule: the
classes, every attribute at any depth (plain values, tensors and arrays, inside lists, tuples,
dicts, sets and the attributes of other objects), each parameter and buffer.
"""

from __future__ import annotations

import collections
import functools
import sys
import types
import weakref
from typing import Any

import numpy as np

from gdlcheck.code.torch_bridge import parts, tensors_of
from gdlcheck.errors import CallableError

_PLAIN = (bool, int, float, complex, str, bytes, type(None))
# shared, never copied: compared by their type only (a copy of a function is the function)
_OPAQUE = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    type,
    staticmethod,
    classmethod,
    property,
)
# builtin containers (exact types, whose len is Python's own) that, both empty and with no attributes, are the same
_EMPTIED = frozenset((dict, list, tuple, set, frozenset, collections.OrderedDict))
# the module's own tables that are compared elsewhere (named_modules, parameters and buffers)
_TORCH_TABLES = frozenset({"_modules", "_parameters", "_buffers"})
# objects (containers, tensors, other objects: not plain values) compared at most per check; past
# it the rest is not compared.  A module holding more stops the proof anyway: its state is past
# what the prover fingerprints (code.prover.state.MAX_STATE_NODES, the same number)
MAX_COMPARED = 200_000


_ORIGINALS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _torch():
    return sys.modules.get("torch")


class TellsTheCopy(Exception):
    """What the copy's code reaches holds the user's module or a part of it, a weak reference to one,
    or the id of one (:func:`remember_original`): it could tell the copy from the module."""


TELLS_WHY = (
    "the module's code can tell the copy from the module (it holds the module, a weak reference to it, or its id)"
)


def remember_original(clone, module) -> None:
    """Keep the identities of the user's module, its submodules, parameters and buffers for the
    copy made of it (those the copy shares left out): code that holds one of them (a registry its
    ``__init__`` filled, ``id(self)`` kept, ``self is MODEL``) can tell the copy from the module."""
    mine = [m for _, m in parts(clone)] + [t for *_, t in tensors_of(clone)]
    theirs = [m for _, m in parts(module)] + [t for *_, t in tensors_of(module)]
    shared = {id(x) for x in mine}
    # by id, and by the default hash (id rotated), which code may keep as well
    _ORIGINALS[clone] = frozenset(key for x in theirs if id(x) not in shared for key in (id(x), object.__hash__(x)))


def originals(clone) -> frozenset:
    """The identities :func:`remember_original` kept for ``clone`` (none for another object)."""
    try:
        return _ORIGINALS.get(clone, frozenset())
    except TypeError:  # not weakly referable: no copy gdlcheck made
        return frozenset()


def check_same(module, clone) -> None:
    """The copy that runs is the module: the same classes, the same attributes at any depth (a
    flag in a list, a dict or a config object too), and each parameter and buffer the same,
    submodule by submodule.  A jit module is copied by torch's own code, into another jit class:
    its attributes are jit's.

    Raises
    ------
    CallableError
        where the copy differs, naming the attribute.
    """
    torch, said = _torch(), f"the copy of the module {type(module).__name__} is not the module"
    mine, copied = parts(module), parts(clone)  # torch's tables: a class's own named_modules may hide parts
    if [key for key, _ in mine] != [key for key, _ in copied]:
        raise CallableError(f"{said} (its submodules)")
    walk = _Walk()
    for (key, a), (_, b) in zip(mine, copied):
        if isinstance(a, torch.jit.ScriptModule) and isinstance(b, torch.jit.ScriptModule):
            continue
        if type(a) is not type(b):
            raise CallableError(f"{said} ({key or 'its class'})")
        ours, theirs = vars(a), vars(b)
        for name in sorted(set(ours) ^ set(theirs), key=str):
            raise CallableError(f"{said} ({key + '.' if key else ''}{name})")
        for name, value in ours.items():
            if name not in _TORCH_TABLES and walk.differs(value, theirs[name]):
                raise CallableError(f"{said} ({key + '.' if key else ''}{name})")
    theirs = {key: t for key, *_, t in tensors_of(clone)}
    for key, *_, value in tensors_of(module):
        if key not in theirs or not _same_tensor(value, theirs[key]):
            raise CallableError(f"{said} ({key})")


class _Walk:
    """Two values compared in step, at any depth; a pair met before (a cycle, a shared object) is
    not compared again, and past :data:`MAX_COMPARED` objects nothing is."""

    def __init__(self) -> None:
        self.seen: set = set()
        self.kept: list = []  # the pairs seen, alive until the walk ends (their ids stay theirs)
        self.left = MAX_COMPARED

    def differs(self, a, b) -> bool:
        todo = [(a, b)]  # a stack, not recursion: a chain of objects may be deeper than Python recurses
        while todo:
            a, b = todo.pop()
            if type(a) is not type(b):
                return True
            if type(a) in _PLAIN:
                if not (a == b or (a != a and b != b)):  # NaN is NaN here
                    return True
                continue
            if (
                type(a) in _EMPTIED
                and not a
                and not b
                and not getattr(a, "__dict__", None)
                and not getattr(b, "__dict__", None)
            ):
                continue  # two empty containers of a builtin type (most of a module's hook tables)
            if isinstance(a, _PLAIN) and not _same_plain(a, b):  # a subclass: its own == may lie
                return True
            if isinstance(a, _OPAQUE) or (id(a), id(b)) in self.seen or self.left <= 0:
                continue
            self.left -= 1
            self.seen.add((id(a), id(b)))
            self.kept.append((a, b))
            parts = _parts(a, b)
            if parts is None:
                return True
            todo.extend(reversed(parts))
        return False


def _same_plain(a, b) -> bool:
    """Two values of one subclass of a plain type, by the plain type's own ``==`` (a subclass's
    ``__eq__`` is the program's: a ``str`` equal to every string); their attributes come next."""
    base: Any = next(t for t in type(a).__mro__ if t in _PLAIN)
    return base.__eq__(a, b) is True or (base.__ne__(a, a) is True and base.__ne__(b, b) is True)


def _parts(a, b) -> list | None:
    """The pairs of parts of two objects of one type to compare next (entries, then attributes), or
    None where they differ already: a tensor's or an array's values, a set's, a container's length."""
    torch = _torch()
    if torch is not None and isinstance(a, torch.Tensor):
        return _pairs(_own_dict(a), _own_dict(b)) if _same_tensor(a, b) else None
    if isinstance(a, (np.ndarray, np.generic)):
        return [] if _same_array(a, b) else None
    if isinstance(a, (set, frozenset)):  # plain entries as a whole; copied objects by their count
        left, right = frozenset(_entries(a)), frozenset(_entries(b))  # a subclass's own methods may lie
        plain = all(type(x) in _PLAIN for x in left)
        return [] if (frozenset.__eq__(left, right) if plain else len(left) == len(right)) else None
    if isinstance(a, functools.partial):
        return [((a.func, a.args, a.keywords), (b.func, b.args, b.keywords))]
    attributes = _pairs(_own_dict(a), _own_dict(b))
    if attributes is None:
        return None
    if isinstance(a, (list, tuple, dict)):  # the entries as the base type holds them (a subclass's may lie)
        ours, theirs = _entries(a), _entries(b)
        return None if len(ours) != len(theirs) else list(zip(ours, theirs)) + attributes
    return attributes


def _entries(value: Any) -> list:
    """A container's entries (a dict's keys and values, in order) read with its base type's own
    methods: a subclass may redefine its iteration, ``keys`` or ``len`` to hide an entry."""
    if isinstance(value, dict):
        return [x for pair in dict.items(value) for x in pair]
    base: Any = next((t for t in (list, tuple, set, frozenset) if isinstance(value, t)), None)
    return [] if base is None else list(base.__iter__(value))


def _pairs(ours: dict, theirs: dict) -> list | None:
    """An object's own attributes (its ``__dict__`` and slots) side by side, or None when their names
    differ; a value with neither (a C type's object) has none, and is compared by its type only."""
    if list(ours) != list(theirs):
        return None
    return [(ours[k], theirs[k]) for k in ours]


def _own_dict(obj) -> dict:
    out = dict(getattr(obj, "__dict__", None) or {})
    for cls in type(obj).__mro__:
        slots = vars(cls).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                out[f"slot {name}"] = getattr(obj, name)
    return out


def _same_array(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    try:
        return bool(np.array_equal(a, b, equal_nan=bool(np.issubdtype(a.dtype, np.inexact))))
    except Exception:  # an object array whose entries do not compare: not known to be the same
        return False


def _same_tensor(a, b) -> bool:
    torch = _torch()
    if a.device.type == "meta" or b.device.type == "meta":  # no values: the shape and the dtype
        return a.shape == b.shape and a.dtype == b.dtype
    a, b = (t.detach().to_dense() if t.layout != torch.strided else t.detach() for t in (a, b.to(a.dtype)))
    return a.shape == b.shape and bool(torch.equal(a, b) or (a.is_floating_point() and a.allclose(b, 0, 0, True)))
