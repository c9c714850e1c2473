"""Exits that tell the truth (the manual, "Exit codes").

* a closed pipe (the reader went away) discards the rest of the output and keeps the verdicts'
  exit code: a holding layer stays 0 under ``set -o pipefail``;
* any other failure to write the output (a full disk, an I/O error, a closed standard output)
  is one line on standard error and exit 74;
* text the stream cannot encode is escaped; ``-o`` refuses a value that looks like an option,
  and ``-o -`` is standard output.

These run gdlcheck as a process: pipes, descriptors and encodings are the operating system's.
"""

import os
import subprocess
import sys

import pytest

from tests.conftest import SAMPLES, newcomer_env

pytestmark = pytest.mark.slow

GDLCHECK = [sys.executable, "-m", "gdlcheck"]


def gdlcheck(args, **kwargs):
    env = newcomer_env(**kwargs.pop("env", {}))
    return subprocess.run(
        GDLCHECK + [str(a) for a in args], capture_output=kwargs.pop("capture", True), env=env, timeout=300, **kwargs
    )


def closed_pipe(args):
    """Run with standard output a pipe whose reader is already gone: every write gets EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return gdlcheck(args, stdout=write_end, stderr=subprocess.PIPE, capture=False)
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args, code",
    [
        (["verify", SAMPLES / "layer.yaml", "--format", "json"], 0),
        (["verify", SAMPLES / "layer.yaml"], 0),
        (["verify", SAMPLES / "symbolic-broken.yaml", "--format", "json"], 1),
        (["verify", SAMPLES / "layer.yaml", SAMPLES / "conv.yaml", SAMPLES / "symbolic-broken.yaml"], 1),
        (["derive", "-g", "cyclic", "-n", "64", "--format", "csv"], 0),
        (["derive", "-g", "cyclic", "-n", "8", "--format", "npy"], 0),
        (["groups"], 0),
    ],
)
def test_a_closed_pipe_keeps_the_verdicts_exit_code(args, code):
    result = closed_pipe(args)
    assert result.returncode == code, result.stderr
    assert result.stderr == b""


def test_a_closed_pipe_in_a_shell_pipeline():
    command = f"set -o pipefail; {sys.executable} -m gdlcheck verify {SAMPLES / 'layer.yaml'} --format json | true"
    result = subprocess.run(["bash", "-c", command], capture_output=True, env=newcomer_env(), timeout=300)
    assert result.returncode == 0 and result.stderr == b""


def one_line(result, fragment):
    err = result.stderr.decode()
    assert err.startswith("gdlcheck: error: ") and err.count("\n") == 1, err
    assert fragment in err and "internal" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["verify", SAMPLES / "layer.yaml", "--format", "json"],
        ["verify", SAMPLES / "layer.yaml"],
        ["derive", "-g", "cyclic", "-n", "8", "--format", "npy"],
        ["derive", "-g", "cyclic", "-n", "8"],
    ],
)
def test_a_full_disk_on_standard_output_is_exit_74(args):
    """Standard output is block-buffered here (no PYTHONUNBUFFERED), so the write only fails at
    the last flush: it is still gdlcheck's one line and 74, not Python's 'Exception ignored' and
    120 at interpreter exit."""
    with open("/dev/full", "wb") as full:
        result = gdlcheck(args, stdout=full, stderr=subprocess.PIPE, capture=False)
    assert result.returncode == 74
    one_line(result, "cannot write standard output: no space left on device")


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "npy"])
def test_a_full_disk_behind_o_is_exit_74(fmt):
    result = gdlcheck(["derive", "-g", "cyclic", "-n", "8", "--format", fmt, "-o", "/dev/full"])
    assert result.returncode == 74
    one_line(result, "cannot write /dev/full: no space left on device")


def test_an_unwritable_special_file_is_one_line():
    result = gdlcheck(["derive", "-g", "cyclic", "-n", "8", "-o", "/proc/version"])
    assert result.returncode in (2, 74)  # 74 where the open succeeds (root), 2 where it is refused
    one_line(result, "/proc/version")


@pytest.mark.parametrize(
    "args",
    [
        ["derive", "-g", "cyclic", "-n", "4", "--format", "npy"],
        ["derive", "-g", "cyclic", "-n", "4"],
        ["verify", SAMPLES / "layer.yaml", "--format", "json"],
    ],
)
def test_a_closed_standard_output_is_exit_74(args):
    command = " ".join([sys.executable, "-m", "gdlcheck"] + [f"'{a}'" for a in args]) + " >&-"
    result = subprocess.run(
        ["bash", "-c", command], capture_output=False, stderr=subprocess.PIPE, env=newcomer_env(), timeout=300
    )
    assert result.returncode == 74
    one_line(result, "cannot write standard output: it is closed")


def test_a_closed_standard_input_is_an_input_error():
    result = subprocess.run(
        ["bash", "-c", f"{sys.executable} -m gdlcheck verify - -g cyclic <&-"],
        capture_output=True,
        env=newcomer_env(),
        timeout=300,
    )
    assert result.returncode == 2
    one_line(result, "standard input is closed")


def test_text_an_ascii_stream_cannot_hold_is_escaped(tmp_path):
    spec = tmp_path / "caf\u00e9.yaml"
    spec.write_text(
        'name: "\u0441af\u00e9"\nsymmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [[1, 2], [2, 1]]}\n',
        encoding="utf-8",
    )
    result = gdlcheck(["verify", spec.name], env={"PYTHONIOENCODING": "ascii", "COLUMNS": "120"}, cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == b""
    assert b"\\u0441af\\xe9" in result.stdout and b"caf\\xe9.yaml" in result.stdout


def test_a_lone_surrogate_in_a_file_name_is_escaped(tmp_path):
    name = b"\xff.csv"  # relative, so the report's title has room for it at 80 columns
    with open(os.fsencode(str(tmp_path)) + b"/" + name, "wb") as fh:
        fh.write(b"1,2\n2,1\n")
    for fmt in ("text", "json"):
        result = subprocess.run(
            GDLCHECK + ["verify", name, "-g", "cyclic", "--format", fmt],
            capture_output=True,
            env=newcomer_env(PYTHONIOENCODING="utf-8"),
            timeout=300,
            cwd=tmp_path,
        )
        assert result.returncode == 0 and result.stderr == b"", result.stderr
        assert b"\\udcff" in result.stdout


def test_a_deleted_working_folder_is_an_input_error(tmp_path):
    spec = (SAMPLES / "layer.yaml").read_text()
    for args in (
        ["verify", "-"],
        ["verify", "--callable", "m:f", "--input-shape", "3x1", "-g", "cyclic"],
        ["inspect", "-"],
    ):
        command = f"mkdir '{tmp_path}/gone' && cd '{tmp_path}/gone' && rmdir '{tmp_path}/gone' && " + " ".join(
            [sys.executable, "-m", "gdlcheck"] + args
        )
        result = subprocess.run(
            ["bash", "-c", command], input=spec.encode(), capture_output=True, env=newcomer_env(), timeout=300
        )
        assert result.returncode in (0, 2), (args, result.stderr)
        if result.returncode == 2:
            one_line(result, "the current folder no longer exists")


def test_o_dash_is_standard_output_and_an_option_is_not_a_file_name(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run(["derive", "-g", "cyclic", "-n", "4", "--format", "csv", "-o", "-"])
    assert result.exit_code == 0 and result.stdout.startswith("0,3,2,1")
    assert not (tmp_path / "-").exists()
    for flag in ("--format", "-n", "--explain"):
        result = run(["derive", "-g", "cyclic", "-n", "4", "-o", flag])
        assert result.exit_code == 2 and "looks like an option" in result.stderr
        assert not (tmp_path / flag).exists()
    result = run(["project", SAMPLES / "dense.csv", "-g", "cyclic", "-o", "--format"])
    assert result.exit_code == 2 and "looks like an option" in result.stderr
    result = run(["derive", "-g", "cyclic", "-n", "4", "-o", "./--format"])
    assert result.exit_code == 0 and (tmp_path / "--format").exists()
