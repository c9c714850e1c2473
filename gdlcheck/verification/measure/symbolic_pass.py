"""Measuring by the symbolic forward pass: the layer run on a matrix of sympy symbols.

``f(PX)`` against ``P f(X)`` as expressions, for small non-linear layers, under a
deterministic budget of expression nodes decided before the pass runs.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.groups import PermGroup, act, conjugate
from gdlcheck.layers import Fact, Layer
from gdlcheck.layers.base import exact_array
from gdlcheck.limits import SYMBOLIC_NODES
from gdlcheck.verdicts import Method
from gdlcheck.verification.measure.trials import points_output
from gdlcheck.verification.result import OutputWitness, Residual, ShapeWitness, generator_name
from gdlcheck.verification.symbolic import differ_at_a_point, why_not_zero

# The symbolic forward pass runs a non-linear layer on an n x d matrix of symbols: small n, d only.
SYMBOLIC_MAX_POINTS = 6
SYMBOLIC_MAX_CHANNELS = 2


def symbolic_nodes(layer: Layer, n: int, channels: int, passes: int) -> float | None:
    """The symbolic pass's work: ``passes`` forward passes of an ``n x channels`` matrix of
    symbols, counted as the expression nodes of their outputs (each kind bounds its output's
    size, ``Layer.symbolic_size``); None where a kind gives no bound."""
    estimate = layer.symbolic_size(n, channels, 1)
    if estimate is None:
        return None
    d_out, size = estimate
    rows = 1 if layer.invariant else n
    return float(passes) * rows * d_out * size


def symbolic_applies(layer: Layer, n: int, channels: int, passes: int = 2) -> Fact | None:
    """Why the symbolic forward pass does not apply (None: it does).

    Deterministic: the pass runs when its estimated work is within ``SYMBOLIC_NODES``
    expression nodes, the same decision on an idle and on a loaded machine.
    """
    if not getattr(layer, "supports_symbolic", False):
        return Fact("no_symbolic_pass", {"kind": layer.kind})
    if n > SYMBOLIC_MAX_POINTS:
        return Fact("symbolic_points", {"n": n, "limit": SYMBOLIC_MAX_POINTS})
    if channels > SYMBOLIC_MAX_CHANNELS:
        return Fact("symbolic_channels", {"d": channels, "limit": SYMBOLIC_MAX_CHANNELS})
    nodes = symbolic_nodes(layer, n, channels, passes)
    if nodes is None:
        return Fact("no_symbolic_pass", {"kind": layer.kind})
    if nodes > SYMBOLIC_NODES:
        return Fact("symbolic_budget", {"nodes": nodes, "limit": SYMBOLIC_NODES})
    return None


def symbolic_residuals(layer: Layer, group: PermGroup, expect: str, channels: int) -> list[Residual]:
    """Run the layer on an n x d matrix of symbols and compare ``f(PX)`` with ``P f(X)`` as expressions.

    Given numbers become exact rationals, so the two sides are built from the same terms and
    are compared structurally; pairs that differ are told apart at a random rational point,
    or shown equal by expanding their difference within a node budget; what neither decides
    is undecided.  The work is bounded beforehand, by the nodes the pass builds
    (:func:`symbolic_applies`) and the size of each difference sympy is given, never by the clock.
    """
    import sympy

    n = group.n
    gens = group.gen_arrays()
    X = np.empty((n, channels), dtype=object)
    for i in range(n):
        for c in range(channels):
            X[i, c] = sympy.Symbol(f"x_{i}_{c}")
    A = layer.graph()
    if A is not None and hasattr(A, "toarray"):  # a scipy.sparse graph; this check runs for n <= 6 only
        A = A.toarray()
    A = exact_array(np.asarray(A, dtype=np.float64)) if A is not None else None
    residuals: list[Residual] = []
    fx = layer.forward_symbolic(X, A)
    if expect != "invariant":
        points_output(fx, n)
    for s in gens:
        gA = conjugate(s, A) if (A is not None and layer.uses_graph) else A
        fgx = layer.forward_symbolic(act(s, X), gA)
        target = fx if expect == "invariant" else act(s, fx)
        residuals.append(_compare_symbolic(s, fgx, target))
    return residuals


def _compare_symbolic(s, got: np.ndarray, target: np.ndarray) -> Residual:
    gen = generator_name(s)
    if got.shape != target.shape:
        return Residual(
            gen, Method.EXACT, exact=False, witness=ShapeWitness(tuple(got.shape), tuple(target.shape)), symbolic=True
        )
    differ = [idx for idx in np.ndindex(got.shape) if got[idx] != target[idx]]
    undecided = []
    rng = np.random.default_rng(0)
    for idx in differ:
        if differ_at_a_point(got[idx], target[idx], rng, tries=2):
            witness = OutputWitness(tuple(int(v) for v in idx), target[idx], got[idx])
            return Residual(gen, Method.EXACT, exact=False, witness=witness, symbolic=True)
        undecided.append(got[idx] - target[idx])
    for diff in undecided:
        reason = why_not_zero(diff)
        if reason is not None:
            return Residual(gen, Method.EXACT, exact=None, detail=reason, symbolic=True)
    return Residual(
        gen,
        Method.EXACT,
        max_abs_error=0.0,
        relative_error=0.0,
        exact=True,
        symbolic=True,
        detail="symbolic_simplified" if undecided else "symbolic_identical",
    )
