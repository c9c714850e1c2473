"""The patches of a traced call that watch values read outside torch's operations
(:func:`~gdlcheck.code.prover.patches.patched` opens them once per proof, under its lock): the
tensor methods that read values or run Python on them, the setter of ``Tensor.data``, a tensor's
number protocol, and the kernel of ``tensor_split`` by a tensor of indices.  Reading a tensor that
depends on the inputs stops the proof; each patch reports to the walk of the traced call running
(``watch.walk``; between a proof's calls, none: it passes through), acts only for the thread that
holds the lock (``owner``), and is put back as it was, whatever the calls raise.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import sys
import threading

from gdlcheck.code.prover import values

# Tensor methods that read values without a torch operation the dispatcher sees (a storage read
# element by element dispatches an operation per element: stopped at the first, it stays linear)
READERS = (
    "tolist",
    "numpy",
    "__array__",
    "__repr__",
    "__format__",
    "data_ptr",
    "untyped_storage",
    "storage",
    "_typed_storage",
    "__reduce_ex__",
    "__dlpack__",
)
# the readers among them that hand out the tensor's memory itself (an array, a storage, an address):
# a write through it later is no operation, so none may be taken of a tensor the call made
ALIASES = ("numpy", "__array__", "__dlpack__", "untyped_storage", "storage", "_typed_storage", "data_ptr")
# Tensor methods that run Python on the values and write them back, with no operation dispatched
PYTHON_WRITERS = ("apply_", "map_", "map2_")


@contextlib.contextmanager
def value_reads(watch, owner: int):
    """For the call only, each tensor method that reads values outside torch's operations checks
    first whether the tensor depends on the inputs: the proof stops there (the path may depend on
    the values read).  A profile hook would see every call but costs a Python call per call."""
    import torch

    def watched(original, name):
        @functools.wraps(original)
        def method(self, *args, **kwargs):
            walk = watch.walk
            if walk is None:  # between a proof's calls: nothing is watched
                pass
            elif threading.get_ident() != owner:
                _another_thread(walk, self, name)
            elif not walk.busy and walk.everywhere is None and not _ours(sys._getframe(1)):
                walk.busy = True  # the walk's own look at the tensor reads nothing of the code's
                try:
                    if _unseen() and _out_of_sight(walk, self):
                        _stop_out_of_sight(walk, name)
                    elif name in ALIASES and self in walk.made:  # (a parameter's or buffer's: the state walk)
                        walk.stop_everywhere(
                            f"the code takes a handle on the memory of a tensor the call made "
                            f"(Tensor.{name}): a write through it is no operation",
                            "asks_value",
                        )
                    elif not walk.read([self], values.outside_digest(self)):
                        walk.stop_everywhere(
                            "the code reads the values of a tensor that depends on the inputs", "asks_value"
                        )
                finally:
                    walk.busy = False
            return original(self, *args, **kwargs)

        return method

    def refused(original, _name):
        @functools.wraps(original)
        def method(self, *args, **kwargs):
            walk = watch.walk
            if walk is not None and threading.get_ident() == owner and not walk.busy:
                walk.stop_everywhere("the code computes values in Python (Tensor.apply_ / map_)", "asks_value")
            return original(self, *args, **kwargs)

        return method

    saved = []  # (class, name, the descriptor it held)
    try:
        for names, wrap in ((READERS, watched), (PYTHON_WRITERS, refused)):
            for name in names:
                owner_class = next((c for c in torch.Tensor.__mro__ if name in vars(c)), None)
                if owner_class is None:
                    continue
                descriptor = vars(owner_class)[name]
                if _set(owner_class, name, wrap(getattr(torch.Tensor, name), name)):  # (the moved call stays the net
                    saved.append((owner_class, name, descriptor))  # where a C type cannot be set)
        yield
    finally:
        for cls, name, descriptor in reversed(saved):
            _set(cls, name, descriptor)


@contextlib.contextmanager
def data_set(watch, owner: int):
    """``t.data = other`` swaps a tensor's memory for another's with no operation dispatched: the
    walk would still say ``t`` holds what it held (the points' values, say) while it holds
    ``other`` (a constant).  For the call, the setter of ``Tensor.data`` stops the proof."""
    import torch

    descriptor = vars(torch._C.TensorBase)["data"]

    def set_data(self, value):
        walk = watch.walk
        if walk is not None and threading.get_ident() == owner and not walk.busy and not _ours(sys._getframe(1)):
            walk.stop_everywhere(
                "the code sets a tensor's .data: its memory is swapped with no operation", "asks_value"
            )
        descriptor.__set__(self, value)

    watched = property(descriptor.__get__, set_data, doc=descriptor.__doc__)
    done = _set(torch._C.TensorBase, "data", watched)  # (the moved call stays the net where it cannot be set)
    try:
        yield
    finally:
        if done:
            _set(torch._C.TensorBase, "data", descriptor)


# The number protocol of a tensor: torch's C++ constructors (``torch.tensor([k])``, ``as_tensor``,
# ``new_tensor`` and the legacy ``torch.LongTensor([k])``, ``torch.Tensor([k])``, ``x.new([k])``)
# read each tensor inside the sequence they are given through it, with the Python dispatch key off,
# so the ``item`` inside dispatches nothing the walk sees.  These are type slots: they are set on
# the Python class ``torch.Tensor``, whose slots Python updates (and on each subclass's), so every
# caller reaches them, however the constructor was bound.
# ``item`` is read alike where the walk does not see it: with the dispatch turned off by the code
NUMBERS = ("__index__", "__int__", "__float__", "__bool__", "__complex__", "item")


@contextlib.contextmanager
def number_reads(watch, owner: int):
    """For the call, a tensor's number protocol stops the proof where torch's C++ reads a value
    that depends on the inputs out of the walk's sight (the Python dispatch key off, or no dispatch
    mode on): the constructor may make another tensor for another draw.  Where the walk sees the
    read (``int(t)`` in Python dispatches ``_local_scalar_dense``), it is left to the walk."""
    import torch

    def watched(original, name):
        @functools.wraps(original)
        def method(self, *args, **kwargs):
            walk = watch.walk
            if walk is None:  # between a proof's calls: nothing is watched
                pass
            elif threading.get_ident() != owner:
                _another_thread(walk, self, name)
            elif not walk.busy and walk.everywhere is None and _unseen():
                walk.busy = True
                try:
                    if _out_of_sight(walk, self):
                        _stop_out_of_sight(walk, name)
                    elif not walk.read([self], values.outside_digest(self)):
                        walk.stop_everywhere(
                            f"the code reads the values of a tensor that depends on the inputs with "
                            f"no operation (Tensor.{name}, called by torch's C++)",
                            "asks_value",
                        )
                finally:
                    walk.busy = False
            return original(self, *args, **kwargs)

        return method

    own = {name: vars(torch.Tensor)[name] for name in NUMBERS if name in vars(torch.Tensor)}
    try:
        for name in NUMBERS:
            setattr(torch.Tensor, name, watched(getattr(torch.Tensor, name), name))
        yield
    finally:
        for name in NUMBERS:
            if name in own:
                setattr(torch.Tensor, name, own[name])
            elif name in vars(torch.Tensor):
                delattr(torch.Tensor, name)  # the slot inherited from torch._C.TensorBase again


def _unseen() -> bool:
    """The walk's dispatch mode does not see the operations run now: the Python dispatch key is off
    (inside torch's C++ constructors, or ``torch._C._DisableTorchDispatch``), or no dispatch mode
    is on (``_disable_current_modes``)."""
    import torch

    return (
        torch._C._dispatch_tls_is_dispatch_key_excluded(torch._C.DispatchKey.Python)
        or not torch._C._len_torch_dispatch_stack()
    )


def _another_thread(walk, t, name: str) -> None:
    """A thread other than the proof's reads a value while the proof runs: the walk sees none of
    that thread's operations (a dispatch mode is the thread's own), so the value may have been
    computed from the points there (a thread the code started, a pool it submits to).  Unless the
    walk knows the tensor for one whose values may be read, the proof stops (a thread of another
    task that reads tensors of its own during a proof stops it too: the proof is then not made)."""
    caller = sys._getframe(2).f_globals.get("__name__", "")
    if (
        walk.everywhere is None
        and not caller.startswith("gdlcheck.")
        and (_out_of_sight(walk, t) or not walk.knowable(t))
    ):
        walk.stop_everywhere(
            f"another thread reads a value the walk does not know (Tensor.{name}): that thread's "
            f"operations are not seen",
            "asks_value",
        )


def _stop_out_of_sight(walk, name: str) -> None:
    walk.stop_everywhere(
        f"the code reads a value with torch's dispatch turned off (Tensor.{name}): the operations "
        f"that made it were not seen",
        "asks_value",
    )


def _out_of_sight(walk, t) -> bool:
    """``t`` is no tensor the walk knows (none of its operations made it, nor is it a parameter, a
    buffer or an argument): with the dispatch off, the code may have computed it from the points."""
    return walk.values.get(t) is None and id(t) not in walk.constant_names and id(t) not in walk.given_ids


@contextlib.contextmanager
def split_reads(watch, owner: int):
    """``tensor_split`` by a 1-D tensor of indices reads them in C++ through a pointer, with no
    operation dispatched, then slices at constant bounds.  For the call, the operation's kernel
    (``aten::tensor_split.tensor_indices_or_sections``, the composite one every caller reaches,
    however it bound the function) is one that first stops the proof where the indices depend on
    the inputs, then splits as torch does: at ``indices.tolist()``, or in ``sections.item()``
    parts."""
    import warnings

    import torch
    import torch.library

    aten = torch.ops.aten

    def tensor_split(self, indices, dim=0):
        walk = watch.walk
        if walk is not None and threading.get_ident() == owner and not walk.busy and walk.everywhere is None:
            walk.busy = True
            try:
                if not walk.read([indices], values.outside_digest(indices)):
                    walk.stop_everywhere(
                        "the code passes values that depend on the inputs to tensor_split, "
                        "which reads them with no operation",
                        "asks_value",
                    )
            finally:
                walk.busy = False
        if indices.device.type != "cpu" or indices.dtype != torch.long or indices.dim() > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional long tensor on the CPU, but got a {indices.dim()}-dimensional "
                f"{indices.dtype} tensor on {indices.device}"
            )
        if indices.dim() == 0:
            return aten.tensor_split.sections(self, indices.item(), dim)
        return aten.tensor_split.indices(self, indices.tolist(), dim)

    library = torch.library.Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():  # torch warns, once, that a kernel is overridden
            warnings.simplefilter("ignore")
            library.impl("tensor_split.tensor_indices_or_sections", tensor_split, "CompositeImplicitAutograd")
        yield
    finally:
        library._destroy()  # torch's own kernel is the operation's again


def _ours(frame) -> bool:
    """The caller is the prover's own code (its digests and storages read tensors as the walk)."""
    return frame.f_globals.get("__name__", "").startswith("gdlcheck.code.")


def _set(cls, name: str, value) -> bool:
    """``cls.name = value``, also for a C type such as ``torch._C.TensorBase``, whose attributes
    Python does not let one set: its dictionary is written, then the type's method cache told.
    False where neither can be done (an interpreter other than CPython)."""
    try:
        setattr(cls, name, value)
        return True
    except TypeError:  # "cannot set attribute of immutable type"
        pass
    found = gc.get_referents(vars(cls))  # the dict behind the type's read-only mappingproxy
    if len(found) != 1 or not isinstance(found[0], dict) or not hasattr(ctypes, "pythonapi"):
        return False
    found[0][name] = value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))
    return True
