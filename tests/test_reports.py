"""Reports that say what a newcomer needs: a terminal waiting on standard input says so, group
names from textbooks and CSV of other locales get a hint, a tab in YAML is named, --plot into a
missing folder is refused before the work, and a near tie at symmetries' colour cut is reported."""

import os
import pty
import select
import subprocess
import sys

import numpy as np
import pytest

import gdlcheck
from gdlcheck.cli import common
from gdlcheck.errors import GroupError
from tests.conftest import ROOT, SAMPLES, forbid

# --------------------------------------------------------------------------- standard input on a terminal


@pytest.mark.slow
def test_verify_dash_on_a_terminal_says_it_is_waiting_then_reads_the_matrix():
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gdlcheck", "verify", "-", "--group", "cyclic", "-q"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    os.close(slave)
    # the notice comes before anything is typed
    ready, _, _ = select.select([proc.stderr], [], [], 120)
    assert ready, "no notice on standard error while waiting for standard input"
    notice = proc.stderr.readline().decode()
    assert notice.startswith("gdlcheck: waiting for standard input") and "Ctrl-D" in notice
    os.write(master, b"1,2\n2,1\n\x04")
    try:
        assert proc.wait(timeout=120) == 0
    finally:
        os.close(master)
    assert proc.stderr.read() == b""


def test_the_notice_is_only_for_a_terminal(run, monkeypatch):
    assert "waiting" not in run(["verify", "-", "--group", "cyclic", "-q"], input="1,2\n2,1\n").stderr
    monkeypatch.setattr(common, "stdin_is_terminal", lambda: True)
    result = run(["symmetries", "-"], input="1,2\n2,1\n")
    assert result.exit_code == 0 and result.stderr.startswith("gdlcheck: waiting for standard input")
    assert "waiting" not in run(["verify", SAMPLES / "dense.csv", "--group", "cyclic", "-q"]).stderr


# --------------------------------------------------------------------------- hints


@pytest.mark.parametrize(
    "name, says",
    [
        ("C16", "(--group cyclic with -n 16)"),
        ("Z_16", "(--group cyclic with -n 16)"),
        ("S5", "(--group symmetric with -n 5)"),
        ("a7", "(--group alternating with -n 7)"),
        (
            "D8",
            "(--group dihedral with -n 8: the symmetries of a regular 8-gon, order 16; for the dihedral group of "
            "order 8, -n 4)",
        ),
    ],
)
def test_textbook_group_names_say_the_name_and_size_to_give(run, name, says):
    result = run(["derive", "--group", name])
    assert result.exit_code == 2 and result.stdout == ""
    assert (
        result.stderr == f"gdlcheck: error: unknown group {name!r} {says}; known: trivial, cyclic, dihedral, "
        "symmetric, alternating, translations, p4, p4m, automorphisms, generators\n"
    )


def test_the_hint_speaks_python_in_python_and_c4_keeps_meaning_p4():
    with pytest.raises(GroupError, match=r"\(group='cyclic' with n=16\)"):
        gdlcheck.group("C16")
    with pytest.raises(GroupError, match="did you mean 'p4'"):
        gdlcheck.group("C4")  # the rotations of a square grid, as the texts write it


def test_semicolon_csv_says_to_use_commas(run, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("# exported with a decimal comma\n1;2\n2;1\n")
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"gdlcheck: error: {path}: the entries are separated by ';': write them separated by "
        "',' (CSV) with '.' as the decimal point, by tabs (.tsv) or by spaces (.txt)\n"
    )


def test_a_tab_in_yaml_is_named(run, tmp_path):
    path = tmp_path / "layer.yaml"
    path.write_text("symmetry: {group: cyclic, n: 2}\nlayer:\n\tkind: linear\n")
    result = run(["verify", path])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "(line 3): the line holds a tab ('\\t') where YAML wants spaces; indent with spaces" in result.stderr
    path.write_text("symmetry: {group: cyclic, n: 2}\nlayer: [kind: linear\n")  # no tab: no tab hint
    assert "holds a tab" not in run(["verify", path]).stderr


def test_plot_into_a_missing_folder_is_refused_before_the_work(run, tmp_path, monkeypatch):
    from gdlcheck import api

    forbid(monkeypatch, api, "derive", "the derivation")
    forbid(monkeypatch, api, "verify_input", "the verification")
    target = tmp_path / "no such folder" / "p.png"
    for args in (
        ["derive", "-g", "cyclic", "-n", "4"],
        ["verify", SAMPLES / "dense.csv", "-g", "cyclic"],
        ["project", SAMPLES / "dense.csv", "-g", "cyclic"],
        ["symmetries", SAMPLES / "dense.csv"],
    ):
        result = run([*args, "--plot", target])
        assert result.exit_code == 2 and result.stdout == "", args
        assert (
            result.stderr == f"gdlcheck: error: --plot {target}: the folder {str(target.parent)!r} does not exist; "
            "create it first\n"
        )


# --------------------------------------------------------------------------- symmetries' colour cut


def test_a_near_tie_at_the_colour_cut_is_reported():
    tol = 1e-9
    W = np.array([[1 - 0.9e-9, 1.0], [1 + 0.2e-9, 1 - 0.9e-9]])
    # by hand: the swap (0 1) maps W[0, 1] onto W[1, 0], 0.2e-9 apart, within tol of the largest entry
    assert abs(W[1, 0] - W[0, 1]) <= tol * np.abs(W).max()
    found = gdlcheck.find_symmetries(W, tol=tol)
    assert found.group.order == 1  # the greedy cut put them in two colours: the swap is not found
    assert found.near_ties == 1 and found.near_tie == (1.0, float(W[1, 0]))
    assert found.to_json()["near_ties"] == 1
    assert "near tie: 1 pair(s) of entries within tol of each other got different colours" in " ".join(
        found.report(width=200).replace("│", " ").split()
    )


def test_no_near_tie_where_the_cut_falls_in_a_gap():
    W = np.array([[1.0, 2.0], [2.0 + 1e-12, 1.0]])  # the swap moves an entry by 1e-12: one colour
    found = gdlcheck.find_symmetries(W, tol=1e-9)
    assert found.group.order == 2 and found.near_ties == 0 and "near tie" not in found.report()
    assert gdlcheck.find_symmetries(np.array([[1.0, 2.0], [3.0, 1.0]]), tol=1e-9).near_ties == 0
