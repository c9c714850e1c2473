"""Measuring: how far a layer is from commuting with each generator.  No verdicts here.

Three measurements (DESIGN.md section 5), each one :class:`Residual` per generator:

* :func:`weight_residuals`, for layers that say they are linear (``Y = W X + b``):
  ``W[s[i], s[j]]`` against ``W[i, j]`` for every generator ``s`` (``W[i, s[j]]`` for an
  invariant output) and ``b[s[i]]`` against ``b[i]``.  Numbers are compared as given; sympy
  expressions structurally first, then by simplification under a time budget.
* :func:`trial_residuals`, for every layer: for each generator and seeded random input
  ``X``, ``f(g.X)`` against ``g.f(X)`` under a :class:`Law` (``f(X)`` for an invariant
  output).  Diagnosis runs the same loop with the neighbouring laws.
* :func:`symbolic_residuals`: the layer run on a matrix of sympy symbols, ``f(PX)`` against
  ``P f(X)`` as expressions.

A group is respected exactly when each of its generators is, so only generators are measured.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.errors import LayerError, LimitError, SpecError, param
from gdlcheck.groups import PermGroup, act, act_rows, conjugate, cycle_string
from gdlcheck.layers import Fact, Layer, Linear
from gdlcheck.layers.base import exact_array
from gdlcheck.limits import MAX_MATRIX_ENTRIES, MAX_TRIAL_OPS, SYMBOLIC_GUARD_SECONDS, SYMBOLIC_NODES, TRIAL_PASS_OPS
from gdlcheck.scale import SUBNORMAL_STEP, exponent, scaled, unscaled
from gdlcheck.tolerances import SUBNORMAL_ULPS
from gdlcheck.verification.result import Law, OutputWitness, Residual, ShapeWitness, TrialWitness, WeightWitness
from gdlcheck.verification.symbolic import (
    Budget,
    differ_at_a_point,
    equal_exactly,
    is_zero,
    run_with_time_limit,
)

# The symbolic forward pass runs a non-linear layer on an n x d matrix of symbols: small n, d only.
SYMBOLIC_MAX_POINTS = 6
SYMBOLIC_MAX_CHANNELS = 2
# the trial loop keeps each generator's moved dense graph up to this many entries in all
MOVED_GRAPH_ENTRIES = 1 << 24


def _generator(s: np.ndarray) -> str:
    return cycle_string(tuple(s.tolist()))


# --------------------------------------------------------------------------- weights


def weight_residuals(W: np.ndarray, b, group: PermGroup, expect: str,
                     witness_tol: float) -> tuple[list[Residual], list]:
    """Compare the weights with their images under each generator.

    ``witness_tol`` picks what a numeric witness shows: the first pair in row-major order
    that deviates by more than ``witness_tol`` times the largest entry, else the largest
    deviation.  Returns the residuals and, for symbolic weights, the differences ``left -
    right`` that are not zero (to solve for the symbols).
    """
    if W.shape[1] != group.n or (expect != "invariant" and W.shape[0] != group.n):
        if expect != "invariant" and W.shape[1] == group.n:
            raise SpecError(f"the layer's output has {W.shape[0]} row(s), not n = {group.n}: a pooled output is "
                            "invariant; use expect: invariant", where="expect")
        raise SpecError(f"the layer acts on {W.shape[1]} points but the group on n = {group.n}")
    symbolic = W.dtype == object or (isinstance(b, np.ndarray) and b.dtype == object) or hasattr(b, "free_symbols")
    residuals, equations = [], []
    budget = Budget()   # one budget for the whole check: every generator and every pair of entries
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
        return Residual(_generator(s), "exact", max_abs_error=0.0, relative_error=0.0, exact=True)
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
        i, j = np.unravel_index(int(np.argmax(beyond) if np.any(beyond) else np.argmax(diff)), W.shape)
        witness = WeightWitness((int(i), int(j)), _image_index(s, i, j, expect), float(W[i, j]), float(image[i, j]))
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
    return Residual(_generator(s), "exact", max_abs_error=unscaled(worst, e), relative_error=rel, exact=worst == 0,
                    witness=witness)


def _symbolic_weights(W, b, s, expect, budget: Budget | None = None) -> tuple[Residual, list]:
    if isinstance(b, np.ndarray) and b.dtype != object:
        b = exact_array(b)  # a numeric bias beside symbolic weights: exact numbers, as the weights are
    image = _image(W, s, expect)
    differ = np.argwhere(image != W)
    pairs = [(image[i, j], W[i, j], (int(i), int(j))) for i, j in differ]
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
    return Residual(_generator(s), "exact", exact=exact, witness=witness, symbolic=True, detail=detail), equations


# --------------------------------------------------------------------------- random trials


def default_law(layer: Layer, expect: str) -> Law:
    """The law a layer is checked for: its graph permuted with X (``graph: input``) or held.

    Code says how its inputs move (its ``signature``, :class:`gdlcheck.actions.Signature`).
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


def _points_output(fx: np.ndarray, n: int) -> None:
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
        if leaf.kind in ("callable", "torch.nn.Module"):
            continue  # user code: its cost is the user's
        A = leaf.graph()
        if hasattr(A, "nnz"):
            cost += (int(A.nnz) + n * channels) * channels
            continue
        if leaf.kind == "attention" or A is not None:
            if n * n > MAX_MATRIX_ENTRIES:
                raise LimitError(f"the {leaf.kind} layer's n x n matrices at n = {n} would have {n * n:.3g} entries, "
                                 f"over the limit of {MAX_MATRIX_ENTRIES}")
        cost += n * channels + TRIAL_PASS_OPS                    # elementwise work, and the calls themselves
        if leaf.kind in _MIXING:
            cost += n * n * channels                              # an n x n matrix times X
        arrays = getattr(leaf, "_arrays", None)
        if arrays is not None:                                    # X W for each channel weight
            cost += n * sum(int(np.size(w)) for w in arrays() if isinstance(w, np.ndarray) and w.ndim == 2)
    total = trials * (generators + 1) * cost
    if total > MAX_TRIAL_OPS:
        raise LimitError(f"the numeric check would take about {total:.3g} operations ({trials} trial(s) x "
                         f"{generators + 1} forward passes x {cost:.3g}), over the limit of {MAX_TRIAL_OPS}; "
                         f"lower {param('trials')}, n or the channels")


# Kinds whose forward pass multiplies X by an n x n matrix (the weights, G, the scores).
_MIXING = ("linear", "conv", "deepsets", "attention", "gcn")


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
                    gens: list[np.ndarray] | None = None, first_trial: int = 0, form=None) -> list[Residual]:
    """Probe ``f(g.X)`` against the law's target with seeded random inputs, per generator.

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
    worst: list[tuple[float, float, TrialWitness | None]] = [(0.0, 0.0, None)] * len(gens)
    syms = sorted(layer.symbols(), key=str)
    A = layer.graph()
    moves = layer.signature
    # a moved graph is reused by every trial, unless keeping one per generator would cost much memory
    keep = not isinstance(A, np.ndarray) or A.size * len(gens) <= MOVED_GRAPH_ENTRIES
    moved = [_moved_graph(law, s, A, moves) for s in gens] if keep else None
    if form is None and not syms:
        form = layer.linear_form()
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
        if law.output != "none" and moves is None:
            _points_output(fx, n)
        floor = SUBNORMAL_ULPS * (n + channels) * SUBNORMAL_STEP
        for k, s in enumerate(gens):
            gA = moved[k] if moved is not None else _moved_graph(law, s, A, moves)
            fgx = _finite_output(f, act(s, X), gA, t, seed)
            target = fx if law.output == "none" else _moved_output(s if law.output == "P" else np.argsort(s), fx,
                                                                   moves)
            if fgx.shape != target.shape:
                raise ValueError(f"output shape changed under the permutation: {fgx.shape} vs {target.shape}")
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
    return [Residual(_generator(s), "numeric", max_abs_error=err, relative_error=rel, witness=witness, trials=trials)
            for s, (err, rel, witness) in zip(gens, worst)]


def _trial_values(syms, rng) -> dict:
    return {x: float(rng.standard_normal()) for x in syms}


def _numeric_form(form):
    """A numeric linear form ``(W, b)`` as ``(the layer W X + b scaled by 2^-e, e, the scale of X)``.

    None for no form or a symbolic one (symbolic weights get values per trial first).
    """
    if form is None:
        return None
    W, b = form
    if (isinstance(W, np.ndarray) and W.dtype == object) or hasattr(b, "free_symbols") or \
            (isinstance(b, np.ndarray) and b.dtype == object):
        return None
    W = np.asarray(W, dtype=np.float64)
    bias = None if b is None else np.asarray(b, dtype=np.float64)
    if not (np.all(np.isfinite(W)) and (bias is None or np.all(np.isfinite(bias)))):
        return None
    e = exponent(W, bias)
    Ws = scaled(W, e)
    bs = None if bias is None else scaled(bias, e)
    top = max(float(np.max(np.abs(Ws))) if Ws.size else 0.0, float(np.max(np.abs(bs))) if bs is not None and bs.size
              else 0.0)

    def bound(X: np.ndarray) -> float:
        # |(D X)[i, c]| <= max|D| * sum_j |X[j, c]|, and a bias adds at most max|d b|
        columns = float(np.max(np.sum(np.abs(X), axis=0))) if X.size else 0.0
        return top * (columns + (1.0 if bs is not None else 0.0))

    return Linear(Ws, bs), e, bound


def _moved_graph(law: Law, s: np.ndarray, A, moves=None):
    if moves is not None:
        return moves.move_inputs(s, A, law.graph)
    if A is None or law.graph in (None, "fixed"):
        return A
    return conjugate(s, A) if law.graph == "both" else act_rows(s, A)


def _moved_output(p: np.ndarray, Y: np.ndarray, moves=None) -> np.ndarray:
    """``P Y`` (rows), or each of code's outputs as its signature says."""
    return act(p, Y) if moves is None else moves.move_output(p, Y)


# --------------------------------------------------------------------------- symbolic forward pass


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


def symbolic_residuals(layer: Layer, group: PermGroup, expect: str, channels: int,
                       seconds: float = SYMBOLIC_GUARD_SECONDS) -> list[Residual]:
    """Run the layer on an n x d matrix of symbols and compare ``f(PX)`` with ``P f(X)`` as expressions.

    Given numbers become exact rationals, so the two sides are built from the same terms and
    are compared structurally; pairs that differ are told apart at a random rational point,
    or shown equal by expanding their difference within a node budget; what neither decides
    is undecided.  The work is bounded beforehand (:func:`symbolic_applies`); ``seconds`` is
    only a last guard against a hang, and what it stops is reported as such.
    """
    import sympy

    n = group.n
    gens = group.gen_arrays()
    X = np.empty((n, channels), dtype=object)
    for i in range(n):
        for c in range(channels):
            X[i, c] = sympy.Symbol(f"x_{i}_{c}")
    A = layer.graph()
    if hasattr(A, "toarray"):  # a scipy.sparse graph; this check runs for n <= 6 only
        A = A.toarray()
    A = exact_array(np.asarray(A, dtype=np.float64)) if A is not None else None
    done: list[Residual] = []

    def work():
        fx = layer.forward_symbolic(X, A)
        if expect != "invariant":
            _points_output(fx, n)
        for s in gens:
            gA = conjugate(s, A) if (A is not None and layer.uses_graph) else A
            fgx = layer.forward_symbolic(act(s, X), gA)
            target = fx if expect == "invariant" else act(s, fx)
            done.append(_compare_symbolic(s, fgx, target))

    run_with_time_limit(work, seconds)
    residuals = list(done)
    for s in gens[len(done):]:
        residuals.append(Residual(_generator(s), "exact", exact=None, detail="time_guard", symbolic=True))
    return residuals


def _compare_symbolic(s, got: np.ndarray, target: np.ndarray) -> Residual:
    gen = _generator(s)
    if got.shape != target.shape:
        return Residual(gen, "exact", exact=False, witness=ShapeWitness(tuple(got.shape), tuple(target.shape)),
                        symbolic=True)
    differ = [idx for idx in np.ndindex(got.shape) if got[idx] != target[idx]]
    undecided = []
    rng = np.random.default_rng(0)
    for idx in differ:
        if differ_at_a_point(got[idx], target[idx], rng, tries=2):
            witness = OutputWitness(tuple(int(v) for v in idx), target[idx], got[idx])
            return Residual(gen, "exact", exact=False, witness=witness, symbolic=True)
        undecided.append(got[idx] - target[idx])
    for diff in undecided:
        if not is_zero(diff):
            return Residual(gen, "exact", exact=None, detail="sympy_undecided", symbolic=True)
    return Residual(gen, "exact", max_abs_error=0.0, relative_error=0.0, exact=True, symbolic=True,
                    detail="symbolic_simplified" if undecided else "symbolic_identical")
