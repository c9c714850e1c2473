"""The text of ``kinds``: the reference of the spec format, every layer kind and what it
computes, or one kind's keys (type, default, meaning) and an example.
"""

from __future__ import annotations

from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table

from gdlcheck.output.render_parts import ByWidth, Text


def render_kinds(kinds) -> ByWidth:
    """``gdlcheck kinds``: every layer kind and what it computes."""
    return ByWidth(lambda width: _kinds(list(kinds), width))


def _kinds(kinds, width: int) -> RGroup:
    tail = Text(
        "gdlcheck kinds NAME prints a kind's keys; a spec's top level holds name, symmetry, expect, seed, "
        "channels and layer (or layers); gdlcheck schema prints the whole format as a JSON Schema",
        style="dim",
    )
    if width < 72:
        lines: list = [Text("layer kinds", style="bold")]
        for k in kinds:
            lines.append(Text.assemble((k.name, "bold"), f": {k.summary}"))
            lines.append(Text(f"  {k.computes}"))
        return RGroup(*lines, tail)
    table = Table(title="layer kinds", box=box.SIMPLE_HEAD)
    table.add_column("kind", no_wrap=True)
    table.add_column("what it is")
    table.add_column("computes")
    for k in kinds:
        table.add_row(Text(k.name), Text(k.summary), Text(k.computes))
    return RGroup(table, tail)


def render_kind(kind) -> ByWidth:
    """``gdlcheck kinds NAME``: the kind's keys with type, default and meaning, and an example."""
    return ByWidth(lambda width: _kind_panel(kind, width))


def default_text(key) -> str:
    """A key's default as a spec writes it: ``-`` for none, ``required`` for a key that must be given."""
    if key.required:
        return "required"
    if key.default is None:
        return "-"
    if isinstance(key.default, bool):
        return "true" if key.default else "false"
    return str(key.default)


def _kind_panel(kind, width: int) -> RGroup:
    head = Table.grid(padding=(0, 2))
    head.add_column(no_wrap=True)
    head.add_column(overflow="fold")
    head.add_row("kind", Text(kind.name))
    head.add_row("is", Text(kind.summary))
    head.add_row("computes", Text(kind.computes))
    head.add_row("proved by", Text(kind.rule))
    if kind.one_of:
        head.add_row("give", Text(" or ".join(" and ".join(group) for group in kind.one_of)))
    parts: list = [head]
    if width >= 90:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False)
        table.add_column("key", no_wrap=True)
        table.add_column("type")
        table.add_column("default")
        table.add_column("meaning")
        for key in kind.keys:
            table.add_row(Text(key.name), Text(key.type), Text(default_text(key)), Text(key.meaning))
        parts.append(table)
    else:
        for key in kind.keys:
            given = "required" if key.required else f"default {default_text(key)}"
            parts.append(Text.assemble((key.name, "bold"), f" ({key.type}; {given}): ", key.meaning))
    parts.append(Text("example:", style="bold"))
    parts.append(Text(kind.example))
    return RGroup(
        Panel(RGroup(*parts), title=Text(f"kind {kind.name}", style="bold"), title_align="left", box=box.ROUNDED)
    )
