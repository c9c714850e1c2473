"""Reading weights files with many tensors: linear in the number of tensors.

    python benchmarks/bench_weights.py [--tensors 10000] [--quick]

For each format (``.npz``, ``.safetensors``, ``.pt``) a file of k small tensors (4 x 4) is
listed and every tensor's values loaded (what ``gdlcheck verify FILE`` reads), at k/10 and k
tensors. Linear work shows as a constant time per tensor; before the archive and header were
opened once per file, ``.npz`` and ``.safetensors`` took time quadratic in k (about 300 s at
10,000 tensors).  Then a checkpoint scan (``verify_weights``, cyclic group) of 200 circulants
512 x 512 beside its floor: reading the file and one exact compare per tensor.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, paired, results_option, table, timed  # noqa: E402

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


def scan_rows(k: int, n: int, repeat: int) -> list[list[str]]:
    """``verify_weights`` of a .safetensors file of ``k`` circulants ``n x n`` (cyclic group) beside
    its floor: safetensors' ``load_file`` and one vectorised exact compare per tensor, alternated."""
    import safetensors.numpy

    from gdlcheck import groups, verify_weights

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "circulants.safetensors")
        offsets = (np.arange(n)[:, None] - np.arange(n)[None, :]) % n
        rng = np.random.default_rng(0)
        safetensors.numpy.save_file({f"layer{i}.weight": rng.standard_normal(n)[offsets] for i in range(k)}, path)
        shift = np.roll(np.arange(n), 1)

        def floor():
            return all(bool((W[np.ix_(shift, shift)] == W).all()) for W in safetensors.numpy.load_file(path).values())

        g = groups.cyclic(n)
        rows = []
        # the default (auto: the proof, and the cheap trials that cross-check it), then the exact
        # check alone (--method exact): what the trials cost
        for method in ("auto", "exact"):
            t_ours, t_floor = paired(lambda m=method: verify_weights(path, g, method=m), floor, repeat)
            ratio = t_ours / t_floor
            rows.append(
                [
                    f"scan of {k} circulants {n} x {n} (.safetensors, cyclic), --method {method}",
                    fmt_seconds(t_floor),
                    fmt_seconds(t_ours),
                    f"{ratio:.2f}",
                    "met" if ratio <= 2 else "MISSED",
                ]
            )
    return rows


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
            rows.append(
                [
                    suffix,
                    f"{small:,}: {fmt_seconds(times[0])}",
                    f"{large:,}: {fmt_seconds(times[1])}",
                    f"{fmt_seconds(per[0])} / {fmt_seconds(per[1])}",
                    f"{per[1] / per[0]:.2f}",
                    "linear" if per[1] / per[0] < 2 else "NOT LINEAR",
                ]
            )
    text = table(
        "Reading every tensor of a weights file (list, then load each; median, in-process)",
        ["format", "k/10 tensors", "k tensors", "per tensor (k/10 / k)", "ratio", "growth"],
        rows,
    )
    text += "\n" + table(
        "A checkpoint scan beside reading it (issue 33: within 2x; median of alternated runs)",
        ["case", "load_file + exact compare", "verify_weights", "ratio", "target"],
        scan_rows(20 if args.quick else 200, 512, repeat),
    )
    emit("weights", text, update_results=args.update_results)


if __name__ == "__main__":
    main()
