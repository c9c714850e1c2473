"""Clean standard error and honest names: no Python warnings, no terminal escapes from any input,
one symbol per spelling, and numbers only in the forms the README documents."""

import json
import struct
import warnings

import numpy as np
import pytest

from tests.conftest import SAMPLES


def test_python_warnings_never_reach_standard_error(run, monkeypatch):
    from gdlcheck import api

    real = api.verify_input

    def noisy(*args, **kwargs):
        warnings.warn("overflow encountered in multiply", RuntimeWarning, stacklevel=1)
        np.float64(1e308) * np.float64(10)  # numpy's own RuntimeWarning
        np.asarray([1 + 1j]).astype(np.float64)  # ComplexWarning
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "verify_input", noisy)
    result = run(["verify", SAMPLES / "layer.yaml"])
    assert result.exit_code == 0 and result.stderr == ""


def test_an_overflowing_layer_prints_one_line_and_no_warning(run, tmp_path):
    spec = tmp_path / "overflow.yaml"
    spec.write_text(
        "symmetry: {group: symmetric, n: 8}\nlayer: {kind: attention, wq: [[1e200]], wk: [[1e200]], "
        "wv: [[1]], mask: causal}\n"
    )
    result = run(["verify", spec])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "Warning" not in result.stderr


def test_a_10_kb_npy_header_is_one_line_without_pickle_advice(run, tmp_path):
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"
    header = header + " " * (12_000 - len(header)) + "\n"
    path = tmp_path / "big-header.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(32))
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "allow_pickle" not in result.stderr and "header" in result.stderr.lower()


def test_an_interrupt_is_one_line_without_an_empty_line_before_it(run, monkeypatch):
    from gdlcheck import api

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "verify_input", interrupted)
    result = run(["verify", SAMPLES / "layer.yaml"])
    assert result.exit_code == 130 and result.stderr == "gdlcheck: interrupted\n"


def test_control_characters_and_escapes_in_names_are_printed_escaped(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evil = "a\x1b[31mred\x07.csv"
    result = run(["verify", evil, "-g", "cyclic"])
    assert result.exit_code == 2 and "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "a\\x1b[31mred\\x07.csv" in result.stderr and result.stderr.count("\n") == 1
    (tmp_path / evil).write_text("1,2\n2,1\n")
    result = run(["verify", evil, "-g", "cyclic"])
    assert result.exit_code == 0 and "\x1b" not in result.stdout and "\\x1b[31m" in result.stdout
    spec = "named.yaml"
    (tmp_path / spec).write_text(
        'name: "x\\e]0;pwned\\a\\u202e"\nsymmetry: {group: cyclic, n: 2}\n'
        "layer: {kind: linear, weight: [[1, 2], [2, 1]]}\n"
    )
    result = run(["verify", spec])
    assert result.exit_code == 0 and "\x1b" not in result.stdout and "\u202e" not in result.stdout
    assert "x\\x1b]0;pwned\\x07\\u202e" in result.stdout
    assert json.loads(run(["verify", spec, "--format", "json"]).stdout)["name"] == "x\x1b]0;pwned\x07\u202e"
    key = "key.yaml"
    (tmp_path / key).write_text(
        'symmetry: {group: cyclic, n: 2}\n"la\\eyer": 1\nlayer: {kind: linear, weight: [[1]]}\n'
    )
    result = run(["verify", key])
    assert result.exit_code == 2 and "\x1b" not in result.stderr and result.stderr.count("\n") == 1


def test_identifiers_are_nfkc_normalised(run, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps([["\ufb01", 1], [1, "fi"]]))  # the ligature is the two letters
    result = run(["verify", path, "-g", "cyclic", "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["verdict"] == "holds"


@pytest.mark.parametrize(
    "entries, message",
    [
        (["\u0430", "a"], "CYRILLIC SMALL LETTER A"),  # Cyrillic a beside Latin a: they print the same
        (["\u0391*b", "b"], "GREEK CAPITAL LETTER ALPHA"),
        (["x\u03b1", "x"], "mixes letters of Greek and Latin"),
    ],
)
def test_look_alike_and_mixed_script_symbols_are_refused(run, tmp_path, entries, message):
    path = tmp_path / "m.json"
    path.write_text(json.dumps([[entries[0], 1], [1, entries[1]]]))
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 2 and message in result.stderr and result.stderr.count("\n") == 1


def test_greek_symbols_of_one_script_are_symbols(run, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps([["\u03b1", "\u03b2"], ["\u03b2", "\u03b1"]]))
    assert run(["verify", path, "-g", "cyclic", "-q"]).exit_code == 0


UNDOCUMENTED = ["0x10", "0b1", "0o7", "1_000", "\u0661\u0662", "\uff11", "1:30", "a*0x10", "2**1_0", "x\u00b2"]


@pytest.mark.parametrize("number", UNDOCUMENTED)
def test_undocumented_number_forms_are_refused(run, tmp_path, number):
    csv = tmp_path / "m.csv"
    csv.write_text(f"{number},1\n1,{number}\n", encoding="utf-8")
    result = run(["verify", csv, "-g", "cyclic"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, (number, result.stdout)
    spec = tmp_path / "m.yaml"
    spec.write_text(
        f"symmetry: {{group: cyclic, n: 2}}\nlayer: {{kind: linear, weight: [[{number}, 1], [1, 1]]}}\n",
        encoding="utf-8",
    )
    result = run(["verify", spec])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, (number, result.stdout)


@pytest.mark.parametrize(
    "args", [["-n", "1_000"], ["-n", "\u0664"], ["-n", "0x8"], ["--trials", "1_0"], ["--seed", "\u0661"]]
)
def test_undocumented_number_forms_in_options_are_refused(run, args):
    result = run(["verify", SAMPLES / "dense.csv", "-g", "cyclic"] + args)
    assert result.exit_code == 2 and "decimal digits" in result.stderr


DOCUMENTED = ["3", "-0.5", ".5", "2.", "1e-3", "2.5E+10", "+1", "010"]


@pytest.mark.parametrize("number", DOCUMENTED)
def test_the_documented_number_forms_are_read_as_decimals(run, tmp_path, number):
    value = float(number)
    for path, text in (
        (tmp_path / "m.csv", f"{number},1\n1,{number}\n"),
        (
            tmp_path / "m.yaml",
            f"symmetry: {{group: cyclic, n: 2}}\nlayer: {{kind: linear, weight: [[{number}, 1], [1, {number}]]}}\n",
        ),
    ):
        path.write_text(text)
        args = ["verify", path, "--format", "json"] + (["-g", "cyclic"] if path.suffix == ".csv" else [])
        result = run(args)
        assert result.exit_code == 0, (number, result.stderr)
    from gdlcheck.inputs.arrays import entry_value

    assert entry_value(number) == value  # 010 is ten, not YAML 1.1's octal eight
    from gdlcheck.inputs.spec import parse_yaml

    assert parse_yaml(f"x: {number}", "-")[0]["x"] in (value, number)


def test_the_manual_states_the_number_forms():
    from tests import manual

    section = manual.section("## Numbers")
    for form in ("0x10", "1_000", "nan"):
        assert form in section
