"""A user's Python callable as a layer: ``verify --callable module:attr`` and ``verify_callable``.

The callable ``f`` takes the points on some axis of its input (``points_axis``; the first by
default, never a batch axis), perhaps with further inputs (a graph, an edge_index, a batch
vector), and returns one or several outputs; a :class:`~gdlcheck.actions.Signature` says how
each moves.  It is wrapped in a :class:`~gdlcheck.layers.Layer`, so the numeric checks are the
ones every other layer gets (the trial loop of :mod:`gdlcheck.verification.measure`).

PyTorch modules and functions that return tensors are bridged by
:mod:`gdlcheck.torch_bridge`; torch is imported only when the object is already a torch
object, so gdlcheck never imports torch by itself.

Only this module runs user code, and only for an object the user named on the command line
(``--callable``) or passed in Python; a spec file never names code to import.
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import sys

import numpy as np

from gdlcheck import torch_bridge
from gdlcheck.actions import Signature, as_axes, normal_axes
from gdlcheck.errors import CallableError, GdlcheckError, param
from gdlcheck.groups import is_sparse
from gdlcheck.layers import Fact, Layer
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
        raise CallableError(f"importing {module_name} raised {_describe(err)}", file=target) from err
    except (Exception, SystemExit) as err:  # the user's module failed while importing: their error
        raise CallableError(f"importing {module_name} raised {_describe(err)}", file=target) from err
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
        except (Exception, SystemExit) as err:
            what = "class" if inspect.isclass(obj) else "factory"
            raise CallableError(f"building the layer ({what} called with no arguments) raised {_describe(err)}",
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


def _describe(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


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


# --------------------------------------------------------------------------- the layer


class CallableLayer(Layer):
    """``f`` as a layer: ``forward(X, A)`` builds the call's arguments from the block ``X`` of
    random points and the given values ``A`` (moved or not), calls ``f`` and returns its outputs
    as one float64 vector; the ``signature`` says how each input and output moves.
    """

    kind = "callable"
    depends_on = "content"

    def __init__(self, f, signature: Signature, *, dtype: str = "float64", label: str = "callable"):
        self.signature = signature
        self.points = signature.n
        self.in_channels = signature.channels
        self.invariant = signature.invariant
        self.expect = "invariant" if self.invariant else "equivariant"
        self.dtype = dtype
        self.label = label
        self.is_torch = torch_bridge.is_torch_module(f)
        self.was_training = self.is_torch and torch_bridge.is_training(f)
        self.original = f
        self.f = torch_bridge.prepare_module(f, dtype) if self.is_torch else f
        self._tensor_inputs = self.is_torch or any(i.torch for i in signature.inputs)
        self._device = torch_bridge.device_of(self.f) if self.is_torch else None
        self._converted: list[tuple[object, object]] = []  # (given value, its tensor), reused across calls
        self._first = None  # (X, A, output) of the first call

    @property
    def uses_graph(self) -> bool:  # type: ignore[override]
        return self.signature.graph_law == "both"

    def own_proof(self, group, expect: str):
        """A torch module proves itself by the call it runs (:mod:`gdlcheck.code`); other
        code has no proof (the numeric check decides)."""
        if not self.is_torch:
            return None
        from gdlcheck import code

        return code.prove_call(self, group)

    def graph(self):
        return self.signature.bundle

    def forward(self, X, A=None):
        try:
            out = self._call(X, A)
        except GdlcheckError:
            raise
        except Exception as err:
            hint = ""
            if _dtype_mismatch(err) and not self.is_torch:
                other = "float32" if self.dtype == "float64" else "float64"
                hint = (f" (gdlcheck runs it on {self.dtype} inputs: give {param('dtype', value=other)} to match its "
                        "weights, "
                        "or pass the torch.nn.Module itself so gdlcheck converts a copy)")
            elif isinstance(err, TypeError) and "argument" in str(err) and self.signature.graph_law is not None:
                hint = (f" (the graph is passed after the points; if the code takes only the points, say so with "
                        f"{param('inputs', value='points')})")
            raise CallableError(f"raised {_describe(err)}{hint}", file=self.label) from err
        flat = self.signature.flatten(out, self.label)
        if self._first is None:  # kept to call it again on the same input (randomness)
            self._first = (np.array(X, dtype=np.float64), A, flat.copy())
        return flat

    def call_arguments(self, X, A=None, tensors: bool | None = None) -> tuple[list, dict]:
        """The arguments ``f`` is called with for the block ``X`` and the given values ``A``:
        tensors (for torch code) or numpy arrays."""
        use = self._tensor_inputs if tensors is None else tensors
        return self.signature.arguments(np.asarray(X, dtype=np.float64), A,
                                        random=self._random_tensor if use else self._random_array,
                                        given=self._tensor if use else self._array)

    def _call(self, X, A):
        if self._tensor_inputs:
            args, kwargs = self.call_arguments(X, A, tensors=True)
            return torch_bridge.call(self.f, args, kwargs)
        try:
            args, kwargs = self.call_arguments(X, A, tensors=False)
            return self.f(*args, **kwargs)
        except Exception as first:
            # A function written for torch tensors fails on numpy arrays; if torch is loaded,
            # try tensors once and keep them if that works.  Otherwise the first error stands.
            if not torch_bridge.torch_loaded():
                raise
            try:
                args, kwargs = self.call_arguments(X, A, tensors=True)
                out = torch_bridge.call(self.f, args, kwargs)
            except Exception as second:
                # torch's complaint about a numpy input says "Tensor", and a float32 module
                # complains about float64 tensors: then the tensor attempt's error is the one
                # that tells what is wrong.
                if "Tensor" in str(first) or _dtype_mismatch(second):
                    raise second from None
                raise first from None
            self._tensor_inputs = True
            return out

    def _random_array(self, value: np.ndarray) -> np.ndarray:
        """Random points as a new C-ordered array in the run's dtype (the code may write into it)."""
        return np.array(value, dtype=self.dtype, order="C")

    def _random_tensor(self, value: np.ndarray):
        return torch_bridge.to_tensor(self._random_array(value), self._device)

    def _array(self, value):
        """A given numpy argument: floats in the run's dtype."""
        if isinstance(value, np.ndarray) or is_sparse(value):
            return value.astype(self.dtype) if value.dtype.kind == "f" and value.dtype != self.dtype else value
        return value

    def _tensor(self, value):
        """A given torch argument: numpy as tensors (floats in the run's dtype), scipy.sparse as torch
        sparse in the layout the user gave; converted once and reused by every trial."""
        if not (isinstance(value, np.ndarray) or is_sparse(value)):
            return value
        for known, tensor in self._converted:
            if known is value:
                return tensor
        if is_sparse(value):
            layout = next((i.torch for i in self.signature.inputs if i.torch not in (None, "dense")), "coo")
            tensor = torch_bridge.sparse_to_torch(value, layout, dtype=self.dtype, device=self._device)
        else:
            tensor = torch_bridge.to_tensor(self._array(value), self._device)
        self._converted.append((value, tensor))
        if len(self._converted) > 64:
            del self._converted[:32]
        return tensor

    # ---- honesty about the code

    def randomness(self, tol: float) -> Fact | None:
        """Call ``f`` again on the input of its first call (the first trial's): a difference beyond
        ``tol`` means the code is random (dropout in training mode, noise, weights drawn per call).
        None when it is not, or when ``f`` has not been called yet."""
        if self._first is None:
            return None
        X, A, first = self._first
        with np.errstate(all="ignore"):
            second = self.forward(X, A)
            diff = np.abs(first - second)
        if not diff.size:
            return None
        diff = np.where(np.isnan(diff), np.inf, diff)
        worst = float(diff.max())
        scale = float(np.max(np.abs(first))) if np.all(np.isfinite(first)) else math.inf
        rel = worst / scale if scale > 0 and math.isfinite(scale) else (0.0 if worst == 0 else math.inf)
        if rel <= tol:
            return None
        output, entry = self.signature.locate((int(np.argmax(diff)),))
        return Fact("random", {"relative": rel, "output": output, "entry": list(entry),
                               "training": self.was_training})

    def notes(self) -> list[Fact]:
        """What the check did to the code that the user should know."""
        out = []
        if self.was_training:
            out.append(Fact("eval_mode", {"dtype": self.dtype}))
        return out


def _dtype_mismatch(err: BaseException) -> bool:
    """torch's error for float64 inputs to float32 weights (or the other way round)."""
    text = str(err)
    return "dtype" in text and any(word in text for word in ("Double", "Float", "double", "float"))


def _shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def callable_name(f, label: str | None = None) -> str:
    """A short name for reports: the function's name (``lambda`` for a lambda) or the class's name."""
    if label:
        return label
    if inspect.isfunction(f) or inspect.ismethod(f) or inspect.isclass(f):
        name = getattr(f, "__name__", "") or "callable"
        return "lambda" if name == "<lambda>" else name
    return type(f).__name__
