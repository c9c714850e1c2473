"""A trained model as the user has it: a checkpoint loaded into the user's module, and the
user's own example inputs as the inputs the check moves.

:func:`load_weights` reads a ``state_dict`` (``.pt``/``.pth`` with ``torch.load(weights_only=True)``,
``.safetensors``, ``.npz``) through the same safe readers as ``gdlcheck verify FILE`` (nothing in
the file runs; budgets on tensors, containers and nesting) into a copy of the module.
:func:`describe_example` turns example values (``(x, edge_index)``, or keyword tensors) into the
inputs of a check: the first floating array moves with the points, an integer ``(2, E)`` array is
an ``edge_index`` relabelled with them, anything else is passed unchanged.
"""

from __future__ import annotations

import copy

import numpy as np

from gdlcheck.code.actions import Arg, graph, points, unchanged
from gdlcheck.errors import CallableError, GdlcheckError, param
from gdlcheck.text import printable, shorten

# prefixes training code wraps a state_dict's names in (a checkpoint dict, DataParallel, torch.compile)
_PREFIXES = ("model.", "state_dict.", "module.", "_orig_mod.", "model.module.", "net.")


def load_weights(module, path: str):
    """A copy of the torch module ``module`` with the state_dict of the weights file ``path``.

    The file's names must be the module's (after one common prefix such as ``model.`` or
    ``module.`` is taken off): every parameter and buffer given, nothing left over, each of the
    module's shape.

    Raises
    ------
    CallableError
        for a module that is not a torch module, names or shapes that do not fit (one line that
        names them); GdlcheckError from the reader for a file that cannot be read.
    """
    from gdlcheck.code import torch_bridge

    if not torch_bridge.is_torch_module(module):
        raise CallableError(
            f"{param('weights', 'FILE')} loads a state_dict into a torch.nn.Module; this callable is "
            f"a {type(module).__name__}"
        )
    import torch

    from gdlcheck.inputs.weights import read_tensors, values_of

    label = str(path)
    try:
        tensors = read_tensors(label)
    except GdlcheckError as err:
        raise err.located(file=label) from None
    wanted = module.state_dict()
    names = {t.name: t for t in tensors}
    prefix = _prefix(set(names), set(wanted))
    missing = sorted(k for k in wanted if prefix + k not in names)
    extra = sorted(n[len(prefix) :] for n in names if n.startswith(prefix) and n[len(prefix) :] not in wanted)
    if missing or (extra and not prefix):
        what = [f"missing {_listed(missing)}"] if missing else []
        what += [f"not in the module {_listed(extra)}"] if extra and not prefix else []
        raise CallableError(
            f"the weights do not fit {type(module).__name__}: {'; '.join(what)}; save "
            "model.state_dict() of the same class",
            file=label,
        )
    state = {}
    for key, value in wanted.items():
        tensor = names[prefix + key]
        if tuple(tensor.shape) != tuple(value.shape):
            raise CallableError(
                f"tensor {printable(shorten(tensor.name, 80))} is {tensor.shape_text()} but the "
                f"module's {key} is {' x '.join(map(str, value.shape)) or 'a scalar'}",
                file=label,
            )
        state[key] = torch.from_numpy(np.ascontiguousarray(values_of(tensor, label))).to(value.dtype)
    trained = copy.deepcopy(module)
    trained.load_state_dict(state, strict=True)
    return trained


def _prefix(names: set[str], wanted: set[str]) -> str:
    """The prefix the file's names carry over the module's ('' when they are the module's)."""
    if not wanted or wanted <= names:
        return ""
    for prefix in _PREFIXES:
        if all(prefix + k in names for k in wanted):
            return prefix
    return ""


def _listed(keys: list[str], shown: int = 4) -> str:
    text = ", ".join(printable(shorten(k, 60)) for k in keys[:shown])
    return text + (f" and {len(keys) - shown} more" if len(keys) > shown else "")


def describe_example(example) -> tuple[list | dict, tuple[int, ...]]:
    """The inputs (positional list, or keywords) and the points input's shape for the example
    values ``example``: a tuple or list of positional values, a dict of keyword values, or one value."""
    if isinstance(example, dict):
        keys, values = list(example), list(example.values())
    else:
        values = list(example) if isinstance(example, (tuple, list)) else [example]
        keys = list(range(len(values)))
    described, shape = [], None
    for value in values:
        kind = _kind(value)
        if isinstance(value, Arg):
            described.append(value)
            given = getattr(value.value, "shape", None)
            if shape is None and value.kind.may_be_drawn and given is not None:
                shape = tuple(int(d) for d in given)
        elif shape is None and kind == FLOAT:
            shape = tuple(int(d) for d in value.shape)
            described.append(points(value))
        elif kind == INT and len(value.shape) == 2 and value.shape[0] == 2:
            described.append(graph(value))
        else:
            described.append(unchanged(value))
    if shape is None:
        raise CallableError(
            f"{param('example')} needs an array of floating point numbers for the points (the first "
            "one moves with them)"
        )
    if isinstance(example, dict):
        return dict(zip(keys, described)), shape
    return described, shape


# what an example's array holds: floating point numbers (the points) or integers (an edge_index)
FLOAT, INT = "float", "int"


def _kind(value) -> str | None:
    """:data:`FLOAT` or :data:`INT` for a numpy array or torch tensor of that kind, else None."""
    dtype = getattr(value, "dtype", None)
    if dtype is None or not hasattr(value, "shape"):
        return None
    if hasattr(value, "is_floating_point"):  # a torch tensor
        return FLOAT if value.is_floating_point() else (None if value.is_complex() else INT)
    kind = np.dtype(dtype).kind if isinstance(dtype, np.dtype) else ""
    return {"f": FLOAT, "i": INT, "u": INT}.get(kind)
