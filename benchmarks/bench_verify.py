"""Exact verification against the one-pass numpy floor, and symbolic verification.

    python benchmarks/bench_verify.py [--max-n 8192] [--quick]

Exact verify of a numeric circulant (it passes, so every entry is compared) against the
floor ``W[np.ix_(s, s)] == W`` — one vectorised pass that a developer would write. Target
(issue 6): within 3x of the floor; ``project`` of a dense matrix onto the cyclic group against
a numpy orbit mean (issue 33: within 3x at n >= 256); docs/design.md section 7: 4096 x 4096 under 1 s after
loading, 64 x 64 symbolic under 3 s.  Then numeric verification of a transformer encoder
(n = 256, d = 64) and of a GCN on a 10,000-node sparse graph (scipy.sparse, never dense),
against the floor of the forward passes the check must make.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_bytes, fmt_seconds, paired, peak_memory, results_option, table, timed  # noqa: E402

from gdlcheck import groups  # noqa: E402
from gdlcheck.derivation import project  # noqa: E402
from gdlcheck.inputs.arrays import to_array  # noqa: E402
from gdlcheck.layers import Linear  # noqa: E402
from gdlcheck.verification import Options, verify_layer  # noqa: E402
from gdlcheck.verification.measure import weight_residuals  # noqa: E402
from gdlcheck.verification.verdict import judge  # noqa: E402


def circulant(theta: np.ndarray) -> np.ndarray:
    n = len(theta)
    return theta[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]


def time_exact(W, g, repeat: int, whole_repeat: int) -> tuple[float, float]:
    """Median times of the exact check alone and of ``verify_layer(..., method="exact")``."""

    def ours():
        residuals, _ = weight_residuals(W, None, g, "equivariant", 1e-9)
        assert all(judge(r, 1e-9).passed for r in residuals)

    def whole():
        verify_layer(Linear(W), g, options=Options(method="exact"))

    return timed(ours, repeat), timed(whole, whole_repeat)


def numeric_rows(sizes, repeat):
    rows = []
    for n in sizes:
        g = groups.cyclic(n)
        W = circulant(np.random.default_rng(0).standard_normal(n))
        s = g.gen_arrays()[0]
        t_floor = timed(lambda: bool((W[np.ix_(s, s)] == W).all()), repeat)  # noqa: B023 (called at once)
        t_ours, t_whole = time_exact(W, g, repeat, max(1, repeat // 2))
        ratio = t_ours / t_floor
        rows.append(
            [
                f"{n} x {n} numeric",
                fmt_seconds(t_floor),
                fmt_seconds(t_ours),
                f"{ratio:.2f}",
                fmt_seconds(t_whole),
                "met" if ratio <= 3 else "MISSED",
            ]
        )
    return rows


def project_rows(sizes, repeat):
    """``project(W, cyclic)`` of a dense W beside a numpy orbit mean (``np.bincount`` over the
    offsets ``(i - j) mod n``, computed in the floor too), run alternately in one process."""
    rows = []
    for n in sizes:
        g = groups.cyclic(n)
        W = np.random.default_rng(0).standard_normal((n, n))

        def floor(n=n, W=W):
            offsets = ((np.arange(n)[:, None] - np.arange(n)[None, :]) % n).ravel()
            return (np.bincount(offsets, weights=W.ravel(), minlength=n) / n)[offsets].reshape(n, n)

        t_ours, t_floor = paired(lambda g=g, W=W: project(W, g), floor, repeat)
        ratio = t_ours / t_floor
        rows.append(
            [
                f"project {n} x {n} dense, cyclic",
                fmt_seconds(t_floor),
                fmt_seconds(t_ours),
                f"{ratio:.2f}",
                "-",
                "met" if ratio <= 3 else "MISSED",
            ]
        )
    return rows


def symbolic_rows(sizes, repeat):
    rows = []
    for n in sizes:
        g = groups.cyclic(n)
        W = to_array([[f"t_{(i - j) % n}" for j in range(n)] for i in range(n)])
        t_ours, t_whole = time_exact(W, g, repeat, 1)
        target = "met" if (n != 64 or t_whole < 3) else "MISSED"
        rows.append([f"{n} x {n} symbolic", "-", fmt_seconds(t_ours), "-", fmt_seconds(t_whole), target])
    return rows


def transformer_rows(n: int, d: int, repeat: int):
    """Numeric verify of a transformer encoder (symmetric group) against one forward pass."""
    from gdlcheck.layers import BuildContext, build_layer

    raw = {"kind": "transformer_encoder", "layers": 1, "d_model": d, "heads": 4}
    layer = build_layer(raw, BuildContext(spec=None, n=n, channels=d, seed=0))
    g = groups.symmetric(n)
    X = np.random.default_rng(0).standard_normal((n, d))
    t_forward = timed(lambda: layer.forward(X), repeat)
    result = verify_layer(layer, g, channels=d, options=Options(method="numeric"))
    t_verify = timed(lambda: verify_layer(layer, g, channels=d, options=Options(method="numeric")), max(1, repeat // 2))
    mem = peak_memory(lambda: verify_layer(layer, g, channels=d, options=Options(method="numeric")))
    passes = 8 * (1 + 2)  # trials x (f(X), then f(PX) for each of the 2 generators)
    return [
        [
            f"transformer encoder, n = {n}, d = {d} (1 block, 4 heads)",
            fmt_seconds(t_forward),
            fmt_seconds(t_verify),
            f"{t_verify / (passes * t_forward):.2f}",
            fmt_bytes(mem),
            result.verdict,
        ]
    ]


def gcn_rows(n: int, d: int, repeat: int):
    """Numeric verify of a GCN on a sparse random graph (scipy.sparse, never dense n x n)."""
    import scipy.sparse as sp

    from gdlcheck.layers import GCN

    rng = np.random.default_rng(0)
    m = 3 * n  # about 6 neighbours a node
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = src != dst
    A = sp.coo_matrix(
        (np.ones(2 * keep.sum()), (np.concatenate([src[keep], dst[keep]]), np.concatenate([dst[keep], src[keep]]))),
        shape=(n, n),
    ).tocsr()
    A.data[:] = 1.0
    layer = GCN(A, rng.standard_normal((d, d)) / np.sqrt(d), "relu")
    X = rng.standard_normal((n, d))
    g = groups.symmetric(n)
    t_forward = timed(lambda: layer.forward(X, A), repeat)
    result = verify_layer(layer, g, channels=d, options=Options(method="numeric"))
    t_verify = timed(lambda: verify_layer(layer, g, channels=d, options=Options(method="numeric")), max(1, repeat // 2))
    mem = peak_memory(lambda: verify_layer(layer, g, channels=d, options=Options(method="numeric")))
    passes = 8 * (1 + 2)
    return [
        [
            f"GCN, {n} nodes, {A.nnz} stored edges (scipy.sparse CSR), d = {d}",
            fmt_seconds(t_forward),
            fmt_seconds(t_verify),
            f"{t_verify / (passes * t_forward):.2f}",
            f"{fmt_bytes(mem)} (dense A: {fmt_bytes(8 * n * n)})",
            result.verdict,
        ]
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=8192)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sizes")
    results_option(parser)
    args = parser.parse_args()
    repeat = 2 if args.quick else 5
    sizes = [n for n in (256, 1024, 2048, 4096, 8192) if n <= args.max_n]
    rows = numeric_rows(sizes, repeat) + project_rows([256, 1024], 3 * repeat)
    rows += symbolic_rows([16, 32, 64, 128] if not args.quick else [16, 64], repeat)
    text = table(
        "Exact verify (cyclic group, a passing circulant; median, in-process, warm)",
        ["case", "numpy floor", "gdlcheck exact check", "ratio", "verify_layer (exact)", "target"],
        rows,
    )
    layers = transformer_rows(256, 64, repeat) + gcn_rows(2000 if args.quick else 10_000, 16, repeat)
    text += "\n" + table(
        "Numeric verify of layers (symmetric group, 8 trials x 2 generators; median, warm)",
        ["case", "one forward pass", "numeric verify", "x (24 forward passes)", "peak memory", "verdict"],
        layers,
    )
    text += (
        "\nThe GCN's adjacency is a scipy.sparse CSR matrix: G(A) is normalised with sparse diagonals, the "
        "forward pass is sparse @ dense, and P A P^T moves the stored entries, so no dense n x n array is "
        "ever made (the peak memory column shows it beside the size of a dense A).\n"
    )
    emit("verify", text, update_results=args.update_results)


if __name__ == "__main__":
    main()
