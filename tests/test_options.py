"""No silent options: an option that does not apply to the command or the input is exit 2 with a
reason, and -o FILE writes the format its extension names."""

import json

import numpy as np
import pytest

from tests.conftest import SAMPLES


@pytest.fixture
def w16(tmp_path):
    path = tmp_path / "w16.npy"
    np.save(path, np.eye(16))
    return path


def one_error_line(result, fragment: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("gdlcheck: error: "), result.stderr
    assert fragment in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args, fragment",
    [
        # sizes that would be ignored
        (
            ["verify", SAMPLES / "cnn-2d.yaml", "--shape", "3x3"],
            "--shape HxW sizes the group named with --group NAME, and none was given",
        ),
        (
            ["verify", SAMPLES / "conv.yaml", "-n", "5"],
            "symmetry.n: -n N does not apply: the spec's symmetry fixes the size (n: 8)",
        ),
        (
            ["derive", "-g", "cyclic", "-n", "8", "--shape", "4x4"],
            "--shape HxW sizes the grid groups (translations, p4, p4m); 'cyclic' is sized by -n N",
        ),
        (
            ["groups", "cyclic", "-n", "4", "--graph", SAMPLES / "petersen.csv"],
            "--graph FILE goes with --group automorphisms, not 'cyclic'",
        ),
        (["groups", "-n", "8"], "size the group NAME; give NAME"),
        # options of another format or method
        (["derive", "-g", "cyclic", "-n", "4", "--export-svg", "report.png"], "--export-svg report.png: it writes SVG"),
        (
            ["derive", "-g", "cyclic", "-n", "4", "--explain", "--format", "json"],
            "--explain adds the derivation to the text report",
        ),
        (
            ["derive", "-g", "cyclic", "-n", "4", "--channels-in", "3", "--format", "csv"],
            "--format csv writes the pattern, which channels do not change",
        ),
        (
            ["verify", SAMPLES / "conv.yaml", "--method", "exact", "--trials", "3"],
            "--trials sets the numeric trials, and --method exact runs none",
        ),
        (["verify", SAMPLES / "conv.yaml", "--quiet", "--format", "json"], "--quiet prints nothing"),
        # -o FILE against --format
        (
            ["derive", "-g", "cyclic", "-n", "4", "--format", "csv", "-o", "x.json"],
            "-o x.json names the json format but --format is csv",
        ),
        (
            ["derive", "-g", "cyclic", "-n", "4", "-o", "x.png"],
            "-o writes the report, not a picture; draw one with --plot x.png",
        ),
        (
            ["project", SAMPLES / "dense.csv", "-g", "cyclic", "-o", "x.tex"],
            "-o x.tex: .tex names the latex format, which this command does not write",
        ),
    ],
)
def test_an_option_that_would_do_nothing_is_refused(run, tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    one_error_line(run(args), fragment)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_matrix_with_the_wrong_size_option_says_which_one_it_needs(run, w16):
    one_error_line(
        run(["verify", w16, "-g", "cyclic", "--shape", "4x4"]), "'cyclic' is sized by -n N (or the input's size)"
    )
    assert run(["verify", w16, "-g", "translations", "--shape", "4x4", "-q"]).exit_code == 0


def test_a_size_that_agrees_with_the_spec_is_fine(run):
    assert run(["verify", SAMPLES / "conv.yaml", "-n", "8", "-q"]).exit_code == 0


def test_a_spec_key_refused_by_the_group_is_named_as_the_key(run, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("symmetry: {group: cyclic, shape: [8]}\nlayer: {kind: conv, kernel: [a, b]}\n")
    one_error_line(
        run(["verify", spec]),
        "symmetry: shape sizes the grid groups (translations, p4, p4m); 'cyclic' is "
        "sized by n (or the input's size) (line 1)",
    )


@pytest.mark.parametrize(
    "name, check",
    [
        ("basis.npy", lambda p: np.load(p).shape == (4, 4, 4)),
        ("form.json", lambda p: json.loads(p.read_text())["dimension"] == 4),
        ("pattern.csv", lambda p: p.read_text() == "0,3,2,1\n1,0,3,2\n2,1,0,3\n3,2,1,0\n"),
        ("form.tex", lambda p: p.read_text().startswith("\\begin{bmatrix}")),
        ("report.txt", lambda p: "circulant" in p.read_text() and "╭" in p.read_text()),
        ("report", lambda p: "circulant" in p.read_text()),  # no extension: --format (text)
    ],
)
def test_derive_o_writes_the_format_of_the_extension(run, tmp_path, name, check):
    target = tmp_path / name
    result = run(["derive", "-g", "cyclic", "-n", "4", "-o", target])
    assert result.exit_code == 0, result.stderr
    assert check(target)


def test_project_o_writes_the_format_of_the_extension(run, tmp_path):
    target = tmp_path / "tied.csv"
    result = run(["project", SAMPLES / "dense.csv", "-g", "cyclic", "-o", target])
    assert result.exit_code == 0 and result.stderr.startswith("relative distance: ")
    assert run(["verify", target, "-g", "cyclic", "-q"]).exit_code == 0
    same = tmp_path / "same.csv"
    assert run(["project", SAMPLES / "dense.csv", "-g", "cyclic", "--format", "csv", "-o", same]).exit_code == 0
    assert same.read_text() == target.read_text()


def test_export_svg_still_writes_svg(run, tmp_path):
    target = tmp_path / "report.svg"
    assert run(["derive", "-g", "cyclic", "-n", "4", "--export-svg", target]).exit_code == 0
    assert target.read_text().lstrip().startswith("<svg")


@pytest.mark.parametrize(
    "args",
    [
        ["derive", "-g", "cyclic", "-n", "4", "--plot", ""],
        ["derive", "-g", "cyclic", "-n", "4", "-o", ""],
        ["derive", "-g", "cyclic", "-n", "4", "--export-svg", ""],
        ["project", SAMPLES / "dense.csv", "-g", "cyclic", "-o", ""],
    ],
)
def test_an_empty_file_name_is_refused_not_ignored(run, args):
    result = run(args)
    one_error_line(result, "the FILE name is empty")
    assert result.stdout == ""
