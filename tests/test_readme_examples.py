"""The manual's "Use it from Python and in your tests" section (docs/python.md) runs as written, and the
reports the manual shows verbatim are current."""

import os
import re
import shlex
import subprocess
import sys

import pytest

from tests import manual
from tests.conftest import ROOT, SAMPLES, newcomer_env

pytestmark = pytest.mark.slow  # subprocesses and torch: deselect with -m 'not slow'

HEADING = "## Use it from Python and in your tests"


def section() -> str:
    return manual.section(HEADING)


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(), flags=re.S)


def test_the_section_has_numpy_torch_and_pytest_examples():
    blocks = python_blocks()
    assert len(blocks) == 3
    assert "verify_callable" in blocks[0] and "import torch" in blocks[1]
    assert "assert_equivariant" in blocks[2] and "def test_" in blocks[2]


@pytest.mark.parametrize("index", range(3))
def test_python_example_runs(index, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = python_blocks()[index]
    namespace = {"__name__": f"readme_example_{index}"}
    exec(compile(code, f"docs/python.md[python block {index}]", "exec"), namespace)
    # a pytest example: run the tests it defines
    tests = [v for k, v in namespace.items() if k.startswith("test_") and callable(v)]
    for test in tests:
        test()
    if index == 2:
        assert len(tests) == 2


def test_shell_examples_give_the_exit_codes_shown(run, monkeypatch):
    """In this process (click's runner): the exit codes are gdlcheck's, not the shell's."""
    # a box shows what a command prints between the command and its exit line
    commands = re.findall(
        r"^\$ (gdlcheck .*?); echo \"exit \$\?\"\n(?:(?!\$ |exit ).*\n)*exit (\d+)$", section(), flags=re.M
    )
    assert len(commands) >= 3
    monkeypatch.chdir(SAMPLES)
    monkeypatch.setenv("NO_COLOR", "1")
    for command, code in commands:
        assert not any(c in command for c in "|<>;&"), command
        out = run(shlex.split(command)[1:])
        assert out.exit_code == int(code), (command, out.stderr)


def test_usage_mentions_callable():
    usage = manual.section("## Usage").split("```", 2)[1]
    assert "--callable MODULE:ATTR --input-shape NxD" in usage


# The reports the manual shows verbatim, and the folder each runs in (refresh them with
# python tools/refresh_readme.py when a report changes).
VERBATIM = [
    ("gdlcheck verify samples/symbolic-broken.yaml", "."),
    ("gdlcheck derive --group cyclic -n 8", "."),
    ("gdlcheck verify samples/deepsets.yaml samples/bias-breaks.yaml samples/absent.csv 2>/dev/null | tail -8", "."),
    ("gdlcheck verify docs/examples/pooled-bias.yaml --method exact", "."),
    ("gdlcheck kinds gcn", "."),
    ("gdlcheck inspect samples/gcn.yaml", "."),
    ("gdlcheck inspect samples/attention.yaml", "."),
    ("gdlcheck verify --callable mylayers:cumsum --input-shape 6x2 --group cyclic", "samples"),
    ("gdlcheck verify --callable torchlayers:encoder --input-shape 8x2x16 --group symmetric", "samples"),
    (
        "gdlcheck verify --callable torchlayers:median_centred --input-shape 6x4 --group symmetric --method exact",
        "samples",
    ),
    ("gdlcheck verify samples/checkpoint.npz --group cyclic", "."),
    (
        "gdlcheck measure --callable leaky_deepsets.py:LeakyDeepSets --weights leaky-deepsets.safetensors --data "
        "sets.npy --group symmetric",
        "samples",
    ),
]


_CHECK_ROW = re.compile(r"(?P<abs>\S+)(?P<gap>\s+)(?P<rel>\S+)(?P<rest>\s+(?:PASS|FAIL|UNDECIDED)\b)")


def as_documented(shown: str) -> str:
    """``shown`` with each check row's residual columns as the report prints them: a relative
    error below 1e-12 is rounding, shown as ``rounding`` and ``< 1e-12`` in the same columns
    (gdlcheck.output.render_verify.ROUNDING_SHOWN), never as digits that differ from one CPU to the next.
    Nothing else is loosened."""

    def row(match):
        try:
            small = float(match["rel"]) < 1e-12
        except ValueError:
            return match[0]
        if not small:
            return match[0]
        width = len(match["abs"]) + len(match["gap"]) + len(match["rel"])
        cells = "rounding" + " " * (width - len("rounding") - len("< 1e-12")) + "< 1e-12"
        return cells + match["rest"] if width >= len("rounding  < 1e-12") else match[0]

    return "".join(_CHECK_ROW.sub(row, line) for line in shown.splitlines(keepends=True))


def test_as_documented_rewrites_only_residuals_below_1e_12():
    rows = (
        "│  (0 1)   numeric x8        8.88e-16    3.5e-16   PASS   │\n"
        "│  (0 1)   numeric x8          2.1e-6    4.2e-07   FAIL   │\n"
        "│  (0 1)   exact                    -          -   PASS (exact)   │\n"
    )
    assert as_documented(rows) == (
        "│  (0 1)   numeric x8        rounding    < 1e-12   PASS   │\n"
        "│  (0 1)   numeric x8          2.1e-6    4.2e-07   FAIL   │\n"
        "│  (0 1)   exact                    -          -   PASS (exact)   │\n"
    )


@pytest.mark.parametrize("command, folder", VERBATIM, ids=[c for c, _ in VERBATIM])
def test_usage_reports_are_what_the_tool_prints_at_80_columns(command, folder, run, monkeypatch):
    """A plain command runs in this process (click's runner; the process boundary is not what
    this checks), one with a pipe in the shell."""
    cwd = ROOT / folder
    # the manual shows these reports verbatim: refresh it when the report changes
    (text,) = [text for text in map(manual.read, manual.PAGES) if f"$ {command}\n" in text]
    shown = text.split(f"$ {command}\n", 1)[1]
    shown = shown[: min(i for i in (shown.find("\n$ "), shown.find("\n```")) if i >= 0) + 1]
    if any(c in command for c in "|<>;&"):
        env = newcomer_env(NO_COLOR="1", COLUMNS="80")
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
        stdout = subprocess.run(
            command, shell=True, cwd=cwd, capture_output=True, text=True, env=env, timeout=120
        ).stdout
    else:
        monkeypatch.chdir(cwd)
        monkeypatch.setenv("NO_COLOR", "1")
        monkeypatch.setenv("COLUMNS", "80")
        stdout = run(shlex.split(command)[1:]).stdout
    assert stdout == as_documented(shown)


def test_the_proof_example_prints_what_the_readme_shows():
    text = manual.everything()
    command = "gdlcheck verify samples/cnn.yaml --format json | python -c"
    block = text.split(f"$ {command}", 1)[1]
    line, shown = block.split("\n", 1)
    shown = shown.split("\n```", 1)[0] + "\n"
    env = newcomer_env(NO_COLOR="1")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    out = subprocess.run(f"{command}{line}", shell=True, cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown


def test_every_report_shown_fits_80_columns():
    for line in manual.everything().splitlines():
        if line.startswith(("│", "╭", "╰")):
            assert len(line) <= 80, line
