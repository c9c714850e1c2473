"""Scale-free arithmetic: arrays are scaled by an exact power of two before they are summed,
squared, subtracted or divided, so results are right for any finite input, from the smallest
subnormal (5e-324) to the largest float64 (1.8e308).

Multiplying a float64 by a power of two is exact (unless the result leaves the normal range),
so scaling by ``2^-e`` and back changes no bit of a result in the normal range, and keeps
sums of squares, differences and means away from overflow and from the subnormal range
where float64 loses precision.

>>> import numpy as np
>>> W = np.array([[1e308, 1.7e308], [1.6e308, 1e308]])
>>> e = exponent(W)
>>> float(np.max(np.abs(scaled(W, e)))) <= 1.0
True
>>> frobenius_ratio(W - W[::-1, ::-1], W) > 0
True
"""

from __future__ import annotations

import math

import numpy as np

# The spacing of float64's subnormal numbers: the smallest positive float64, 2^-1074.
SUBNORMAL_STEP = math.ldexp(1.0, -1074)


def exponent(*arrays) -> int:
    """``e`` with ``max|a| < 2^e <= 2 max|a|`` over all the arrays (0 when they are all zero)."""
    top = 0.0
    for a in arrays:
        if a is None:
            continue
        a = np.asarray(a, dtype=np.float64)
        if a.size:
            # the two extremes rather than max(abs(a)): no temporary the size of a
            top = max(top, float(a.max()), -float(a.min()))
    return math.frexp(top)[1] if top > 0 else 0


def scaled(a, e: int, out: np.ndarray | None = None) -> np.ndarray:
    """``a * 2^-e``, exactly (float64); into ``out`` when given (it may be ``a``)."""
    a = np.asarray(a, dtype=np.float64)
    if abs(e) <= 1022:
        # a product by a normal power of two is exact, and numpy's multiply is several
        # times faster than its ldexp
        return np.multiply(a, math.ldexp(1.0, -e), out=out)
    return np.ldexp(a, -e, out=out)


def unscaled(x: float, e: int) -> float | None:
    """``x * 2^e`` as a float, or None where it is past float64's range."""
    try:
        value = math.ldexp(float(x), e)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def norm(a) -> float:
    """The Frobenius norm of ``a`` (no overflow care: see :func:`frobenius_ratio`), summed by
    numpy's own loop: ``np.linalg.norm`` calls BLAS, whose threads cost more than the sum
    on a small or busy machine."""
    a = np.asarray(a, dtype=np.float64).ravel()
    return math.sqrt(float(np.einsum("i,i->", a, a)))


def frobenius_ratio(a, b) -> float:
    """``|a|_F / |b|_F``, each norm computed on its array scaled by its own power of two.

    Right for any finite arrays (no overflow in the squares, no precision lost to
    subnormals); 0 when ``a`` is zero, inf when only ``b`` is.
    """
    ea, eb = exponent(a), exponent(b)
    na = norm(scaled(a, ea) if ea else a)
    if na == 0:
        return 0.0
    nb = norm(scaled(b, eb) if eb else b)
    if nb == 0:
        return math.inf
    ratio = unscaled(na / nb, ea - eb)
    return math.inf if ratio is None else ratio
