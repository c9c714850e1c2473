"""Deriving equivariant bases: gdlcheck's orbits against the methods written without thinking.

    python benchmarks/bench_derive.py [--quick] [--cap 10]

For each case: the dimension, gdlcheck's time to the materialised int32 pattern
(``derive(g, k, l).pattern``; median of several runs, in-process, warm), its peak memory and
that peak over the pattern's own size (4 bytes a cell), and beside it the numpy SVD null space
of the stacked constraints ``kron(I, R) - kron(Q^T, I)`` (``Q``, ``R`` the permutation acting on
the input and output tensors; for 1 -> 1 that is ``kron(I, P) - kron(P^T, I)``) and sympy's
exact ``nullspace()`` of the same integer matrix, on the sizes where they finish within
``--cap`` seconds.  Whether a naive run fits is estimated from the last size it ran on
(cubic in the unknowns, linear in the generators), or for the first size from a calibration
SVD timed at start; a skipped cell says so.  Every naive dimension is checked against
gdlcheck's.  EMLP's published figures (issue 6) are a column; EMLP itself is run only if it
happens to be importable, and is never a dependency.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import emit, fmt_bytes, fmt_seconds, peak_memory, results_option, table, timed  # noqa: E402

from gdlcheck import groups  # noqa: E402
from gdlcheck.derivation import derive  # noqa: E402

# EMLP's solve times from issue 6 (2 cores, CPU): (group, in, out, n) -> seconds (None: it fails)
EMLP = {
    ("symmetric", 1, 1, 32): 9.4,
    ("symmetric", 1, 1, 64): 34.0,
    ("symmetric", 1, 1, 128): ">120 s",
    ("cyclic", 1, 1, 64): 10.0,
    ("cyclic", 1, 1, 128): "no convergence",
    ("dihedral", 1, 1, 64): 66.0,
    ("symmetric", 2, 2, 12): 46.0,
    ("symmetric", 2, 2, 16): ">120 s",
}

# Targets of issue 6 / docs/design.md section 7: (group, in, out, n) -> seconds
TARGETS = {("symmetric", 1, 1, 64): 0.030, ("symmetric", 2, 2, 48): 10.0, ("symmetric", 2, 2, 64): 30.0}
MEMORY_TARGET = 4.0


def constraints(group, in_order: int, out_order: int) -> np.ndarray:
    """The stacked ``kron(I, R) - kron(Q^T, I)`` over the generators (int8, ``gens*N x N``)."""
    n = group.n
    blocks = []
    for s in group.gen_arrays():
        P = np.zeros((n, n), dtype=np.int8)
        P[s, np.arange(n)] = 1  # P[s[j], j] = 1
        Q = np.ones((1, 1), dtype=np.int8)
        for _ in range(in_order):
            Q = np.kron(Q, P)
        R = np.ones((1, 1), dtype=np.int8)
        for _ in range(out_order):
            R = np.kron(R, P)
        blocks.append(np.kron(np.eye(len(Q), dtype=np.int8), R) - np.kron(Q.T, np.eye(len(R), dtype=np.int8)))
    return np.vstack(blocks)


def naive_svd(group, in_order: int, out_order: int) -> int:
    C = constraints(group, in_order, out_order).astype(np.float64)
    sv = np.linalg.svd(C, compute_uv=False)
    return int(C.shape[1] - np.sum(sv > 1e-9 * max(float(sv.max()), 1.0)))


def naive_sympy(group, in_order: int, out_order: int) -> int:
    import sympy

    return len(sympy.Matrix(constraints(group, in_order, out_order).tolist()).nullspace())


def run_emlp(name: str, in_order: int, out_order: int, n: int):  # pragma: no cover - emlp is not installed here
    import emlp.groups as eg
    from emlp.reps import V

    G = {"symmetric": eg.S, "cyclic": eg.Z, "dihedral": eg.D}[name](n)
    rep_in, rep_out = V(G) ** in_order, V(G) ** out_order
    start = time.perf_counter()
    (rep_in >> rep_out).equivariant_basis()
    return time.perf_counter() - start


def calibrate_svd() -> float:
    """Seconds per ``m * N^2`` of an ``m x N`` SVD (singular values only) on this machine."""
    a = np.random.default_rng(0).standard_normal((1024, 512))
    np.linalg.svd(a, compute_uv=False)
    start = time.perf_counter()
    np.linalg.svd(a, compute_uv=False)
    return (time.perf_counter() - start) / (1024 * 512**2)


class Estimator:
    """Predicts a naive method's seconds from its last run on the same family (cubic in N)."""

    def __init__(self, first_guess):
        self.first_guess = first_guess
        self.last: dict[str, tuple[int, int, float]] = {}

    def predict(self, family: str, N: int, gens: int) -> float:
        if family in self.last:
            N0, g0, t0 = self.last[family]
            return max(t0, 1e-3) * (N / N0) ** 3 * gens / g0
        return self.first_guess(N, gens)

    def record(self, family: str, N: int, gens: int, seconds: float) -> None:
        self.last[family] = (N, gens, seconds)


def run_case(case, repeat, cap, estimators, has_emlp):
    label, family, name, group, k, l = case
    n = group.n
    d = derive(group, k, l)
    dim = d.dimension
    t = timed(lambda: derive(group, k, l).pattern, repeat)
    mem = peak_memory(lambda: derive(group, k, l).pattern)
    pattern_bytes = 4 * n ** (k + l)
    ratio = mem / pattern_bytes
    cells = [label, str(dim), fmt_seconds(t), fmt_bytes(mem), f"{ratio:.1f}"]
    N = n ** (k + l)
    gens = max(1, len(group.gens))
    naive_times = []
    for method, key in ((naive_svd, "svd"), (naive_sympy, "sympy")):
        est = estimators[key].predict(family, N, gens)
        if not group.gens or est > cap:
            why = "no generators" if not group.gens else f"est. {est:.3g} s"
            cells += [f"skipped ({why})", "-"]
            continue
        runs = []
        while True:  # once if slow; else the median of 3 (a first BLAS call is noisy)
            start = time.perf_counter()
            got = method(group, k, l)
            runs.append(time.perf_counter() - start)
            if runs[0] > 2.0 or len(runs) == 3:
                break
        elapsed = float(np.median(runs))
        estimators[key].record(family, N, gens, elapsed)
        if got != dim:
            raise SystemExit(f"{label}: {method.__name__} found dimension {got}, gdlcheck {dim}")
        naive_times.append(elapsed)
        cells += [fmt_seconds(elapsed), f"{elapsed / t:,.0f}x"]
    emlp = EMLP.get((name, k, l, n))
    if has_emlp and name in ("symmetric", "cyclic", "dihedral"):  # pragma: no cover
        try:
            emlp = run_emlp(name, k, l, n) if N <= 4096 else emlp
        except Exception as err:  # report, keep the table
            emlp = f"error: {type(err).__name__}"
    if isinstance(emlp, float):
        cells += [fmt_seconds(emlp), f"{emlp / t:,.0f}x"]
    else:
        cells += [emlp or "-", "-"]
    verdicts = []
    target = TARGETS.get((name, k, l, n))
    if target is None and n == 4096 and (k, l) == (1, 1):
        target = 4.0
    if target is not None:
        verdicts.append(f"< {fmt_seconds(target)}: {'met' if t < target else 'MISSED'}")
    if pattern_bytes >= 1 << 20:  # below ~1 MiB the ratio is Python objects, not arrays
        verdicts.append(f"mem <= {MEMORY_TARGET:g}x: {'met' if ratio <= MEMORY_TARGET else 'MISSED'}")
    cells.append("; ".join(verdicts) or "-")
    return cells, t, ratio


def regular_graph(n: int, degree: int) -> np.ndarray:
    import igraph

    random.seed(0)  # igraph draws from Python's random module
    g = igraph.Graph.K_Regular(n, degree)
    A = np.zeros((n, n))
    edges = np.array(g.get_edgelist())
    A[edges[:, 0], edges[:, 1]] = A[edges[:, 1], edges[:, 0]] = 1
    return A


def cycle_graph(n: int) -> np.ndarray:
    A = np.zeros((n, n))
    i = np.arange(n)
    A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    return A


def bliss_seconds(A: np.ndarray) -> float:
    """BLISS's own time on the graph: igraph's generators and group size, graph built beforehand."""
    import igraph

    graph = igraph.Graph.Adjacency((A != 0).tolist(), mode="undirected")
    start = time.perf_counter()
    graph.automorphism_group()
    graph.count_automorphisms()
    return time.perf_counter() - start


def build_cases(quick: bool):
    sizes = [16, 32, 64, 256, 1024] if quick else [16, 32, 64, 256, 1024, 2048, 4096]
    cases = []
    for name in ("cyclic", "dihedral", "symmetric"):
        for n in sizes:
            cases.append((f"{name} 1 -> 1, n = {n}", f"{name}11", name, groups.build_group(name, n=n), 1, 1))
    for n in [4, 6, 12, 16] if quick else [4, 6, 12, 16, 24, 48, 64]:
        cases.append(
            (f"symmetric 2 -> 2, n = {n}", "symmetric22", "symmetric", groups.build_group("symmetric", n=n), 2, 2)
        )
    for side in [4, 8, 32] if quick else [4, 8, 32, 64]:
        cases.append((f"p4 1 -> 1, {side}x{side}", "p4", "p4", groups.build_group("p4", shape=f"{side}x{side}"), 1, 1))
    notes = []
    for what, A in (("a random 3-regular graph", regular_graph(1000, 3)), ("the 1000-cycle", cycle_graph(1000))):
        try:
            start = time.perf_counter()
            g = groups.build_group("automorphisms", graph=A)
            built = time.perf_counter() - start
        except Exception as err:  # report, but keep the rest of the table
            print(f"automorphism case skipped: {err}", file=sys.stderr)
            continue
        cases.append(
            (f"automorphisms of {what}, 1000 nodes (order {g.order}), 1 -> 1", "aut", "automorphisms", g, 1, 1)
        )
        notes.append(
            f"gdlcheck finds the automorphism group of {what} (order {g.order}, {len(g.gens)} generators) "
            f"from its dense adjacency matrix in {fmt_seconds(built)}, outside the derive time; BLISS "
            f"(igraph, the plain graph, generators and count) {fmt_seconds(bliss_seconds(A))}."
        )
    return cases, notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument(
        "--cap",
        type=float,
        default=10.0,
        help="seconds a naive method may take (estimated; 10 keeps the whole run within minutes)",
    )
    results_option(parser)
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    c = calibrate_svd()
    estimators = {
        "svd": Estimator(lambda N, g: c * g * N**3),
        # sympy's exact elimination: ~25x numpy's SVD at N = 256, cubic beyond (measured)
        "sympy": Estimator(lambda N, g: 25 * c * g * N**3 + 0.05),
    }
    try:
        import emlp  # noqa: F401

        has_emlp = True
    except ImportError:
        has_emlp = False
    cases, notes = build_cases(args.quick)
    header = [
        "case",
        "dimension",
        "gdlcheck (pattern)",
        "peak memory",
        "x pattern",
        "numpy SVD",
        "ratio",
        "sympy nullspace",
        "ratio",
        "EMLP (earlier run)",
        "ratio",
        "target",
    ]
    rows = []
    for case in cases:
        cells, _, _ = run_case(case, repeat, args.cap, estimators, has_emlp)
        rows.append(cells)
        print(" | ".join(cells), file=sys.stderr, flush=True)
    note = (
        "\nTimes are `derive(group, k, l).pattern` (the int32 pattern materialised), median of "
        f"{repeat} warm runs; peak memory is tracemalloc's over one such call. The naive methods run once "
        f"(the median of 3 when under 2 s), capped at an estimated {args.cap:g} s. "
    )
    note += (
        "EMLP is importable here and was run."
        if has_emlp
        else "EMLP is not installed here: its column holds EMLP's solve times from an earlier run on a machine "
        "like this one (2 cores, CPU; plus 1.3 s to import)."
    )
    note += "\n\n" + "\n".join(f"- {x}" for x in notes) + "\n"
    emit("derive", table("Derive (median, in-process, warm)", header, rows) + note, update_results=args.update_results)


if __name__ == "__main__":
    main()
