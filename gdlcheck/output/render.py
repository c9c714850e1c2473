"""Rich renderables for people.  Nothing here prints or creates a Console.

User text (paths, names, expressions) goes in as ``Text``, never as markup.  Verdicts are
words (PASS / FAIL / INCONCLUSIVE), not colour alone.
"""

from __future__ import annotations

import numpy as np
from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table
from rich.text import Text as _RichText

from gdlcheck.groups import FAMILIES, PermGroup
from gdlcheck.output.explain import partition_meaning
from gdlcheck.output.words import constraint_lines, fact_text, witness_text
from gdlcheck.text import printable, shorten


class Text(_RichText):
    """rich's ``Text`` with control characters and terminal escapes in its strings escaped
    (``\x1b`` printed as the four characters), so no input can drive the terminal."""

    def __init__(self, text: str = "", *args, **kwargs):
        super().__init__(printable(text, keep="\n"), *args, **kwargs)

    def append(self, text, style=None):
        return super().append(printable(text, keep="\n") if isinstance(text, str) else text, style)

# A cycle of distinguishable styles for parameters in a sharing pattern.
_PALETTE = ["red", "green", "blue", "magenta", "cyan", "yellow", "bright_red", "bright_green", "bright_blue",
            "bright_magenta", "bright_cyan", "orange3", "purple", "dark_green", "deep_pink3", "gold3"]
MAX_SHOWN = 12  # rows and columns of a matrix shown before an ellipsis

VERDICT_WORDS = {
    "holds": ("PASS", "bold green", "holds exactly"),
    "holds_within_tolerance": ("PASS", "bold green", "holds within tolerance (not exactly)"),
    "holds_numerically": ("PASS", "bold green", "holds on every numeric trial"),
    "fails": ("FAIL", "bold red", "does not hold"),
    "inconclusive": ("INCONCLUSIVE", "bold yellow", "could not be decided exactly"),
    "error": ("ERROR", "bold red", "input error"),
}


def _fmt(x) -> str:
    if x is None:
        return "-"
    return f"{x:.3g}"


# Generators wider than this are shortened in the verify table (the full cycle string is in
# the JSON output and in the counterexample line), so the verdict columns always fit.
GENERATOR_WIDTH = 20
# Where generators have a line of their own (groups, symmetries): a 10^6-cycle is 6.9 MB of text.
LONG_GENERATOR_WIDTH = 200


def short_generator(text: str, width: int = GENERATOR_WIDTH) -> str:
    """``text`` if it fits in ``width`` characters, else its start and an ellipsis."""
    return text if len(text) <= width else shorten(text, width - 1, "").rstrip() + "\u2026"


def group_line(group: PermGroup) -> Text:
    size = "x".join(map(str, group.shape)) if group.shape else f"n={group.n}"
    return Text(f"{group.name} ({size}), order {group.order_text}, {len(group.gens)} generator(s)")


def render_verify(result) -> RGroup:
    word, style, meaning = VERDICT_WORDS[result.verdict]
    title = Text.assemble((word, style), "  ", (result.input, "bold"),
                          (f"  [{result.name}]" if result.name else "", "dim"))
    head = Table.grid(padding=(0, 2))
    head.add_row("layer", Text(result.kind))
    head.add_row("group", group_line(result.group))
    head.add_row("expect", Text(result.expect))
    head.add_row("verdict", Text.assemble((word, style), f": the layer is {result.expect} -- {meaning}"
                                          if result.passed else f": {meaning}"))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("generator", no_wrap=True)
    table.add_column("method")
    table.add_column("max abs error", justify="right")
    table.add_column("relative", justify="right")
    table.add_column("result", no_wrap=True)
    for c in result.checks:
        res = "PASS" if c.passed else ("FAIL" if c.passed is False else "UNDECIDED")
        if c.passed and c.exact is True:
            res = "PASS (exact)"
        elif c.passed and c.exact is False:
            res = "PASS (within tol)"
        method = c.method + (f" x{c.trials}" if c.trials else "")
        table.add_row(Text(short_generator(c.generator)), method, _fmt(c.max_abs_error), _fmt(c.relative_error),
                      Text(res, style="green" if c.passed else ("red" if c.passed is False else "yellow")))
    parts: list = [head, table]
    for c in result.failing[:3]:
        parts.append(Text(f"counterexample for {c.generator} ({c.method}): {witness_text(c.witness)}", style="red"))
    constraints = constraint_lines(result)
    if constraints:
        parts.append(Text("would hold if: " + "; ".join(constraints), style="yellow"))
    for finding in result.diagnosis or []:
        parts.append(Text("diagnosis: " + fact_text(finding), style="yellow"))
    for note in result.notes:
        parts.append(Text(fact_text(note), style="dim"))
    return RGroup(Panel(RGroup(*parts), title=title, title_align="left", box=box.ROUNDED))


def render_summary(results, errors: int) -> Table:
    table = Table(title="summary", box=box.SIMPLE_HEAD)
    table.add_column("input")
    table.add_column("layer")
    table.add_column("group")
    table.add_column("verdict")
    for r in results:
        word, style, _ = VERDICT_WORDS[r.verdict]
        table.add_row(Text(r.input), Text(r.kind), group_line(r.group), Text(word, style=style))
    if errors:
        table.caption = f"{errors} input(s) could not be read (see standard error)"
    return table


class PatternView:
    """The matrix of parameter names, each parameter in its own colour.

    Rows and columns past what fits (at most MAX_SHOWN) are elided with an ellipsis in the
    middle, so the corners of the pattern stay visible.  ``d`` is a Derivation of order
    1 -> 1; only the shown corner is computed (``pattern_block``), so a closed form with
    ``n = 10^6`` prints at once.
    """

    def __init__(self, d):
        self.d = d

    def __rich_console__(self, console, options):
        d = self.d
        n = d.n
        rows = _shown(n, MAX_SHOWN)
        probe_rows = [i for i in rows if i is not None]
        block = d.pattern_block(probe_rows, probe_rows)
        names = {int(k): d.entry(int(k)) for k in np.unique(block)}
        cell = max(len(x) for x in names.values()) + 1
        fits = max(3, (options.max_width - 2) // cell - 1)
        cols = _shown(n, min(MAX_SHOWN, fits))
        col_index = [j for j in cols if j is not None]
        block = d.pattern_block(probe_rows, col_index)
        table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1, 0, 0))
        for _ in cols:
            table.add_column(justify="center", no_wrap=True, min_width=cell - 1)
        for i in rows:
            cells = []
            for j in cols:
                if i is None or j is None:
                    cells.append(Text("..." if (i is None) != (j is None) else "", style="dim"))
                    continue
                k = int(block[probe_rows.index(i), col_index.index(j)])
                name = names.get(k) or d.entry(k)
                cells.append(Text(name, style=_PALETTE[k % len(_PALETTE)]))
            table.add_row(*cells)
        yield table


def _shown(size: int, limit: int) -> list:
    if size <= limit:
        return list(range(size))
    half = max(1, (limit - 1) // 2)
    return list(range(half)) + [None] + list(range(size - half, size))


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
    head.add_row("parameters", Text(f"{d.unconstrained_parameters} -> {d.free_parameters}"
                                    + (f"  ({d.dimension} x {d.channels_in} x {d.channels_out})" if channels else "")))
    head.add_row("names", Text(_names_text(d)))
    if channels:
        out_shape = " x ".join(["n"] * d.out_order) or "1"
        in_shape = " x ".join(["n"] * d.in_order) or "1"
        head.add_row("channels", Text(
            f"W = sum_o B_o (x) Theta_o over the {d.dimension} orbits o: B_o is the 0/1 ({out_shape}) x ({in_shape}) "
            f"basis element, Theta_o a {d.channels_out} x {d.channels_in} matrix of free parameters "
            f"(W is (n^{d.out_order}*{d.channels_out}) x (n^{d.in_order}*{d.channels_in}))"))
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


def render_catalogue() -> Table:
    table = Table(title="groups", box=box.SIMPLE_HEAD)
    table.add_column("name")
    table.add_column("needs")
    table.add_column("generators")
    table.add_column("order")
    for family in FAMILIES.values():
        label = family.name + (f" ({', '.join(family.aliases)})" if family.aliases else "")
        table.add_row(label, family.needs, family.generators, family.order_text)
    return table


def render_group(group: PermGroup) -> Table:
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


# --------------------------------------------------------------------------- inspect

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


def render_inspect(inspection) -> RGroup:
    """The layer in the unified form Y = G(X, A) V(X), and the texts' comparison table."""
    from gdlcheck.inspection import PROPERTIES, TEXT_TABLE

    head = Table.grid(padding=(0, 2))
    head.add_row("layer", Text(inspection.kind))
    head.add_row("form", Text("Y = G(X, A) V(X)"))
    head.add_row("G depends on", Text(f"{inspection.depends_on} -- {_DEPENDS_TEXT.get(inspection.depends_on, '')}"))
    shape = " x ".join(map(str, inspection.shape))
    many = f", {inspection.heads} matrices (heads)" if inspection.heads > 1 else ""
    head.add_row("measured", Text(f"G of the {inspection.measured} layer, {shape}{many}, on {inspection.samples} "
                                  "seeded inputs (graph held fixed)"))
    table = Table(title="G against the texts' comparison of the two matrices", box=box.SIMPLE_HEAD,
                  title_justify="left", caption="text: as the Transformers-vs-GCN text describes them",
                  caption_justify="left")
    table.add_column("property", no_wrap=True)
    table.add_column("this G", no_wrap=True)
    table.add_column("adjacency (text)", no_wrap=True)
    table.add_column("attention (text)", no_wrap=True)

    def word(key, value):
        if value is None:
            return Text("-", style="dim")
        yes, no = _PROPERTY_LABELS[key][1]
        return Text(yes if value else no)

    for key in PROPERTIES:
        table.add_row(_PROPERTY_LABELS[key][0], word(key, inspection.properties[key]),
                      word(key, TEXT_TABLE["adjacency"][key]),
                      word(key, TEXT_TABLE["attention"][key]))
    parts: list = [head, table]
    for note in inspection.notes:
        parts.append(Text(fact_text(note), style="yellow"))
    title = Text.assemble(("inspect", "bold"), "  ", (inspection.input, "bold"))
    return RGroup(Panel(RGroup(*parts), title=title, title_align="left", box=box.ROUNDED))


def render_project(input_name: str, group: PermGroup, P: np.ndarray, distance: float) -> RGroup:
    """``gdlcheck project``: the group, the relative distance and the nearest equivariant matrix."""
    head = Table.grid(padding=(0, 2))
    head.add_row("input", Text(input_name))
    head.add_row("group", group_line(group))
    head.add_row("distance", Text(f"{distance:.6g} (relative Frobenius, |W - P| / |W|)"))
    body = Text(np.array2string(P))
    return RGroup(Panel(RGroup(head, Text("nearest equivariant matrix P (orbit averages):", style="bold"), body),
                        title=Text("project", style="bold"), title_align="left", box=box.ROUNDED))


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
    return RGroup(Panel(head, title=Text("symmetries", style="bold"), title_align="left", box=box.ROUNDED))
