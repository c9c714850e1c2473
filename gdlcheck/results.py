"""The results the Python API returns: the library's results, each with ``to_json()``.

The library's results are plain data (:mod:`gdlcheck.verification.result`,
:mod:`gdlcheck.derivation.sharing`, ...); these subclasses and wrappers add the JSON the
command line prints, from :mod:`gdlcheck.output.report`, so a result never serialises
itself through a module below it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from gdlcheck.errors import GdlcheckError, LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.inputs.expr import parse_expr
from gdlcheck.inspection import Inspection
from gdlcheck.output import report
from gdlcheck.output.words import counterexample
from gdlcheck.symmetries import Symmetries
from gdlcheck.verification import Check, VerifyResult

# The sympy matrix of a derivation is built entry by entry: keep it for readable sizes.
MAX_SYMPY_MATRIX_ENTRIES = 1 << 16


def _upgrade(cls, value):
    """``value`` (a dataclass instance) as an instance of its subclass ``cls``, same fields."""
    return cls(**{f.name: getattr(value, f.name) for f in fields(value)})


class ReportedCheck(Check):
    """A :class:`~gdlcheck.verification.Check` with its witness as the JSON ``counterexample``."""

    @property
    def counterexample(self) -> dict | None:
        return counterexample(self.witness)


class Verified(VerifyResult):
    """A :class:`~gdlcheck.verification.VerifyResult` with ``to_json()`` (``verify --format json``);
    each check also gives its witness as ``counterexample`` (the JSON object)."""

    def to_json(self) -> dict:
        return report.verify_json(self)


class Inspected(Inspection):
    """An :class:`~gdlcheck.inspection.Inspection` with ``to_json()`` (``inspect --format json``)."""

    def to_json(self) -> dict:
        return report.inspect_json(self)


class Found(Symmetries):
    """:class:`~gdlcheck.symmetries.Symmetries` with ``to_json(input)`` (``symmetries --format json``)."""

    def to_json(self, input: str = "<matrix>") -> dict:
        return report.symmetries_json(input, self)


@dataclass
class Projected:
    """The nearest equivariant matrix ``matrix`` (orbit averages), the relative Frobenius
    distance ``|W - P| / |W|`` of the input to it, and the group."""

    matrix: np.ndarray
    distance: float
    group: PermGroup

    def to_json(self, input: str = "<matrix>") -> dict:
        return report.project_json(input, self.group, self.matrix, self.distance)


class Derived:
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

    def __repr__(self) -> str:
        d = self.derivation
        return (f"<Derived {d.group.describe()} order {d.in_order} -> {d.out_order}: {d.form}, "
                f"dimension {d.dimension}>")


def verified(result: VerifyResult) -> Verified:
    out = _upgrade(Verified, result)
    out.checks = [_upgrade(ReportedCheck, c) for c in result.checks]
    return out


def inspected(result: Inspection) -> Inspected:
    return _upgrade(Inspected, result)


def found(result: Symmetries) -> Found:
    return _upgrade(Found, result)
