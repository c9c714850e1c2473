"""Proving a torch TransformerEncoder by its trace, for every n, against running it.

    python benchmarks/bench_trace.py [--repeat 3] [--sizes 256,512,1024,2048,4096] [--update-results]

A ``torch.nn.TransformerEncoder`` (2 layers, d_model 64, 4 heads, eval mode) under the
symmetric group on n tokens, in-process and warm: ``gdlcheck.verify_callable(...,
method="exact")`` (the tracer's proof: fx, fake tensors, one rule per node), beside one
float64 forward pass of the module and, at the largest n, ``method="numeric"`` (today's
check: 8 trials x 3 passes).  A second column proves the same encoder after a learned
positional embedding (an n x 64 parameter): there the proof compares the parameter's rows
under each generator, the one part of its cost that grows with n.  Target (issue 13): the
proof's cost does not grow with n past the parameter checks.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, results_option, table, timed  # noqa: E402


def encoder(torch):
    torch.manual_seed(0)
    block = torch.nn.TransformerEncoderLayer(64, 4, dim_feedforward=128)
    return torch.nn.TransformerEncoder(block, 2, enable_nested_tensor=False).eval()


def positional(torch, n: int):
    class Positional(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.pos_emb = torch.nn.Parameter(torch.zeros(n, 64))   # equal rows: fixed by every permutation
            self.encoder = encoder(torch)

        def forward(self, x):
            return self.encoder(x + self.pos_emb)

    return Positional().eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="256,512,1024,2048,4096")
    results_option(parser)
    args = parser.parse_args()
    import torch

    import gdlcheck

    sizes = [int(s) for s in args.sizes.split(",")]
    module = encoder(torch)
    rows, verdicts = [], {}
    for n in sizes:
        def prove(m=module, n=n):
            verdicts[n] = gdlcheck.verify_callable(m, "symmetric", shape=(n, 64), method="exact").verdict

        proof = timed(prove, repeat=args.repeat)
        held = verdicts[n]
        with_emb = positional(torch, n)
        proof_emb = timed(lambda m=with_emb, n=n: verdicts.__setitem__(
            ("emb", n), gdlcheck.verify_callable(m, "symmetric", shape=(n, 64), method="exact").verdict),
            repeat=args.repeat)
        copy = encoder(torch).double()
        x = torch.randn(n, 64, dtype=torch.float64)
        with torch.no_grad():
            forward = timed(lambda c=copy, x=x: c(x), repeat=args.repeat)
        numeric = None
        if n == max(sizes):
            start = time.perf_counter()
            numeric_verdict = gdlcheck.verify_callable(module, "symmetric", shape=(n, 64), method="numeric").verdict
            numeric = time.perf_counter() - start
        rows.append([str(n), fmt_seconds(proof), held, fmt_seconds(proof_emb), verdicts[("emb", n)],
                     fmt_seconds(forward),
                     f"{fmt_seconds(numeric)} ({numeric_verdict})" if numeric is not None else "-",
                     f"{numeric / proof:.0f}x" if numeric is not None else "-"])
    note = ("\nIn-process, warm, medians of the runs (the numeric check runs once, at the largest n). The proof "
            "traces the module with fake tensors (no entry of an n x 64 input is computed) and applies one rule "
            "per node; its time is flat in n. With the positional embedding the proof also compares the "
            "parameter's rows under each generator (exact, O(n x 64) per generator). A forward pass grows as "
            "n^2 (attention), and the numeric check runs 24 of them.\n")
    emit("trace", table("Proving a torch TransformerEncoder (2 layers, d_model 64, 4 heads) by its trace, "
                        "symmetric group",
                        ["n", "proof (method exact)", "verdict", "proof with an n x 64 pos_emb", "verdict",
                         "one float64 forward pass", "method numeric", "numeric / proof"], rows) + note,
         update_results=args.update_results)


if __name__ == "__main__":
    main()
