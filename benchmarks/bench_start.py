"""The first proof in a process against the next, and ``verify --callable`` against ``import torch``.

    python benchmarks/bench_start.py [--repeat 5]

Issue 33, item 1. Two lines, each beside its floor in the same run:

* the first proof of a fresh process (a 2-layer TransformerEncoder, 8 tokens, ``method="exact"``)
  against the second proof in that process: a dispatch mode's first use once imported
  ``torch._dynamo`` (seconds); target within 2x. Each repeat is a new process; medians. A second
  line leaves out the time of Python's garbage collector: the first full collection after
  ``import torch`` walks torch's objects, and whatever allocates first pays it.
* ``gdlcheck verify --callable samples/torchlayers.py:encoder`` as a whole process against
  ``python -c "import torch"``, run alternately (pairs keep the ratio on a drifting machine);
  target within 1.3x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, results_option, table  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# one fresh process: import (gdlcheck's API too, as `from gdlcheck import verify_callable` does), build,
# then the first and the second proof, timed apart, with the time Python's collector took in each
FIRST_AND_SECOND = """
import gc, time, torch
from gdlcheck import verify_callable
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32)
enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
collected = [0.0]
def count(phase, info, started=[0.0]):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        collected[0] += time.perf_counter() - started[0]
gc.callbacks.append(count)
for _ in range(2):
    collected[0] = 0.0
    start = time.perf_counter()
    verdict = verify_callable(enc, "symmetric", shape=(8, 2, 16), method="exact").verdict
    print(time.perf_counter() - start, collected[0])
    assert verdict == "holds", verdict
"""


def _env() -> dict:
    """A user's shell: no PYTHON* variable but the path to this checkout.  A machine that sets
    PYTHONDONTWRITEBYTECODE (this one's image does) would have every process compile gdlcheck's
    modules anew, 0.2 s of a first proof that a user, whose Python keeps its bytecode, never pays."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return {**env, "PYTHONPATH": ROOT}


def first_and_second(repeat: int) -> tuple[float, float, float, float]:
    """Medians over ``repeat`` processes: the first proof, the second, their ratio, and the ratio
    without the time of Python's garbage collector in each."""
    firsts, seconds, ratios, bare = [], [], [], []
    subprocess.run([sys.executable, "-c", FIRST_AND_SECOND], capture_output=True, env=_env(), check=True)  # warm-up
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", FIRST_AND_SECOND], capture_output=True, text=True, env=_env(), check=True
        )
        (a, ga), (b, gb) = ([float(v) for v in line.split()] for line in out.stdout.split("\n")[:2])
        firsts.append(a)
        seconds.append(b)
        ratios.append(a / b)
        bare.append((a - ga) / (b - gb))
    return (statistics.median(firsts), statistics.median(seconds), statistics.median(ratios), statistics.median(bare))


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=os.path.join(ROOT, "samples"))
    return time.perf_counter() - start


def callable_start(repeat: int) -> tuple[float, float, float]:
    """Medians of the whole ``verify --callable`` process, of ``import torch``, and of their
    ratio pair by pair (run alternately, after one warm-up pair)."""
    check = [
        sys.executable,
        "-m",
        "gdlcheck",
        "verify",
        "--callable",
        "torchlayers:encoder",
        "--input-shape",
        "8x2x16",
        "--group",
        "symmetric",
    ]
    floor = [sys.executable, "-c", "import torch"]
    _wall(check)
    _wall(floor)
    a, b = [], []
    for _ in range(repeat):
        a.append(_wall(check))
        b.append(_wall(floor))
    return statistics.median(a), statistics.median(b), statistics.median(x / y for x, y in zip(a, b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    results_option(parser)
    args = parser.parse_args()
    first, second, ratio, bare = first_and_second(args.repeat)
    whole, floor, start_ratio = callable_start(args.repeat)
    rows = [
        [
            "first proof in a process (encoder, 8 tokens, exact)",
            fmt_seconds(first),
            "second proof, same process",
            fmt_seconds(second),
            f"{ratio:.2f}",
            f"<= 2x: {'met' if ratio <= 2 else 'MISSED'}",
        ],
        [
            "the same, less Python's garbage collector in each",
            "-",
            "-",
            "-",
            f"{bare:.2f}",
            f"<= 2x: {'met' if bare <= 2 else 'MISSED'}",
        ],
        [
            "gdlcheck verify --callable torchlayers:encoder (whole process)",
            fmt_seconds(whole),
            'python -c "import torch"',
            fmt_seconds(floor),
            f"{start_ratio:.2f}",
            f"<= 1.3x: {'met' if start_ratio <= 1.3 else 'MISSED'}",
        ],
    ]
    emit(
        "start",
        table(
            "The first proof and the process start (medians)",
            ["case", "time", "floor", "floor time", "ratio", "target"],
            rows,
        ),
        update_results=args.update_results,
    )


if __name__ == "__main__":
    main()
