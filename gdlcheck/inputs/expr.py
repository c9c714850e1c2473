"""A whitelisting parser for the expression strings of spec and matrix files.

The language: numbers (``0.5``, ``1/3``, ``1e-3``), symbols (identifiers), ``+ - * / **``,
unary minus, parentheses, and the functions ``sqrt exp log sin cos tanh Abs``.  The text
is parsed with :mod:`ast` and every node is checked against that list before anything is
built; sympy objects are then built node by node.  Nothing is ever evaluated as Python:
no ``eval``, no ``sympify`` on user text.

Decimal literals become exact rationals (``0.1`` is ``1/10``), so exact comparison of
given numbers means what it says.
"""

from __future__ import annotations

import ast
import math
import warnings

from gdlcheck.errors import ExprError
from gdlcheck.limits import MAX_EXPR_CHARS, MAX_EXPR_DEPTH, MAX_POW_DIGITS, MAX_SYMBOLIC_POWER
from gdlcheck.text import NUMBER_FORMS, TOKEN, is_number_text, printable, shorten

FUNCTIONS = ("sqrt", "exp", "log", "sin", "cos", "tanh", "Abs")
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_UNARY = (ast.USub, ast.UAdd)


def parse_expr(text: str):
    """Parse one expression string into a sympy expression.

    Raises :class:`ExprError` naming what is not allowed.  Results that are not finite
    (``1/0``, ``log(0)``) are errors too.
    """
    import sympy

    if not isinstance(text, str):
        raise ExprError(f"expected an expression string, got {type(text).__name__}")
    if len(text) > MAX_EXPR_CHARS:
        raise ExprError(f"expression of {len(text)} characters exceeds the limit of {MAX_EXPR_CHARS}")
    if not text.strip():
        raise ExprError("empty expression")
    digit = next((ch for ch in text if ch.isdigit() and not ch.isascii()), None)
    if digit is not None:
        import unicodedata

        raise ExprError(
            f"{unicodedata.name(digit, 'a digit')} ({digit!r}) in {_short(text)!r} is not a digit "
            f"gdlcheck reads: write {NUMBER_FORMS} with the digits 0-9"
        )
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and the like must not reach stderr
            warnings.simplefilter("ignore")
            tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise ExprError(f"cannot parse expression {_short(text)!r}{_juxtaposition_hint(text)}") from None
    _check(tree.body, text.strip(), 0)
    value = _build(tree.body, sympy)
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ExprError(f"expression {_short(text)!r} is not finite")
    if value.is_real is False:
        raise ExprError(f"expression {_short(text)!r} is not a real number (it is {_short(value)})")
    return value


def _juxtaposition_hint(text: str) -> str:
    """``2b``, ``2(a + b)``, ``1e-3x``: a product written without ``*``, as in mathematics.  The hint
    is given only when the text with the ``*`` put in parses."""
    import re

    fixed = re.sub(r"(?<![\w.])(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)(?![eE][+-]?\d)\s*(?=[A-Za-z_(])", r"\1*", text.strip())
    if fixed == text.strip():
        return ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(fixed, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    return f" (a product needs '*': write {fixed!r})"


def _check(node: ast.AST, text: str, depth: int) -> None:
    if depth > MAX_EXPR_DEPTH:
        raise ExprError(f"expression {_short(text)!r} is nested deeper than {MAX_EXPR_DEPTH}")
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, _BINOPS):
            raise ExprError(f"operator {type(node.op).__name__} is not allowed in {_short(text)!r}; use + - * / **")
        _check(node.left, text, depth + 1)
        _check(node.right, text, depth + 1)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, _UNARY):
            raise ExprError(f"operator {type(node.op).__name__} is not allowed in {_short(text)!r}")
        _check(node.operand, text, depth + 1)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExprError(
                f"{shorten(repr(node.value), TOKEN)} is not allowed: only numbers, symbols, + - * / ** and parentheses"
            )
        literal = ast.get_source_segment(text, node)
        if literal is None or not is_number_text(literal):
            raise ExprError(
                f"number {_short(literal or str(node.value))!r} is not in a form gdlcheck reads; write {NUMBER_FORMS}"
            )
    elif isinstance(node, ast.Name):
        _check_identifier(node.id)
        if node.id.startswith("_"):
            raise ExprError(f"symbol {node.id!r} is not allowed: names may not start with '_'")
        if node.id in FUNCTIONS:
            raise ExprError(f"{node.id!r} is a function: write {node.id}(x)")
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            shown = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            if isinstance(node.func, ast.Constant):  # 2(a + b)
                raise ExprError(f"cannot parse expression {_short(text)!r}{_juxtaposition_hint(text)}")
            raise ExprError(
                f"call of {shown!r} is not allowed in {_short(text)!r}; the functions are {' '.join(FUNCTIONS)}"
            )
        if node.keywords or len(node.args) != 1:
            raise ExprError(f"{node.func.id} takes exactly one argument")
        _check(node.args[0], text, depth + 1)
    else:
        raise ExprError(
            f"{type(node).__name__} is not allowed in {_short(text)!r}; only numbers, symbols, "
            "+ - * / **, parentheses and the functions " + " ".join(FUNCTIONS)
        )


# Letters of other scripts that print like a Latin letter: a symbol spelled with one of them
# would be a different symbol that looks the same as the Latin one ("а" is U+0430).
LOOK_ALIKES = dict(
    zip(
        "\u0430\u0432\u0435\u043a\u043c\u043d\u043e\u0440\u0441\u0442\u0443\u0445\u0456\u0458\u0455\u04bb\u0501\u051b\u051d"
        "\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0423\u0425\u0406\u0408\u0405"
        "\u03bf\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
        "aBekmHopctyxijshdqwABEKMHOPCTYXIJSoABEZHIKMNOPTYX",
    )
)


def _check_identifier(name: str) -> None:
    """Symbols are NFKC-normalised by the parser (``ﬁ`` is ``fi``); refuse the ones that would
    look like another: a letter that prints like a Latin one, or letters of two scripts."""
    if name.isascii():
        return
    import unicodedata

    for ch in name:
        if ch in LOOK_ALIKES:
            raise ExprError(
                f"symbol {name!r} has {unicodedata.name(ch, '?')} ({ch!r}), which looks like the Latin "
                f"{LOOK_ALIKES[ch]!r}: spell the symbol in one script, without look-alike letters"
            )
    scripts = {unicodedata.name(ch, "?").split()[0] for ch in name if ch.isalpha()}
    if len(scripts) > 1:
        raise ExprError(
            f"symbol {name!r} mixes letters of {' and '.join(sorted(s.title() for s in scripts))}: "
            "spell each symbol in one script"
        )


def _build(node: ast.AST, sympy):
    """The sympy value of ``node``, which :func:`_check` admitted: an int or float constant, a
    name, a unary operator, a call of a function by name, or a binary operator."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int):
            return sympy.Integer(node.value)
        if isinstance(node.value, float) and math.isfinite(node.value):
            return sympy.Rational(repr(node.value))
        raise ExprError(f"number {node.value!r} is not finite")
    if isinstance(node, ast.Name):
        return symbol(node.id)
    if isinstance(node, ast.UnaryOp):
        value = _build(node.operand, sympy)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        arg = _build(node.args[0], sympy)
        return _bounded(getattr(sympy, node.func.id)(arg), node)
    if not isinstance(node, ast.BinOp):
        raise TypeError(f"{type(node).__name__} reached the expression builder unchecked")
    left = _build(node.left, sympy)
    right = _build(node.right, sympy)
    op = node.op
    if isinstance(op, ast.Add):
        return _bounded(left + right, node)
    if isinstance(op, ast.Sub):
        return _bounded(left - right, node)
    if isinstance(op, ast.Mult):
        _check_digits(left, right)
        return _bounded(left * right, node)
    if isinstance(op, ast.Div):
        _check_digits(left, right)
        return _bounded(left / right, node)
    _check_power(left, right)
    return _bounded(left**right, node)


def _bounded(value, node):
    """A number (no symbols) built from the text must have a value within the evaluation bounds
    (:mod:`gdlcheck.inputs.evaluate`): sympy itself calls ``evalf`` on the numbers it combines
    (``a*sin(exp(exp(15))) - a`` never returned), so a number past them is refused as soon as
    it is built, before anything else touches it."""
    if value.free_symbols or value.is_Rational:
        return value
    import sympy

    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return value  # refused as not finite once the whole expression is built
    from gdlcheck.inputs.evaluate import MAX_VALUE_BITS, evaluate

    if evaluate(value, {}) is None:
        shown = ast.unparse(node)
        raise ExprError(
            f"the number {_short(shown)!r} cannot be evaluated: a value on the way is past "
            f"2^{MAX_VALUE_BITS} or outside a function's domain"
        )
    return value


def _digits(x) -> float:
    """Decimal digits of the exact numbers in ``x`` (the largest numerator or denominator)."""
    if x.is_Rational:
        return max(abs(int(x.p)).bit_length(), int(x.q).bit_length()) * 0.30103
    coeff = x.as_coeff_Mul()[0] if x.is_Mul else None
    return _digits(coeff) if coeff is not None and coeff.is_Rational else 0.0


def _check_digits(left, right) -> None:
    """A product or quotient of exact numbers may not pass MAX_POW_DIGITS digits (sympy
    multiplies them out: 10**9999 * 10**9999 * ... grows without bound otherwise)."""
    size = _digits(left) + _digits(right)
    if size > MAX_POW_DIGITS:
        raise ExprError(
            f"a number in the expression would have about {size:.3g} digits, over the limit of {MAX_POW_DIGITS}"
        )


def _check_power(base, exponent) -> None:
    """Refuse powers whose exact value would have more than MAX_POW_DIGITS digits."""
    if exponent.free_symbols:
        # a symbolic exponent: one level (a**b, 2**a); a tower a**(b**c) is refused, its values
        # leave any bound after two levels (28**(28**28) at the first trial point)
        if any(p.exp.free_symbols for p in exponent.atoms(sympy_pow()) | _exps(exponent)):
            raise ExprError(
                "a tower of symbolic exponents (a**(b**c)) is not allowed: at most one symbolic exponent deep"
            )
        return
    if base.free_symbols:
        # a symbolic base: (a + b)**3000 would expand into millions of terms
        if not exponent.is_Rational or abs(exponent) > MAX_SYMBOLIC_POWER:
            raise ExprError(f"exponent {exponent} of a symbolic base exceeds the limit of {MAX_SYMBOLIC_POWER}")
        _check_folded(base, exponent)
        return
    try:
        if base.is_Rational:
            p, q = abs(int(base.p)), int(base.q)
            magnitude = abs((math.log10(p) if p else 0.0) - math.log10(q))
        else:
            from gdlcheck.inputs.evaluate import evaluate

            value = evaluate(base, {})
            if value is None:
                raise ValueError
            import mpmath

            magnitude = abs(float(mpmath.log10(abs(value)))) if value != 0 else 0.0
        size = abs(float(exponent)) * magnitude if exponent.is_Rational else 0.0
    except (TypeError, ValueError, OverflowError, AttributeError):
        raise ExprError("a power in the expression is too large to compute") from None
    if size > MAX_POW_DIGITS:
        raise ExprError(
            f"a power in the expression would have about {size:.3g} digits, over the limit of {MAX_POW_DIGITS}"
        )


def sympy_pow():
    import sympy

    return sympy.Pow


def _exps(e) -> set:
    """``exp(x)`` nodes, which are powers too (of e)."""
    import sympy

    return {sympy.Pow(sympy.E, f.args[0], evaluate=False) for f in e.atoms(sympy.exp)}


def _check_folded(base, exponent) -> None:
    """sympy folds nested powers as it builds them: ``(a**64)**64`` is ``a**4096`` and
    ``(10**9999 * a)**64`` multiplies out ``10**639936``.  Refuse what the fold would build:
    each factor's folded exponent and the digits of each numeric factor."""
    import sympy

    k = abs(exponent)
    for factor in sympy.Mul.make_args(base):
        if factor.is_Rational:
            if _digits(factor) * k > MAX_POW_DIGITS:
                raise ExprError(
                    f"a power in the expression would have about {_digits(factor) * k:.3g} digits, "
                    f"over the limit of {MAX_POW_DIGITS}"
                )
        elif factor.is_Pow and factor.exp.is_number:
            folded = abs(factor.exp) * k
            if folded > MAX_SYMBOLIC_POWER:
                raise ExprError(
                    f"the nested powers fold into exponent {folded} of a symbolic base, over the limit "
                    f"of {MAX_SYMBOLIC_POWER}"
                )


_SYMBOLS: dict[str, object] = {}


def symbol(name: str):
    """The sympy symbol for ``name``; all symbols are real, so the same name is the same symbol."""
    import sympy

    if name not in _SYMBOLS:
        _SYMBOLS[name] = sympy.Symbol(name, real=True)
    return _SYMBOLS[name]


def _short(text: str) -> str:
    """A short token of the text for a message (the text may come from any file)."""
    return printable(shorten(text, TOKEN))
