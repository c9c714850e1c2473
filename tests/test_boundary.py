"""The boundary around the user's code (the manual, "Checking code"): whatever the code does --
exit, raise a BaseException, close or replace a standard stream, print -- gdlcheck's exit status
stays a verdict's only when a verdict was reached, the error is one line naming the user's file
and line, and standard output carries gdlcheck's JSON alone.

The command-line cases run gdlcheck as a process, as a user's shell does (no ``PYTHON*``
variable set): descriptors, exits and signals are the operating system's.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import gdlcheck
from gdlcheck.errors import CallableError
from tests.conftest import newcomer_env

LAYERS = textwrap.dedent("""\
    import os
    import sys

    import numpy as np


    class Stop(BaseException):
        pass


    def centred(X):
        return X - X.mean(axis=0)


    def exits(X):
        sys.exit(0)


    def exits_with_text(X):
        sys.exit("bye")


    def stops(X):
        raise Stop("user stop")


    def generator_exit(X):
        raise GeneratorExit


    def interrupts(X):
        raise KeyboardInterrupt


    def closes_stdout(X):
        sys.stdout.close()
        return X


    def closes_stderr(X):
        sys.stderr.close()
        return X


    def replaces_stdout(X):
        sys.stdout = open(os.devnull, "w")
        return X


    def prints(X):
        print("hello from the layer")
        os.write(1, b"raw bytes on descriptor 1\\n")
        return X - X.mean(axis=0)


    def make_stops():
        raise Stop("factory stop")


    def waits(X):
        open(os.environ["MARKER"], "w").close()
        while True:
            X = X + 0.0
""")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ulayers.py").write_text(LAYERS)
    (tmp_path / "uexit_at_import.py").write_text("import sys\n\nsys.exit(0)\n")
    (tmp_path / "ustop_at_import.py").write_text("class Stop(BaseException):\n    pass\n\n\nraise Stop()\n")
    return tmp_path


def user_env(**extra: str) -> dict[str, str]:
    """A user's shell: no PYTHON* variable at all (gdlcheck as installed, the code found in the
    current folder)."""
    env = newcomer_env(**extra)
    env.pop("PYTHONPATH")
    return env


def gdlcheck_run(folder, *args, **kwargs):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "gdlcheck",
            "verify",
            "--callable",
            *args,
            "--input-shape",
            "5x2",
            "--group",
            "symmetric",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=user_env(**kwargs.pop("env", {})),
        **kwargs,
    )


def one_error_line(result) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("gdlcheck: error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "attr, needle, words",
    [
        ("exits", "sys.exit(0)", "SystemExit: 0"),
        ("exits_with_text", 'sys.exit("bye")', "SystemExit: bye"),
        ("stops", 'raise Stop("user stop")', "Stop: user stop"),
        ("generator_exit", "raise GeneratorExit", "GeneratorExit"),
        ("interrupts", "raise KeyboardInterrupt", "KeyboardInterrupt"),
        ("make_stops", 'raise Stop("factory stop")', "Stop: factory stop"),
    ],
)
def test_what_the_code_raises_is_exit_2_and_one_line_with_its_file_and_line(folder, attr, needle, words):
    for fmt in ("text", "json"):
        result = gdlcheck_run(folder, f"ulayers:{attr}", "--format", fmt)
        assert result.returncode == 2, (attr, result.stdout, result.stderr)
        line = one_error_line(result)
        assert words in line and f"ulayers.py:{line_of(LAYERS, needle)}" in line, line
        if fmt == "json":
            assert json.loads(result.stdout)["verdict"] == "error"


@pytest.mark.slow
@pytest.mark.parametrize(
    "module, where", [("uexit_at_import", "uexit_at_import.py:3"), ("ustop_at_import", "ustop_at_import.py:5")]
)
def test_an_exit_or_a_base_exception_at_import_is_exit_2_with_its_line(folder, module, where):
    result = gdlcheck_run(folder, f"{module}:f")
    assert result.returncode == 2
    assert f"importing {module} raised" in one_error_line(result) and where in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    "attr, words",
    [
        ("closes_stdout", "closed sys.stdout at ulayers.py:{}"),
        ("closes_stderr", "closed sys.stderr at ulayers.py:{}"),
        ("replaces_stdout", "replaced sys.stdout in the code defined at ulayers.py:{}"),
    ],
)
def test_a_closed_or_replaced_stream_is_put_back_and_is_exit_2(folder, attr, words):
    needle = {
        "closes_stdout": "sys.stdout.close()",
        "closes_stderr": "sys.stderr.close()",
        "replaces_stdout": "def replaces_stdout",
    }[attr]
    result = gdlcheck_run(folder, f"ulayers:{attr}", "--format", "json")
    assert result.returncode == 2
    assert words.format(line_of(LAYERS, needle)) in one_error_line(result)
    assert json.loads(result.stdout)["verdict"] == "error"  # standard output still works


@pytest.mark.slow
def test_what_the_code_prints_goes_to_stderr_and_the_json_parses(folder):
    result = gdlcheck_run(folder, "ulayers:prints", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["passed"] is True
    assert "hello from the layer" in result.stderr and "raw bytes on descriptor 1" in result.stderr
    assert "hello" not in result.stdout and "raw bytes" not in result.stdout


def _signal_state(pid: int) -> str:
    """The kernel's view of a process's signals (blocked, ignored, caught), for a failure message."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return " ".join(line.strip() for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt")))
    except OSError:
        return "(no /proc)"


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_a_real_ctrl_c_while_the_code_runs_is_still_an_interrupt(folder, tmp_path):
    marker = tmp_path / "started"
    # -X faulthandler: when the check is still running after the SIGINT, SIGABRT makes the child
    # print every thread's stack, so a failure says where the interrupt was lost
    process = subprocess.Popen(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-m",
            "gdlcheck",
            "verify",
            "--callable",
            "ulayers:waits",
            "--input-shape",
            "5x2",
            "--group",
            "symmetric",
        ],
        cwd=folder,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=user_env(MARKER=str(marker)),
        # a terminal's foreground process starts with SIGINT at its default; a test run started in the
        # background of a script inherits it ignored (POSIX), and Python then keeps it ignored
        preexec_fn=_interruptible,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), process.stderr.read() if process.poll() is not None else "did not start"
        signals = _signal_state(process.pid)
        process.send_signal(signal.SIGINT)
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            signals_after = _signal_state(process.pid)
            process.send_signal(signal.SIGABRT)
            out, err = process.communicate(timeout=60)
            pytest.fail(f"still running 60 s after SIGINT; before it: {signals}; after: {signals_after}\n{err[-6000:]}")
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (process.returncode, err) == (130, "gdlcheck: interrupted\n"), (signals, err[-6000:])


def import_layers(folder, monkeypatch):
    monkeypatch.syspath_prepend(str(folder))
    sys.modules.pop("ulayers", None)
    import ulayers

    return ulayers


def test_the_api_raises_one_error_and_leaves_the_streams_as_they_were(folder, monkeypatch):
    ulayers = import_layers(folder, monkeypatch)
    before = sys.stdout, sys.stderr
    for attr, words in (
        ("exits", "SystemExit: 0 at "),
        ("stops", "Stop: user stop at "),
        ("interrupts", "KeyboardInterrupt at "),
        ("closes_stdout", "closed sys.stdout at "),
    ):
        with pytest.raises(CallableError) as caught:
            gdlcheck.verify_callable(getattr(ulayers, attr), "symmetric", shape=(5, 2))
        assert words in str(caught.value) and "ulayers.py:" in str(caught.value)
        assert (sys.stdout, sys.stderr) == before
    assert not before[0].closed


def test_prints_in_the_api_go_to_stderr(folder, monkeypatch, capsys):
    ulayers = import_layers(folder, monkeypatch)
    monkeypatch.setattr(os, "write", lambda fd, data: len(data))  # descriptor writes are the command line's
    assert gdlcheck.verify_callable(ulayers.prints, "symmetric", shape=(5, 2)).passed
    captured = capsys.readouterr()
    assert "hello from the layer" in captured.err and captured.out == ""


def test_a_stop_raised_by_a_signal_handler_is_not_the_codes(monkeypatch):
    """A caller's own timer (a test harness's limit) passes through the boundary untouched."""

    class Limit(BaseException):
        pass

    def expired(signum, frame):
        raise Limit

    previous = signal.signal(signal.SIGUSR1, expired)
    try:

        def layer(X):
            os.kill(os.getpid(), signal.SIGUSR1)
            return X

        with pytest.raises(Limit):
            gdlcheck.verify_callable(layer, "symmetric", shape=(4, 1))
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_an_exception_names_the_users_line_not_the_librarys():
    def layer(X):
        return np.ones((3, 3)) @ X  # numpy raises inside its own code; the line is this one

    with pytest.raises(CallableError) as caught:
        gdlcheck.verify_callable(layer, "symmetric", shape=(4, 1))
    here = os.path.relpath(__file__)
    assert f"{here}:{layer.__code__.co_firstlineno + 1}" in str(caught.value)
