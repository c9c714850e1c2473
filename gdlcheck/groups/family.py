"""What a catalogue family is: its record (``Family``) and what its generators are (``Role``).

A ``Family`` says everything gdlcheck knows about a family of groups (DESIGN.md section 2):
its name and aliases, how it is sized, how to build its generators (each with its
``Role``), its order where a formula gives it, and the sentences ``derive --explain`` writes
for its generators and its form.  The records themselves, one per family, are the
catalogue's (:mod:`gdlcheck.groups.catalogue`); a ``PermGroup`` points to its record, so
the record sits below the group and the registry above both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gdlcheck.groups.perm import Perm


@dataclass(frozen=True)
class Role:
    """What a generator is, for prose and for closed forms: ``kind`` and, for a grid, its axis.

    Kinds: ``shift`` (``j -> j+1 mod n``), ``reflection`` (``j -> -j mod n``), ``transposition``,
    ``3-cycle``, ``cycle`` (a long cycle that fixes point 0), ``translation`` (along
    ``axis``), ``rotation`` and ``grid-reflection`` (of a square grid), ``generator``
    (nothing known).
    """

    kind: str
    axis: int | None = None


UNKNOWN = Role("generator")

# a family's generators, each with what it is
Gens = tuple[tuple[Perm, Role], ...]

# --------------------------------------------------------------------------- the sentences of --explain
#
# Per role, the constraint one generator s imposes, for a matrix W[i, j] and for a tensor
# T[slots]; gdlcheck.output.explain fills in the fields: {slots} "i, j", {shifted} "i+1, j+1",
# {negated} "-i, -j", {axis} and {size} of a translation, {moved} and {fixed} point lists,
# {lhs}/{rhs} the grid points, {N} the grid side, {a} {b} the swapped points, {cycle} a 3-cycle.

SHIFT = ("W[i+1, j+1] = W[i, j] (indices mod n): moving both indices down by one changes nothing, so W is "
         "constant on cyclic diagonals, W[i, j] depends only on (i - j) mod n.",
         "T[{shifted}] = T[{slots}] (indices mod n): the entry depends only on the index differences.")
REFLECTION = ("W[-i, -j] = W[i, j] (mod n): the diagonal of offset k and the one of offset n - k carry the same "
              "value.",
              "T[{negated}] = T[{slots}] (mod n).")
TRANSPOSITION = ("W[{a}, {a}] = W[{b}, {b}], W[{a}, {b}] = W[{b}, {a}], and W[{a}, k] = W[{b}, k], W[k, {a}] = "
                 "W[k, {b}] for every other k: points {a} and {b} are interchangeable.",
                 "swapping {a} and {b} in every index leaves T unchanged: points {a} and {b} are interchangeable.")
THREE_CYCLE = ("W is unchanged when the points {cycle} are rotated in every index at once.",
               "T is unchanged when the points {cycle} are rotated in every index at once.")
CYCLE = ("W[s(i), s(j)] = W[i, j] for the cycle {cycle}, which fixes point 0: W is constant along the cycles of s "
         "acting on the pairs (i, j).",
         "T[{moved_slots}] = T[{slots}] for the cycle {cycle}, which fixes point 0.")
TRANSLATION = ("{T}[{lhs}] = {T}[{rhs}] (mod {size}): shifting every point one step along axis {axis} changes "
               "nothing, so the entry depends only on the offsets along that axis.",) * 2
ROTATION = ("{T}[{lhs}] = {T}[{rhs}] (mod {N}): rotating every point by 90 degrees about the origin changes "
            "nothing.",) * 2
GRID_REFLECTION = ("{T}[{lhs}] = {T}[{rhs}] (mod {N}): reflecting every point in the axis b = 0 changes "
                   "nothing.",) * 2
GENERATOR = ("W[s(i), s(j)] = W[i, j]: W is constant along the cycles of s acting on the pairs (i, j).",
             "T[{moved_slots}] = T[{slots}]: T is constant along the cycles of s on index tuples.")

# Sentences by role kind; a family may override them in its record.
SENTENCES = {"shift": SHIFT, "reflection": REFLECTION, "transposition": TRANSPOSITION, "3-cycle": THREE_CYCLE,
             "cycle": CYCLE, "translation": TRANSLATION, "rotation": ROTATION, "grid-reflection": GRID_REFLECTION,
             "generator": GENERATOR}


@dataclass(frozen=True)
class Family:
    """One family of the catalogue.

    ``size`` is how it is sized: ``n`` (points), ``shape`` (a grid of any shape), ``square``
    (an N x N grid), ``graph`` or ``generators``.  ``build`` maps the size (``n``, or the shape
    tuple) to the generators with their roles; ``order`` gives the order where its formula
    holds (None elsewhere: it is then computed); ``factorial_over`` is ``d`` when the order is
    ``n!/d`` (printed approximately past 25 points, estimated before it is computed);
    ``conclusion`` is ``--explain``'s last step for order 1 -> 1.
    """

    name: str
    aliases: tuple[str, ...]
    size: str
    needs: str              # the catalogue listing's columns
    generators: str
    order_text: str
    build: Callable[..., Gens] | None = None
    order: Callable[..., int | None] | None = None
    factorial_over: int | None = None
    conclusion: str | None = None
    sentences: dict[str, tuple[str, str]] = field(default_factory=dict)

    def sentence(self, role: Role) -> tuple[str, str]:
        """The (matrix, tensor) templates ``--explain`` writes for a generator of this role."""
        return self.sentences.get(role.kind) or SENTENCES.get(role.kind) or GENERATOR
