"""Matrices from files and from spec values.

A matrix is a numpy array: ``float64`` when every entry is a number, else ``object`` holding
sympy expressions (numbers among them become exact sympy numbers).  Entries are numbers or
expression strings (see :mod:`gdlcheck.expr`); NaN and infinities are input errors.
"""

from __future__ import annotations

import io
import json
import math
import os
import re

import numpy as np

from gdlcheck.errors import GdlcheckError, SpecError
from gdlcheck.inputs.evaluate import to_float
from gdlcheck.inputs.expr import parse_expr
from gdlcheck.inputs.weights import WEIGHTS_SUFFIXES, single_matrix
from gdlcheck.limits import (
    MAX_FILE_BYTES,
    MAX_JSON_DEPTH,
    MAX_MATRIX_ENTRIES,
    MAX_NPY_HEADER,
    MAX_SYMBOLIC_ENTRIES,
    MAX_TEXT_ROWS,
)
from gdlcheck.text import TOKEN, is_number_text, printable, shorten

# Words float() reads as numbers that are not finite: an entry spelled so is refused by name.
NON_FINITE_WORDS = ("nan", "inf", "infinity")
# A character that no plain decimal number, delimiter or blank has.
_NOT_DECIMAL = re.compile(r"[^0-9eE.+\-,\s]")
# A JSON 2-D list: brackets of rows with no brackets inside (then each row is text for numpy)
# A character that no integer, delimiter or blank has.
_NOT_INTEGER = re.compile(r"[^0-9+\-,\s]")
# The line breaks str.splitlines knows besides \n, a blank or comment line, and a data line.
_OTHER_BREAKS = re.compile("\r\n?|[\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_BLANK_LINE = re.compile(r"^[^\S\n]*(?:#[^\n]*)?$", re.M)
_DATA_LINE = re.compile(r"^[^\S\n]*[^\s#][^\n]*", re.M)
_JSON_2D = re.compile(r"\s*\[\s*(?:\[[^\[\]]*\]\s*,\s*)*\[[^\[\]]*\]\s*\]\s*")
_JSON_ROW = re.compile(r"\[([^\[\]]*)\]")

MATRIX_SUFFIXES = (".npy", ".csv", ".tsv", ".txt", ".json")
SPEC_SUFFIXES = (".yaml", ".yml")


def is_symbolic(a: np.ndarray) -> bool:
    return a.dtype == object


def entry_value(value, where: str | None = None):
    """One entry: a float for a number, a sympy expression for a symbolic string."""
    if isinstance(value, bool) or value is None:
        raise SpecError(f"entry {value!r} is not a number or an expression", where=where)
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            x = float(value)
        except OverflowError:  # an integer of hundreds of digits
            digits = len(str(abs(int(value))))
            raise SpecError(f"entry {shorten(str(value), TOKEN)!r} ({digits} digits) is not a finite real number in "
                            "float64", where=where) from None
        if not math.isfinite(x):
            raise SpecError(f"entry {value!r} is not finite", where=where)
        return x
    if isinstance(value, str):
        if is_number_text(value):
            x = float(value)
            if not math.isfinite(x):
                raise SpecError(f"entry {shorten(value, TOKEN)!r} is not finite in float64", where=where)
            return x
        word = value.strip(" \t").lower().lstrip("+-")
        if word in NON_FINITE_WORDS:
            raise SpecError(f"entry {shorten(value, TOKEN)!r} is {word}, not a finite number", where=where)
        try:
            expr = parse_expr(value)
        except GdlcheckError as err:
            raise err.located(prefix=where) from None
        if expr.free_symbols:
            return expr
        try:
            return to_float(expr, f"entry {shorten(value, TOKEN)!r}")
        except GdlcheckError as err:
            raise err.located(prefix=where) from None
    raise SpecError(f"entry of type {type(value).__name__} is not a number or an expression", where=where)


def to_array(data, where: str = "", ndim: int | None = 2) -> np.ndarray:
    """A nested list (or scalar) of numbers and expression strings as an array.

    ``ndim`` is the expected number of dimensions (None: any).  Ragged rows are reported as
    ``row 2 has 3 entries, expected 4``.
    """
    shape = _shape_of(data, where)
    if ndim is not None and len(shape) != ndim:
        kinds = {0: "a scalar", 1: "a list", 2: "a matrix (a list of rows)"}
        expected = kinds.get(ndim, f"{ndim} nested lists")
        raise SpecError(f"expected {expected}, got {kinds.get(len(shape), f'{len(shape)} nested lists')}",
                        where=where or None)
    if math.prod(shape) > MAX_MATRIX_ENTRIES:
        raise SpecError(f"{math.prod(shape)} entries exceed the limit of {MAX_MATRIX_ENTRIES}", where=where or None)
    flat = list(_flatten(data))
    values = []
    for k, v in enumerate(flat):
        value = entry_value(v, _entry_where(where, shape, k))
        if not isinstance(value, float) and len(flat) > MAX_SYMBOLIC_ENTRIES:  # refuse at the first symbol
            raise SpecError(f"a symbolic array of {len(flat)} entries exceeds the limit of {MAX_SYMBOLIC_ENTRIES} "
                            "(symbolic entries are compared one by one)", where=where or None)
        values.append(value)
    if any(not isinstance(v, float) for v in values):
        values = [v if not isinstance(v, float) else exact_number(v) for v in values]
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out.reshape(shape)
    return np.asarray(values, dtype=np.float64).reshape(shape)


def exact_number(x):
    """The sympy number of a float64 value: ints stay ints, others their shortest repr (0.1 -> 1/10).

    Entries without symbols are float64 values wherever they stand (``1/3`` is rounded
    first), so the same two entries compare the same in a numeric and in a symbolic matrix;
    numbers inside a symbolic expression (``a/3``) stay exact.
    """
    import sympy

    x = float(x)
    return sympy.Integer(int(x)) if x.is_integer() else sympy.Rational(repr(x))


def _entry_where(where: str, shape, k: int) -> str:
    if not shape:
        return where
    idx = np.unravel_index(k, shape)
    return f"{where}[{']['.join(map(str, idx))}]" if where else f"entry [{', '.join(map(str, idx))}]"


def _shape_of(data, where: str) -> tuple[int, ...]:
    if not isinstance(data, (list, tuple)):
        return ()
    if len(data) == 0:
        raise SpecError("empty list", where=where or None)
    shapes = [_shape_of(row, where) for row in data]
    first = shapes[0]
    for i, s in enumerate(shapes):
        if s != first:
            what = f"row {i} has {s[0]} entries, expected {first[0]}" if len(s) == 1 and len(first) == 1 \
                else f"row {i} has shape {list(s)}, expected {list(first)}"
            raise SpecError(what, where=where or None)
    return (len(data),) + first


def _flatten(data):
    if isinstance(data, (list, tuple)):
        for row in data:
            yield from _flatten(row)
    else:
        yield data


def check_finite(a: np.ndarray, where: str | None = None) -> np.ndarray:
    if a.dtype != object and not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0]
        raise SpecError(f"entry [{', '.join(map(str, bad))}] is {a[tuple(bad)]}, not a finite number", where=where)
    return a


# --------------------------------------------------------------------------- files


def read_bytes(path: str) -> bytes:
    """The bytes of ``path`` (``-`` is standard input), refusing files over the size limit.

    Only a regular file is opened: a FIFO, a device or a socket is refused before ``open``
    could block on it (and the descriptor is checked again after, non-blocking).
    """
    import sys

    if path == "-":
        if sys.stdin is None or not hasattr(sys.stdin, "buffer"):
            raise SpecError("standard input is closed", file=path)
        try:
            data = _read_limited(sys.stdin.buffer, MAX_FILE_BYTES + 1)
        except OSError as err:
            raise SpecError(f"cannot read: {(err.strerror or str(err)).lower()}", file=path) from None
    else:
        try:
            info = os.stat(path)
        except (OSError, ValueError) as err:
            raise SpecError(f"cannot read: {_reason(err)}", file=path) from None
        _check_regular(info.st_mode, path)
        if info.st_size > MAX_FILE_BYTES:
            raise SpecError(f"file of {info.st_size} bytes exceeds the limit of {MAX_FILE_BYTES}", file=path)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as err:
            raise SpecError(f"cannot read: {_reason(err)}", file=path) from None
        try:
            _check_regular(os.fstat(fd).st_mode, path)   # replaced between stat and open
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(min(info.st_size, MAX_FILE_BYTES) + 1)   # its size, not the limit, allocated
        except OSError as err:
            raise SpecError(f"cannot read: {_reason(err)}", file=path) from None
        finally:
            os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(f"input exceeds the limit of {MAX_FILE_BYTES} bytes", file=path)
    return data


def _read_limited(fh, limit: int) -> bytes:
    """At most ``limit`` bytes, read in blocks (``read(limit)`` would allocate all of it at once)."""
    parts, total = [], 0
    while total < limit:
        asked = min(1 << 22, limit - total)
        block = fh.read(asked)
        parts.append(block)
        total += len(block)
        # a buffered read returns less than asked only at the end: reading on would wait on a
        # terminal, whose end (Ctrl-D) is not sticky, for a second Ctrl-D
        if len(block) < asked:
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _reason(err: Exception) -> str:
    return (getattr(err, "strerror", None) or str(err) or type(err).__name__).lower()


def _check_regular(mode: int, path: str) -> None:
    import stat

    if stat.S_ISDIR(mode):
        raise SpecError("is a folder, not a file", file=path)
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise SpecError(f"is {kind}, not a regular file (only regular files are read; use - for standard input)",
                        file=path)


def _decode(data: bytes, path: str) -> str:
    if b"\x00" in data:
        raise SpecError("binary data where text was expected", file=path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SpecError("not UTF-8 text", file=path) from None


def load_matrix(path: str, data: bytes | None = None, what: str = "matrix", integers: bool = False) -> np.ndarray:
    """Load a 2-D matrix from ``.npy``, ``.csv``, ``.tsv``, ``.txt`` or ``.json``.

    ``data`` may hold the file's bytes already (standard input); its format is then told
    apart by content.  Sizes are checked before anything the size of the matrix is built:
    the ``.npy`` header, the rows and columns of text, the nesting of JSON.  With
    ``integers``, a matrix of whole numbers within int64 is int64 (node labels), not float64.
    """
    suffix = os.path.splitext(path)[1].lower() if path != "-" else ""
    if suffix in SPEC_SUFFIXES:
        raise SpecError(f"a {what} is read from a matrix file ({' '.join(MATRIX_SUFFIXES)}), "
                        "not from a layer spec", file=path)
    if suffix == ".py":
        raise SpecError(f"a .py file is code, not a {what}: check a layer it defines with --callable "
                        f"{printable(shorten(os.path.basename(path), 40))}:NAME --input-shape NxD", file=path)
    if suffix in WEIGHTS_SUFFIXES and data is None:
        return check_finite(single_matrix(path, what=what))
    if data is None:
        data = read_bytes(path)
    try:
        if suffix == ".npy" or data[:6] == b"\x93NUMPY":
            a = _load_npy(data, path, integers)
        else:
            if b"\x00" in data:
                raise SpecError("binary data where text was expected; save an array with numpy.save('W.npy', W), "
                                f"or trained weights as {' '.join(WEIGHTS_SUFFIXES)}")
            text = _decode(data, path)
            if suffix == ".json" or (not suffix and text.lstrip().startswith("[")):
                a = _load_json(text, path)
            else:
                delimiter = {".csv": ",", ".tsv": "\t"}.get(suffix)
                _refuse_semicolons(text, delimiter)
                a = parse_table(text, delimiter, integers)
    except GdlcheckError as err:
        raise err.located(file=path) from None
    if a.ndim != 2:
        raise SpecError(f"a {what} must be 2-D, got {a.ndim}-D", file=path)
    if a.size == 0:
        raise SpecError(f"the {what} is empty ({a.shape[0]} x {a.shape[1]})", file=path)
    return a


def _refuse_semicolons(text: str, delimiter: str | None) -> None:
    """A table whose first row is split by ';' (the CSV of locales with a decimal comma) gets a
    message that says so, not 'cannot parse expression'."""
    if delimiter == "\t":
        return
    first = next((line for line in _lines(text) if line.strip() and not line.lstrip().startswith("#")), "")
    if ";" in first and "," not in first:
        raise SpecError("the entries are separated by ';': write them separated by ',' (CSV) with '.' as the "
                        "decimal point, by tabs (.tsv) or by spaces (.txt)")


def _lines(text: str):
    """The lines of ``text`` one at a time (a 200 MB table is not split into a list to read its
    first row)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


def read_npy_header(fh) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` of the ``.npy`` data at ``fh``, the header within
    ``MAX_NPY_HEADER`` bytes; SpecError for a header numpy cannot read."""
    from numpy.lib import format as npy

    try:
        version = npy.read_magic(fh)
        reader = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        return reader(fh, max_header_size=MAX_NPY_HEADER)
    except (ValueError, OSError, EOFError, SyntaxError, TypeError) as err:
        # numpy's messages run to several lines and may suggest allow_pickle=True: the first sentence only
        reason = str(err).splitlines()[0].split(". ")[0].rstrip(".") if str(err) else type(err).__name__
        raise SpecError(f"not a readable .npy file ({printable(shorten(reason, 120))})") from None


def _load_npy(data: bytes, path: str, integers: bool = False) -> np.ndarray:
    """A ``.npy`` matrix, its header read and checked (dtype, shape, size) before any allocation:
    a 128-byte file may claim (1000000, 1000000) or a 2 GB record dtype.  Integers stay int64
    with ``integers`` (node labels), else every dtype becomes float64."""
    fh = io.BytesIO(data)
    shape, fortran, dtype = read_npy_header(fh)
    if dtype.kind not in "biuf" or dtype.itemsize > 8 or dtype.fields is not None:
        raise SpecError(f".npy array of dtype {shorten(str(dtype), 40)} is not real numbers")
    size = math.prod(shape)
    if size > MAX_MATRIX_ENTRIES:
        raise SpecError(f".npy header says shape {list(shape)}: {size} entries exceed the limit of "
                        f"{MAX_MATRIX_ENTRIES}")
    offset = fh.tell()
    if len(data) - offset < size * dtype.itemsize:
        raise SpecError(f"not a readable .npy file (the header says {size} entries, the file holds "
                        f"{(len(data) - offset) // max(dtype.itemsize, 1)})")
    a = np.frombuffer(data, dtype=dtype, count=size, offset=offset)
    a = a.reshape(shape[::-1]).T if fortran else a.reshape(shape)
    if integers and dtype.kind in "iu":
        if dtype == np.uint64 and a.size and a.max() > np.iinfo(np.int64).max:
            raise SpecError(f"entry {int(a.max())} is past the largest int64")
        return a.astype(np.int64, copy=False)
    return check_finite(a.astype(np.float64, copy=False))   # float64 data stays in the file's buffer


def _load_json(text: str, path: str) -> np.ndarray:
    """A JSON matrix: nesting bounded before parsing (no recursion on 990 brackets), a plain
    numeric 2-D list parsed in C without a Python object per entry, anything else entry by
    entry within the budgets."""
    depth = _bracket_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise SpecError(f"JSON nested {depth} deep, over the limit of {MAX_JSON_DEPTH}")
    if _JSON_2D.fullmatch(text):
        rows = _JSON_ROW.findall(text)
        if rows and not any(_NOT_DECIMAL.search(r) for r in rows):
            width = rows[0].count(",") + 1
            _check_entries(len(rows), width)
            a = _fast_numbers(rows, ",", len(rows), width)
            if a is not None:
                return a
    if text.count(",") + 1 > MAX_MATRIX_ENTRIES:
        raise SpecError(f"about {text.count(',') + 1} entries exceed the limit of {MAX_MATRIX_ENTRIES}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise SpecError(f"invalid JSON: {printable(shorten(str(err), 120))}") from None
    if not isinstance(data, list):
        raise SpecError("a JSON matrix must be a list of rows")
    return to_array(data, "")


def _bracket_depth(text: str) -> int:
    """The deepest nesting of ``[`` in ``text``, counted in blocks of 16 MiB (no recursion)."""
    deepest = depth = 0
    if "[" not in text:
        return 0
    raw = text.encode("utf-8", "surrogatepass")
    step = 1 << 24
    for start in range(0, len(raw), step):
        block = np.frombuffer(raw, dtype=np.uint8, count=min(step, len(raw) - start), offset=start)
        change = (block == 0x5B).astype(np.int32) - (block == 0x5D).astype(np.int32)
        if not change.any():
            continue
        running = np.cumsum(change) + depth
        deepest = max(deepest, int(running.max()))
        depth = int(running[-1])
    return deepest


def _check_entries(rows: int, width: int) -> None:
    if rows * width > MAX_MATRIX_ENTRIES:
        raise SpecError(f"{rows} rows of {width} entries are {rows * width} entries, over the limit of "
                        f"{MAX_MATRIX_ENTRIES}")


def _fast_numbers(lines: list[str], delimiter: str | None, rows: int, width: int,
                  dtype=np.float64) -> np.ndarray | None:
    """Plain decimal text parsed by numpy's C reader (no Python object per entry), or None
    when it does not read as ``rows x width`` numbers of ``dtype`` (the slow path then says why)."""
    try:
        a = np.loadtxt(lines, delimiter=delimiter, dtype=dtype, ndmin=2, comments=None)
    except (ValueError, OverflowError):
        return None
    if a.shape != (rows, width):
        return None
    return check_finite(a)


def parse_table(text: str, delimiter: str | None = None, integers: bool = False) -> np.ndarray:
    """CSV, TSV or whitespace-separated rows; ``#`` starts a comment line.

    With ``delimiter`` None the first data line decides: a comma, else a tab, else white space.
    The entries are counted (rows x the first row's width) before any is converted; plain
    decimal text is read by numpy's C parser; text with anything else (expressions, nan,
    0x10) entry by entry, where a matrix over the symbolic budget is refused at the first
    entry that is not a plain number.
    """
    text, rows, first = _count_rows(text)
    if first is None:
        raise SpecError("no matrix rows (the input is empty)")
    if delimiter is None:
        delimiter = "," if "," in first else ("\t" if "\t" in first else None)
    if rows > MAX_TEXT_ROWS:
        raise SpecError(f"{rows} rows exceed the limit of {MAX_TEXT_ROWS} rows of a text matrix")
    _check_entries(rows, first.count(delimiter) + 1 if delimiter else len(first.split()))
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if delimiter is None:
        delimiter = "," if "," in lines[0] else ("\t" if "\t" in lines[0] else None)
    width = lines[0].count(delimiter) + 1 if delimiter else len(lines[0].split())
    _check_entries(len(lines), width)
    odd = next((i for i, ln in enumerate(lines) if _NOT_DECIMAL.search(ln)), None)
    if integers and odd is None and not any(_NOT_INTEGER.search(ln) for ln in lines):
        a = _fast_numbers(lines, delimiter, len(lines), width, np.int64)
        if a is not None:
            return a
    if odd is None:
        a = _fast_numbers(lines, delimiter, len(lines), width)
        if a is not None:
            return a
    # the slow path, which says exactly what is wrong: widths first (no entry built), then entries
    for i, ln in enumerate(lines):
        count = ln.count(delimiter) + 1 if delimiter else len(ln.split())
        if count != width:
            raise SpecError(f"row {i} has {count} entries, expected {width}")
    if len(lines) * width > MAX_SYMBOLIC_ENTRIES:
        _refuse_large_non_numeric(lines, delimiter, odd, len(lines) * width)
    rows = [[c.strip() for c in (ln.split(delimiter) if delimiter else ln.split())] for ln in lines]
    for i, r in enumerate(rows):
        if delimiter and any(c == "" for c in r):
            raise SpecError(f"row {i} has an empty entry")
    _refuse_header(rows)
    return to_array(rows, "")


def unix_lines(text: str) -> str:
    """``text`` with every line break ``str.splitlines`` knows written as ``\n`` (one C pass)."""
    return _OTHER_BREAKS.sub("\n", text) if _OTHER_BREAKS.search(text) else text


def first_data_line(text: str) -> str | None:
    """The first line that is neither blank nor a ``#`` comment, found without a string per line."""
    found = _DATA_LINE.search(unix_lines(text))
    return found.group(0) if found else None


def _count_rows(text: str) -> tuple[str, int, str | None]:
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
            entry_value(cell, where)     # raises for nan, 0x10, a parse error ...
            raise SpecError(f"a matrix of {entries} entries with expressions ({where} is {shorten(cell, TOKEN)!r}) "
                            f"exceeds the limit of {MAX_SYMBOLIC_ENTRIES}; a larger one must hold plain decimal "
                            "numbers")
    raise SpecError("the matrix does not read as decimal numbers")


def _refuse_header(rows: list[list[str]]) -> None:
    """A first row of names over rows of numbers is a header (``w0,w1,w2``), not symbolic weights."""
    import re

    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True

    if len(rows) > 1 and all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_. -]*", c) for c in rows[0]) \
            and all(number(c) for row in rows[1:] for c in row):
        shown = ", ".join(rows[0][:4]) + (", ..." if len(rows[0]) > 4 else "")
        raise SpecError(f"row 0 ({shown}) looks like a header over rows of numbers: delete it or comment it out with "
                        "'#' (a matrix file holds the entries only; symbolic entries belong in a spec)")


def check_square(a: np.ndarray, file: str | None = None, where: str | None = None) -> np.ndarray:
    if a.ndim == 2 and a.size == 0:
        raise SpecError(f"the matrix is empty ({a.shape[0]} x {a.shape[1]})", file=file, where=where)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise SpecError(f"matrix is {' x '.join(map(str, a.shape))}, expected a square n x n matrix",
                        file=file, where=where)
    return a


def as_matrix(source, label: str = "<matrix>") -> np.ndarray:
    """A square matrix from Python: numpy (real numbers), nested lists of numbers and expression
    strings, or a sympy Matrix (its entries' text goes through the whitelisting parser)."""
    if hasattr(source, "tolist") and type(source).__module__.startswith("sympy"):
        source = source.tolist()
    if isinstance(source, np.ndarray) and source.dtype != object:
        if not np.issubdtype(source.dtype, np.number) or np.iscomplexobj(source):
            raise SpecError(f"a matrix of {source.dtype} values; expected real numbers", file=label)
        W = source.astype(np.float64)
    else:
        if isinstance(source, np.ndarray):
            source = source.tolist()
        if not isinstance(source, (list, tuple)):
            raise SpecError(f"expected a path, a spec or a matrix, got {type(source).__name__}", file=label)
        try:
            W = to_array(_plain(source), "matrix", ndim=2)
        except GdlcheckError as err:
            raise err.located(file=label) from None
    return check_square(check_finite(W, where="matrix"), file=label)


def _plain(rows):
    """Nested lists with sympy numbers and numpy scalars as Python numbers or strings."""
    out = []
    for row in rows:
        if isinstance(row, (list, tuple)):
            out.append(_plain(row))
        elif isinstance(row, (int, float, str)) and not isinstance(row, bool):
            out.append(row)
        elif isinstance(row, np.generic):
            out.append(row.item())
        else:  # a sympy expression: its text goes through the whitelisting parser
            out.append(str(row))
    return out
