"""The benchmark scripts time the checkout they sit in, not an installed gdlcheck (issue 33).

A script run as ``python benchmarks/x.py`` has only its own folder first on ``sys.path``; an
installed gdlcheck (a release, or another worktree's editable install) would then be the one
timed.  Here an impostor ``gdlcheck`` stands first on ``PYTHONPATH``: a script that does not put
its checkout ahead of it imports the impostor, which raises.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def _import_lines(script: Path) -> dict[str, list[int]]:
    """The lines that import _common and gdlcheck (at the top or in a function)."""
    lines: dict[str, list[int]] = {"_common": [], "gdlcheck": []}
    for node in ast.walk(ast.parse(script.read_text())):
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for name in names:
            if name.split(".")[0] in lines:
                lines[name.split(".")[0]].append(node.lineno)
    return lines


# the scripts that import gdlcheck in-process (the others run it only as a command from the checkout)
IMPORTING = [p for p in SCRIPTS if _import_lines(p)["gdlcheck"]]


@pytest.fixture
def impostor(tmp_path) -> dict:
    package = tmp_path / "gdlcheck"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('the installed gdlcheck, not the checkout')\n")
    return {**os.environ, "PYTHONPATH": str(tmp_path)}


def test_common_puts_the_checkout_first(impostor, tmp_path):
    code = f"import sys; sys.path.insert(0, {str(BENCHMARKS)!r}); import _common, gdlcheck; print(gdlcheck.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=impostor, cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == ROOT / "gdlcheck" / "__init__.py"


def test_a_script_run_from_elsewhere_imports_the_checkout(impostor, tmp_path):
    # bench_derive imports gdlcheck at the top, before it parses its options
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_derive.py"), "--help"],
        capture_output=True,
        text=True,
        env=impostor,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "usage" in done.stdout


def test_the_in_process_scripts_are_found():
    names = {p.name for p in IMPORTING}
    assert {
        "bench_code.py",
        "bench_derive.py",
        "bench_nn.py",
        "bench_trace.py",
        "bench_verify.py",
        "bench_weights.py",
        "bench_testing.py",
    } <= names


@pytest.mark.parametrize("script", IMPORTING, ids=lambda p: p.name)
def test_each_script_imports_common_before_gdlcheck(script):
    """The script's first import of gdlcheck comes after its import of _common, which puts the
    checkout first."""
    lines = _import_lines(script)
    assert lines["_common"], f"{script.name} does not import _common"
    assert min(lines["_common"]) < min(lines["gdlcheck"])
