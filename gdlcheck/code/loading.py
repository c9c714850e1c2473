"""Finding the user's code and its layout: ``--callable module:attr`` loaded from a file or a
module, a factory called, the input shape parsed, and where the points are in the call's first
input (the axes checked against what the code is likely to mean).  Nothing here runs a spec.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.code.actions import as_axes, normal_axes
from gdlcheck.code.boundary import describe, raised_by_code
from gdlcheck.errors import CallableError, param
from gdlcheck.layers import Fact
from gdlcheck.limits import MAX_MATRIX_ENTRIES
from gdlcheck.text import parse_shape, suggest

EXPECT = ("equivariant", "invariant")
DTYPES = ("float64", "float32")


def parse_input_shape(text) -> tuple[int, ...]:
    """``"6x2"`` -> ``(6, 2)``; ``"6"`` -> ``(6,)``; a tuple or list of positive ints as is.

    Raises
    ------
    CallableError
        for anything else (one line that quotes the value).
    """
    dims = parse_shape(text, what=param("input_shape", python="shape"), error=CallableError,
                       example="NxD (e.g. 6x2): N points by D channels")
    if int(np.prod(dims)) > MAX_MATRIX_ENTRIES:
        raise CallableError(f"input shape {text!r} has {int(np.prod(dims))} entries, over the limit of "
                            f"{MAX_MATRIX_ENTRIES}")
    return dims


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
            raise CallableError(f"no module named {module_name!r} in {folder} or the installed packages",
                                file=target) from err
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
                raise CallableError(f"{os.path.basename(path)!r} cannot be imported as a module: its name is not "
                                    "a Python identifier", file=target)
            return target, stem, attr, os.path.dirname(os.path.abspath(full))
    if not isinstance(target, str) or target.count(":") != 1 or not all(target.split(":")):
        raise CallableError(f"{param('callable')} {target!r} is not like module:attr or path/to/file.py:attr "
                            "(e.g. mylayers:centred)")
    module_name, attr = target.split(":")
    return target, module_name, attr, folder


def _check_file(module, target: str, module_name: str, folder: str) -> None:
    """For ``file.py:attr``: the module imported must be that file, not one of the same name."""
    path = target.rpartition(":")[0]
    if not path.endswith(".py"):
        return
    got = os.path.abspath(getattr(module, "__file__", None) or "")
    if got != os.path.join(folder, os.path.basename(path)):
        raise CallableError(f"a module named {module_name!r} is already imported from {got or 'elsewhere'}; rename "
                            f"{os.path.basename(path)} or give it as a module", file=target)


def build_callable(obj, label: str = "callable"):
    """Instantiate a class or call a factory with no required arguments; return the layer."""
    if inspect.isclass(obj) or _is_factory(obj):
        try:
            obj = obj()
        except BaseException as err:
            if not raised_by_code(err):
                raise
            what = "class" if inspect.isclass(obj) else "factory"
            raise CallableError(f"building the layer ({what} called with no arguments) raised {describe(err)}",
                                file=label) from err
    if not callable(obj):
        raise CallableError(f"{type(obj).__name__} object is not callable; name a function, a class or a module "
                            "instance", file=label)
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
    takes_input = [p for p in params if p.kind == p.VAR_POSITIONAL
                   or (p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)]
    return not takes_input


# --------------------------------------------------------------------------- axes


def points_axes(dims: tuple[int, ...], points_axis=None, batch_axes=None,
                grid: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """The axes of an input of shape ``dims`` that hold the points, as non-negative indices.

    ``points_axis`` (an int, negative allowed, or a tuple: a grid's axes) wins; else a grid
    group's shape is looked for on consecutive axes that are not batch axes (it must match in
    exactly one place); else the first axis that is not a batch axis.  Batch axes are never
    permuted.

    Raises
    ------
    CallableError
        for an axis out of range, a points axis that is also a batch axis, or a grid that
        matches no place or several.
    """
    ndim = len(dims)
    batch = normal_axes(as_axes(batch_axes, param("batch_axes")) or (), ndim, param("batch_axes"))
    if points_axis is not None:
        axes = normal_axes(as_axes(points_axis, param("points_axis")), ndim, param("points_axis"))
    elif grid is not None and len(grid) > 1:
        g = len(grid)
        places = [tuple(range(k, k + g)) for k in range(ndim - g + 1)
                  if tuple(dims[k:k + g]) == tuple(grid) and not set(range(k, k + g)) & set(batch)]
        grid_text = "x".join(map(str, grid))
        if not places:
            raise CallableError(f"the group acts on a {grid_text} grid, but no consecutive axes of the input "
                                f"{_shape_text(dims)} are {grid_text}; give {param('points_axis')} (the grid's axes)")
        if len(places) > 1:
            raise CallableError(f"the {grid_text} grid fits axes {' and '.join(map(str, places))} of the input "
                                f"{_shape_text(dims)}; say which with {param('points_axis', literal=places[-1])}")
        axes = places[0]
    else:
        free = [a for a in range(ndim) if a not in batch]
        if not free:
            raise CallableError(f"every axis of {_shape_text(dims)} is a batch axis: the points need one")
        axes = (free[0],)
    both = set(axes) & set(batch)
    if both:
        raise CallableError(f"axis {min(both)} is both a points axis and a batch axis (batch axes are never "
                            "permuted)")
    return axes


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
            raise CallableError(f"{paths[0]} is batch_first: axis 0 of the input {_shape_text(dims)} is the batch, "
                                "and permuting the batch says nothing about the points; give "
                                f"{param('batch_axes', literal=0)} to check it on its points axis 1 (or "
                                f"{param('points_axis')} to choose)")
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
    layout = ("(C, " + ", ".join("LHWD"[i] if k == 1 else "DHW"[3 - k + i] for i in range(k)) + ")") \
        if len(dims) == k + 1 else "(B, C, ...)"
    hint = (f"{param('points_axis', literal=spatial[0])}" if k == 1 else
            f"{param('points_axis', literal=spatial)} with a grid group (translations, p4, p4m) of the "
            "spatial shape")
    raise CallableError(f"{where} reads {layout}: axis {min(set(axes) & {0, channel_axis})} of the input "
                        f"{_shape_text(dims)} is {what}, and the group would permute it; its positions are "
                        f"{'axis' if k == 1 else 'axes'} {spatial[0] if k == 1 else spatial}: give {hint}")


def _refuse_a_likely_batch(f, dims: tuple[int, ...], axes: tuple[int, ...], explicit: bool) -> None:
    """Code that is not a module says nothing about its layout: the points default to axis 0, and
    when that axis is likely a batch -- shorter than the next of three or more, or the code's
    docstring speaks of a batch -- the axes must be given (a check of the batch says nothing)."""
    if explicit or axes != (0,) or len(dims) < 2:
        return
    doc = inspect.getdoc(f) or ""
    if len(dims) >= 3 and dims[0] < dims[1]:
        why = f"axis 0 of the input {_shape_text(dims)} is shorter than axis 1, so it may be a batch"
    elif _BATCH_WORDS.search(doc):
        why = (f"the docstring of {callable_name(f)} speaks of a batch, so axis 0 of the input {_shape_text(dims)} "
               "may be it")
    else:
        return
    raise CallableError(f"{why}, and permuting a batch says nothing about the points; give "
                        f"{param('batch_axes', literal=0)} to check the points on axis 1, or "
                        f"{param('points_axis', literal=0)} if axis 0 holds the points")


# a docstring that says its input is batch-first: "batch first", "(B, N, D)", "a batch of sets", "batched"
# (not "the batch vector" of a graph pooling, whose input is the nodes)
_BATCH_WORDS = re.compile(r"batch[ _-]first|\(\s*B\s*,|\bbatch(?:es)? of\b|\bbatched\b", re.IGNORECASE)


# --------------------------------------------------------------------------- the layer


def callable_name(f, label: str | None = None) -> str:
    """A short name for reports: the function's name (``lambda`` for a lambda) or the class's name."""
    if label:
        return label
    if inspect.isfunction(f) or inspect.ismethod(f) or inspect.isclass(f):
        name = getattr(f, "__name__", "") or "callable"
        return "lambda" if name == "<lambda>" else name
    return type(f).__name__


def _shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
