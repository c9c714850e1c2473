"""How the group acts on one traced value: a :class:`Flow`.

A tensor's flow is the tuple of its *point axes*: the axes the permutation ``P`` moves, each
by the same ``P`` (one axis for the rows of ``X``; two for attention scores, which move as
``P S P^T``); every other axis is free (channels, heads, batch).  ``()`` means the value does
not move at all (a parameter, a pooled output, a shape).  ``broken`` holds the generators for
which a side condition failed on the way: for them the value's flow is not known, and the
proof stops.  A flow of ``axes=None`` is not known for any generator (an operation without a
rule).  Graph inputs (``edge_index``, an adjacency that moves with the points) and fixed
graphs have flows of their own kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Flow:
    axes: tuple[int, ...] | None = ()
    kind: str = "tensor"          # "tensor", "graph" (moves as P A P^T / relabelled), "fixed", "edges"
    broken: frozenset = field(default_factory=frozenset)
    const: bool = False           # computed from parameters and shapes only: its value is known

    @property
    def known(self) -> bool:
        return self.axes is not None

    @property
    def moves(self) -> bool:
        return bool(self.axes)

    def with_axes(self, axes) -> Flow:
        return Flow(None if axes is None else tuple(axes), self.kind, self.broken, self.const)

    def breaking(self, generators) -> Flow:
        return Flow(self.axes, self.kind, self.broken | frozenset(generators), self.const)


UNKNOWN = Flow(None)
STATIC = Flow((), const=True)


def merge_broken(flows) -> frozenset:
    out: frozenset = frozenset()
    for f in flows:
        out |= f.broken
    return out


def normal(axis: int, ndim: int) -> int:
    return axis % ndim if ndim else 0


def broadcast(shapes: list[tuple[int, ...]], axes: list[tuple[int, ...]], out_ndim: int):
    """Operands' point axes as axes of the broadcast result (aligned from the right).

    Returns ``(result point axes, conflicts)``: ``conflicts`` lists, per operand, the result
    axes where another operand moves and this one does not although its size there is not 1
    (a parameter with a point axis: its values must be fixed by g).
    """
    moved = set()
    placed = []
    for shape, own in zip(shapes, axes):
        shift = out_ndim - len(shape)
        placed.append({a + shift for a in own})
        moved |= placed[-1]
    conflicts = []
    for shape, mine in zip(shapes, placed):
        shift = out_ndim - len(shape)
        conflicts.append(sorted(a for a in moved - mine if a - shift >= 0 and shape[a - shift] != 1))
    return tuple(sorted(moved)), conflicts


def reshape_axes(old: tuple[int, ...], new: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...] | None:
    """The point axes after a (row-major) reshape from ``old`` to ``new``, or None when a point
    axis does not stay whole.

    Axis ``a`` stays whole as axis ``b`` exactly when ``new[b] == old[a]`` and the axes before
    them hold as many entries (``prod(old[:a]) == prod(new[:b])``): the flat index then splits
    the same way around it.

    >>> reshape_axes((6, 4), (6, 2, 2), (0,))
    (0,)
    >>> reshape_axes((2, 6, 4), (1, 2, 6, 4), (1,))
    (2,)
    >>> reshape_axes((6, 4), (24,), (0,)) is None
    True
    """
    out = []
    for a in axes:
        before = _prod(old[:a])
        match = [b for b in range(len(new)) if new[b] == old[a] and _prod(new[:b]) == before]
        if not match:
            return None
        out.append(match[0])
    return tuple(out)


def _prod(dims) -> int:
    out = 1
    for d in dims:
        out *= int(d)
    return out
