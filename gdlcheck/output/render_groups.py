"""The text of groups: ``gdlcheck groups`` (the catalogue, or one group's order and generators)
and ``gdlcheck symmetries`` (the group a matrix commutes with, and the catalogue groups in it).
"""

from __future__ import annotations

from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table

from gdlcheck.groups import FAMILIES, PermGroup
from gdlcheck.output.render_parts import LONG_GENERATOR_WIDTH, ByWidth, Text, short_generator


def render_catalogue() -> ByWidth:
    """``gdlcheck groups``: the catalogue as a table, or one block per family where it would not fit."""
    return ByWidth(_catalogue)


def _catalogue(width: int):
    rows = [
        (
            family.name + (f" ({', '.join(family.aliases)})" if family.aliases else ""),
            family.needs,
            family.generators,
            family.order_text,
        )
        for family in FAMILIES.values()
    ]
    if width < 72:
        lines: list = [Text("groups", style="bold")]
        for label, needs, generators, order in rows:
            lines.append(Text(label, style="bold"))
            lines.append(Text(f"  needs {needs}; order {order}; generators: {generators}"))
        return RGroup(*lines)
    table = Table(title="groups", box=box.SIMPLE_HEAD)
    table.add_column("name")
    table.add_column("needs")
    table.add_column("generators")
    table.add_column("order")
    for row in rows:
        table.add_row(*map(Text, row))
    return table


def render_group(group: PermGroup) -> Table:
    """``gdlcheck groups NAME``: one group's size, order, transitivity and generators."""
    table = Table.grid(padding=(0, 2))
    table.add_row("name", Text(group.name))
    table.add_row("n", Text(str(group.n)))
    if group.shape:
        table.add_row("shape", Text("x".join(map(str, group.shape))))
    table.add_row("order", Text(group.order_text))
    table.add_row("transitive", Text("yes" if group.is_transitive else "no"))
    gens = [short_generator(g, LONG_GENERATOR_WIDTH) for g in group.generator_strings]
    table.add_row("generators", Text("\n".join(gens) if gens else "(none)"))
    return table


def render_symmetries(input_name: str, found) -> RGroup:
    """``gdlcheck symmetries``: order, generators and the catalogue groups contained."""
    g = found.group
    head = Table.grid(padding=(0, 2))
    head.add_row("input", Text(input_name))
    head.add_row("n", Text(str(g.n)))
    head.add_row("colours", Text(f"{found.colours} classes of equal entries (tol {found.tol:g})"))
    head.add_row("order", Text(g.order_text))
    head.add_row("transitive", Text("yes" if g.is_transitive else "no"))
    gens = g.generator_strings
    shown = [short_generator(x, LONG_GENERATOR_WIDTH) for x in gens[:12]]
    shown += [f"... {len(gens) - 12} more"] if len(gens) > 12 else []
    head.add_row("generators", Text("\n".join(shown) if gens else "(none: only the identity)"))
    head.add_row("contains", Text(", ".join(found.contains)))
    parts: list = [head]
    if found.near_ties:
        a, b = found.near_tie
        parts.append(
            Text(
                f"near tie: {found.near_ties} pair(s) of entries within tol of each other got different "
                f"colours (closest: {a!r} and {b!r}); the colours are cut greedily from the smallest value, "
                "so a permutation that moves one onto the other is not found: a smaller or larger --tol "
                "moves the cut",
                style="yellow",
            )
        )
    return RGroup(Panel(RGroup(*parts), title=Text("symmetries", style="bold"), title_align="left", box=box.ROUNDED))
