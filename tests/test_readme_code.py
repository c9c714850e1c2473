"""The manual's "Check your PyTorch and PyG code" section (docs/code.md) runs as written: every Python block
and every command with the exit code it shows."""

import os
import re
import shlex
import subprocess
import sys

import pytest

from tests import manual
from tests.conftest import ROOT, SAMPLES, newcomer_env

pytestmark = pytest.mark.slow  # subprocesses and torch: deselect with -m 'not slow'

HEADING = "## Check your PyTorch and PyG code"


def section() -> str:
    return manual.section(HEADING)


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", section(), flags=re.S)


def test_the_section_shows_what_the_issue_asks_for():
    blocks = python_blocks()
    assert len(blocks) == 4
    first, pyg, culprit, traced = blocks
    assert "Conv1d" in first and "shape=(3, 32)" in first and "points_axis=-1" in first
    assert "MultiheadAttention" in first and 'outputs=("points", "pairs")' in first
    assert "TransformerEncoderLayer" in first and "batch_first=True" in first and "batch_axes=0" in first
    assert "GCNConv" in pyg and "graph=ring" in pyg and '"fixed"' in pyg and '"automorphisms"' in pyg
    assert '["culprit"]["path"] == "encoder.layers.1.pos_emb.table"' in culprit
    # issue 13: a traced proof, and a "not proven at <node>" case
    assert 'r.verdict == "holds"' in traced and "not proven for (0 1) at node MedianCentred" in traced


@pytest.mark.parametrize("index", range(4))
def test_python_block_runs(index, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = python_blocks()[index]
    exec(compile(code, f"docs/code.md[{HEADING[3:]}, python block {index}]", "exec"), {"__name__": f"readme_{index}"})
    if index == 2:  # the printed culprit is the one the comment shows
        printed = " ".join(capsys.readouterr().out.split())
        shown = " ".join(line.lstrip("# ") for line in code.splitlines() if line.startswith("# "))
        assert printed == " ".join(shown.split())


def commands() -> list[tuple[str, str]]:
    return re.findall(r"^\$ (gdlcheck .*?); echo \"exit \$\?\"\nexit (\d+)$", section(), flags=re.M)


def test_commands_give_the_exit_codes_shown(run, monkeypatch):
    """In one process (click's runner): each command's own import of torch would be most of the
    time, and the process boundary is not what these check (tests/test_exits.py does that)."""
    assert len(commands()) == 8
    monkeypatch.chdir(SAMPLES)
    monkeypatch.setenv("NO_COLOR", "1")
    for command, code in commands():
        out = run(shlex.split(command)[1:])
        assert out.exit_code == int(code), (command, out.stderr)
        if code == "2":  # the message the section quotes
            quoted = " ".join(re.search(r"is refused: `(.*?)`", section(), flags=re.S).group(1).split())
            assert out.stderr.count("\n") == 1 and " ".join(out.stderr.split()).endswith(quoted)


def test_the_first_command_runs_as_a_shell_runs_it():
    """One command as the README's reader runs it: a fresh process from the shell."""
    command, code = commands()[0]
    env = newcomer_env(NO_COLOR="1")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    out = subprocess.run(command, shell=True, cwd=SAMPLES, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == int(code), (command, out.stderr)
