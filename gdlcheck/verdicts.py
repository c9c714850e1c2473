"""The words of a result, each in one place: a verdict and a method.

A :class:`Verdict` is the JSON word (``holds``, ``fails``, ...) and everything said about it: the
word a report shows (``PASS``), its style, its meaning in a sentence, whether it passes and the
command line's exit code.  A :class:`Method` is the JSON word of ``--method`` and of a check's
``method``.  Both are strings (``Verdict.HOLDS == "holds"``, the same hash, ``json.dumps`` writes
the word), so the JSON is the word itself and a result compares equal to the word the README
shows; every report, the command line and JUnit read the rest from the member.

A new verdict is one member here and its row of ``_SHOWN`` (word, style, meaning, whether it passes,
exit code), with its tests; :mod:`gdlcheck.verification.verdict` decides when a result reaches it.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

# The command line's exit codes of a verdict (docs/usage.md): 0 holds, 1 does not hold, 2 an input
# that could not be read, 3 inconclusive.
EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INCONCLUSIVE = 0, 1, 2, 3


class Word(str, Enum):
    """A member that is its word: printed, formatted, hashed and written to JSON as the string."""

    __hash__ = str.__hash__

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class Verdict(Word):
    """A result's verdict (JSON ``"verdict"``); docs/verdicts.md says what each means."""

    HOLDS = "holds"  # exact check: holds with no deviation at all
    HOLDS_WITHIN_TOLERANCE = "holds_within_tolerance"  # exact check: deviation within tol of the largest entry
    HOLDS_NUMERICALLY = "holds_numerically"  # only the numeric check applies, and it holds
    FAILS = "fails"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"  # the input could not be read
    NOT_JUDGED = "not_judged"  # a tensor of a weights file that is not a map on the points

    @property
    def word(self) -> str:
        """The word a report shows: ``PASS``, ``FAIL``, ``INCONCLUSIVE``, ``ERROR`` (``-``: not judged)."""
        return _SHOWN[self].word

    @property
    def style(self) -> str:
        """The rich style of :attr:`word`."""
        return _SHOWN[self].style

    @property
    def meaning(self) -> str:
        """What the verdict says, after the word (``holds exactly``)."""
        return _SHOWN[self].meaning

    @property
    def passed(self) -> bool:
        """Whether the layer has the symmetry (every ``holds``)."""
        return _SHOWN[self].passed

    @property
    def exit_code(self) -> int:
        """The command line's exit code (a tensor not judged counts for nothing: 0)."""
        return _SHOWN[self].exit_code


class Shown(NamedTuple):
    word: str
    style: str
    meaning: str
    passed: bool
    exit_code: int


# Everything said about each verdict: a new verdict is a member above and its row here.
_SHOWN = {
    Verdict.HOLDS: Shown("PASS", "bold green", "holds exactly", True, EXIT_OK),
    Verdict.HOLDS_WITHIN_TOLERANCE: Shown("PASS", "bold green", "holds within tolerance (not exactly)", True, EXIT_OK),
    Verdict.HOLDS_NUMERICALLY: Shown("PASS", "bold green", "holds on every numeric trial", True, EXIT_OK),
    Verdict.FAILS: Shown("FAIL", "bold red", "does not hold", False, EXIT_FAIL),
    Verdict.INCONCLUSIVE: Shown(
        "INCONCLUSIVE", "bold yellow", "could not be decided exactly", False, EXIT_INCONCLUSIVE
    ),
    Verdict.ERROR: Shown("ERROR", "bold red", "input error", False, EXIT_INPUT),
    Verdict.NOT_JUDGED: Shown("-", "dim", "not judged: not a map on the points", False, EXIT_OK),
}


class Method(Word):
    """How a layer is checked (``--method``, ``method=``), and a check's method (``exact`` or ``numeric``)."""

    AUTO = "auto"  # both where they apply: the exact check, the trials where it cannot decide
    EXACT = "exact"  # compare the weights (sympy for symbols), or the proof of a torch module
    NUMERIC = "numeric"  # random inputs
    BOTH = "both"

    @property
    def word(self) -> str:
        """The word the options and the reports use."""
        return self.value
