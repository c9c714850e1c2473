"""Arrays from values: the entries of a spec's matrix or a Python object, each a number or an
expression string, checked one by one.

An array is ``float64`` when every entry is a number, else ``object`` holding sympy expressions
(numbers among them become exact sympy numbers).  Entries are numbers or expression strings
(see :mod:`gdlcheck.inputs.expr`); NaN and infinities are input errors that name the entry
(``entry [1, 2]``).  Files are read into these by :mod:`gdlcheck.inputs.matrices`.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.errors import GdlcheckError, SpecError
from gdlcheck.inputs.evaluate import to_float
from gdlcheck.inputs.expr import parse_expr
from gdlcheck.limits import MAX_MATRIX_ENTRIES, MAX_SYMBOLIC_ENTRIES
from gdlcheck.text import TOKEN, is_number_text, shorten

# Words float() reads as numbers that are not finite: an entry spelled so is refused by name.
NON_FINITE_WORDS = ("nan", "inf", "infinity")


def entry_value(value, where: str | None = None):
    """One entry: a float for a number, a sympy expression for a symbolic string."""
    if isinstance(value, bool) or value is None:
        raise SpecError(f"entry {value!r} is not a number or an expression", where=where)
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            x = float(value)
        except OverflowError:  # an integer of hundreds of digits
            digits = len(str(abs(int(value))))
            raise SpecError(
                f"entry {shorten(str(value), TOKEN)!r} ({digits} digits) is not a finite real number in float64",
                where=where,
            ) from None
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
        raise SpecError(
            f"expected {expected}, got {kinds.get(len(shape), f'{len(shape)} nested lists')}", where=where or None
        )
    if math.prod(shape) > MAX_MATRIX_ENTRIES:
        raise SpecError(f"{math.prod(shape)} entries exceed the limit of {MAX_MATRIX_ENTRIES}", where=where or None)
    flat = list(_flatten(data))
    values = []
    for k, v in enumerate(flat):
        value = entry_value(v, _entry_where(where, shape, k))
        if not isinstance(value, float) and len(flat) > MAX_SYMBOLIC_ENTRIES:  # refuse at the first symbol
            raise SpecError(
                f"a symbolic array of {len(flat)} entries exceeds the limit of {MAX_SYMBOLIC_ENTRIES} "
                "(symbolic entries are compared one by one)",
                where=where or None,
            )
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
            what = (
                f"row {i} has {s[0]} entries, expected {first[0]}"
                if len(s) == 1 and len(first) == 1
                else f"row {i} has shape {list(s)}, expected {list(first)}"
            )
            raise SpecError(what, where=where or None)
    return (len(data),) + first


def _flatten(data):
    if isinstance(data, (list, tuple)):
        for row in data:
            yield from _flatten(row)
    else:
        yield data


def check_finite(a: np.ndarray, where: str | None = None) -> np.ndarray:
    if a.dtype.kind == "f" and a.size and math.isfinite(float(a.min())) and math.isfinite(float(a.max())):
        return a  # a NaN or an infinity shows in one of the two extremes: no temporary the size of a
    if a.dtype != object and not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0]
        raise SpecError(f"entry [{', '.join(map(str, bad))}] is {a[tuple(bad)]}, not a finite number", where=where)
    return a


def check_square(a: np.ndarray, file: str | None = None, where: str | None = None) -> np.ndarray:
    if a.ndim == 2 and a.size == 0:
        raise SpecError(f"the matrix is empty ({a.shape[0]} x {a.shape[1]})", file=file, where=where)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise SpecError(
            f"matrix is {' x '.join(map(str, a.shape))}, expected a square n x n matrix", file=file, where=where
        )
    return a


def as_matrix(source, label: str = "<matrix>") -> np.ndarray:
    """A square matrix from Python: numpy (real numbers), nested lists of numbers and expression
    strings, or a sympy Matrix (its entries' text goes through the whitelisting parser)."""
    if hasattr(source, "tolist") and type(source).__module__.startswith("sympy"):
        source = source.tolist()
    source = plain_array(source, label)
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


def plain_array(source, label: str = "<matrix>"):
    """A torch tensor (detached, dense, dequantized, on the CPU, as float64) or anything with
    ``__array__`` (jax, cupy, xarray, ...) as a numpy array; any other value as it is."""
    if type(source).__module__.split(".")[0] == "torch" and hasattr(source, "detach"):
        import torch

        t = source.detach()
        if t.is_nested or t.is_meta:
            raise SpecError(f"a {'nested' if t.is_nested else 'meta'} tensor holds no matrix of values", file=label)
        if t.is_complex():
            raise SpecError(f"a matrix of {t.dtype} values; expected real numbers", file=label)
        t = t.dequantize() if t.is_quantized else t
        t = t.to_dense() if t.layout != torch.strided else t
        return t.to(device="cpu", dtype=torch.float64).numpy()
    if hasattr(source, "__array__") and not isinstance(source, (np.ndarray, str, bytes)):
        try:
            return np.asarray(source)
        except Exception as err:  # a foreign array type's own conversion error
            raise SpecError(
                f"a {type(source).__name__} that numpy cannot read ({type(err).__name__})", file=label
            ) from None
    return source


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
