"""The layer protocol, the base of composite layers, and exact/numeric weight helpers.

``X`` is ``n x d``: rows are the set elements / nodes / positions that the group permutes.
A layer may also say it is exactly linear (``linear_form``), which lets verification
compare weights entry by entry instead of probing with random inputs.

Facts a layer knows about its own structure (why a generator breaks it, why its
aggregation matrix is not symmetric) are returned as typed :class:`Fact` records; the
sentences that say them are in :mod:`gdlcheck.output.words`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gdlcheck.errors import GdlcheckError, LayerError
from gdlcheck.inputs.arrays import exact_number
from gdlcheck.inputs.evaluate import compile_array
from gdlcheck.layers.proofs import Rule

# What the aggregation matrix G of Y = G(X, A) V(X) depends on, from least to most.
DEPENDS_ORDER = {"constant": 0, "offset": 1, "graph": 2, "content": 3}


@dataclass(frozen=True)
class Fact:
    """A fact about a layer's structure: ``what`` it is (a key of the output's sentences) and
    the values that go into its sentence (``args``)."""

    what: str
    args: dict = field(default_factory=dict)


class Layer:
    """A layer ``f(X)`` (or ``f(X, A)`` for graph layers).

    Attributes a kind may set:

    * ``kind``: the spec's kind name;
    * ``uses_graph``: the layer reads an adjacency ``A`` that is permuted with the features
      (``graph: input``), so the law is ``f(PX, P A P^T) = P f(X, A)``;
    * ``invariant``: the output has no point axis (pooling);
    * ``depends_on``: what the aggregation matrix G of ``Y = G(X, A) V(X)`` depends on;
    * ``in_channels``/``out_channels``: the channels it reads and writes (None: any or
      unchanged), and ``points``: the number of points it is tied to (None: any n);
    * ``supports_symbolic``: ``forward_symbolic`` runs on a matrix of sympy symbols;
    * ``mixes_points``: its forward pass multiplies X by an n x n matrix (its weights, G, the
      attention scores), which the numeric check's budget counts;
    * ``signature``: how code's inputs and outputs move (:class:`gdlcheck.code.signature.Signature`);
      None: X and the output by rows, the graph by ``P A P^T``.
    """

    kind = "layer"
    uses_graph = False
    invariant = False
    depends_on = "constant"
    in_channels: int | None = None
    out_channels: int | None = None
    points: int | None = None
    supports_symbolic = False
    mixes_points = False
    # Where the layer stands in its spec ("layer.layers[1]"), set when it is built.
    path = ""
    # How a combinator puts its sublayers together for the prover: "sequence" (each one's
    # output is the next one's input) or "residual" (X + f(X)); None for a layer of its own.
    combinator: str | None = None
    signature: Any = None  # code's Signature (see above); None for every other layer

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

    def children(self) -> list[Layer]:
        """Sublayers, in the order they run."""
        return []

    def asymmetries(self) -> list[Fact]:
        """Why this layer's aggregation matrix G is not symmetric, as far as its structure tells."""
        return []

    def linear_form(self):
        """``(W, b)`` when ``f(X) = W X + b`` exactly (W is n x n, b None, scalar or length n)."""
        return None

    def form_is_exact(self) -> bool:
        """The entries of ``linear_form`` are the map's exact values (a composed form may round)."""
        return True

    def form_rounding(self) -> float | None:
        """A bound on the relative rounding of each entry of ``linear_form`` (None: none known)."""
        return 0.0 if self.form_is_exact() else None

    def rule(self, group, gens: list[np.ndarray]) -> Rule | None:
        """The rule that makes this layer commute with each generator in ``gens`` (array forms
        of ``group``'s generators), with its side conditions; None: no rule for this kind."""
        return None

    def symbolic_size(self, n: int, d: int, size: float) -> tuple[int, float] | None:
        """For the symbolic pass's budget: the channels and a bound on the size (nodes) of each
        output entry when each of the ``n x d`` input entries has ``size`` nodes (None: no
        estimate, the pass does not run)."""
        return None

    def own_proof(self, group, expect: str, seed: int = 0):
        """A proof the layer makes of itself, as a :class:`~gdlcheck.layers.proofs.Proof` (a traced
        torch module reads its own computation); None: the prover walks ``rule`` and the
        combinators."""
        return None

    def transfer(self, state: str) -> str:
        """How the group acts on the output when it acts on the input as ``state`` and the
        rule's conditions hold: a map of rows keeps it (pooling overrides)."""
        return state

    def graph(self) -> np.ndarray | None:
        """The adjacency this layer (or a sublayer) reads, if any."""
        return None

    def pass_cost(self, n: int, channels: int) -> int | None:
        """The multiply-adds of one forward pass of this layer's own work on an ``n x channels``
        input, for the numeric check's budget (a combinator's parts count theirs); None: no
        estimate, for code gdlcheck did not build (its cost is the user's)."""
        return None

    def holds_point_matrices(self) -> bool:
        """Whether a forward pass holds dense n x n matrices besides the weights (a dense graph,
        attention's scores): the numeric check refuses them past the matrix budget."""
        A = self.graph()
        return A is not None and not hasattr(A, "nnz")

    def symbols(self) -> set:
        return set()

    def subs(self, values: dict) -> Layer:
        """A numeric copy with the symbols replaced by ``values``."""
        return self


# --------------------------------------------------------------------------- exact and numeric weights

_LAMBDIFIED: dict[int, tuple] = {}  # id(array) -> (array, symbols, compiled function)


def numeric(a, values: dict):
    """Substitute ``values`` into a symbolic array (or scalar) and return floats.

    The compiled function is kept per array, so trial after trial only evaluates it; the
    numbers inside the expressions are evaluated once, within bounds
    (:func:`gdlcheck.inputs.evaluate.compile_array`).  A weight that is not a finite real
    number at these values (``sqrt(a)`` or ``log(a)`` at a negative ``a``, an overflow) is a
    :class:`~gdlcheck.errors.LayerError`: it is never cast to a real number silently.
    """
    if isinstance(a, np.ndarray) and a.dtype == object:
        hit = _LAMBDIFIED.get(id(a))
        if hit is None or hit[0] is not a:
            syms = sorted(set().union(*(e.free_symbols for e in a.flat if hasattr(e, "free_symbols"))), key=str)
            f = _compiled(list(a.flat), syms) if syms else None
            if len(_LAMBDIFIED) >= 64:
                _LAMBDIFIED.pop(next(iter(_LAMBDIFIED)))
            hit = _LAMBDIFIED[id(a)] = (a, syms, f)
        _, syms, f = hit
        if not syms:
            return a.astype(np.float64)
        out = _real_values(_evaluated(f, [values[s] for s in syms], values), values)
        return out.reshape(a.shape)
    if hasattr(a, "free_symbols"):
        syms = sorted(a.free_symbols, key=str)
        return float(_real_values(_evaluated(_compiled([a], syms), [values[s] for s in syms], values), values)[0])
    return a


def _evaluated(f, args: list, values: dict):
    try:
        return f(*args)
    except GdlcheckError as err:
        raise LayerError(f"{err.what} (trial point {_point(values)})") from None


def _compiled(exprs: list, syms: list):
    """numpy code for the weights; a number inside them past float64 means the numeric check
    cannot run them (a LayerError: an exact verdict, where there is one, stands)."""
    try:
        return compile_array(exprs, syms)
    except GdlcheckError as err:
        raise LayerError(f"the numeric check cannot evaluate the weights: {err.what}") from None


def _real_values(raw, values: dict) -> np.ndarray:
    """The evaluated weights as float64, or a LayerError naming the point where they are not
    finite real numbers."""
    out = np.asarray(raw if not isinstance(raw, list) else [np.asarray(x) for x in raw])
    if out.dtype == object:
        out = np.asarray([complex(x) for x in out.ravel()]).reshape(out.shape)
    if np.iscomplexobj(out):
        if np.any(out.imag != 0):
            raise LayerError(
                f"the weights are not real at the trial point {_point(values)}: an expression is "
                "complex there (e.g. sqrt or log of a negative value)"
            )
        out = out.real
    out = out.astype(np.float64)
    if not np.all(np.isfinite(out)):
        raise LayerError(
            f"the weights are not finite real numbers at the trial point {_point(values)} (e.g. sqrt "
            "or log of a negative value, or an overflow)"
        )
    return out


def _point(values: dict) -> str:
    shown = ", ".join(f"{k} = {v:.3g}" for k, v in sorted(values.items(), key=lambda kv: str(kv[0]))[:6])
    return shown + (", ..." if len(values) > 6 else "")


NOT_FINITE = (
    "a weight of the layer is not finite in float64 (inf or NaN: large weights overflow where they "
    "are combined, as deepsets' alpha + beta); scale the weights down"
)


def exact_array(a):
    """Floats as exact sympy rationals (``0.1`` becomes ``1/10``), for symbolic forward passes.

    Raises
    ------
    LayerError
        for an inf or NaN (a weight built from finite entries can overflow): it has no exact value.
    """
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        if a.dtype == object:
            return a
        if not np.all(np.isfinite(a)):
            raise LayerError(NOT_FINITE)
        out = np.empty(a.shape, dtype=object)
        out.reshape(-1)[:] = [exact_number(x) for x in a.reshape(-1).tolist()]
        return out
    if isinstance(a, (int, float, np.floating, np.integer)):
        if not np.isfinite(a):
            raise LayerError(NOT_FINITE)
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


def is_symbolic_array(X) -> bool:
    return isinstance(X, np.ndarray) and X.dtype == object


def run(layer: Layer, X, A=None):
    """Run a sublayer numerically or symbolically, as ``X`` is."""
    return layer.forward_symbolic(X, A) if is_symbolic_array(X) else layer.forward(X, A)


def estimated_pass_cost(layer: Layer, n: int, channels: int) -> int:
    """The cost of one forward pass of a layer gdlcheck built: ``n d`` elementwise, ``n^2 d`` for
    an n x n matrix times X (``(nnz + n d) d`` on a sparse graph instead), and ``n`` x the
    entries of each channel weight (X W)."""
    A = layer.graph()
    if A is not None and hasattr(A, "nnz"):
        return (int(A.nnz) + n * channels) * channels
    cost = n * channels
    if layer.mixes_points:
        cost += n * n * channels
    arrays = getattr(layer, "_arrays", None)
    if arrays is not None:
        cost += n * sum(int(np.size(w)) for w in arrays() if isinstance(w, np.ndarray) and w.ndim == 2)
    return cost


# --------------------------------------------------------------------------- composite layers


class Composite(Layer):
    """A layer whose weights are named attributes (``_weights``) and sublayers ``_children``.

    ``symbols``/``subs`` and the exact (rational) copy used by ``forward_symbolic`` come from
    those two lists, so a kind only writes ``forward``.
    """

    _weights: tuple[str, ...] = ()
    _children: tuple[str, ...] = ()
    supports_symbolic = True

    def children(self) -> list[Layer]:
        out: list[Layer] = []
        for name in self._children:
            value = getattr(self, name)
            out.extend(value if isinstance(value, list) else [value])
        return out

    def _arrays(self):
        for name in self._weights:
            value = getattr(self, name)
            if isinstance(value, list):
                yield from (v for v in value if v is not None)
            elif value is not None:
                yield value

    def symbols(self) -> set:
        out = free_symbols(*self._arrays())
        for child in self.children():
            out |= child.symbols()
        return out

    def mapped(self, fn, children_fn=None):
        """A shallow copy with ``fn`` applied to every weight and ``children_fn`` to every sublayer."""
        new = copy.copy(self)
        for name in self._weights:
            value = getattr(self, name)
            if isinstance(value, list):
                setattr(new, name, [None if v is None else fn(v) for v in value])
            elif value is not None:
                setattr(new, name, fn(value))
        if children_fn is not None:
            for name in self._children:
                value = getattr(self, name)
                setattr(new, name, [children_fn(c) for c in value] if isinstance(value, list) else children_fn(value))
        return new

    def subs(self, values: dict) -> Composite:
        if not self.symbols():
            return self
        return self.mapped(lambda a: numeric(a, values), lambda c: c.subs(values))

    def forward_symbolic(self, X, A=None):
        # own weights become exact; children convert theirs when run() runs them
        return self.mapped(exact_array).forward(X, A)

    def pass_cost(self, n: int, channels: int) -> int:
        return estimated_pass_cost(self, n, channels)

    @property
    def depends_on(self) -> str:  # type: ignore[override]
        kids = self.children()
        if not kids:
            return "constant"
        return max((c.depends_on for c in kids), key=lambda d: DEPENDS_ORDER.get(d, 0))

    @property
    def uses_graph(self) -> bool:  # type: ignore[override]
        return any(c.uses_graph for c in self.children())

    def graph(self):
        """The input graph of the first part that reads one (``graph: input``), else the first
        fixed graph: a fixed GCN's own adjacency is not what the others are given."""
        kids = self.children()
        for c in [c for c in kids if c.uses_graph] + [c for c in kids if not c.uses_graph]:
            A = c.graph()
            if A is not None:
                return A
        return None


def points_of(layer: Layer) -> int | None:
    """The number of points a layer (or its first sublayer that says) is tied to."""
    p = getattr(layer, "points", None)
    if p is not None:
        return int(p)
    for child in layer.children():
        p = points_of(child)
        if p is not None:
            return p
    return None


def shape_text(a: np.ndarray) -> str:
    """``3 x 4`` for an array of shape (3, 4)."""
    return " x ".join(map(str, a.shape))
