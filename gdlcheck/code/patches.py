"""Every process-wide patch a proof makes, in one place, behind one lock: :func:`traced_call`.

A traced call (:mod:`gdlcheck.code.prove`) runs the module under the walk's dispatch mode, and
around it changes what every thread of the process sees, for the call only:

* the tensor methods that read values without an operation the dispatcher sees (``tolist``,
  ``numpy``, ``repr``, ``data_ptr``, storages, ...), on the class that defines each one: the
  Python ``torch.Tensor`` or the C ``torch._C.TensorBase`` (so ``torch._C.TensorBase.tolist(x)``
  is watched too).  Reading a tensor that depends on the inputs stops the proof;
* the tensor methods that run Python on the values (``apply_``, ``map_``, ``map2_``): they stop it;
* the setter of ``Tensor.data`` (a swap of memory no operation sees): it stops the proof;
* torch's global module hooks, which name the running submodule and apply a unit's theorem;
* a torch function mode, which applies the theorem of a function proved whole (``F.pad`` in
  circular mode) to its result;
* ``torch.is_grad_enabled``, to note code that branches on grad mode (the proof runs without it);
* torch's random state, forked: a call that draws leaves it as it was (and the proof says so).

A second proof in another thread waits for the lock; each patch acts only for the thread that
holds it (``owner``), and everything is put back as it was, whatever the call raises.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import sys
import threading

from gdlcheck.code import values

# every process-wide patch of a proof is made under this lock
LOCK = threading.RLock()

# Tensor methods that read values without a torch operation the dispatcher sees (a storage read
# element by element dispatches an operation per element: stopped at the first, it stays linear)
READERS = ("tolist", "numpy", "__array__", "__repr__", "__format__", "data_ptr", "untyped_storage", "storage",
           "_typed_storage", "__reduce_ex__", "__dlpack__")
# the readers among them that hand out the tensor's memory itself (an array, a storage, an address):
# a write through it later is no operation, so none may be taken of a tensor the call made
ALIASES = ("numpy", "__array__", "__dlpack__", "untyped_storage", "storage", "_typed_storage", "data_ptr")
# Tensor methods that run Python on the values and write them back, with no operation dispatched
PYTHON_WRITERS = ("apply_", "map_", "map2_")


def traced_call(walk, module, args, kwargs) -> tuple[object, bool]:
    """``module(*args, **kwargs)`` under the walk's dispatch mode and every patch, without grad,
    torch's random state forked: its output, and whether the call changed torch's random state."""
    import torch

    owner = threading.get_ident()   # the patches are process-wide; the walk is this thread's

    def pre(mod, _inputs):
        if threading.get_ident() == owner:
            walk.stack.append(walk.module_names.get(id(mod), type(mod).__name__))

    def post(mod, inputs, output):
        if threading.get_ident() != owner:
            return
        walk.busy = True   # the unit's theorem reads as the walk, not as the code
        try:
            walk.unit(mod, inputs, output)
        finally:
            walk.busy = False
        if walk.stack:
            walk.stack.pop()

    with LOCK, torch.random.fork_rng(devices=[]):
        rng_before = torch.get_rng_state()
        with _module_hooks(walk, pre, post), _grad_mode(walk, owner), _reads(walk, owner), _data_set(walk, owner), \
                _index_reads(walk, owner), torch.no_grad(), walk.mode(), _functions(walk, owner):
            out = module(*args, **kwargs)
        return out, not torch.equal(rng_before, torch.get_rng_state())


@contextlib.contextmanager
def _module_hooks(walk, pre, post):
    import torch

    hooks = torch.nn.modules.module
    walk.foreign_hooks = bool(hooks._global_forward_hooks or hooks._global_forward_pre_hooks
                              or getattr(hooks, "_global_forward_hooks_always_called", None))
    handles = [hooks.register_module_forward_pre_hook(pre), hooks.register_module_forward_hook(post)]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


@contextlib.contextmanager
def _functions(walk, owner: int):
    """The torch functions proved whole (``F.pad`` in circular mode, :data:`~gdlcheck.code.table.FUNCTIONS`):
    a function mode sees each call of them, however the code reached them, and hands the result to
    the walk, whose theorem then says how it moves."""
    from torch.overrides import TorchFunctionMode

    from gdlcheck.code.table import FUNCTIONS

    class Theorems(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            if func in FUNCTIONS and threading.get_ident() == owner and not walk.busy:
                walk.busy = True   # the theorem reads as the walk, not as the code
                try:
                    walk.function(func, args, kwargs or {}, out)
                finally:
                    walk.busy = False
            return out

    with Theorems():
        yield


@contextlib.contextmanager
def _grad_mode(walk, owner: int):
    """The code branches on grad mode (attention's fast path): the proof says it ran without."""
    import torch

    grad_enabled = torch.is_grad_enabled

    def asked():
        if threading.get_ident() == owner and not sys._getframe(1).f_code.co_filename.endswith("grad_mode.py"):
            walk.grad_read = True
        return grad_enabled()

    torch.is_grad_enabled = asked
    try:
        yield
    finally:
        torch.is_grad_enabled = grad_enabled


@contextlib.contextmanager
def _reads(walk, owner: int):
    """For the call only, each tensor method that reads values outside torch's operations checks
    first whether the tensor depends on the inputs: the proof stops there (the path may depend on
    the values read).  A profile hook would see every call but costs a Python call per call."""
    import torch

    def watched(original, name):
        @functools.wraps(original)
        def method(self, *args, **kwargs):
            if threading.get_ident() == owner and not walk.busy and walk.everywhere is None \
                    and not _ours(sys._getframe(1)):
                walk.busy = True   # the walk's own look at the tensor reads nothing of the code's
                try:
                    if name in ALIASES and self in walk.made:   # (a parameter's or buffer's: the state walk)
                        walk.stop_everywhere(f"the code takes a handle on the memory of a tensor the call made "
                                             f"(Tensor.{name}): a write through it is no operation", "asks_value")
                    elif not walk.read([self], values.outside_digest(self)):
                        walk.stop_everywhere("the code reads the values of a tensor that depends on the inputs",
                                             "asks_value")
                finally:
                    walk.busy = False
            return original(self, *args, **kwargs)
        return method

    def refused(original, _name):
        @functools.wraps(original)
        def method(self, *args, **kwargs):
            if threading.get_ident() == owner and not walk.busy:
                walk.stop_everywhere("the code computes values in Python (Tensor.apply_ / map_)", "asks_value")
            return original(self, *args, **kwargs)
        return method

    saved = []   # (class, name, the descriptor it held)
    try:
        for names, wrap in ((READERS, watched), (PYTHON_WRITERS, refused)):
            for name in names:
                owner_class = next((c for c in torch.Tensor.__mro__ if name in vars(c)), None)
                if owner_class is None:
                    continue
                descriptor = vars(owner_class)[name]
                if _set(owner_class, name, wrap(getattr(torch.Tensor, name), name)):   # (the moved call stays the net
                    saved.append((owner_class, name, descriptor))                # where a C type cannot be set)
        yield
    finally:
        for cls, name, descriptor in reversed(saved):
            _set(cls, name, descriptor)


@contextlib.contextmanager
def _data_set(walk, owner: int):
    """``t.data = other`` swaps a tensor's memory for another's with no operation dispatched: the
    walk would still say ``t`` holds what it held (the points' values, say) while it holds
    ``other`` (a constant).  For the call, the setter of ``Tensor.data`` stops the proof."""
    import torch

    descriptor = vars(torch._C.TensorBase)["data"]

    def set_data(self, value):
        if threading.get_ident() == owner and not walk.busy and not _ours(sys._getframe(1)):
            walk.stop_everywhere("the code sets a tensor's .data: its memory is swapped with no operation",
                                 "asks_value")
        descriptor.__set__(self, value)

    watched = property(descriptor.__get__, set_data, doc=descriptor.__doc__)
    done = _set(torch._C.TensorBase, "data", watched)   # (the moved call stays the net where it cannot be set)
    try:
        yield
    finally:
        if done:
            _set(torch._C.TensorBase, "data", descriptor)


# torch functions whose C++ reads the values of tensors among their arguments with no operation
# dispatched: ``tensor_split``'s 1-D tensor of indices (through a pointer, then it slices), and the
# constructors' sequences holding tensors (``torch.tensor([k, 1])`` copies ``k`` with the Python
# dispatch key excluded); a tensor given whole to a constructor is left to the walk
def _after_the_first(args, kwargs) -> list:
    """The tensors a call reads besides the one it splits."""
    return list(values._tensors((list(args[1:]), kwargs)))


def _in_a_sequence(args, kwargs) -> list:
    """The tensors inside the lists and tuples a constructor is given."""
    return [t for a in (*args, *kwargs.values()) if isinstance(a, (list, tuple)) for t in values._tensors(a)]


INDEX_READERS = {"tensor_split": _after_the_first, "tensor": _in_a_sequence, "as_tensor": _in_a_sequence,
                 "asarray": _in_a_sequence, "new_tensor": _in_a_sequence}


@contextlib.contextmanager
def _index_reads(walk, owner: int):
    """For the call, each of :data:`INDEX_READERS` (the torch function, the Tensor method and
    ``torch._C._VariableFunctions``'s) stops the proof where a tensor it reads has values the code
    may not read: the moved call, given moved points, may read the same numbers.  A name the code
    bound before the call (``from torch import tensor_split``) is not seen."""
    import torch

    def watched(original, read):
        @functools.wraps(original)
        def fn(*args, **kwargs):
            if threading.get_ident() == owner and not walk.busy and walk.everywhere is None \
                    and not _ours(sys._getframe(1)):
                walk.busy = True
                try:
                    if not all(walk.knowable(t) for t in read(args, kwargs)):
                        walk.stop_everywhere(f"the code passes values that depend on the inputs to "
                                             f"{original.__name__}, which reads them with no operation", "asks_value")
                finally:
                    walk.busy = False
            return original(*args, **kwargs)
        return fn

    saved = []   # (where, name, what it held)
    try:
        for name, read in INDEX_READERS.items():
            for where in (torch, torch._C.TensorBase, torch._C._VariableFunctionsClass):
                held = vars(where).get(name)
                if held is None:
                    continue
                wrapped = watched(getattr(torch.Tensor if where is torch._C.TensorBase else torch, name), read)
                if where is torch._C._VariableFunctionsClass:
                    wrapped = staticmethod(wrapped)
                if _set(where, name, wrapped):
                    saved.append((where, name, held))
        yield
    finally:
        for where, name, held in reversed(saved):
            _set(where, name, held)


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
    except TypeError:   # "cannot set attribute of immutable type"
        pass
    found = gc.get_referents(vars(cls))   # the dict behind the type's read-only mappingproxy
    if len(found) != 1 or not isinstance(found[0], dict) or not hasattr(ctypes, "pythonapi"):
        return False
    found[0][name] = value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))
    return True
