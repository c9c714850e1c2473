"""Typing is checked, by a baseline that only goes down (tools/mypy_baseline.py): a file whose
mypy errors rise fails CI, a fall is written down with ``--update``, which never raises a count."""

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("mypy_baseline", ROOT / "tools" / "mypy_baseline.py")
baseline_tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(baseline_tool)

OUTPUT = """\
gdlcheck/a.py:3: error: Need type annotation for "out"  [var-annotated]
gdlcheck/a.py:9:5: error: "None" not callable  [misc]
gdlcheck/a.py:9: note: By default the bodies of untyped functions are not checked
gdlcheck/b/c.py:1: error: Incompatible return value type  [return-value]
Found 3 errors in 2 files (checked 148 source files)
"""


def test_errors_are_counted_per_file_and_notes_are_not_errors():
    assert baseline_tool.count_errors(OUTPUT) == {"gdlcheck/a.py": 2, "gdlcheck/b/c.py": 1}
    assert baseline_tool.count_errors("Success: no issues found in 148 source files\n") == {}


def test_a_rise_fails_a_fall_is_reported_and_a_new_file_starts_at_zero():
    current = baseline_tool.count_errors(OUTPUT)
    rose, fell = baseline_tool.compare({"gdlcheck/a.py": 1, "gdlcheck/b/c.py": 4, "gdlcheck/d.py": 2}, current)
    assert rose == {"gdlcheck/a.py": (1, 2)}
    assert fell == {"gdlcheck/b/c.py": (4, 1), "gdlcheck/d.py": (2, 0)}
    rose, _ = baseline_tool.compare({"gdlcheck/a.py": 2}, current)
    assert rose == {"gdlcheck/b/c.py": (0, 1)}


def test_the_written_baseline_reads_back_and_drops_the_clean_files():
    text = baseline_tool.write_baseline({"gdlcheck/z.py": 2, "gdlcheck/a.py": 1, "gdlcheck/clean.py": 0})
    assert baseline_tool.read_baseline(text) == {"gdlcheck/a.py": 1, "gdlcheck/z.py": 2}
    assert text.index("gdlcheck/a.py") < text.index("gdlcheck/z.py")


def test_the_checked_in_baseline_names_files_of_the_package():
    counts = baseline_tool.read_baseline((ROOT / "tools" / "mypy-baseline.txt").read_text())
    for path, count in counts.items():
        assert (ROOT / path).is_file() and path.startswith("gdlcheck/"), path
        assert count > 0, path


@pytest.mark.slow   # mypy over the package: half a minute without its cache
def test_the_package_keeps_to_its_baseline():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "mypy_baseline.py")], cwd=ROOT, capture_output=True,
                         text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "none above the baseline" in out.stdout
