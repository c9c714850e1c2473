"""Linear kinds: ``linear`` (``Y = W X + b``), ``conv`` (Theorem 1) and ``deepsets`` (Theorem 2)."""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import GdlcheckError, LayerError
from gdlcheck.groups import is_translation
from gdlcheck.layers.base import (
    NOT_FINITE,
    Composite,
    Fact,
    Layer,
    estimated_pass_cost,
    exact_array,
    free_symbols,
    is_symbolic_array,
    numeric,
    shape_text,
)
from gdlcheck.layers.build import BuildContext, register
from gdlcheck.layers.exactness import exact_entries, exact_sum
from gdlcheck.layers.proofs import Rule, commutes_condition, vector_condition
from gdlcheck.limits import MAX_MATRIX_ENTRIES
from gdlcheck.text import parse_shape


class Linear(Layer):
    """``Y = W X + b``."""

    kind = "linear"
    supports_symbolic = True
    mixes_points = True

    def __init__(self, W: np.ndarray, b=None):
        self.W, self.b = W, b
        self.points = int(W.shape[1])

    def forward(self, X, A=None):
        Y = self.W @ X
        if self.b is not None:
            b = np.asarray(self.b, dtype=np.float64)
            Y = Y + (b[:, None] if b.ndim == 1 else b)
        return Y

    def forward_symbolic(self, X, A=None):
        Y = exact_array(self.W) @ X
        if self.b is not None:
            b = exact_array(self.b)
            Y = Y + (b[:, None] if isinstance(b, np.ndarray) and b.ndim == 1 else b)
        return Y

    def aggregations(self, X, A=None):
        return [self.W]

    def linear_form(self):
        return self.W, self.b

    def pass_cost(self, n, channels):
        return estimated_pass_cost(self, n, channels)

    def rule(self, group, gens):
        """Commutation: ``W P = P W`` exactly when ``W[g i, g j] = W[i, j]``; a bias ``b[g i] = b[i]``."""
        return Rule("commutation", None, tuple(self._conditions(gens, lambda k, s: False)))

    weight_key = "weight"  # the spec key the weight condition is about

    def _conditions(self, gens, free):
        """The weight and bias conditions of each generator, but for those ``free(k, s)`` exempts
        from the weight condition (a theorem covers them)."""
        out = []
        for k, s in enumerate(gens):
            if not free(k, s):
                out.append(commutes_condition(self.W, s, self.weight_key))
            if isinstance(self.b, np.ndarray) and self.b.ndim == 1:
                out.append(vector_condition(self.b, s, "bias", "bias"))
        return out

    def symbolic_size(self, n, d, size):
        return d, n * (size + 2) + 2

    def symbols(self):
        return free_symbols(self.W, self.b if self.b is not None else None)

    def subs(self, values):
        b = None if self.b is None else numeric(self.b, values)
        return type(self)(numeric(self.W, values), b)


def _bias(raw: dict, ctx: BuildContext, where: str, n: int):
    if raw.get("bias") is None:
        return None
    value = raw["bias"]
    if isinstance(value, (list, dict)):
        b = ctx.value(value, f"{where}.bias", ndim=1)
        if b.shape[0] != n:
            raise ctx.error(f"bias has {b.shape[0]} entries, expected n = {n} (or one scalar)", f"{where}.bias")
        return b
    return ctx.scalar(value, f"{where}.bias")


@register("linear", keys=("weight", "bias"), required=("weight",))
def _build_linear(raw, ctx, where):
    W = ctx.value(raw["weight"], f"{where}.weight")
    if W.shape[0] != W.shape[1]:
        raise ctx.error(f"weight is {W.shape[0]} x {W.shape[1]}, expected a square n x n matrix", f"{where}.weight")
    if ctx.n is not None and W.shape[0] != ctx.n:
        raise ctx.error(
            f"weight is {W.shape[0]} x {W.shape[0]} but the group acts on n = {ctx.n} points", f"{where}.weight"
        )
    return Linear(W, _bias(raw, ctx, where, W.shape[0]))


# --------------------------------------------------------------------------- conv


def circulant(kernel: np.ndarray, shape) -> np.ndarray:
    """The circular convolution with ``kernel`` on a grid of ``shape`` (an int for 1-D), as a matrix.

    ``W[p, q] = kernel[(p - q) mod shape]`` coordinate by coordinate, zero past the kernel's
    extent; points are flattened row-major.  In 1-D, ``W[i, j] = kernel[(i - j) mod n]``:

    >>> circulant(np.array([1, 2]), 3)
    array([[1, 0, 2],
           [2, 1, 0],
           [0, 2, 1]])
    """
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    theta = np.zeros(shape, dtype=kernel.dtype)
    theta[tuple(slice(0, k) for k in kernel.shape)] = kernel
    coords = np.indices(shape).reshape(len(shape), -1)
    offsets = tuple((c[:, None] - c[None, :]) % size for c, size in zip(coords, shape))
    return theta[offsets]


class Conv(Linear):
    """A circular convolution: the circulant of ``kernel`` on the grid ``grid`` (Theorem 1).

    The matrix is built from the kernel, never taken as given: Theorem 1 is about circulants,
    so the rule may trust ``W`` only because ``W`` is one by construction.
    """

    kind = "conv"
    depends_on = "offset"
    weight_key = "kernel"

    def __init__(self, kernel: np.ndarray, grid: int | tuple[int, ...], b=None):
        self.kernel = np.asarray(kernel)
        self.grid = (int(grid),) if isinstance(grid, (int, np.integer)) else tuple(int(a) for a in grid)
        super().__init__(circulant(self.kernel, self.grid), b)

    def rule(self, group, gens):
        """Theorem 1: a circulant commutes with every shift of its grid; other generators are
        checked entry by entry, as for a linear layer."""

        def shift_of_the_grid(k, s):
            return is_translation(s, self.grid)

        return Rule("theorem1", "Theorem 1", tuple(self._conditions(gens, shift_of_the_grid)))

    def asymmetries(self) -> list[Fact]:
        """A circulant ``W[i, j] = theta_(i-j)`` is symmetric only when its kernel is."""
        return [Fact("kernel")]

    def subs(self, values):
        b = None if self.b is None else numeric(self.b, values)
        return type(self)(numeric(self.kernel, values), self.grid, b)


@register("conv", keys=("kernel", "bias", "shape"), required=("kernel",))
def _build_conv(raw, ctx, where):
    # a kernel from a file is a vector unless shape: says it slides over a grid (a text file's one
    # line is one row of a matrix otherwise)
    from_file = isinstance(raw["kernel"], dict) and "file" in raw["kernel"]
    kernel = ctx.value(raw["kernel"], f"{where}.kernel", ndim=1 if from_file and "shape" not in raw else None)
    symbolic = kernel.dtype == object  # the circulant of a symbolic kernel has n^2 symbolic entries
    if "shape" not in raw:
        n = ctx.need_n(where, symbolic=symbolic)
        if kernel.ndim != 1:
            raise ctx.error(
                "a 1-D kernel is a list of numbers or expressions; a 2-D kernel needs "
                "shape: [H, W], the grid it slides over",
                f"{where}.kernel",
            )
        if len(kernel) > n:
            raise ctx.error(f"kernel has {len(kernel)} entries, more than n = {n}", f"{where}.kernel")
        return Conv(kernel, n, _bias(raw, ctx, where, n))
    try:
        shape = parse_shape(raw["shape"])
    except GdlcheckError as err:
        raise ctx.error(err.what, f"{where}.shape") from None
    n = ctx.need_n(where, int(np.prod(shape)), symbolic=symbolic)
    if kernel.ndim != len(shape):
        raise ctx.error(f"kernel is {kernel.ndim}-D but shape {list(shape)} is {len(shape)}-D", f"{where}.kernel")
    if any(k > s for k, s in zip(kernel.shape, shape)):
        raise ctx.error(
            f"kernel of shape {list(kernel.shape)} is larger than the grid {list(shape)}", f"{where}.kernel"
        )
    return Conv(kernel, shape, _bias(raw, ctx, where, n))


# --------------------------------------------------------------------------- deepsets


class DeepSets(Linear):
    """``Y = alpha X + beta 11^T X``: the matrix ``alpha*I + beta*11^T`` (Theorem 2), built from
    ``alpha`` and ``beta`` (the rule trusts the matrix because it is built so)."""

    kind = "deepsets"

    def __init__(self, alpha, beta, n: int):
        self.alpha, self.beta, self.n = alpha, beta, int(n)
        self._parameters = np.array([alpha, beta], dtype=object)
        super().__init__(identity_plus_ones(alpha, beta, self.n))

    def symbols(self):
        # alpha's and beta's: at n = 1 the matrix is only alpha + beta, where a symbol can cancel
        # (a + b and -b), and the trials must still give it a value to rebuild the layer from them
        return free_symbols(self._parameters)

    def subs(self, values):
        alpha, beta = numeric(self._parameters, values)
        return type(self)(float(alpha), float(beta), self.n)

    def form_is_exact(self) -> bool:
        """The diagonal ``alpha + beta`` did not round (``1e-17 + 1`` is 1)."""
        return _diagonal_exact(self.alpha, self.beta, self.W)

    def form_rounding(self) -> float | None:
        """A rounded diagonal ``alpha + beta`` is off by half an ulp of itself at most."""
        if self.form_is_exact():
            return 0.0
        return None if self.W.dtype == object else 2.0**-52

    def forward_symbolic(self, X, A=None):
        # from alpha and beta, not from the float64 matrix, whose diagonal alpha + beta may round; a
        # diagonal that overflows is still the input error it is for every other exact pass
        if self.W.dtype != object and not np.all(np.isfinite(self.W)):
            raise LayerError(NOT_FINITE)
        total = np.repeat(X.sum(axis=0, keepdims=True), X.shape[0], axis=0)
        return exact_array(self.alpha) * X + exact_array(self.beta) * total

    def rule(self, group, gens):
        """Theorem 2: ``alpha*I + beta*11^T`` commutes with every permutation (it is built so)."""
        return Rule("theorem2", "Theorem 2")


def _diagonal_exact(alpha, beta, W: np.ndarray) -> bool:
    """``alpha*I + beta*11^T`` holds the exact values: its diagonal ``alpha + beta`` did not round."""
    if W.dtype == object:
        return exact_entries(W)
    return exact_sum(np.float64(alpha), np.float64(beta))


def identity_plus_ones(alpha, beta, n: int) -> np.ndarray:
    """``alpha*I + beta*11^T``: float64 for numbers, sympy entries when either is symbolic."""
    symbolic = hasattr(alpha, "free_symbols") or hasattr(beta, "free_symbols")
    W = np.full((n, n), beta, dtype=object if symbolic else np.float64)
    np.fill_diagonal(W, alpha + beta)
    return W


class ChannelDeepSets(Composite):
    """``Y = X Lambda + 11^T X Gamma`` (Theorem 2 with channels)."""

    kind = "deepsets"
    mixes_points = True  # 11^T X
    _weights = ("lam", "gamma")

    def __init__(self, lam, gamma, n=None):
        self.lam, self.gamma, self.n = lam, gamma, n
        self.in_channels, self.out_channels = int(lam.shape[0]), int(lam.shape[1])

    def forward(self, X, A=None):
        pooled = X.sum(axis=0, keepdims=True) @ self.gamma
        return X @ self.lam + np.repeat(pooled, X.shape[0], axis=0)

    def linear_form(self):
        """One channel: the n x n matrix ``lambda*I + gamma*11^T``, built only within MAX_MATRIX_ENTRIES
        (past it the layer is proved by Theorem 2 and checked row-wise, with no n x n matrix)."""
        if self.lam.shape == (1, 1) and self.n is not None and self.n * self.n <= MAX_MATRIX_ENTRIES:
            return identity_plus_ones(self.lam[0, 0], self.gamma[0, 0], self.n), None
        return None

    def form_is_exact(self) -> bool:
        """The diagonal ``lambda + gamma`` did not round (``1e-17 + 1`` is 1)."""
        form = self.linear_form()
        return form is None or _diagonal_exact(self.lam[0, 0], self.gamma[0, 0], form[0])

    def rule(self, group, gens):
        """Theorem 2 with channels: ``X Lambda + 11^T X Gamma`` commutes with every permutation."""
        return Rule("theorem2", "Theorem 2")

    def symbolic_size(self, n, d, size):
        return int(self.lam.shape[1]), (n + 1) * d * (size + 2) + 1

    def aggregations(self, X, A=None):
        n = X.shape[0]
        if self.lam.shape == (1, 1) and not is_symbolic_array(self.lam) and not is_symbolic_array(self.gamma):
            # one channel: Y = (lambda I + gamma 11^T) X, the same G as alpha/beta DeepSets
            return [float(self.lam[0, 0]) * np.eye(n) + float(self.gamma[0, 0]) * np.ones((n, n))]
        return [np.eye(n), np.ones((n, n))]  # Y = I X Lambda + 11^T X Gamma: two terms, each static


@register("deepsets", keys=("alpha", "beta", "lambda", "gamma"))
def _build_deepsets(raw, ctx, where):
    if "lambda" in raw or "gamma" in raw:
        if "alpha" in raw or "beta" in raw:
            raise ctx.error("give alpha and beta, or lambda and gamma, not both", where)
        for key in ("lambda", "gamma"):
            if key not in raw:
                raise ctx.error(f"layer kind 'deepsets' with channels needs key {key!r}", where)
        lam = ctx.matrix(raw["lambda"], f"{where}.lambda")
        gamma = ctx.matrix(raw["gamma"], f"{where}.gamma")
        if gamma.shape != lam.shape:
            raise ctx.error(
                f"gamma is {shape_text(gamma)}, expected the shape of lambda ({shape_text(lam)})", f"{where}.gamma"
            )
        return ChannelDeepSets(lam, gamma, ctx.n)
    for key in ("alpha", "beta"):
        if key not in raw:
            raise ctx.error(f"layer kind 'deepsets' needs key {key!r}", where)
    alpha = ctx.scalar(raw["alpha"], f"{where}.alpha")
    beta = ctx.scalar(raw["beta"], f"{where}.beta")
    # alpha*I + beta*11^T is n^2 entries, symbolic ones if alpha or beta is
    n = ctx.need_n(where, symbolic=hasattr(alpha, "free_symbols") or hasattr(beta, "free_symbols"))
    return DeepSets(alpha, beta, n)
