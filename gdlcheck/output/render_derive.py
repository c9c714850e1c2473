"""The text of ``derive`` and ``project``: the form a symmetry forces on a layer (its pattern of
shared parameters, or its named basis), and the nearest matrix of that form to a given one.
"""

from __future__ import annotations

import numpy as np
from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table

from gdlcheck.groups import PermGroup
from gdlcheck.output.explain import partition_meaning
from gdlcheck.output.render_matrices import NumberView, PatternView
from gdlcheck.output.render_parts import Text, group_line


def _names_text(d) -> str:
    dim = d.dimension
    if dim <= 16:
        return ", ".join(d.name_of(k) for k in range(dim))
    return ", ".join([d.name_of(k) for k in range(8)] + ["..."] + [d.name_of(k) for k in range(dim - 4, dim)])


def render_derive(d, explain_lines: list[str] | None = None) -> RGroup:
    """The derive report: group, orders, form, dimension and parameter counts, the pattern
    (order 1 -> 1) or the named basis (symmetric group), the channel block form, and the
    derivation with ``--explain``."""
    g = d.group
    head = Table.grid(padding=(0, 2))
    head.add_row("group", group_line(g))
    head.add_row("orders", Text(f"{d.in_order} -> {d.out_order}"))
    head.add_row("form", Text(f"{d.form}: {d.formula}"))
    head.add_row("dimension", Text(str(d.dimension)))
    channels = (d.channels_in, d.channels_out) != (1, 1)
    head.add_row(
        "parameters",
        Text(
            f"{d.unconstrained_parameters} -> {d.free_parameters}"
            + (f"  ({d.dimension} x {d.channels_in} x {d.channels_out})" if channels else "")
        ),
    )
    head.add_row("names", Text(_names_text(d)))
    if channels:
        out_shape = " x ".join(["n"] * d.out_order) or "1"
        in_shape = " x ".join(["n"] * d.in_order) or "1"
        head.add_row(
            "channels",
            Text(
                f"W = sum_o B_o (x) Theta_o over the {d.dimension} orbits o: "
                f"B_o is the 0/1 ({out_shape}) x ({in_shape}) basis element, "
                f"Theta_o a {d.channels_out} x {d.channels_in} matrix of free parameters "
                f"(W is (n^{d.out_order}*{d.channels_out}) x (n^{d.in_order}*{d.channels_in}))"
            ),
        )
    parts: list = [head]
    if (d.in_order, d.out_order) == (1, 1):
        parts.append(PatternView(d))
    elif d.partitions is not None:
        basis = Table(box=box.SIMPLE_HEAD, show_edge=False)
        basis.add_column("parameter")
        basis.add_column("partition")
        basis.add_column("index pattern")
        for k, r in enumerate(d.blocks):
            basis.add_row(Text(d.name_of(k)), Text(d.partitions[k]), Text(partition_meaning(r, d.out_order)))
        parts.append(basis)
    if explain_lines:
        parts.append(Text("derivation", style="bold"))
        parts.extend(Text(line) for line in explain_lines)
    return RGroup(Panel(RGroup(*parts), title=Text("derive", style="bold"), title_align="left", box=box.ROUNDED))


def render_project(input_name: str, group: PermGroup, P: np.ndarray, distance: float) -> RGroup:
    """``gdlcheck project``: the group, the relative distance and the nearest equivariant matrix,
    as a table of numbers (elided in the middle like the sharing pattern)."""
    head = Table.grid(padding=(0, 2))
    head.add_column(no_wrap=True)
    head.add_column(overflow="fold")
    head.add_row("input", Text(input_name))
    head.add_row("group", group_line(group))
    head.add_row("distance", Text(f"{distance:.6g} (relative Frobenius, |W - P| / |W|)"))
    caption = Text(f"nearest equivariant matrix P ({P.shape[0]} x {P.shape[1]}, orbit averages):", style="bold")
    return RGroup(
        Panel(
            RGroup(head, caption, NumberView(P)),
            title=Text("project", style="bold"),
            title_align="left",
            box=box.ROUNDED,
        )
    )
