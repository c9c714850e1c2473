"""``project``: the nearest equivariant matrix, by orbit averages; ``Projected``, what
:func:`gdlcheck.project` returns (its JSON and report through :mod:`gdlcheck.shown`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gdlcheck.derivation.basis import derive
from gdlcheck.errors import GroupError
from gdlcheck.groups import PermGroup
from gdlcheck.scale import exponent, frobenius_ratio, scaled
from gdlcheck.shown import Shown, presenter_of


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
        return presenter_of(self).figure(self)

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
    d = derive(group)
    labels = d.pattern.ravel()
    # Scale-free: the orbit sums and the norms are taken of W scaled by a power of two
    # (exact), so neither 1e308 (sums overflow) nor 1e-320 (squares underflow) goes wrong.
    e = exponent(W)
    flat = scaled(W, e).ravel()
    sums = np.bincount(labels, weights=flat, minlength=d.dimension)
    counts = np.bincount(labels, minlength=d.dimension)
    means = sums / counts
    # An orbit whose entries are all equal keeps that value bit for bit (a float mean can
    # move the last bit), so projecting an equivariant matrix returns it unchanged; every
    # other mean stays within its orbit's range (so scaling back cannot overflow).
    low = np.full(d.dimension, np.inf)
    high = np.full(d.dimension, -np.inf)
    np.minimum.at(low, labels, flat)
    np.maximum.at(high, labels, flat)
    means = np.where(low == high, low, np.clip(means, low, high))
    Ps = means[labels].reshape(W.shape)
    Ws = flat.reshape(W.shape)
    dist = frobenius_ratio(Ws - Ps, Ws)
    # entries equal to W's (equal orbits) come back bit for bit; W itself where nothing moved
    P = np.where(Ps == Ws, W, np.ldexp(Ps, e))
    return P, dist
