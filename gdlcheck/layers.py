"""Layers built from spec trees: a registry of kinds, each with a numpy forward pass.

``X`` is ``n x d``: rows are the set elements / nodes / positions that the group permutes.
A layer may also say it is exactly linear (``linear_form``), which lets verification
compare weights entry by entry instead of probing with random inputs.

New kinds register with :func:`register`; the spec keys each kind accepts are declared
there, so unknown keys are rejected with a suggestion before the builder runs.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gdlcheck.errors import GdlcheckError, SpecError
from gdlcheck.matrices import exact_number, is_symbolic, to_array
from gdlcheck.spec import Spec, check_keys, suggest

# --------------------------------------------------------------------------- the base


class Layer:
    """A layer ``f(X)`` (or ``f(X, A)`` for graph layers).

    Attributes a kind may set:

    * ``kind``: the spec's kind name;
    * ``uses_graph``: the layer reads an adjacency ``A`` that is permuted with the features
      (``graph: input``), so the law is ``f(PX, P A P^T) = P f(X, A)``;
    * ``invariant``: the output has no point axis (pooling);
    * ``depends_on``: what the aggregation matrix G of ``Y = G(X, A) V(X)`` depends on.
    """

    kind = "layer"
    uses_graph = False
    invariant = False
    depends_on = "constant"
    # Channels the layer reads and writes (None: any / unchanged), and the number of points
    # it is tied to (None: any n); builders set them from the weights.
    in_channels: int | None = None
    out_channels: int | None = None
    points: int | None = None
    # Whether forward_symbolic runs on a matrix of sympy symbols (the exact check of
    # non-linear layers).
    supports_symbolic = False

    def forward(self, X: np.ndarray, A: np.ndarray | None = None) -> np.ndarray:
        raise NotImplementedError

    def forward_symbolic(self, X: np.ndarray, A: np.ndarray | None = None) -> np.ndarray:
        """``f(X)`` for an object array ``X`` of sympy expressions, in exact arithmetic.

        Given numbers become exact rationals first, so that ``f(PX)`` and ``P f(X)`` are built
        from the same terms and can be compared structurally.
        """
        raise NotImplementedError

    def aggregations(self, X: np.ndarray, A: np.ndarray | None = None) -> list[np.ndarray] | None:
        """The matrices G of the unified form ``Y = G(X, A) V(X)`` at ``X`` (None: no G of its own)."""
        return None

    def children(self) -> list["Layer"]:
        """Sublayers, in the order they run."""
        return []

    def breaks(self, s: np.ndarray) -> list[str]:
        """Reasons, known from the layer's structure, why generator ``s`` is not respected."""
        out: list[str] = []
        for child in self.children():
            out.extend(child.breaks(s))
        return out

    def linear_form(self):
        """``(W, b)`` when ``f(X) = W X + b`` exactly (W is n x n, b None, scalar or length n)."""
        return None

    def graph(self) -> np.ndarray | None:
        """The adjacency this layer (or a sublayer) reads, if any."""
        return None

    def symbols(self) -> set:
        return set()

    def subs(self, values: dict) -> "Layer":
        """A numeric copy with the symbols replaced by ``values``."""
        return self


_LAMBDIFIED: dict[int, tuple] = {}  # id(array) -> (array, symbols, compiled function)


def numeric(a, values: dict):
    """Substitute ``values`` into a symbolic array (or scalar) and return floats.

    The compiled function is kept per array, so trial after trial only evaluates it.
    """
    if isinstance(a, np.ndarray) and a.dtype == object:
        hit = _LAMBDIFIED.get(id(a))
        if hit is None or hit[0] is not a:
            import sympy

            syms = sorted(set().union(*(e.free_symbols for e in a.flat if hasattr(e, "free_symbols"))), key=str)
            f = sympy.lambdify(syms, sympy.Matrix(a.reshape(a.shape[0], -1)) if a.ndim else a, modules="numpy") \
                if syms else None
            if len(_LAMBDIFIED) >= 64:
                _LAMBDIFIED.pop(next(iter(_LAMBDIFIED)))
            hit = _LAMBDIFIED[id(a)] = (a, syms, f)
        _, syms, f = hit
        if not syms:
            return a.astype(np.float64)
        out = np.asarray(f(*[values[s] for s in syms]), dtype=np.float64)
        return out.reshape(a.shape)
    if hasattr(a, "free_symbols"):
        return float(a.subs(values))
    return a


def exact_array(a):
    """Floats as exact sympy rationals (``0.1`` becomes ``1/10``), for symbolic forward passes."""
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        if a.dtype == object:
            return a
        out = np.empty(a.shape, dtype=object)
        out.reshape(-1)[:] = [exact_number(x) for x in a.reshape(-1).tolist()]
        return out
    if isinstance(a, (int, float, np.floating, np.integer)):
        return exact_number(a)
    return a


def free_symbols(*arrays) -> set:
    out: set = set()
    for a in arrays:
        if isinstance(a, np.ndarray) and a.dtype == object:
            for e in a.flat:
                out |= getattr(e, "free_symbols", set())
        elif hasattr(a, "free_symbols"):
            out |= a.free_symbols
    return out


# --------------------------------------------------------------------------- building


@dataclass
class BuildContext:
    """What a builder needs besides its own keys: the spec, the size, the channels, the seed."""

    spec: Spec | None
    n: int | None
    channels: int = 1
    seed: int = 0
    path: str = "-"
    graph: np.ndarray | None = field(default=None, repr=False)
    built: int = 0  # layers built so far, against MAX_LAYERS

    def error(self, what: str, where: str) -> SpecError:
        if self.spec is not None:
            return self.spec.error(what, where)
        return SpecError(what, file=self.path, where=where)

    def need_n(self, where: str, n: int | None = None) -> int:
        """The number of points (``n`` where the layer itself fixes it), within the size budget."""
        if n is not None and self.n is not None and n != self.n:
            raise self.error(f"the layer acts on {n} points but the group on n = {self.n}", where)
        n = self.n if n is None else n
        if n is None:
            raise self.error("the number of points n is not known: give symmetry: {group: ..., n: N} or -n N", where)
        from gdlcheck.limits import MAX_MATRIX_ENTRIES

        if n * n > MAX_MATRIX_ENTRIES:
            raise self.error(f"the layer's n x n matrices at n = {n} would have {n * n:.3g} entries, "
                             f"over the limit of {MAX_MATRIX_ENTRIES}", where)
        return n

    def value(self, raw, where: str, ndim: int | None = 2, shape: tuple | None = None) -> np.ndarray:
        """A weight: a literal, ``{file: w.npy}`` (relative to the spec) or ``{random: [rows, cols]}``."""
        if isinstance(raw, dict):
            check_keys(raw, ("file", "random"), where, self.spec)
            if len(raw) != 1:
                raise self.error("a weight is a literal, {file: PATH} or {random: [rows, cols]}", where)
            if "file" in raw:
                a = self._from_file(raw["file"], f"{where}.file")
            else:
                a = self._random(raw["random"], f"{where}.random")
        else:
            try:
                a = to_array(raw, where, ndim=ndim)
            except GdlcheckError as err:
                raise err.located(file=self.path) from None
        if ndim is not None and a.ndim != ndim:
            raise self.error(f"expected a {ndim}-D array, got shape {list(a.shape)}", where)
        if shape is not None and tuple(a.shape) != tuple(shape):
            raise self.error(f"has shape {' x '.join(map(str, a.shape))}, expected {' x '.join(map(str, shape))}", where)
        return a

    def _from_file(self, name, where: str) -> np.ndarray:
        import os

        from gdlcheck.matrices import load_matrix

        if not isinstance(name, str) or not name:
            raise self.error("file must be a path", where)
        folder = self.spec.folder if self.spec is not None else os.getcwd()
        full = os.path.join(folder, name)
        try:
            return load_matrix(full, what="weight")
        except GdlcheckError as err:
            raise self.error(str(err.what) + f" ({name})", where) from None

    def _random(self, dims, where: str) -> np.ndarray:
        if isinstance(dims, int) and not isinstance(dims, bool):
            dims = [dims]
        if not isinstance(dims, list) or not dims or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0
                                                              for d in dims):
            raise self.error("random takes a list of positive sizes, e.g. {random: [4, 4]}", where)
        from gdlcheck.limits import MAX_MATRIX_ENTRIES

        if int(np.prod(dims)) > MAX_MATRIX_ENTRIES:
            raise self.error(f"{int(np.prod(dims))} random entries exceed the limit of {MAX_MATRIX_ENTRIES}", where)
        return self.rng(where).standard_normal(dims) / np.sqrt(dims[0])

    def rng(self, where: str) -> np.random.Generator:
        """A generator seeded by the spec's seed and the key path, so weights do not depend on order."""
        return np.random.default_rng([self.seed, zlib.crc32(where.encode())])

    def scalar(self, raw, where: str):
        if isinstance(raw, (list, dict)):
            raise self.error("expected a number or an expression", where)
        return to_array(raw, where, ndim=0)[()]


Builder = Callable[[dict, BuildContext, str], Layer]
KINDS: dict[str, tuple[Builder, tuple[str, ...], tuple[str, ...]]] = {}


def register(name: str, keys: tuple[str, ...] = (), required: tuple[str, ...] = ()):
    """Register a layer kind: ``keys`` are the spec keys it accepts besides ``kind`` and ``name``."""

    def decorate(builder: Builder) -> Builder:
        KINDS[name] = (builder, tuple(keys), tuple(required))
        return builder

    return decorate


def build_layer(raw, ctx: BuildContext, where: str = "layer") -> Layer:
    """Build the layer tree ``raw`` (a mapping with ``kind``, or a list = sequential)."""
    _load_kinds()
    if isinstance(raw, list):
        # a list is a sequential; its items sit at where[i] in the file
        builder = KINDS["sequential"][0]
        return builder({"kind": "sequential", "layers": raw}, ctx, where, items_at=where)
    if not isinstance(raw, dict):
        raise ctx.error("a layer is a mapping with a 'kind' key, or a list of layers", where)
    from gdlcheck.limits import MAX_LAYERS

    ctx.built += 1
    if ctx.built > MAX_LAYERS:
        raise ctx.error(f"the spec has more than {MAX_LAYERS} layers (every trial runs them all)", where)
    kind = raw.get("kind")
    if kind is None:
        raise ctx.error("missing key 'kind'", where)
    if not isinstance(kind, str) or kind not in KINDS:
        raise ctx.error(f"unknown layer kind {kind!r}{suggest(kind, KINDS)}; known: {', '.join(sorted(KINDS))}",
                        f"{where}.kind")
    builder, keys, required = KINDS[kind]
    check_keys(raw, ("kind", "name") + keys, where, ctx.spec)
    for key in required:
        if key not in raw:
            raise ctx.error(f"layer kind {kind!r} needs key {key!r}", where)
    return builder(raw, ctx, where)


def _load_kinds() -> None:
    """Import the modules that register further kinds (kept out of the import of this one)."""
    import importlib

    for module in EXTRA_KIND_MODULES:
        importlib.import_module(module)


# Modules that register more kinds when imported.
EXTRA_KIND_MODULES: list[str] = ["gdlcheck.nn"]


# --------------------------------------------------------------------------- linear kinds


@dataclass
class Linear(Layer):
    """``Y = W X + b``."""

    W: np.ndarray
    b: object = None
    kind: str = "linear"

    def forward(self, X, A=None):
        Y = self.W @ X
        if self.b is not None:
            b = np.asarray(self.b, dtype=np.float64)
            Y = Y + (b[:, None] if b.ndim == 1 else b)
        return Y

    supports_symbolic = True

    def forward_symbolic(self, X, A=None):
        Y = exact_array(self.W) @ X
        if self.b is not None:
            b = exact_array(self.b)
            Y = Y + (b[:, None] if isinstance(b, np.ndarray) and b.ndim == 1 else b)
        return Y

    @property
    def points(self):
        return int(self.W.shape[1])

    def aggregations(self, X, A=None):
        return [self.W]

    def breaks(self, s):
        if isinstance(self.b, np.ndarray) and self.b.ndim == 1 and self.b.shape[0] == len(s):
            moved = np.nonzero(self.b[s] != self.b)[0]
            if moved.size:
                k = int(moved[0])
                return [f"the bias is not constant on the orbits: b[{int(s[k])}] = {self.b[s[k]]} but "
                        f"b[{k}] = {self.b[k]}; a scalar bias (or one constant on each orbit) keeps the symmetry"]
        return []

    def linear_form(self):
        return self.W, self.b

    def symbols(self):
        return free_symbols(self.W, self.b if self.b is not None else None)

    def subs(self, values):
        b = None if self.b is None else numeric(self.b if isinstance(self.b, np.ndarray) else self.b, values)
        return type(self)(numeric(self.W, values), b, self.kind)


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
        raise ctx.error(f"weight is {W.shape[0]} x {W.shape[0]} but the group acts on n = {ctx.n} points",
                        f"{where}.weight")
    return Linear(W, _bias(raw, ctx, where, W.shape[0]))


def circulant(kernel: np.ndarray, shape) -> np.ndarray:
    """The circular convolution with ``kernel`` on a grid of ``shape`` (an int for 1-D), as a matrix.

    ``W[p, q] = kernel[(p - q) mod shape]`` coordinate by coordinate, zero past the kernel's
    extent; points are flattened row-major.  In 1-D, ``W[i, j] = kernel[(i - j) mod n]``.
    """
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    theta = np.zeros(shape, dtype=kernel.dtype)
    theta[tuple(slice(0, k) for k in kernel.shape)] = kernel
    coords = np.indices(shape).reshape(len(shape), -1)
    offsets = tuple((c[:, None] - c[None, :]) % size for c, size in zip(coords, shape))
    return theta[offsets]


@dataclass
class Conv(Linear):
    kind: str = "conv"
    depends_on = "offset"


@register("conv", keys=("kernel", "bias", "shape"), required=("kernel",))
def _build_conv(raw, ctx, where):
    kernel = ctx.value(raw["kernel"], f"{where}.kernel", ndim=None)
    if "shape" not in raw:
        n = ctx.need_n(where)
        if kernel.ndim != 1:
            raise ctx.error("a 1-D kernel is a list of numbers or expressions; a 2-D kernel needs "
                            "shape: [H, W], the grid it slides over", f"{where}.kernel")
        if len(kernel) > n:
            raise ctx.error(f"kernel has {len(kernel)} entries, more than n = {n}", f"{where}.kernel")
        return Conv(circulant(kernel, n), _bias(raw, ctx, where, n))
    from gdlcheck.groups import parse_shape

    try:
        shape = parse_shape(raw["shape"])
    except GdlcheckError as err:
        raise ctx.error(err.what, f"{where}.shape") from None
    n = ctx.need_n(where, int(np.prod(shape)))
    if kernel.ndim != len(shape):
        raise ctx.error(f"kernel is {kernel.ndim}-D but shape {list(shape)} is {len(shape)}-D", f"{where}.kernel")
    if any(k > s for k, s in zip(kernel.shape, shape)):
        raise ctx.error(f"kernel of shape {list(kernel.shape)} is larger than the grid {list(shape)}",
                        f"{where}.kernel")
    return Conv(circulant(kernel, shape), _bias(raw, ctx, where, n))


@dataclass
class DeepSets(Linear):
    kind: str = "deepsets"


@register("deepsets", keys=("alpha", "beta", "lambda", "gamma"))
def _build_deepsets(raw, ctx, where):
    if "lambda" in raw or "gamma" in raw:
        from gdlcheck.nn import build_channel_deepsets

        return build_channel_deepsets(raw, ctx, where)
    n = ctx.need_n(where)
    for key in ("alpha", "beta"):
        if key not in raw:
            raise ctx.error(f"layer kind 'deepsets' needs key {key!r}", where)
    alpha = ctx.scalar(raw["alpha"], f"{where}.alpha")
    beta = ctx.scalar(raw["beta"], f"{where}.beta")
    return DeepSets(identity_plus_ones(alpha, beta, n))


def identity_plus_ones(alpha, beta, n: int) -> np.ndarray:
    """``alpha*I + beta*11^T``: float64 for numbers, sympy entries when either is symbolic."""
    symbolic = hasattr(alpha, "free_symbols") or hasattr(beta, "free_symbols")
    W = np.full((n, n), beta, dtype=object if symbolic else np.float64)
    np.fill_diagonal(W, alpha + beta)
    return W


__all__ = ["Layer", "BuildContext", "build_layer", "register", "KINDS", "circulant", "identity_plus_ones",
           "is_symbolic"]
