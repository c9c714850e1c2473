"""Small text helpers every layer uses: did-you-mean, shortening, and the one shape parser."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

from gdlcheck.errors import GdlcheckError


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


def shorten(text, width: int, ellipsis: str = "...") -> str:
    """``text`` if it fits in ``width`` characters, else its start and ``ellipsis``.

    >>> shorten("(0 1 2 3 4 5 6 7)", 10)
    '(0 1 2 ...'
    """
    text = str(text)
    if len(text) <= width:
        return text
    return text[: width - len(ellipsis)] + ellipsis


def parse_shape(value, what: str = "shape", error: type[GdlcheckError] = GdlcheckError,
                example: str = "'8x8' or '4x4x4'") -> tuple[int, ...]:
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
