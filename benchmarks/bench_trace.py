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
passes, and says so; issue 28: about 2.2x at n = 4096 and on GCNConv at 4,000 nodes.

Beside both, the floor of this design (:func:`floor_check`): what any proof that carries its own
numeric trial must pay, and nothing else -- the input drawn as the proof draws it (standard normals
from the proof's seed), the two passes (on ``X``, and on ``g X`` with the graph relabelled by ``g``)
and one comparison of ``f(g X)`` with ``g f(X)`` (the largest difference and the scale).  The proof's
distance from it is what the walk, its guards and rules, the state walks and the check's own
bookkeeping cost.  The proof, the pass and the floor are run alternately (medians of each), in
wall-clock time and again in CPU time: on a shared machine, waiting for a core lengthens wall times,
and with two torch threads a loaded core makes each parallel operation spin (``--threads 1`` keeps
the CPU ratio steady there).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, results_option, table  # noqa: E402


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


def floor_check(forward, shape: tuple[int, int], graph=None, seed: int = 0):
    """The parts of a proof any proof of this design pays, as one callable: draw the input as the
    proof does, call ``forward(X, graph)`` on it and on ``g X`` (the graph's labels moved by ``g``),
    and compare ``f(g X)`` with ``g f(X)`` once.  Returns whether they agree within 1e-9."""
    import numpy as np
    import torch

    from gdlcheck.code.prover.prove import PROOF_ELEMENT, PROOF_TRIAL

    n = shape[0]
    edges = None if graph is None else np.asarray(graph)

    def run() -> bool:
        X = np.random.default_rng([seed, PROOF_TRIAL]).standard_normal(shape)
        g = np.random.default_rng([seed, PROOF_ELEMENT]).permutation(n)
        gX = np.empty_like(X)
        gX[g] = X  # the entry at j moves to g[j]
        with torch.no_grad():
            first = forward(torch.from_numpy(X), None if edges is None else torch.from_numpy(edges)).numpy()
            moved = None if edges is None else torch.from_numpy(g[edges])
            second = forward(torch.from_numpy(gX), moved).numpy()
        target = np.empty_like(first)
        target[g] = first
        err = float(np.abs(second - target).max())
        return err <= 1e-9 * max(float(np.abs(second).max()), float(np.abs(target).max()))

    return run


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
        floor = floor_check(lambda x, _graph: copy(x), (n, 64))
        rows.append([f"TransformerEncoder, n = {n}", *_pair(prove, lambda x=x: copy(x), floor, args.repeat, verdict)])

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
            *_pair(
                prove_gcn, lambda: conv_copy(x, eit), floor_check(conv_copy, (args.nodes, 64), ei), args.repeat, verdict
            ),
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
        "are in the proof column too. The floor of this design is what any proof carrying its own numeric "
        "trial pays: the input drawn as the proof draws it, the two passes (on X and on g X, the graph "
        "relabelled) and one comparison of f(g X) with g f(X).\n"
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
                "floor: 2 passes, the draw, the comparison",
                "proof / floor",
                "proof / floor (CPU time)",
            ],
            rows,
        )
        + note,
        update_results=args.update_results,
    )


def _pair(prove, forward, floor, repeat: int, verdict: dict) -> list[str]:
    """The proof beside one forward pass (without grad) and beside the floor, alternated: wall-clock
    medians and their ratios, and the ratios of the same runs' CPU-time medians."""
    import torch

    def one_pass():
        with torch.no_grad():
            forward()

    t_proof, t_pass, t_floor = _alternated([prove, one_pass, floor], repeat)
    c_proof, c_pass, c_floor = _alternated([prove, one_pass, floor], repeat, clock=time.process_time)
    return [
        fmt_seconds(t_proof),
        verdict["v"],
        fmt_seconds(t_pass),
        f"{t_proof / t_pass:.1f}x",
        f"{c_proof / c_pass:.1f}x",
        fmt_seconds(t_floor),
        f"{t_proof / t_floor:.2f}x",
        f"{c_proof / c_floor:.2f}x",
    ]


def _alternated(fns, repeat: int, clock=time.perf_counter) -> list[float]:
    """The median time of each of ``fns``, run in turn ``repeat`` times after one warm-up round."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, own in zip(fns, times):
            start = clock()
            fn()
            own.append(clock() - start)
    return [statistics.median(own) for own in times]


if __name__ == "__main__":
    main()
