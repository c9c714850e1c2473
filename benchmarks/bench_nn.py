"""gdlcheck.nn.EquivariantLinear against its floor: the same computation written by hand in torch.

    python benchmarks/bench_nn.py [--repeat 7] [--threads N] [--update-results]

Targets (issue 32), each forward pass within 2x of its floor:

* cyclic at n = 4,096 with 16 channels in and out, against ``torch.nn.Conv1d`` with kernel n and
  circular padding (the circulant as a convolution, written as torch writes it);
* the symmetric group at n = 10^5 (one channel), against ``x.sum()`` (and, beside it, the same
  computation by hand; with 16 channels too);
* the symmetric group 2 -> 2 at n = 256 (4 channels), against the same 15 operations written by
  hand (diagonals, row and column sums, transposes, broadcasts), each mixing channels.

Memory: the layer's parameters and buffers, and the peak of one forward pass (the most bytes the
tensors its operations return hold at once, followed at torch's dispatcher), against one dense
weight of the same map (``n^l c' x n^k c`` float32 entries).  Times are medians of ``--repeat``
runs (100 times as many for a layer call under a millisecond), the layer and its floor
alternating, warm, in float32 without gradients, as wall time and as the CPU time of this
process (which other jobs on a shared machine lengthen less).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_bytes, fmt_seconds, paired, table, torch_arguments  # noqa: E402


def by_hand_2_to_2(x, w):
    """The 15 operations of the symmetric group from order 2 to order 2, written by hand:
    ``x : (n, n, c)``, ``w : (15, c, c')``, one channel mixing per operation."""
    import torch

    n = x.shape[0]
    eye = torch.eye(n, dtype=x.dtype)[:, :, None]
    diag = x.diagonal(dim1=0, dim2=1).T  # (n, c)
    rows, cols = x.sum(1), x.sum(0)  # (n, c)
    total, trace = x.sum((0, 1)), diag.sum(0)  # (c,)
    y = x @ w[0] + x.transpose(0, 1) @ w[1]
    y = y + (diag @ w[2])[:, None] + (diag @ w[3])[None] + (rows @ w[4])[:, None] + (rows @ w[5])[None]
    y = y + (cols @ w[6])[:, None] + (cols @ w[7])[None] + (total @ w[8] + trace @ w[9])
    on_diagonal = diag @ w[10] + rows @ w[11] + cols @ w[12]
    y = y + torch.diag_embed(on_diagonal.T).permute(1, 2, 0) + (total @ w[13] + trace @ w[14]) * eye
    return y


def cases():
    """(name, build the layer and the input, the floor, the dense weight's entries)."""
    import torch

    import gdlcheck
    from gdlcheck.nn import EquivariantLinear

    def cyclic():
        torch.manual_seed(0)
        layer = EquivariantLinear(gdlcheck.group("cyclic", n=4096), 16, 16)
        conv = torch.nn.Conv1d(16, 16, 4096, padding=0, bias=True)
        x = torch.randn(1, 4096, 16)
        xc = x.transpose(1, 2).contiguous()
        # Conv1d(padding_mode="circular") pads circularly, then convolves without padding
        floor = lambda: conv(torch.nn.functional.pad(xc, (4095, 0), mode="circular"))  # noqa: E731
        return layer, x, floor

    def symmetric():
        torch.manual_seed(0)
        layer = EquivariantLinear(gdlcheck.group("symmetric", n=100_000), 1, 1)
        x = torch.randn(100_000, 1)
        return layer, x, lambda: x.sum()

    def deepsets_by_hand():
        layer, x, _ = symmetric()
        a, b, c = torch.randn(3)
        return layer, x, lambda: a * x + (b * x.sum() + c)

    def symmetric_16(floor):
        def build():
            torch.manual_seed(0)
            layer = EquivariantLinear(gdlcheck.group("symmetric", n=100_000), 16, 16)
            x = torch.randn(100_000, 16)
            A, B, c = torch.randn(16, 16), torch.randn(16, 16), torch.randn(16)
            by_hand = lambda: x @ A + (x.sum(0) @ B + c)  # noqa: E731
            return layer, x, by_hand if floor == "by hand" else (lambda: x.sum())

        return build

    def symmetric_2_2():
        torch.manual_seed(0)
        layer = EquivariantLinear(gdlcheck.group("symmetric", n=256), 4, 4, in_order=2, out_order=2)
        x = torch.randn(256, 256, 4)
        w = torch.randn(15, 4, 4)
        return layer, x, lambda: by_hand_2_to_2(x, w)

    return {
        "cyclic": (
            "cyclic, n = 4,096, 16 -> 16 channels (batch 1)",
            cyclic,
            "Conv1d(16, 16, 4096), circular padding",
            (4096 * 16) ** 2,
        ),
        "symmetric": ("symmetric, n = 100,000, 1 -> 1 channel", symmetric, "x.sum()", 100_000**2),
        "symmetric-by-hand": (
            "symmetric, n = 100,000, 1 -> 1 channel",
            deepsets_by_hand,
            "a * x + b * x.sum() + c by hand",
            100_000**2,
        ),
        "symmetric-16": (
            "symmetric, n = 100,000, 16 -> 16 channels",
            symmetric_16("sum"),
            "x.sum()",
            (100_000 * 16) ** 2,
        ),
        "symmetric-16-by-hand": (
            "symmetric, n = 100,000, 16 -> 16 channels",
            symmetric_16("by hand"),
            "x @ A + (x.sum(0) @ B + c) by hand",
            (100_000 * 16) ** 2,
        ),
        "symmetric-2-2": (
            "symmetric 2 -> 2, n = 256, 4 -> 4 channels",
            symmetric_2_2,
            "the 15 operations by hand",
            (256**2 * 4) ** 2,
        ),
    }


def peak_of(fn) -> int:
    """The most bytes held at once by the tensors that the operations of ``fn()`` return (memory is
    counted once per storage, from the operation that made it until its last tensor is freed, so a
    view costs nothing; work space inside a kernel is not seen)."""
    import weakref
    from collections import Counter

    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    class Live(TorchDispatchMode):
        live = peak = 0
        holders: Counter = Counter()  # storage address -> tensors alive on it

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in tree_flatten(out)[0]:
                if hasattr(t, "untyped_storage"):
                    storage = t.untyped_storage()
                    key, size = storage.data_ptr(), storage.nbytes()
                    if not Live.holders[key]:
                        Live.live += size
                        Live.peak = max(Live.peak, Live.live)
                    Live.holders[key] += 1
                    weakref.finalize(t, Live.release, key, size)
            return out

        @staticmethod
        def release(key, size):
            Live.holders[key] -= 1
            if not Live.holders[key]:
                Live.live -= size

    with Live():
        fn()
    return Live.peak


def memory(layer, x) -> tuple[int, int]:
    """The layer's parameters and buffers, and the peak of one forward pass (:func:`peak_of`)."""
    import torch

    state = sum(t.numel() * t.element_size() for t in list(layer.parameters()) + list(layer.buffers()))
    with torch.no_grad():
        return state, peak_of(lambda: layer(x))


def rows(repeat: int):
    import time

    import torch

    out = []
    for label, build, floor_name, dense_entries in cases().values():
        layer, x, floor = build()
        with torch.no_grad():
            start = time.perf_counter()
            layer(x)
            runs = repeat * (100 if time.perf_counter() - start < 1e-3 else 1)  # short calls: medians of many
            t_ours, t_floor = paired(lambda: layer(x), floor, runs, warmup=2)  # noqa: B023
            c_ours, c_floor = paired(lambda: layer(x), floor, runs, clock=time.process_time)  # noqa: B023
        state, peak = memory(layer, x)
        ratio = t_ours / t_floor
        out.append(
            [
                label,
                layer.path,
                fmt_seconds(t_ours),
                floor_name,
                fmt_seconds(t_floor),
                f"{ratio:.2f}",
                f"{fmt_seconds(c_ours)} / {fmt_seconds(c_floor)} = {c_ours / c_floor:.2f}",
                fmt_bytes(state),
                fmt_bytes(peak),
                fmt_bytes(4 * dense_entries),
                "<= 2x: " + ("met" if ratio <= 2 else "MISSED"),
            ]
        )
    return out


def main():
    args = torch_arguments(__doc__.splitlines()[0], repeat=7)
    import torch

    header = [
        "case",
        "path",
        "EquivariantLinear",
        "floor",
        "floor time",
        "ratio",
        "CPU time: layer / floor = ratio",
        "parameters + buffers",
        "peak of a pass",
        "one dense weight",
        "target",
    ]
    text = table(
        "EquivariantLinear against its floor (forward, float32, no gradients; median, warm)", header, rows(args.repeat)
    )
    text += (
        f"\ntorch {torch.__version__}, {torch.get_num_threads()} torch thread(s); medians of {args.repeat} "
        "alternating runs, 100 times as many for calls under a millisecond (the CPU times from as many "
        "more). The dense weight is the same map's as float32 (n^l c' x n^k c entries); no layer builds it.\n"
    )
    emit("nn", text, args.update_results)


if __name__ == "__main__":
    main()
