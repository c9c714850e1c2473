"""``gdlcheck.testing.assert_equivariant`` in a test suite against the check written by hand.

    python benchmarks/bench_testing.py [--repeat 15] [--threads N] [--update-results]

(``--threads 1`` on a shared machine: at these sizes torch's threads only compete.)

Small layers, as a unit test checks them: a pointwise MLP, a circular Conv1d, a
TransformerEncoderLayer.  The hand-written check is :func:`bench_code.hand_loop`: the module copied
to float64 in eval mode, 8 seeded inputs, for each the output on ``X`` and on ``P X`` per generator,
and the largest relative error.  ``assert_equivariant`` (method ``auto``) does more at these sizes:
the proof (two traced calls, the state walked before and after each) and then the trials
(after a proof that holds, one trial: a pass per generator and per random element besides the
input's, a cross-check of the proof, which carries a trial of its own).  Target (issue 33, item
5): within 2x of the hand check, on the wall-clock medians of alternated runs, warm; the same pair
in CPU time beside them, and the load average (the machine is shared).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, paired, table, torch_arguments  # noqa: E402
from bench_code import TRIALS, hand_loop, one_pass  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck.testing import assert_equivariant  # noqa: E402


def cases():
    import torch

    class PointsFirst(torch.nn.Module):
        """A Conv1d on (n, channels): the points are its length axis."""

        def __init__(self, conv):
            super().__init__()
            self.conv = conv

        def forward(self, x):
            return self.conv(x.T).T

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    conv = PointsFirst(torch.nn.Conv1d(4, 4, 3, padding=1, padding_mode="circular"))
    encoder = torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0)
    return [
        ("pointwise MLP 4-32-4, n = 8", mlp, "symmetric", (8, 4)),
        ("circular Conv1d(4, 4, 3), n = 16", conv, "cyclic", (16, 4)),
        ("TransformerEncoderLayer(16, 2, 32), n = 8", encoder, "symmetric", (8, 16)),
    ]


def rows(repeat: int) -> list[list[str]]:
    out = []
    for label, module, name, shape in cases():
        g = gdlcheck.group(name, n=shape[0])
        hand = lambda m=module, s=shape, g=g: hand_loop(m, s[0], s, g.gen_arrays())  # noqa: E731
        check = lambda m=module, s=shape, g=g: assert_equivariant(m, g, s)  # noqa: E731
        t_hand, t_assert = paired(hand, check, repeat)
        # the same pair in CPU time: on a shared machine, waiting for a core lengthens wall times
        c_hand, c_assert = paired(hand, check, repeat, clock=time.process_time)
        ratio = t_assert / t_hand
        out.append(
            [
                label,
                name,
                fmt_seconds(one_pass(module, shape)),
                fmt_seconds(t_hand),
                fmt_seconds(t_assert),
                f"{ratio:.1f}",
                f"{c_assert / c_hand:.1f}",
                "<= 2x: " + ("met" if ratio <= 2 else "MISSED"),
                assert_equivariant(module, g, shape).verdict,
            ]
        )
    return out


def main() -> None:
    args = torch_arguments(__doc__.splitlines()[0], repeat=15)
    import torch

    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    text = table(
        "assert_equivariant against a hand-written check of small layers (median, warm)",
        [
            "case",
            "group",
            "one forward pass",
            f"hand-written check ({TRIALS} trials)",
            "assert_equivariant",
            "ratio",
            "ratio (CPU time)",
            "target",
            "verdict",
        ],
        rows(args.repeat),
    )
    text += (
        f"\ntorch {torch.__version__}, {torch.get_num_threads()} torch thread(s); medians of {args.repeat} "
        f"alternated runs; load average before the run (1, 5, 15 min): {load}.\n"
    )
    emit("testing", text, update_results=args.update_results)


if __name__ == "__main__":
    main()
