"""The results the Python API returns: the library's results, each with ``to_json()``.

The library's results are plain data (:mod:`gdlcheck.verification.result`,
:mod:`gdlcheck.derivation.sharing`, ...); these subclasses and wrappers add the JSON the
command line prints, from :mod:`gdlcheck.output.report`, so a result never serialises
itself through a module below it.

They also show themselves: a one-line ``repr``, ``report()`` for the text report the command
prints, ``_repr_html_`` for Jupyter (the same report in colour) and, where the command draws
one, ``plot()`` for the ``--plot`` picture as a matplotlib figure.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields

import numpy as np

from gdlcheck.errors import GdlcheckError, LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.inputs.expr import parse_expr
from gdlcheck.inspection import Inspection
from gdlcheck.output import report
from gdlcheck.output.words import counterexample, json_float
from gdlcheck.symmetries import Symmetries
from gdlcheck.verification import Check, VerifyResult

# The sympy matrix of a derivation is built entry by entry: keep it for readable sizes.
MAX_SYMPY_MATRIX_ENTRIES = 1 << 16


# The width of report() and of the notebook's HTML: rich lays the reports out for it.
REPORT_WIDTH = 100


class _Shown:
    """``report()`` and ``_repr_html_`` from the renderable a subclass gives in ``_renderable``."""

    def _renderable(self):
        raise NotImplementedError

    def report(self, width: int = REPORT_WIDTH) -> str:
        """The text report ``gdlcheck`` prints for this result, laid out for ``width`` columns."""
        return _console(width, self._renderable()).export_text()

    def _repr_html_(self) -> str:
        return _console(REPORT_WIDTH, self._renderable()).export_html(
            inline_styles=True, code_format='<pre style="font-family: monospace; line-height: 1.25">{code}</pre>')


def _console(width: int, renderable):
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, record=True, force_terminal=False, force_jupyter=False,
                      color_system="truecolor", legacy_windows=False, soft_wrap=False)
    console.print(renderable)
    return console


def _matrix_picture(result, W, verdict: str):
    from gdlcheck.derivation import project
    from gdlcheck.output import plot, plot_pictures

    P, distance = project(W, result.group)
    return plot.figure(plot_pictures.matrix_picture(result.input, W, P, result.group, distance, verdict,
                                                    tol=result._tol, cells=plot_pictures.counterexample_cells(result)))


def _upgrade(cls, value):
    """``value`` (a dataclass instance) as an instance of its subclass ``cls``, same fields."""
    return cls(**{f.name: getattr(value, f.name) for f in fields(value)})


class ReportedCheck(Check):
    """A :class:`~gdlcheck.verification.Check` with its witness as the JSON ``counterexample``."""

    @property
    def counterexample(self) -> dict | None:
        return counterexample(self.witness)

    def __repr__(self) -> str:
        result = {True: "PASS", False: "FAIL", None: "UNDECIDED"}[self.passed]
        error = "" if self.relative_error is None else f", relative error {self.relative_error:.3g}"
        return f"<Check {self.generator} {self.method}: {result}{error}>"


class Verified(_Shown, VerifyResult):
    """A :class:`~gdlcheck.verification.VerifyResult` with ``to_json()`` (``verify --format json``);
    each check also gives its witness as ``counterexample`` (the JSON object).

    ``report()`` is the text report, ``plot()`` the ``verify --plot`` picture of a matrix input.
    """

    # the matrix verified and the tolerance it was judged by, for plot(); None for a spec or code
    _matrix: np.ndarray | None = None
    _tol: float | None = None

    def to_json(self) -> dict:
        return report.verify_json(self)

    def plot(self):
        """The ``verify --plot`` picture: the matrix, its projection and ``W - P``, as a
        matplotlib ``Figure`` (``.savefig(path)`` writes it).

        Raises
        ------
        GdlcheckError
            for a spec or code (their layer is not one matrix), a symbolic matrix, or without
            matplotlib (``pip install 'gdlcheck[plot]'``).
        """
        W = self._matrix
        if W is None or W.dtype == object:
            raise GdlcheckError("plot() draws a matrix of numbers; this result is of "
                                f"{'a symbolic matrix' if W is not None else 'a ' + self.kind}")
        word = {"fails": "FAIL", "inconclusive": "INCONCLUSIVE"}.get(self.verdict, "PASS")
        return _matrix_picture(self, W, word)

    def _renderable(self):
        from gdlcheck.output.render_verify import render_verify

        return render_verify(self)

    def __repr__(self) -> str:
        return (f"<Verified {self.verdict}: {self.input} ({self.kind}) against {self.group.describe()}, "
                f"{len(self.checks)} check(s)>")


class Inspected(_Shown, Inspection):
    """An :class:`~gdlcheck.inspection.Inspection` with ``to_json()`` (``inspect --format json``)."""

    def to_json(self) -> dict:
        return report.inspect_json(self)

    def _renderable(self):
        from gdlcheck.output.render_inspect import render_inspect

        return render_inspect(self)

    def __repr__(self) -> str:
        return f"<Inspected {self.input}: G depends on {self.depends_on}>"


class Found(_Shown, Symmetries):
    """:class:`~gdlcheck.symmetries.Symmetries` with ``to_json(input)`` (``symmetries --format json``)."""

    def to_json(self, input: str = "<matrix>") -> dict:
        return report.symmetries_json(input, self)

    def _renderable(self):
        from gdlcheck.output.render_groups import render_symmetries

        return render_symmetries("<matrix>", self)

    def __repr__(self) -> str:
        return f"<Found {self.group.describe()}, order {self.group.order_text}>"


@dataclass
class Projected(_Shown):
    """The nearest equivariant matrix ``matrix`` (orbit averages), the relative Frobenius
    distance ``|W - P| / |W|`` of the input to it, and the group."""

    matrix: np.ndarray
    distance: float
    group: PermGroup

    def to_json(self, input: str = "<matrix>") -> dict:
        return report.project_json(input, self.group, self.matrix, self.distance)

    def _renderable(self):
        from gdlcheck.output.render_derive import render_project

        return render_project("<matrix>", self.group, self.matrix, self.distance)

    def __repr__(self) -> str:
        n = self.matrix.shape[0]
        return f"<Projected {n} x {n} onto {self.group.describe()}: relative distance {self.distance:.3g}>"


@dataclass
class TensorChecked:
    """One tensor of a weights file, checked (:func:`gdlcheck.api.verify_weights`): its verdict as
    a :class:`Verified` and its relative distance ``|W - P| / |W|`` to the nearest equivariant
    matrix, or the error that kept it from being checked."""

    input: str
    name: str
    shape: tuple[int, ...]
    result: Verified | None = None
    distance: float | None = None
    error: GdlcheckError | None = None

    @property
    def verdict(self) -> str:
        return self.result.verdict if self.result is not None else "error"

    def to_json(self, message: str | None = None) -> dict:
        """``verify FILE --format json`` for one tensor: ``verify``'s object with ``"input"`` the
        file, ``"tensor"`` its name, ``"shape"`` and ``"relative_distance"``; an error's object for one that could not
        be checked (``message``: the error as the caller words it)."""
        if self.result is None:
            out = report.error_json(self.input, message or str(self.error))
        else:
            out = self.result.to_json()
            out["input"] = self.input
        out = {**{k: out[k] for k in ("schema_version", "input")}, "tensor": self.name,
               "shape": list(self.shape), **out}
        if self.result is not None:
            out["relative_distance"] = json_float(self.distance)   # project's key
        return out

    def __repr__(self) -> str:
        tail = f"distance {self.distance:.3g}" if self.result is not None else str(self.error)
        return f"<TensorChecked {self.name} {self.verdict}: {tail}>"


class Derived(_Shown):
    """The equivariant linear maps of a group between two tensor orders (:func:`gdlcheck.derive`).

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

    Other attributes of :class:`gdlcheck.derivation.Derivation` are passed through.
    """

    def __init__(self, derivation):
        self.derivation = derivation

    def __getattr__(self, name):
        if name == "derivation":
            raise AttributeError(name)
        return getattr(self.derivation, name)

    @property
    def dimension(self) -> int:
        return self.derivation.dimension

    @property
    def form(self) -> str:
        return self.derivation.form

    @property
    def parameters(self) -> list[str]:
        return self.derivation.parameters

    @property
    def pattern(self) -> np.ndarray:
        return self.derivation.pattern

    @property
    def basis(self) -> np.ndarray:
        return self.derivation.basis()

    @property
    def matrix(self):
        """The ``n x n`` sympy Matrix of the form (order 1 -> 1), e.g. ``theta_((i - j) mod n)``.

        Raises
        ------
        GdlcheckError
            for other orders; LimitError past 65536 entries (use ``pattern``).
        """
        d = self.derivation
        if (d.out_order, d.in_order) != (1, 1):
            raise GdlcheckError(f"matrix is the order 1 -> 1 form; this derivation is order {d.in_order} -> "
                                f"{d.out_order}: use pattern or basis")
        if d.n * d.n > MAX_SYMPY_MATRIX_ENTRIES:
            raise LimitError(f"a {d.n} x {d.n} sympy matrix has {d.n * d.n} entries, over the limit of "
                             f"{MAX_SYMPY_MATRIX_ENTRIES}; use pattern and parameters")
        import sympy

        # The entry names are gdlcheck's own ("theta_3", "alpha + beta"), parsed by the
        # whitelisting parser rather than sympify.
        entries = [parse_expr(e) for e in d.entry_names()]
        pattern = d.pattern
        return sympy.Matrix(d.n, d.n, lambda i, j: entries[int(pattern[i, j])])

    def to_json(self) -> dict:
        """The ``derive --format json`` object (DESIGN.md section 6)."""
        return report.derive_json(self.derivation)

    def plot(self):
        """The ``derive --plot`` picture (the sharing pattern coloured by orbit, and for a 2-D grid
        group the map of kernel offsets) as a matplotlib ``Figure``."""
        from gdlcheck.output import plot, plot_pictures

        return plot.figure(plot_pictures.derive_picture(self.derivation))

    def _renderable(self):
        from gdlcheck.output.render_derive import render_derive

        return render_derive(self.derivation)

    def __repr__(self) -> str:
        d = self.derivation
        return (f"<Derived {d.group.describe()} order {d.in_order} -> {d.out_order}: {d.form}, "
                f"dimension {d.dimension}>")


def verified(result: VerifyResult, matrix: np.ndarray | None = None, tol: float | None = None) -> Verified:
    """``result`` as the API returns it; ``matrix`` is the matrix input that ``plot()`` draws, with
    the tolerance level ``tol`` on its colour bar."""
    out = _upgrade(Verified, result)
    out.checks = [_upgrade(ReportedCheck, c) for c in result.checks]
    out._matrix, out._tol = matrix, tol
    return out


def inspected(result: Inspection) -> Inspected:
    return _upgrade(Inspected, result)


def found(result: Symmetries) -> Found:
    return _upgrade(Found, result)
