"""The command line: formats, exit codes, and one line of error for every kind of bad input."""

import json
import subprocess
import sys

import numpy as np
import pytest

from gdlcheck.cli import cli
from tests.conftest import newcomer_env


def lines_json(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_help_lists_every_command(run):
    result = run(["--help"])
    assert result.exit_code == 0
    for command in ("verify", "derive", "project", "groups"):
        assert command in result.stdout
    for command in cli.commands:
        assert run([command, "--help"]).exit_code == 0


def test_the_manual_names_every_command():
    from tests import manual

    text = manual.everything()
    for command in cli.commands:
        assert f"gdlcheck {command}" in text, command


def test_version(run):
    result = run(["--version"])
    assert result.exit_code == 0 and "gdlcheck" in result.stdout


# --------------------------------------------------------------------------- derive


def test_derive_cyclic_8_json(run):
    result = run(["derive", "--group", "cyclic", "-n", "8", "--format", "json"])
    assert result.exit_code == 0
    (obj,) = lines_json(result.stdout)
    assert obj["schema_version"] == 1
    assert obj["group"] == {"name": "cyclic", "n": 8, "order": 8, "generators": ["(0 1 2 3 4 5 6 7)"]}
    assert obj["dimension"] == 8 and obj["free_parameters"] == 8 and obj["unconstrained_parameters"] == 64
    assert obj["parameters"] == [f"theta_{k}" for k in range(8)]
    for i in range(8):
        for j in range(8):
            assert obj["matrix"][i][j] == f"theta_{(i - j) % 8}"
            assert obj["pattern"][i][j] == (i - j) % 8
    assert obj["in_order"] == 1 and obj["out_order"] == 1 and obj["form"] == "circulant"


def test_derive_symmetric_5_json(run):
    (obj,) = lines_json(run(["derive", "-g", "symmetric", "-n", "5", "--format", "json"]).stdout)
    assert obj["dimension"] == 2 and obj["form"] == "alpha*I + beta*11^T"
    assert obj["matrix"][0][0] == "alpha + beta" and obj["matrix"][0][1] == "beta"
    assert obj["group"]["order"] == 120


def test_derive_text_shows_the_form_and_count(run):
    result = run(["derive", "--group", "cyclic", "-n", "8"])
    assert result.exit_code == 0
    assert "circulant" in result.stdout and "64 -> 8" in result.stdout and "theta_7" in result.stdout


def test_derive_csv_is_the_pattern(run):
    result = run(["derive", "--group", "cyclic", "-n", "4", "--format", "csv"])
    assert result.stdout == "0,3,2,1\n1,0,3,2\n2,1,0,3\n3,2,1,0\n"


def test_derive_latex(run):
    out = run(["derive", "--group", "cyclic", "-n", "3", "--format", "latex"]).stdout
    assert out.startswith("\\begin{bmatrix}") and "\\theta_{2}" in out and out.rstrip().endswith("\\end{bmatrix}")


def test_derive_npy_to_file(run, tmp_path):
    target = tmp_path / "basis.npy"
    assert run(["derive", "-g", "dihedral", "-n", "5", "--format", "npy", "-o", target]).exit_code == 0
    basis = np.load(target)
    assert basis.shape == (3, 5, 5)
    assert basis.sum() == 25


@pytest.mark.parametrize("group", ["cyclic", "dihedral", "symmetric", "alternating", "trivial"])
def test_pipeline_derive_csv_into_verify(run, group):
    csv = run(["derive", "--group", group, "-n", "6", "--format", "csv"]).stdout
    result = run(["verify", "-", "--group", group], input=csv)
    assert result.exit_code == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_pipeline_as_real_processes():
    env = newcomer_env(NO_COLOR="1")
    derive = subprocess.run(
        [sys.executable, "-m", "gdlcheck", "derive", "--group", "cyclic", "-n", "6", "--format", "csv"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    verify = subprocess.run(
        [sys.executable, "-m", "gdlcheck", "verify", "-", "--group", "cyclic", "--format", "json"],
        input=derive.stdout,
        capture_output=True,
        text=True,
        env=env,
    )
    assert verify.returncode == 0
    assert json.loads(verify.stdout)["verdict"] == "holds"
    broken = subprocess.run(
        [sys.executable, "-m", "gdlcheck", "verify", "-", "--group", "symmetric"],
        input=derive.stdout,
        capture_output=True,
        text=True,
        env=env,
    )
    assert broken.returncode == 1
    assert "FAIL" in broken.stdout


# --------------------------------------------------------------------------- verify


def test_verify_samples(run, samples):
    assert run(["verify", samples / "layer.yaml"]).exit_code == 0
    assert run(["verify", samples / "conv.yaml"]).exit_code == 0
    assert run(["verify", samples / "conv.yaml", "--group", "symmetric"]).exit_code == 1
    assert run(["verify", samples / "deepsets.yaml"]).exit_code == 0
    assert run(["verify", samples / "dense.csv", "--group", "cyclic"]).exit_code == 1


def test_verify_symbolic_failure_json(run, samples):
    result = run(["verify", samples / "symbolic-broken.yaml", "--format", "json"])
    assert result.exit_code == 1
    (obj,) = lines_json(result.stdout)
    assert obj["passed"] is False and obj["verdict"] == "fails"
    assert obj["constraints"] == ["b = c"]
    assert set(obj) >= {
        "schema_version",
        "input",
        "kind",
        "group",
        "expect",
        "passed",
        "verdict",
        "checks",
        "constraints",
    }
    check = obj["checks"][0]
    assert set(check) >= {"generator", "method", "passed", "max_abs_error", "relative_error", "counterexample"}
    assert check["generator"] == "(0 1 2)"


def test_verify_text_names_generator_and_counterexample(run, samples):
    out = run(["verify", samples / "symbolic-broken.yaml"]).stdout
    assert "FAIL" in out and "(0 1 2)" in out and "b = c" in out and "counterexample" in out


def test_several_inputs_worst_exit_code_and_json_lines(run, samples, tmp_path):
    missing = tmp_path / "nope.csv"
    result = run(["verify", samples / "conv.yaml", samples / "symbolic-broken.yaml", missing, "--format", "json"])
    assert result.exit_code == 2
    objs = lines_json(result.stdout)
    assert [o["verdict"] for o in objs] == ["holds", "fails", "error"]
    assert objs[2]["passed"] is False and "nope.csv" in objs[2]["error"]
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("gdlcheck: error: ")
    assert run(["verify", samples / "conv.yaml", samples / "symbolic-broken.yaml"]).exit_code == 1


def test_quiet_prints_nothing(run, samples):
    result = run(["verify", samples / "conv.yaml", "--quiet"])
    assert result.exit_code == 0 and result.stdout == ""


def test_method_exact_on_tolerance_only_matrix(run, tmp_path):
    W = np.array([[1.0, 2.0], [2.0, 1.0 + 1e-14]])
    path = tmp_path / "w.npy"
    np.save(path, W)
    assert run(["verify", path, "-g", "symmetric"]).exit_code == 0
    result = run(["verify", path, "-g", "symmetric", "--method", "exact", "--format", "json"])
    assert result.exit_code == 1


@pytest.mark.parametrize("suffix", [".npy", ".csv", ".tsv", ".txt", ".json"])
def test_every_matrix_format(run, tmp_path, suffix):
    W = np.array([[1.5, 2.0, 3.0], [3.0, 1.5, 2.0], [2.0, 3.0, 1.5]])
    path = tmp_path / f"w{suffix}"
    if suffix == ".npy":
        np.save(path, W)
    elif suffix == ".json":
        path.write_text(json.dumps(W.tolist()))
    else:
        sep = {".csv": ",", ".tsv": "\t", ".txt": " "}[suffix]
        path.write_text("\n".join(sep.join(repr(float(x)) for x in row) for row in W) + "\n")
    result = run(["verify", path, "--group", "cyclic", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    assert lines_json(result.stdout)[0]["verdict"] == "holds"


def test_stdin_spec(run, samples):
    text = (samples / "conv.yaml").read_text()
    assert run(["verify", "-"], input=text).exit_code == 0


def test_json_is_deterministic(run, samples):
    a = run(["verify", samples / "dense.csv", "-g", "dihedral", "--format", "json"]).stdout
    b = run(["verify", samples / "dense.csv", "-g", "dihedral", "--format", "json"]).stdout
    assert a == b


# --------------------------------------------------------------------------- groups


def test_groups_catalogue_and_one_group(run):
    out = run(["groups"]).stdout
    for name in ("trivial", "cyclic", "dihedral", "symmetric", "alternating", "generators"):
        assert name in out
    (obj,) = lines_json(run(["groups", "cyclic", "-n", "4", "--format", "json"]).stdout)
    assert obj == {
        "schema_version": 1,
        "name": "cyclic",
        "n": 4,
        "order": 4,
        "generators": ["(0 1 2 3)"],
        "transitive": True,
    }
    (obj,) = lines_json(run(["groups", "symmetric", "-n", "20", "--format", "json"]).stdout)
    assert obj["order"] == "2432902008176640000"
    (obj,) = lines_json(
        run(["groups", "generators", "--generators", "(0 1)", "--generators", "[0, 2, 1]", "--format", "json"]).stdout
    )
    assert obj["order"] == 6 and obj["n"] == 3


# --------------------------------------------------------------------------- bad input


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "args, message",
    [
        (["verify", "{tmp}/missing.csv", "-g", "cyclic"], "missing.csv: cannot read: no such file"),
        (["verify", "{tmp}/nonsquare.csv", "-g", "cyclic"], "matrix is 2 x 3, expected a square"),
        (["verify", "{tmp}/ragged.csv", "-g", "cyclic"], "row 1 has 2 entries, expected 3"),
        (["verify", "{tmp}/square.csv", "-g", "cyclc"], "unknown group 'cyclc' (did you mean 'cyclic'?)"),
        (["verify", "{tmp}/square.csv", "-g", "generators", "--generators", "[0, 0, 1]"], "not a bijection"),
        (["verify", "{tmp}/square.csv"], "a bare matrix carries no symmetry"),
        (["verify", "{tmp}/square.csv", "-g", "cyclic", "-n", "4"], "group acts on n = 4"),
        (["verify", "{tmp}/ragged.yaml"], "layer.weight: row 2 has 3 entries, expected 4"),
        (["derive", "-g", "cyclic"], "needs a size"),
        (["derive", "-n", "4"], "derive needs --group"),
        (["verify", "{tmp}/square.csv", "-g", "cyclic", "--method", "fast"], "Invalid value for '--method'"),
    ],
)
def test_bad_input_gets_one_line_and_exit_2(run, tmp_path, args, message):
    write(tmp_path, "nonsquare.csv", "1,2,3\n4,5,6\n")
    write(tmp_path, "ragged.csv", "1,2,3\n4,5\n6,7,8\n")
    write(tmp_path, "square.csv", "1,2,3\n3,1,2\n2,3,1\n")
    write(
        tmp_path,
        "ragged.yaml",
        "symmetry: {group: cyclic, n: 4}\nlayer:\n  kind: linear\n  weight:\n"
        "    - [1, 2, 3, 4]\n    - [1, 2, 3, 4]\n    - [1, 2, 3]\n    - [1, 2, 3, 4]\n",
    )
    result = run([a.replace("{tmp}", str(tmp_path)) if isinstance(a, str) else a for a in args])
    assert result.exit_code == 2, result.stdout
    assert result.stderr.startswith("gdlcheck: error: ")
    assert message in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_error_line_has_file_where_what(run, tmp_path):
    path = write(
        tmp_path,
        "layer.yaml",
        "symmetry: {group: cyclic, n: 4}\nlayer:\n  kind: linear\n  weight:\n"
        "    - [1, 2, 3, 4]\n    - [1, 2, 3, 4]\n    - [1, 2, 3]\n    - [1, 2, 3, 4]\n",
    )
    result = run(["verify", path])
    assert result.stderr.startswith(f"gdlcheck: error: {path}: layer.weight: row 2 has 3 entries, expected 4")


def test_internal_error_exits_70_without_traceback(run, monkeypatch, samples):
    from gdlcheck.verification import pipeline

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(pipeline, "_verify", boom)
    result = run(["verify", samples / "conv.yaml"])
    assert result.exit_code == 70
    assert "internal error" in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.slow
def test_no_color_and_piped_output_has_no_escape_codes():
    env = newcomer_env(NO_COLOR="1")
    out = subprocess.run(
        [sys.executable, "-m", "gdlcheck", "derive", "-g", "cyclic", "-n", "4"], capture_output=True, text=True, env=env
    ).stdout
    assert "\x1b[" not in out and "theta_3" in out
