"""The text of ``verify``: one input's report (its checks, counterexamples, culprit, diagnosis
and proof), the summary after several inputs, and the table of a weights file's tensors.

Each is laid out for the width it is printed at (:class:`~gdlcheck.output.render_parts.ByWidth`):
numbers and file names are never cut, a table that would not fit becomes one line per row.
"""

from __future__ import annotations

import re

from rich import box
from rich.console import Group as RGroup
from rich.panel import Panel
from rich.table import Table

from gdlcheck.groups import PermGroup
from gdlcheck.output.proof import explain_lines, proof_lines
from gdlcheck.output.render_matrices import number_text
from gdlcheck.output.render_parts import (
    GENERATOR_WIDTH,
    LONG_GENERATOR_WIDTH,
    ByWidth,
    Text,
    group_line,
    short_generator,
)
from gdlcheck.output.tensor_words import tensor_note
from gdlcheck.output.witnesses import witness_text
from gdlcheck.output.words import (
    RELATIVE_LEGEND,
    constraint_lines,
    count_line,
    culprit_text,
    fact_text,
    undecided_lines,
)
from gdlcheck.text import short_cycles
from gdlcheck.verdicts import Method, Verdict


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


# A cycle string long enough to be shortened inside a sentence (a note, a proof line).
_LONG_CYCLE = re.compile(r"\((?:\d+ ){%d,}\d+\)(?:\((?:\d+ )*\d+\))*" % (LONG_GENERATOR_WIDTH // 4))


def bounded_line(line: str) -> Text:
    """A sentence with the long cycle strings in it shortened: rich wraps text character by
    character, and one 10^6-cycle quoted in three notes kept it busy for minutes."""
    return Text(_LONG_CYCLE.sub(lambda m: short_generator(m.group(0), LONG_GENERATOR_WIDTH), line))


def _styled(text: Text, style: str) -> Text:
    text.stylize(style)
    return text


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
    verdict = Verdict(result.verdict)
    word, style, meaning = verdict.word, verdict.style, verdict.meaning
    title = Text.assemble(
        (word, style), "  ", (result.input, "bold"), (f"  [{result.name}]" if result.name else "", "dim")
    )
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
    head.add_row(
        "verdict",
        Text.assemble(
            (word, style), f": the layer is {result.expect} -- {meaning}" if result.passed else f": {meaning}"
        ),
    )
    parts: list = [head]
    if result.checks:
        parts.append(_checks(result.checks, width - 4, result.group))
    for c in result.failing[:3]:
        name = generator_name(result.group, c.generator, long=True)
        parts.append(
            _styled(
                bounded_line(f"counterexample for {name} ({c.method}): {witness_text(c.witness, result.group.shape)}"),
                "red",
            )
        )
    constraints = constraint_lines(result)
    if constraints:
        parts.append(Text("would hold if: " + "; ".join(constraints), style="yellow"))
    if result.culprit is not None:
        c = result.culprit
        g = short_cycles(c["generator"])
        text = culprit_text(c) if "condition" not in c else f"{c['path']} ({c['kind']}) for {g}"
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
ROLE_NAMES = {
    "shift": "shift",
    "reflection": "reflection",
    "transposition": "transposition",
    "3-cycle": "3-cycle",
    "cycle": "cycle",
    "rotation": "rotation",
    "grid-reflection": "reflection",
}


def generator_name(group: PermGroup | None, generator: str, long: bool = False) -> str:
    """A generator as the tables name it, never cut: its role (``shift``, ``rotation``,
    ``translation (axis 1)``; ``generator 2`` when nothing is known), with its cycles where both
    fit in :data:`GENERATOR_WIDTH` (``shift (0 1 2)``); ``long``: the cycles whatever their
    length (lines that wrap).  An element the group does not hold as a generator (the trials' random
    element) is its cycles where they fit, else ``random element``."""
    strings = group.generator_strings if group is not None else []
    if generator not in strings and group is not None and not long and len(generator) > GENERATOR_WIDTH:
        return "random element"  # the trials' uniformly random element: its cycles are in the counterexample
    if generator not in strings or group is None:
        return generator if long or len(generator) <= GENERATOR_WIDTH else short_generator(generator)
    k = strings.index(generator)
    role = group.role(k)
    if role.is_translation:
        word = f"translation (axis {role.axis})"
    elif role.kind in ROLE_NAMES:
        word = ROLE_NAMES[role.kind]
    else:  # nothing known: the cycles say what it is, or its place among the generators
        return generator if long or len(generator) <= GENERATOR_WIDTH else f"generator {k + 1}"
    both = f"{word} {generator}"
    return both if long or len(both) <= GENERATOR_WIDTH else word


def _check_cells(c, group: PermGroup | None = None) -> tuple[str, str, str, str, str, str]:
    res = Verdict.HOLDS.word if c.passed else (Verdict.FAILS.word if c.passed is False else "UNDECIDED")
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
    kinds = {c.method == Method.NUMERIC for c in shown if c.relative_error is not None}
    if len(kinds) == 2:  # one column, two measures: say which is which
        rest = [Text(RELATIVE_LEGEND, style="dim"), *rest]
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
    first += [k for k, c in enumerate(checks) if c.passed][: CHECK_ROWS - len(first)]
    return [checks[k] for k in sorted(first)]


def _rest_line(checks, shown) -> list[Text]:
    if len(shown) == len(checks):
        return []
    ids = {id(c) for c in shown}
    rest = [c for c in checks if id(c) not in ids]
    counts = {
        word: sum(1 for c in rest if (c.passed is True, c.passed is False) == key)
        for word, key in (("pass", (True, False)), ("fail", (False, True)), ("undecided", (False, False)))
    }
    tally = ", ".join(f"{k} {word}" for word, k in counts.items() if k)
    return [Text(f"... and {len(rest)} more checks ({tally}; --format json lists them all)", style="dim")]


def render_summary(entries) -> ByWidth:
    """The summary after several inputs: every input, read or not, then the count line.

    ``entries`` holds ``(input, result)`` pairs, ``result`` None for an input that could not be
    read.  File names are never cut: they wrap (at 40 columns each input takes a few lines).
    """
    return ByWidth(lambda width: _summary(list(entries), width))


def _summary(entries, width: int) -> RGroup:
    verdicts = [_verdict(r) for _, r in entries]
    held = sum(1 for _, r in entries if r is not None and r.passed)
    failed, open_, unreadable = (verdicts.count(v) for v in (Verdict.FAILS, Verdict.INCONCLUSIVE, Verdict.ERROR))
    count = Text(count_line(len(entries), held, failed, open_, unreadable), style="bold")
    if width < 60:  # too narrow for four columns: one block per input
        lines: list = [Text("summary", style="bold")]
        for (name, r), verdict in zip(entries, verdicts):
            lines.append(Text.assemble((verdict.word, verdict.style), "  ", name))
            detail = f"{r.kind}, {r.group.describe()}" if r is not None else "could not be read (see standard error)"
            lines.append(Text("  " + detail, style="dim"))
        return RGroup(*lines, count)
    table = Table(title="summary", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    longest = max(len(name) for name, _ in entries)
    kinds = max([len("layer")] + [len(r.kind) for _, r in entries if r is not None])
    groups = max([len("group")] + [len(r.group.describe()) for _, r in entries if r is not None])
    widest = max([len("verdict")] + [len(verdict.word) for verdict in verdicts])
    # the names come first: four columns where every name fits on its line, else the layer and its
    # group share a column, so the names keep what is left before they wrap (between two columns:
    # a space of padding on each side and the box's space)
    joined = longest + kinds + groups + widest + 9 > width
    room = width - (max(kinds, groups) + widest + 6 if joined else kinds + groups + widest + 9)
    table.add_column("input", overflow="fold", min_width=max(12, min(longest, room)))
    if joined:
        table.add_column("layer, group", overflow="fold")
    else:
        table.add_column("layer", overflow="fold")
        table.add_column("group")
    table.add_column("verdict", no_wrap=True)
    for (name, r), verdict in zip(entries, verdicts):
        if r is None:
            cells = [Text("-", style="dim")] if joined else [Text("-", style="dim"), Text("-", style="dim")]
        else:
            cells = [Text(f"{r.kind}\n{r.group.describe()}")] if joined else [Text(r.kind), Text(r.group.describe())]
        table.add_row(Text(name), *cells, Text(verdict.word, style=verdict.style))
    notes = (
        [Text(f"{Verdict.ERROR.word}: the input could not be read (standard error says why)", style="dim")]
        if unreadable
        else []
    )
    return RGroup(table, *notes, count)


def _verdict(result) -> Verdict:
    """The verdict of an input's result, :attr:`Verdict.ERROR` for one that could not be read (None)."""
    return Verdict.ERROR if result is None else Verdict(result.verdict)


def render_weights(path: str, checked) -> ByWidth:
    """``verify FILE`` of a weights file: one row per tensor checked (its name, shape, verdict
    and relative distance to the nearest equivariant matrix), then the count line.  Names are
    never cut: they wrap."""
    return ByWidth(lambda width: _weights(path, list(checked), width))


def _weights(path: str, checked, width: int) -> RGroup:
    judged = [c for c in checked if c.result is not None]
    group = next((c.result.group for c in judged), None)
    against = ""
    if group is not None:  # without a size each square tensor is checked at its own n
        one_size = len({c.result.group.n for c in judged}) == 1
        against = f" against {group.describe()}" if one_size else f" against {group.name}, each tensor at its own n"
    title = Text(f"{path}: {len(checked)} tensor(s)" + against, style="bold")
    verdicts = [Verdict(c.verdict) for c in checked]
    counts = [
        sum(1 for c, verdict in zip(checked, verdicts) if c.judged and verdict.passed),
        verdicts.count(Verdict.FAILS),
        verdicts.count(Verdict.INCONCLUSIVE),
        sum(1 for c in checked if c.error is not None),
    ]
    not_judged = verdicts.count(Verdict.NOT_JUDGED)
    line = count_line(len(checked), *counts).replace("input", "tensor")
    if not_judged:
        line = (line + ", " if ":" in line else line + ": ") + f"{not_judged} not judged"
    count = Text(line, style="bold")
    rows = []
    for c, verdict in zip(checked, verdicts):
        shape = " x ".join(map(str, c.shape))
        distance = "-" if c.distance is None else number_text(c.distance)
        rows.append(
            (Text(c.name), shape, "-" if c.n is None else str(c.n), Text(verdict.word, style=verdict.style), distance)
        )
    notes = [Text(f"{c.name}: {tensor_note(c)}", style="dim") for c in checked if tensor_note(c)]
    if counts[3]:
        notes.append(
            Text(f"{Verdict.ERROR.word}: the tensor could not be checked (standard error says why)", style="dim")
        )
    if width < 60:  # one block per tensor
        lines: list = [title]
        for name, shape, n, word, distance in rows:
            lines.append(Text.assemble(word, "  ", name))
            lines.append(Text(f"  {shape}, n = {n}, relative distance {distance}", style="dim"))
        return RGroup(*lines, *notes, count)
    # the title above the table, not in it: rich pads a table's title to the table's width
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("tensor", overflow="fold", min_width=12)
    table.add_column("shape", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("distance to equivariant", justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    return RGroup(title, table, *notes, count)
