"""A call's :class:`Signature`: the actions of one call of code under test.

It lays the random point inputs out as one ``(n, channels)`` block (the rows are the points, so
the trial loop draws and moves them as it does for every layer), builds the call's arguments
from it, flattens the outputs into one vector and moves that vector as each output moves
(:mod:`gdlcheck.code.actions` says how each one moves).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from gdlcheck.code import graphs
from gdlcheck.code.actions import THE_OUTPUT, Action, Motion, move_array, normal_axes, output_array, pairs_of
from gdlcheck.code.graphs import Form, GraphLaw
from gdlcheck.code.outputs import axes_text, leaves, matched, shape_text
from gdlcheck.errors import CallableError, param


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
    def graph_law(self) -> GraphLaw | None:
        """``both`` when a graph moves with the points, ``fixed`` when one is held, else None."""
        kinds = [i.action.kind for i in self.inputs]
        if any(k.is_graph and not k.is_held for k in kinds):
            return GraphLaw.BOTH
        return GraphLaw.FIXED if any(k.is_held for k in kinds) else None

    @property
    def invariant(self) -> bool:
        """Every compared output is invariant (the law is ``f(PX) = f(X)``)."""
        return all(a.kind.is_invariant or not a.kind.is_compared for a in leaves(self.outputs))

    @property
    def bundle(self) -> tuple | None:
        """The given values that move or may move (graphs, fixed graphs, given points, edges)."""
        values = tuple(i.value for i in self._moving())
        return values or None

    def _moving(self):
        return [i for i in self.inputs if i.given and not i.action.kind.is_constant]

    def move_inputs(self, p, bundle, how: GraphLaw | str | None):
        """The bundle moved under ``p``.  Given points and edges always move; graphs by ``how``:
        ``both`` (``P A P^T``), ``rows`` (``P A``), ``fixed``/None (held).  With no moving graph,
        ``both`` and ``rows`` move the fixed ones (the diagnosis's neighbouring law)."""
        if bundle is None:
            return None
        moving = self._moving()
        has_graph = any(i.action.kind.is_graph and not i.action.kind.is_held for i in moving)
        p = np.asarray(p)
        out, order = [], None
        for inp, value in zip(moving, bundle):
            kind = inp.action.kind
            # a held graph moves too when none moves with the points (the neighbouring law)
            if kind.is_graph and (not kind.is_held or not has_graph) and how in (GraphLaw.BOTH, GraphLaw.ROWS):
                moved, edge_order = graphs.move_graph(p, value, GraphLaw(how), self.n)
                if order is None and graphs.form(value) is Form.EDGE_INDEX:
                    order = edge_order
                out.append(moved)
            elif kind.takes_axes:
                out.append(inp.action.move(p, value))
            else:
                if kind.is_held and order is None and graphs.form(value) is Form.EDGE_INDEX:
                    # a held edge list: its edges are permuted among its own columns by an
                    # automorphism (edge (u, v) to the column of (p u, p v)), their attributes with them
                    order = graphs.automorphism_edge_order(p, value, self.n)
                out.append(value)
        # edge attributes follow the first edge list's new order
        if order is not None:
            out = [v[order] if inp.action.kind.follows_edges else v for inp, v in zip(moving, out)]
        self._edge_orders[p.tobytes()] = order
        return tuple(out)

    def edge_order(self, p) -> np.ndarray | None:
        """The order the edges took when the inputs were last moved by ``p`` (None: unchanged)."""
        return self._edge_orders.get(np.asarray(p).tobytes())

    def fixes(self, p, bundle) -> bool:
        """Whether ``p`` is an automorphism of every fixed graph."""
        if bundle is None:
            return True
        return all(graphs.is_fixed(p, v) for inp, v in zip(self._moving(), bundle) if inp.action.kind.is_held)

    def not_fixed(self, p) -> list[str]:
        """The fixed inputs that ``p`` is not an automorphism of."""
        return [inp.label for inp in self._moving() if inp.action.kind.is_held and not graphs.is_fixed(p, inp.value)]

    def move_output(self, p, flat: np.ndarray, equivariant: bool = False) -> np.ndarray:
        """The flat output vector moved as each output moves under ``p``.

        ``equivariant`` asks the neighbouring law of code checked for invariance (the diagnosis):
        when every output is invariant, each one whose points axes hold the points moves with them."""
        segs = self.segments or []
        if equivariant and self.invariant:
            segs = [replace(s, action=self._as_points(s.shape)) for s in segs]
        if len(segs) == 1 and segs[0].action.kind.is_invariant:
            return flat
        order = self.edge_order(p)
        parts = [
            move_array(s.action, p, flat[s.offset : s.offset + s.size].reshape(s.shape), order).ravel() for s in segs
        ]
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def _as_points(self, shape) -> Action:
        """An output of ``shape`` as points on the input's points axes, if they hold the points."""
        axes = self.points_axes
        if len(shape) > max(axes) and int(np.prod([shape[a] for a in axes])) == self.n:
            return Action(Motion.POINTS, axes)
        return Action(Motion.INVARIANT)

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
            value: object
            if not inp.given:
                value = self.unblock(inp, X)
                value = random(value) if random is not None else value
            else:
                value = inp.value if inp.action.kind.is_constant else next(values)
                value = given(value) if given is not None else value
            if isinstance(inp.key, int):
                args[inp.key] = value
            else:
                kwargs[inp.key] = value
        return [args[k] for k in sorted(args)], kwargs

    def unblock(self, inp: Input, X: np.ndarray) -> np.ndarray:
        """Input ``inp``'s columns of the block, in its own layout; a random pairs input built from
        them by :func:`~gdlcheck.code.actions.pairs_of` (rows moved by ``P`` move it as ``P Y P^T``)."""
        if inp.action.kind.moves_each_axis:
            axes, shape = inp.action.axes or (0, 1), inp.shape or ()
            Y = pairs_of(X[:, inp.offset : inp.offset + inp.width])
            return np.moveaxis(
                Y.reshape((self.n, self.n) + tuple(d for a, d in enumerate(shape) if a not in axes)), (0, 1), axes
            )
        axes, k, shape = inp.action.known_axes, len(inp.action.known_axes), inp.shape or ()
        point_dims = tuple(shape[a] for a in axes)
        rest = tuple(d for a, d in enumerate(shape) if a not in axes)
        block = X[:, inp.offset : inp.offset + inp.width].reshape(point_dims + rest)
        if axes == tuple(range(k)):  # the points lead already (moveaxis would return the same)
            return block
        return np.moveaxis(block, tuple(range(k)), axes)

    def flatten(self, out, label: str = "callable") -> np.ndarray:
        """The compared outputs, each as a float64 vector, concatenated; the first call fixes their
        shapes and every later call must return the same structure and shapes."""
        leaves = list(matched(self.outputs, out, "", label))
        segments, parts, offset = [], [], 0
        for where, action, value in leaves:
            if not action.kind.is_compared:
                continue
            Y = output_array(value, where, label)
            action = self._resolve_output(action, Y, where, label)
            segments.append(Segment(where, action, tuple(Y.shape), offset, int(Y.size)))
            parts.append(Y.ravel())
            offset += int(Y.size)
        if not segments:
            raise CallableError(
                "every output is ignored: nothing to compare; describe at least one as "
                "points, pairs, edges or invariant",
                file=label,
            )
        shapes = [(s.label, s.shape) for s in segments]
        if self.segments is None:
            self.segments = segments
        elif shapes != [(s.label, s.shape) for s in self.segments]:
            then = ", ".join(f"{s.label or 'output'} {shape_text(s.shape)}" for s in self.segments)
            now = ", ".join(f"{lab or 'output'} {shape_text(sh)}" for lab, sh in shapes)
            raise CallableError(f"returned {now} on one input and {then} on another of the same shape", file=label)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def _resolve_output(self, action: Action, Y: np.ndarray, where: str, label: str) -> Action:
        name = f"output{where}" if where else THE_OUTPUT
        kind = action.kind
        if kind.moves_each_axis:  # pairs: each axis is the n points
            axes = action.resolved_axes(self.points_axes)
            if Y.ndim < 2:
                raise CallableError(
                    f"{name} is {shape_text(Y.shape)}: {kind} needs two axes of n = {self.n}", file=label
                )
            axes = normal_axes(axes, Y.ndim, name)
            for a in axes:
                if Y.shape[a] != self.n:
                    raise CallableError(
                        f"returned shape {shape_text(Y.shape)} for {name}: axis {a} has "
                        f"{Y.shape[a]} entries, but {kind} moves two axes of the n = {self.n} "
                        "points",
                        file=label,
                    )
            return Action(kind, axes)
        if kind.takes_axes:  # points: the axes together are the n points (one grid index)
            axes = action.resolved_axes(self.points_axes)
            if Y.ndim == 0:
                raise CallableError(
                    f"returned shape (), but an equivariant output's points axis is the {self.n} "
                    f"points; for a pooled output use {param('expect', value='invariant')}",
                    file=label,
                )
            if max(axes) >= Y.ndim and action.axes is None:
                raise CallableError(
                    f"returned shape {shape_text(Y.shape)} for {name}, which has no points axis "
                    f"{axes_text(axes)}; for a pooled output use "
                    f"{param('expect', value='invariant')}, or say where its points are "
                    f"({param('outputs', value='points:AXIS')})",
                    file=label,
                )
            axes = normal_axes(axes, Y.ndim, name)
            self._check_points(Y.shape, axes, name, label, output=True)
            return Action(kind, axes)
        if kind.follows_edges:
            E = self.edge_count()
            if E is None:
                raise CallableError(f"{name} is described as {kind}, but no input is an edge_index", file=label)
            if Y.ndim == 0 or Y.shape[0] != E:
                raise CallableError(
                    f"returned shape {shape_text(Y.shape)} for {name}, but edge outputs have one row per edge ({E})",
                    file=label,
                )
        return action

    def _check_points(self, shape, axes, name, label, output=False, pairs=False) -> None:
        dims = tuple(shape[a] for a in axes)
        if pairs:  # each axis holds the points
            if len(axes) != 2 or any(d != self.n for d in dims):
                raise CallableError(
                    f"has shape {shape_text(shape)} for {name}: its pairs {axes_text(axes)} hold "
                    f"{'x'.join(map(str, dims))}, not {self.n}x{self.n}",
                    file=label,
                )
            return
        if self.grid is not None and len(axes) > 1:
            ok = dims == self.grid
            want = "x".join(map(str, self.grid))
        else:
            ok = math.prod(dims) == self.n
            want = f"the n = {self.n} points"
        if not ok and output and tuple(axes) == (0,) and name == THE_OUTPUT:
            raise CallableError(
                f"returned shape {shape_text(shape)}, but an equivariant output's first axis is the "
                f"{self.n} points; for a pooled output use {param('expect', value='invariant')}",
                file=label,
            )
        if not ok:
            how = "returned" if output else "has"
            raise CallableError(
                f"{how} shape {shape_text(shape)} for {name}: its points "
                f"{axes_text(axes)} hold {'x'.join(map(str, dims))}, not {want}"
                + (
                    "; for a pooled output use " + param("expect", value="invariant")
                    if output and len(axes) == 1
                    else ""
                ),
                file=label,
            )

    def edge_count(self) -> int | None:
        for inp in self.inputs:
            if inp.given and inp.action.kind.is_graph and graphs.form(inp.value) is Form.EDGE_INDEX:
                return int(np.asarray(inp.value).shape[1])
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
    if kind.is_graph:
        form = graphs.form(inp.value)
        if kind.is_held:
            return f"fixed ({'an edge_index' if form is Form.EDGE_INDEX else f'a {form} adjacency'}, held)"
        return (
            "graph ("
            + (
                "edge_index relabelled"
                if form is Form.EDGE_INDEX
                else "P A P^T" + (", sparse" if form is Form.SPARSE else "")
            )
            + ")"
        )
    if kind.may_be_drawn and inp.given:
        return inp.action.text() + " (given)"
    return inp.action.text()


def _key_text(key) -> str:
    return f"argument {key}" if isinstance(key, int) else f"argument {key!r}"
