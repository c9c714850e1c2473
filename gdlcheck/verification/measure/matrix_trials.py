"""The trials of a numeric linear layer ``W X + b`` on all its trials at once, and the layer's
linear form scaled by a power of two (so nothing over- or underflows), with the bound of its
outputs that the trials' relative error is measured against.

:mod:`gdlcheck.verification.measure.trials` runs the general loop and hands a layer with a
numeric form and no graph here: the same errors, witnesses and magnitudes, to rounding.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.groups import act
from gdlcheck.layers import Linear
from gdlcheck.scale import scaled, unscaled
from gdlcheck.verification.measure.draws import trial_input
from gdlcheck.verification.result import Law, TrialWitness


def matrix_trials(linear, gens, law: Law, n: int, channels: int, trial_ids, seed: int):
    """The trial loop of :func:`~gdlcheck.verification.measure.trials.trial_residuals` for
    ``W X + b`` with numbers and no graph, on all the trials at once: the same inputs side by
    side, so ``W`` is read by two products (the inputs, then every moved input) rather than one
    per trial and element (at n = 512 each read missed the cache), and the same errors,
    witnesses and magnitudes, to rounding.  None (the loop then runs, and words the error) where
    an output is not finite or the layer does not keep the points."""
    f, e, bound, post = linear
    trial_ids = list(trial_ids)
    if not trial_ids:
        return None
    T = len(trial_ids)
    Xs = [trial_input(seed, t, n, channels) for t in trial_ids]
    X = np.concatenate(Xs, axis=1)  # (n, T c): trial t in columns t c .. (t + 1) c
    with np.errstate(all="ignore"):
        try:  # a bias that does not broadcast over the trials side by side: the loop runs
            FX = _per_trial(_affine(f, X, post), T)
            moved = (
                _affine(f, np.concatenate([act(s, X) for s in gens], axis=1), post)
                if gens
                else np.zeros((FX.shape[1], 0))
            )
        except ValueError:
            return None
        if (
            not (np.all(np.isfinite(FX)) and np.all(np.isfinite(moved)))
            or moved.shape[0] != FX.shape[1]
            or (law.output != "none" and FX.shape[1] != n)
        ):
            return None
        scales = [bound(x) for x in Xs]
        seen = [
            max(
                largest_value(x),
                unscaled(float(np.max(np.abs(fx))), e) or 0.0 if fx.size else 0.0,
                largest_value(np.array([scale]), e),
            )
            for x, fx, scale in zip(Xs, FX, scales)
        ]
        worst, largest = [], []
        width = FX.shape[2] * T
        for k_gen, s in enumerate(gens):
            FGX = _per_trial(moved[:, k_gen * width : (k_gen + 1) * width], T)
            target = FX
            if law.output != "none":
                target = np.empty_like(FX)
                target[:, s if law.output == "P" else np.argsort(s)] = FX
            diff = np.abs(FGX - target).reshape(T, -1)
            errs = diff.max(axis=1) if diff.shape[1] else np.zeros(T)
            tops = np.abs(FGX).reshape(T, -1).max(axis=1) if diff.shape[1] else np.zeros(T)
            largest.append(max(max(seen), max(unscaled(float(v), e) or 0.0 for v in tops)))
            best: tuple = (0.0, 0.0, None)
            for k, t in enumerate(trial_ids):
                err = float(errs[k])
                rel = err / scales[k] if err > 0 and scales[k] > 0 else 0.0
                if rel > best[1]:
                    entry = np.unravel_index(int(np.argmax(diff[k])), FX.shape[1:])
                    witness = TrialWitness(
                        t,
                        seed,
                        tuple(int(i) for i in entry),
                        unscaled(float(target[k][entry]), e),
                        unscaled(float(FGX[k][entry]), e),
                    )
                    best = (unscaled(err, e), rel, witness)
            worst.append(best)
    return worst, largest


# a product of at most this many multiply-adds stays on one BLAS thread (OpenBLAS's own threshold,
# 65536 x 4): on a small input, threads cost more than the arithmetic, 20x on a busy machine
ONE_THREAD_PRODUCT = 1 << 18


def _affine(f: Linear, X: np.ndarray, post: int = 0) -> np.ndarray:
    """``(W X + b) / 2^post`` of the numeric layer ``f``, ``W X`` by blocks of rows small enough
    that BLAS runs each on one thread (:data:`ONE_THREAD_PRODUCT`)."""
    W = f.W
    rows = max(1, ONE_THREAD_PRODUCT // max(1, W.shape[1] * X.shape[1]))
    if rows >= W.shape[0]:
        Y = W @ X
    else:
        Y = np.empty((W.shape[0], X.shape[1]))
        for start in range(0, W.shape[0], rows):
            np.matmul(W[start : start + rows], X, out=Y[start : start + rows])
    if f.b is not None:
        b = np.asarray(f.b, dtype=np.float64)
        Y = Y + (b[:, None] if b.ndim == 1 else b)
    return scaled(Y, post, out=Y) if post else Y


def _per_trial(Y: np.ndarray, trials: int) -> np.ndarray:
    """``(n, T c')`` outputs side by side as ``(T, n, c')``, one block per trial."""
    return np.ascontiguousarray(Y.reshape(Y.shape[0], trials, -1).transpose(1, 0, 2))


def largest_value(values: np.ndarray, e: int = 0) -> float:
    """The largest finite ``|value|`` of ``values * 2^e`` (0 for none, or past float64's range):
    the scale of the rounding in a trial."""
    finite = np.abs(values[np.isfinite(values)]) if values.size else values
    top = unscaled(float(finite.max()), e) if finite.size else None
    return top if top is not None else 0.0


def numeric_form(form):
    """A numeric linear form ``(W, b)`` as ``(the layer W X + b scaled by 2^-e, e, the scale of X)``.

    None for no form or a symbolic one (symbolic weights get values per trial first).
    """
    parts = _form_parts(form)
    if parts is None:
        return None
    W, bias, top, e = parts
    # by 2^-e, an exact product (none needed for e = 0: a full copy of W saved)
    Ws = scaled(W, e) if e else W
    bs = None if bias is None else (scaled(bias, e) if e else bias)
    return Linear(Ws, bs), e, _bound(top, bs is not None)


def matrix_form(form):
    """:func:`numeric_form` for :func:`matrix_trials`, and the power of two its outputs still
    take: a matrix whose largest entry is from 1 to 2^UNSCALED_UP is not copied scaled, its
    outputs ``W X + b`` are scaled instead (the same numbers where nothing over- or underflows,
    and no more rounding where something does: the scaled copy's products are the smaller)."""
    parts = _form_parts(form)
    if parts is None:
        return None
    W, bias, top, e = parts
    if not 0 <= e <= UNSCALED_UP:
        return (*numeric_form(form), 0)
    return Linear(W, bias), e, _bound(top, bias is not None), e


# the largest entry of a matrix whose trials run it unscaled: its products and sums stay far from overflow
UNSCALED_UP = 900


def _form_parts(form):
    """``(W, b, top, e)``: the form as float64, ``e`` with ``max|W, b| < 2^e <= 2 max``, and
    ``top = max|W, b| / 2^e`` (in ``[0.5, 1)``); None for no form, a symbolic one, or one not finite."""
    if form is None:
        return None
    W, b = form
    if (
        (isinstance(W, np.ndarray) and W.dtype == object)
        or hasattr(b, "free_symbols")
        or (isinstance(b, np.ndarray) and b.dtype == object)
    ):
        return None
    W = np.asarray(W, dtype=np.float64)
    bias = None if b is None else np.asarray(b, dtype=np.float64)
    # gdlcheck.scale.exponent's two passes, kept: the largest |entry| scaled by 2^-e is the scaled
    # matrix's own (a product by a power of two is exact), so no pass over a scaled copy; they
    # also tell a NaN or an infinity (max and min pass a NaN on), so no pass of isfinite
    extremes = (_extreme(W), _extreme(bias))
    if not all(math.isfinite(v) for v in extremes):
        return None
    largest = max(extremes)
    e = math.frexp(largest)[1] if largest > 0 else 0
    return W, bias, math.ldexp(largest, -e), e


def _bound(top: float, has_bias: bool):
    def bound(X: np.ndarray) -> float:
        # |(D X)[i, c]| <= max|D| * sum_j |X[j, c]|, and a bias adds at most max|d b|
        columns = float(np.max(np.sum(np.abs(X), axis=0))) if X.size else 0.0
        return top * (columns + (1.0 if has_bias else 0.0))

    return bound


def _extreme(a) -> float:
    """``max |a|`` (0 for None or empty) from the two extremes: no temporary the size of ``a``."""
    if a is None or not a.size:
        return 0.0
    return max(float(np.max(a)), -float(np.min(a)))
