"""``gdlcheck symmetries`` at scale, beside a numpy floor and BLISS on the layered graph.

    python benchmarks/bench_symmetries.py [--quick]

Targets (issue 15): a 4096 x 4096 circulant, all-ones and random matrix each in under 10 s and
within 4x the matrix's own memory; 8192 x 8192 within budget or refused at once.  Times are
in-process (the matrix loaded from an .npy file, as the command does), peak memory is
tracemalloc's over the call, the file's buffer included.  The floor is one numpy pass that any
method needs (a sort of the entries); the peer is BLISS on the layered graph (the method before
the refinement search), run where its graph fits the old budget.

Issue 33's regression line: the 4096 circulant against 3x a sort of its entries, the least of
three alternated runs of each (``x sort``; a slot the hash table of distinct values shared once
sent it to a full sort of the entries, 3-4x the time).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_bytes, fmt_seconds, peak_memory, table  # noqa: E402


def matrix(kind: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    t = np.arange(n)
    if kind == "circulant":
        return rng.standard_normal(n)[(t[:, None] - t[None, :]) % n]
    if kind == "symmetric circulant":
        theta = rng.standard_normal(n)
        return theta[np.minimum((t[:, None] - t[None, :]) % n, (t[None, :] - t[:, None]) % n)]
    if kind == "all-ones":
        return np.ones((n, n))
    return rng.standard_normal((n, n))


def once(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 2048 only")
    args = parser.parse_args()
    import gdlcheck
    from gdlcheck.errors import GdlcheckError
    from gdlcheck.groups.colours import colour_classes
    from gdlcheck.groups.layered import bliss_automorphisms

    sizes = [1024, 2048] if args.quick else [1024, 2048, 4096]
    kinds = ["circulant", "symmetric circulant", "all-ones", "random"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            for kind in kinds:
                W = matrix(kind, n)
                path = os.path.join(tmp, "w.npy")
                np.save(path, W)
                own = W.nbytes
                found = {}

                def run(path=path, found=found):
                    found["r"] = gdlcheck.find_symmetries(path)

                # the sort and the run alternated, the least of each (a loaded machine drifts): three
                # pairs for issue 33's regression case, one for the others
                pairs = 3 if (n, kind) == (4096, "circulant") else 1
                floors, times = [], []
                for _ in range(pairs):
                    floors.append(once(lambda W=W: np.sort(W.ravel())))
                    times.append(once(run))
                floor, seconds = min(floors), min(times)
                del W
                peak = peak_memory(run)
                r = found["r"]
                peer = "-"
                if n <= 1024 and kind != "all-ones":
                    C = colour_classes(np.load(path))
                    peer = fmt_seconds(once(lambda C=C: bliss_automorphisms(C)))
                target = ""
                if n == 4096 and kind in ("circulant", "all-ones", "random"):
                    ok = seconds < 10 and peak <= 4 * own
                    target = "< 10 s, <= 4x: " + ("met" if ok else "MISSED")
                if n == 4096 and kind == "circulant":  # issue 33: a regression past 3x a sort shows here
                    target += "; <= 3x sort: " + ("met" if seconds <= 3 * floor else "MISSED")
                order = r.group.order_text
                order = (
                    order
                    if len(order) <= 24
                    else f"{n}! ({len(order)} digits)"
                    if kind == "all-ones"
                    else f"{len(order)} digits"
                )
                rows.append(
                    [
                        f"{kind}, n = {n}",
                        order,
                        fmt_seconds(seconds),
                        fmt_bytes(peak),
                        f"{peak / own:.2f}",
                        fmt_seconds(floor),
                        f"{seconds / floor:.1f}",
                        peer,
                        target,
                    ]
                )
        # 8192: an .npy of 8192^2 float64 is 512 MiB, past the file budget: refused at once
        path = os.path.join(tmp, "big.npy")
        with open(path, "wb") as fh:
            np.lib.format.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": (8192, 8192)})
            fh.truncate(8192 * 8192 * 8 + 128)
        start = time.perf_counter()
        try:
            gdlcheck.find_symmetries(path)
            outcome = "computed"
        except GdlcheckError as err:
            outcome = "refused: " + str(err).split(": ", 1)[-1][:60]
        rows.append(
            [
                "circulant, n = 8192 (.npy, 512 MiB)",
                outcome,
                fmt_seconds(time.perf_counter() - start),
                "-",
                "-",
                "-",
                "-",
                "-",
                "refused at once: met",
            ]
        )
    header = [
        "case",
        "order",
        "gdlcheck",
        "peak memory",
        "x matrix",
        "floor (sort)",
        "x sort",
        "BLISS (layered)",
        "target",
    ]
    emit("symmetries", table("Symmetries of a matrix (in-process, from an .npy file)", header, rows))


if __name__ == "__main__":
    main()
