"""``project``: the nearest equivariant matrix, by orbit averages; ``Projected``, what
:func:`gdlcheck.project` returns (its JSON and report through :mod:`gdlcheck.shown`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.derivation.basis import derive
from gdlcheck.errors import GroupError
from gdlcheck.groups import PermGroup
from gdlcheck.scale import exponent, frobenius_ratio, scaled
from gdlcheck.shown import Shown, figure_of, presenter_of


@dataclass(repr=False)
class Projected(Shown):
    """The nearest equivariant matrix ``matrix`` (orbit averages), the relative Frobenius
    distance ``|W - P| / |W|`` of the input to it, and the group."""

    matrix: np.ndarray
    distance: float
    group: PermGroup
    # the matrix projected and its name, for plot()
    _input: np.ndarray | None = field(default=None, compare=False)
    _label: str = field(default="<matrix>", compare=False)

    def plot(self):
        """The ``project --plot`` picture: the input, its projection and ``|W - P|``, as a
        matplotlib ``Figure`` (``.savefig(path)`` writes it)."""
        return figure_of(self)

    def to_json(self, input: str = "<matrix>") -> dict:
        """The ``project --format json`` object (``input``: the matrix's name)."""
        return presenter_of(self).json(self, input)

    def __repr__(self) -> str:
        n = self.matrix.shape[0]
        return f"<Projected {n} x {n} onto {self.group.describe()}: relative distance {self.distance:.3g}>"


def project(W: np.ndarray, group: PermGroup) -> tuple[np.ndarray, float]:
    """The nearest equivariant matrix and the relative Frobenius distance ``|W - P| / |W|``.

    Replacing every entry by the mean of its orbit is the orthogonal projection onto the
    equivariant matrices (the orbit indicators are an orthogonal basis of that space).

    Parameters
    ----------
    W : (n, n) numbers.
    """
    W = np.asarray(W, dtype=float)
    if W.shape != (group.n, group.n):
        raise GroupError(f"matrix is {'x'.join(map(str, W.shape))} but the group acts on n = {group.n} points")
    labels, counts = _orbits(group)
    dimension = counts.size
    # Scale-free: the orbit sums and the norms are taken of W scaled by a power of two
    # (exact), so neither 1e308 (sums overflow) nor 1e-320 (squares underflow) goes wrong.
    e = exponent(W)
    flat = (scaled(W, e) if e else W).ravel()
    sums = np.bincount(labels, weights=flat, minlength=dimension)
    means = sums / counts
    Ps = means[labels]
    D = flat - Ps
    # A float mean can leave its orbit's range by the last bit: an orbit whose entries are
    # all equal must keep that value bit for bit (so projecting an equivariant matrix
    # returns it unchanged), and no mean may pass its orbit's extremes (so scaling back
    # cannot overflow). The signs of W - P summed per orbit find both in one pass: the mean
    # is below every entry (sum = count) or above every entry (sum = -count).
    signs = np.sign(D)
    tilt = np.bincount(labels, weights=signs, minlength=dimension)
    outside = np.flatnonzero((np.abs(tilt) == counts) & (counts > 0))
    if outside.size:
        means[outside] = _extremes(labels, flat, outside, tilt[outside] > 0, dimension)
        Ps = means[labels]
        np.subtract(flat, Ps, out=D)
        np.sign(D, out=signs)
    dist = _distance(D, flat)
    # entries equal to W's (equal orbits, sign 0) come back bit for bit; W itself where
    # nothing moved
    P = (scaled(Ps, -e, out=Ps) if e else Ps).reshape(W.shape)
    np.copyto(P, W, where=(signs == 0).reshape(W.shape))
    return P, dist


# the orbit labels of the last few groups projected onto, up to this many cells each (8 MiB as
# intp): a checkpoint scan projects many tensors of one size, and building the labels is an
# eighth of a projection at n = 256
CACHED_CELLS = 1 << 20
_ORBITS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _orbits(group: PermGroup) -> tuple[np.ndarray, np.ndarray]:
    """The orbit of each cell of the n x n matrix (row-major, as ``intp``: bincount and indexing
    would cast int32 labels on every call) and the size of each orbit, for ``group``'s generators."""
    key = (
        group.name,
        group.n,
        None if group.shape is None else tuple(group.shape),
        group.family is not None,
        b"".join(np.asarray(g, dtype=np.int64).tobytes() for g in group.gen_arrays()),
    )
    if key in _ORBITS:
        return _ORBITS[key]
    d = derive(group)
    labels = d.pattern.ravel().astype(np.intp)
    found = labels, np.bincount(labels, minlength=d.dimension)
    if labels.size <= CACHED_CELLS:
        if len(_ORBITS) >= 2:
            _ORBITS.pop(next(iter(_ORBITS)))
        for array in found:
            array.flags.writeable = False  # shared by later calls
        _ORBITS[key] = found
    return found


def _distance(D: np.ndarray, flat: np.ndarray) -> float:
    """``|D| / |flat|`` for ``flat`` scaled into ``[0.5, 1)`` (its sum of squares cannot overflow or
    underflow): each sum of squares taken once, where ``D``'s is far from the subnormals; else
    both scaled by their own powers of two (:func:`~gdlcheck.scale.frobenius_ratio`)."""
    squares = float(np.einsum("i,i->", D, D))
    if squares >= _SAFE_SQUARES:  # squares lost to underflow weigh under 2^-90 of the sum: none
        return math.sqrt(squares) / math.sqrt(float(np.einsum("i,i->", flat, flat)))
    return frobenius_ratio(D, flat)


# a sum of squares past this is exact to rounding even where some squares underflowed (each under
# 2^-1022, at most 2^52 of them: 2^-970 in all)
_SAFE_SQUARES = math.ldexp(1.0, -880)


def _extremes(
    labels: np.ndarray, flat: np.ndarray, orbits: np.ndarray, lowest: np.ndarray, dimension: int
) -> np.ndarray:
    """The least entry of each orbit in ``orbits`` where ``lowest``, else its greatest (by one
    sort of those orbits' entries and ``reduceat``, the few orbits a mean left)."""
    # most such orbits hold one value (a float mean of equal values can miss it): any member is
    # then the extreme, with no sort
    member = np.zeros(dimension)
    member[labels] = flat  # some entry of each orbit
    differs = np.bincount(labels, weights=flat != member[labels], minlength=dimension)
    out = member[orbits]
    mixed = differs[orbits] > 0
    if mixed.any():
        out[mixed] = _sorted_extremes(labels, flat, orbits[mixed], lowest[mixed], dimension)
    return out


def _sorted_extremes(
    labels: np.ndarray, flat: np.ndarray, orbits: np.ndarray, lowest: np.ndarray, dimension: int
) -> np.ndarray:
    """:func:`_extremes` of orbits with different entries, by one sort of their entries."""
    wanted = np.zeros(dimension, dtype=bool)
    wanted[orbits] = True
    members = np.flatnonzero(wanted[labels])
    members = members[np.argsort(labels[members], kind="stable")]
    values = flat[members]
    # one start per orbit, in increasing order as np.flatnonzero gave ``orbits``
    starts = np.flatnonzero(np.r_[True, np.diff(labels[members]) != 0])
    return np.where(lowest, np.minimum.reduceat(values, starts), np.maximum.reduceat(values, starts))
