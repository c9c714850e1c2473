"""The text of ``inspect``: a layer in the unified form Y = G(X, A) V(X), and its G beside the
Transformers-vs-GCN paper's table of an adjacency and an attention matrix.
"""

from __future__ import annotations

from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table

from gdlcheck.output.render_parts import ByWidth, Text
from gdlcheck.output.words import fact_text

_PROPERTY_LABELS = {
    "static": ("static", ("static", "dynamic")),
    "square": ("square", ("yes", "no")),
    "sparse": ("sparse", ("yes", "no")),
    "approximately_sparse": ("approx. sparse", ("yes", "no")),
    "symmetric": ("symmetric", ("yes", "no")),
    "row_stochastic": ("row-stochastic", ("yes", "no")),
    "nonnegative": ("non-negative", ("yes", "no")),
}

_DEPENDS_TEXT = {
    "constant": "nothing: G is a constant matrix (linear / DeepSets)",
    "offset": "the cyclic offset i - j: G is circulant (convolution)",
    "graph": "the graph: G = G(A) (GCN)",
    "content": "the content: G = G(X) (attention)",
}


def render_inspect(inspection) -> ByWidth:
    """The layer in the unified form Y = G(X, A) V(X), and its G beside the Transformers-vs-GCN
    paper's table of an adjacency and an attention matrix (one line per property where the table
    would not fit)."""
    return ByWidth(lambda width: _inspect_panel(inspection, width))


# the comparison table's natural width, inside a panel
_INSPECT_TABLE_WIDTH = 64


def _inspect_panel(inspection, width: int) -> RGroup:
    from gdlcheck.inspection import PROPERTIES, TEXT_TABLE

    title = Text.assemble(("inspect", "bold"), "  ", (inspection.input, "bold"))
    head = Table.grid(padding=(0, 2))
    head.add_column(no_wrap=True)
    head.add_column(overflow="fold")
    if title.cell_len + 6 > width:
        title = Text("inspect", style="bold")
        head.add_row("input", Text(inspection.input))
    head.add_row("layer", Text(inspection.kind))
    head.add_row("form", Text("Y = G(X, A) V(X)"))
    head.add_row("G depends on", Text(f"{inspection.depends_on} -- {_DEPENDS_TEXT.get(inspection.depends_on, '')}"))
    shape = " x ".join(map(str, inspection.shape))
    many = f", {inspection.heads} matrices (heads)" if inspection.heads > 1 else ""
    head.add_row(
        "measured",
        Text(
            f"G of the {inspection.measured} layer, {shape}{many}, on {inspection.samples} "
            "seeded inputs (graph held fixed)"
        ),
    )

    def word(key, value) -> str:
        if value is None:
            return "-"
        yes, no = _PROPERTY_LABELS[key][1]
        return yes if value else no

    rows = [
        (
            _PROPERTY_LABELS[key][0],
            word(key, inspection.properties[key]),
            word(key, TEXT_TABLE["adjacency"][key]),
            word(key, TEXT_TABLE["attention"][key]),
        )
        for key in PROPERTIES
    ]
    heading = "G beside a graph's adjacency matrix and an attention matrix"
    source = "(text): as the Transformers-vs-GCN paper describes them"
    if width - 4 >= _INSPECT_TABLE_WIDTH:
        table = Table(title=heading, box=box.SIMPLE_HEAD, title_justify="left", caption=source, caption_justify="left")
        for column in ("property", "this G", "adjacency (text)", "attention (text)"):
            table.add_column(column, no_wrap=True)
        for label, mine, adjacency, attention in rows:
            table.add_row(label, mine, Text(adjacency, style="dim" if adjacency == "-" else ""), attention)
        comparison: list = [table]
    else:
        comparison = [Text(heading, style="italic")]
        comparison += [
            Text(f"{label}: {mine} (adjacency {adjacency}, attention {attention})")
            for label, mine, adjacency, attention in rows
        ]
        comparison.append(Text(source, style="dim"))
    parts: list = [head, *comparison]
    for note in inspection.notes:
        parts.append(Text(fact_text(note), style="yellow"))
    return RGroup(Panel(RGroup(*parts), title=title, title_align="left", box=box.ROUNDED))
