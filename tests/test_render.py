"""Rendering of the human report: the columns that carry the verdict always show."""

import io

import numpy as np
from rich.console import Console

from gdlcheck import api
from gdlcheck.output.render import render_verify


def rendered(renderable, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def table_rows(text: str) -> list[str]:
    # the rows under the verify table's rule, up to the panel's bottom edge
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if "───" in line and "╭" not in line)
    return [line for line in lines[start + 1:] if line.startswith("│")]


def test_long_generators_keep_method_errors_and_verdict_visible():
    n = 40
    i, j = np.indices((n, n))
    passing = api.verify(((i - j) % n).astype(float), "cyclic")
    text = rendered(render_verify(passing))
    assert "method" in text and "relative" in text and "result" in text
    rows = table_rows(text)
    assert any("exact" in r and "PASS (exact)" in r for r in rows), text
    assert any("numeric x8" in r and "PASS" in r for r in rows), text
    assert "(0 1 2 3 4 5 6 7 8" in text and "…" in text

    W = np.random.default_rng(0).normal(size=(n, n))
    failing = api.verify(W, "dihedral")
    text = rendered(render_verify(failing))
    rows = table_rows(text)
    assert sum("FAIL" in r for r in rows) >= 4, text
    assert all(len(line) <= 80 for line in text.splitlines())
    # the counterexample line still names the whole generator
    assert "counterexample for (1 39)(2 38)(3 37)(4 36)(5 35)" in text


def test_short_generator_keeps_short_strings_and_elides_long_ones():
    from gdlcheck.output.render import GENERATOR_WIDTH, short_generator

    assert short_generator("(0 1 2)") == "(0 1 2)"
    long = "(" + " ".join(map(str, range(40))) + ")"
    short = short_generator(long)
    assert len(short) <= GENERATOR_WIDTH and short.endswith("…") and long.startswith(short[:-1])
