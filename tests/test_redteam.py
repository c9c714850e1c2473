"""The red-team run in CI: a few hundred derandomized cases of every command and of the Python
API (fuzz/redteam.py, with the surfaces of fuzz/surfaces.py mixed in), each under a time limit,
the whole run under a memory cap.  A finding is
an exit other than 0-3 (or 74 for an output that cannot be written), a traceback, an exit 2
without exactly one error line, an API exception that is not a GdlcheckError, JSON with NaN, a
case past its time limit or out of memory."""

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT, newcomer_env

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("seed", [0, 1])
def test_the_red_team_run_finds_nothing(seed):
    env = newcomer_env(OPENBLAS_NUM_THREADS="1")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "fuzz" / "redteam.py"),
            "--cases",
            "200",
            "--seed",
            str(seed),
            "--case-seconds",
            "60",
            "--memory",
            str(4 << 30),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    report = json.loads(result.stdout)
    assert report["findings"] == [], json.dumps(report["findings"], indent=1)
    assert result.returncode == 0 and report["cases"] == 200
    assert set(report["exits"]) <= {"0", "1", "2", "3", "74"}


def test_the_new_surfaces_run_finds_nothing():
    # issue 23's surfaces alone (fuzz/surfaces.py): graph files, nested combinators, huge n,
    # hostile file names into --plot and --format junit, and specs with free symbols; a few
    # tens of seconds of work
    env = newcomer_env(OPENBLAS_NUM_THREADS="1")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "fuzz" / "redteam.py"),
            "--surfaces",
            "new",
            "--cases",
            "40",
            "--seed",
            "0",
            "--case-seconds",
            "60",
            "--memory",
            str(4 << 30),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    report = json.loads(result.stdout)
    assert report["findings"] == [] and report["classes"] == {}, json.dumps(report["findings"], indent=1)
    assert result.returncode == 0 and report["cases"] == 40
    assert set(report["surfaces"]) == {"graph files", "nested combinators", "huge n", "names", "symbolic specs"}


def test_the_checkpoints_run_finds_nothing():
    # weights files alone (fuzz/checkpoints.py): .pt checkpoints of shared, self-holding and deep
    # containers of every kind of tensor, damaged byte by byte; .safetensors headers and .npz
    # members mutated
    env = newcomer_env(OPENBLAS_NUM_THREADS="1")
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "fuzz" / "redteam.py"),
            "--surfaces",
            "checkpoints",
            "--cases",
            "60",
            "--seed",
            "0",
            "--case-seconds",
            "60",
            "--memory",
            str(4 << 30),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    report = json.loads(result.stdout)
    assert report["findings"] == [], json.dumps(report["findings"], indent=1)
    assert result.returncode == 0 and report["surfaces"] == {"checkpoints": 60}
    assert {"0", "1", "2"} <= set(report["exits"])  # the run reaches verdicts, not only refusals
