"""How a permutation of the points acts on each input and output of code under test.

Code takes more than one array, and not always with the points first: ``Conv1d`` reads
``(C, L)``, a batch-first transformer ``(B, n, d)``, a PyG layer ``(x, edge_index)``,
``MultiheadAttention`` returns ``(out, weights)``.  An :class:`Action` says how the group acts
on one of them (DESIGN.md section 9):

=============  ======================================================  ===========  ==========
kind           what the permutation ``p`` does                         inputs       outputs
=============  ======================================================  ===========  ==========
``points``     moves the entries along ``axes`` (``y[p[j]] = x[j]``);  yes          yes
               several axes are one grid index, row-major
``pairs``      moves both ``axes`` (``P W P^T``: attention weights)    --           yes
``graph``      ``P A P^T`` (dense, scipy.sparse, torch sparse);        yes          --
               an ``edge_index`` relabelled (:mod:`gdlcheck.graphs`)
``fixed``      nothing: a graph the code holds (holds for the          yes          --
               automorphisms of that graph only)
``edges``      follows the edges of the graph input (edge attributes)  yes          yes
``unchanged``  nothing (a scalar, a config; ``invariant`` for outputs)  yes          yes
``ignored``    not compared                                            --           yes
=============  ======================================================  ===========  ==========

An action is written ``kind`` or ``kind:axes`` (``"points:1"``, ``"points:1,2"`` for the two
axes of an ``(C, H, W)`` image, ``"pairs:-2,-1"``) in Python and on the command line alike;
:func:`points`, :func:`graph`, :func:`fixed`, :func:`edges` and :func:`unchanged` attach a given
value.  A :class:`Signature` holds the actions of one call: it lays the random point inputs
out as one ``(n, channels)`` block (the rows are the points, so the trial loop draws and
moves them as it does for every layer), builds the call's arguments from it, flattens the
outputs into one vector and moves that vector as each output moves.  The verification's
trial loop asks a layer's ``signature`` for all of this (``move_inputs``, ``move_output``,
``locate``); a tracer can read the same descriptions per tensor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gdlcheck import graphs, torch_bridge
from gdlcheck.errors import CallableError, param
from gdlcheck.groups import act, is_sparse
from gdlcheck.text import parse_shape, suggest

INPUT_KINDS = ("points", "graph", "fixed", "edges", "unchanged")
OUTPUT_KINDS = ("points", "pairs", "edges", "invariant", "ignored")
# the same action under the other word
_ALIASES = {"inputs": {"invariant": "unchanged"}, "outputs": {"unchanged": "invariant"}}
_MISSING = object()


@dataclass(frozen=True)
class Action:
    """How the group acts on one tensor: ``kind`` (see the module's table) and ``axes`` (the point
    axes of ``points``, one grid index when several; the two axes of ``pairs``; None: the default,
    resolved against the tensor)."""

    kind: str
    axes: tuple[int, ...] | None = None

    def text(self) -> str:
        """``points on axis 1``, ``pairs on axes (1, 2)``, ``graph``."""
        if self.axes is None or self.kind not in ("points", "pairs"):
            return self.kind
        if len(self.axes) == 1:
            return f"{self.kind} on axis {self.axes[0]}"
        return f"{self.kind} on axes ({', '.join(map(str, self.axes))})"

    def __str__(self) -> str:
        return self.kind if self.axes is None else f"{self.kind}:{','.join(map(str, self.axes))}"


@dataclass(eq=False)
class Arg:
    """An input described with a value (or, for random points, a shape): what :func:`points`,
    :func:`graph`, :func:`fixed`, :func:`edges` and :func:`unchanged` return."""

    kind: str
    value: object = _MISSING
    shape: tuple[int, ...] | None = None
    axes: tuple[int, ...] | None = None

    def __repr__(self) -> str:
        what = "random" if self.value is _MISSING else type(self.value).__name__
        return f"<gdlcheck input {self.kind} ({what})>"


def points(value=_MISSING, *, shape=None, axis=None) -> Arg:
    """An input whose entries move with the points along ``axis`` (default: the check's points axis).

    Without ``value`` it is drawn at random in every trial, of ``shape`` (default: the check's
    ``shape``); with ``value`` (a batch vector, node positions) that value is moved.
    """
    return Arg("points", value, None if shape is None else tuple(shape), as_axes(axis, "points"))


def graph(value) -> Arg:
    """A graph that moves with the points: ``P A P^T``, or an ``edge_index`` relabelled."""
    return Arg("graph", value)


def fixed(value) -> Arg:
    """A graph (or any value) the code holds fixed: the check holds only for its automorphisms."""
    return Arg("fixed", value)


def edges(value) -> Arg:
    """Edge attributes ``(E, ...)``: they follow their edges when the graph input is relabelled."""
    return Arg("edges", value)


def unchanged(value) -> Arg:
    """A value passed as it is in every call (a scalar, a config, a string)."""
    return Arg("unchanged", value)


def as_axes(axis, what: str) -> tuple[int, ...] | None:
    """Axes as a tuple: ``1`` -> ``(1,)``; ``(1, 2)`` or ``"1,2"`` -> ``(1, 2)``; None stays None."""
    if axis is None:
        return None
    if isinstance(axis, str):
        try:
            parts = tuple(int(a) for a in axis.replace(" ", "").strip("()").split(",") if a != "")
        except ValueError:
            raise CallableError(f"{what}: axes {axis!r} are not like 1 or 1,2") from None
        axis = parts
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return (int(axis),)
    if isinstance(axis, (tuple, list)) and axis and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool)
                                                         for a in axis):
        return tuple(int(a) for a in axis)
    raise CallableError(f"{what}: an axis is an integer or a tuple of integers, got {axis!r}")


def parse_action(text, *, outputs: bool, where: str = "action") -> Action:
    """``"points"``, ``"points:1"``, ``"pairs:1,2"``, ``"graph"`` ... -> an :class:`Action`.

    Raises
    ------
    CallableError
        for an unknown kind (with a did-you-mean) or bad axes.
    """
    if isinstance(text, Action):
        return text
    if not isinstance(text, str):
        raise CallableError(f"{where}: an action is a string like 'points' or 'pairs:1,2', got {text!r}")
    kinds = OUTPUT_KINDS if outputs else INPUT_KINDS
    name, _, axes = text.strip().partition(":")
    name = _ALIASES["outputs" if outputs else "inputs"].get(name, name)
    if name not in kinds:
        side = "an output" if outputs else "an input"
        raise CallableError(f"{where}: {name!r} is not how {side} moves; one of {', '.join(kinds)}"
                            f"{suggest(name, kinds)}")
    if axes and name not in ("points", "pairs"):
        raise CallableError(f"{where}: {name} takes no axes (only points and pairs do), got {text!r}")
    action = Action(name, as_axes(axes, where) if axes else None)
    if name == "pairs" and action.axes is not None and len(action.axes) != 2:
        raise CallableError(f"{where}: pairs moves two axes (rows and columns), got {text!r}")
    return action


def parse_input(text, where: str = "input") -> Arg:
    """An input written as text: ``points``, ``points:1`` (its axis), ``points:6x3`` (random points of
    that shape), ``graph``, ``fixed``, ``unchanged``."""
    name, _, rest = str(text).strip().partition(":")
    if name == "points" and rest and "x" in rest.lower():
        return Arg("points", shape=parse_shape(rest, what=where, error=CallableError))
    action = parse_action(text, outputs=False, where=where)
    return Arg(action.kind, axes=action.axes)


# --------------------------------------------------------------------------- moving arrays


def normal_axes(axes: tuple[int, ...], ndim: int, what: str) -> tuple[int, ...]:
    """Axes as non-negative indices into an ``ndim``-D array; out of range or repeated is an error."""
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise CallableError(f"{what}: axis {a} is out of range for a {ndim}-D array")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise CallableError(f"{what}: axes {tuple(axes)} repeat an axis")
    return tuple(out)


def act_along(p, Y: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``Y`` with the permutation ``p`` acting on its point axes (several: one row-major grid index)."""
    if axes == (0,):
        return act(p, Y)
    k = len(axes)
    front = np.moveaxis(Y, axes, tuple(range(k)))
    lead, rest = front.shape[:k], front.shape[k:]
    moved = act(p, front.reshape((-1,) + rest))
    return np.moveaxis(moved.reshape(lead + rest), tuple(range(k)), axes)


def move_array(action: Action, p, Y: np.ndarray, edge_order=None) -> np.ndarray:
    """``Y`` as ``action`` moves it under ``p`` (axes already resolved)."""
    if action.kind == "points":
        return act_along(p, Y, action.axes)
    if action.kind == "pairs":
        return act_along(p, act_along(p, Y, action.axes[:1]), action.axes[1:])
    if action.kind == "edges":
        return Y if edge_order is None else Y[edge_order]
    return Y


# --------------------------------------------------------------------------- a call's signature


@dataclass(eq=False)
class Input:
    """One argument of the call: where it goes (``key``: a position or a keyword), how it moves,
    and its value (``given``) or its random layout (``shape``, ``offset``, ``width`` in the block)."""

    key: int | str
    action: Action
    value: object = None
    given: bool = True
    shape: tuple[int, ...] | None = None
    offset: int = 0
    width: int = 0
    torch: str | None = None  # the value came as a torch tensor: "dense" or a sparse layout

    @property
    def label(self) -> str:
        return f"argument {self.key}" if isinstance(self.key, int) else f"argument {self.key!r}"


@dataclass(eq=False)
class Segment:
    """One compared output: its label (``""``, ``[1]``, ``['weights']``), action, shape and place
    in the flat vector."""

    label: str
    action: Action
    shape: tuple[int, ...]
    offset: int
    size: int


@dataclass(eq=False)
class Signature:
    """The actions of one call of the code: its inputs and how each output moves.

    ``n`` is the number of points, ``grid`` the group's shape when it acts on a grid.  The random
    point inputs share one block ``X : (n, channels)``: input ``i`` owns columns
    ``offset .. offset + width``, its point axes flattened (row-major) into the rows and its
    other axes into the columns.
    """

    inputs: list[Input]
    outputs: object  # an Action, or tuples / lists / dicts of them, as the code returns
    n: int
    grid: tuple[int, ...] | None = None
    points_axes: tuple[int, ...] = (0,)
    channels: int = 0
    segments: list[Segment] | None = None
    _edge_orders: dict = field(default_factory=dict)

    # ---- what a tracer reads: one resolved Action per tensor

    def input_actions(self) -> list[tuple[int | str, Action]]:
        """``(position or keyword, Action)`` of every input, axes resolved (non-negative)."""
        return [(i.key, i.action) for i in self.inputs]

    def output_actions(self) -> list[tuple[str, Action]]:
        """``(label, Action)`` of every compared output, axes resolved; known after the first call."""
        return [(s.label, s.action) for s in self.segments or []]

    # ---- what the trial loop asks

    @property
    def graph_law(self) -> str | None:
        """``both`` when a graph moves with the points, ``fixed`` when one is held, else None."""
        kinds = {i.action.kind for i in self.inputs}
        return "both" if "graph" in kinds else ("fixed" if "fixed" in kinds else None)

    @property
    def invariant(self) -> bool:
        """Every compared output is invariant (the law is ``f(PX) = f(X)``)."""
        return all(a.kind in ("invariant", "ignored") for a in leaves(self.outputs))

    @property
    def bundle(self) -> tuple | None:
        """The given values that move or may move (graphs, fixed graphs, given points, edges)."""
        values = tuple(i.value for i in self.inputs if i.given and i.action.kind != "unchanged")
        return values or None

    def _moving(self):
        return [i for i in self.inputs if i.given and i.action.kind != "unchanged"]

    def move_inputs(self, p, bundle, how: str | None):
        """The bundle moved under ``p``.  Given points and edges always move; graphs by ``how``:
        ``both`` (``P A P^T``), ``rows`` (``P A``), ``fixed``/None (held).  With no moving graph,
        ``both`` and ``rows`` move the fixed ones (the diagnosis's neighbouring law)."""
        if bundle is None:
            return None
        moving = self._moving()
        has_graph = any(i.action.kind == "graph" for i in moving)
        p = np.asarray(p)
        out, order = [], None
        for inp, value in zip(moving, bundle):
            kind = inp.action.kind
            if kind == "fixed" and not has_graph and how in ("both", "rows"):
                kind = "graph"
            if kind == "graph" and how in ("both", "rows"):
                moved, edge_order = graphs.move_graph(p, value, how, self.n)
                if order is None and graphs.form(value) == "edge_index":
                    order = edge_order
                out.append(moved)
            elif kind == "points":
                out.append(act_along(p, value, inp.action.axes))
            else:
                if kind == "fixed" and order is None and graphs.form(value) == "edge_index":
                    # a held edge list: its edges are permuted among its own columns by an
                    # automorphism (edge (u, v) to the column of (p u, p v)), their attributes with them
                    order = graphs.automorphism_edge_order(p, value, self.n)
                out.append(value)
        # edge attributes follow the first edge list's new order
        if order is not None:
            out = [v[order] if inp.action.kind == "edges" else v for inp, v in zip(moving, out)]
        self._edge_orders[p.tobytes()] = order
        return tuple(out)

    def edge_order(self, p) -> np.ndarray | None:
        """The order the edges took when the inputs were last moved by ``p`` (None: unchanged)."""
        return self._edge_orders.get(np.asarray(p).tobytes())

    def fixes(self, p, bundle) -> bool:
        """Whether ``p`` is an automorphism of every fixed graph."""
        if bundle is None:
            return True
        return all(graphs.is_fixed(p, v) for inp, v in zip(self._moving(), bundle) if inp.action.kind == "fixed")

    def not_fixed(self, p) -> list[str]:
        """The fixed inputs that ``p`` is not an automorphism of."""
        return [inp.label for inp in self._moving()
                if inp.action.kind == "fixed" and not graphs.is_fixed(p, inp.value)]

    def move_output(self, p, flat: np.ndarray) -> np.ndarray:
        """The flat output vector moved as each output moves under ``p``."""
        segs = self.segments or []
        if len(segs) == 1 and segs[0].action.kind in ("invariant",):
            return flat
        order = self.edge_order(p)
        parts = [move_array(s.action, p, flat[s.offset:s.offset + s.size].reshape(s.shape), order).ravel()
                 for s in segs]
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def locate(self, entry: tuple[int, ...]) -> tuple[str | None, tuple[int, ...]]:
        """A flat index as ``(output label, index in that output)``."""
        k = int(entry[0]) if entry else 0
        for s in self.segments or []:
            if s.offset <= k < s.offset + s.size:
                index = tuple(int(i) for i in np.unravel_index(k - s.offset, s.shape)) if s.shape else ()
                return (s.label or None), index
        return None, tuple(entry)

    # ---- what the layer asks

    def arguments(self, X: np.ndarray, bundle, random=None, given=None) -> tuple[list, dict]:
        """The call's positional and keyword arguments: random points from the block ``X``, given
        values from ``bundle`` (moved or not), unchanged values as they are.  Arrays are numpy;
        ``random`` and ``given`` (functions) convert the random and the given values."""
        values = iter(bundle or ())
        args: dict[int, object] = {}
        kwargs: dict[str, object] = {}
        for inp in self.inputs:
            if not inp.given:
                value = self.unblock(inp, X)
                value = random(value) if random is not None else value
            else:
                value = inp.value if inp.action.kind == "unchanged" else next(values)
                value = given(value) if given is not None else value
            if isinstance(inp.key, int):
                args[inp.key] = value
            else:
                kwargs[inp.key] = value
        return [args[k] for k in sorted(args)], kwargs

    def unblock(self, inp: Input, X: np.ndarray) -> np.ndarray:
        """Input ``inp``'s columns of the block, in its own layout."""
        k = len(inp.action.axes)
        point_dims = tuple(inp.shape[a] for a in inp.action.axes)
        rest = tuple(d for a, d in enumerate(inp.shape) if a not in inp.action.axes)
        block = X[:, inp.offset:inp.offset + inp.width].reshape(point_dims + rest)
        return np.moveaxis(block, tuple(range(k)), inp.action.axes)

    def flatten(self, out, label: str = "callable") -> np.ndarray:
        """The compared outputs, each as a float64 vector, concatenated; the first call fixes their
        shapes and every later call must return the same structure and shapes."""
        leaves = list(_walk(self.outputs, out, "", label))
        segments, parts, offset = [], [], 0
        for where, action, value in leaves:
            if action.kind == "ignored":
                continue
            Y = _as_float_array(value, where, label)
            action = self._resolve_output(action, Y, where, label)
            segments.append(Segment(where, action, tuple(Y.shape), offset, int(Y.size)))
            parts.append(Y.ravel())
            offset += int(Y.size)
        if not segments:
            raise CallableError("every output is ignored: nothing to compare; describe at least one as "
                                "points, pairs, edges or invariant", file=label)
        shapes = [(s.label, s.shape) for s in segments]
        if self.segments is None:
            self.segments = segments
        elif shapes != [(s.label, s.shape) for s in self.segments]:
            then = ", ".join(f"{lab or 'output'} {_shape_text(sh)}" for lab, sh in
                             ((s.label, s.shape) for s in self.segments))
            now = ", ".join(f"{lab or 'output'} {_shape_text(sh)}" for lab, sh in shapes)
            raise CallableError(f"returned {now} on one input and {then} on another of the same shape",
                                file=label)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def _resolve_output(self, action: Action, Y: np.ndarray, where: str, label: str) -> Action:
        name = f"output{where}" if where else "the output"
        if action.kind == "points":
            axes = action.axes if action.axes is not None else self.points_axes
            if Y.ndim == 0:
                raise CallableError(f"returned shape (), but an equivariant output's points axis is the {self.n} "
                                    f"points; for a pooled output use {param('expect', value='invariant')}",
                                    file=label)
            if max(axes) >= Y.ndim and action.axes is None:
                raise CallableError(f"returned shape {_shape_text(Y.shape)} for {name}, which has no points axis "
                                    f"{_axes_text(axes)}; for a pooled output use "
                                    f"{param('expect', value='invariant')}, or say where its points are "
                                    f"({param('outputs', value='points:AXIS')})", file=label)
            axes = normal_axes(axes, Y.ndim, name)
            self._check_points(Y.shape, axes, name, label, output=True)
            return Action("points", axes)
        if action.kind == "pairs":
            axes = action.axes if action.axes is not None else (-2, -1)
            if Y.ndim < 2:
                raise CallableError(f"{name} is {_shape_text(Y.shape)}: pairs needs two axes of n = {self.n}",
                                    file=label)
            axes = normal_axes(axes, Y.ndim, name)
            for a in axes:
                if Y.shape[a] != self.n:
                    raise CallableError(f"returned shape {_shape_text(Y.shape)} for {name}: axis {a} has "
                                        f"{Y.shape[a]} entries, but pairs moves two axes of the n = {self.n} "
                                        "points", file=label)
            return Action("pairs", axes)
        if action.kind == "edges":
            E = self.edge_count()
            if E is None:
                raise CallableError(f"{name} is described as edges, but no input is an edge_index", file=label)
            if Y.ndim == 0 or Y.shape[0] != E:
                raise CallableError(f"returned shape {_shape_text(Y.shape)} for {name}, but edge outputs have one "
                                    f"row per edge ({E})", file=label)
            return action
        return action

    def _check_points(self, shape, axes, name, label, output=False) -> None:
        dims = tuple(shape[a] for a in axes)
        if self.grid is not None and len(axes) > 1:
            ok = dims == self.grid
            want = "x".join(map(str, self.grid))
        else:
            ok = math.prod(dims) == self.n
            want = f"the n = {self.n} points"
        if not ok and output and tuple(axes) == (0,) and name == "the output":
            raise CallableError(f"returned shape {_shape_text(shape)}, but an equivariant output's first axis is the "
                                f"{self.n} points; for a pooled output use {param('expect', value='invariant')}",
                                file=label)
        if not ok:
            how = "returned" if output else "has"
            raise CallableError(f"{how} shape {_shape_text(shape)} for {name}: its points "
                                f"{_axes_text(axes)} hold {'x'.join(map(str, dims))}, not {want}"
                                + ("; for a pooled output use " + param("expect", value="invariant")
                                   if output and len(axes) == 1 else ""), file=label)

    def edge_count(self) -> int | None:
        for inp in self.inputs:
            if inp.given and inp.action.kind in ("graph", "fixed") and graphs.form(inp.value) == "edge_index":
                return int(inp.value.shape[1])
        return None

    def describe(self) -> str:
        """One line: how each input and output moves (for the notes)."""
        ins = "; ".join(f"{_key_text(i.key)} {_input_text(i)}" for i in self.inputs)
        if self.segments is None:
            outs = "; ".join(f"output {a.text()}" for a in leaves(self.outputs))
        else:
            outs = "; ".join(f"output{s.label} {s.action.text()}" for s in self.segments)
        return f"{ins}; {outs}"


def _input_text(inp: Input) -> str:
    kind = inp.action.kind
    if kind in ("graph", "fixed"):
        form = graphs.form(inp.value)
        if kind == "fixed":
            return f"fixed ({'an edge_index' if form == 'edge_index' else 'a ' + form + ' adjacency'}, held)"
        return "graph (" + ("edge_index relabelled" if form == "edge_index" else
                            "P A P^T" + (", sparse" if form == "sparse" else "")) + ")"
    if kind == "points" and inp.given:
        return inp.action.text() + " (given)"
    return inp.action.text()


def _key_text(key) -> str:
    return f"argument {key}" if isinstance(key, int) else f"argument {key!r}"


def _axes_text(axes) -> str:
    return f"on axis {axes[0]}" if len(axes) == 1 else f"on axes {tuple(axes)}"


def _shape_text(shape) -> str:
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


def _walk(spec, out, where: str, label: str):
    """``(label, action, value)`` for each leaf of the output, matched against the description."""
    if isinstance(spec, Action):
        if spec.kind != "ignored" and isinstance(out, (tuple, list)) and out \
                and any(x is None or _is_array(x) or isinstance(x, (tuple, list, dict)) for x in out):
            at = f" at output{where}" if where else ""
            raise CallableError(f"returned a {type(out).__name__} of {len(out)} items{at}; say how each moves with "
                                f"{param('outputs')}, one per item (points, pairs, edges, invariant or ignored)",
                                file=label)
        if spec.kind != "ignored" and isinstance(out, dict):
            raise CallableError(f"returned a dict with keys {sorted(map(str, out))}; say how each moves with "
                                f"{param('outputs')}, one per key (e.g. out=points, weights=pairs)", file=label)
        yield where, spec, out
    elif isinstance(spec, dict):
        if not isinstance(out, dict):
            raise CallableError(f"returned {type(out).__name__}{' at output' + where if where else ''}, but the "
                                "outputs are described as a dict", file=label)
        missing = [k for k in spec if k not in out]
        extra = [k for k in out if k not in spec]
        if missing or extra:
            raise CallableError(f"returned a dict with keys {sorted(map(str, out))}, described as "
                                f"{sorted(map(str, spec))}: describe every key (ignored for the ones not to "
                                "compare)", file=label)
        for k, v in spec.items():
            yield from _walk(v, out[k], f"{where}[{k!r}]", label)
    else:
        if not isinstance(out, (tuple, list)) or _is_array(out):
            raise CallableError(f"returned {type(out).__name__}{' at output' + where if where else ''}, but "
                                f"{len(spec)} outputs are described", file=label)
        if len(out) != len(spec):
            raise CallableError(f"returned {len(out)} outputs{' at output' + where if where else ''}, but "
                                f"{len(spec)} are described", file=label)
        for k, (v, o) in enumerate(zip(spec, out)):
            yield from _walk(v, o, f"{where}[{k}]", label)


def _is_array(x) -> bool:
    return isinstance(x, np.ndarray) or torch_bridge.is_tensor(x)


def _as_float_array(value, where: str, label: str) -> np.ndarray:
    name = f"output{where}" if where else "the output"
    if value is None:
        raise CallableError(f"{name} is None; describe it as ignored", file=label)
    if torch_bridge.is_tensor(value):
        value = torch_bridge.to_numpy(value)
    elif is_sparse(value):
        value = value.toarray()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as err:
        text = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise CallableError(f"{name} is {type(value).__name__}, not an array of numbers ({type(err).__name__}: "
                            f"{text})", file=label) from None


# --------------------------------------------------------------------------- building a signature


def describe_outputs(outputs, expect: str = "equivariant"):
    """``outputs`` (a string, an Action, or tuples / lists / dicts of them) as Actions; the default
    is one output, ``points`` (``invariant`` with ``expect="invariant"``)."""
    if outputs is None:
        return Action("invariant" if expect == "invariant" else "points")

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
        raise CallableError(f"{where}: describe an output as a string like 'points' or 'pairs', got "
                            f"{type(spec).__name__}")

    return one(outputs, param("outputs"))


def build_signature(inputs, outputs, *, shape: tuple[int, ...], points_axes: tuple[int, ...], n: int,
                    grid: tuple[int, ...] | None, graph_value=_MISSING, expect: str = "equivariant") -> Signature:
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
        raise CallableError(f"{param('inputs')} is a list (positional arguments) or a dict (keywords), "
                            f"got {type(inputs).__name__}")
    if not items:
        raise CallableError(f"{param('inputs')} is empty: the code takes at least the points")
    sig = Signature(inputs=[], outputs=describe_outputs(outputs, expect), n=n, grid=grid,
                    points_axes=tuple(points_axes))
    used_graph = False
    offset = 0
    for key, item in items:
        where = f"{param('inputs')}[{key!r}]"
        if isinstance(item, str):
            item = parse_input(item, where=where)
        if not isinstance(item, Arg):
            sig.inputs.append(Input(key, Action("unchanged"), item))
            continue
        kind = item.kind
        if kind in ("graph", "fixed") and item.value is _MISSING:
            if not has_graph:
                raise CallableError(f"{where}: {kind} refers to the graph, but no {param('graph', 'FILE')} was "
                                    "given")
            item = Arg(kind, graph_value)
            used_graph = True
        if kind == "points" and item.value is _MISSING:
            dims = tuple(item.shape) if item.shape is not None else tuple(shape)
            axes = normal_axes(item.axes if item.axes is not None else points_axes, len(dims), where)
            inp = Input(key, Action("points", axes), None, given=False, shape=dims)
            sig._check_points(dims, axes, f"input {_key_text(key)}", "callable")
            inp.offset = offset
            inp.width = math.prod(d for a, d in enumerate(dims) if a not in axes)
            offset += inp.width
            sig.inputs.append(inp)
            continue
        if item.value is _MISSING:
            raise CallableError(f"{where}: {kind} needs a value (gdlcheck.{kind}(value))")
        sig.inputs.append(_given(key, kind, item, sig, where))
    if has_graph and not used_graph:
        raise CallableError(f"{param('graph')} was given, but {param('inputs')} does not use it: name it "
                            "graph (moves with the points) or fixed (held)")
    if offset == 0 and not any(i.given and i.action.kind == "points" for i in sig.inputs):
        # given points alone (token ids for an Embedding) are moved by g, and nothing is drawn
        raise CallableError(f"{param('inputs')} has no points input: say which argument holds the points "
                            "('points', or gdlcheck.points(value) for given ones)")
    sig.channels = offset
    return sig


def _given(key, kind: str, item: Arg, sig: Signature, where: str) -> Input:
    """An input with a value, converted to numpy / scipy (the call converts it back)."""
    value = item.value
    came = None
    if torch_bridge.is_tensor(value):
        came = torch_bridge.sparse_layout(value) if torch_bridge.is_sparse_tensor(value) else "dense"
    if kind in ("graph", "fixed"):
        value = graphs.as_graph(value, where=where, n=sig.n, error=CallableError)
        return Input(key, Action(kind), value, torch=came)
    if kind == "points":
        array = torch_bridge.as_numpy(value) if came else np.asarray(value)
        if array.dtype == object:
            raise CallableError(f"{where}: points(value) takes an array of numbers")
        axes = normal_axes(item.axes if item.axes is not None else sig.points_axes, array.ndim, where)
        sig._check_points(array.shape, axes, f"input {_key_text(key)}", "callable")
        return Input(key, Action("points", axes), array, torch=came)
    if kind == "edges":
        array = torch_bridge.as_numpy(value) if came else np.asarray(value)
        E = sig.edge_count()
        if E is None:
            raise CallableError(f"{where}: edges follow the edges of an edge_index input; give the graph "
                                "(an edge_index) before it")
        if array.ndim == 0 or array.shape[0] != E:
            raise CallableError(f"{where}: edge attributes have one row per edge ({E}), got shape "
                                f"{_shape_text(array.shape)}")
        return Input(key, Action("edges"), array, torch=came)
    if came == "dense":  # a tensor passed as it is: in numpy here, back as a tensor in the run's dtype
        value = torch_bridge.as_numpy(value)
    return Input(key, Action("unchanged"), value, torch=came)


# --------------------------------------------------------------------------- relating two tensors


def relation(p, a, b, n: int, grid: tuple[int, ...] | None, tol: float,
             edge_order: np.ndarray | None = None) -> tuple[Action | None, float]:
    """How ``b`` relates to ``a`` under ``p``: the first action among unchanged, points on an axis
    (or on a grid's axes), pairs, following the edges (``edge_order``: the relabelled graph's
    new order of the edges, if it has one) and relabelled node labels that maps ``a`` onto ``b``
    within ``tol`` (relative to ``a``'s largest entry); else ``(None, smallest error)``.

    Used to find the submodule that breaks the symmetry: its inputs relate, its outputs do not.
    """
    if is_sparse(a) or is_sparse(b):
        if not (is_sparse(a) and is_sparse(b)) or a.shape != b.shape:
            return None, math.inf
        if a.shape == (n, n):
            moved, _ = graphs.move_graph(p, a, "both")
            if _sparse_close(moved, b, tol):
                return Action("graph"), 0.0
        return (Action("unchanged"), 0.0) if _sparse_close(a, b, tol) else (None, math.inf)
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return None, math.inf
    scale = _finite_scale(a)
    best = math.inf

    def close(x) -> float:
        if x.dtype.kind == "b" or b.dtype.kind == "b":
            return 0.0 if np.array_equal(x, b) else math.inf
        d = largest_difference(x, b)
        return d / scale if scale > 0 else (0.0 if d == 0 else math.inf)

    err = close(a)
    if err <= tol:
        return Action("unchanged"), err
    best = min(best, err)
    candidates: list[Action] = []
    point_axes = [k for k, d in enumerate(a.shape) if d == n]
    candidates += [Action("points", (k,)) for k in point_axes]
    if grid is not None and len(grid) > 1:
        g = len(grid)
        candidates += [Action("points", tuple(range(k, k + g))) for k in range(a.ndim - g + 1)
                       if tuple(a.shape[k:k + g]) == tuple(grid)]
    candidates += [Action("pairs", (i, j)) for i in point_axes for j in point_axes if i < j]
    if edge_order is not None and a.ndim and a.shape[0] == len(edge_order):
        candidates.append(Action("edges"))
    for action in candidates:
        err = close(move_array(action, p, a, edge_order))
        if err <= tol:
            return action, err
        best = min(best, err)
    if a.dtype.kind in "iu" and a.size and a.min() >= 0 and a.max() < n:
        labels = np.asarray(p)[a]
        if np.array_equal(labels, b) or (edge_order is not None and a.ndim and a.shape[-1] == len(edge_order)
                                         and np.array_equal(labels[..., edge_order], b)):
            return Action("graph"), 0.0
        if a.ndim == 2 and a.shape[0] == 2:
            if np.array_equal(np.sort(labels[0] * n + labels[1]), np.sort(b[0] * n + b[1])):
                return Action("graph"), 0.0
    return None, best


def _finite_scale(a: np.ndarray) -> float:
    """The largest finite ``|entry|`` of ``a`` (a mask's ``-inf`` entries are no scale)."""
    if not a.size or a.dtype.kind not in "fiub":
        return 0.0
    finite = np.abs(a[np.isfinite(a)]) if a.dtype.kind == "f" else np.abs(a)
    return float(finite.max()) if finite.size else 0.0


def largest_difference(x: np.ndarray, y: np.ndarray) -> float:
    """``max |x - y|``, with equal entries (``-inf`` and ``-inf`` of a mask, NaN and NaN) differing by 0
    and no numpy warning."""
    if not x.size:
        return 0.0
    x, y = x.astype(np.float64), y.astype(np.float64)
    same = (x == y) | (np.isnan(x) & np.isnan(y))
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.where(same, 0.0, np.abs(x - y))
    return float(np.where(np.isnan(d), np.inf, d).max())


def _sparse_close(x, y, tol: float) -> bool:
    d = (x - y)
    scale = float(abs(x).max()) if x.nnz else 0.0
    worst = float(abs(d).max()) if d.nnz else 0.0
    return worst <= tol * scale if scale > 0 else worst == 0
