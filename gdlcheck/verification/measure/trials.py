"""Measuring by random trials: ``f(g.X)`` against ``g.f(X)`` for every generator and seeded input.

Every layer can be measured so (``f(X)`` for an invariant output), under a :class:`Law` that
says how the graph moves; diagnosis runs the same loop with the neighbouring laws.  Before
any pass, :func:`check_trial_budget` refuses work past the budget.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.errors import LayerError, LimitError, SpecError, param
from gdlcheck.groups import PermGroup, act, act_rows, conjugate
from gdlcheck.layers import Layer
from gdlcheck.limits import MAX_MATRIX_ENTRIES, MAX_TRIAL_OPS, TRIAL_PASS_OPS
from gdlcheck.scale import SUBNORMAL_STEP, unscaled
from gdlcheck.tolerances import SUBNORMAL_ULPS
from gdlcheck.verdicts import Method
from gdlcheck.verification.measure.draws import random_elements
from gdlcheck.verification.measure.matrix_trials import largest_value, matrix_form, matrix_trials, numeric_form
from gdlcheck.verification.result import Law, Residual, TrialWitness, generator_name

# the trial loop keeps each generator's moved dense graph up to this many entries in all
MOVED_GRAPH_ENTRIES = 1 << 24


def default_law(layer: Layer, expect: str) -> Law:
    """The law a layer is checked for: its graph permuted with X (``graph: input``) or held.

    Code says how its inputs move (its ``signature``, :class:`gdlcheck.code.signature.Signature`).
    """
    A = layer.graph()
    graph = None if A is None else ("both" if layer.uses_graph else "fixed")
    if layer.signature is not None:
        graph = layer.signature.graph_law
    return Law(graph=graph, output="none" if expect == "invariant" else "P")


def _finite_output(f: Layer, X: np.ndarray, A, trial: int, seed: int) -> np.ndarray:
    """``f(X, A)`` as float64; an output with inf or NaN cannot be compared, so it is an error.

    A NaN would otherwise compare as "no difference" and pass silently.
    """
    with np.errstate(all="ignore"):
        try:
            out = np.asarray(f.forward(X, A), dtype=np.float64)
        except (OverflowError, FloatingPointError) as err:
            raise LayerError(f"the layer overflows on random input (trial {trial}, seed {seed}): {err}") from None
    if not np.all(np.isfinite(out)):
        raise LayerError(
            f"the layer's output is not finite (inf or NaN) on random input (trial {trial}, "
            f"default_rng([{seed}, {trial}])): float64 overflows; scale the weights down"
        )
    return out


def points_output(fx: np.ndarray, n: int) -> None:
    """An equivariant output's first axis must be the n points."""
    if fx.ndim == 0 or fx.shape[0] != n:
        rows = fx.shape[0] if fx.ndim else 0
        raise SpecError(
            f"the layer's output has {rows} row(s), not n = {n}: a pooled output is invariant; use expect: invariant",
            where="expect",
        )


def check_trial_budget(layer: Layer, n: int, channels: int, trials: int, generators: int) -> None:
    """Refuse, before any work, a numeric check past its budget (README, limits): the input
    ``n x d`` and every n x n intermediate (attention scores, a dense graph) within the matrix
    budget, and trials x (generators + 1) forward passes within MAX_TRIAL_OPS multiply-adds,
    a forward pass estimated per layer as ``TRIAL_PASS_OPS`` for its calls, ``n d`` elementwise,
    ``n^2 d`` for an n x n matrix (``(nnz + n d) d`` on a sparse graph) and ``n`` x the entries
    of each channel weight.
    """
    if n * channels > MAX_MATRIX_ENTRIES:
        raise LimitError(
            f"the random inputs would be {n} x {channels} = {n * channels:.3g} entries, over the limit "
            f"of {MAX_MATRIX_ENTRIES}"
        )
    cost = 0
    for leaf in _leaves(layer):
        leaf_cost = leaf.pass_cost(n, channels)
        if leaf_cost is None:
            continue  # user code: its cost is the user's
        if leaf.holds_point_matrices() and n * n > MAX_MATRIX_ENTRIES:
            raise LimitError(
                f"the {leaf.kind} layer's n x n matrices at n = {n} would have {n * n:.3g} entries, "
                f"over the limit of {MAX_MATRIX_ENTRIES}"
            )
        cost += leaf_cost + TRIAL_PASS_OPS  # the arithmetic, and the calls themselves
    total = trials * (generators + 1) * cost
    if total > MAX_TRIAL_OPS:
        raise LimitError(
            f"the numeric check would take about {total:.3g} operations ({trials} trial(s) x "
            f"{generators + 1} forward passes x {cost:.3g}), over the limit of {MAX_TRIAL_OPS}; "
            f"lower {param('trials')}, n or the channels"
        )


def _leaves(layer: Layer) -> list[Layer]:
    out, stack = [], [layer]
    while stack:
        node = stack.pop()
        kids = node.children()
        if kids:
            stack.extend(kids)
        else:
            out.append(node)
    return out


def trial_residuals(
    layer: Layer,
    group: PermGroup,
    law: Law,
    channels: int,
    trials: int,
    seed: int,
    gens: list[np.ndarray] | None = None,
    first_trial: int = 0,
    form=None,
    elements: int = 0,
) -> list[Residual]:
    """Probe ``f(g.X)`` against the law's target with seeded random inputs, per generator, and
    per each of ``elements`` uniformly random elements of the group
    (:func:`~gdlcheck.verification.measure.draws.random_elements`):
    a generator alone rarely moves the maximum of 64 points, a random permutation does.

    Trial ``t`` draws its input from ``numpy.random.default_rng([seed, first_trial + t])`` (then
    one value per symbol of the weights); the witness is the trial with the largest relative
    error and the output entry that differs most.  A layer with a ``signature`` (code) moves
    its other inputs and its outputs as that says; the graph is moved once per generator, not
    per trial.

    The relative error is measured on the scale of the exact check (README, "the tolerance
    rule"): for a layer with numeric weights ``Y = W X + b`` (``form``, else the layer's own
    linear form) it is ``max|f(gX) - target| / (M (max_c |X_c|_1 + [b]))`` with ``M`` the
    largest weight, a bound of the deviation that cannot cancel, so a weight deviation within
    ``tol`` of ``M`` never fails here; the form is run scaled by a power of two (exact), so
    weights from 1e-320 to 1e308 neither underflow nor overflow.  For any other layer it is
    ``max|f(gX) - target| / max(|f(gX)|, |target|)``, differences below float64's resolution
    (:data:`~gdlcheck.tolerances.SUBNORMAL_ULPS` subnormal steps per term) counting as none.
    """
    n = group.n
    gens = group.gen_arrays() if gens is None else gens
    gens = list(gens) + random_elements(group, elements, seed, gens)
    # (largest deviation, None past float64's range; its relative size; the witness)
    worst: list[tuple[float | None, float, TrialWitness | None]] = [(0.0, 0.0, None)] * len(gens)
    largest = [0.0] * len(gens)  # per generator: the largest |value| in and out of its trials
    syms = sorted(layer.symbols(), key=str)
    A = layer.graph()
    moves = layer.signature
    # a moved graph is reused by every trial, unless keeping one per generator would cost much memory
    keep = not isinstance(A, np.ndarray) or A.size * len(gens) <= MOVED_GRAPH_ENTRIES
    moved = [_moved_graph(law, s, A, moves) for s in gens] if keep else None
    if form is None and not syms:
        form = layer.linear_form()
    matrix = matrix_form(form) if not syms and A is None and moves is None else None
    if matrix is not None:  # a plain matrix of numbers
        fast = matrix_trials(matrix, gens, law, n, channels, range(first_trial, first_trial + trials), seed)
        if fast is not None:
            return [
                Residual(
                    generator_name(s),
                    Method.NUMERIC,
                    max_abs_error=err,
                    relative_error=rel,
                    witness=witness,
                    trials=trials,
                    magnitude=top,
                )
                for s, (err, rel, witness), top in zip(gens, *fast)
            ]
    fixed_form = numeric_form(form) if not syms else None
    for t in range(first_trial, first_trial + trials):
        rng = np.random.default_rng([seed, t])
        X = rng.standard_normal((n, channels))
        f = layer.subs(_trial_values(syms, rng)) if syms else layer
        linear = fixed_form if not syms else numeric_form(f.linear_form())
        if linear is not None:
            f, e, bound = linear
            scale = bound(X)
        else:
            e, scale = 0, None
        fx = _finite_output(f, X, A, t, seed)
        seen = max(
            largest_value(X), largest_value(fx, e), largest_value(np.array([scale if scale is not None else 0.0]), e)
        )
        if law.output != "none" and moves is None:
            points_output(fx, n)
        floor = SUBNORMAL_ULPS * (n + channels) * SUBNORMAL_STEP
        for k, s in enumerate(gens):
            gA = moved[k] if moved is not None else _moved_graph(law, s, A, moves)
            fgx = _finite_output(f, act(s, X), gA, t, seed)
            target = fx if law.output == "none" else _moved_output(s if law.output == "P" else np.argsort(s), fx, moves)
            if fgx.shape != target.shape:
                raise ValueError(f"output shape changed under the permutation: {fgx.shape} vs {target.shape}")
            largest[k] = max(largest[k], seen, largest_value(fgx, e))
            diff = np.abs(fgx - target)
            err = float(diff.max()) if diff.size else 0.0
            if not math.isfinite(err):
                err = math.inf
            if linear is not None:
                rel = err / scale if err > 0 and scale > 0 else 0.0
            elif err <= floor:
                rel = 0.0
            else:
                rel = err / max(float(np.max(np.abs(fgx))), float(np.max(np.abs(target))))
            if rel > worst[k][1]:
                entry = (
                    np.unravel_index(int(np.argmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape)
                    if diff.size
                    else ()
                )
                output, where = moves.locate(entry) if moves is not None else (None, entry)
                witness = TrialWitness(
                    t,
                    seed,
                    tuple(int(e_) for e_ in where),
                    unscaled(float(target[entry]), e) if diff.size else None,
                    unscaled(float(fgx[entry]), e) if diff.size else None,
                    output=output,
                )
                worst[k] = (unscaled(err, e), rel, witness)
    return [
        Residual(
            generator_name(s),
            Method.NUMERIC,
            max_abs_error=err,
            relative_error=rel,
            witness=witness,
            trials=trials,
            magnitude=top,
        )
        for s, (err, rel, witness), top in zip(gens, worst, largest)
    ]


def _trial_values(syms, rng) -> dict:
    return {x: float(rng.standard_normal()) for x in syms}


def _moved_graph(law: Law, s: np.ndarray, A, moves=None):
    if moves is not None:
        return moves.move_inputs(s, A, law.graph)
    if A is None or law.graph in (None, "fixed"):
        return A
    return conjugate(s, A) if law.graph == "both" else act_rows(s, A)


def _moved_output(p: np.ndarray, Y: np.ndarray, moves=None) -> np.ndarray:
    """``P Y`` (rows), or each of code's outputs as its signature says (code checked for
    invariance, asked here about equivariance by the diagnosis: its outputs as points)."""
    return act(p, Y) if moves is None else moves.move_output(p, Y, equivariant=True)
