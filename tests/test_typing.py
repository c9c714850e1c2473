"""Typing is checked: ``mypy gdlcheck`` is clean (pyproject.toml's settings; .ci/run runs it too), so
a change that breaks a type fails the README's test command as well as CI."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.slow  # mypy over the package: half a minute without its cache
def test_the_package_type_checks_clean():
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "gdlcheck"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout, out.stdout
