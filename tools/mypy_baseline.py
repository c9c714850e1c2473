"""Typing is checked in CI by a baseline that only goes down: ``mypy gdlcheck``'s errors, counted
per file, may never rise above the counts in ``tools/mypy-baseline.txt``, and the file lists only
files that still have errors, so it ends empty (mypy clean) and new files start at 0.

    python tools/mypy_baseline.py            # CI: fails (exit 1) where a file has more errors
    python tools/mypy_baseline.py --update   # after fixing errors: write the lower counts

``--update`` refuses to raise a count: a new error is fixed, not added to the baseline.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "tools", "mypy-baseline.txt")
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: ", re.M)
HEADER = ("# mypy gdlcheck: errors per file, which may only go down (tools/mypy_baseline.py).\n"
          "# A file that is not listed has none.\n")


def count_errors(output: str) -> Counter[str]:
    """Each file's number of errors in mypy's output (notes are not errors)."""
    return Counter(m["path"].replace(os.sep, "/") for m in ERROR.finditer(output))


def read_baseline(text: str) -> dict[str, int]:
    """``count path`` per line; ``#`` starts a comment."""
    counts: dict[str, int] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            count, path = line.split(maxsplit=1)
            counts[path] = int(count)
    return counts


def write_baseline(counts: dict[str, int]) -> str:
    return HEADER + "".join(f"{counts[path]} {path}\n" for path in sorted(counts) if counts[path])


def compare(baseline: dict[str, int], current: Counter[str]) -> tuple[dict[str, tuple[int, int]],
                                                                      dict[str, tuple[int, int]]]:
    """The files whose count rose and those whose count fell, each ``path: (baseline, now)``."""
    paths = sorted(set(baseline) | set(current))
    rose = {p: (baseline.get(p, 0), current[p]) for p in paths if current[p] > baseline.get(p, 0)}
    fell = {p: (baseline.get(p, 0), current[p]) for p in paths if current[p] < baseline.get(p, 0)}
    return rose, fell


def run_mypy() -> str:
    out = subprocess.run([sys.executable, "-m", "mypy", "gdlcheck"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode not in (0, 1) or "error: " not in out.stdout and "Success" not in out.stdout:
        sys.stderr.write(out.stdout + out.stderr)
        raise SystemExit(f"mypy_baseline: mypy did not run (exit {out.returncode})")
    return out.stdout


def main(argv: list[str]) -> int:
    update = argv == ["--update"]
    if argv and not update:
        sys.stderr.write("usage: python tools/mypy_baseline.py [--update]\n")
        return 2
    output = run_mypy()
    with open(BASELINE, encoding="utf-8") as fh:
        baseline = read_baseline(fh.read())
    current = count_errors(output)
    rose, fell = compare(baseline, current)
    for path, (was, now) in rose.items():
        print(f"{path}: {now} mypy errors, the baseline allows {was}")
        print("".join(line + "\n" for line in output.splitlines() if line.startswith(f"{path}:")), end="")
    if rose:
        print("mypy_baseline: fix the new errors (the baseline only goes down)")
        return 1
    if update:
        with open(BASELINE, "w", encoding="utf-8") as fh:
            fh.write(write_baseline(dict(current)))
    elif fell:
        print("mypy_baseline: fewer errors in " + ", ".join(fell) + ": lower the baseline with "
              "python tools/mypy_baseline.py --update")
    print(f"mypy_baseline: {sum(current.values())} errors in {len(current)} files, none above the baseline")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
