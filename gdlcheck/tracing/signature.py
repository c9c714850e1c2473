"""A call's :class:`~gdlcheck.actions.Signature` as the tracer's inputs and expected outputs.

``verify_callable`` describes how each argument and output of code moves (points on some
axes, a graph, a fixed value, unchanged ...).  The tracer follows the same descriptions: a
random points input is a value moving on its axes (only its shape is needed), an unchanged
value is a constant, an output is expected to move as its action says.  What the tracer has
no flows for (graph inputs, edge lists, grids of two axes) is "not proven", with the reason,
and the numeric check decides.
"""

from __future__ import annotations

from gdlcheck.actions import Action, Signature, leaves
from gdlcheck.groups import PermGroup
from gdlcheck.layers.rules import Proof, Step, Stop, generator_text
from gdlcheck.tracing.flow import Flow
from gdlcheck.tracing.trace import Expected, trace_proof


def prove_call(module, group: PermGroup, signature: Signature) -> Proof:
    """Prove the torch ``module`` against ``group`` for the call ``signature`` describes."""
    unsupported = _unsupported(signature)
    if unsupported:
        return _not_traced(module, group, unsupported)
    inputs, kwargs = [], {}
    # positions in their numeric order (10 after 9, not after 1), then the keywords
    for inp in sorted(signature.inputs, key=lambda i: (1, 0, i.key) if isinstance(i.key, str) else (0, int(i.key), "")):
        kind = inp.action.kind
        if isinstance(inp.key, str):
            kwargs[inp.key] = inp.value
            continue
        if kind == "unchanged":
            inputs.append((Flow((), const=True), inp.value))
        else:
            inputs.append((Flow(tuple(inp.action.axes)), inp.value if inp.given else tuple(inp.shape)))
    return trace_proof(module, group, inputs, _expected(signature.outputs, signature), kwargs or None)


def _unsupported(signature: Signature) -> str | None:
    """Why the tracer cannot follow this call, or None."""
    for inp in signature.inputs:
        kind = inp.action.kind
        if kind in ("graph", "fixed", "edges"):
            return f"a {kind} input ({inp.label}): the tracer follows points and unchanged values only"
        if isinstance(inp.key, str) and kind != "unchanged":
            return f"a keyword input that moves ({inp.label})"
        if kind == "points" and len(inp.action.axes or ()) != 1:
            return f"points on a grid of {len(inp.action.axes or ())} axes ({inp.label})"
        if kind == "points" and inp.given and not _is_tensor(inp.value):
            return f"a given points value that is not a tensor ({inp.label})"
    for action in leaves(signature.outputs):
        if action.kind == "edges":
            return "an output of edges"
        if action.kind == "points" and action.axes is not None and len(action.axes) != 1:
            return "an output on a grid of several axes"
    return None


def _is_tensor(value) -> bool:
    import torch

    return isinstance(value, torch.Tensor)


def _expected(spec, signature: Signature):
    """The tracer's :class:`Expected` for each output action (axes left to the output's shape)."""
    if isinstance(spec, Action):
        if spec.kind == "points":
            return Expected("points", spec.axes if spec.axes is not None else tuple(signature.points_axes))
        if spec.kind == "pairs":
            return Expected("pairs", spec.axes if spec.axes is not None else (-2, -1))
        return Expected(spec.kind)
    if isinstance(spec, dict):
        return {k: _expected(v, signature) for k, v in spec.items()}
    return tuple(_expected(v, signature) for v in spec)


def _not_traced(module, group: PermGroup, why: str) -> Proof:
    names = [generator_text(s) for s in group.gen_arrays()]
    top = Step(type(module).__name__, type(module).__name__, None, None, [], 0)
    stop = Stop(Step(why, "untraceable", None, None, [], 1), None, "not_traced")
    return Proof([top, stop.step], dict.fromkeys(names, False), dict.fromkeys(names, stop), "trace")
