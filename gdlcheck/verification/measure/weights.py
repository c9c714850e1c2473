"""Measuring linear layers: ``W[s[i], s[j]]`` against ``W[i, j]`` for every generator ``s``.

For layers that say they are linear (``Y = W X + b``); ``W[i, s[j]]`` for an invariant
output, and ``b[s[i]]`` against ``b[i]``.  Numbers are compared as given, exactly or within
the scale of the largest entry; sympy expressions structurally first, then by
simplification under one budget for the whole check.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.groups import PermGroup
from gdlcheck.layers.base import exact_array
from gdlcheck.scale import exponent, scaled, unscaled
from gdlcheck.verdicts import Method
from gdlcheck.verification.result import Residual, WeightWitness, generator_name
from gdlcheck.verification.symbolic import Budget, equal_exactly


def weight_residuals(
    W: np.ndarray, b, group: PermGroup, expect: str, witness_tol: float
) -> tuple[list[Residual], list]:
    """Compare the weights with their images under each generator.

    A numeric witness is the first pair in row-major order that deviates by more than
    ``witness_tol`` times the largest entry, else the largest deviation (docs/design.md section 5: a
    failure names the first differing pair); where another pair deviates more than ten times as
    much, the witness carries it as ``largest`` (a trained layer's first pair over the tolerance
    may be off by rounding where another is off by a real drift).  Returns the residuals and,
    for symbolic weights, the differences ``left - right`` that are not zero (to solve for the symbols).
    """
    if W.shape[1] != group.n or (expect != "invariant" and W.shape[0] != group.n):
        if expect != "invariant" and W.shape[1] == group.n:
            raise SpecError(
                f"the layer's output has {W.shape[0]} row(s), not n = {group.n}: a pooled output is "
                "invariant; use expect: invariant",
                where="expect",
            )
        raise SpecError(f"the layer acts on {W.shape[1]} points but the group on n = {group.n}")
    symbolic = W.dtype == object or (isinstance(b, np.ndarray) and b.dtype == object) or hasattr(b, "free_symbols")
    residuals, equations = [], []
    budget = Budget()  # one budget for the whole check: every generator and every pair of entries
    for s in group.gen_arrays():
        if symbolic:
            residual, eqs = _symbolic_weights(W, b, s, expect, budget)
            equations.extend(eqs)
        else:
            residual = _numeric_weights(W, b, s, expect, witness_tol)
        residuals.append(residual)
    return residuals, equations


def _image(W: np.ndarray, s: np.ndarray, expect: str) -> np.ndarray:
    """``W[s[i], s[j]]`` for equivariance, ``W[i, s[j]]`` for invariance."""
    return W[:, s] if expect == "invariant" else W[np.ix_(s, s)]


def _image_index(s, i, j, expect) -> tuple[int, int]:
    return (int(i), int(s[j])) if expect == "invariant" else (int(s[i]), int(s[j]))


def _numeric_weights(W, b, s, expect, witness_tol) -> Residual:
    image = _image(W, s, expect)
    bvec = np.asarray(b, dtype=np.float64) if b is not None and expect != "invariant" and np.ndim(b) == 1 else None
    # The common case, an exact pass, costs one gather and one comparison (the numpy floor).
    if np.array_equal(image, W) and (bvec is None or np.array_equal(bvec[s], bvec)):
        return Residual(generator_name(s), Method.EXACT, max_abs_error=0.0, relative_error=0.0, exact=True)
    # Differences and the scale are taken of the weights scaled by a power of two (exact):
    # 1.7e308 - (-1.7e308) would overflow, 1e-320 would lose its digits.
    e = exponent(W, bvec)
    Ws, image_s = scaled(W, e), scaled(image, e)
    diff = np.abs(image_s - Ws)
    dev = float(diff.max()) if diff.size else 0.0
    scale = float(np.max(np.abs(Ws))) if Ws.size else 0.0
    witness = None
    worst = dev
    if dev > 0:
        beyond = diff > witness_tol * scale
        first = int(np.argmax(beyond)) if np.any(beyond) else int(np.argmax(diff))
        most = int(np.argmax(diff))
        # the pair that differs most is named too where the first one is small beside it (under a
        # tenth: a trained drift behind rounding), not for every matrix that is simply not equivariant
        largest = _pair(W, image, s, expect, most) if 10 * diff.flat[first] < diff.flat[most] else None
        witness = _pair(W, image, s, expect, first, largest)
    if bvec is not None:
        bs = scaled(bvec, e)
        bd = np.abs(bs[s] - bs)
        bias_dev = float(bd.max())
        if bias_dev > 0 and (witness is None or bias_dev > dev):
            k = int(np.argmax(bd))
            witness = WeightWitness((k,), (int(s[k]),), float(bvec[k]), float(bvec[s[k]]))
        scale = max(scale, float(np.max(np.abs(bs))))
        worst = max(dev, bias_dev)
    rel = worst / scale if scale > 0 else 0.0
    return Residual(
        generator_name(s),
        Method.EXACT,
        max_abs_error=unscaled(worst, e),
        relative_error=rel,
        exact=worst == 0,
        witness=witness,
    )


def _pair(W, image, s, expect, flat: int, largest: WeightWitness | None = None) -> WeightWitness:
    i, j = np.unravel_index(flat, W.shape)
    return WeightWitness((int(i), int(j)), _image_index(s, i, j, expect), float(W[i, j]), float(image[i, j]), largest)


def _symbolic_weights(W, b, s, expect, budget: Budget | None = None) -> tuple[Residual, list]:
    if isinstance(b, np.ndarray) and b.dtype != object:
        b = exact_array(b)  # a numeric bias beside symbolic weights: exact numbers, as the weights are
    if W.dtype != object:
        W = exact_array(W)  # numeric weights beside a symbolic bias: their differences are equations too
    image = _image(W, s, expect)
    differ = np.argwhere(image != W)
    pairs: list[tuple[Any, Any, tuple[int, ...]]] = [(image[i, j], W[i, j], (int(i), int(j))) for i, j in differ]
    if b is not None and expect != "invariant" and isinstance(b, np.ndarray) and b.ndim == 1:
        pairs += [(b[s[k]], b[k], (int(k),)) for k in np.argwhere(b[s] != b).ravel()]
    first_bad, undecided, equations = None, False, []
    budget = budget if budget is not None else Budget()
    for left, right, where in pairs:
        same = equal_exactly(left, right, budget)
        if same is True:
            continue
        if same is None:
            undecided = True
            continue
        equations.append(left - right)
        if first_bad is None:
            first_bad = (left, right, where)
    witness = None
    if first_bad is not None:
        left, right, where = first_bad
        image_at = _image_index(s, *where, expect) if len(where) == 2 else (int(s[where[0]]),)
        witness = WeightWitness(where, image_at, right, left)
    exact = False if first_bad is not None else (None if undecided else True)
    detail = None if exact is not None else budget.detail
    residual = Residual(generator_name(s), Method.EXACT, exact=exact, witness=witness, symbolic=True, detail=detail)
    return residual, equations
