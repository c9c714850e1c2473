"""The manual's "Use it from Python and in your tests" section (docs/python.md) runs as written, and the
reports the manual shows verbatim are current."""

import os
import re
import subprocess
import sys

import pytest

from tests import manual
from tests.conftest import ROOT, SAMPLES

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


def test_shell_examples_give_the_exit_codes_shown():
    commands = re.findall(r"^\$ (gdlcheck .*?); echo \"exit \$\?\"\nexit (\d+)$", section(), flags=re.M)
    assert len(commands) >= 3
    env = {**os.environ, "NO_COLOR": "1"}
    bindir = os.path.dirname(sys.executable)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    for command, code in commands:
        out = subprocess.run(command, shell=True, cwd=SAMPLES, capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == int(code), (command, out.stderr)


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
    ("gdlcheck verify --callable torchlayers:sorted_features --input-shape 6x4 --group symmetric --method exact",
     "samples"),
    ("gdlcheck verify samples/checkpoint.npz --group cyclic", "."),
]


@pytest.mark.parametrize("command, folder", VERBATIM, ids=[c for c, _ in VERBATIM])
def test_usage_reports_are_what_the_tool_prints_at_80_columns(command, folder):
    cwd = ROOT / folder
    # the manual shows these reports verbatim: refresh it when the report changes
    (text,) = [text for text in map(manual.read, manual.PAGES) if f"$ {command}\n" in text]
    shown = text.split(f"$ {command}\n", 1)[1]
    shown = shown[:min(i for i in (shown.find("\n$ "), shown.find("\n```")) if i >= 0) + 1]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    out = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    assert out.stdout == shown


def test_the_proof_example_prints_what_the_readme_shows():
    text = manual.everything()
    command = "gdlcheck verify samples/cnn.yaml --format json | python -c"
    block = text.split(f"$ {command}", 1)[1]
    line, shown = block.split("\n", 1)
    shown = shown.split("\n```", 1)[0] + "\n"
    env = {**os.environ, "NO_COLOR": "1"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    out = subprocess.run(f"{command}{line}", shell=True, cwd=ROOT, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown


def test_every_report_shown_fits_80_columns():
    for line in manual.everything().splitlines():
        if line.startswith(("│", "╭", "╰")):
            assert len(line) <= 80, line
