"""Small text helpers every layer uses: did-you-mean, shortening, and the one shape parser."""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import get_close_matches

from gdlcheck.errors import GdlcheckError

# The number forms gdlcheck reads, wherever a number is written (entries, expressions, YAML
# values, options): an optional sign, decimal digits with at most one point, an optional
# exponent -- 3, -0.5, .5, 2., 1e-3, 2.5E+10.  Nothing else is a number: no 0x10, 0b1, 0o7,
# 1_000, Unicode digits, nan or inf (README, "Numbers").
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NUMBER_FORMS = "decimal numbers such as 3, -0.5, 1e-3"


def is_number_text(text: str) -> bool:
    """Whether ``text`` (surrounding blanks aside) is a number in one of the forms gdlcheck reads.

    >>> [is_number_text(t) for t in ("1e-3", " -.5 ", "0x10", "1_000", "nan", "\u0661")]
    [True, True, False, False, False, False]
    """
    return NUMBER.fullmatch(text.strip(" \t")) is not None


def suggest(word, allowed: Iterable[str], cutoff: float = 0.6, meanings: dict[str, str] | None = None) -> str:
    """`` (did you mean 'layer'?)`` for a word that means an allowed one (``meanings``: word -> the
    allowed word it means, e.g. ``rotations -> p4``), a near miss, or a prefix; else ``""``.

    Meaning wins over spelling: ``rotations`` is closer in letters to ``permutation`` than to
    anything else, but it means ``p4``.

    >>> suggest("layr", ["layer", "layers"])
    " (did you mean 'layer'?)"
    >>> suggest("zzz", ["layer"])
    ''
    >>> suggest("type", ["kind", "name"], meanings={"type": "kind"})
    " (did you mean 'kind'?)"
    """
    word = str(word)
    allowed = list(allowed)
    meant = (meanings or {}).get(word.strip().lower())
    if meant is not None and meant in allowed:
        return f" (did you mean {meant!r}?)"
    close = get_close_matches(word, allowed, n=1, cutoff=cutoff)
    if not close and len(word) >= 3:
        close = [a for a in allowed if len(a) >= 3 and (word.startswith(a) or a.startswith(word))][:1]
    return f" (did you mean {close[0]!r}?)" if close else ""


# Characters of an input value quoted in an error message: a short token, never a file's content
TOKEN = 16

# Integers of an expression are printed up to this many digits (Python refuses past 4300).
MAX_PRINT_DIGITS = 40_000


def safe_str(value) -> str:
    """``str(value)``, also for a sympy expression holding an integer past Python's 4300-digit
    limit (printed in full up to MAX_PRINT_DIGITS digits, else named by its size)."""
    try:
        return str(value)
    except ValueError:
        import sys

        if not hasattr(sys, "set_int_max_str_digits"):  # pragma: no cover - Python < 3.11 has no limit
            raise
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(MAX_PRINT_DIGITS)
        try:
            return str(value)
        except ValueError:
            return f"<an expression with a number of more than {MAX_PRINT_DIGITS} digits>"
        finally:
            sys.set_int_max_str_digits(old)


def printable(text, keep: str = "") -> str:
    r"""``text`` with every character that is not printable escaped: control characters (C0,
    DEL, C1 -- ESC starts a terminal escape), format characters (bidirectional overrides,
    zero-width marks), lone surrogates; ``keep`` lists characters left as they are.

    >>> printable("a\x1b[31mb\u202ec\udcff")
    'a\\x1b[31mb\\u202ec\\udcff'
    >>> printable("two\nlines", keep="\n")
    'two\nlines'
    """
    text = safe_str(text)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == " " or ch in keep:
            out.append(ch)
        else:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def shorten(text, width: int, ellipsis: str = "...") -> str:
    """``text`` if it fits in ``width`` characters, else its start and ``ellipsis``.

    >>> shorten("(0 1 2 3 4 5 6 7)", 10)
    '(0 1 2 ...'
    """
    text = safe_str(text)
    if len(text) <= width:
        return text
    return text[: width - len(ellipsis)] + ellipsis


def parse_shape(
    value, what: str = "shape", error: type[GdlcheckError] = GdlcheckError, example: str = "'8x8' or '4x4x4'"
) -> tuple[int, ...]:
    """``"8x8"``, ``"4x4x4"``, ``[8, 8]``, ``(6, 2)`` or ``8`` -> a tuple of positive ints.

    Raises ``error`` (a :class:`GdlcheckError` subclass) that quotes the value.

    >>> parse_shape("4x4x4")
    (4, 4, 4)
    >>> parse_shape([6, 2])
    (6, 2)
    """
    if isinstance(value, str):
        parts = value.lower().replace("\u00d7", "x").split("x")
        try:
            dims = tuple(int(p) for p in parts)
        except ValueError:
            raise error(f"{what} {value!r} is not like {example}") from None
    elif _is_int(value):
        dims = (int(value),)
    elif isinstance(value, (list, tuple)):
        if not all(_is_int(d) for d in value):
            raise error(f"{what} {list(value)!r} must be a list of positive integers")
        dims = tuple(int(d) for d in value)
    else:
        raise error(f"{what} {value!r} is not like {example}")
    if not dims or any(d < 1 for d in dims):
        raise error(f"{what} {value!r} must have positive sides")
    return dims


def _is_int(value) -> bool:
    import numbers

    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


# A permutation in a sentence (a note, a culprit) longer than this is abbreviated: the full cycle
# string stays in the JSON checks and in the counterexample line
CYCLES_WIDTH = 120


def short_cycles(text: str, width: int = CYCLES_WIDTH) -> str:
    """A permutation's cycle string abbreviated to about ``width`` characters, still in cycle
    notation: a long cycle keeps its first three and last two points around ``…``, and the cycles
    past the width are counted.  Text that is no cycle string, or that fits, is returned as is.

    >>> short_cycles("(" + " ".join(map(str, range(512))) + ")")
    '(0 1 2 … 510 511)'
    >>> short_cycles("".join(f"({2 * i} {2 * i + 1})" for i in range(40)), 30)
    '(0 1)(2 3)(4 5)(6 7)(8 9)… and 35 more cycles'
    """
    import re

    if len(text) <= width or not re.fullmatch(r"(\([0-9 ]+\))+", text):
        return text
    cycles = re.findall(r"\(([0-9 ]+)\)", text)
    out: list[str] = []
    used = 0
    for k, cycle in enumerate(cycles):
        points = cycle.split()
        piece = f"({cycle})" if len(points) <= 6 else f"({' '.join(points[:3])} \u2026 {' '.join(points[-2:])})"
        if out and used + len(piece) > width:
            out.append(f"\u2026 and {len(cycles) - k} more cycles")
            break
        out.append(piece)
        used += len(piece)
    return "".join(out)
