"""The whitelisting expression parser: what it builds, and what it refuses."""

import pytest
import sympy

from gdlcheck.errors import ExprError
from gdlcheck.inputs.expr import parse_expr, symbol


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1/3", sympy.Rational(1, 3)),
        ("0.1", sympy.Rational(1, 10)),
        ("1e-3", sympy.Rational(1, 1000)),
        ("-2**2", sympy.Integer(-4)),
        ("a + b", symbol("a") + symbol("b")),
        ("theta_0 * (x - 1)", symbol("theta_0") * (symbol("x") - 1)),
        ("sqrt(2)", sympy.sqrt(2)),
        ("Abs(a)", sympy.Abs(symbol("a"))),
        (
            "tanh(w) + exp(w) + log(w) + sin(w) + cos(w)",
            sympy.tanh(symbol("w"))
            + sympy.exp(symbol("w"))
            + sympy.log(symbol("w"))
            + sympy.sin(symbol("w"))
            + sympy.cos(symbol("w")),
        ),
    ],
)
def test_parses(text, expected):
    assert parse_expr(text) == expected


def test_decimal_and_fraction_are_the_same_exact_number():
    assert parse_expr("0.5 * a") == parse_expr("a / 2")


@pytest.mark.parametrize(
    "text, message",
    [
        ("__import__('os').system('touch /tmp/gdlcheck-pwned')", "not allowed"),
        ("().__class__.__bases__[0].__subclasses__()", "not allowed"),
        ("eval('1')", "not allowed"),
        ("exec('x = 1')", "not allowed"),
        ("lambda: 1", "not allowed"),
        ("a.b", "not allowed"),
        ("a[0]", "not allowed"),
        ("'text'", "not allowed"),
        ("_private", "may not start with '_'"),
        ("a if b else c", "not allowed"),
        ("a // b", "not allowed"),
        ("a % b", "not allowed"),
        ("sqrt(1, 2)", "exactly one argument"),
        ("sqrt", "is a function"),
        ("1/0", "not finite"),
        ("log(0)", "not finite"),
        ("10**10**10", "digits"),
        ("a +", "cannot parse"),
        ("", "empty"),
        ("-" * 60 + "a", "nested deeper"),
        ("a" * 3000, "exceeds the limit"),
        ("True", "not allowed"),
        ("1j", "not allowed"),
    ],
)
def test_refuses(text, message):
    with pytest.raises(ExprError, match=message):
        parse_expr(text)


def test_refused_payload_leaves_no_trace(tmp_path):
    target = tmp_path / "pwned"
    with pytest.raises(ExprError):
        parse_expr(f"__import__('os').system('touch {target}')")
    assert not target.exists()
