"""Building layers from spec trees: the registry of kinds and what a builder reads.

A kind registers its builder with :func:`register`, declaring the spec keys it accepts, so
unknown keys are rejected with a suggestion before the builder runs.  Builders read their
keys with the helpers here (weights, scalars, choices), which put the key path and the
YAML line into every error.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.errors import GdlcheckError, SpecError
from gdlcheck.inputs.arrays import to_array
from gdlcheck.inputs.matrices import load_matrix
from gdlcheck.inputs.spec import KEY_MEANINGS, Spec, check_keys, confined_path
from gdlcheck.layers.activations import ACTIVATION_NAMES
from gdlcheck.layers.base import Layer, free_symbols, shape_text
from gdlcheck.limits import MAX_LAYERS, MAX_MATRIX_ENTRIES, MAX_SPEC_ENTRIES, MAX_SYMBOLIC_ENTRIES
from gdlcheck.text import printable, shorten, suggest


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
    entries: int = 0  # weight entries built so far (n x n layers expanded), against MAX_SPEC_ENTRIES
    symbolic_entries: int = 0  # of them symbolic, against MAX_SYMBOLIC_ENTRIES

    def restart(self) -> None:
        """Before building the layer tree again (now that n is known): nothing built yet."""
        self.built = self.entries = self.symbolic_entries = 0

    def count(self, entries: int, where: str, symbolic: bool = False, what: str = "weights") -> None:
        """Count ``entries`` built at ``where`` against the spec's budgets, before building them:
        the products matter, not each layer alone (21 deepsets at n = 4096 are 3.5e8 entries)."""
        self.entries += entries
        if self.entries > MAX_SPEC_ENTRIES:
            raise self.error(
                f"the spec's {what} would have {self.entries} entries together (n x n layers "
                f"expanded), over the limit of {MAX_SPEC_ENTRIES}",
                where,
            )
        if symbolic:
            self.symbolic_entries += entries
            if self.symbolic_entries > MAX_SYMBOLIC_ENTRIES:
                raise self.error(
                    f"the spec's symbolic weights would have {self.symbolic_entries} entries "
                    f"(n x n layers expanded), over the limit of {MAX_SYMBOLIC_ENTRIES} (symbolic "
                    "entries are compared one by one)",
                    where,
                )

    def error(self, what: str, where: str) -> SpecError:
        if self.spec is not None:
            return self.spec.error(what, where)
        return SpecError(what, file=self.path, where=where)

    def need_n(self, where: str, n: int | None = None, symbolic: bool = False) -> int:
        """The number of points (``n`` where the layer itself fixes it), within the size budget,
        for a layer that builds an n x n matrix (counted, symbolic or not, against the spec's)."""
        if n is not None and self.n is not None and n != self.n:
            raise self.error(f"the layer acts on {n} points but the group on n = {self.n}", where)
        n = self.n if n is None else n
        if n is None:
            raise self.error("the number of points n is not known: give symmetry: {group: ..., n: N} or -n N", where)
        if n * n > MAX_MATRIX_ENTRIES:
            raise self.error(
                f"the layer's n x n matrices at n = {n} would have {n * n:.3g} entries, "
                f"over the limit of {MAX_MATRIX_ENTRIES}",
                where,
            )
        self.count(n * n, where, symbolic, "n x n matrices" if not symbolic else "weights")
        return n

    def value(self, raw, where: str, ndim: int | None = 2, shape: tuple | None = None) -> np.ndarray:
        """A weight: a literal, ``{file: w.npy}`` (relative to the spec) or ``{random: [rows, cols]}``."""
        if isinstance(raw, dict):
            check_keys(raw, ("file", "random"), where, self.spec)
            if len(raw) != 1:
                raise self.error("a weight is a literal, {file: PATH} or {random: [rows, cols]}", where)
            if "file" in raw:
                a = self._from_file(raw["file"], f"{where}.file", ndim)
            else:
                a = self._random(raw["random"], f"{where}.random")
        else:
            try:
                a = to_array(raw, where, ndim=ndim)
            except GdlcheckError as err:
                raise err.located(file=self.path) from None
        self.count(int(a.size), where, a.dtype == object)
        if ndim is not None and a.ndim != ndim:
            raise self.error(f"expected a {ndim}-D array, got shape {list(a.shape)}", where)
        if shape is not None and tuple(a.shape) != tuple(shape):
            raise self.error(f"has shape {shape_text(a)}, expected {' x '.join(map(str, shape))}", where)
        return a

    def _from_file(self, name, where: str, ndim: int | None = 2) -> np.ndarray:
        """A weight read from a matrix file: ``ndim=1`` a vector (a 1-D array, or one row or
        column), None as stored (1-D or 2-D)."""
        if not isinstance(name, str) or not name:
            raise self.error("file must be a path", where)
        shown = printable(shorten(name, 60))
        try:
            full = confined_path(self.spec, name)
            return load_matrix(full, what="weight", ndim=ndim)
        except GdlcheckError as err:
            named = "outside the spec's folder" in err.what or "cannot hold a NUL" in err.what
            raise self.error(str(err.what) + ("" if named else f" ({shown})"), where) from None

    def _random(self, dims, where: str) -> np.ndarray:
        if isinstance(dims, int) and not isinstance(dims, bool):
            dims = [dims]
        if (
            not isinstance(dims, list)
            or not dims
            or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims)
        ):
            raise self.error("random takes a list of positive sizes, e.g. {random: [4, 4]}", where)
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

    # ----------------------------------------------------------------- keys of a layer

    def matrix(self, raw_value, where: str, rows: int | None = None) -> np.ndarray:
        """A 2-D weight; float64 unless it holds symbols; ``rows`` checks the input channels."""
        return self._weight(raw_value, where, 2, rows, "rows, expected {} (the input channels)")

    def vector(self, raw_value, where: str, length: int | None = None) -> np.ndarray:
        """A 1-D weight; float64 unless it holds symbols; ``length`` checks its size."""
        return self._weight(raw_value, where, 1, length, "entries, expected {}")

    def _weight(self, raw_value, where: str, ndim: int, size: int | None, mismatch: str) -> np.ndarray:
        a = self.value(raw_value, where, ndim=ndim)
        if a.dtype == object and not free_symbols(a):
            a = a.astype(np.float64)
        if size is not None and a.shape[0] != size:
            raise self.error(f"has {a.shape[0]} " + mismatch.format(size), where)
        return a

    def activation(self, raw: dict, key: str, where: str, default: str, extra: tuple = ()) -> str:
        name = raw.get(key, default)
        if name is None:
            name = default
        allowed = tuple(extra) + ACTIVATION_NAMES
        if not isinstance(name, str) or name not in allowed:
            raise self.error(
                f"unknown activation {name!r}{suggest(name, allowed)}; known: {', '.join(allowed)}", f"{where}.{key}"
            )
        return name

    def choice(self, raw: dict, key: str, where: str, allowed: tuple, default):
        value = raw.get(key, default)
        if value is None:
            value = default
        if isinstance(value, bool) or value not in allowed:
            raise self.error(
                f"{key} must be one of {', '.join(map(str, allowed))}, got {value!r}{suggest(value, allowed)}",
                f"{where}.{key}",
            )
        return value

    def integer(self, raw: dict, key: str, where: str, default=None, minimum: int = 1) -> int:
        value = raw.get(key, default)
        if value is None:
            raise self.error(f"missing key {key!r}", where)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.error(f"{key} must be an integer >= {minimum}, got {value!r}", f"{where}.{key}")
        return value

    def flag(self, raw: dict, key: str, where: str, default: bool) -> bool:
        value = raw.get(key, default)
        if not isinstance(value, bool):
            raise self.error(f"{key} must be true or false, got {value!r}", f"{where}.{key}")
        return value

    def eps(self, raw: dict, where: str) -> float:
        """``eps``: a positive number; ``1e-5`` is accepted although YAML reads it as a string."""
        value = raw.get("eps", 1e-5)
        try:
            eps = float(self.scalar(value, f"{where}.eps"))
        except (GdlcheckError, TypeError):
            eps = math.nan
        if not (math.isfinite(eps) and eps > 0):
            raise self.error(f"eps must be a positive number, got {value!r}", f"{where}.eps")
        return eps

    def check_points(self, count: int, where: str, what: str) -> None:
        if self.n is not None and count != self.n:
            raise self.error(f"{what} has {count} points but the group acts on n = {self.n}", where)


# --------------------------------------------------------------------------- the registry

# (raw, ctx, where) -> the layer; the sequential's also takes items_at=, where a list written in place of
# a layer puts its items (where[i], not where.layers[i])
Builder = Callable[..., Layer]
KINDS: dict[str, tuple[Builder, tuple[str, ...], tuple[str, ...]]] = {}


def register(name: str, keys: tuple[str, ...] = (), required: tuple[str, ...] = ()):
    """Register a layer kind: ``keys`` are the spec keys it accepts besides ``kind`` and ``name``."""

    def decorate(builder: Builder) -> Builder:
        KINDS[name] = (builder, tuple(keys), tuple(required))
        return builder

    return decorate


def build_layer(raw, ctx: BuildContext, where: str = "layer") -> Layer:
    """Build the layer tree ``raw`` (a mapping with ``kind``, or a list = sequential)."""
    if isinstance(raw, list):
        # a list is a sequential; its items sit at where[i] in the file
        builder = KINDS["sequential"][0]
        layer = builder({"kind": "sequential", "layers": raw}, ctx, where, items_at=where)
        layer.path = where
        return layer
    if not isinstance(raw, dict):
        raise ctx.error("a layer is a mapping with a 'kind' key, or a list of layers", where)
    ctx.built += 1
    if ctx.built > MAX_LAYERS:
        raise ctx.error(f"the spec has more than {MAX_LAYERS} layers (every trial runs them all)", where)
    kind = raw.get("kind")
    if kind is None:
        meant = [k for k in raw if KEY_MEANINGS.get(str(k).lower()) == "kind"]
        if meant:  # 'type: conv' for 'kind: conv'
            raise ctx.error(
                f"unknown key {meant[0]!r} (did you mean 'kind'?): a layer names its kind with kind: {raw[meant[0]]}",
                f"{where}.{meant[0]}",
            )
        raise ctx.error("missing key 'kind'", where)
    if not isinstance(kind, str) or kind not in KINDS:
        raise ctx.error(
            f"unknown layer kind {kind!r}{suggest(kind, KINDS)}; known: {', '.join(sorted(KINDS))}", f"{where}.kind"
        )
    builder, keys, required = KINDS[kind]
    check_keys(raw, ("kind", "name") + keys, where, ctx.spec)
    for key in required:
        if key not in raw:
            raise ctx.error(f"layer kind {kind!r} needs key {key!r}", where)
    layer = builder(raw, ctx, where)
    layer.path = where
    return layer
