"""How one generator moves one tensor: :class:`Moves`, the tracer's abstract value.

The proof compares two calls of the code: the call on the inputs, and the call on the inputs
moved by a generator ``g``.  A tensor ``T`` of the first call and its counterpart ``T'`` of the
second are related by a :class:`Moves`: per axis ``a`` a permutation ``q_a`` of that axis's
indices (``None``: the axis is left alone), and, for tensors whose *values* are indices (node
labels of an ``edge_index``, a batch of positions), a relabelling ``lam`` of those values::

    T'[q_0[i_0], q_1[i_1], ...] = lam[T[i_0, i_1, ...]]        (lam = identity when None)

A rotation of a square grid swaps its two axes, which no permutation of each axis does: such a
move also carries an ``order`` of the axes (axis ``k`` of ``T'`` is axis ``order[k]`` of ``T``,
permuted along itself by ``q_k``)::

    T'[q_0[i_order[0]], q_1[i_order[1]], ...] = T[i_0, i_1, ...]

Only the rules of :mod:`gdlcheck.code.prover.rules.grid` see such moves (the walker hands a move with
an order to no other rule); ``order`` is None on the common path, where every axis stays put.

The points axis of ``X`` moves by ``g`` itself (``(P x)[g[j]] = x[j]``, docs/design.md section 1); an
``edge_index`` that moves with the points has ``lam = g``; the edges of a fixed graph move by the
edge permutation ``g`` induces; the rows of ``cat([cls, x])`` by ``g`` shifted past the row.
A constant (a parameter, a buffer, a value computed from them) is the same in both calls, so it
is related by the empty :class:`Moves`, and by any other that it happens to satisfy
(``P E = E``): the rules check such conditions on the constant's values.

>>> import numpy as np
>>> g = np.array([1, 2, 0])
>>> x = np.array([10., 20., 30.])
>>> moved = np.empty_like(x); moved[g] = x          # P x: the entry at j moves to g[j]
>>> bool((moved[g] == x).all())                      # T'[q[i]] = T[i] with q = g
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gdlcheck.groups.perm import match

Perm = "np.ndarray | None"


class Unordered:
    """An axis permuted in an order the proof does not know: the rows a selection keeps when what
    it keeps depends on the moving values (a bool mask of them, ``nonzero``).  The rows of the
    moved call are the same rows in some order that only those values decide, so only an
    operation blind to the order along the axis (a sum, a mean, a maximum, a norm, a scatter into
    nodes) accepts it; a selection, a slice, an index or a broadcast against it stops the proof.
    Two such axes are the same permutation only when they are one object (one selection).
    It has no length and no entries: every rule that reads a permutation's entries fails on it,
    and a rule's failure stops the proof at its operation."""

    __slots__ = ("what",)

    def __init__(self, what: str):
        self.what = what

    def __repr__(self) -> str:
        return f"Unordered({self.what!r})"

    def _unknown(self, *args):
        raise TypeError(f"an axis in an order not known ({self.what})")

    __getitem__ = __len__ = __iter__ = __array__ = __add__ = __radd__ = _unknown


def known(p):
    """``p`` itself when its entries are known (a permutation or None); an :class:`Unordered`
    axis raises (a rule that needs the entries does not apply)."""
    if isinstance(p, Unordered):
        p._unknown()
    return p


@dataclass(frozen=True, eq=False)
class Moves:
    """Per axis the permutation of its indices (None: left alone), and the relabelling of the
    values (None: the values are not labels, or are left alone).  ``uniform`` names axes whose
    entries are all equal (``repeat`` of a size-1 axis): every permutation keeps such an axis.  A
    rule that makes new moves drops it, which only forgets what is known."""

    axes: tuple
    labels: np.ndarray | None = None
    uniform: frozenset = frozenset()  # axes along which every entry is the same (a size-1 axis repeated)
    order: tuple | None = None  # axis k of the moved tensor is axis order[k] (None: each stays)

    @property
    def still(self) -> bool:
        """Nothing moves: the tensor is the same in both calls."""
        return self.labels is None and self.order is None and all(p is None for p in self.axes)


def turned(m) -> bool:
    """The move swaps axes (it has an order other than each axis in its place)."""
    return isinstance(m, Moves) and m.order is not None


def order_of(m, ndim: int) -> tuple:
    """The order of a move's axes (each in its place when it has none)."""
    return tuple(range(ndim)) if m is None or m.order is None else tuple(m.order)


def with_order(axes, order, labels=None) -> Moves:
    """A move with its axes in ``order``; the common per-axis move when the order keeps every axis."""
    order = tuple(int(o) for o in order)
    if sorted(order) != list(range(len(axes))):
        raise ValueError(f"not an order of {len(axes)} axes: {order}")
    axes = tuple(None if p is None or is_identity(p) else p for p in axes)
    return Moves(axes, labels, order=None if order == tuple(range(len(axes))) else order)


def still(ndim: int) -> Moves:
    return Moves((None,) * ndim)


def axes_or_still(m, ndim: int) -> tuple:
    """The axis permutations of a tensor's moves (all None for a constant)."""
    return (None,) * ndim if m is None else m.axes


def is_identity(p) -> bool:
    if isinstance(p, Unordered):
        return False
    return p is None or bool((p == np.arange(len(p))).all())


def same(p, q) -> bool:
    """Two axis permutations are the same (None is the identity)."""
    if p is q:
        return True
    if isinstance(p, Unordered) or isinstance(q, Unordered):
        return False  # not the same object (above): two orders not known are not known to agree
    if p is None:
        return is_identity(q)
    if q is None:
        return is_identity(p)
    return len(p) == len(q) and bool((p == q).all())


def moving(p) -> bool:
    return p is not None and not is_identity(p)


def inverse(p: np.ndarray) -> np.ndarray:
    known(p)
    out = np.empty_like(p)
    out[p] = np.arange(len(p))
    return out


def restrict(p, index: np.ndarray):
    """The permutation ``r`` of the positions of ``index`` (a list of indices of an axis moved by
    ``p``) with ``index[r[k]] = p[index[k]]``, or ``False`` when ``p`` does not map the chosen
    indices onto themselves.  Repeated indices are matched in their order.

    >>> restrict(np.array([1, 2, 0, 3]), np.array([3, 0, 1, 2]))
    array([0, 2, 3, 1])
    >>> restrict(np.array([1, 0, 2]), np.array([0, 2]))
    False
    """
    index = np.asarray(index, dtype=np.int64).ravel()
    if known(p) is None:
        return None
    r = match(index, p[index])
    return False if r is None else r


def concat(parts: list, sizes: list[int]):
    """The permutation of an axis made by concatenating blocks, each moved by its own permutation."""
    if all(known(p) is None for p in parts):
        return None
    out, start = [], 0
    for p, size in zip(parts, sizes):
        out.append(np.arange(start, start + size) if p is None else start + p)
        start += size
    return np.concatenate(out) if out else None


def product(perms: list, sizes: list[int]):
    """The permutation of the flattened (row-major) axes, each moved by its own permutation."""
    if all(known(p) is None for p in perms):
        return None
    grids = np.meshgrid(*[np.arange(s) if p is None else p for p, s in zip(perms, sizes)], indexing="ij")
    return np.ravel_multi_index(tuple(g.ravel() for g in grids), tuple(sizes)).astype(np.int64)


def factor(p, sizes: list[int]):
    """The permutations of the axes ``sizes`` that flatten (row-major) into ``p``, or False when
    ``p`` is not such a product (a reshape then splits a moving axis)."""
    if known(p) is None:
        return [None] * len(sizes)
    total = int(np.prod(sizes)) if sizes else 1
    if len(p) != total:
        return False
    coords = np.unravel_index(p, tuple(sizes))
    out = []
    strides = np.cumprod((1,) + tuple(sizes[::-1]))[::-1][1:]
    for a, size in enumerate(sizes):
        # the image of index i of axis a, read at the flat index with i there and 0 elsewhere
        probe = coords[a][np.arange(size) * strides[a]]
        out.append(None if is_identity(probe) else probe.astype(np.int64))
    if not np.array_equal(product(out, sizes) if any(q is not None for q in out) else np.arange(total), p):
        return False
    return out


def turn(p, sizes: list[int]):
    """A permutation ``p`` of a grid's points (flattened row-major over axes of ``sizes``) as an
    order of the axes and a permutation along each: ``(order, perms)`` with
    ``image_k = perms[k][coords_order[k]]`` for every point, or None (``p`` is no such map).
    A rotation of a square grid swaps its axes: ``(a, b) -> (b, -a)`` is the order ``(1, 0)``, the
    identity along the new axis 0 and ``a -> -a`` along axis 1.

    >>> a, b = np.divmod(np.arange(9), 3)
    >>> o, q = turn(b * 3 + (-a) % 3, [3, 3])          # (a, b) -> (b, -a mod 3) on a 3 x 3 grid
    >>> o, [x.tolist() for x in q]
    ((1, 0), [[0, 1, 2], [0, 2, 1]])
    """
    import itertools

    p = np.asarray(known(p), dtype=np.int64)
    total = int(np.prod(sizes)) if sizes else 1
    if len(p) != total:
        return None
    coords = np.unravel_index(np.arange(total), tuple(sizes))
    image = np.unravel_index(p, tuple(sizes))
    for order in itertools.permutations(range(len(sizes))):
        if any(sizes[k] != sizes[o] for k, o in enumerate(order)):
            continue
        perms = []
        for k, o in enumerate(order):
            q = np.full(sizes[k], -1, dtype=np.int64)
            q[coords[o]] = image[k]
            if not np.array_equal(q[coords[o]], image[k]) or not np.array_equal(np.sort(q), np.arange(sizes[k])):
                break
            perms.append(q)
        else:
            return tuple(order), perms
    return None


class Wrapped(Unordered):
    """An axis padded circularly (``F.pad(mode="circular")``) from an axis that ``base`` moves: entry
    ``i`` of the axis (length ``left + period + right``) is entry ``(i - left) mod period`` of a base
    axis, and the base moves by ``base`` (``B'[base[j]] = B[j]``).  It is no permutation of its own
    entries (the pads copy different entries in the two calls), so the walk hands it only to the
    rules that read it (marked ``wrapped``: the convolution); every other rule, the writes and the
    output's check stop where they meet it.  Outside the rules it is an axis in an order not known."""

    __slots__ = ("base", "period", "left", "right")

    def __init__(self, base: np.ndarray, period: int, left: int, right: int):
        super().__init__("an axis padded circularly")
        self.base, self.period, self.left, self.right = base, period, left, right

    def __repr__(self) -> str:
        return f"Wrapped(period={self.period}, left={self.left}, right={self.right})"


def wrapped(moves) -> bool:
    """A tensor argument's moves (a :class:`Moves`, None, or a list of them) hold an axis padded circularly."""
    if isinstance(moves, (list, tuple)):
        return any(wrapped(m) for m in moves)
    return isinstance(moves, Moves) and any(isinstance(p, Wrapped) for p in moves.axes)
