"""Rendering of the human report: the columns that carry the verdict always show."""

import io

import numpy as np
from rich.console import Console

from gdlcheck import api
from gdlcheck.output.render_verify import render_verify


def rendered(renderable, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def table_rows(text: str) -> list[str]:
    # the rows under the verify table's rule, up to the panel's bottom edge
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if "───" in line and "╭" not in line)
    return [line for line in lines[start + 1 :] if line.startswith("│")]


def test_long_generators_keep_method_errors_and_verdict_visible():
    n = 40
    i, j = np.indices((n, n))
    passing = api.verify(((i - j) % n).astype(float), "cyclic")
    text = rendered(render_verify(passing))
    assert "method" in text and "relative" in text and "result" in text
    rows = table_rows(text)
    assert any("exact" in r and "PASS (exact)" in r for r in rows), text
    assert any("numeric x8" in r and "PASS" in r for r in rows), text
    # a long generator is named by what it is, never cut: the cycles are in the counterexample and the JSON
    assert any(r.split()[1] == "shift" for r in rows) and "…" not in text

    W = np.random.default_rng(0).normal(size=(n, n))
    failing = api.verify(W, "dihedral")
    text = rendered(render_verify(failing))
    rows = table_rows(text)
    assert sum("FAIL" in r for r in rows) >= 4, text
    assert all(len(line) <= 80 for line in text.splitlines())
    # the counterexample line still names the whole generator
    assert "counterexample for reflection (1 39)(2 38)(3 37)(4 36)(5 35)" in text
    assert any(r.split()[1] == "reflection" for r in rows)


def test_generators_are_named_by_their_role_in_every_catalogue_group():
    from gdlcheck.output.render_verify import generator_name

    cases = {
        ("cyclic", 3): ["shift (0 1 2)"],
        ("dihedral", 5): ["shift (0 1 2 3 4)", "reflection"],
        ("dihedral", 4): ["shift (0 1 2 3)", "reflection (1 3)"],
        ("symmetric", 12): ["shift", "transposition (0 1)"],
        ("alternating", 5): ["3-cycle (0 1 2)", "shift (0 1 2 3 4)"],
        ("alternating", 12): ["3-cycle (0 1 2)", "cycle"],
        ("translations", (2, 3)): ["translation (axis 0)", "translation (axis 1)"],
        ("p4m", (3, 3)): ["translation (axis 0)", "translation (axis 1)", "rotation", "reflection"],
    }
    for (name, size), expected in cases.items():
        g = api.group(name, **({"shape": size} if isinstance(size, tuple) else {"n": size}))
        assert [generator_name(g, s) for s in g.generator_strings] == expected, name
    mine = api.group(generators=["(0 1)(2 3)", "(0 2 4)"], n=5)
    assert [generator_name(mine, s) for s in mine.generator_strings] == ["(0 1)(2 3)", "3-cycle (0 2 4)"]
    long = api.group(generators=["(" + " ".join(map(str, range(30))) + ")(30 31)"])
    assert generator_name(long, long.generator_strings[0]) == "generator 1"


def test_grid_counterexamples_name_points_by_their_coordinates():
    W = np.random.default_rng(1).normal(size=(9, 9))
    text = rendered(render_verify(api.verify(W, "p4", shape=(3, 3), method="exact")), width=200)
    lines = [line for line in text.splitlines() if "counterexample for rotation" in line]
    assert lines and "W[(" in lines[0], text
    line = " ".join(lines[0].split())
    # the rotation (a, b) -> (b, -a mod 3) maps the pair of points shown onto each other
    import re

    (ga, gb, gc, gd), (a, b, c, d) = [
        tuple(map(int, m)) for m in re.findall(r"W\[\((\d), (\d)\), \((\d), (\d)\)\]", line)
    ]
    assert ((ga, gb), (gc, gd)) == ((b, (-a) % 3), (d, (-c) % 3))
    assert W[ga * 3 + gb, gc * 3 + gd] != W[a * 3 + b, c * 3 + d]


def test_short_generator_keeps_short_strings_and_elides_long_ones():
    from gdlcheck.output.render_parts import GENERATOR_WIDTH, short_generator

    assert short_generator("(0 1 2)") == "(0 1 2)"
    long = "(" + " ".join(map(str, range(40))) + ")"
    short = short_generator(long)
    assert len(short) <= GENERATOR_WIDTH and short.endswith("…") and long.startswith(short[:-1])
