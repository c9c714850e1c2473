"""Proving torch code by following its call, beside one forward pass of the same code.

    python benchmarks/bench_trace.py [--repeat 3] [--sizes 256,1024,4096] [--nodes 4000] [--threads N]
                                     [--update-results]

Two models, in-process and warm, each under the symmetric group:

* a ``torch.nn.TransformerEncoder`` (2 layers, d_model 64, 4 heads, eval mode) on n tokens;
* PyG's ``GCNConv(64, 64)`` on a random graph of 4,000 nodes and 16,000 edges that moves with
  the points (``edge_index`` relabelled).

``gdlcheck.verify_callable(..., method="exact")`` is the whole check with the proof only: the
module is called for real under a dispatch mode (the rules run on every operation), then called
a second time on the points moved by a uniformly random element of the group, to compare the
operations dispatched and the output with the moved output (the proof's one numeric trial).  Beside
it, one float64 forward pass of the same module on the same input (the floor: a proof of what
runs cannot cost less than running it once).  Target (issue 20): a proof costs a few forward
passes, and says so; issue 28: about 2.2x at n = 4096 and on GCNConv at 4,000 nodes.  The proof and
the pass are run alternately (medians of each), in wall-clock time and again in CPU time: on a shared
machine, waiting for a core lengthens wall times, and with two torch threads a loaded core makes
each parallel operation spin (``--threads 1`` keeps the CPU ratio steady there).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, paired, results_option, table  # noqa: E402


def encoder(torch):
    torch.manual_seed(0)
    block = torch.nn.TransformerEncoderLayer(64, 4, dim_feedforward=128)
    return torch.nn.TransformerEncoder(block, 2, enable_nested_tensor=False).eval()


def random_graph(n: int, edges: int, seed: int = 0):
    import numpy as np

    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, edges), rng.integers(0, n, edges)
    keep = src != dst
    return np.stack([src[keep], dst[keep]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="256,1024,4096")
    parser.add_argument("--nodes", type=int, default=4000)
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    results_option(parser)
    args = parser.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)

    import gdlcheck

    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    rows = []
    module = encoder(torch)
    copy = encoder(torch).double()
    verdict: dict = {}
    for n in [int(s) for s in args.sizes.split(",")]:

        def prove(n=n):
            verdict["v"] = gdlcheck.verify_callable(module, "symmetric", shape=(n, 64), method="exact").verdict

        x = torch.randn(n, 64, dtype=torch.float64)
        rows.append([f"TransformerEncoder, n = {n}", *_pair(prove, lambda x=x: copy(x), args.repeat, verdict)])

    from torch_geometric.nn import GCNConv

    torch.manual_seed(0)
    conv = GCNConv(64, 64).eval()
    conv_copy = GCNConv(64, 64).double().eval()
    ei = random_graph(args.nodes, 4 * args.nodes)

    def prove_gcn():
        verdict["v"] = gdlcheck.verify_callable(
            conv, "symmetric", shape=(args.nodes, 64), inputs=["points", gdlcheck.graph(ei)], method="exact"
        ).verdict

    x = torch.randn(args.nodes, 64, dtype=torch.float64)
    eit = torch.as_tensor(ei)
    rows.append(
        [
            f"GCNConv, {args.nodes} nodes, {ei.shape[1]} edges",
            *_pair(prove_gcn, lambda: conv_copy(x, eit), args.repeat, verdict),
        ]
    )
    note = (
        f"\n{torch.get_num_threads()} torch thread(s); load average before the run (1, 5, 15 min): {load}. "
        "In-process, warm, medians of the runs, the proof and the pass alternated. "
        "The proof calls the module twice for real (the traced call "
        "and the moved call, on the points moved by a uniformly random element of the group, which checks the "
        "path and the output), under a dispatch mode that applies the rule table to every aten "
        "operation, plus the signature's own first call and the state and value checks; a forward pass is "
        "the floor for any proof of what runs. The check's other costs (building the group, the report) "
        "are in the proof column too.\n"
    )
    emit(
        "trace",
        table(
            "Proofs of torch code that follow the call, beside one float64 forward pass",
            [
                "model",
                "proof (method exact)",
                "verdict",
                "one forward pass",
                "proof / forward",
                "proof / forward (CPU time)",
            ],
            rows,
        )
        + note,
        update_results=args.update_results,
    )


def _pair(prove, forward, repeat: int, verdict: dict) -> list[str]:
    """The proof beside one forward pass (without grad), alternated: wall-clock medians, their ratio,
    and the ratio of the same pair's CPU-time medians."""
    import torch

    def one_pass():
        with torch.no_grad():
            forward()

    t_proof, t_pass = paired(prove, one_pass, repeat)
    c_proof, c_pass = paired(prove, one_pass, repeat, clock=time.process_time)
    return [
        fmt_seconds(t_proof),
        verdict["v"],
        fmt_seconds(t_pass),
        f"{t_proof / t_pass:.1f}x",
        f"{c_proof / c_pass:.1f}x",
    ]


if __name__ == "__main__":
    main()
