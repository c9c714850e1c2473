"""How a permutation of the points acts on each input and output of code under test.

Code takes more than one array, and not always with the points first: ``Conv1d`` reads
``(C, L)``, a batch-first transformer ``(B, n, d)``, a PyG layer ``(x, edge_index)``,
``MultiheadAttention`` returns ``(out, weights)``.  An :class:`Action` says how the group acts
on one of them (docs/design.md section 9); its kind is a :class:`Motion`, whose properties answer what
the checks ask of a kind (does it take axes, is it a graph, is it held, ...), so a kind is added
in one place:

=============  ======================================================  ===========  ==========
kind           what the permutation ``p`` does                         inputs       outputs
=============  ======================================================  ===========  ==========
``points``     moves the entries along ``axes`` (``y[p[j]] = x[j]``);  yes          yes
               several axes are one grid index, row-major
``pairs``      moves both ``axes`` (``P W P^T``: attention weights,    yes          yes
               an order-2 input)
``graph``      ``P A P^T`` (dense, scipy.sparse, torch sparse);        yes          --
               an ``edge_index`` relabelled (:mod:`gdlcheck.code.graphs`)
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

from dataclasses import dataclass
from enum import Enum

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.errors import CallableError, param
from gdlcheck.groups import act, is_sparse
from gdlcheck.text import parse_shape, suggest


class Motion(Enum):
    """How the group acts on one value: a kind of the module's table, named by its word.

    Everything the checks ask of a kind is a property here, so that adding a kind is this one
    place; the words are read into members only at the boundary (:func:`parse_action`).
    """

    POINTS = "points"
    PAIRS = "pairs"
    GRAPH = "graph"
    FIXED = "fixed"
    EDGES = "edges"
    UNCHANGED = "unchanged"
    INVARIANT = "invariant"
    IGNORED = "ignored"

    def __str__(self) -> str:
        return self.value

    @property
    def on_inputs(self) -> bool:
        """An input may move so (the table's ``inputs`` column)."""
        return self in _INPUTS

    @property
    def on_outputs(self) -> bool:
        """An output may move so (the table's ``outputs`` column)."""
        return self in _OUTPUTS

    @property
    def takes_axes(self) -> bool:
        """The value moves along point axes, written ``kind:axes`` (points, pairs)."""
        return self in (Motion.POINTS, Motion.PAIRS)

    @property
    def axis_count(self) -> int | None:
        """How many axes it moves when they are written (pairs: rows and columns); None: any."""
        return 2 if self is Motion.PAIRS else None

    @property
    def moves_each_axis(self) -> bool:
        """Each of its axes moves by the permutation on its own (``P W P^T``: pairs), rather than
        its axes being one row-major grid index of the points (points); it takes axes."""
        return self is Motion.PAIRS

    @property
    def may_be_drawn(self) -> bool:
        """Without a value, the input is drawn at random in every trial (points, pairs)."""
        return self in (Motion.POINTS, Motion.PAIRS)

    @property
    def is_graph(self) -> bool:
        """The value is a graph (an adjacency or an ``edge_index``), moved or held."""
        return self in (Motion.GRAPH, Motion.FIXED)

    @property
    def is_held(self) -> bool:
        """The code holds the value fixed: the check holds only for its automorphisms."""
        return self is Motion.FIXED

    @property
    def follows_edges(self) -> bool:
        """The value's rows follow the edges of the graph input (edge attributes)."""
        return self is Motion.EDGES

    @property
    def is_constant(self) -> bool:
        """The value is the same in every call: passed as it is, never in the moved bundle
        (``unchanged`` for inputs, ``invariant`` for outputs)."""
        return self in (Motion.UNCHANGED, Motion.INVARIANT)

    @property
    def is_compared(self) -> bool:
        """An output of this kind is compared (all but ``ignored``)."""
        return self is not Motion.IGNORED

    @property
    def is_invariant(self) -> bool:
        """An output compared unmoved (the law ``f(PX) = f(X)``)."""
        return self is Motion.INVARIANT

    def default_axes(self, points_axes: tuple[int, ...]) -> tuple[int, ...]:
        """The axes it moves when none are written: the check's points axes for points, the last
        two for pairs."""
        return (-2, -1) if self.moves_each_axis else points_axes

    def move(self, p, Y: np.ndarray, axes: tuple[int, ...] | None, edge_order=None) -> np.ndarray:
        """``Y`` as this kind moves it under ``p`` (``axes`` already resolved)."""
        if self.follows_edges:
            return Y if edge_order is None else Y[edge_order]
        if not self.takes_axes:
            return Y
        if axes is None:
            raise RuntimeError(f"{self} is moved along axes not resolved yet")
        if self.moves_each_axis:
            for a in axes:
                Y = act_along(p, Y, (a,))
            return Y
        return act_along(p, Y, axes)


_INPUTS = (Motion.POINTS, Motion.PAIRS, Motion.GRAPH, Motion.FIXED, Motion.EDGES, Motion.UNCHANGED)
_OUTPUTS = (Motion.POINTS, Motion.PAIRS, Motion.EDGES, Motion.INVARIANT, Motion.IGNORED)
# the words of each side, in the table's order (the error messages list them)
INPUT_KINDS = tuple(m.value for m in Motion if m.on_inputs)
OUTPUT_KINDS = tuple(m.value for m in Motion if m.on_outputs)
# the same action under the other word
_ALIASES = {"inputs": {"invariant": "unchanged"}, "outputs": {"unchanged": "invariant"}}
_MISSING = object()
# how a message names the one output (several are named by their place: ``output[0]``, ``output['y']``)
THE_OUTPUT = "the output"


@dataclass(frozen=True)
class Action:
    """How the group acts on one tensor: ``kind`` (see the module's table; its word is read into
    a :class:`Motion`) and ``axes`` (the point axes of ``points``, one grid index when several;
    the two axes of ``pairs``; None: the default, resolved against the tensor)."""

    kind: Motion
    axes: tuple[int, ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "kind", Motion(self.kind))

    def text(self) -> str:
        """``points on axis 1``, ``pairs on axes (1, 2)``, ``graph``."""
        if self.axes is None or not self.kind.takes_axes:
            return str(self.kind)
        if len(self.axes) == 1:
            return f"{self.kind} on axis {self.axes[0]}"
        return f"{self.kind} on axes ({', '.join(map(str, self.axes))})"

    def resolved_axes(self, points_axes: tuple[int, ...]) -> tuple[int, ...]:
        """The axes written, or the kind's default (:meth:`Motion.default_axes`)."""
        return self.axes if self.axes is not None else self.kind.default_axes(points_axes)

    @property
    def known_axes(self) -> tuple[int, ...]:
        """The axes, once resolved (an input's are, against its tensor, when the call is read)."""
        if self.axes is None:
            raise RuntimeError(f"the axes of {self} are used before they are resolved")
        return self.axes

    def move(self, p, Y: np.ndarray, edge_order=None) -> np.ndarray:
        """``Y`` as this action moves it under ``p`` (axes already resolved)."""
        return self.kind.move(p, Y, self.axes, edge_order)

    def __str__(self) -> str:
        return str(self.kind) if self.axes is None else f"{self.kind}:{','.join(map(str, self.axes))}"


@dataclass(eq=False)
class Arg:
    """An input described with a value (or, for random points, a shape): what :func:`points`,
    :func:`graph`, :func:`fixed`, :func:`edges` and :func:`unchanged` return."""

    kind: Motion
    value: object = _MISSING
    shape: tuple[int, ...] | None = None
    axes: tuple[int, ...] | None = None

    def __post_init__(self):
        self.kind = Motion(self.kind)

    def __repr__(self) -> str:
        what = "random" if self.value is _MISSING else type(self.value).__name__
        return f"<gdlcheck input {self.kind} ({what})>"


def points(value=_MISSING, *, shape=None, axis=None) -> Arg:
    """An input whose entries move with the points along ``axis`` (default: the check's points axis).

    Without ``value`` it is drawn at random in every trial, of ``shape`` (default: the check's
    ``shape``); with ``value`` (a batch vector, node positions) that value is moved.
    """
    return Arg(Motion.POINTS, value, None if shape is None else tuple(shape), as_axes(axis, "points"))


def graph(value) -> Arg:
    """A graph that moves with the points: ``P A P^T``, or an ``edge_index`` relabelled."""
    return Arg(Motion.GRAPH, value)


def fixed(value) -> Arg:
    """A graph (or any value) the code holds fixed: the check holds only for its automorphisms."""
    return Arg(Motion.FIXED, value)


def edges(value) -> Arg:
    """Edge attributes ``(E, ...)``: they follow their edges when the graph input is relabelled."""
    return Arg(Motion.EDGES, value)


def unchanged(value) -> Arg:
    """A value passed as it is in every call (a scalar, a config, a string)."""
    return Arg(Motion.UNCHANGED, value)


def as_axes(axis, what: str) -> tuple[int, ...] | None:
    """Axes as a tuple: ``1`` -> ``(1,)``; ``(1, 2)`` or ``"1,2"`` -> ``(1, 2)``; None stays None."""
    if axis is None:
        return None
    if isinstance(axis, str):
        try:
            parts = tuple(int(a) for a in axis.replace(" ", "").strip("()").split(",") if a)
        except ValueError:
            raise CallableError(f"{what}: axes {axis!r} are not like 1 or 1,2") from None
        axis = parts
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return (int(axis),)
    if (
        isinstance(axis, (tuple, list))
        and axis
        and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in axis)
    ):
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
        raise CallableError(
            f"{where}: {name!r} is not how {side} moves; one of {', '.join(kinds)}{suggest(name, kinds)}"
        )
    kind = Motion(name)
    if axes and not kind.takes_axes:
        raise CallableError(f"{where}: {name} takes no axes (only points and pairs do), got {text!r}")
    action = Action(kind, as_axes(axes, where) if axes else None)
    if kind.axis_count is not None and action.axes is not None and len(action.axes) != kind.axis_count:
        raise CallableError(f"{where}: {name} moves two axes (rows and columns), got {text!r}")
    return action


def parse_input(text, where: str = "input") -> Arg:
    """An input written as text: ``points``, ``points:1`` (its axis), ``points:6x3`` (random points of
    that shape), ``graph``, ``fixed``, ``unchanged``."""
    name, _, rest = str(text).strip().partition(":")
    if name == Motion.POINTS.value and rest and "x" in rest.lower():
        return Arg(Motion.POINTS, shape=parse_shape(rest, what=where, error=CallableError))
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
    """``Y`` as ``action`` moves it under ``p`` (axes already resolved): :meth:`Action.move`."""
    return action.move(p, Y, edge_order)


def output_array(value, where: str, label: str) -> np.ndarray:
    """One output of the code (``where`` its place, ``""`` for the only one) as a float64 array:
    numpy, torch (dense or sparse) or scipy.sparse; None or anything else is the user's error."""
    name = f"output{where}" if where else THE_OUTPUT
    if value is None:
        if not where:
            raise CallableError(
                "the output is None: the code returns nothing; return the layer's output (code that "
                "writes into its input must return it too)",
                file=label,
            )
        raise CallableError(
            f"{name} is None: describe it as ignored ({param('outputs', value='ignored')} in its "
            "place, one per output)",
            file=label,
        )
    if torch_bridge.is_tensor(value):
        value = torch_bridge.to_numpy(value)
    elif is_sparse(value):
        value = value.toarray()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as err:
        text = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise CallableError(
            f"{name} is {type(value).__name__}, not an array of numbers ({type(err).__name__}: {text})", file=label
        ) from None


def pairs_of(U: np.ndarray) -> np.ndarray:
    """``Y[i, j, c] = sin(2 u_i - u_j + 3 u_i u_j) + u_i`` for the rows ``u`` of ``U : (n, c)``: an
    order-2 value with no symmetry between ``i`` and ``j``, each entry computed elementwise from its two
    rows alone (so rows moved by ``P`` give ``P Y P^T`` exactly)."""
    s, t = U[:, None, :], U[None, :, :]
    return np.sin(2 * s - t + 3 * s * t) + s
