"""Building a call's :class:`~gdlcheck.code.signature.Signature` from the user's description of
its inputs and outputs (``inputs=``, ``outputs=``, ``expect=``), with the given values checked.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.code import graphs, torch_bridge
from gdlcheck.code.actions import _MISSING, Action, Arg, Motion, normal_axes, parse_action, parse_input
from gdlcheck.code.outputs import shape_text
from gdlcheck.code.signature import Input, Signature, _key_text
from gdlcheck.code.torch_bridge import Layout
from gdlcheck.errors import CallableError, param
from gdlcheck.layers.proofs import INVARIANT


def describe_outputs(outputs, expect: str = "equivariant"):
    """``outputs`` (a string, an Action, or tuples / lists / dicts of them) as Actions; the default
    is one output, ``points`` (``invariant`` with ``expect="invariant"``)."""
    if outputs is None:
        return Action(Motion.INVARIANT if expect == INVARIANT else Motion.POINTS)

    def one(spec, where):
        if isinstance(spec, (str, Action)):
            return parse_action(spec, outputs=True, where=where)
        if isinstance(spec, dict):
            if not spec:
                raise CallableError(f"{where}: an empty dict describes no output")
            return {k: one(v, f"{where}[{k!r}]") for k, v in spec.items()}
        if isinstance(spec, (tuple, list)):
            if not spec:
                raise CallableError(f"{where}: an empty {type(spec).__name__} describes no output")
            return tuple(one(v, f"{where}[{k}]") for k, v in enumerate(spec))
        raise CallableError(
            f"{where}: describe an output as a string like 'points' or 'pairs', got {type(spec).__name__}"
        )

    return one(outputs, param("outputs"))


def build_signature(
    inputs,
    outputs,
    *,
    shape: tuple[int, ...],
    points_axes: tuple[int, ...],
    n: int,
    grid: tuple[int, ...] | None,
    graph_value=_MISSING,
    expect: str = "equivariant",
) -> Signature:
    """The signature of a call from the user's descriptions.

    Parameters
    ----------
    inputs : None (one input, the random points of ``shape``; then the graph if given), or a
        list / tuple (positional arguments) or dict (keywords; integer keys are positions) of
        kinds (``"points"``, ``"graph"``, ``"fixed"`` ...), :class:`Arg` values, or any other
        value (passed unchanged).
    outputs : see :func:`describe_outputs`.
    shape, points_axes : the first points input's shape and point axes (non-negative).
    n, grid : the number of points; the group's grid shape when it has one.
    graph_value : the ``graph=`` value (a graph or an edge_index), which ``"graph"`` and
        ``"fixed"`` refer to.
    """
    has_graph = graph_value is not _MISSING
    if inputs is None:
        inputs = ["points", "graph"] if has_graph else ["points"]
    if isinstance(inputs, dict):
        items = list(inputs.items())
        positions = sorted(k for k, _ in items if isinstance(k, int))
        if positions != list(range(len(positions))):
            raise CallableError(f"{param('inputs')}: integer keys are positions 0, 1, ..., got {positions}")
        for k, _ in items:
            if not isinstance(k, (int, str)) or isinstance(k, bool):
                raise CallableError(f"{param('inputs')}: a key is a position or a keyword name, got {k!r}")
    elif isinstance(inputs, (list, tuple)):
        items = list(enumerate(inputs))
    else:
        raise CallableError(
            f"{param('inputs')} is a list (positional arguments) or a dict (keywords), got {type(inputs).__name__}"
        )
    if not items:
        raise CallableError(f"{param('inputs')} is empty: the code takes at least the points")
    sig = Signature(
        inputs=[], outputs=describe_outputs(outputs, expect), n=n, grid=grid, points_axes=tuple(points_axes)
    )
    used_graph = False
    offset = 0
    for key, item in items:
        where = f"{param('inputs')}[{key!r}]"
        if isinstance(item, str):
            item = parse_input(item, where=where)
        if not isinstance(item, Arg):
            sig.inputs.append(Input(key, Action(Motion.UNCHANGED), item))
            continue
        kind = item.kind
        if kind.is_graph and item.value is _MISSING:
            if not has_graph:
                raise CallableError(f"{where}: {kind} refers to the graph, but no {param('graph', 'FILE')} was given")
            item = Arg(kind, graph_value)
            used_graph = True
        if kind.may_be_drawn and item.value is _MISSING:
            dims = tuple(item.shape) if item.shape is not None else tuple(shape)
            axes = normal_axes(item.axes if item.axes is not None else _drawn_axes(kind, points_axes), len(dims), where)
            inp = Input(key, Action(kind, axes), None, given=False, shape=dims)
            sig._check_points(dims, axes, f"input {_key_text(key)}", "callable", pairs=kind.moves_each_axis)
            inp.offset = offset
            inp.width = math.prod(d for a, d in enumerate(dims) if a not in axes)
            offset += inp.width
            sig.inputs.append(inp)
            continue
        if item.value is _MISSING:
            raise CallableError(f"{where}: {kind} needs a value (gdlcheck.{kind}(value))")
        sig.inputs.append(_given(key, kind, item, sig, where))
    if has_graph and not used_graph:
        raise CallableError(
            f"{param('graph')} was given, but {param('inputs')} does not use it: name it "
            "graph (moves with the points) or fixed (held)"
        )
    if offset == 0 and not any(i.given and i.action.kind.may_be_drawn for i in sig.inputs):
        # given points alone (token ids for an Embedding) are moved by g, and nothing is drawn
        raise CallableError(
            f"{param('inputs')} has no points input: say which argument holds the points "
            "('points', or gdlcheck.points(value) for given ones)"
        )
    sig.channels = offset
    return sig


def _drawn_axes(kind: Motion, points_axes: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of a random input when none are written: the points axes; for pairs, the points axis
    and the next (an order-2 input ``(n, n, c)``)."""
    return (points_axes[0], points_axes[0] + 1) if kind.moves_each_axis else points_axes


def _given(key, kind: Motion, item: Arg, sig: Signature, where: str) -> Input:
    """An input with a value, converted to numpy / scipy (the call converts it back)."""
    value = item.value
    came = None
    if torch_bridge.is_tensor(value):
        came = torch_bridge.sparse_layout(value) if torch_bridge.is_sparse_tensor(value) else Layout.DENSE
    if kind.is_graph:
        value = graphs.as_graph(value, where=where, n=sig.n, error=CallableError)
        return Input(key, Action(kind), value, torch=came)
    if kind.takes_axes:
        array = torch_bridge.as_numpy(value) if came else np.asarray(value)
        if array.dtype == object:
            raise CallableError(f"{where}: points(value) takes an array of numbers")
        axes = normal_axes(
            item.axes if item.axes is not None else _drawn_axes(kind, sig.points_axes), array.ndim, where
        )
        sig._check_points(array.shape, axes, f"input {_key_text(key)}", "callable", pairs=kind.moves_each_axis)
        return Input(key, Action(kind, axes), array, torch=came)
    if kind.follows_edges:
        array = torch_bridge.as_numpy(value) if came else np.asarray(value)
        E = sig.edge_count()
        if E is None:
            raise CallableError(
                f"{where}: edges follow the edges of an edge_index input; give the graph (an edge_index) before it"
            )
        if array.ndim == 0 or array.shape[0] != E:
            raise CallableError(
                f"{where}: edge attributes have one row per edge ({E}), got shape {shape_text(array.shape)}"
            )
        return Input(key, Action(kind), array, torch=came)
    if came is Layout.DENSE:  # a tensor passed as it is: in numpy here, back as a tensor in the run's dtype
        value = torch_bridge.as_numpy(value)
    return Input(key, Action(Motion.UNCHANGED), value, torch=came)
