"""Constants that act on the points: which law a product checks on a stored matrix.

``M @ x`` with ``x`` moving by ``P`` along the contracted axis and ``M`` a constant gives the
moved call ``M P x``.  Two laws make that a moved result:

* ``M P = M`` (``P E = E`` along the contracted axis): every column the permutation exchanges is
  the same, and the product does not move;
* ``P M P^T = M``: ``M`` is an operator on the points the group keeps (a circulant under shifts,
  a graph's normalised adjacency under its automorphisms, ``alpha I + beta 11^T`` under every
  permutation), and the product moves on ``M``'s other axis as ``x`` did: ``M P x = P M x``.

The first is tried first (it says more: the result does not move); a constant that keeps neither
is reported by the operator law when its other axis can carry the points, since that is the law
a user fixing such a matrix needs.  Both read the constant's values only (never a moving one's).

The other axis need not have the contracted axis's length: an ``einsum`` over points and channels
flattens ``(channel, point)`` on one side and ``(point, channel)`` on the other.  Then the points'
own permutation is read off the contracted one (it moves whole blocks, or the same within each
block, or the same on each index of a flattened order-k tensor: a map from pairs to points) and laid
on the other axis both ways.  Whichever candidate the constant keeps is checked
again by the walker and written in the proof; a wrong candidate only fails to prove.
"""

from __future__ import annotations

from gdlcheck.code.prover import conditions as cond
from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.table import Fixed


def law(t, axis: int, p, other: int | None):
    """The condition on constant ``t`` contracted along ``axis`` with a tensor moved by ``p``, and
    the permutation of its ``other`` axis in the product (None: it does not move)."""
    rows = Fixed(t, {axis: p})
    if (
        other is None
        or t.shape[other] == 1
        or isinstance(p, mv.Unordered)
        or t.device.type == "meta"
        or len(p) != t.shape[axis]
    ):
        return rows, None
    if cond.first_moved(t, {axis: p}) is None:
        return rows, None
    candidates = images(p, t.shape[other])
    for q in candidates:
        if cond.first_moved(t, _axes(other, q, axis, p)) is None:
            return Fixed(t, _axes(other, q, axis, p), "constant_pairs"), q
    if not candidates:
        return rows, None
    return Fixed(t, _axes(other, candidates[0], axis, p), "constant_pairs"), candidates[0]


def _axes(a, p, b, q) -> dict:
    return dict(sorted({a: p, b: q}.items()))


def images(p, size: int) -> list:
    """The permutations of an axis of ``size`` entries that could carry the points ``p`` moves:
    ``p`` itself when the sizes agree, then the points' permutation found inside ``p`` laid on
    ``size`` as (point, block) and as (block, point)."""
    out = [p] if len(p) == size else []
    for g in _points_in(p):
        n = len(g)
        if size == n:
            out.append(g)
        elif size % n == 0:
            r = size // n
            out += [mv.product([g, None], [n, r]), mv.product([None, g], [r, n])]
    unique: list = []
    for q in out:
        if not any(mv.same(q, u) for u in unique):
            unique.append(q)
    return unique


def _points_in(p) -> list:
    """Permutations ``g`` with ``p`` = ``g`` on whole blocks, or ``g`` inside each block, for the
    ways ``len(p)`` splits in two; or ``g`` on each index when ``p`` moves ``n^k`` flattened entries."""
    total = len(p)
    found = []
    for r in range(2, total):
        if total % r:
            continue
        for sizes, at in (([total // r, r], 0), ([r, total // r], 1)):
            parts = mv.factor(p, sizes)
            if parts is not False and parts[1 - at] is None and parts[at] is not None:
                found.append(parts[at])
    for k in (2, 3, 4):  # an order-k tensor flattened: the same permutation on each of its k indices
        n = round(total ** (1 / k))
        if n < 2 or n**k != total:
            continue
        each = mv.factor(p, [n] * k)
        if each is not False and each[0] is not None and all(mv.same(each[0], q) for q in each[1:]):
            found.append(each[0])
    return found
