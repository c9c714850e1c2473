"""A user's Python callable as a layer: ``verify --callable module:attr`` and ``verify_callable``.

The callable ``f`` takes the points on some axis of its input (``points_axis``; the first by
default, never a batch axis), perhaps with further inputs (a graph, an edge_index, a batch
vector), and returns one or several outputs; a :class:`~gdlcheck.code.signature.Signature` says how
each moves.  It is wrapped in a :class:`~gdlcheck.layers.Layer`, so the numeric checks are the
ones every other layer gets (the trial loop of :mod:`gdlcheck.verification.measure`).

The code comes ready to run from :mod:`gdlcheck.code.running` (built, checked, a torch module
copied in the run's dtype); its arguments and outputs cross to and from torch through
:mod:`gdlcheck.code.torch_bridge`, which imports torch only when the object is already a torch
object, so gdlcheck never imports torch by itself.

User code runs only here (its calls) and in :mod:`gdlcheck.code.running` (importing and building
it), and only for an object the user named on the command line (``--callable``) or passed in
Python; a spec file never names code to import.
"""

from __future__ import annotations

import math
import re

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.code.boundary import describe
from gdlcheck.code.graphs import GraphLaw
from gdlcheck.code.running import Running
from gdlcheck.code.signature import Signature
from gdlcheck.code.torch_bridge import Layout
from gdlcheck.errors import CallableError, GdlcheckError, param
from gdlcheck.groups import is_sparse
from gdlcheck.layers import Fact, Layer


class CallableLayer(Layer):
    """``f`` as a layer: ``forward(X, A)`` builds the call's arguments from the block ``X`` of
    random points and the given values ``A`` (moved or not), calls ``f`` and returns its outputs
    as one float64 vector; the ``signature`` says how each input and output moves.
    """

    kind = "callable"
    depends_on = "content"

    signature: Signature

    def __init__(self, code: Running, signature: Signature, *, label: str = "callable"):
        self.signature = signature
        self.points = signature.n
        self.in_channels = signature.channels
        self.invariant = signature.invariant
        self.expect = "invariant" if self.invariant else "equivariant"
        self.dtype = code.dtype
        self.label = label
        self.is_torch = code.is_torch
        self.was_training = code.was_training
        self.f = code.f
        self._tensor_inputs = self.is_torch or any(i.torch for i in signature.inputs)
        self._device = code.device
        self._converted: list[tuple[object, object]] = []  # (given value, its tensor), reused across calls
        self._first = None  # (X, A, output) of the first call
        self.reads_grad_mode = False  # the proof saw the code ask whether gradients are on

    @property
    def uses_graph(self) -> bool:  # type: ignore[override]
        return self.signature.graph_law is GraphLaw.BOTH

    def own_proof(self, group, expect: str, seed: int = 0):
        """A torch module proves itself by the call it runs (:mod:`gdlcheck.code`); other
        code has no proof (the numeric check decides)."""
        if not self.is_torch:
            return None
        from gdlcheck.code.prover.prove import prove_call

        with torch_bridge.calls_of(self.f):  # a deep module tree's traced calls recurse deeper still
            return prove_call(self, group, seed)

    def state(self):
        """The module's state (:func:`gdlcheck.code.prover.state.snapshot`), to tell what the calls of a
        check changed (None for code that is not a torch module)."""
        if not self.is_torch:
            return None
        from gdlcheck.code.prover import state

        return state.snapshot(self.f)

    def state_changed(self, before) -> list[str]:
        """The places whose state differs from ``before`` (a WLConv's colour table grows as it
        is used: a later call may give other values for the same input)."""
        if before is None:
            return []
        from gdlcheck.code.prover import state

        return state.changed(before, state.snapshot(self.f))

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
                hint = (
                    f" (gdlcheck runs it on {self.dtype} inputs: give {param('dtype', value=other)} to match its "
                    "weights, "
                    "or pass the torch.nn.Module itself so gdlcheck converts a copy)"
                )
            elif isinstance(err, TypeError) and "argument" in str(err) and self.signature.graph_law is not None:
                hint = (
                    f" (the graph is passed after the points; if the code takes only the points, say so with "
                    f"{param('inputs', value='points')})"
                )
            elif isinstance(err, (RuntimeError, ValueError, IndexError)) and _ABOUT_SHAPES.search(str(err)):
                shape = next((i.shape for i in self.signature.inputs if not i.given), None)
                hint = (
                    f" (it was called on an input of shape {tuple(shape) if shape else '?'}: check "
                    f"{param('input_shape', 'NxD', python='shape')}, and {param('points_axis')} or "
                    f"{param('batch_axes')} for where the points are)"
                )
            raise CallableError(f"raised {describe(err)}{hint}", file=self.label) from err
        flat = self.signature.flatten(out, self.label)
        if self._first is None:  # kept to call it again on the same input (randomness)
            self._first = (np.array(X, dtype=np.float64), A, flat.copy())
        return flat

    def call_arguments(self, X, A=None, tensors: bool | None = None) -> tuple[list, dict]:
        """The arguments ``f`` is called with for the block ``X`` and the given values ``A``:
        tensors (for torch code) or numpy arrays."""
        use = self._tensor_inputs if tensors is None else tensors
        return self.signature.arguments(
            np.asarray(X, dtype=np.float64),
            A,
            random=self._random_tensor if use else self._random_array,
            given=self._tensor if use else self._array,
        )

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
            layout = next((i.torch for i in self.signature.inputs if i.torch not in (None, Layout.DENSE)), "coo")
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
        same = (first == second) | (np.isnan(first) & np.isnan(second))  # an inf in both calls is no difference
        diff = np.where(same, 0.0, np.where(np.isnan(diff), np.inf, diff))
        worst = float(diff.max())
        scale = float(np.max(np.abs(first))) if np.all(np.isfinite(first)) else math.inf
        rel = worst / scale if scale > 0 and math.isfinite(scale) else (0.0 if worst == 0 else math.inf)
        if rel <= tol:
            return None
        output, entry = self.signature.locate((int(np.argmax(diff)),))
        return Fact("random", {"relative": rel, "output": output, "entry": list(entry), "training": self.was_training})

    def notes(self) -> list[Fact]:
        """What the check did to the code that the user should know."""
        out = []
        if self.was_training:
            out.append(Fact("eval_mode", {"dtype": self.dtype}))
        return out


# torch's and numpy's words for a call on an input of the wrong shape
_ABOUT_SHAPES = re.compile(
    r"shape|size|dimension|mat1 and mat2|cannot be multiplied|not aligned|expected input", re.IGNORECASE
)


def _dtype_mismatch(err: BaseException) -> bool:
    """torch's error for float64 inputs to float32 weights (or the other way round)."""
    text = str(err)
    return "dtype" in text and any(word in text for word in ("Double", "Float", "double", "float"))
