"""The comparison inside every proof: the moved call's output ``f(g X)`` against the first call's
moved, ``g f(X)`` (:func:`disagreement`), read as the trials read it: the tolerance of the layer's
dtype relative to the outputs' scale, and rounding as ulps of the largest magnitude on the way."""

from __future__ import annotations

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.scale import SUBNORMAL_STEP
from gdlcheck.tolerances import DEFAULT_TOL, ROUNDING, SUBNORMAL_ULPS


def disagreement(layer, signature, g, X, first: np.ndarray, second: np.ndarray, low: bool) -> tuple | None:
    """``f(g X)`` (``second``, flat) against ``g f(X)`` (``first`` moved), where they differ past the
    tolerance of the layer's dtype (the trials' measure) and past rounding (ulps of the largest
    magnitude on the way: the inputs, the outputs, the module's parameters; float32's where an
    operation of the calls made a float below float64, ``low``, else float64's): the first
    entry that differs so, in the output's own coordinates, its two values, the largest error,
    the relative error and the magnitude; else None."""
    target = first if signature.invariant else signature.move_output(g, first)
    if target.shape != second.shape:
        return (), None, None, None, float("inf"), float("inf"), 0.0
    with np.errstate(all="ignore"):
        diff = np.abs(second - target)
        if not diff.size:
            return None
        err = float(np.max(diff))  # NaN where a difference is (max keeps it), inf where one is
        if err == 0.0:  # every entry the same (a NaN or an infinity would not leave a zero)
            return None
        if np.isfinite(err):  # every entry of both finite: their largest magnitudes without a mask
            scale = max(float(second.max()), -float(second.min()), float(target.max()), -float(target.min()))
        else:  # over the entries that differ (equal infinities leave a NaN difference, and are equal)
            same = (second == target) | (np.isnan(second) & np.isnan(target))
            if same.all():
                return None
            differ = diff[~same]
            err = float(np.max(differ)) if np.isfinite(differ).all() else float("inf")
            scale = max(
                float(np.max(np.abs(second), initial=0.0, where=np.isfinite(second))),
                float(np.max(np.abs(target), initial=0.0, where=np.isfinite(target))),
            )
        magnitude = max(
            scale, max(float(X.max()), -float(X.min())) if X.size else 0.0, torch_bridge.largest_entry(layer.f)
        )
        tol = DEFAULT_TOL.get(layer.dtype, DEFAULT_TOL["float64"])
        bound = max(
            ROUNDING["float32" if low else "float64"] * magnitude,
            SUBNORMAL_ULPS * second.size * SUBNORMAL_STEP,
            tol * scale,
        )
        if err <= bound:
            return None
        same = (second == target) | (np.isnan(second) & np.isnan(target))
        k = int(np.flatnonzero(~same & ~(diff <= bound))[0])  # err > bound: some differing entry is past it
    entry = np.unravel_index(k, diff.shape)
    output, where = signature.locate(entry)
    rel = err / scale if scale > 0 and np.isfinite(err) else float("inf")
    return (tuple(int(v) for v in where), output, _number(target[entry]), _number(second[entry]), err, rel, magnitude)


def _number(x) -> float | None:
    x = float(x)
    return x if np.isfinite(x) else None
