"""Matrices written as text: CSV, TSV and whitespace-separated rows (``#`` starts a comment).

Entries are numbers (``1/3`` and ``sqrt(2)`` are numbers too); words are read as symbols only
when the file asks for it with a ``# symbols`` comment line, so a stray word is an error rather
than a symbol the verdict is about.

Text may be 200 MB of digits, so the rows and entries are counted before any is converted
(and before a string is made per line); plain decimal text is read by numpy's C parser, and
anything else (expressions, ``nan``, ``0x10``, a header row, ``;`` as the delimiter) entry by
entry, with a message that says what is wrong where.
"""

from __future__ import annotations

import re

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.inputs.arrays import check_finite, entry_value, to_array
from gdlcheck.limits import MAX_MATRIX_ENTRIES, MAX_SYMBOLIC_ENTRIES, MAX_TEXT_ROWS
from gdlcheck.text import TOKEN, is_number_text, shorten

# A character that no plain decimal number, delimiter or blank has.
NOT_DECIMAL = re.compile(r"[^0-9eE.+\-,\s]")
# A character that no integer, delimiter or blank has.
_NOT_INTEGER = re.compile(r"[^0-9+\-,\s]")
# The line breaks str.splitlines knows besides \n, a blank or comment line, and a data line.
_OTHER_BREAKS = re.compile("\r\n?|[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_BLANK_LINE = re.compile(r"^[^\S\n]*(?:#[^\n]*)?$", re.M)
_DATA_LINE = re.compile(r"^[^\S\n]*[^\s#][^\n]*", re.M)


def parse_table(text: str, delimiter: str | None = None, integers: bool = False) -> np.ndarray:
    """CSV, TSV or whitespace-separated rows; ``#`` starts a comment line.

    With ``delimiter`` None the first data line decides: a comma, else a tab, else white space.
    The entries are counted (rows x the first row's width) before any is converted; plain
    decimal text is read by numpy's C parser; text with anything else (expressions, nan,
    0x10) entry by entry, where a matrix over the symbolic budget is refused at the first
    entry that is not a plain number.
    """
    _refuse_semicolons(text, delimiter)
    text, rows, first = count_rows(text)
    if first is None:
        raise SpecError("no matrix rows (the input is empty)")
    if delimiter is None:
        delimiter = "," if "," in first else ("\t" if "\t" in first else None)
    if rows > MAX_TEXT_ROWS:
        raise SpecError(f"{rows} rows exceed the limit of {MAX_TEXT_ROWS} rows of a text matrix")
    check_entries(rows, first.count(delimiter) + 1 if delimiter else len(first.split()))
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if delimiter is None:
        delimiter = "," if "," in lines[0] else ("\t" if "\t" in lines[0] else None)
    width = lines[0].count(delimiter) + 1 if delimiter else len(lines[0].split())
    check_entries(len(lines), width)
    odd = next((i for i, ln in enumerate(lines) if NOT_DECIMAL.search(ln)), None)
    if integers and odd is None and not any(_NOT_INTEGER.search(ln) for ln in lines):
        a = fast_numbers(lines, delimiter, len(lines), width, np.int64)
        if a is not None:
            return a
    if odd is None:
        a = fast_numbers(lines, delimiter, len(lines), width)
        if a is not None:
            return a
    # the slow path, which says exactly what is wrong: widths first (no entry built), then entries
    for i, ln in enumerate(lines):
        count = ln.count(delimiter) + 1 if delimiter else len(ln.split())
        if count != width:
            raise SpecError(f"row {i} has {count} entries, expected {width}")
    if len(lines) * width > MAX_SYMBOLIC_ENTRIES:
        _refuse_large_non_numeric(lines, delimiter, odd, len(lines) * width)
    entries = [[c.strip() for c in (ln.split(delimiter) if delimiter else ln.split())] for ln in lines]
    for i, r in enumerate(entries):
        if delimiter and any(c == "" for c in r):
            raise SpecError(f"row {i} has an empty entry")
    _refuse_header(entries)
    a = to_array(entries, "")
    if a.dtype == object and not SYMBOLS_LINE.search(text):
        i, j = next(index for index, v in np.ndenumerate(a) if getattr(v, "free_symbols", None))
        raise SpecError(
            f"entry [{i}, {j}] is {shorten(entries[i][j], TOKEN)!r}, not a number: a matrix file holds "
            "numbers; to read words as symbols, make '# symbols' its first line (or write a spec)"
        )
    return a


# The comment line by which a text matrix asks for its words to be read as symbols.
SYMBOLS_LINE = re.compile(r"^[^\S\n]*#[^\S\n]*symbols\b", re.M | re.I)


def _refuse_semicolons(text: str, delimiter: str | None) -> None:
    """A table whose first row is split by ';' (the CSV of locales with a decimal comma) gets a
    message that says so, not 'cannot parse expression'."""
    if delimiter == "\t":
        return
    first = next((line for line in _lines(text) if line.strip() and not line.lstrip().startswith("#")), "")
    if ";" in first and "," not in first:
        raise SpecError(
            "the entries are separated by ';': write them separated by ',' (CSV) with '.' as the "
            "decimal point, by tabs (.tsv) or by spaces (.txt)"
        )


def _lines(text: str):
    """The lines of ``text`` one at a time (a 200 MB table is not split into a list to read its
    first row)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


def check_entries(rows: int, width: int) -> None:
    """Refuse ``rows`` of ``width`` entries over the entry limit, before any entry is parsed."""
    if rows * width > MAX_MATRIX_ENTRIES:
        raise SpecError(
            f"{rows} rows of {width} entries are {rows * width} entries, over the limit of {MAX_MATRIX_ENTRIES}"
        )


def fast_numbers(lines: list[str], delimiter: str | None, rows: int, width: int, dtype=np.float64) -> np.ndarray | None:
    """Plain decimal text parsed by numpy's C reader (no Python object per entry), or None
    when it does not read as ``rows x width`` numbers of ``dtype`` (the slow path then says why)."""
    try:
        a = np.loadtxt(lines, delimiter=delimiter, dtype=dtype, ndmin=2, comments=None)
    except (ValueError, OverflowError):
        return None
    if a.shape != (rows, width):
        return None
    return check_finite(a)


def unix_lines(text: str) -> str:
    """``text`` with every line break ``str.splitlines`` knows written as ``\n`` (one C pass)."""
    return _OTHER_BREAKS.sub("\n", text) if _OTHER_BREAKS.search(text) else text


def first_data_line(text: str) -> str | None:
    """The first line that is neither blank nor a ``#`` comment, found without a string per line."""
    found = _DATA_LINE.search(unix_lines(text))
    return found.group(0) if found else None


def count_rows(text: str) -> tuple[str, int, str | None]:
    """``(text, data rows, first data row)``, counted before a string is made per line (a 200 MB CSV
    of ``1,1`` rows is 50 million of them): every line break becomes ``\n`` (one C pass), the
    breaks are counted, and the blank and comment lines taken off."""
    text = unix_lines(text)
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    blank = sum(1 for _ in _BLANK_LINE.finditer(text[:-1] if text.endswith("\n") else text))
    first = _DATA_LINE.search(text)
    return text, lines - blank, first.group(0) if first else None


def _refuse_large_non_numeric(lines: list[str], delimiter, odd: int | None, entries: int) -> None:
    """A matrix past the symbolic budget must be plain decimals: find the first entry that is
    not, say what it is wrong with it (entry_value's message), else refuse it by the budget."""
    for i in ([odd] if odd is not None else []) + list(range(len(lines))):
        cells = [c.strip() for c in (lines[i].split(delimiter) if delimiter else lines[i].split())]
        for j, cell in enumerate(cells):
            if cell == "" and delimiter:
                raise SpecError(f"row {i} has an empty entry")
            if is_number_text(cell):
                continue
            where = f"entry [{i}, {j}]"
            entry_value(cell, where)  # raises for nan, 0x10, a parse error ...
            raise SpecError(
                f"a matrix of {entries} entries with expressions ({where} is {shorten(cell, TOKEN)!r}) "
                f"exceeds the limit of {MAX_SYMBOLIC_ENTRIES}; a larger one must hold plain decimal "
                "numbers"
            )
    raise SpecError("the matrix does not read as decimal numbers")


def _refuse_header(rows: list[list[str]]) -> None:
    """A first row of names over rows of numbers is a header (``w0,w1,w2``), not symbolic weights."""

    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True

    if (
        len(rows) > 1
        and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_. -]*", c) for c in rows[0])
        and all(number(c) for row in rows[1:] for c in row)
    ):
        shown = ", ".join(rows[0][:4]) + (", ..." if len(rows[0]) > 4 else "")
        raise SpecError(
            f"row 0 ({shown}) looks like a header over rows of numbers: delete it or comment it out with "
            "'#' (a matrix file holds the entries only; symbolic entries belong in a spec)"
        )
