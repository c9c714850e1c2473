"""The user's code as gdlcheck runs it: found (``--callable module:attr``, from a file or a
module), built (a class or a factory called once), its trained weights loaded, its size and its
layout checked against the input's points axes, and -- for a ``torch.nn.Module`` -- the copy that
runs: ``copy.deepcopy`` of it in the run's dtype (float64 by default, so rounding does not hide a
small symmetry break), in eval mode (dropout off, batch-norm statistics frozen), on the module's
device.  The user's module is left as it was.

The user's object passes through here once, in that order, and leaves as a :class:`Running`,
which :class:`~gdlcheck.code.user_code.CallableLayer` calls (``gdlcheck measure``'s model is
copied by the same :func:`prepare_module`).  Below this module are the boundary
around the user's code (:mod:`~gdlcheck.code.boundary`), the weights' reader
(:mod:`~gdlcheck.code.trained`), the input's axes (:mod:`~gdlcheck.code.input_shape`) and torch
at the boundary (:mod:`~gdlcheck.code.torch_bridge`: tensors, calls, the recursion room a deep
module's calls need).
"""

from __future__ import annotations

import copy
import importlib
import inspect
import itertools
import os
import re
import sys
from dataclasses import dataclass
from typing import Any

from gdlcheck.code import copies, torch_bridge
from gdlcheck.code.boundary import Run, describe, raised_by_code
from gdlcheck.code.input_shape import shape_text
from gdlcheck.code.trained import load_weights
from gdlcheck.errors import CallableError, param
from gdlcheck.layers import Fact
from gdlcheck.text import suggest

# --------------------------------------------------------------------------- import


def load_callable(target: str, folder: str | None = None):
    """Import ``module:attr`` (``attr`` may be dotted) and return the object to verify.

    ``module`` is looked up in ``folder`` (default: the current folder) first, then in the
    installed packages.  A class, or a function with no required arguments (a factory), is
    called once to build the layer.

    Raises
    ------
    CallableError
        if the target is malformed, the module or attribute is missing, importing or building
        raises, or the result is not callable.
    """
    target, module_name, attr, folder = _split_target(target, folder)
    folder = os.path.abspath(folder or os.getcwd())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and (module_name == err.name or module_name.startswith(err.name + ".")):
            raise CallableError(
                f"no module named {module_name!r} in {folder} or the installed packages", file=target
            ) from err
        raise CallableError(f"importing {module_name} raised {describe(err)}", file=target) from err
    except BaseException as err:  # the user's module failed while importing (or exited): their error
        if not raised_by_code(err):
            raise
        raise CallableError(f"importing {module_name} raised {describe(err)}", file=target) from err
    _check_file(module, target, module_name, folder)
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = [k for k in dir(obj) if not k.startswith("_") and not inspect.ismodule(getattr(obj, k, None))]
            raise CallableError(f"module {module_name!r} has no attribute {attr!r}{suggest(part, names)}", file=target)
        obj = getattr(obj, part)
    return build_callable(obj, target)


def _split_target(target, folder: str | None) -> tuple[str, str, str, str | None]:
    """``module:attr``, or ``path/to/file.py:attr`` as pytest and mypy take a file: the file's folder
    is searched first and its stem is the module.  Returns ``(target, module, attr, folder)``."""
    if isinstance(target, str) and target.count(":") >= 1:
        path, _, attr = target.rpartition(":")
        if path.endswith(".py") and attr:
            full = os.path.join(folder or os.getcwd(), path)
            if not os.path.isfile(full):
                raise CallableError(f"no such file: {path}", file=target)
            stem = os.path.splitext(os.path.basename(full))[0]
            if not stem.isidentifier():
                raise CallableError(
                    f"{os.path.basename(path)!r} cannot be imported as a module: its name is not a Python identifier",
                    file=target,
                )
            return target, stem, attr, os.path.dirname(os.path.abspath(full))
    if not isinstance(target, str) or target.count(":") != 1 or not all(target.split(":")):
        raise CallableError(
            f"{param('callable')} {target!r} is not like module:attr or path/to/file.py:attr (e.g. mylayers:centred)"
        )
    module_name, attr = target.split(":")
    return target, module_name, attr, folder


def _check_file(module, target: str, module_name: str, folder: str) -> None:
    """For ``file.py:attr``: the module imported must be that file, not one of the same name."""
    path = target.rpartition(":")[0]
    if not path.endswith(".py"):
        return
    got = os.path.abspath(getattr(module, "__file__", None) or "")
    if got != os.path.join(folder, os.path.basename(path)):
        raise CallableError(
            f"a module named {module_name!r} is already imported from {got or 'elsewhere'}; rename "
            f"{os.path.basename(path)} or give it as a module",
            file=target,
        )


def build_callable(obj, label: str = "callable"):
    """Instantiate a class or call a factory with no required arguments; return the layer."""
    if inspect.isclass(obj) or _is_factory(obj):
        try:
            obj = obj()
        except BaseException as err:
            if not raised_by_code(err):
                raise
            what = "class" if inspect.isclass(obj) else "factory"
            raise CallableError(
                f"building the layer ({what} called with no arguments) raised {describe(err)}", file=label
            ) from err
    if not callable(obj):
        raise CallableError(
            f"{type(obj).__name__} object is not callable; name a function, a class or a module instance", file=label
        )
    return obj


def _is_factory(obj) -> bool:
    """A plain function with no required arguments: it builds the layer rather than being it.

    ``def make(d_in=3, d_out=2)`` is a factory; ``def layer(X, scale=2.0)`` is a layer.
    """
    if not (inspect.isfunction(obj) or inspect.ismethod(obj)):
        return False
    try:
        params = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return not any(p.kind == p.VAR_POSITIONAL or (p.kind in positional and p.default is p.empty) for p in params)


def callable_name(f, label: str | None = None) -> str:
    """A short name for reports: the function's name (``lambda`` for a lambda) or the class's name."""
    if label:
        return label
    if inspect.isfunction(f) or inspect.ismethod(f) or inspect.isclass(f):
        name = getattr(f, "__name__", "") or "callable"
        return "lambda" if name == "<lambda>" else name
    return type(f).__name__


# --------------------------------------------------------------------------- ready: its weights, size, layout


def ready(
    f,
    label: str,
    run: Run,
    *,
    weights: str | os.PathLike | None = None,
    dims: tuple[int, ...],
    axes: tuple[int, ...],
    explicit: bool,
) -> tuple[Any, list[Fact]]:
    """The user's object as the check takes it: built, its ``weights`` (a file) loaded into a copy,
    its module tree's size checked before anything walks it, and its layout checked against the
    input's shape ``dims`` and points ``axes`` (``explicit``: given by the user).  ``run`` is the
    open boundary (:func:`~gdlcheck.code.boundary.running_code`), told the object once built.
    Returns the object and the layout's notes."""
    f = run.subject = build_callable(f, label)
    if weights is not None:
        f = run.subject = load_weights(f, os.fspath(weights))
    if torch_bridge.is_torch_module(f):
        check_size(f)  # before anything walks the module tree (the walks recurse)
    return f, check_layout(f, dims, axes, explicit)


def check_layout(f, dims: tuple[int, ...], axes: tuple[int, ...], explicit: bool) -> list[Fact]:
    """Refuse the two layouts that give a believable answer about the wrong axis, unless the axes
    were given explicitly (then a note says it): a batch-first module checked on its batch axis,
    and a convolution checked on its channels."""
    if not torch_bridge.is_torch_module(f):
        _refuse_a_likely_batch(f, dims, axes, explicit)
        return []
    if len(dims) >= 3 and 0 in axes:
        paths = torch_bridge.batch_first_paths(f)
        if paths and explicit:
            return [Fact("batch_axis_checked", {"module": paths[0]})]
        if paths:
            raise CallableError(
                f"{paths[0]} is batch_first: axis 0 of the input {shape_text(dims)} is the batch, "
                "and permuting the batch says nothing about the points; give "
                f"{param('batch_axes', literal=0)} to check it on its points axis 1 (or "
                f"{param('points_axis')} to choose)"
            )
    conv = torch_bridge.first_conv(f)
    if conv is None or explicit:
        return []
    name, cls, k, channels = conv
    if len(dims) not in (k + 1, k + 2):
        return []
    channel_axis = len(dims) - k - 1
    if dims[channel_axis] != channels or channel_axis not in axes and not (len(dims) == k + 2 and 0 in axes):
        return []
    spatial = tuple(range(len(dims) - k, len(dims)))
    where = f"{cls}" + (f" ({name})" if name else "")
    what = "its channels" if channel_axis in axes else "the batch"
    layout = (
        ("(C, " + ", ".join("LHWD"[i] if k == 1 else "DHW"[3 - k + i] for i in range(k)) + ")")
        if len(dims) == k + 1
        else "(B, C, ...)"
    )
    hint = (
        f"{param('points_axis', literal=spatial[0])}"
        if k == 1
        else f"{param('points_axis', literal=spatial)} with a grid group (translations, p4, p4m) of the spatial shape"
    )
    raise CallableError(
        f"{where} reads {layout}: axis {min(set(axes) & {0, channel_axis})} of the input "
        f"{shape_text(dims)} is {what}, and the group would permute it; its positions are "
        f"{'axis' if k == 1 else 'axes'} {spatial[0] if k == 1 else spatial}: give {hint}"
    )


def _refuse_a_likely_batch(f, dims: tuple[int, ...], axes: tuple[int, ...], explicit: bool) -> None:
    """Code that is not a module says nothing about its layout: the points default to axis 0, and
    when that axis is likely a batch -- shorter than the next of three or more, or the code's
    docstring speaks of a batch -- the axes must be given (a check of the batch says nothing)."""
    if explicit or axes != (0,) or len(dims) < 2:
        return
    doc = inspect.getdoc(f) or ""
    if len(dims) >= 3 and dims[0] < dims[1]:
        why = f"axis 0 of the input {shape_text(dims)} is shorter than axis 1, so it may be a batch"
    elif _BATCH_WORDS.search(doc):
        why = (
            f"the docstring of {callable_name(f)} speaks of a batch, so axis 0 of the input {shape_text(dims)} "
            "may be it"
        )
    else:
        return
    raise CallableError(
        f"{why}, and permuting a batch says nothing about the points; give "
        f"{param('batch_axes', literal=0)} to check the points on axis 1, or "
        f"{param('points_axis', literal=0)} if axis 0 holds the points"
    )


# a docstring that says its input is batch-first: "batch first", "(B, N, D)", "a batch of sets", "batched"
# (not "the batch vector" of a graph pooling, whose input is the nodes)
_BATCH_WORDS = re.compile(r"batch[ _-]first|\(\s*B\s*,|\bbatch(?:es)? of\b|\bbatched\b", re.IGNORECASE)


# --------------------------------------------------------------------------- the copy that runs


@dataclass(frozen=True)
class Running:
    """The user's code as it is called: ``f`` is the object itself, or for a torch module its copy
    in ``dtype`` and eval mode; ``was_training`` says the module was in training mode (the copy is
    not), ``device`` is the copy's (None for other code)."""

    f: Any
    dtype: str
    is_torch: bool
    was_training: bool = False
    device: Any = None


def to_run(f, dtype: str = "float64") -> Running:
    """``f`` ready to be called in ``dtype``: a torch module is copied (:func:`prepare_module`),
    other code is called as it is.

    Raises
    ------
    CallableError
        as :func:`prepare_module`.
    """
    if not torch_bridge.is_torch_module(f):
        return Running(f, dtype, is_torch=False)
    was_training = is_training(f)
    clone = prepare_module(f, dtype)
    return Running(clone, dtype, is_torch=True, was_training=was_training, device=device_of(clone))


def is_training(module) -> bool:
    """Whether the module or any submodule is in training mode (dropout on)."""
    return any(m.training for m in module.modules())


def prepare_module(module, dtype: str = "float64"):
    """A copy of ``module`` in ``dtype`` and eval mode; the user's module is not changed.

    Raises
    ------
    CallableError
        if the module cannot be copied (it holds something ``deepcopy`` refuses), if its
        parameters are on the ``meta`` device (no values), or if its device cannot run
        ``dtype``.
    """
    depth = check_size(module)
    _check_device(module, dtype)
    try:
        with torch_bridge.room_for(depth, _COPY_FRAMES_PER_LEVEL):
            clone = copy.deepcopy(module)
    except Exception as err:
        raise CallableError(
            f"cannot copy the module {type(module).__name__} to run it in {dtype} ({type(err).__name__}: {err})"
        ) from err
    with torch_bridge.room_for(depth, _COPY_FRAMES_PER_LEVEL):
        clone = torch_bridge.in_dtype(clone, dtype)
    copies.check_same(module, clone)
    copies.remember_original(clone, module)
    clone = clone.eval()
    torch_bridge.remember_nesting(clone, depth)
    return clone


# a module tree past these is refused before it is copied or called (copying and calling recurse)
MAX_MODULES = 20_000
MAX_MODULE_DEPTH = 200


def check_size(module) -> int:
    """The submodules counted and their nesting measured without recursion: a tree past the
    budget is one line, not a RecursionError in the copy or the call.  Returns the nesting."""
    count, deepest, todo, seen = 0, 0, [(module, 0)], set()
    while todo:
        m, depth = todo.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        count, deepest = count + 1, max(deepest, depth)
        if count > MAX_MODULES or deepest > MAX_MODULE_DEPTH:
            what = (
                f"more than {MAX_MODULES:,} submodules"
                if count > MAX_MODULES
                else f"submodules nested more than {MAX_MODULE_DEPTH} deep"
            )
            raise CallableError(
                f"the module {type(module).__name__} has {what}: past gdlcheck's budget for "
                "checking code (copying and calling it recurse that deep)"
            )
        todo.extend((child, depth + 1) for child in getattr(m, "_modules", {}).values() if child is not None)
    return deepest


# Python frames ``copy.deepcopy`` spends per level of submodules, with room to spare (six measured)
_COPY_FRAMES_PER_LEVEL = 10


def _check_device(module, dtype: str) -> None:
    """A module on the meta device has no values; a device that cannot hold ``dtype`` cannot run it."""
    import torch

    tensors = [*module.parameters(), *module.buffers()]
    meta = [t for t in tensors if t.is_meta]
    if meta:
        raise CallableError(
            f"the module {type(module).__name__} is on the meta device: its {len(meta)} "
            "parameter(s) and buffer(s) have shapes but no values; load its weights (e.g. "
            "module.to_empty(device='cpu') and load_state_dict) before checking it"
        )
    devices = {t.device for t in tensors} or {torch.device("cpu")}
    if len(devices) > 1:
        raise CallableError(
            f"the module {type(module).__name__} has parameters on several devices "
            f"({', '.join(sorted(map(str, devices)))}); move it to one device"
        )
    device = devices.pop()
    try:
        torch.zeros(1, dtype=getattr(torch, dtype), device=device) + 1
    except Exception as err:
        text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CallableError(
            f"the module {type(module).__name__} is on device {device}, which cannot run "
            f"{dtype} here ({text}); move it to the CPU (module.cpu()) or choose another "
            "dtype"
        ) from None


def device_of(module):
    """The device of a module's first parameter or buffer (the CPU for one that has none)."""
    import torch

    first = next(itertools.chain(module.parameters(), module.buffers()), None)
    return first.device if first is not None else torch.device("cpu")
