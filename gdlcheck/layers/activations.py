"""Elementwise functions and row-wise softmax, on numbers and on sympy expressions alike.

One implementation serves the numeric forward pass (float64 numpy) and the symbolic one
(object arrays of sympy expressions): every helper looks at the array's dtype.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.layers.base import is_symbolic_array

LEAKY_SLOPE = 0.01
ACTIVATION_NAMES = ("relu", "leaky_relu", "tanh", "sigmoid", "gelu", "softplus", "identity", "square")


def _numeric(name: str, x: np.ndarray) -> np.ndarray:
    if name == "identity":
        return x
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "leaky_relu":
        return np.where(x > 0, x, LEAKY_SLOPE * x)
    if name == "tanh":
        return np.tanh(x)
    if name == "sigmoid":
        from scipy.special import expit

        return expit(x)
    if name == "gelu":
        from scipy.special import erf

        return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
    if name == "softplus":
        return np.logaddexp(0.0, x)
    if name == "square":
        return x * x
    raise KeyError(name)


def _symbolic(name: str):
    import sympy

    # Max and the functions unevaluated: evaluating them asks sympy's assumptions about their
    # argument (tanh asks whether it is zero, and reduces its imaginary part mod pi with a
    # polynomial gcd), which cost seconds, then gigabytes, on the sums nested layers build; the
    # comparison of f(PX) with P f(X) is structural, and both sides are built alike
    table = {
        "identity": lambda e: e,
        "relu": lambda e: sympy.Max(0, e, evaluate=False),
        # max(x, 0.01 x) is leaky ReLU for a slope below 1, and keeps its structure
        "leaky_relu": lambda e: sympy.Max(e, sympy.Rational(1, 100) * e, evaluate=False),
        "tanh": lambda e: sympy.tanh(e, evaluate=False),
        "sigmoid": lambda e: 1 / (1 + sympy.exp(-e, evaluate=False)),
        "gelu": lambda e: e / 2 * (1 + sympy.erf(e / sympy.sqrt(2), evaluate=False)),
        "softplus": lambda e: sympy.log(1 + sympy.exp(e, evaluate=False), evaluate=False),
        "square": lambda e: e**2,
    }
    return table[name]


def activate(name: str, x: np.ndarray) -> np.ndarray:
    """Apply a named activation elementwise, to numbers or sympy expressions."""
    if is_symbolic_array(x):
        return map_objects(_symbolic(name), x)
    return _numeric(name, x)


def map_objects(fn, x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=object)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    for k in range(flat_in.size):
        flat_out[k] = fn(flat_in[k])
    return out


def sqrt(x):
    if is_symbolic_array(x):
        import sympy

        return map_objects(sympy.sqrt, x)
    return np.sqrt(x)


def softmax_rows(S: np.ndarray, keep: np.ndarray | None = None) -> np.ndarray:
    """Row-wise softmax; entries where ``keep`` is False get weight 0 (a mask)."""
    if is_symbolic_array(S):
        import sympy

        E = map_objects(lambda e: sympy.exp(e, evaluate=False), S)  # unevaluated, as in _symbolic
        if keep is not None:
            E[~keep] = sympy.Integer(0)
        return E / E.sum(axis=1, keepdims=True)
    if keep is not None:
        S = np.where(keep, S, -np.inf)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def masked(G: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``G`` with the entries outside ``keep`` set to 0 (numbers or sympy)."""
    if not is_symbolic_array(G):
        return np.where(keep, G, 0)
    import sympy

    out = G.copy()
    out[~keep] = sympy.Integer(0)
    return out
