"""Reports at any width: 40, 80 and 200 columns, nothing cut (names wrap, numbers stay whole)."""

import io
import re

import numpy as np
import pytest
from rich.console import Console

import gdlcheck
from gdlcheck import api
from gdlcheck.output.render_derive import render_derive, render_project
from gdlcheck.output.render_groups import render_catalogue, render_symmetries
from gdlcheck.output.render_inspect import render_inspect
from gdlcheck.output.render_kinds import render_kind, render_kinds
from gdlcheck.output.render_matrices import number_text
from gdlcheck.output.render_verify import render_summary, render_verify
from tests.conftest import SAMPLES

WIDTHS = (40, 80, 200)


def rendered(renderable, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def squeezed(text: str) -> str:
    """The text without white space and panel borders: what is left when wrapping is undone."""
    return re.sub(r"[\s│╭╮╰╯─]", "", text)


def fits(text: str, width: int) -> None:
    assert all(len(line) <= width for line in text.splitlines()), text
    assert "…" not in text, text  # rich's ellipsis: something was cut


@pytest.fixture(scope="module")
def failing():
    return api.verify("samples/symbolic-broken.yaml")


@pytest.mark.parametrize("width", WIDTHS)
def test_verify_report_keeps_the_name_title_and_numbers(failing, width):
    text = rendered(render_verify(failing), width)
    fits(text, width)
    assert "samples/symbolic-broken.yaml" in squeezed(text) and "almost-circulant-3" in squeezed(text)
    numeric = next(c for c in failing.checks if c.method == "numeric")
    for number in (f"{numeric.max_abs_error:.3g}", f"{numeric.relative_error:.3g}"):
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d.])", text), (number, text)
    assert "FAIL" in text and "would hold if: b = c" in " ".join(text.split())


@pytest.mark.parametrize("width", WIDTHS)
def test_the_title_moves_inside_the_panel_only_when_it_does_not_fit(failing, width):
    first = rendered(render_verify(failing), width).splitlines()[0]
    if width >= 80:
        assert "samples/symbolic-broken.yaml" in first
    else:
        assert first.startswith("╭─ FAIL ─") and "input" in rendered(render_verify(failing), width)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_failing_matrix_keeps_every_number_at_any_width(width):
    W = np.random.default_rng(0).normal(size=(6, 6))
    result = api.verify(W, "dihedral")
    text = rendered(render_verify(result), width)
    fits(text, width)
    for c in result.checks:
        assert f"{c.relative_error:.3g}" in text and f"{c.max_abs_error:.3g}" in text


@pytest.fixture(scope="module")
def summary_entries():
    names = [
        "samples/attention-absolute.yaml",
        "samples/transformer-encoder.yaml",
        "samples/deepsets-channels.yaml",
        "samples/bias-breaks.yaml",
    ]
    entries = [(name, api.verify(name)) for name in names]
    entries.append(("samples/a-file-that-is-not-there-with-a-long-name.csv", None))
    entries.append(("docs/examples/pooled-bias.yaml", api.verify("docs/examples/pooled-bias.yaml", method="exact")))
    return entries


def input_column(text: str) -> str:
    """The summary's input column, its rows joined (a name that wraps is whole again)."""
    lines = text.splitlines()
    k = next((i for i, line in enumerate(lines) if "input" in line and "verdict" in line), None)
    if k is None:  # the narrow layout: one block per input, the name on its verdict's line
        return squeezed(text)
    start, end = lines[k].index("input"), lines[k].index("layer")
    return "".join(line[start:end].strip() for line in lines[k + 2 :])


@pytest.mark.parametrize("width", WIDTHS)
def test_summary_keeps_every_name_whole_and_counts(summary_entries, width):
    text = rendered(render_summary(summary_entries), width)
    fits(text, width)
    column = input_column(text)
    for name, _ in summary_entries:
        assert name in column, (name, text)
    assert "ERROR" in text and "INCONCLUSIVE" in text
    held = sum(1 for _, r in summary_entries if r is not None and r.passed)
    failed = sum(1 for _, r in summary_entries if r is not None and r.verdict == "fails")
    assert (held, failed) == (2, 2)
    assert "6 inputs: 2 hold, 2 fail, 1 inconclusive, 1 could not be read" in " ".join(text.split())


def test_the_count_line_reads_as_the_issue_asks():
    from gdlcheck.output.words import count_line

    assert count_line(12, 9, 2, 0, 1) == "12 inputs: 9 hold, 2 fail, 1 could not be read"
    assert count_line(1, 1, 0, 0, 0) == "1 input: 1 hold"


@pytest.mark.parametrize("width", WIDTHS)
def test_project_prints_the_matrix_as_a_table(width):
    W = np.arange(36.0).reshape(6, 6) / 7
    projected = gdlcheck.project(W, "cyclic")
    text = rendered(render_project("w.csv", projected.group, projected.matrix, projected.distance), width)
    fits(text, width)
    P = projected.matrix
    assert number_text(P[0, 0]) in text and number_text(P[5, 5]) in text
    if width >= 80:  # every column fits: no elision, each row on one line
        row0 = next(line for line in text.splitlines() if re.match(r"│ 0 ", line))
        assert all(number_text(x) in row0 for x in P[0])
    assert "[[" not in text  # not numpy's repr


def test_project_elides_a_large_matrix_like_the_pattern():
    W = np.random.default_rng(1).normal(size=(40, 40))
    projected = gdlcheck.project(W, "dihedral")
    text = rendered(render_project("w.npy", projected.group, projected.matrix, projected.distance), 200)
    fits(text, 200)
    assert "..." in text and " 39 " in text and " 20 " not in text


@pytest.mark.parametrize("width", WIDTHS)
def test_inconclusive_says_what_could_not_be_decided(width):
    result = api.verify("docs/examples/pooled-bias.yaml", method="exact")
    text = rendered(render_verify(result), width)
    fits(text, width)
    flat = " ".join(text.replace("│", " ").split())
    assert "INCONCLUSIVE" in text and "could not decide (0 1 2 3 4 5 6 7) (exact)" in flat
    assert "UNDECIDED" in text and "not proven for (0 1 2 3 4 5 6 7) at layers[0].bias" in flat


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "make",
    [
        lambda: render_derive(gdlcheck.derive(gdlcheck.group("p4", shape="5x5"))),
        lambda: render_inspect(api.inspect(SAMPLES / "attention.yaml")),
        lambda: render_catalogue(),
        lambda: render_kinds(api.kinds()),
        lambda: render_kind(api.kind("gcn")),
        lambda: render_symmetries("samples/petersen.csv", api.find_symmetries(SAMPLES / "petersen.csv")),
    ],
    ids=["derive", "inspect", "groups", "kinds", "kinds-gcn", "symmetries"],
)
def test_other_reports_fit_without_cutting(make, width):
    fits(rendered(make(), width), width)
