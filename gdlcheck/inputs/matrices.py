"""A matrix file, read by its format: ``.npy``, ``.json``, text tables (``.csv .tsv .txt``,
read by :mod:`gdlcheck.inputs.tables`) and trained weights; from standard input, the format
is told apart by content.

Sizes are checked before anything the size of the matrix is built: the ``.npy`` header, the
rows and columns of text, the nesting of JSON.  A spec or a ``.py`` file given where a matrix
belongs is refused with what to give instead.
"""

from __future__ import annotations

import io
import json
import math
import os
import re

import numpy as np

from gdlcheck.errors import GdlcheckError, SpecError
from gdlcheck.inputs.arrays import check_finite, to_array
from gdlcheck.inputs.files import decode_text, read_bytes
from gdlcheck.inputs.tables import NOT_DECIMAL, check_entries, fast_numbers, parse_table
from gdlcheck.inputs.weights import WEIGHTS_SUFFIXES, single_matrix
from gdlcheck.limits import MAX_JSON_DEPTH, MAX_MATRIX_ENTRIES, MAX_NPY_HEADER
from gdlcheck.text import printable, shorten

# A JSON 2-D list: brackets of rows with no brackets inside (then each row is text for numpy)
_JSON_2D = re.compile(r"\s*\[\s*(?:\[[^\[\]]*\]\s*,\s*)*\[[^\[\]]*\]\s*\]\s*")
_JSON_ROW = re.compile(r"\[([^\[\]]*)\]")

MATRIX_SUFFIXES = (".npy", ".csv", ".tsv", ".txt", ".json")
SPEC_SUFFIXES = (".yaml", ".yml")


def load_matrix(
    path: str, data: bytes | None = None, what: str = "matrix", integers: bool = False, ndim: int | None = 2
) -> np.ndarray:
    """Load a 2-D matrix from ``.npy``, ``.csv``, ``.tsv``, ``.txt`` or ``.json``.

    ``ndim=1`` loads a vector instead: a 1-D array, or one row or one column of a matrix (a
    text file's single line); ``ndim=None`` either, as stored.

    ``data`` may hold the file's bytes already (standard input); its format is then told
    apart by content.  Sizes are checked before anything the size of the matrix is built:
    the ``.npy`` header, the rows and columns of text, the nesting of JSON.  With
    ``integers``, a matrix of whole numbers within int64 is int64 (node labels), not float64.
    """
    suffix = os.path.splitext(path)[1].lower() if path != "-" else ""
    if suffix in SPEC_SUFFIXES:
        raise SpecError(
            f"a {what} is read from a matrix file ({' '.join(MATRIX_SUFFIXES)}), not from a layer spec", file=path
        )
    if suffix == ".py":
        raise SpecError(
            f"a .py file is code, not a {what}: check a layer it defines with --callable "
            f"{printable(shorten(os.path.basename(path), 40))}:NAME --input-shape NxD",
            file=path,
        )
    if suffix in WEIGHTS_SUFFIXES and data is None:
        return check_finite(single_matrix(path, what=what))
    if data is None:
        data = read_bytes(path)
    try:
        if suffix == ".npy" or data[:6] == b"\x93NUMPY":
            a = _load_npy(data, integers)
        else:
            if b"\x00" in data:
                raise SpecError(
                    "binary data where text was expected; save an array with numpy.save('W.npy', W), "
                    f"or trained weights as {' '.join(WEIGHTS_SUFFIXES)}"
                )
            text = decode_text(data, path)
            if suffix == ".json" or (not suffix and text.lstrip().startswith("[")):
                a = _load_json(text, ndim)
            else:
                a = parse_table(text, {".csv": ",", ".tsv": "\t"}.get(suffix), integers)
    except GdlcheckError as err:
        raise err.located(file=path) from None
    if ndim == 1 and a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim != (ndim or (a.ndim if a.ndim in (1, 2) else 2)):
        expected = "2-D" if ndim != 1 else "1-D (a vector: one row or one column)"
        raise SpecError(f"a {what} must be {expected}, got shape {'x'.join(map(str, a.shape))}", file=path)
    if a.size == 0:
        raise SpecError(f"the {what} is empty ({' x '.join(map(str, a.shape))})", file=path)
    return a


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


def _load_npy(data: bytes, integers: bool = False) -> np.ndarray:
    """A ``.npy`` matrix, its header read and checked (dtype, shape, size) before any allocation:
    a 128-byte file may claim (1000000, 1000000) or a 2 GB record dtype.  Integers stay int64
    with ``integers`` (node labels), else every dtype becomes float64."""
    fh = io.BytesIO(data)
    shape, fortran, dtype = read_npy_header(fh)
    if dtype.kind not in "biuf" or dtype.itemsize > 8 or dtype.fields is not None:
        raise SpecError(f".npy array of dtype {shorten(str(dtype), 40)} is not real numbers")
    size = math.prod(shape)
    if size > MAX_MATRIX_ENTRIES:
        raise SpecError(
            f".npy header says shape {list(shape)}: {size} entries exceed the limit of {MAX_MATRIX_ENTRIES}"
        )
    offset = fh.tell()
    if len(data) - offset < size * dtype.itemsize:
        raise SpecError(
            f"not a readable .npy file (the header says {size} entries, the file holds "
            f"{(len(data) - offset) // max(dtype.itemsize, 1)})"
        )
    a = np.frombuffer(data, dtype=dtype, count=size, offset=offset)
    a = a.reshape(shape[::-1]).T if fortran else a.reshape(shape)
    if integers and dtype.kind in "iu":
        if dtype == np.uint64 and a.size and a.max() > np.iinfo(np.int64).max:
            raise SpecError(f"entry {int(a.max())} is past the largest int64")
        return a.astype(np.int64, copy=False)
    return check_finite(a.astype(np.float64, copy=False))  # float64 data stays in the file's buffer


def _load_json(text: str, ndim: int | None = 2) -> np.ndarray:
    """A JSON matrix: nesting bounded before parsing (no recursion on 990 brackets), a plain
    numeric 2-D list parsed in C without a Python object per entry, anything else entry by
    entry within the budgets."""
    depth = _bracket_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise SpecError(f"JSON nested {depth} deep, over the limit of {MAX_JSON_DEPTH}")
    if _JSON_2D.fullmatch(text):
        rows = _JSON_ROW.findall(text)
        if rows and not any(NOT_DECIMAL.search(r) for r in rows):
            width = rows[0].count(",") + 1
            check_entries(len(rows), width)
            a = fast_numbers(rows, ",", len(rows), width)
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
    return to_array(data, "", ndim=2 if ndim == 2 else None)


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
