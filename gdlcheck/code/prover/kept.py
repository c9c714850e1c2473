"""What an object keeps where its ``__dict__`` does not show it, for the state fingerprint
(:mod:`~gdlcheck.code.prover.state`): the state a C type keeps (an ``itertools.count``, an
iterator's position, a ``deque``, a ``bytearray``, a ``StringIO``'s position, a ``ctypes``
number), read as pickling reads it, the Python functions behind a value (a static or class
method's, a property's), the slots a class declares, and a digest of bytes."""

from __future__ import annotations

import hashlib
import types
import warnings

# types pickling is not asked about, as typing's are not: aliases, descriptors and Ellipsis keep
# nothing a call changes (nn.Module's annotations hold 17 in every walk)
STATELESS = frozenset(
    (types.GenericAlias, types.UnionType, types.GetSetDescriptorType, types.MemberDescriptorType, type(Ellipsis))
)


def pickled(value):
    """What pickling reads of ``value``: ``__reduce_ex__``'s arguments, state and items, as one
    tuple to fingerprint; None where it has none or does not answer.  The module was deep-copied
    through the same protocol, so every object it holds answers it."""
    if type(value) in STATELESS or type(value).__module__ == "typing":
        return None
    try:
        with warnings.catch_warnings():  # (pickling itertools objects is deprecated in 3.12)
            warnings.simplefilter("ignore", DeprecationWarning)
            reduced = value.__reduce_ex__(4)
    except Exception:
        return None
    if not isinstance(reduced, tuple):  # a global's name: no state
        return None
    return (*reduced[1:3], *[None if items is None else list(items) for items in reduced[3:5]])


def c_state(kind) -> bool:
    """Instances of ``kind`` keep state that pickling reads and ``__dict__`` does not hold: it
    overrides ``__reduce_ex__``, ``__reduce__`` or ``__getstate__`` in C (a ``StringIO``'s
    position, a ``ctypes`` number's value); the user's own Python overrides are not called."""
    return any(
        getattr(kind, name, None) is not getattr(object, name, None)
        and not isinstance(getattr(kind, name, None), types.FunctionType)
        for name in ("__reduce_ex__", "__reduce__", "__getstate__")
    )


def function(value):
    """The Python function behind a value (a function, a static or class method), or None."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    return value if isinstance(value, types.FunctionType) else None


def functions(value) -> tuple:
    """The Python functions behind a value: a function, a static or class method's, a property's
    getter, setter and deleter."""
    if isinstance(value, property):
        return tuple(f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType))
    fn = function(value)
    return () if fn is None else (fn,)


def slots(cls) -> tuple:
    """The slot names a class itself declares."""
    declared = vars(cls).get("__slots__", ())
    return (declared,) if isinstance(declared, str) else tuple(declared)


def digest(data) -> bytes:
    return hashlib.blake2b(memoryview(data), digest_size=16).digest()
