"""Shared pieces of the benchmark scripts: timing, peak memory, the machine, the table."""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
# The checkout this script sits in, first on sys.path: a script run as `python benchmarks/x.py` has
# only its own folder first, so `import gdlcheck` would find an installed copy (another worktree's
# editable install, or a release) and time that instead of the code beside it.
CHECKOUT = os.path.dirname(HERE)
if sys.path[:1] != [CHECKOUT]:
    sys.path.insert(0, CHECKOUT)
# The tables the README quotes are tracked in benchmarks/results/; a run writes to benchmarks/out/
# (ignored by git) unless it is asked to refresh them with --update-results.
RESULTS = os.path.join(HERE, "results")
OUT = os.path.join(HERE, "out")


def results_option(parser) -> None:
    parser.add_argument(
        "--update-results",
        action="store_true",
        help="rewrite the tracked table in benchmarks/results/ (default: write benchmarks/out/, which git ignores)",
    )


def torch_arguments(description: str, repeat: int):
    """The options of a benchmark of torch code (``--repeat``, ``--threads``, ``--update-results``),
    parsed; torch's threads set as asked."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    results_option(parser)
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    return args


def machine() -> str:
    import numpy

    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, numpy {numpy.__version__}; "
        f"{datetime.date.today().isoformat()}"
    )


def timed(fn, repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds, after ``warmup`` calls (in-process, warm)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def paired(fa, fb, repeat: int, warmup: int = 1, clock=time.perf_counter) -> tuple[float, float]:
    """Medians of ``fa()`` and ``fb()``, run alternately after ``warmup`` calls of each (``clock``:
    ``time.process_time`` for the CPU time this process spends, which other jobs on a shared
    machine do not lengthen)."""
    for _ in range(warmup):
        fa()
        fb()
    ta, tb = [], []
    for _ in range(repeat):
        start = clock()
        fa()
        ta.append(clock() - start)
        start = clock()
        fb()
        tb.append(clock() - start)
    return statistics.median(ta), statistics.median(tb)


def peak_memory(fn) -> int:
    """Peak bytes allocated by ``fn()`` (numpy reports its buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def fmt_seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1e-3:
        return f"{s * 1e6:.0f} us"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_bytes(b: int | None) -> str:
    if b is None:
        return "-"
    return f"{b / 2**20:.1f} MiB"


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    lines = [
        f"## {title}",
        "",
        f"Machine: {machine()}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def emit(name: str, text: str, update_results: bool = False) -> None:
    """Print the table and write it to benchmarks/out/{name}.md, or with ``update_results`` to the
    tracked benchmarks/results/{name}.md."""
    print(text)
    folder = RESULTS if update_results else OUT
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{name}.md")
    with open(path, "w") as fh:
        fh.write(text)
    print(f"(written to {os.path.relpath(path)})")
