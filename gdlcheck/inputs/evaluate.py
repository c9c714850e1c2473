"""Bounded numeric evaluation of user expressions: fixed precision, capped magnitudes.

sympy's ``evalf`` (and ``float(expr)``, which calls it) raises its precision until the
digits it was asked for are right, without a bound: ``exp(exp(exp(20)))`` or
``sin(exp(exp(15)))`` never return.  Here an expression is evaluated node by node with
mpmath at :data:`PRECISION` bits, and every value whose binary exponent passes
:data:`~gdlcheck.limits.MAX_VALUE_BITS` (about 10^±19,700) is refused *before* it is
computed, so each node costs a bounded amount of work.  The argument of ``sin``/``cos`` is
re-evaluated with as many more bits as it has integer bits (up to
:data:`~gdlcheck.limits.MAX_TRIG_BITS`), so ``sin(10**30)`` is right to the last digit.

:func:`to_float` gives the float64 value of a number (an entry of a matrix);
:func:`evaluate` the value at a point (symbols replaced by numbers), as an ``mpmath`` number
or ``None`` where the point is outside the function's domain or a bound;
:func:`compile_array` prepares an array of expressions for numeric trials: each number
inside it is evaluated once, here, and the expressions become numpy code over the symbols.
"""

from __future__ import annotations

import math

from gdlcheck.errors import ExprError
from gdlcheck.limits import MAX_TRIG_BITS, MAX_VALUE_BITS
from gdlcheck.text import shorten

PRECISION = 128  # bits of every intermediate value (float64 has 53)
_IMAGINARY_BITS = 100  # an imaginary part below 2^-100 of the value is rounding: the value is real


class NotEvaluable(ExprError):
    """An expression whose value is past a bound, or outside a function's domain, or not a number."""


def to_float(expr, what: str | None = None) -> float:
    """The float64 value of a number without symbols, computed within the bounds.

    ``what`` names it in messages (default: the expression).  Raises :class:`NotEvaluable`
    (an input error) for a value that is not real, not finite in float64, or past the
    evaluation bounds.
    """
    what = what or f"expression {_short(expr)!r}"
    value = evaluate(expr, {})
    if value is None:
        raise NotEvaluable(
            f"{what} cannot be evaluated: a value on the way is past 2^{MAX_VALUE_BITS} or outside a function's domain"
        )
    real = _real(value)
    if real is None:
        raise NotEvaluable(f"{what} is not a real number")
    try:
        x = float(real)
    except (OverflowError, ValueError):  # pragma: no cover - mpmath returns inf instead
        x = math.inf
    if not math.isfinite(x):
        raise NotEvaluable(f"{what} is not a finite real number in float64")
    return x


def evaluate(expr, values: dict, precision: int = PRECISION):
    """The value of ``expr`` with its symbols replaced by ``values`` (numbers), or None.

    None where a value on the way is past the bounds, a function is outside its domain
    (``log(0)``), or a node is not one this evaluator knows.  The result is an ``mpmath``
    ``mpf`` or ``mpc``.
    """
    ctx = _context(precision)
    memo: dict[int, object] = {}
    try:
        return _eval(expr, values, ctx, memo)
    except (_OutOfBounds, ZeroDivisionError, ValueError, TypeError, OverflowError, RecursionError):
        return None


class _OutOfBounds(Exception):
    pass


def _context(precision: int):
    """An mpmath context of its own (the global one's precision is left alone; threads are safe)."""
    from mpmath.ctx_mp import MPContext

    ctx = MPContext()
    ctx.prec = precision
    return ctx


def _is_complex(v) -> bool:
    return type(v).__name__ == "mpc"


def _check(ctx, x):
    """``x`` if its magnitude is within the bounds, else out of bounds."""
    if not ctx.isfinite(x):
        raise _OutOfBounds
    if x != 0 and abs(ctx.mag(x)) > MAX_VALUE_BITS:
        raise _OutOfBounds
    return x


def _eval(e, values, ctx, memo):
    key = id(e)
    if key in memo:
        return memo[key]
    out = _check(ctx, _node(e, values, ctx, memo))
    memo[key] = out
    return out


def _node(e, values, ctx, memo):
    import sympy

    if isinstance(e, (int, float)) and not isinstance(e, bool):
        return ctx.mpf(e)
    if isinstance(e, complex):
        return ctx.mpc(e)
    if not isinstance(e, sympy.Basic):
        raise TypeError(type(e).__name__)
    if e.is_Symbol:
        if e not in values:
            raise TypeError(f"no value for {e}")
        v = values[e]
        if isinstance(v, sympy.Rational):
            return ctx.mpf(int(v.p)) / int(v.q)
        return ctx.mpf(v) if not isinstance(v, complex) else ctx.mpc(v)
    if e.is_Integer:
        return _integer(ctx, int(e))
    if e.is_Rational:
        return _integer(ctx, int(e.p)) / _integer(ctx, int(e.q))
    if e.is_Float:
        return ctx.mpf(e._mpf_) if hasattr(e, "_mpf_") else ctx.mpf(float(e))
    if e is sympy.S.ImaginaryUnit:
        return ctx.mpc(0, 1)
    if e is sympy.S.Exp1:
        return ctx.e
    if e is sympy.S.Pi:
        return +ctx.pi
    if e.is_Add:
        total = ctx.mpf(0)
        for a in e.args:
            total = _check(ctx, total + _eval(a, values, ctx, memo))
        return total
    if e.is_Mul:
        prod = ctx.mpf(1)
        for a in e.args:
            v = _eval(a, values, ctx, memo)
            if prod != 0 and v != 0 and abs(ctx.mag(prod) + ctx.mag(v)) > MAX_VALUE_BITS + 2:
                raise _OutOfBounds
            prod = prod * v
        return prod
    if e.is_Pow:
        return _power(e, values, ctx, memo)
    name = type(e).__name__
    if name in ("Max", "Min"):
        vals = [_real_or_raise(_eval(a, values, ctx, memo)) for a in e.args]
        return max(vals) if name == "Max" else min(vals)
    if name in _FUNCTIONS and len(e.args) == 1:
        arg = _eval(e.args[0], values, ctx, memo)
        if name in ("sin", "cos", "tan"):
            return _trig(name, e.args[0], arg, values, ctx)
        if name == "exp":
            _check_exp(arg)
        if name == "log" and arg == 0:
            raise ZeroDivisionError
        return getattr(ctx, _FUNCTIONS[name])(arg)
    raise TypeError(f"cannot evaluate {name}")


_FUNCTIONS = {
    "exp": "exp",
    "log": "log",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "tanh": "tanh",
    "sinh": "sinh",
    "cosh": "cosh",
    "Abs": "fabs",
    "erf": "erf",
}


def _integer(ctx, k: int):
    """An exact integer as an mpmath number, refused past the magnitude bound before converting."""
    if k.bit_length() > MAX_VALUE_BITS:
        raise _OutOfBounds
    return ctx.mpf(k)


def _real_or_raise(v):
    r = _real(v)
    if r is None:
        raise TypeError("Max/Min of a complex value")
    return r


def _real(v):
    """``v`` as a real number when its imaginary part is rounding, else None."""
    if not _is_complex(v):
        return v
    if v.imag == 0 or (v.real != 0 and abs(v.imag) <= abs(v.real) * 2.0**-_IMAGINARY_BITS):
        return v.real
    return None


def _check_exp(arg) -> None:
    """exp(x) past the magnitude bound is refused before it is computed."""
    re = arg.real if _is_complex(arg) else arg
    if abs(re) > MAX_VALUE_BITS * 0.69:  # |x| ln 2 .. : e^x = 2^(x / ln 2)
        raise _OutOfBounds


def _trig(name, arg_expr, arg, values, ctx):
    """sin/cos/tan right to the working precision: an argument with more integer bits than the
    precision can spare is evaluated again with that many more bits (up to MAX_TRIG_BITS;
    past it, out of bounds), so the reduction modulo 2 pi keeps every digit."""
    bits = int(ctx.mag(arg)) if arg != 0 else 0
    if bits <= 0:
        return getattr(ctx, name)(arg)
    if bits > MAX_TRIG_BITS:
        raise _OutOfBounds
    sharper = _context(ctx.prec + bits + 16)
    value = getattr(sharper, name)(_eval(arg_expr, values, sharper, {}))
    return ctx.mpc(value) if _is_complex(value) else ctx.mpf(value)


def _power(e, values, ctx, memo):
    base_expr, exp_expr = e.args
    base = _eval(base_expr, values, ctx, memo)
    if exp_expr.is_Integer:
        k = int(exp_expr)
        if base == 0:
            if k < 0:
                raise ZeroDivisionError
            return ctx.mpf(0) if k else ctx.mpf(1)
        if abs(ctx.mag(base)) * abs(k) > MAX_VALUE_BITS + abs(k):
            raise _OutOfBounds
        return base**k
    exponent = _eval(exp_expr, values, ctx, memo)
    if base == 0:
        if _real(exponent) is not None and _real(exponent) > 0:
            return ctx.mpf(0)
        raise ZeroDivisionError
    # |b^x| = 2^(x log2|b|): refuse past the bound before computing
    log2 = ctx.log(abs(base), 2)
    size = abs(exponent) * (abs(log2) + 1)
    if size > MAX_VALUE_BITS:
        raise _OutOfBounds
    return ctx.power(base, exponent)


def _short(expr) -> str:
    return shorten(expr, 60)


# --------------------------------------------------------------------------- compiled arrays


def compile_array(exprs: list, symbols: list):
    """numpy code for ``exprs`` (sympy expressions) as functions of ``symbols``.

    Every number inside an expression that is not a small exact number (``log(10**20)``,
    ``10**400``, ``sqrt(E) * 1e308``) is evaluated here, once and within the bounds, and
    handed to the code as a float argument (or complex: the caller decides what a complex
    weight means), so numpy never sees a Python integer past float64 and sympy never prints
    a float with fewer digits than it has.  Returns ``fn(*symbol_values) -> list``.

    Raises :class:`NotEvaluable` for a number past the bounds (not finite in float64 among
    them: ``a * 10**400`` has no float64 value at any point).
    """
    import sympy

    constants: dict = {}

    def lift(e):
        if not isinstance(e, sympy.Basic):
            return e
        if not e.free_symbols:
            if (e.is_Integer and abs(int(e)) < 2**53) or (e.is_Rational and abs(int(e.p)) < 2**53 and int(e.q) < 2**53):
                return e
            if e in constants:
                return constants[e][0]
            value = evaluate(e, {})
            if value is None:
                raise NotEvaluable(f"the number {_short(e)!r} in a weight cannot be evaluated within the bounds")
            real = _real(value)
            number = complex(value) if real is None else float(real)
            if not (math.isfinite(abs(number))):
                raise NotEvaluable(f"the number {_short(e)!r} in a weight is not finite in float64")
            dummy = sympy.Dummy(f"c{len(constants)}")
            constants[e] = (dummy, number)
            return dummy
        if e.is_Atom:
            return e
        return e.func(*[lift(a) for a in e.args], evaluate=False)

    lifted = [lift(e) for e in exprs]
    dummies = [d for d, _ in constants.values()]
    numbers = [v for _, v in constants.values()]
    fn = sympy.lambdify(list(symbols) + dummies, lifted, modules="numpy")

    def run(*symbol_values):
        import warnings

        import numpy as np

        # sqrt and log of negative values give NaN here: the caller reports it, numpy must not warn
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return fn(*symbol_values, *numbers)
            except (ArithmeticError, ValueError, TypeError) as err:  # 0.0 ** -0.5 raises on Python floats
                raise NotEvaluable(
                    f"the weights cannot be evaluated at this point ({type(err).__name__}: {shorten(err, 80)})"
                ) from None

    return run
