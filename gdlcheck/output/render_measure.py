"""``gdlcheck measure``: a table of the model's submodules in the order they run, each with the
equivariance error of its output and its own contribution, worst over the group elements."""

from __future__ import annotations

from rich import box
from rich.console import Group as RGroup
from rich.console import RenderableType
from rich.table import Table

from gdlcheck.output.render_matrices import number_text
from gdlcheck.output.render_parts import Text

# a value under this is rounding of float64 arithmetic, shown as 0 would mislead and its digits vary
MEASURE_ROUNDING = 1e-12


def _value(v: float | None) -> str:
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if v < MEASURE_ROUNDING:
        return "< 1e-12"
    return number_text(v)


def render_measure(measured) -> RGroup:
    """The table, then the line that names the largest own contribution."""
    title = Text(
        f"{measured.input}: {len(measured.layers)} layer(s) against {measured.group.describe()}, on "
        f"{measured.data} {' x '.join(map(str, measured.data_shape))} (points on axis "
        f"{measured.points_axis}){'' if measured.graph is None else ' with the graph ' + measured.graph}, "
        f"{len(measured.elements)} group elements",
        style="bold",
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("layer", overflow="fold", min_width=10)
    table.add_column("kind", overflow="fold")
    table.add_column("output", no_wrap=True)
    table.add_column("error", justify="right", no_wrap=True)
    table.add_column("own contribution", justify="right", no_wrap=True)
    largest = measured.largest
    for m in measured.layers:
        name = "  " * max(0, m.depth - 1) + (m.path or "(model)")
        style = "bold red" if largest is not None and m is largest else None
        table.add_row(Text(name, style=style), Text(m.kind), m.moves, _value(m.error), _value(m.own_contribution))
    lines: list[RenderableType] = [title, table]
    lines.append(
        Text(
            "error: |m(gx) - g m(x)| / |g m(x)| for each layer m in the model's run; own contribution: "
            "the same with the layer's input made exact, m(g u) against g m(u); worst over the elements",
            style="dim",
        )
    )
    if largest is not None:
        lines.append(
            Text(
                f"largest own contribution: {largest.path} ({largest.kind}), {_value(largest.own_contribution)}",
                style="bold",
            )
        )
    else:
        lines.append(Text("no layer contributes: the model keeps the symmetry on this data", style="bold"))
    return RGroup(*lines)
