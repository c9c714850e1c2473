"""Exact verification against the one-pass numpy floor, and symbolic verification.

    python benchmarks/bench_verify.py [--max-n 8192] [--quick]

Exact verify of a numeric circulant (it passes, so every entry is compared) against the
floor ``W[np.ix_(s, s)] == W`` — one vectorised pass that a developer would write. Target
(issue 6): within 3x of the floor; DESIGN.md section 7: 4096 x 4096 under 1 s after
loading, 64 x 64 symbolic under 3 s.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, table, timed  # noqa: E402

from gdlcheck import groups  # noqa: E402
from gdlcheck.layers import Linear  # noqa: E402
from gdlcheck.matrices import to_array  # noqa: E402
from gdlcheck.verification import Options, exact_checks, verify_layer  # noqa: E402


def circulant(theta: np.ndarray) -> np.ndarray:
    n = len(theta)
    return theta[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def numeric_rows(sizes, repeat):
    rows = []
    for n in sizes:
        g = groups.cyclic(n)
        W = circulant(np.random.default_rng(0).standard_normal(n))
        s = g.gen_arrays()[0]

        def floor():
            return bool((W[np.ix_(s, s)] == W).all())

        def ours():
            checks, _ = exact_checks(W, None, g, "equivariant", 1e-9)
            assert all(c.passed for c in checks)

        def whole():
            verify_layer(Linear(W), g, options=Options(method="exact"))

        t_floor = timed(floor, repeat)
        t_ours = timed(ours, repeat)
        t_whole = timed(whole, max(1, repeat // 2))
        ratio = t_ours / t_floor
        rows.append([f"{n} x {n} numeric", fmt_seconds(t_floor), fmt_seconds(t_ours), f"{ratio:.2f}",
                     fmt_seconds(t_whole), "met" if ratio <= 3 else "MISSED"])
    return rows


def symbolic_rows(sizes, repeat):
    rows = []
    for n in sizes:
        g = groups.cyclic(n)
        W = to_array([[f"t_{(i - j) % n}" for j in range(n)] for i in range(n)])

        def ours():
            checks, _ = exact_checks(W, None, g, "equivariant", 1e-9)
            assert all(c.passed for c in checks)

        def whole():
            verify_layer(Linear(W), g, options=Options(method="exact"))

        t_ours = timed(ours, repeat)
        t_whole = timed(whole, 1)
        target = "met" if (n != 64 or t_whole < 3) else "MISSED"
        rows.append([f"{n} x {n} symbolic", "-", fmt_seconds(t_ours), "-", fmt_seconds(t_whole), target])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=8192)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    args = parser.parse_args()
    repeat = 2 if args.quick else 5
    sizes = [n for n in (256, 1024, 2048, 4096, 8192) if n <= args.max_n]
    rows = numeric_rows(sizes, repeat) + symbolic_rows([16, 32, 64, 128] if not args.quick else [16, 64], repeat)
    emit("verify", table("Exact verify (cyclic group, a passing circulant; median, in-process, warm)",
                         ["case", "numpy floor", "gdlcheck exact check", "ratio", "verify_layer (exact)",
                          "target"], rows))


if __name__ == "__main__":
    main()
