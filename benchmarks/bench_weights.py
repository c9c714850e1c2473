"""Reading weights files with many tensors: linear in the number of tensors.

    python benchmarks/bench_weights.py [--tensors 10000] [--quick]

For each format (``.npz``, ``.safetensors``, ``.pt``) a file of k small tensors (4 x 4) is
listed and every tensor's values loaded (what ``gdlcheck verify FILE`` reads), at k/10 and k
tensors. Linear work shows as a constant time per tensor; before the archive and header were
opened once per file, ``.npz`` and ``.safetensors`` took time quadratic in k (about 300 s at
10,000 tensors).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, results_option, table, timed  # noqa: E402

from gdlcheck.inputs.weights import read_tensors  # noqa: E402


def write(folder: str, suffix: str, k: int) -> str:
    tensors = {f"layer{i}.weight": np.full((4, 4), float(i)) for i in range(k)}
    path = os.path.join(folder, f"w{k}{suffix}")
    if suffix == ".npz":
        np.savez(path, **tensors)
    elif suffix == ".safetensors":
        import safetensors.numpy

        safetensors.numpy.save_file(tensors, path)
    else:
        import torch

        torch.save({name: torch.from_numpy(a) for name, a in tensors.items()}, path)
    return path


def read_all(path: str) -> None:
    for tensor in read_tensors(path):
        tensor.load()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tensors", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="one repeat")
    results_option(parser)
    args = parser.parse_args()
    repeat = 1 if args.quick else 3
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for suffix in (".npz", ".safetensors", ".pt"):
            small, large = args.tensors // 10, args.tensors
            paths = [write(folder, suffix, k) for k in (small, large)]
            times = [timed(lambda p=p: read_all(p), repeat, warmup=0) for p in paths]
            per = [t / k for t, k in zip(times, (small, large))]
            rows.append([suffix, f"{small:,}: {fmt_seconds(times[0])}", f"{large:,}: {fmt_seconds(times[1])}",
                         f"{fmt_seconds(per[0])} / {fmt_seconds(per[1])}", f"{per[1] / per[0]:.2f}",
                         "linear" if per[1] / per[0] < 2 else "NOT LINEAR"])
    text = table("Reading every tensor of a weights file (list, then load each; median, in-process)",
                 ["format", "k/10 tensors", "k tensors", "per tensor (k/10 / k)", "ratio", "growth"], rows)
    emit("weights", text, update_results=args.update_results)


if __name__ == "__main__":
    main()
