"""A user's Python callable as a layer: ``verify --callable module:attr`` and ``verify_callable``.

The callable ``f`` takes an array whose first axis is the group's points (``X : (n, d)`` or
any ``(n, ...)``) and returns an array with the same first axis (equivariant) or without
it (invariant).  It is wrapped in a :class:`~gdlcheck.layers.Layer`, so the numeric checks
are the ones every other layer gets (:func:`gdlcheck.verification.numeric_checks`).

PyTorch modules and functions that return tensors are bridged by
:mod:`gdlcheck.torch_bridge`; torch is imported only when the object is already a torch
object, so gdlcheck never imports torch by itself.

Only this module runs user code, and only for an object the user named on the command line
(``--callable``) or passed in Python; a spec file never names code to import.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys

import numpy as np

from gdlcheck import torch_bridge
from gdlcheck.errors import CallableError, GdlcheckError, param
from gdlcheck.layers import Layer
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


# --------------------------------------------------------------------------- the layer


class CallableLayer(Layer):
    """``f`` as a layer: ``forward(X)`` reshapes ``X`` to ``shape``, calls ``f`` and returns float64.

    With an ``adjacency`` the callable is ``f(X, A)`` and ``A`` is permuted with ``X``
    (``f(PX, P A P^T) = P f(X, A)``, Theorem 3).
    """

    kind = "callable"
    depends_on = "content"

    def __init__(self, f, shape: tuple[int, ...], *, expect: str = "equivariant", dtype: str = "float64",
                 adjacency: np.ndarray | None = None, label: str = "callable"):
        self.shape = tuple(shape)
        self.points = self.shape[0]
        self.in_channels = int(np.prod(self.shape[1:], dtype=np.int64))
        self.invariant = expect == "invariant"
        self.expect = expect
        self.dtype = dtype
        self.label = label
        self.adjacency = adjacency
        self.uses_graph = adjacency is not None
        self._out_shape: tuple[int, ...] | None = None
        self.is_torch = torch_bridge.is_torch_module(f)
        self.f = torch_bridge.prepare_module(f, dtype) if self.is_torch else f
        self._tensor_inputs = self.is_torch

    def graph(self):
        return self.adjacency

    def forward(self, X, A=None):

        x = np.asarray(X, dtype=np.float64).reshape(self.shape).astype(self.dtype)
        args = [x] if A is None else [x, np.asarray(A, dtype=np.float64).astype(self.dtype)]
        try:
            out = self._call(args)
        except GdlcheckError:
            raise
        except Exception as err:
            hint = ""
            if "dtype" in str(err) and ("Double" in str(err) or "Float" in str(err)) and not self.is_torch:
                other = "float32" if self.dtype == "float64" else "float64"
                hint = (f" (gdlcheck runs it on {self.dtype} inputs: give {param('dtype', value=other)} to match its "
                        "weights, "
                        "or pass the torch.nn.Module itself so gdlcheck converts a copy)")
            raise CallableError(f"raised {_describe(err)}{hint}", file=self.label) from err
        return self._to_array(out)

    def _call(self, args):
        if self._tensor_inputs:
            return torch_bridge.call(self.f, args)
        try:
            return self.f(*args)
        except Exception as first:
            # A function written for torch tensors fails on numpy arrays; if torch is loaded,
            # try tensors once and keep them if that works.  Otherwise the first error stands.
            if not torch_bridge.torch_loaded():
                raise
            try:
                out = torch_bridge.call(self.f, args)
            except Exception as second:
                # torch's complaint about a numpy input says "Tensor": then the tensor
                # attempt's error is the one that tells what is wrong.
                if "Tensor" in str(first):
                    raise second from None
                raise first from None
            self._tensor_inputs = True
            return out

    def _to_array(self, out) -> np.ndarray:
        if isinstance(out, (tuple, list)) and not isinstance(out, np.ndarray):
            if out and (torch_bridge.is_tensor(out[0]) or isinstance(out[0], np.ndarray)):
                raise CallableError(f"returned a {type(out).__name__} of {len(out)} items; return one array "
                                    "(e.g. wrap it: lambda X: f(X)[0])", file=self.label)
        if torch_bridge.is_tensor(out):
            out = torch_bridge.to_numpy(out)
        try:
            Y = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise CallableError(f"returned {type(out).__name__}, not an array of numbers ({_describe(err)})",
                                file=self.label) from None
        if self.expect == "equivariant" and (Y.ndim == 0 or Y.shape[0] != self.points):
            raise CallableError(f"returned shape {_shape_text(Y.shape)}, but an equivariant output's first axis "
                                f"is the {self.points} points; for a pooled output use "
                                f"{param('expect', value='invariant')}", file=self.label)
        if self._out_shape is None:
            self._out_shape = Y.shape
        elif Y.shape != self._out_shape:
            raise CallableError(f"returned shape {_shape_text(Y.shape)} on one input and "
                                f"{_shape_text(self._out_shape)} on another of the same shape", file=self.label)
        return Y


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
