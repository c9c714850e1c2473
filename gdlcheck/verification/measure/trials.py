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
from gdlcheck.layers import Layer, Linear
from gdlcheck.limits import MAX_MATRIX_ENTRIES, MAX_TRIAL_OPS, TRIAL_PASS_OPS
from gdlcheck.scale import SUBNORMAL_STEP, scaled, unscaled
from gdlcheck.tolerances import SUBNORMAL_ULPS
from gdlcheck.verdicts import Method
from gdlcheck.verification.measure.draws import random_elements, trial_input
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
        raise LayerError(f"the layer's output is not finite (inf or NaN) on random input (trial {trial}, "
                         f"default_rng([{seed}, {trial}])): float64 overflows; scale the weights down")
    return out


def points_output(fx: np.ndarray, n: int) -> None:
    """An equivariant output's first axis must be the n points."""
    if fx.ndim == 0 or fx.shape[0] != n:
        rows = fx.shape[0] if fx.ndim else 0
        raise SpecError(f"the layer's output has {rows} row(s), not n = {n}: a pooled output is invariant; "
                        "use expect: invariant", where="expect")


def check_trial_budget(layer: Layer, n: int, channels: int, trials: int, generators: int) -> None:
    """Refuse, before any work, a numeric check past its budget (README, limits): the input
    ``n x d`` and every n x n intermediate (attention scores, a dense graph) within the matrix
    budget, and trials x (generators + 1) forward passes within MAX_TRIAL_OPS multiply-adds,
    a forward pass estimated per layer as ``TRIAL_PASS_OPS`` for its calls, ``n d`` elementwise,
    ``n^2 d`` for an n x n matrix (``(nnz + n d) d`` on a sparse graph) and ``n`` x the entries
    of each channel weight.
    """
    if n * channels > MAX_MATRIX_ENTRIES:
        raise LimitError(f"the random inputs would be {n} x {channels} = {n * channels:.3g} entries, over the limit "
                         f"of {MAX_MATRIX_ENTRIES}")
    cost = 0
    for leaf in _leaves(layer):
        leaf_cost = leaf.pass_cost(n, channels)
        if leaf_cost is None:
            continue  # user code: its cost is the user's
        if leaf.holds_point_matrices() and n * n > MAX_MATRIX_ENTRIES:
            raise LimitError(f"the {leaf.kind} layer's n x n matrices at n = {n} would have {n * n:.3g} entries, "
                             f"over the limit of {MAX_MATRIX_ENTRIES}")
        cost += leaf_cost + TRIAL_PASS_OPS   # the arithmetic, and the calls themselves
    total = trials * (generators + 1) * cost
    if total > MAX_TRIAL_OPS:
        raise LimitError(f"the numeric check would take about {total:.3g} operations ({trials} trial(s) x "
                         f"{generators + 1} forward passes x {cost:.3g}), over the limit of {MAX_TRIAL_OPS}; "
                         f"lower {param('trials')}, n or the channels")


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


def trial_residuals(layer: Layer, group: PermGroup, law: Law, channels: int, trials: int, seed: int,
                    gens: list[np.ndarray] | None = None, first_trial: int = 0, form=None,
                    elements: int = 0) -> list[Residual]:
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
    matrix = _matrix_form(form) if not syms and A is None and moves is None else None
    if matrix is not None:   # a plain matrix of numbers
        fast = _matrix_trials(matrix, gens, law, n, channels, range(first_trial, first_trial + trials), seed)
        if fast is not None:
            return [Residual(generator_name(s), Method.NUMERIC, max_abs_error=err, relative_error=rel, witness=witness,
                             trials=trials, magnitude=top) for s, (err, rel, witness), top in zip(gens, *fast)]
    fixed_form = _numeric_form(form) if not syms else None
    for t in range(first_trial, first_trial + trials):
        rng = np.random.default_rng([seed, t])
        X = rng.standard_normal((n, channels))
        f = layer.subs(_trial_values(syms, rng)) if syms else layer
        linear = fixed_form if not syms else _numeric_form(f.linear_form())
        if linear is not None:
            f, e, bound = linear
            scale = bound(X)
        else:
            e, scale = 0, None
        fx = _finite_output(f, X, A, t, seed)
        seen = max(_largest(X), _largest(fx, e), _largest(np.array([scale if scale is not None else 0.0]), e))
        if law.output != "none" and moves is None:
            points_output(fx, n)
        floor = SUBNORMAL_ULPS * (n + channels) * SUBNORMAL_STEP
        for k, s in enumerate(gens):
            gA = moved[k] if moved is not None else _moved_graph(law, s, A, moves)
            fgx = _finite_output(f, act(s, X), gA, t, seed)
            target = fx if law.output == "none" else _moved_output(s if law.output == "P" else np.argsort(s), fx,
                                                                   moves)
            if fgx.shape != target.shape:
                raise ValueError(f"output shape changed under the permutation: {fgx.shape} vs {target.shape}")
            largest[k] = max(largest[k], seen, _largest(fgx, e))
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
                entry = np.unravel_index(int(np.argmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape) \
                    if diff.size else ()
                output, where = moves.locate(entry) if moves is not None else (None, entry)
                witness = TrialWitness(t, seed, tuple(int(e_) for e_ in where),
                                       unscaled(float(target[entry]), e) if diff.size else None,
                                       unscaled(float(fgx[entry]), e) if diff.size else None, output=output)
                worst[k] = (unscaled(err, e), rel, witness)
    return [Residual(generator_name(s), Method.NUMERIC, max_abs_error=err, relative_error=rel, witness=witness,
                     trials=trials, magnitude=top) for s, (err, rel, witness), top in zip(gens, worst, largest)]


def _matrix_trials(linear, gens, law: Law, n: int, channels: int, trial_ids, seed: int):
    """The trial loop below for ``W X + b`` with numbers and no graph, on all the trials at once:
    the same inputs side by side, so ``W`` is read by two products (the inputs, then every moved
    input) rather than one per trial and element (at n = 512 each read missed the cache), and the
    same errors, witnesses and magnitudes, to rounding.  None (the loop then runs, and words the
    error) where an output is not finite or the layer does not keep the points."""
    f, e, bound, post = linear
    trial_ids = list(trial_ids)
    if not trial_ids:
        return None
    T = len(trial_ids)
    Xs = [trial_input(seed, t, n, channels) for t in trial_ids]
    X = np.concatenate(Xs, axis=1)                      # (n, T c): trial t in columns t c .. (t + 1) c
    with np.errstate(all="ignore"):
        try:   # a bias that does not broadcast over the trials side by side: the loop runs
            FX = _per_trial(_affine(f, X, post), T)
            moved = _affine(f, np.concatenate([act(s, X) for s in gens], axis=1), post) if gens \
                else np.zeros((FX.shape[1], 0))
        except ValueError:
            return None
        if not (np.all(np.isfinite(FX)) and np.all(np.isfinite(moved))) or moved.shape[0] != FX.shape[1] \
                or (law.output != "none" and FX.shape[1] != n):
            return None
        scales = [bound(x) for x in Xs]
        seen = [max(_largest(x), unscaled(float(np.max(np.abs(fx))), e) or 0.0 if fx.size else 0.0,
                    _largest(np.array([scale]), e)) for x, fx, scale in zip(Xs, FX, scales)]
        worst, largest = [], []
        width = FX.shape[2] * T
        for k_gen, s in enumerate(gens):
            FGX = _per_trial(moved[:, k_gen * width:(k_gen + 1) * width], T)
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
                    witness = TrialWitness(t, seed, tuple(int(i) for i in entry),
                                           unscaled(float(target[k][entry]), e), unscaled(float(FGX[k][entry]), e))
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
            np.matmul(W[start:start + rows], X, out=Y[start:start + rows])
    if f.b is not None:
        b = np.asarray(f.b, dtype=np.float64)
        Y = Y + (b[:, None] if b.ndim == 1 else b)
    return scaled(Y, post, out=Y) if post else Y


def _per_trial(Y: np.ndarray, trials: int) -> np.ndarray:
    """``(n, T c')`` outputs side by side as ``(T, n, c')``, one block per trial."""
    return np.ascontiguousarray(Y.reshape(Y.shape[0], trials, -1).transpose(1, 0, 2))


def _largest(values: np.ndarray, e: int = 0) -> float:
    """The largest finite ``|value|`` of ``values * 2^e`` (0 for none, or past float64's range):
    the scale of the rounding in a trial."""
    finite = np.abs(values[np.isfinite(values)]) if values.size else values
    top = unscaled(float(finite.max()), e) if finite.size else None
    return top if top is not None else 0.0


def _trial_values(syms, rng) -> dict:
    return {x: float(rng.standard_normal()) for x in syms}


def _numeric_form(form):
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


def _matrix_form(form):
    """:func:`_numeric_form` for :func:`_matrix_trials`, and the power of two its outputs still
    take: a matrix whose largest entry is from 1 to 2^UNSCALED_UP is not copied scaled, its
    outputs ``W X + b`` are scaled instead (the same numbers where nothing over- or underflows,
    and no more rounding where something does: the scaled copy's products are the smaller)."""
    parts = _form_parts(form)
    if parts is None:
        return None
    W, bias, top, e = parts
    if not 0 <= e <= UNSCALED_UP:
        return (*_numeric_form(form), 0)
    return Linear(W, bias), e, _bound(top, bias is not None), e


# the largest entry of a matrix whose trials run it unscaled: its products and sums stay far from overflow
UNSCALED_UP = 900


def _form_parts(form):
    """``(W, b, top, e)``: the form as float64, ``e`` with ``max|W, b| < 2^e <= 2 max``, and
    ``top = max|W, b| / 2^e`` (in ``[0.5, 1)``); None for no form, a symbolic one, or one not finite."""
    if form is None:
        return None
    W, b = form
    if (isinstance(W, np.ndarray) and W.dtype == object) or hasattr(b, "free_symbols") or \
            (isinstance(b, np.ndarray) and b.dtype == object):
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
