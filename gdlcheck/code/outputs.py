"""The outputs of a call of code matched against how they are described (``outputs=``): each
leaf's place (``[0]``, ``['weights']``), its action and its value, with one error line where the
structure differs; and the phrases of a shape and of axes that the call's messages use.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.code.actions import Action
from gdlcheck.errors import CallableError, param


def axes_text(axes) -> str:
    return f"on axis {axes[0]}" if len(axes) == 1 else f"on axes {tuple(axes)}"


def shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def leaves(spec):
    """Every Action in a description of outputs (an Action, or dicts and sequences of them)."""
    if isinstance(spec, Action):
        yield spec
    elif isinstance(spec, dict):
        for v in spec.values():
            yield from leaves(v)
    else:
        for v in spec:
            yield from leaves(v)


def matched(spec, out, where: str, label: str):
    """``(label, action, value)`` for each leaf of the output, matched against the description."""
    if isinstance(spec, Action):
        if spec.kind.is_compared and isinstance(out, dict) and len(out) == 1:  # a ModelOutput of one key
            key = next(iter(out))
            yield from matched(spec, out[key], f"{where}[{key!r}]", label)
            return
        if (
            spec.kind.is_compared
            and isinstance(out, (tuple, list))
            and out
            and any(x is None or _is_array(x) or isinstance(x, (tuple, list, dict)) for x in out)
        ):
            at = f" at output{where}" if where else ""
            raise CallableError(
                f"returned a {type(out).__name__} of {len(out)} items{at}; say how each moves with "
                f"{param('outputs')}, one per item (points, pairs, edges, invariant or ignored)",
                file=label,
            )
        if spec.kind.is_compared and isinstance(out, dict):
            raise CallableError(
                f"returned a dict with keys {sorted(map(str, out))}; say how each moves with "
                f"{param('outputs')}, one per key (e.g. out=points, weights=pairs)",
                file=label,
            )
        yield where, spec, out
    elif isinstance(spec, dict):
        if not isinstance(out, dict):
            raise CallableError(
                f"returned {type(out).__name__}{' at output' + where if where else ''}, but the "
                "outputs are described as a dict",
                file=label,
            )
        missing = [k for k in spec if k not in out]
        extra = [k for k in out if k not in spec]
        if missing or extra:
            raise CallableError(
                f"returned a dict with keys {sorted(map(str, out))}, described as "
                f"{sorted(map(str, spec))}: describe every key (ignored for the ones not to "
                "compare)",
                file=label,
            )
        for k, v in spec.items():
            yield from matched(v, out[k], f"{where}[{k!r}]", label)
    else:
        if not isinstance(out, (tuple, list)) or _is_array(out):
            raise CallableError(
                f"returned {type(out).__name__}{' at output' + where if where else ''}, but "
                f"{len(spec)} outputs are described",
                file=label,
            )
        if len(out) != len(spec):
            raise CallableError(
                f"returned {len(out)} outputs{' at output' + where if where else ''}, but {len(spec)} are described",
                file=label,
            )
        for k, (v, o) in enumerate(zip(spec, out)):
            yield from matched(v, o, f"{where}[{k}]", label)


def _is_array(x) -> bool:
    return isinstance(x, np.ndarray) or torch_bridge.is_tensor(x)
