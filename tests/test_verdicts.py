"""The words of a verdict and a method live in one place (gdlcheck.verdicts): the JSON word is the
member, and every report, the exit code and JUnit read the rest from it."""

import ast
import json
import pathlib

import numpy as np
import pytest

import gdlcheck
from gdlcheck.verdicts import Method, Verdict
from gdlcheck.verification import METHODS

PACKAGE = pathlib.Path(gdlcheck.__file__).parent


@pytest.mark.parametrize("verdict", list(Verdict))
def test_a_verdict_is_its_json_word(verdict):
    word = verdict.value
    assert verdict == word and hash(verdict) == hash(word) and {verdict} == {word}
    assert f"{verdict}" == str(verdict) == word and f"{verdict:>20}" == f"{word:>20}"
    assert json.dumps({"verdict": verdict, verdict: 1}) == json.dumps({"verdict": word, word: 1})
    assert Verdict(word) is verdict


def test_what_each_verdict_shows_and_exits_with():
    shown = {v.value: (v.word, v.style, v.passed, v.exit_code) for v in Verdict}
    assert shown == {
        "holds": ("PASS", "bold green", True, 0),
        "holds_within_tolerance": ("PASS", "bold green", True, 0),
        "holds_numerically": ("PASS", "bold green", True, 0),
        "fails": ("FAIL", "bold red", False, 1),
        "inconclusive": ("INCONCLUSIVE", "bold yellow", False, 3),
        "error": ("ERROR", "bold red", False, 2),
        "not_judged": ("-", "dim", False, 0),
    }
    assert all(v.meaning for v in Verdict)


def test_the_methods_are_the_options_words():
    assert METHODS == tuple(m.word for m in Method) == ("auto", "exact", "numeric", "both")
    assert Method("numeric") is Method.NUMERIC and Method.EXACT == "exact"


def test_verification_returns_members_whose_meaning_the_report_shows():
    from gdlcheck.output.render_verify import render_verify
    from gdlcheck.shown import REPORT_WIDTH  # noqa: F401  (the API registers the presenters on import)

    g = gdlcheck.group("cyclic", n=4)
    held = gdlcheck.verify(np.eye(4), g)
    broken = gdlcheck.verify(np.diag([1.0, 2.0, 3.0, 4.0]), g)
    assert held.verdict is Verdict.HOLDS and broken.verdict is Verdict.FAILS
    assert held.to_json()["verdict"] == "holds" and type(held.to_json()["verdict"]) is str
    text = held.report()
    assert text.lstrip("╭─ ").startswith(Verdict.HOLDS.word) and Verdict.HOLDS.meaning in text
    assert Verdict.FAILS.meaning in broken.report()
    assert render_verify(held) is not None


def _literals_compared(path: pathlib.Path) -> list[tuple[int, str]]:
    """String constants compared (==, !=, in) in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                elements = side.elts if isinstance(side, (ast.Tuple, ast.List, ast.Set)) else [side]
                found += [
                    (node.lineno, e.value) for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
    return found


def test_no_report_or_command_compares_a_verdict_or_method_word():
    words = ({v.value for v in Verdict} | {v.word for v in Verdict} | {m.value for m in Method}) - {"-"}
    compared = [
        (str(path.relative_to(PACKAGE)), line, text)
        for folder in ("output", "cli")
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        for line, text in _literals_compared(path)
        if text in words
    ]
    assert compared == []


def test_the_scan_finds_a_word_compared(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('def f(r):\n    return r.verdict == "fails" or r.method in ("exact", "x")\n')
    assert _literals_compared(sample) == [(2, "fails"), (2, "exact"), (2, "x")]


def _method_words_compared(path: pathlib.Path) -> list[int]:
    """Lines of ``path`` that compare something named ``method`` with a string constant."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = any(
                (isinstance(s, ast.Name) and s.id == "method") or (isinstance(s, ast.Attribute) and s.attr == "method")
                for s in sides
            )
            literal = any(
                isinstance(e, ast.Constant) and isinstance(e.value, str)
                for s in sides
                for e in (s.elts if isinstance(s, (ast.Tuple, ast.List)) else [s])
            )
            if named and literal:
                lines.append(node.lineno)
    return lines


def test_verification_compares_methods_as_members(tmp_path):
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted((PACKAGE / "verification").rglob("*.py"))
        if (lines := _method_words_compared(path))
    }
    assert found == {}
    sample = tmp_path / "sample.py"
    sample.write_text('def f(c, method):\n    return c.method == "numeric" or method in ("exact", "both")\n')
    assert _method_words_compared(sample) == [2, 2]


def test_a_check_says_its_method_as_a_member_and_its_json_as_the_word():
    g = gdlcheck.group("cyclic", n=4)
    result = gdlcheck.verify(np.eye(4), g)
    assert {c.method for c in result.checks} == {Method.EXACT, Method.NUMERIC}
    assert all(type(c["method"]) is str for c in result.to_json()["checks"])
