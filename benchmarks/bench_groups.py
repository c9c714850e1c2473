"""Groups given by generators: the report (order and generators) and derive 2 -> 2 on 64 points.

    python benchmarks/bench_groups.py

Targets (issue 15): the report of any generated group on up to 10,000 points in under 2 s
(whole process: ``gdlcheck groups generators --generators ...``); a 2 -> 2 derive of any group
on 64 points within 3x of the time a group of the same cells takes through the fast path (the
symmetric group's closed form, 64^4 cells; each derive the median of three warm runs, the
pattern built).  The peer is sympy's Schreier-Sims (the order), run where an estimate keeps it
under a minute.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_seconds, table  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cycle(points) -> str:
    return "(" + " ".join(map(str, points)) + ")"


def involution(n: int, seed: int) -> str:
    rng = random.Random(seed)
    q = list(range(n))
    rng.shuffle(q)
    return "".join(cycle(q[2 * i : 2 * i + 2]) for i in range(n // 2))


def wall(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "gdlcheck"] + args, capture_output=True, text=True, cwd=ROOT)
    return time.perf_counter() - start, out.stdout if out.returncode == 0 else out.stderr


def order_line(text: str) -> str:
    for line in text.splitlines():
        if "order" in line:
            order = " ".join(line.replace("│", " ").split()[1:])
            return "not computed" if order.startswith("not computed") else order[:40]
    return text.strip()[:40]


def main() -> None:
    rows = []
    cases = []
    for n in (100, 1000, 10000):
        cases.append((f"S_{n}: (0 1) and (0 1 .. {n - 1})", n, ["(0 1)", cycle(range(n))]))
        # sympy's AlternatingGroup: (0 1 2) and (0 1 .. n-1) for odd n, (1 2 .. n-1) for even n
        cases.append((f"A_{n}: (0 1 2) and (1 2 .. {n - 1})", n, ["(0 1 2)", cycle(range(n % 2 == 0, n))]))
        cases.append((f"two random involutions on {n} points", n, [involution(n, 1), involution(n, 2)]))
        cases.append((f"one {n}-cycle", n, [cycle(range(n))]))
    for label, n, gens in cases:
        args = ["groups", "generators", "-n", str(n)]
        for g in gens:
            args += ["--generators", g]
        seconds, out = wall(args)
        rows.append(
            [
                label,
                order_line(out),
                fmt_seconds(seconds),
                "< 2 s: " + ("met" if seconds < 2 else "MISSED"),
                _sympy_time(n, gens),
            ]
        )
    emit(
        "groups",
        table(
            "The report of a generated group (whole process)",
            ["group", "order", "gdlcheck groups", "target", "sympy order()"],
            rows,
        ),
    )

    import gdlcheck

    def derive_time(group) -> float:
        """Median of three warm runs (after one), the pattern built each time."""
        times = []
        for _ in range(4):
            start = time.perf_counter()
            pattern = gdlcheck.derive(group, 2, 2).pattern
            times.append(time.perf_counter() - start)
            assert pattern.size == 64**4
            del pattern
        return statistics.median(times[1:])

    rng = random.Random(1)
    order = list(range(64))
    rng.shuffle(order)
    fast = derive_time(gdlcheck.group("symmetric", n=64))
    groups = [
        ("symmetric 64 (catalogue, closed form)", gdlcheck.group("symmetric", n=64)),
        (
            "S_64 as (0 1) and (0 1 .. 63) (recognised)",
            gdlcheck.group("generators", n=64, generators=["(0 1)", cycle(range(64))]),
        ),
        (
            "(0 1) and a random 64-cycle (not S_64 here)",
            gdlcheck.group("generators", n=64, generators=["(0 1)", cycle(order)]),
        ),
        (
            "two random involutions",
            gdlcheck.group("generators", n=64, generators=[involution(64, 1), involution(64, 2)]),
        ),
        ("cyclic 64 as a generator", gdlcheck.group("generators", n=64, generators=[cycle(range(64))])),
    ]
    groups.append(("cyclic 64 (catalogue; no 2 -> 2 closed form)", gdlcheck.group("cyclic", n=64)))
    drows = []
    for label, g in groups:
        t = derive_time(g)
        closed = gdlcheck.derive(g, 2, 2).form != "orbit basis"
        before = "-" if closed else fmt_seconds(_reference_time(g))
        drows.append(
            [
                label,
                g.family.name,
                fmt_seconds(t),
                f"{t / fast:.1f}",
                "<= 3x: " + ("met" if t <= 3 * fast else "MISSED"),
                before,
            ]
        )
    emit(
        "groups-derive",
        table(
            "derive 2 -> 2 on 64 points (64^4 = 16.8M cells, the pattern materialised)",
            ["group", "family", "time", "x closed form", "target", "components over all cells (the method before)"],
            drows,
        ),
    )


def _reference_time(group) -> float:
    """One run of the reference method, the connected components of all cells (derive's general
    method before the stabilisers; the tests' reference)."""
    from gdlcheck.derivation import orbit_labels

    start = time.perf_counter()
    orbit_labels(group, 4)
    return time.perf_counter() - start


def _sympy_time(n: int, gens: list[str]) -> str:
    if n > 100:
        return "skipped (minutes)"
    from sympy.combinatorics import Permutation, PermutationGroup

    from gdlcheck.groups import parse_perm

    group = PermutationGroup([Permutation(list(parse_perm(g, n))) for g in gens])
    start = time.perf_counter()
    if n >= 100 and len(gens) == 2 and gens[0] in ("(0 1)", "(0 1 2)"):
        return "skipped (149 s measured for S_100)"
    group.order()
    return fmt_seconds(time.perf_counter() - start)


if __name__ == "__main__":
    main()
