"""Whether a composed linear form holds the exact values of the map it stands for.

A sequence's matrix is the product of its layers' matrices, and a residual's is ``I + W``: in
float64 both round, and an exact comparison of rounded entries can call equal what differs
(``1e17 + 1 - 1e17`` is 0 in float64) or differ what is equal.  A float64 product is exact when
every entry is an integer multiple of ``2^-s`` and every partial sum, in those units, stays below
``2^53``: then each product and each sum is an integer of at most 53 bits in those units, exact
in any order of summation.  A sympy product is exact unless a float entered it (a ``Float``).
"""

from __future__ import annotations

import numpy as np

_MANTISSA = 53
_BELOW = 2.0**52  # the bound computed in float64 is itself rounded: keep a factor 2 to spare
_SMALLEST = 1074  # units of 2^-1074 are still float64 values (subnormal)


def fraction_bits(a: np.ndarray) -> int:
    """The least ``s`` with every entry of ``a`` an integer multiple of ``2^-s`` (0 for integers)."""
    a = np.asarray(a, dtype=np.float64)
    nonzero = a[a != 0]
    if nonzero.size == 0:
        return 0
    mantissa, exponent = np.frexp(nonzero)
    whole = np.abs((mantissa * 2.0**_MANTISSA).astype(np.int64))
    trailing = np.log2(whole & -whole).astype(np.int64)
    return max(0, int((_MANTISSA - exponent - trailing).max()))


def in_units(a: np.ndarray, bits: int) -> np.ndarray:
    """``|a|`` counted in units of ``2^-bits`` (exact: a power of two scales without rounding)."""
    return np.ldexp(np.abs(np.asarray(a, dtype=np.float64)), bits)


def exact_product(A: np.ndarray, B: np.ndarray) -> bool:
    """``A @ B`` computed in float64 is the exact product of the two matrices as given."""
    sa, sb = fraction_bits(A), fraction_bits(B)
    if sa + sb > _SMALLEST:
        return False
    bound = in_units(A, sa) @ in_units(B, sb)
    return bool(np.all(np.isfinite(bound)) and (bound.size == 0 or bound.max() < _BELOW))


def exact_sum(a, b) -> bool:
    """``a + b`` computed in float64 is the exact sum."""
    s = max(fraction_bits(np.atleast_1d(a)), fraction_bits(np.atleast_1d(b)))
    if s > _SMALLEST:
        return False
    total = in_units(np.atleast_1d(a), s).max(initial=0.0) + in_units(np.atleast_1d(b), s).max(initial=0.0)
    return bool(np.isfinite(total) and total < _BELOW)


def exact_entries(a) -> bool:
    """A sympy (object) array without a float in it: its arithmetic did not round."""
    import sympy

    if not (isinstance(a, np.ndarray) and a.dtype == object):
        return True
    for x in a.reshape(-1):
        if isinstance(x, (float, np.floating)) or (isinstance(x, sympy.Basic) and x.has(sympy.Float)):
            return False
    return True


def product_rounding(forms, roundings) -> float | None:
    """A bound on how far each entry of the float64 product of ``forms`` (matrices, applied first
    to last) is from the exact product, as a fraction of the product's largest entry (None: no
    bound).  Each factor is off by at most its own rounding times its largest entry; a product of
    inner size k rounds by ``gamma_k |A| |B|`` at most (``gamma_k = k u / (1 - k u)``), so
    ``fl(A2 A) - A2' A'`` is bounded by ``gamma_k |A2| |A| + |A2| E + e2 1 1^T (|A| + E)``.  The bound is
    computed in float64 and widened by 1% for its own rounding."""
    if any(r is None for r in roundings):
        return None
    W = np.asarray(forms[0][0], dtype=np.float64)
    E = np.full(W.shape, roundings[0] * float(np.abs(W).max(initial=0.0)))
    for (W2, _), r2 in zip(forms[1:], roundings[1:]):
        W2 = np.asarray(W2, dtype=np.float64)
        k = W2.shape[1]
        gamma = k * 2.0**-53 / (1 - k * 2.0**-53)
        e2 = r2 * float(np.abs(W2).max(initial=0.0))
        A2 = np.abs(W2)
        E = gamma * (A2 @ np.abs(W)) + A2 @ E + e2 * (np.abs(W) + E).sum(axis=0, keepdims=True)
        W = W2 @ W
    top = float(np.abs(W).max(initial=0.0))
    bound = float(E.max(initial=0.0)) * 1.01
    if not (np.isfinite(bound) and top > 0):
        return None
    return bound / top
