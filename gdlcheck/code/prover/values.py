"""Where the walk keeps what it knows of each tensor, and how it finds tensors in a call.

:class:`Values` maps a tensor to its abstract value without keeping it alive; ``_tensors``
finds the tensors in an operation's arguments and outputs; :func:`path_key` is what the check of
the second call compares of an operation; :func:`user_line` names the user's line that made a
call (for "the code asks for a value at file:line").
"""

from __future__ import annotations

import os
import sys
from types import FrameType

from gdlcheck.layers.proofs import Role

# gdlcheck's own folder: gdlcheck.code.prover.values is three folders below it
_HERE = os.path.abspath(__file__)
for _ in range(__name__.count(".")):
    _HERE = os.path.dirname(_HERE)


class Values:
    """Tensor -> Abstract, holding the tensors weakly (a call's intermediates are freed as they
    would be) and cheaply: by ``id`` with a weak reference that tells a reused id from its tensor."""

    def __init__(self, moving: Storages | None = None):
        self._d: dict = {}
        self.moving = moving  # storages of the non-constant tensors, kept up to date
        # writes seen, by version counter: a tensor's family is the counter it shares with the views
        # an operation made of it (sight.py); family -> the count of writes seen, at each
        self.writes: dict = {}
        self.count = 0  # writes seen so far (each tensor an operation's schema writes)
        self.families = 0

    def get(self, tensor, default=None):
        found = self._d.get(id(tensor))
        if found is None or found[0]() is not tensor:
            return default
        return found[1]

    def __setitem__(self, tensor, value) -> None:
        import weakref

        found = self._d.get(id(tensor))
        if found is not None and found[0]() is tensor:  # entered again (written in place): as it was
            self._d[id(tensor)] = (found[0], value, *found[2:])
        else:
            try:
                version = tensor._version  # with the count of writes seen: sight.written_unseen
            except RuntimeError:  # an inference tensor counts no versions
                version = None
            self.families += 1
            self._d[id(tensor)] = (weakref.ref(tensor), value, version, self.count, self.families)
        if not value.const and self.moving is not None:
            self.moving.add(tensor)

    def share_version(self, view, base) -> None:
        """A view an operation just made counts its base's versions once the operation returns
        (torch makes it share the counter then): it is entered with the base's version and family."""
        found, known = self._d.get(id(view)), self._d.get(id(base))
        if (
            found is not None
            and found[0]() is view
            and found[2] is not None
            and known is not None
            and known[0]() is base
            and known[2] is not None
        ):
            self._d[id(view)] = (found[0], found[1], base._version, self.count, known[4])

    def family(self, tensor):
        found = self._d.get(id(tensor))
        return found[4] if found is not None and found[0]() is tensor else None

    def recorded(self, tensor) -> tuple | None:
        """The tensor's version when it was entered, the count of writes seen then, its family."""
        found = self._d.get(id(tensor))
        if found is None or found[0]() is not tensor or found[2] is None:
            return None
        return found[2:]

    def items(self):
        for ref, value, *_ in list(self._d.values()):
            t = ref()
            if t is not None:
                yield t, value


class Storages:
    """A set of tensor storages, by the storage itself (held weakly): torch keeps one Python object
    per storage, so a storage freed and its address reused by another tensor is not a member
    (an address alone would make a fresh constant look like a view of a value that moves, or a
    tensor from outside look like one the call made)."""

    def __init__(self):
        self._d: dict = {}

    def add(self, tensor) -> None:
        import weakref

        s = _storage_object(tensor)
        if s is not None:
            refs = self._d.setdefault(s.data_ptr(), [])
            if not any(r() is s for r in refs):
                refs[:] = [r for r in refs if r() is not None] + [weakref.ref(s)]

    def update(self, tensors) -> None:
        for t in tensors:
            self.add(t)

    def __contains__(self, tensor) -> bool:
        s = _storage_object(tensor)
        return s is not None and any(r() is s for r in self._d.get(s.data_ptr(), ()))

    def overlaps(self, tensor) -> bool:
        """The tensor's memory lies over a member's, though its storage is another object (an alias
        made outside torch, from a DLPack capsule or an address): a member alive holds its memory,
        so no other allocation can have taken it."""
        s = _storage_object(tensor)
        if s is None or s.nbytes() == 0:
            return False
        start, end = s.data_ptr(), s.data_ptr() + s.nbytes()
        for refs in self._d.values():
            for r in refs:
                m = r()
                if m is not None and m.nbytes() and m.data_ptr() < end and start < m.data_ptr() + m.nbytes():
                    return True
        return False


class NamedStorages:
    """The storages of named tensors (the module's parameters and buffers), listed on first use by
    ``source`` (pairs of name and tensor): a tensor made out of the walk's sight over one of them
    (``weight.data``, which makes a tensor with no operation) holds that tensor's memory."""

    def __init__(self, source=None):
        self.source = source
        self._d: dict | None = None

    def get(self, tensor) -> str:
        if self._d is None:
            self._d = {}
            for name, t in self.source() if self.source is not None else ():
                s = _storage_object(t)
                if s is not None:
                    self._d.setdefault(s.data_ptr(), []).append((s, name))
        s = _storage_object(tensor)
        if s is None:
            return ""
        return next((name for held, name in self._d.get(s.data_ptr(), ()) if held is s), "")


def _storage_object(t):
    import torch

    try:
        return torch._C.TensorBase.untyped_storage(t)
    except Exception:  # sparse, meta or nested tensors: no storage to share
        return None


def _tensors(obj, depth: int = 0) -> list:
    """The tensors in ``obj``, in order: itself, or those in its lists, tuples and dicts' values
    down to four levels.  A list, not a generator: the walk asks this several times per operation."""
    out: list = []
    _collect(obj, depth, out, _tensor_class())
    return out


def _collect(obj, depth: int, out: list, tensor) -> None:
    if isinstance(obj, tensor):
        out.append(obj)
    elif depth < 4 and isinstance(obj, (list, tuple)):
        for o in obj:
            _collect(o, depth + 1, out, tensor)
    elif depth < 4 and isinstance(obj, dict):
        for o in obj.values():
            _collect(o, depth + 1, out, tensor)


def _tensor_class():
    import torch

    return torch.Tensor


def _op_text(func) -> str:
    """The operation for a person (display only: no rule is found by this text)."""
    return str(func)


def user_line() -> str:
    """``file:line`` of the innermost frame outside torch and gdlcheck: the code that asked."""
    import torch

    # with the separator: site-packages/torch_geometric/... is not under site-packages/torch
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(torch_dir) and not path.startswith(_HERE + os.sep):
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return "an unknown place"


def _scalar_result(out) -> bool:
    """The operation hands Python a number or a truth value (``equal``, ``is_nonzero``, ``item``)."""
    if isinstance(out, (bool, int, float, complex)):
        return True
    return isinstance(out, (tuple, list)) and any(isinstance(o, (bool, int, float, complex)) for o in out)


def _shape_only():
    import torch

    aten = torch.ops.aten
    return frozenset(
        {
            aten.is_same_size.default,
            aten.sym_size.int,
            aten.sym_numel.default,
            aten.sym_stride.int,
            aten.sym_storage_offset.default,
        }
    )


_SHAPE_ONLY = _shape_only()


def path_key(func, args, kwargs) -> tuple:
    """What of an operation's arguments the path check compares besides the operation: its plain
    values (a Python number computed from a counter or a generator differs between two calls), and
    the values of tensors made from Python data (``torch.tensor(...)``)."""
    import torch

    out = []
    for v in list(args) + list((kwargs or {}).values()):
        if isinstance(v, torch.Tensor):
            if func in _FRESH:  # every entry: 5,000 fresh random numbers differ past the 4,096th too
                out.append(content_digest(v))
            continue
        if isinstance(v, (torch.UntypedStorage, torch.TypedStorage)):  # its repr lists every entry: a
            out.append((type(v).__name__, v.nbytes()))  # read per entry was quadratic
        elif isinstance(v, (list, tuple)):
            out.append(tuple(repr(x) for x in v if not isinstance(x, torch.Tensor)))
        else:
            out.append(repr(v))
    return tuple(out)


def content_digest(t):
    """A tensor's dtype, shape and a hash of its whole content (its version where the content
    cannot be read: a meta or a sparse tensor), read past the walk's watch on readers."""
    import hashlib

    import torch

    try:
        data = t.detach()
        if data.layout != torch.strided or data.device.type == "meta":
            raise TypeError
        flat = data.cpu().contiguous().reshape(-1).view(torch.uint8)
        return (str(t.dtype), tuple(t.shape), hashlib.blake2b(torch._C.TensorBase.numpy(flat), digest_size=16).digest())
    except (TypeError, RuntimeError):
        return (str(t.dtype), tuple(t.shape), "version", t._version)


def outside_digest(t):
    """:func:`content_digest` of a tensor the code reads, computed outside the walk's dispatch
    mode (none of its operations is the code's)."""
    from torch.utils._python_dispatch import _disable_current_modes

    with _disable_current_modes():
        return content_digest(t)


def own_dispatch(cls) -> bool:
    """Whether a tensor class runs its own code on torch's operations: a ``__torch_dispatch__``
    or a ``__torch_function__`` of its own (a quantized or sharded weight, a tensor that adds
    something to every ``add``), not torch's ``Parameter`` and ``Buffer``, which only unwrap."""
    import torch

    for c in cls.__mro__:
        if c is torch.Tensor or c is torch._C.TensorBase:
            return False
        mine = vars(c)
        if "__torch_dispatch__" in mine:
            return True
        if "__torch_function__" in mine and mine["__torch_function__"] is not torch._C._disabled_torch_function_impl:
            return True
    return False


def _fresh():
    import torch

    return frozenset({torch.ops.aten.lift_fresh.default, torch.ops.aten.lift_fresh_copy.default})


_FRESH = _fresh()


def storage(t):
    """The address of a tensor's storage (None for a tensor without one), read past the walk's
    watch on ``Tensor.untyped_storage``."""
    import torch

    try:
        return torch._C.TensorBase.untyped_storage(t).data_ptr()
    except Exception:  # sparse, meta or nested tensors: no storage to share
        return None


class Abstract:
    """A traced tensor: a constant of the call (``const``, with ``origin``: the parameter, buffer
    or submodule it comes from), or per generator its :class:`~gdlcheck.code.prover.moves.Moves`, or the
    :class:`Halt` that stopped it."""

    __slots__ = ("const", "per", "origin", "free", "role", "foreign")

    def __init__(
        self,
        const: bool,
        per=None,
        origin: str = "",
        free: bool = True,
        role: Role = Role.CONSTANT,
        foreign: bool = False,
    ):
        # free: depends on the random inputs (not only on given values and constants); role: a
        # constant that is a parameter or a buffer (or a view of one), or another constant
        self.const, self.per, self.origin, self.free = const, per, origin, free and not const
        self.role = role
        self.foreign = foreign  # made before the call (a parameter, a buffer, a held input, a global)


def _shape(t) -> tuple:
    """A tensor's shape for the path check; a nested (ragged) tensor's by the sizes of its pieces."""
    if t.is_nested:
        return ("nested",) + tuple(tuple(r) for r in t._nested_tensor_size().tolist())
    return tuple(t.shape)


def _without_values(value):
    """Tensors (alone, or in a list or tuple) as meta tensors: the same shape, strides and dtype,
    no data to read."""
    import torch

    if isinstance(value, torch.Tensor):
        try:
            return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device="meta")
        except (RuntimeError, TypeError, NotImplementedError):  # a sparse or nested layout
            return torch.empty(value.shape, dtype=value.dtype, device="meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_without_values(v) for v in value)
    return value
