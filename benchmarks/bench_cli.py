"""Whole-process times of gdlcheck commands against ``python -c "import numpy"``.

    python benchmarks/bench_cli.py [--repeat 7]

Targets (issue 6): --help and --version within 1.5x of importing numpy; verifying a small
numeric matrix within 2.5x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, results_option, table  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wall(cmd: list[str], repeat: int, stdin: str | None = None) -> float:
    times = []
    for _ in range(repeat + 1):
        start = time.perf_counter()
        subprocess.run(cmd, input=stdin, capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    results_option(parser)
    args = parser.parse_args()
    py = sys.executable
    gd = [py, "-m", "gdlcheck"]
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(tmp, "small.csv")
        with open(small, "w") as fh:
            fh.write("1,2,3,4\n4,1,2,3\n3,4,1,2\n2,3,4,1\n")
        floor = wall([py, "-c", "import numpy"], args.repeat)
        cases = [
            ("gdlcheck --help", gd + ["--help"], 1.5),
            ("gdlcheck --version", gd + ["--version"], 1.5),
            ("verify a 4 x 4 numeric matrix", gd + ["verify", small, "--group", "cyclic"], 2.5),
            ("verify a symbolic spec (samples/layer.yaml)", gd + ["verify", "samples/layer.yaml"], None),
            ("derive --group cyclic -n 8", gd + ["derive", "--group", "cyclic", "-n", "8"], None),
        ]
        rows = [['python -c "import numpy"', fmt_seconds(floor), "1.00", "-"]]
        for label, cmd, target in cases:
            t = wall(cmd, args.repeat)
            ratio = t / floor
            verdict = "-" if target is None else (f"<= {target}x: {'met' if ratio <= target else 'MISSED'}")
            rows.append([label, fmt_seconds(t), f"{ratio:.2f}", verdict])
    emit(
        "cli",
        table("Whole-process times (median)", ["command", "time", "x import numpy", "target"], rows),
        update_results=args.update_results,
    )


if __name__ == "__main__":
    main()
