"""The words of a result, each in one place: a verdict and a method.

A :class:`Verdict` is the JSON word (``holds``, ``fails``, ...) and everything said about it: the
word a report shows (``PASS``), its style, its meaning in a sentence, whether it passes and the
command line's exit code.  A :class:`Method` is the JSON word of ``--method`` and of a check's
``method``.  Both are strings (``Verdict.HOLDS == "holds"``, the same hash, ``json.dumps`` writes
the word), so the JSON is the word itself and a result compares equal to the word the README
shows; every report, the command line and JUnit read the rest from the member.

A new verdict is one member here, with its word, style, meaning and exit code, and its tests.
"""

from __future__ import annotations

from enum import Enum

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

    HOLDS = "holds"                                    # exact check: holds with no deviation at all
    HOLDS_WITHIN_TOLERANCE = "holds_within_tolerance"  # exact check: deviation within tol of the largest entry
    HOLDS_NUMERICALLY = "holds_numerically"            # only the numeric check applies, and it holds
    FAILS = "fails"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"                                    # the input could not be read
    NOT_JUDGED = "not_judged"                          # a tensor of a weights file that is not a map on the points

    @property
    def word(self) -> str:
        """The word a report shows: ``PASS``, ``FAIL``, ``INCONCLUSIVE``, ``ERROR`` (``-``: not judged)."""
        return _SHOWN[self][0]

    @property
    def style(self) -> str:
        """The rich style of :attr:`word`."""
        return _SHOWN[self][1]

    @property
    def meaning(self) -> str:
        """What the verdict says, after the word (``holds exactly``)."""
        return _SHOWN[self][2]

    @property
    def passed(self) -> bool:
        """Whether the layer has the symmetry (every ``holds``)."""
        return self in (Verdict.HOLDS, Verdict.HOLDS_WITHIN_TOLERANCE, Verdict.HOLDS_NUMERICALLY)

    @property
    def exit_code(self) -> int:
        """The command line's exit code (a tensor not judged counts for nothing: 0)."""
        return _EXIT.get(self, EXIT_OK)


_SHOWN = {
    Verdict.HOLDS: ("PASS", "bold green", "holds exactly"),
    Verdict.HOLDS_WITHIN_TOLERANCE: ("PASS", "bold green", "holds within tolerance (not exactly)"),
    Verdict.HOLDS_NUMERICALLY: ("PASS", "bold green", "holds on every numeric trial"),
    Verdict.FAILS: ("FAIL", "bold red", "does not hold"),
    Verdict.INCONCLUSIVE: ("INCONCLUSIVE", "bold yellow", "could not be decided exactly"),
    Verdict.ERROR: ("ERROR", "bold red", "input error"),
    Verdict.NOT_JUDGED: ("-", "dim", "not judged: not a map on the points"),
}
_EXIT = {Verdict.FAILS: EXIT_FAIL, Verdict.INCONCLUSIVE: EXIT_INCONCLUSIVE, Verdict.ERROR: EXIT_INPUT}


class Method(Word):
    """How a layer is checked (``--method``, ``method=``), and a check's method (``exact`` or ``numeric``)."""

    AUTO = "auto"          # both where they apply: the exact check, the trials where it cannot decide
    EXACT = "exact"        # compare the weights (sympy for symbols), or the proof of a torch module
    NUMERIC = "numeric"    # random inputs
    BOTH = "both"

    @property
    def word(self) -> str:
        """The word the options and the reports use."""
        return self.value
