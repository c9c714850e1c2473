"""What a catalogue family is: its record (``Family``) and what its generators are (``Role``).

A ``Family`` says everything gdlcheck knows about a family of groups (docs/design.md section 2):
its name and aliases, how it is sized, how to build its generators (each with its
``Role``), its order where a formula gives it, and the sentences ``derive --explain`` writes
for its generators and its form.  The records themselves, one per family, are the
catalogue's (:mod:`gdlcheck.groups.catalogue`); a ``PermGroup`` points to its record, so
the record sits below the group and the registry above both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from gdlcheck.errors import GroupError, param
from gdlcheck.groups.perm import Perm, cycle_string
from gdlcheck.text import shorten


@dataclass(frozen=True)
class Role:
    """What a generator is, for prose and for closed forms: ``kind`` and, for a grid, its axis.

    Kinds: ``shift`` (``j -> j+1 mod n``), ``reflection`` (``j -> -j mod n``), ``transposition``,
    ``3-cycle``, ``cycle`` (a long cycle that fixes point 0), ``translation`` (along
    ``axis``), ``rotation`` and ``grid-reflection`` (of a square grid), ``generator``
    (nothing known).  What a kind says is asked of the role (``sentence``, ``fields``,
    ``is_translation``); the kinds' sentences and fields are the tables below.
    """

    kind: str
    axis: int | None = None

    @property
    def is_translation(self) -> bool:
        """A unit shift along a grid axis (the other generators of a grid group fix the origin)."""
        return self.kind == "translation"

    def sentence(self, family: Family | None = None) -> tuple[str, str]:
        """The (matrix, tensor) templates ``--explain`` writes for a generator of this role."""
        return family.sentence(self) if family is not None else SENTENCES.get(self.kind, GENERATOR)

    def fields(self, g: Perm, shape: tuple[int, ...] | None, slots: list[str]) -> dict:
        """What this role's sentence names about generator ``g``: the swapped points, the
        cycle, the grid points (``slots`` are the index names, ``shape`` the grid's)."""
        fill = _FIELDS.get(self.kind)
        return fill(self, g, shape, slots) if fill is not None else {}


UNKNOWN = Role("generator")

# a family's generators, each with what it is
Gens = tuple[tuple[Perm, Role], ...]

# --------------------------------------------------------------------------- the sentences of --explain
#
# Per role, the constraint one generator s imposes, for a matrix W[i, j] and for a tensor
# T[slots]; gdlcheck.output.explain fills in the fields: {slots} "i, j", {shifted} "i+1, j+1",
# {negated} "-i, -j", {axis} and {size} of a translation, {moved} and {fixed} point lists,
# {lhs}/{rhs} the grid points, {N} the grid side, {a} {b} the swapped points, {cycle} a 3-cycle.

SHIFT = (
    "W[i+1, j+1] = W[i, j] (indices mod n): moving both indices down by one changes nothing, so W is "
    "constant on cyclic diagonals, W[i, j] depends only on (i - j) mod n.",
    "T[{shifted}] = T[{slots}] (indices mod n): the entry depends only on the index differences.",
)
REFLECTION = (
    "W[-i, -j] = W[i, j] (mod n): the diagonal of offset k and the one of offset n - k carry the same value.",
    "T[{negated}] = T[{slots}] (mod n).",
)
TRANSPOSITION = (
    "W[{a}, {a}] = W[{b}, {b}], W[{a}, {b}] = W[{b}, {a}], and W[{a}, k] = W[{b}, k], W[k, {a}] = "
    "W[k, {b}] for every other k: points {a} and {b} are interchangeable.",
    "swapping {a} and {b} in every index leaves T unchanged: points {a} and {b} are interchangeable.",
)
THREE_CYCLE = (
    "W is unchanged when the points {cycle} are rotated in every index at once.",
    "T is unchanged when the points {cycle} are rotated in every index at once.",
)
CYCLE = (
    "W[s(i), s(j)] = W[i, j] for the cycle {cycle}, which fixes point 0: W is constant along the cycles of s "
    "acting on the pairs (i, j).",
    "T[{moved_slots}] = T[{slots}] for the cycle {cycle}, which fixes point 0.",
)
TRANSLATION = (
    "{T}[{lhs}] = {T}[{rhs}] (mod {size}): shifting every point one step along axis {axis} changes "
    "nothing, so the entry depends only on the offsets along that axis.",
) * 2
ROTATION = (
    "{T}[{lhs}] = {T}[{rhs}] (mod {N}): rotating every point by 90 degrees about the origin changes nothing.",
) * 2
GRID_REFLECTION = ("{T}[{lhs}] = {T}[{rhs}] (mod {N}): reflecting every point in the axis b = 0 changes nothing.",) * 2
GENERATOR = (
    "W[s(i), s(j)] = W[i, j]: W is constant along the cycles of s acting on the pairs (i, j).",
    "T[{moved_slots}] = T[{slots}]: T is constant along the cycles of s on index tuples.",
)

# Sentences by role kind; a family may override them in its record.
SENTENCES = {
    "shift": SHIFT,
    "reflection": REFLECTION,
    "transposition": TRANSPOSITION,
    "3-cycle": THREE_CYCLE,
    "cycle": CYCLE,
    "translation": TRANSLATION,
    "rotation": ROTATION,
    "grid-reflection": GRID_REFLECTION,
    "generator": GENERATOR,
}


def _moved(g: Perm) -> list[int]:
    return [i for i, x in enumerate(g) if x != i]


def _swapped(role: Role, g: Perm, shape, slots) -> dict:
    a, b = _moved(g)[:2]
    return {"a": a, "b": b}


def _three_cycle(role: Role, g: Perm, shape, slots) -> dict:
    first = _moved(g)[0]
    return {"cycle": f"{first} -> {g[first]} -> {g[g[first]]} -> {first}"}


def _long_cycle(role: Role, g: Perm, shape, slots) -> dict:
    return {"cycle": shorten(cycle_string(g), 40)}


def _translated_points(role: Role, g: Perm, shape, slots) -> dict:
    """``lhs`` the grid points moved one step along the role's axis, ``rhs`` as they are."""
    letters = "abcdefgh"[: len(shape)]

    def point(x, moved):
        return (
            "(" + ", ".join(f"{p}_{x}{'+1' if q == role.axis and moved else ''}" for q, p in enumerate(letters)) + ")"
        )

    return {
        "lhs": ", ".join(point(x, True) for x in slots),
        "rhs": ", ".join(point(x, False) for x in slots),
        "size": shape[role.axis],
        "axis": role.axis,
    }


def _turned_points(role: Role, g: Perm, shape, slots) -> dict:
    """``lhs`` the grid points rotated (or reflected) about the origin, ``rhs`` as they are."""
    image = "(b_{x}, -a_{x})" if role.kind == "rotation" else "(a_{x}, -b_{x})"
    return {
        "lhs": ", ".join(image.format(x=x) for x in slots),
        "rhs": ", ".join(f"(a_{x}, b_{x})" for x in slots),
        "N": shape[0],
    }


# The fields each role kind's sentence names beyond the slots (none for the others).
_FIELDS = {
    "transposition": _swapped,
    "3-cycle": _three_cycle,
    "cycle": _long_cycle,
    "translation": _translated_points,
    "rotation": _turned_points,
    "grid-reflection": _turned_points,
}


class Sizing(Enum):
    """How a family is sized: what picks one group of it (the catalogue's "needs" column)."""

    POINTS = "n"  # n points
    SHAPE = "shape"  # a grid of any shape (H x W, or more axes)
    SQUARE = "square"  # an N x N grid
    GRAPH = "graph"  # a graph: its automorphisms
    GENERATORS = "generators"  # n and permutations

    def option(self) -> str:
        """The options that size a family of this kind, for messages."""
        return {
            Sizing.POINTS: f"{param('n', 'N')} (or the input's size)",
            Sizing.SHAPE: param("shape", "HxW"),
            Sizing.SQUARE: param("shape", "NxN"),
            Sizing.GRAPH: param("graph", "FILE"),
            Sizing.GENERATORS: f"{param('generators', 'PERM')} and {param('n', 'N')}",
        }[self]


@dataclass(frozen=True)
class Family:
    """One family of the catalogue.

    ``size`` is how it is sized (a :class:`Sizing`); what depends on it is asked of the record
    (``is_grid``, ``grid_of``, ...), never compared outside it.  ``build`` maps the size (``n``,
    or the shape tuple) to the generators with their roles; ``order`` gives the order where its
    formula holds (None elsewhere: it is then computed); ``factorial_over`` is ``d`` when the
    order is ``n!/d`` (printed approximately past 25 points, estimated before it is computed);
    ``conclusion`` is ``--explain``'s last step for order 1 -> 1; ``sample`` maps the size and a
    numpy generator to a uniformly random element (None: drawn from the generators).
    """

    name: str
    aliases: tuple[str, ...]
    size: Sizing
    needs: str  # the catalogue listing's columns
    generators: str
    order_text: str
    build: Callable[..., Gens] | None = None
    order: Callable[..., int | None] | None = None
    factorial_over: int | None = None
    conclusion: str | None = None
    sentences: dict[str, tuple[str, str]] = field(default_factory=dict)
    sample: Callable[..., np.ndarray] | None = None  # (size, rng) -> a uniformly random element

    def sentence(self, role: Role) -> tuple[str, str]:
        """The (matrix, tensor) templates ``--explain`` writes for a generator of this role."""
        return self.sentences.get(role.kind) or SENTENCES.get(role.kind) or GENERATOR

    @property
    def on_points(self) -> bool:
        """Sized by ``n`` alone: ``build(n)`` makes the group on n points."""
        return self.size is Sizing.POINTS

    @property
    def is_grid(self) -> bool:
        """Sized by a grid's shape (translations, p4, p4m)."""
        return self.size in (Sizing.SHAPE, Sizing.SQUARE)

    @property
    def of_a_graph(self) -> bool:
        """Sized by a graph: the group is the graph's automorphisms."""
        return self.size is Sizing.GRAPH

    @property
    def generated(self) -> bool:
        """Sized by ``n`` and the permutations that generate it."""
        return self.size is Sizing.GENERATORS

    def takes(self, shape: tuple[int, ...]) -> bool:
        """Whether this grid family acts on a grid of ``shape`` (p4 and p4m need a square)."""
        return self.size is Sizing.SHAPE or (self.size is Sizing.SQUARE and len(shape) == 2 and shape[0] == shape[1])

    def grid_of(self, n) -> list[int] | int:
        """The grid of ``n`` points a grid family takes when no shape is given: a line of ``n``
        points for translations, an N x N square for p4/p4m."""
        if self.size is Sizing.SHAPE:
            return n
        side = math.isqrt(n) if isinstance(n, int) and n > 0 else 0
        if side * side != n:
            raise GroupError(
                f"group {self.name!r} acts on an N x N grid, and n = {n} is not a square; give {param('shape', 'NxN')}"
            )
        return [side, side]
