"""``Derived``: the equivariant maps of one group between two tensor orders, as data; what
:func:`gdlcheck.derive` returns (its JSON, report and picture through :mod:`gdlcheck.shown`).

Its ``pattern`` (the orbit of each index cell) is built on first use, so a closed form is
named and printed without it.  Pattern numbering: cyclic, dihedral and translations use the
offset (translations: the offset vector ``(coord(i) - coord(j)) mod shape`` flattened
row-major, so ``translations`` on shape ``n`` equals ``cyclic`` on ``n``); every other group
numbers orbits by the row-major order of their first cell (symmetric 1 -> 1: diagonal 0,
off-diagonal 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.derivation.cells import MAX_BASIS_ENTRIES, check_cells, check_count, full_labels, orbit_labels
from gdlcheck.errors import GdlcheckError, LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.inputs.expr import parse_expr
from gdlcheck.limits import MAX_JSON_CELLS, MAX_JSON_PATTERN_CELLS
from gdlcheck.shown import Shown, figure_of

# The sympy matrix of a derivation is built entry by entry: keep it for readable sizes.
MAX_SYMPY_MATRIX_ENTRIES = 1 << 16


@dataclass(repr=False)
class Derived(Shown):
    """The equivariant linear maps of a group between two tensor orders (:func:`gdlcheck.derive`).

    ``pattern`` (int32, shape ``(n,) * (out_order + in_order)``, output indices first) holds
    the orbit index of each cell.  It is built on first use: closed forms give ``label`` (a
    function of broadcastable index arrays), so a form can be shown without it.

    Attributes
    ----------
    dimension : int
        the number of orbits: basis elements of the one-channel map.
    form : str
        the form's name (``"circulant"``, ``"alpha*I + beta*11^T"``, ``"orbit basis"`` ...).
    formula : str
        e.g. ``"W[i, j] = theta_((i - j) mod n)"``.
    parameters : list[str]
        the parameter of each orbit, ``parameters[k]`` for orbit ``k``.
    pattern : numpy.ndarray
        int, shape ``(n,) * (out_order + in_order)`` (output indices first): the orbit of each entry.
    basis : numpy.ndarray
        int8 0/1, shape ``(dimension,) + pattern.shape``.
    matrix : sympy.Matrix
        ``n x n`` symbolic matrix (order 1 -> 1 only), ``matrix[i, j]`` is orbit ``pattern[i, j]``'s entry.
    free_parameters : int
        ``dimension * channels_in * channels_out``.

    ``to_json()`` is the ``derive --format json`` object (docs/design.md section 6), ``report()``
    the text report, ``plot()`` the ``derive --plot`` picture.
    """

    group: PermGroup
    in_order: int
    out_order: int
    dimension: int
    form: str  # the form's name, e.g. "circulant"
    formula: str  # e.g. "W[i, j] = theta_((i - j) mod n)"
    name_of: Callable[[int], str]  # parameter name of orbit k
    entry_of: Callable[[int], str] | None = None  # the matrix entry of orbit k (order 1 -> 1)
    label: Callable[..., np.ndarray] | None = None  # closed form: index arrays -> orbit index
    partitions: list[str] | None = None  # symmetric group: the set partition of each orbit, by name ...
    blocks: list[tuple[int, ...]] | None = None  # ... and as the block of each index slot
    grid: tuple[int, ...] | None = None  # a circular convolution on this grid shape (see convolution_kernel)
    channels_in: int = 1
    channels_out: int = 1
    notes: list[str] = field(default_factory=list)
    _pattern: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.group.n

    @property
    def order(self) -> int:
        return self.in_order + self.out_order

    @property
    def cells(self) -> int:
        return self.n**self.order

    @property
    def free_parameters(self) -> int:
        return self.dimension * self.channels_in * self.channels_out

    @property
    def unconstrained_parameters(self) -> int:
        n = self.n
        return (n**self.out_order * self.channels_out) * (n**self.in_order * self.channels_in)

    @property
    def pattern(self) -> np.ndarray:
        if self._pattern is None:
            check_cells(self.n, self.order)
            if self.label is not None:
                self._pattern = full_labels(self.label, self.n, self.order)
            else:
                self._pattern = orbit_labels(self.group, self.order)
        return self._pattern

    def pattern_block(self, rows, cols) -> np.ndarray:
        """``pattern[np.ix_(rows, cols)]`` for order 1 -> 1, without building the whole pattern."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if self._pattern is None and self.label is not None:
            return np.broadcast_to(self.label(rows[:, None], cols[None, :]), (len(rows), len(cols)))
        return self.pattern[np.ix_(rows, cols)]

    def convolution_kernel(self) -> np.ndarray | None:
        """The orbit of each offset, where the form is a circular convolution on a grid; else None.

        At order 1 -> 1 the forms of cyclic, dihedral, translations, p4 and p4m depend on the
        offset ``(coord(i) - coord(j)) mod grid`` only: ``pattern[i, j] == kernel[offset]``, so
        ``W x`` is the circular convolution of ``x`` with ``theta[kernel]``.  Column 0 (the point
        at the origin) holds every offset once; the kernel has the grid's shape (``(n,)`` for
        cyclic and dihedral) and costs ``n`` cells, never the pattern.
        """
        if self.grid is None:
            return None
        column = self.pattern_block(np.arange(self.n, dtype=np.int64), np.zeros(1, dtype=np.int64))
        return np.asarray(column[:, 0]).reshape(self.grid)

    def orbit_means(self, values) -> np.ndarray:
        """The mean of ``values`` over each orbit, for each trailing entry.

        ``values`` has the pattern's shape followed by any trailing axes (channels); the result is
        ``(dimension,) + trailing``.  The orbit indicators are an orthogonal basis of the
        equivariant maps, so ``means[pattern]`` is the orthogonal projection of ``values`` onto
        them (:func:`gdlcheck.project` at order 1 -> 1, channel by channel).
        """
        values = np.asarray(values, dtype=float)
        pattern = self.pattern
        if values.shape[: pattern.ndim] != pattern.shape:
            raise GdlcheckError(f"values of shape {values.shape} do not start with the pattern's shape {pattern.shape}")
        trailing = values.shape[pattern.ndim :]
        flat = values.reshape(pattern.size, -1)
        labels = pattern.ravel()
        counts = np.bincount(labels, minlength=self.dimension)
        sums = np.stack(
            [np.bincount(labels, weights=flat[:, e], minlength=self.dimension) for e in range(flat.shape[1])], axis=1
        )
        return (sums / counts[:, None]).reshape((self.dimension,) + trailing)

    @property
    def parameters(self) -> list[str]:
        check_count(self.dimension, "parameter names")
        return [self.name_of(k) for k in range(self.dimension)]

    def entry_names(self) -> list[str]:
        fn = self.entry_of or self.name_of
        return [fn(k) for k in range(self.dimension)]

    def entry(self, k: int) -> str:
        return (self.entry_of or self.name_of)(k)

    def matrix_strings(self) -> list[list[str]] | None:
        """``matrix[i][j]``: the entry as a string, for order 1 -> 1."""
        if (self.out_order, self.in_order) != (1, 1):
            return None
        names = np.asarray(self.entry_names(), dtype=object)
        return names[self.pattern].tolist()

    def json_cells(self) -> int:
        """The cells of the pattern its JSON may hold: at 1 -> 1 the JSON also carries the matrix of
        entry names (one Python string per cell); otherwise only the pattern, written row by row."""
        return MAX_JSON_CELLS if (self.out_order, self.in_order) == (1, 1) else MAX_JSON_PATTERN_CELLS

    @property
    def basis(self) -> np.ndarray:
        """The basis array: ``dimension x (out shape) x (in shape)``, 0/1 entries (int8)."""
        total = self.dimension * self.cells
        if total > MAX_BASIS_ENTRIES:
            other = "use --format json for the pattern" if self.cells <= self.json_cells() else "use the text report"
            raise LimitError(
                f"the basis array would have {self.dimension} x {self.cells} = {total:.3g} entries "
                f"({total / 2**30:.3g} GiB as int8), over the limit of {MAX_BASIS_ENTRIES} entries; {other}"
            )
        flat = self.pattern.ravel()
        out = np.zeros((self.dimension, flat.size), dtype=np.int8)
        out[flat, np.arange(flat.size)] = 1
        return out.reshape((self.dimension,) + self.pattern.shape)

    @property
    def matrix(self):
        """The ``n x n`` sympy Matrix of the form (order 1 -> 1), e.g. ``theta_((i - j) mod n)``.

        Raises
        ------
        GdlcheckError
            for other orders; LimitError past 65536 entries (use ``pattern``).
        """
        if (self.out_order, self.in_order) != (1, 1):
            raise GdlcheckError(
                f"matrix is the order 1 -> 1 form; this derivation is order {self.in_order} -> "
                f"{self.out_order}: use pattern or basis"
            )
        n = self.n
        if n * n > MAX_SYMPY_MATRIX_ENTRIES:
            raise LimitError(
                f"a {n} x {n} sympy matrix has {n * n} entries, over the limit of "
                f"{MAX_SYMPY_MATRIX_ENTRIES}; use pattern and parameters"
            )
        import sympy

        # The entry names are gdlcheck's own ("theta_3", "alpha + beta"), parsed by the
        # whitelisting parser rather than sympify.
        entries = [parse_expr(e) for e in self.entry_names()]
        pattern = self.pattern
        return sympy.Matrix(n, n, lambda i, j: entries[int(pattern[i, j])])

    def plot(self):
        """The ``derive --plot`` picture (the sharing pattern coloured by orbit, and for a 2-D grid
        group the map of kernel offsets) as a matplotlib ``Figure``."""
        return figure_of(self)

    def __repr__(self) -> str:
        return (
            f"<Derived {self.group.describe()} order {self.in_order} -> {self.out_order}: {self.form}, "
            f"dimension {self.dimension}>"
        )
