"""Derive's prose and plain-text forms: ``--explain``, LaTeX, CSV, the meaning of a partition.

The sentence each generator's constraint is written in, and what it names about the generator,
come from its role and its family's record (:mod:`gdlcheck.groups.family`); this module puts
the sentences together.
"""

from __future__ import annotations

import re

import numpy as np

from gdlcheck.derivation import Derived
from gdlcheck.derivation.closed_forms import partition_name
from gdlcheck.groups import cycle_string

# Orbits listed one by one in --explain only below this many cells.
_EXPLAIN_CELLS = 1 << 20


def pattern_csv(pattern: np.ndarray) -> str:
    """The 1 -> 1 pattern as CSV, entry = parameter index (itself an equivariant matrix)."""
    return "".join(",".join(map(str, row)) + "\n" for row in pattern.tolist())


def latex_name(name: str) -> str:
    """``theta_3`` -> ``\\theta_{3}``; ``theta_1_0`` -> ``\\theta_{1,0}``; ``alpha + beta`` -> ``\\alpha + \\beta``."""
    greek = {"theta", "alpha", "beta", "gamma", "lambda"}

    def one(m):
        base, sub = m.group(1), m.group(2)
        base = "\\" + base if base in greek else base
        return f"{base}_{{{sub.replace('_', ',')}}}" if sub is not None else base

    return re.sub(r"([A-Za-z]+)(?:_(\d+(?:_\d+)*|\w+))?", one, name)


def latex_matrix(matrix: list[list[str]]) -> str:
    rows = [" & ".join(latex_name(x) for x in row) + r" \\" for row in matrix]
    return "\\begin{bmatrix}\n" + "\n".join(rows) + "\n\\end{bmatrix}\n"


def latex_form(d: Derived, limit: int = 32) -> str:
    """A ``bmatrix`` of the 1 -> 1 form; past ``limit`` rows the middle is elided with dots."""
    n = d.n
    if (d.in_order, d.out_order) != (1, 1):  # the command line offers latex for order 1 -> 1 only
        raise ValueError(f"a LaTeX matrix shows an order 1 -> 1 form, not {d.in_order} -> {d.out_order}")
    matrix = d.matrix_strings() if n <= limit else None
    if matrix is not None:
        return latex_matrix(matrix)
    half = limit // 4
    idx = list(range(half)) + list(range(n - half, n))
    block = d.pattern_block(idx, idx)
    rows = []
    for a, _ in enumerate(idx):
        cells = [latex_name(d.entry(int(k))) for k in block[a]]
        cells.insert(half, r"\cdots")
        rows.append(" & ".join(cells) + r" \\")
        if a == half - 1:
            dots = [r"\vdots"] * half + [r"\ddots"] + [r"\vdots"] * half
            rows.append(" & ".join(dots) + r" \\")
    return "\\begin{bmatrix}\n" + "\n".join(rows) + "\n\\end{bmatrix}\n"


def partition_meaning(rgs: tuple[int, ...], out_order: int) -> str:
    """``(0, 1, 0, 1)`` with 2 output slots -> ``i1 = j1, i2 = j2`` (blocks pairwise distinct)."""
    names = [f"i{t + 1}" for t in range(out_order)] + [f"j{t + 1}" for t in range(len(rgs) - out_order)]
    blocks: dict[int, list[str]] = {}
    for slot, b in enumerate(rgs):
        blocks.setdefault(b, []).append(names[slot])
    parts = [" = ".join(blocks[b]) for b in sorted(blocks)]
    if len(parts) == 1:
        return parts[0] if len(rgs) > 1 else "every " + parts[0]
    return ", ".join(p for p in parts) + " (blocks pairwise distinct)" if len(parts) > 2 else " != ".join(parts)


def explain(d: Derived) -> list[str]:
    """The derivation as the texts' proofs write it: each generator's constraint, then the orbits."""
    n, m = d.n, d.order
    tensor = "W" if (d.in_order, d.out_order) == (1, 1) else "T"
    slots = _slot_names(d)
    lines = []
    if m == 0:
        return ["A map from scalars to scalars is a single number w_0: every permutation leaves it alone."]
    if tensor == "W":
        lines.append(
            "W commutes with a permutation s (P[s(j), j] = 1) exactly when W[s(i), s(j)] = W[i, j] for all "
            "i, j; it commutes with the whole group exactly when it does so for each generator:"
        )
    else:
        lines.append(
            f"A map from order-{d.in_order} to order-{d.out_order} tensors is an array "
            f"T[{', '.join(slots)}] (output indices first); it commutes with s exactly when "
            f"T[{', '.join(f's({x})' for x in slots)}] = T[{', '.join(slots)}], so for each generator:"
        )
    if not d.group.gens:
        lines.append("- (no generators): nothing ties entries together.")
    shown = d.group.gens[:8]
    for k, g in enumerate(shown):
        text = _constraint_text(d, k, slots)
        label = cycle_string(g) if n <= 40 else f"(a permutation of {n} points)"
        lines.append(f"- s = {label}: {text}")
    if len(d.group.gens) > len(shown):
        lines.append(f"- ... and {len(d.group.gens) - len(shown)} more generators of the same kind.")
    lines.extend(_conclusion(d))
    lines.extend(_orbit_lines(d))
    extra = (
        (
            f" With {d.channels_in} input and {d.channels_out} output channels each basis element B_o gets a "
            f"{d.channels_out} x {d.channels_in} block Theta_o: W = sum_o B_o (x) Theta_o, "
            f"{d.free_parameters} free parameters."
        )
        if (d.channels_in, d.channels_out) != (1, 1)
        else ""
    )
    lines.append(
        f"The constraints tie the {d.cells} entries into {d.dimension} orbits, one free parameter each: "
        f"{d.form}.{extra}"
    )
    return lines


def _slot_names(d: Derived) -> list[str]:
    if (d.in_order, d.out_order) == (1, 1):
        return ["i", "j"]
    return [f"i{t + 1}" for t in range(d.out_order)] + [f"j{t + 1}" for t in range(d.in_order)]


def _constraint_text(d, k: int, slots: list[str]) -> str:
    """The constraint generator ``k`` imposes, in the words its family gives its role."""
    g = d.group.gens[k]
    role = d.group.role(k)
    matrix, tensor = role.sentence(d.group.family)
    fields = {
        "T": "W" if slots == ["i", "j"] else "T",
        "slots": ", ".join(slots),
        "shifted": ", ".join(f"{x}+1" for x in slots),
        "negated": ", ".join("-" + x for x in slots),
        "moved_slots": ", ".join(f"s({x})" for x in slots),
        **role.fields(g, d.group.shape, slots),
    }
    return (matrix if fields["T"] == "W" else tensor).format(**fields)


def _conclusion(d: Derived) -> list[str]:
    one = (d.in_order, d.out_order) == (1, 1)
    if d.partitions is not None and d.n > 1:
        if one:
            return [
                "Together the generators give every permutation (2-transitive), so W[i, i] = W[j, j] for all "
                "i, j (alpha + beta) and W[i, k] = W[j, l] for all i != k, j != l (beta): W = alpha*I + beta*11^T."
            ]
        return [
            "Together the generators give every permutation, which moves an index tuple to any other tuple "
            "with the same pattern of equal indices: the orbits are the set partitions of the index slots "
            "(slot 0 is the first output index; blocks hold equal indices)."
        ]
    family = d.group.family
    if one and family is not None and family.conclusion:
        return [family.conclusion]
    return []


def _orbit_lines(d: Derived, shown: int = 6, per_orbit: int = 6) -> list[str]:
    if d.partitions is not None and d.blocks is not None and d.order > 2:
        lines = ["The orbits (basis elements):"]
        rgs_all = d.blocks
        for k, r in enumerate(rgs_all[:16]):
            lines.append(f"  w_{k}: {partition_name(r)}  {partition_meaning(r, d.out_order)}")
        if len(rgs_all) > 16:
            lines.append(f"  ... {len(rgs_all) - 16} more")
        return lines
    if d.cells > _EXPLAIN_CELLS:
        return []
    pattern = d.pattern.reshape(-1)
    sizes = np.bincount(pattern, minlength=d.dimension)
    order = np.argsort(pattern, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    lines = ["The orbits:"]
    for k in range(min(d.dimension, shown)):
        flat = order[starts[k] : min(starts[k + 1], starts[k] + per_orbit)]
        cells = [np.unravel_index(int(f), (d.n,) * d.order) for f in flat]
        text = ", ".join("(" + ", ".join(str(int(x)) for x in c) + ")" for c in cells)
        more = ", ..." if sizes[k] > per_orbit else ""
        lines.append(f"  {d.entry(k)} ({sizes[k]} entries): {text}{more}")
    if d.dimension > shown:
        lines.append(f"  ... {d.dimension - shown} more orbits")
    return lines
