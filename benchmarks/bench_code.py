"""Checking PyTorch and PyG code against a hand-written loop of the same forward passes.

    python benchmarks/bench_code.py [--repeat 3] [--threads N] [--update-results]

What a user would write by hand to check ``f(P X, P A P^T) = P f(X, A)``: the module copied
to float64 in eval mode, under ``torch.no_grad()``, ``trials`` seeded inputs, for each the
output on ``X`` and on ``P X`` (with the edge_index relabelled once per generator), and the
largest relative error: 24 forward passes.  Two gdlcheck columns:

- ``--method numeric``: the same 24 forward passes (and, only when a check fails, one more: the
  first input again, to tell random code from a broken symmetry), and more around them: the
  copy, the checks of every output's shape, the report.  Its ratio to the loop is the overhead
  of the trials; targets (issue 12, docs/design.md section 7): ``GCNConv`` on 4,000 nodes within 2x
  of the loop, a ``TransformerEncoderLayer(64, 4)`` at n = 512 within 1.2x.
- the default (``auto``): at these sizes (n x d > 4,096) a proof followed at torch's dispatcher,
  two forward passes and no trials, so it is faster than the loop; its floor is one forward pass.

Then the time gdlcheck takes to name the submodule that breaks a three-block encoder (its culprit).

Times are medians of ``--repeat`` runs, the loop and gdlcheck alternating, warm.  The machine
is shared: torch's threads compete with other work, so ``--threads 1`` gives steadier numbers.
"""

from __future__ import annotations

import copy
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, paired, table, torch_arguments  # noqa: E402

import gdlcheck  # noqa: E402

TRIALS = 8


def hand_loop(module, n: int, shape, gens, graph=None):
    """The check written by hand: the forward passes and the comparison, nothing else."""
    import torch

    m = copy.deepcopy(module).to(torch.float64).eval()
    moves = []
    for s in gens:
        inv = torch.from_numpy(np.argsort(s))
        moved = None if graph is None else torch.from_numpy(s)[graph]
        moves.append((inv, moved))
    worst = 0.0
    with torch.no_grad():
        for t in range(TRIALS):
            X = torch.from_numpy(np.random.default_rng([0, t]).standard_normal(shape))
            Y = m(X) if graph is None else m(X, graph)
            scale = float(Y.abs().max())
            for inv, moved in moves:
                PY = m(X[inv]) if graph is None else m(X[inv], moved)
                worst = max(worst, float((PY - Y[inv]).abs().max()) / scale)
    return worst


def one_pass(module, shape, graph=None) -> float:
    import torch

    m = copy.deepcopy(module).to(torch.float64).eval()
    X = torch.from_numpy(np.random.default_rng(0).standard_normal(shape))
    times = []
    with torch.no_grad():
        for _ in range(7):
            start = time.perf_counter()
            m(X) if graph is None else m(X, graph)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def random_graph(n: int, degree: int, seed: int = 0):
    """An undirected random graph as a PyG edge_index, both directions of every edge."""
    import torch

    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(n), degree // 2)
    dst = rng.integers(0, n, size=src.size)
    keep = src != dst
    ei = np.unique(np.stack([np.r_[src[keep], dst[keep]], np.r_[dst[keep], src[keep]]]), axis=1)
    return torch.from_numpy(ei)


def rows(repeat: int):
    import torch
    from torch_geometric.nn import GCNConv

    torch.manual_seed(0)
    conv = GCNConv(16, 16)
    ei = random_graph(4000, 10)
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(64, 4)
    cases = [
        (f"GCNConv(16, 16), 4000 nodes, {ei.shape[1]} edges (edge_index)", conv, 4000, (4000, 16), ei, 2.0),
        ("TransformerEncoderLayer(64, 4), n = 512 (unbatched (n, d))", layer, 512, (512, 64), None, 1.2),
    ]
    return [one_row(*case, repeat) for case in cases]


def one_row(label, module, n: int, shape, graph, target: float, repeat: int) -> list:
    """One module: the hand loop against ``--method numeric`` (the same passes), then the default."""
    g = gdlcheck.group("symmetric", n=n)
    extra = {} if graph is None else {"graph": graph}
    t_pass = one_pass(module, shape, graph)
    t_hand, t_trials = paired(
        lambda: hand_loop(module, n, shape, g.gen_arrays(), graph),
        lambda: gdlcheck.verify_callable(module, g, shape=shape, method="numeric", **extra),
        repeat,
    )
    t_proof = statistics.median(_times(lambda: gdlcheck.verify_callable(module, g, shape=shape, **extra), repeat))
    verdict = gdlcheck.verify_callable(module, g, shape=shape, **extra).verdict
    ratio = t_trials / t_hand
    return [
        label,
        fmt_seconds(t_pass),
        fmt_seconds(t_hand),
        fmt_seconds(t_trials),
        f"{ratio:.2f}",
        f"<= {target:g}x: " + ("met" if ratio <= target else "MISSED"),
        fmt_seconds(t_proof),
        f"{t_proof / t_pass:.1f}",
        verdict,
    ]


def culprit_row(repeat: int):
    """The failing check of an encoder with a learned positional embedding inside its second block,
    and the culprit search alone."""
    import torch

    from gdlcheck.code.culprit import find_culprit

    class PositionalEmbedding(torch.nn.Module):
        def __init__(self, n, d):
            super().__init__()
            self.table = torch.nn.Parameter(0.1 * torch.randn(n, d))

        def forward(self, x):
            return x + self.table[: x.shape[-2]]

    class Block(torch.nn.Module):
        def __init__(self, d, pos=None):
            super().__init__()
            self.attn = torch.nn.TransformerEncoderLayer(d, 4, dim_feedforward=2 * d, batch_first=True)
            self.pos_emb = pos

        def forward(self, x):
            x = self.attn(x)
            return self.pos_emb(x) if self.pos_emb is not None else x

    class Encoder(torch.nn.Module):
        def __init__(self, n, d):
            super().__init__()
            self.layers = torch.nn.ModuleList([Block(d), Block(d, PositionalEmbedding(n, d)), Block(d)])

        def forward(self, x):
            for block in self.layers:
                x = block(x)
            return x

    torch.manual_seed(0)
    model = Encoder(64, 32)
    shape = (2, 64, 32)
    g = gdlcheck.group("symmetric", n=64)
    result = gdlcheck.verify_callable(model, g, shape=shape, batch_axes=0)
    t_whole = statistics.median(_times(lambda: gdlcheck.verify_callable(model, g, shape=shape, batch_axes=0), repeat))

    from gdlcheck.code.describe import build_signature
    from gdlcheck.code.running import to_run
    from gdlcheck.code.user_code import CallableLayer

    sig = build_signature(None, None, shape=shape, points_axes=(1,), n=64, grid=None)
    layer = CallableLayer(to_run(model), sig)
    layer.forward(np.zeros((64, sig.channels)))
    t_find = statistics.median(_times(lambda: find_culprit(layer, g, result.checks, 1e-9), repeat))
    path = result.culprit["path"] if result.culprit is not None else "-"
    return [
        [
            "encoder of 3 blocks (d = 32, batch 2, n = 64), positional embedding in block 1",
            fmt_seconds(t_whole),
            fmt_seconds(t_find),
            path,
        ]
    ]


def _times(fn, repeat):
    fn()
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    args = torch_arguments(__doc__.splitlines()[0], repeat=3)  # 5 took 6 minutes on the shared machine
    import torch
    import torch_geometric

    threads = torch.get_num_threads()
    text = table(
        f"Checks of code against a hand-written loop (symmetric group, {TRIALS} trials x 2 generators; median, warm)",
        [
            "case",
            "one forward pass",
            "hand-written loop",
            "gdlcheck --method numeric",
            "ratio",
            "target",
            "gdlcheck (default: the proof)",
            "proof / one pass",
            "verdict (default)",
        ],
        rows(args.repeat),
    )
    text += (
        f"\ntorch {torch.__version__}, torch_geometric {torch_geometric.__version__}, {threads} torch "
        f"thread(s); medians of {args.repeat} alternating runs. The loop makes {TRIALS * 3} forward passes in "
        f"float64 (the edge_index relabelled once per generator); so does `--method numeric`, which also "
        "copies the module once (a failing check calls the first input once more: random code is reported "
        "as random). The default proves these modules at torch's dispatcher in two forward passes and runs "
        "no trials.\n\n"
    )
    text += table(
        "Naming the submodule that breaks it (median, warm)",
        ["case", "whole failing check", "culprit search alone", "culprit"],
        culprit_row(args.repeat),
    )
    emit("code", text, update_results=args.update_results)


if __name__ == "__main__":
    main()
