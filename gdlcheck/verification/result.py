"""What verification produces, as plain data: residuals, judged checks, the result of a run.

Measuring (:mod:`~gdlcheck.verification.measure`) gives one :class:`Residual` per generator
and method, with a typed witness and no tolerance; judging
(:mod:`~gdlcheck.verification.verdict`) turns residuals into :class:`Check` s and a verdict;
:mod:`gdlcheck.output` turns all of it into JSON and sentences.  Nothing here prints or words
anything: :class:`Verified` (what ``gdlcheck.verify`` returns), its checks and
:class:`TensorChecked` reach their JSON, report and picture through :mod:`gdlcheck.shown`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from gdlcheck.errors import GdlcheckError
from gdlcheck.groups import PermGroup, cycle_string
from gdlcheck.layers import Fact
from gdlcheck.layers.proofs import Disagreement, Proof, Step, Stop  # noqa: F401  (re-exported)
from gdlcheck.shown import Serialised, Shown, figure_of, presenter_of
from gdlcheck.tolerances import ROUNDING, TOL
from gdlcheck.verdicts import Method, Verdict


class JudgedCondition(Protocol):
    """One condition of a kernel's check (``tensors.KernelCheck``): the generator's role, the
    difference, where it is largest, and whether it holds."""

    @property
    def role(self) -> str: ...
    @property
    def max_abs_error(self) -> float: ...
    @property
    def relative_error(self) -> float: ...
    @property
    def index(self) -> tuple[int, ...] | None: ...
    @property
    def passed(self) -> bool: ...


class Judged(Protocol):
    """What :class:`TensorChecked` and its JSON read of a kernel's check (``tensors.KernelChecked``,
    which sits above this module): its verdict, whether it passes, and its conditions."""

    @property
    def verdict(self) -> str: ...
    @property
    def passed(self) -> bool: ...
    @property
    def checks(self) -> Sequence[JudgedCondition]: ...


METHODS = tuple(m.value for m in Method)

# Verdicts (JSON "verdict"), as the members of gdlcheck.verdicts.Verdict
HOLDS = Verdict.HOLDS
HOLDS_WITHIN_TOLERANCE = Verdict.HOLDS_WITHIN_TOLERANCE
HOLDS_NUMERICALLY = Verdict.HOLDS_NUMERICALLY
FAILS = Verdict.FAILS
INCONCLUSIVE = Verdict.INCONCLUSIVE
ERROR = Verdict.ERROR
NOT_JUDGED = Verdict.NOT_JUDGED
# why a square tensor of a weights file was checked at its own n: the group's size was not given
# (TensorChecked.why; gdlcheck.verification.tensors says what each tensor is)
OWN_N = "own_n"


def generator_name(s: np.ndarray) -> str:
    """The cycle string that names generator ``s`` (an array form) in residuals and checks."""
    return cycle_string(tuple(s.tolist()))


@dataclass
class Options:
    method: str = Method.AUTO
    tol: float = TOL
    trials: int = 8
    seed: int = 0
    # trials of a proved generator within rounding * (the largest magnitude on the way) measured
    # rounding; magnitude: what the trials do not see themselves (a module's parameters, buffers)
    rounding: float = ROUNDING["float64"]
    magnitude: float = 0.0
    # float64 code that computes in float32 inside: its trials are off by float32 rounding, which
    # fails a float64 check but is no wrong rule (None: no lower precision to allow for)
    lower_rounding: float | None = None


@dataclass(frozen=True)
class Law:
    """How the input's graph and the output move under ``g`` (the input X always moves by P).

    ``graph``: ``None`` (no graph), ``both`` (``P A P^T``), ``rows`` (``P A``), ``fixed`` (``A``);
    ``output``: ``P`` (equivariant), ``PT`` (``P^T``), ``none`` (invariant).
    """

    graph: str | None = None
    output: str = "P"


# --------------------------------------------------------------------------- witnesses


@dataclass(frozen=True)
class WeightWitness:
    """A pair of weights the generator should map onto each other: ``W[image_entry] != W[entry]``
    (``b[...]`` when the entries have one index: the bias).  Values are floats, or sympy
    expressions for symbolic weights."""

    entry: tuple[int, ...]
    image_entry: tuple[int, ...]
    value: object
    image_value: object
    # numeric weights: the pair that differs most, where it is not this one (the first pair over the
    # tolerance, the counterexample a failure names by docs/design.md section 5, may be off by rounding
    # where another is off by a trained drift)
    largest: WeightWitness | None = None


@dataclass(frozen=True)
class TrialWitness:
    """The random input that shows the largest error: trial ``trial`` drawn from
    ``numpy.random.default_rng([seed, trial])``, and the output entry that differs most."""

    trial: int
    seed: int
    entry: tuple[int, ...]
    expected: float | None
    got: float | None
    output: str | None = None  # which of code's outputs (``[1]``, ``['weights']``); None: the only one


@dataclass(frozen=True)
class MovedCallWitness(TrialWitness):
    """A traced proof's own trial (:class:`~gdlcheck.layers.proofs.Disagreement`): its second call, on
    ``g X`` for the group element ``element`` (cycles), X drawn as trial ``trial`` would be;
    ``entry`` is the first output entry that differs past the tolerance rule."""

    element: str = ""


@dataclass(frozen=True)
class OutputWitness:
    """The symbolic forward pass: output ``entry`` of ``f(PX)`` is ``got``, the law wants ``expected``."""

    entry: tuple[int, ...]
    expected: object
    got: object


@dataclass(frozen=True)
class ShapeWitness:
    """``f(PX)`` and the law's target have different shapes."""

    got: tuple[int, ...]
    expected: tuple[int, ...]


Witness = WeightWitness | TrialWitness | MovedCallWitness | OutputWitness | ShapeWitness


# --------------------------------------------------------------------------- residuals and checks


@dataclass
class Residual:
    """What one method measured for one generator, with no tolerance applied.

    ``max_abs``/``relative``: the largest deviation and its size against the data's scale
    (None where nothing numeric is measured: symbolic comparisons); ``exact``: True when the
    two sides are identical (zero deviation, or proved equal), False when they differ
    (nonzero deviation, or proved different), None when undecided; ``detail``: how an exact
    comparison was decided (a key of :data:`gdlcheck.output.words.DETAILS`); ``symbolic``:
    the two sides were compared as expressions, so ``exact`` alone decides (no tolerance).
    """

    generator: str
    method: str
    max_abs_error: float | None = None
    relative_error: float | None = None
    exact: bool | None = None
    witness: Witness | None = None
    trials: int | None = None
    detail: str | None = None
    symbolic: bool = False
    magnitude: float | None = None  # trials: the largest |value| of their inputs and outputs (rounding's scale)


@dataclass(repr=False)
class Check(Serialised, Residual):
    """A residual judged against the tolerance: ``passed`` True, False, or None (undecided).

    ``to_json()`` is its object in ``verify``'s ``"checks"``; ``counterexample`` is the
    witness as that object's ``"counterexample"``.
    """

    passed: bool | None = None

    @property
    def counterexample(self) -> dict | None:
        return self.to_json()["counterexample"]

    def __repr__(self) -> str:
        result = {True: "PASS", False: "FAIL", None: "UNDECIDED"}[self.passed]
        error = "" if self.relative_error is None else f", relative error {self.relative_error:.3g}"
        return f"<Check {self.generator} {self.method}: {result}{error}>"


@dataclass(repr=False)
class Verified(Shown):
    """The outcome of verifying one input (:func:`gdlcheck.verify`, ``gdlcheck verify``).

    ``passed``, ``verdict`` (``holds``, ``holds_within_tolerance``, ``holds_numerically``,
    ``fails``, ``inconclusive``) and ``checks`` (one per generator and method, each with its
    witness as ``counterexample``).  ``notes`` and ``diagnosis`` are typed facts
    (:class:`gdlcheck.layers.Fact`), worded by :mod:`gdlcheck.output.words`; ``constraints``
    are solved equations (``b = c``), and ``unsatisfiable`` says that no values of the symbols
    make the layer hold.

    ``to_json()`` is the ``verify --format json`` object, ``report()`` the text report,
    ``plot()`` the ``verify --plot`` picture of a matrix input.
    """

    input: str
    kind: str
    group: PermGroup
    expect: str
    passed: bool
    verdict: str
    checks: list[Check]
    constraints: list[str] = field(default_factory=list)
    unsatisfiable: bool = False
    name: str | None = None
    notes: list[Fact] = field(default_factory=list)
    diagnosis: list[Fact] | None = None
    proof: Proof | None = None
    # where a failure was located (JSON "culprit"): {"path", "generator", "kind", ...}; a spec's from its
    # proof (the sublayer whose condition fails), code's from forward hooks (the submodule, with "relative_error")
    culprit: dict | None = None
    # the matrix verified and the tolerance it was judged by, for plot(); None for a spec or code
    _matrix: np.ndarray | None = field(default=None, compare=False)
    _tol: float | None = field(default=None, compare=False)

    @property
    def failing(self) -> list[Check]:
        return [c for c in self.checks if c.passed is False]

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
            raise GdlcheckError(
                "plot() draws a matrix of numbers; this result is of "
                f"{'a symbolic matrix' if W is not None else 'a ' + self.kind}"
            )
        return figure_of(self)

    def __repr__(self) -> str:
        return (
            f"<Verified {self.verdict}: {self.input} ({self.kind}) against {self.group.describe()}, "
            f"{len(self.checks)} check(s)>"
        )


@dataclass(repr=False)
class TensorChecked(Serialised):
    """One tensor of a weights file, checked (:func:`gdlcheck.verify_weights`): its verdict as
    a :class:`Verified` and its relative distance ``|W - P| / |W|`` to the nearest equivariant
    matrix, or the error that kept it from being checked."""

    input: str
    name: str
    shape: tuple[int, ...]
    result: Verified | None = None
    distance: float | None = None
    error: GdlcheckError | None = None
    # what the tensor is (gdlcheck.verification.tensors: matrix, bias, kernel, other), its own n,
    # why one is not judged, and a kernel's check (a KernelChecked) in place of ``result``
    role: str = "matrix"
    n: int | None = None
    why: str | None = None
    kernel: Judged | None = None

    @property
    def verdict(self) -> str:
        if self.result is not None:
            return NOT_JUDGED if self.undecided else self.result.verdict
        if self.kernel is not None:
            return self.kernel.verdict
        return NOT_JUDGED if self.error is None else ERROR

    @property
    def undecided(self) -> bool:
        """Checked at its own n (the group's size not given) and found not to commute: it may mix
        features rather than points, so it is not judged (``result`` keeps the check)."""
        return self.why == OWN_N and self.result is not None and self.result.verdict == FAILS

    @property
    def judged(self) -> bool:
        return (self.result is not None and not self.undecided) or self.kernel is not None

    def to_json(self, message: str | None = None) -> dict:
        """``verify FILE --format json`` for one tensor: ``verify``'s object with ``"input"`` the
        file, ``"tensor"`` its name, ``"shape"`` and ``"relative_distance"``; an error's object for one that could not
        be checked (``message``: the error as the caller words it)."""
        return presenter_of(self).json(self, message)

    def __repr__(self) -> str:
        tail = (
            f"distance {self.distance:.3g}"
            if self.result is not None
            else str(self.error)
            if self.error is not None
            else self.why or self.verdict
        )
        return f"<TensorChecked {self.name} {self.verdict}: {tail}>"


class TensorsChecked(list, Shown):
    """What :func:`gdlcheck.verify_weights` returns: a list of :class:`TensorChecked`, one per
    tensor, that shows itself as ``verify FILE`` prints it (``report()``, and the table in a
    notebook); ``to_json()`` is the list of the tensors' JSON objects."""

    def __repr__(self) -> str:
        return f"[{', '.join(map(repr, self))}]"
