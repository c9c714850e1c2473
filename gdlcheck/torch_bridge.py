"""numpy <-> PyTorch for verifying ``torch.nn.Module`` objects and functions on tensors.

gdlcheck never imports torch by itself: every check here looks at ``sys.modules`` first.
If the user's object is a torch object, torch is already imported (the user's code did it).

A module is verified on a copy (``copy.deepcopy``) converted to the requested dtype
(float64 by default, so rounding does not hide a small symmetry break) and put in eval
mode (dropout off, batch-norm statistics frozen); it runs under ``torch.no_grad()``.  The
user's module is left as it was.  Outputs come back as float64 numpy arrays, so the
comparison is always done in float64, whatever dtype the layer ran in.
"""

from __future__ import annotations

import copy
import sys

import numpy as np

from gdlcheck.errors import CallableError


def _torch():
    return sys.modules.get("torch")


def torch_loaded() -> bool:
    """Whether the user's code has imported torch (gdlcheck does not import it)."""
    return _torch() is not None


def is_torch_module(obj) -> bool:
    torch = _torch()
    return torch is not None and isinstance(obj, torch.nn.Module)


def is_tensor(obj) -> bool:
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor)


def _dtype(name: str):
    torch = _torch()
    return {"float64": torch.float64, "float32": torch.float32}[name]


def prepare_module(module, dtype: str = "float64"):
    """A copy of ``module`` in ``dtype`` and eval mode; the user's module is not changed.

    Raises
    ------
    CallableError
        if the module cannot be copied (it holds something ``deepcopy`` refuses).
    """
    try:
        clone = copy.deepcopy(module)
    except Exception as err:
        raise CallableError(f"cannot copy the module {type(module).__name__} to run it in {dtype} "
                            f"({type(err).__name__}: {err})") from err
    return clone.to(dtype=_dtype(dtype)).eval()


def _device(f):
    torch = _torch()
    if isinstance(f, torch.nn.Module):
        for p in f.parameters():
            return p.device
        for b in f.buffers():
            return b.device
    return torch.device("cpu")


def to_tensor(x: np.ndarray, device=None):
    """A numpy array as a tensor of the same dtype (float64 stays float64)."""
    torch = _torch()
    return torch.from_numpy(np.ascontiguousarray(x)).to(device=device or "cpu")


def to_numpy(t) -> np.ndarray:
    """A tensor as a float64 numpy array (detached, on the CPU)."""
    torch = _torch()
    return t.detach().to(device="cpu", dtype=torch.float64).numpy()


def call(f, args: list[np.ndarray]):
    """``f(*tensors)`` under ``torch.no_grad()``; numpy inputs become tensors of their dtype."""
    torch = _torch()
    device = _device(f)
    with torch.no_grad():
        return f(*[to_tensor(a, device) for a in args])
