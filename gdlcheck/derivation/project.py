"""``project``: the nearest equivariant matrix, by orbit averages."""

from __future__ import annotations

import numpy as np

from gdlcheck.derivation.basis import derive
from gdlcheck.errors import GroupError
from gdlcheck.groups import PermGroup


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
    flat = W.ravel()
    sums = np.bincount(labels, weights=flat, minlength=d.dimension)
    counts = np.bincount(labels, minlength=d.dimension)
    means = sums / counts
    # An orbit whose entries are all equal keeps that value bit for bit (a float mean can
    # move the last bit), so projecting an equivariant matrix returns it unchanged.
    low = np.full(d.dimension, np.inf)
    high = np.full(d.dimension, -np.inf)
    np.minimum.at(low, labels, flat)
    np.maximum.at(high, labels, flat)
    means = np.where(low == high, low, means)
    P = means[labels].reshape(W.shape)
    norm = float(np.linalg.norm(W))
    dist = float(np.linalg.norm(W - P)) / norm if norm > 0 else 0.0
    return P, dist
