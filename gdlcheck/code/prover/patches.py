"""Every process-wide patch a proof makes, opened in one place, behind one lock: :func:`patched`, once
per proof, around :func:`traced_call` for each of its calls (the watches of values read outside
torch's operations are written in :mod:`~gdlcheck.code.prover.reads`).

A traced call (:mod:`gdlcheck.code.prover.prove`) runs the module under the walk's dispatch mode; around
it, the patches change what every thread of the process sees, and report to that call's walk:

* the tensor methods that read values without an operation the dispatcher sees (``tolist``,
  ``numpy``, ``repr``, ``data_ptr``, storages, ...), on the class that defines each one: the
  Python ``torch.Tensor`` or the C ``torch._C.TensorBase`` (so ``torch._C.TensorBase.tolist(x)``
  is watched too).  Reading a tensor that depends on the inputs stops the proof;
* a tensor's number protocol (``__index__``, ``__float__``, ...), which torch's C++ constructors
  (``torch.tensor([k])``, the legacy ``torch.LongTensor([k])``, ``x.new([k])``) call with the
  Python dispatch key off: it is a type slot, reached however the constructor was bound;
* the kernel of ``tensor_split`` by a tensor of indices, which reads them through a pointer: the
  operation's own kernel, reached however the function was bound (``from torch import
  tensor_split`` too);
* the tensor methods that run Python on the values (``apply_``, ``map_``, ``map2_``): they stop it;
* the setter of ``Tensor.data`` (a swap of memory no operation sees): it stops the proof;
* torch's global module hooks, which name the running submodule and apply a unit's theorem;
* the torch functions proved whole (``torch._C._nn.pad``, which ``F.pad`` calls), whose results
  the walk's theorem then describes;
* ``torch.is_grad_enabled``, to note code that branches on grad mode (the proof runs without it);
* torch's random state, forked: a call that draws leaves it as it was (and the proof says so).

A second proof in another thread waits for the lock; each patch acts only for the thread that
holds it (``owner``) and only while a traced call runs (between a proof's calls, each passes through
to torch's own method: the proof's own code reads its tensors as any code would), and everything is
put back as it was when the proof ends, whatever its calls raise.  Set once per proof rather than
around each call: setting and restoring them cost about as much as a small module's call.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading

from gdlcheck.code.prover import values
from gdlcheck.code.prover.reads import data_set, number_reads, split_reads, value_reads

# every process-wide patch of a proof is made under this lock
LOCK = threading.RLock()


class Watch:
    """The walk the patches report to: the traced call's while it runs, None between a proof's calls
    (every patch then only passes through, as torch's own method would)."""

    walk = None
    ours: tuple = ()  # the ids of the walk's own global module hooks


@contextlib.contextmanager
def patched():
    """Every process-wide patch, set once for a proof's calls under one hold of the lock, put back
    as it was whatever the calls raise: ``with patched() as watch:`` then :func:`traced_call` for
    each call.  Between the calls nothing is watched (``watch.walk`` is None): the proof's own code
    and other threads reach torch's methods through patches that only pass through."""
    owner = threading.get_ident()  # the patches are process-wide; the walk is this thread's
    watch = Watch()

    def pre(mod, _inputs):
        walk = watch.walk
        if walk is not None and threading.get_ident() == owner:
            walk.stack.append(walk.module_names.get(id(mod), type(mod).__name__))

    def post(mod, inputs, output):
        walk = watch.walk
        if walk is None or threading.get_ident() != owner:
            return
        walk.busy = True  # the unit's theorem reads as the walk, not as the code
        try:
            walk.unit(mod, inputs, output)
        finally:
            walk.busy = False
        if walk.stack:
            walk.stack.pop()

    with (
        LOCK,
        _module_hooks(watch, pre, post),
        _grad_mode(watch, owner),
        value_reads(watch, owner),
        data_set(watch, owner),
        number_reads(watch, owner),
        split_reads(watch, owner),
        _functions(watch, owner),
    ):
        yield watch


def traced_call(watch: Watch, walk, module, args, kwargs) -> tuple[object, bool]:
    """``module(*args, **kwargs)`` under the walk's dispatch mode and the patches of ``watch``
    (:func:`patched`) reporting to ``walk``, without grad, torch's random state forked: its output,
    and whether the call changed torch's random state."""
    import torch

    hooks = torch.nn.modules.module
    walk.foreign_hooks = bool(  # global module hooks besides the walk's own
        set(hooks._global_forward_hooks).difference(watch.ours)
        or set(hooks._global_forward_pre_hooks).difference(watch.ours)
        or getattr(hooks, "_global_forward_hooks_always_called", None)
    )
    with torch.random.fork_rng(devices=[]):
        rng_before = torch.get_rng_state()
        watch.walk = walk
        try:
            with torch.no_grad(), walk.mode():
                out = module(*args, **kwargs)
        finally:
            watch.walk = None
        return out, not torch.equal(rng_before, torch.get_rng_state())


@contextlib.contextmanager
def _module_hooks(watch, pre, post):
    import torch

    hooks = torch.nn.modules.module
    handles = [hooks.register_module_forward_pre_hook(pre), hooks.register_module_forward_hook(post)]
    watch.ours = tuple(h.id for h in handles)
    try:
        yield
    finally:
        for h in handles:
            h.remove()


@contextlib.contextmanager
def _functions(watch, owner: int):
    """The torch functions proved whole (:data:`~gdlcheck.code.prover.table.FUNCTIONS`: ``torch._C._nn.pad``,
    which ``F.pad`` calls), each replaced in its module, for the call, by one that hands its result
    to the walk, whose theorem then says how it moves.  A patch, not a torch function mode: an active
    mode makes ``has_torch_function`` true, which turns torch's fast paths (attention's) off."""
    from gdlcheck.code.prover.table import FUNCTIONS

    def watched(func):
        @functools.wraps(func)
        def call(*args, **kwargs):
            out = func(*args, **kwargs)
            walk = watch.walk
            if walk is not None and threading.get_ident() == owner and not walk.busy:
                walk.busy = True  # the theorem reads as the walk, not as the code
                try:
                    _function_result(walk, FUNCTIONS[func], args, kwargs, out)
                finally:
                    walk.busy = False
            return out

        return call

    saved = [(sys.modules[func.__module__], func.__name__, func) for func in FUNCTIONS]
    # one the program replaced is its own code, which runs as it is: its operations are followed
    saved = [(home, name, func) for home, name, func in saved if getattr(home, name, None) is func]
    for home, name, func in saved:
        setattr(home, name, watched(func))
    try:
        yield
    finally:
        for home, name, func in saved:
            setattr(home, name, func)


def _function_result(walk, theorem, args, kwargs, output) -> None:
    """A function's theorem (``theorem(args, kwargs, m, x, out)``, ``x`` and ``out`` without values)
    says how its output moves, in place of the operations inside it; where it does not apply (it
    raises or says None, the input's move swaps axes and the theorem does not follow that (no
    ``turns`` mark), or it holds an axis padded circularly), what those operations said stands."""
    import torch
    from torch.utils._python_dispatch import _disable_current_modes

    from gdlcheck.code.prover import moves as mv

    x = args[0] if args else None
    if walk.everywhere is not None or not isinstance(x, torch.Tensor) or not isinstance(output, torch.Tensor):
        return
    a, inner = walk.of(x), walk.values.get(output)
    if a.const or inner is None or inner.const:
        return

    def said(m, i):
        if not isinstance(m, mv.Moves) or (mv.turned(m) and not getattr(theorem, "turns", False)) or mv.wrapped(m):
            return i
        try:
            return theorem(args, kwargs, m, *blind) or i
        except Exception:  # NoRule, or an axis in an order not known (moves.Unordered)
            return i

    with _disable_current_modes():  # made outside the walk: not operations of the call
        blind = (values._without_values(x), values._without_values(output))
    walk.values[output] = values.Abstract(False, [said(m, i) for m, i in zip(a.per, inner.per)], free=a.free)


@contextlib.contextmanager
def _grad_mode(watch, owner: int):
    """The code branches on grad mode (attention's fast path): the proof says it ran without."""
    import torch

    grad_enabled = torch.is_grad_enabled

    def asked():
        walk = watch.walk
        if (
            walk is not None
            and threading.get_ident() == owner
            and not sys._getframe(1).f_code.co_filename.endswith("grad_mode.py")
        ):
            walk.grad_read = True
        return grad_enabled()

    torch.is_grad_enabled = asked
    try:
        yield
    finally:
        torch.is_grad_enabled = grad_enabled
