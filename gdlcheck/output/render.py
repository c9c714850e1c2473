"""Rich renderables for people.  Nothing here prints or creates a Console.

User text (paths, names, expressions) goes in as ``Text``, never as markup.  Verdicts are
words (PASS / FAIL / INCONCLUSIVE), not colour alone.
"""

from __future__ import annotations

import re

import numpy as np
from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table
from rich.text import Text as _RichText

from gdlcheck.groups import FAMILIES, PermGroup
from gdlcheck.output.explain import partition_meaning
from gdlcheck.output.proof import explain_lines, proof_lines
from gdlcheck.output.words import constraint_lines, count_line, culprit_text, fact_text, undecided_lines, witness_text
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


# A residual below this, relative to the values it was measured on, is rounding: its digits (and
# whether it is 0 at all) depend on the CPU, the BLAS and the order of a sum, so the text report
# shows it as such instead ("rounding", "< 1e-12") and reads the same on every machine. JSON
# keeps the measured numbers.
ROUNDING_SHOWN = 1e-12


def _residuals(max_abs_error, relative_error) -> tuple[str, str]:
    """The two error cells of a check: the numbers, or 'rounding' below :data:`ROUNDING_SHOWN`."""
    if relative_error is not None and relative_error < ROUNDING_SHOWN:
        return "rounding", f"< {ROUNDING_SHOWN:.0e}"
    return _fmt(max_abs_error), _fmt(relative_error)


# Generators wider than this are shortened in the verify table (the full cycle string is in
# the JSON output and in the counterexample line), so the verdict columns always fit.
GENERATOR_WIDTH = 20
# Where generators have a line of their own (groups, symmetries): a 10^6-cycle is 6.9 MB of text.
LONG_GENERATOR_WIDTH = 200


def short_generator(text: str, width: int = GENERATOR_WIDTH) -> str:
    """``text`` if it fits in ``width`` characters, else its start and an ellipsis."""
    return text if len(text) <= width else shorten(text, width - 1, "").rstrip() + "\u2026"


# A cycle string long enough to be shortened inside a sentence (a note, a proof line).
_LONG_CYCLE = re.compile(r"\((?:\d+ ){%d,}\d+\)(?:\((?:\d+ )*\d+\))*" % (LONG_GENERATOR_WIDTH // 4))


def bounded_line(line: str) -> Text:
    """A sentence with the long cycle strings in it shortened: rich wraps text character by
    character, and one 10^6-cycle quoted in three notes kept it busy for minutes."""
    return Text(_LONG_CYCLE.sub(lambda m: short_generator(m.group(0), LONG_GENERATOR_WIDTH), line))


def _styled(text: Text, style: str) -> Text:
    text.stylize(style)
    return text


def group_line(group: PermGroup) -> Text:
    size = "x".join(map(str, group.shape)) if group.shape else f"n={group.n}"
    return Text(f"{group.name} ({size}), order {group.order_text}, {len(group.gens)} generator(s)")


class ByWidth:
    """A renderable built for the width it is given: reports that fit 40 columns as well as 200.

    ``build(width)`` returns the renderable to print at ``width`` columns.
    """

    def __init__(self, build):
        self.build = build

    def __rich_console__(self, console, options):
        yield self.build(options.max_width)


def render_verify(result, hints: tuple[str, ...] = (), explain: bool = False) -> ByWidth:
    """The verify report of one input: a panel titled by the verdict and the input, the checks,
    counterexamples, constraints, the culprit, diagnosis, what could not be decided, notes,
    ``hints``, and the proof (one line per layer, or each step as the texts write it with
    ``explain``).

    At any width: a title that does not fit moves into the panel (it is never cut), and the
    checks become one line each where their table would not fit (the numbers are never cut).
    """
    return ByWidth(lambda width: _verify_panel(result, tuple(hints), width, explain))


def _verify_panel(result, hints: tuple[str, ...], width: int, explain: bool = False) -> RGroup:
    word, style, meaning = VERDICT_WORDS[result.verdict]
    title = Text.assemble((word, style), "  ", (result.input, "bold"),
                          (f"  [{result.name}]" if result.name else "", "dim"))
    head = Table.grid(padding=(0, 2))
    head.add_column(no_wrap=True)
    head.add_column(overflow="fold")
    if title.cell_len + 6 > width:  # the panel would cut its title: name the input inside instead
        title = Text(word, style=style)
        head.add_row("input", Text(result.input))
        if result.name:
            head.add_row("name", Text(result.name))
    head.add_row("layer", Text(result.kind))
    head.add_row("group", group_line(result.group))
    head.add_row("expect", Text(result.expect))
    head.add_row("verdict", Text.assemble((word, style), f": the layer is {result.expect} -- {meaning}"
                                          if result.passed else f": {meaning}"))
    parts: list = [head]
    if result.checks:
        parts.append(_checks(result.checks, width - 4, result.group))
    for c in result.failing[:3]:
        name = generator_name(result.group, c.generator, long=True)
        parts.append(_styled(bounded_line(f"counterexample for {name} ({c.method}): "
                                          f"{witness_text(c.witness, result.group.shape)}"), "red"))
    constraints = constraint_lines(result)
    if constraints:
        parts.append(Text("would hold if: " + "; ".join(constraints), style="yellow"))
    if result.culprit is not None:
        c = result.culprit
        text = culprit_text(c) if "condition" not in c else f"{c['path']} ({c['kind']}) for {c['generator']}"
        parts.append(Text(f"culprit: {text}", style="red"))
    for finding in result.diagnosis or []:
        parts.append(_styled(bounded_line("diagnosis: " + fact_text(finding)), "yellow"))
    for line in undecided_lines(result):
        parts.append(_styled(bounded_line(line), "yellow"))
    for note in result.notes:
        parts.append(_styled(bounded_line(fact_text(note)), "dim"))
    for hint in hints:
        parts.append(Text("hint: " + hint, style="cyan"))
    if result.proof is not None:
        parts.append(Text("proof", style="bold"))
        lines = explain_lines(result.proof) if explain else proof_lines(result.proof)
        parts.extend(bounded_line(line) for line in lines)
    return RGroup(Panel(RGroup(*parts), title=title, title_align="left", box=box.ROUNDED))


# What a generator is, in a report's words (Role.kind -> name); "generator" (nothing known) is
# named by its position instead.
ROLE_NAMES = {"shift": "shift", "reflection": "reflection", "transposition": "transposition", "3-cycle": "3-cycle",
              "cycle": "cycle", "rotation": "rotation", "grid-reflection": "reflection"}


def generator_name(group: PermGroup | None, generator: str, long: bool = False) -> str:
    """A generator as the tables name it, never cut: its role (``shift``, ``rotation``,
    ``translation (axis 1)``; ``generator 2`` when nothing is known), with its cycles where both
    fit in :data:`GENERATOR_WIDTH` (``shift (0 1 2)``); ``long``: the cycles whatever their
    length (lines that wrap).  A generator the group does not hold is its cycles, shortened."""
    strings = group.generator_strings if group is not None else []
    if generator not in strings:
        return generator if long or len(generator) <= GENERATOR_WIDTH else short_generator(generator)
    k = strings.index(generator)
    role = group.role(k)
    if role.kind == "translation":
        word = f"translation (axis {role.axis})"
    elif role.kind in ROLE_NAMES:
        word = ROLE_NAMES[role.kind]
    else:  # nothing known: the cycles say what it is, or its place among the generators
        return generator if long or len(generator) <= GENERATOR_WIDTH else f"generator {k + 1}"
    both = f"{word} {generator}"
    return both if long or len(both) <= GENERATOR_WIDTH else word


def _check_cells(c, group: PermGroup | None = None) -> tuple[str, str, str, str, str, str]:
    res = "PASS" if c.passed else ("FAIL" if c.passed is False else "UNDECIDED")
    if c.passed and c.exact is True:
        res = "PASS (exact)"
    elif c.passed and c.exact is False:
        res = "PASS (within tol)"
    style = "green" if c.passed else ("red" if c.passed is False else "yellow")
    method = c.method + (f" x{c.trials}" if c.trials else "")
    return (generator_name(group, c.generator), method, *_residuals(c.max_abs_error, c.relative_error), res, style)


_CHECK_HEADERS = ("generator", "method", "max abs error", "relative", "result")


# Checks shown in the text report; past it, a line counts the rest (all are in --format json).
CHECK_ROWS = 40


def _checks(checks, width: int, group: PermGroup | None = None):
    """The checks as a table where it fits in ``width`` columns, else one line per check: at most
    CHECK_ROWS of them (those that do not pass first, then in order), and a line for the rest
    -- rich laid out 40,000 rows of 20,000 generators for half a minute."""
    shown = _shown_checks(checks)
    rows = [_check_cells(c, group) for c in shown]
    rest = _rest_line(checks, shown)
    # every column at its widest cell; between two columns a padding space on each side and the
    # box's (blank) rule, and a padding space at each edge
    need = sum(max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(_CHECK_HEADERS)) + 3 * 4 + 2
    if need <= width:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False)
        table.add_column("generator", no_wrap=True)
        table.add_column("method", no_wrap=True)
        table.add_column("max abs error", justify="right", no_wrap=True)
        table.add_column("relative", justify="right", no_wrap=True)
        table.add_column("result", no_wrap=True)
        for gen, method, abs_err, rel, res, style in rows:
            table.add_row(Text(gen), method, abs_err, rel, Text(res, style=style))
        return RGroup(table, *rest)
    lines = []
    for gen, method, abs_err, rel, res, style in rows:
        numbers = "" if abs_err == rel == "-" else f" (max abs error {abs_err}, relative {rel})"
        lines.append(Text.assemble(f"{gen} {method}: ", (res, style), numbers))
    return RGroup(*lines, *rest)


def _shown_checks(checks) -> list:
    if len(checks) <= CHECK_ROWS:
        return list(checks)
    first = [k for k, c in enumerate(checks) if not c.passed][:CHECK_ROWS]
    first += [k for k, c in enumerate(checks) if c.passed][:CHECK_ROWS - len(first)]
    return [checks[k] for k in sorted(first)]


def _rest_line(checks, shown) -> list[Text]:
    if len(shown) == len(checks):
        return []
    ids = {id(c) for c in shown}
    rest = [c for c in checks if id(c) not in ids]
    counts = {word: sum(1 for c in rest if (c.passed is True, c.passed is False) == key)
              for word, key in (("pass", (True, False)), ("fail", (False, True)), ("undecided", (False, False)))}
    tally = ", ".join(f"{k} {word}" for word, k in counts.items() if k)
    return [Text(f"... and {len(rest)} more checks ({tally}; --format json lists them all)", style="dim")]


def render_summary(entries) -> RGroup:
    """The summary after several inputs: every input, read or not, then the count line.

    ``entries`` holds ``(input, result)`` pairs, ``result`` None for an input that could not be
    read.  File names are never cut: they wrap (at 40 columns each input takes a few lines).
    """
    return ByWidth(lambda width: _summary(list(entries), width))


def _summary(entries, width: int) -> RGroup:
    held = sum(1 for _, r in entries if r is not None and r.passed)
    failed = sum(1 for _, r in entries if r is not None and r.verdict == "fails")
    open_ = sum(1 for _, r in entries if r is not None and r.verdict == "inconclusive")
    unreadable = sum(1 for _, r in entries if r is None)
    count = Text(count_line(len(entries), held, failed, open_, unreadable), style="bold")
    if width < 60:  # too narrow for four columns: one block per input
        lines: list = [Text("summary", style="bold")]
        for name, r in entries:
            word, style, _ = VERDICT_WORDS[r.verdict if r is not None else "error"]
            lines.append(Text.assemble((word, style), "  ", name))
            detail = f"{r.kind}, {r.group.describe()}" if r is not None else "could not be read (see standard error)"
            lines.append(Text("  " + detail, style="dim"))
        return RGroup(*lines, count)
    table = Table(title="summary", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    longest = max(len(name) for name, _ in entries)
    kinds = max([len("layer")] + [len(r.kind) for _, r in entries if r is not None])
    groups = max([len("group")] + [len(r.group.describe()) for _, r in entries if r is not None])
    verdicts = max([len("verdict")] + [len(VERDICT_WORDS[r.verdict if r is not None else "error"][0])
                                       for _, r in entries])
    # the names come first: four columns where every name fits on its line, else the layer and its
    # group share a column, so the names keep what is left before they wrap (between two columns:
    # a space of padding on each side and the box's space)
    joined = longest + kinds + groups + verdicts + 9 > width
    room = width - (max(kinds, groups) + verdicts + 6 if joined else kinds + groups + verdicts + 9)
    table.add_column("input", overflow="fold", min_width=max(12, min(longest, room)))
    if joined:
        table.add_column("layer, group", overflow="fold")
    else:
        table.add_column("layer", overflow="fold")
        table.add_column("group")
    table.add_column("verdict", no_wrap=True)
    for name, r in entries:
        if r is None:
            cells = [Text("-", style="dim")] if joined else [Text("-", style="dim"), Text("-", style="dim")]
            table.add_row(Text(name), *cells, Text("ERROR", style="bold red"))
            continue
        word, style, _ = VERDICT_WORDS[r.verdict]
        cells = [Text(f"{r.kind}\n{r.group.describe()}")] if joined else [Text(r.kind), Text(r.group.describe())]
        table.add_row(Text(name), *cells, Text(word, style=style))
    notes = [Text("ERROR: the input could not be read (standard error says why)", style="dim")] if unreadable else []
    return RGroup(table, *notes, count)


def render_weights(path: str, checked) -> ByWidth:
    """``verify FILE`` of a weights file: one row per tensor checked (its name, shape, verdict
    and relative distance to the nearest equivariant matrix), then the count line.  Names are
    never cut: they wrap."""
    return ByWidth(lambda width: _weights(path, list(checked), width))


def _weights(path: str, checked, width: int) -> RGroup:
    group = next((c.result.group.describe() for c in checked if c.result is not None), None)
    title = Text(f"{path}: {len(checked)} tensor(s)" + (f" against {group}" if group else ""), style="bold")
    counts = [sum(1 for c in checked if c.result is not None and c.result.passed),
              sum(1 for c in checked if c.verdict == "fails"), sum(1 for c in checked if c.verdict == "inconclusive"),
              sum(1 for c in checked if c.result is None)]
    count = Text(count_line(len(checked), *counts).replace("input", "tensor"), style="bold")
    rows = []
    for c in checked:
        word, style, _ = VERDICT_WORDS[c.verdict]
        shape = " x ".join(map(str, c.shape))
        distance = "-" if c.distance is None else number_text(c.distance)
        rows.append((Text(c.name), shape, Text(word, style=style), distance))
    if width < 60:  # one block per tensor
        lines: list = [title]
        for name, shape, verdict, distance in rows:
            lines.append(Text.assemble(verdict, "  ", name))
            lines.append(Text(f"  {shape}, relative distance {distance}", style="dim"))
        return RGroup(*lines, count)
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("tensor", overflow="fold", min_width=12)
    table.add_column("shape", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("distance to equivariant", justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    notes = [Text("ERROR: the tensor could not be checked (standard error says why)", style="dim")] if counts[3] else []
    return RGroup(table, *notes, count)


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


def render_catalogue() -> ByWidth:
    """``gdlcheck groups``: the catalogue as a table, or one block per family where it would not fit."""
    return ByWidth(_catalogue)


def _catalogue(width: int):
    rows = [(family.name + (f" ({', '.join(family.aliases)})" if family.aliases else ""), family.needs,
             family.generators, family.order_text) for family in FAMILIES.values()]
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
    head.add_row("measured", Text(f"G of the {inspection.measured} layer, {shape}{many}, on {inspection.samples} "
                                  "seeded inputs (graph held fixed)"))

    def word(key, value) -> str:
        if value is None:
            return "-"
        yes, no = _PROPERTY_LABELS[key][1]
        return yes if value else no

    rows = [(_PROPERTY_LABELS[key][0], word(key, inspection.properties[key]), word(key, TEXT_TABLE["adjacency"][key]),
             word(key, TEXT_TABLE["attention"][key])) for key in PROPERTIES]
    heading = "G beside a graph's adjacency matrix and an attention matrix"
    source = "(text): as the Transformers-vs-GCN paper describes them"
    if width - 4 >= _INSPECT_TABLE_WIDTH:
        table = Table(title=heading, box=box.SIMPLE_HEAD, title_justify="left", caption=source,
                      caption_justify="left")
        for column in ("property", "this G", "adjacency (text)", "attention (text)"):
            table.add_column(column, no_wrap=True)
        for label, mine, adjacency, attention in rows:
            table.add_row(label, mine, Text(adjacency, style="dim" if adjacency == "-" else ""), attention)
        comparison: list = [table]
    else:
        comparison = [Text(heading, style="italic")]
        comparison += [Text(f"{label}: {mine} (adjacency {adjacency}, attention {attention})")
                       for label, mine, adjacency, attention in rows]
        comparison.append(Text(source, style="dim"))
    parts: list = [head, *comparison]
    for note in inspection.notes:
        parts.append(Text(fact_text(note), style="yellow"))
    return RGroup(Panel(RGroup(*parts), title=title, title_align="left", box=box.ROUNDED))


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
    return RGroup(Panel(RGroup(head, caption, NumberView(P)), title=Text("project", style="bold"),
                        title_align="left", box=box.ROUNDED))


def number_text(x: float) -> str:
    """A matrix entry for people: 4 significant digits, ``0`` for an exact zero.

    >>> [number_text(x) for x in (0.0, -0.36372, 1234567.0, 1e-7)]
    ['0', '-0.3637', '1.235e+06', '1e-07']
    """
    return "0" if x == 0 else f"{x:.4g}"


class NumberView:
    """A numeric matrix as a table with its row and column indices; rows and columns past what
    fits (at most MAX_SHOWN) are elided in the middle, so the corners stay visible."""

    def __init__(self, M: np.ndarray):
        self.M = np.asarray(M, dtype=float)

    def __rich_console__(self, console, options):
        M = self.M
        rows = _shown(M.shape[0], MAX_SHOWN)
        probe = [i for i in rows if i is not None]
        cell = max(max((len(number_text(x)) for x in M[np.ix_(probe, probe)].ravel()), default=1),
                   len(str(M.shape[1] - 1))) + 1
        index = len(str(M.shape[0] - 1)) + 1
        fits = max(3, (options.max_width - index - 1) // cell - 1)
        cols = _shown(M.shape[1], min(MAX_SHOWN, fits))
        table = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1, 0, 0), header_style="dim")
        table.add_column("", justify="right", no_wrap=True, style="dim")
        for j in cols:
            table.add_column("..." if j is None else str(j), justify="right", no_wrap=True, min_width=cell - 1)
        for i in rows:
            if i is None:
                table.add_row("...", *["" for _ in cols])
                continue
            table.add_row(str(i), *[Text("...", style="dim") if j is None else Text(number_text(M[i, j]))
                                    for j in cols])
        yield table


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
        parts.append(Text(f"near tie: {found.near_ties} pair(s) of entries within tol of each other got different "
                          f"colours (closest: {a!r} and {b!r}); the colours are cut greedily from the smallest value, "
                          "so a permutation that moves one onto the other is not found: a smaller or larger --tol "
                          "moves the cut", style="yellow"))
    return RGroup(Panel(RGroup(*parts), title=Text("symmetries", style="bold"), title_align="left", box=box.ROUNDED))


# --------------------------------------------------------------------------- the spec reference


def render_kinds(kinds) -> ByWidth:
    """``gdlcheck kinds``: every layer kind and what it computes."""
    return ByWidth(lambda width: _kinds(list(kinds), width))


def _kinds(kinds, width: int) -> RGroup:
    tail = Text("gdlcheck kinds NAME prints a kind's keys; a spec's top level holds name, symmetry, expect, seed, "
                "channels and layer (or layers); gdlcheck schema prints the whole format as a JSON Schema",
                style="dim")
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
    return RGroup(Panel(RGroup(*parts), title=Text(f"kind {kind.name}", style="bold"), title_align="left",
                        box=box.ROUNDED))
