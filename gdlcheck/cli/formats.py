"""The output formats, each in one place: its name, the extension ``-o FILE`` names it by, and its
writer.

A command declares the formats it writes with :func:`format_option` (``--format``, the same
option for every command) and hands what it made to :func:`emit`, one maker per format it
declared; the format's writer puts it on standard output or into ``-o FILE``:

* ``text``: a rich renderable, laid out for the terminal (120 columns in a file);
* ``json``: a dict (or JSON text) per line, or a list of them;
* ``junit``, ``csv``, ``latex``: text, written as it is;
* ``npy``: an array, written as binary.

A new format is one :class:`Format` here with its writer, and a maker in each command that writes
it (the text itself is made by :mod:`gdlcheck.output`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click

from gdlcheck.cli.common import given, print_rich, write_npy, write_text


def _write_json(made, output: str | None) -> None:
    """One line per object: a dict, JSON text already made, or a list of them."""
    from gdlcheck.output.report import dumps

    objects = made if isinstance(made, list) else [made]
    write_text("".join((obj if isinstance(obj, str) else dumps(obj)) + "\n" for obj in objects), output)


@dataclass(frozen=True)
class Format:
    """An output format: its ``--format`` name, the extension of ``-o FILE`` that names it (None:
    none does) and the writer of what a command made in it."""

    name: str
    extension: str | None
    writer: Callable[[Any, str | None], None]

    def __str__(self) -> str:
        return self.name

    def write(self, made, output: str | None = None) -> None:
        self.writer(made, output)


TEXT = Format("text", ".txt", print_rich)
JSON = Format("json", ".json", _write_json)
JUNIT = Format("junit", None, write_text)
LATEX = Format("latex", ".tex", write_text)
CSV = Format("csv", ".csv", write_text)
NPY = Format("npy", ".npy", write_npy)

FORMATS = {f.name: f for f in (TEXT, JSON, JUNIT, LATEX, CSV, NPY)}
# -o FILE: the format its extension names
OUTPUT_EXTENSIONS = {f.extension: f for f in FORMATS.values() if f.extension is not None}
PICTURE_EXTENSIONS = (".png", ".svg", ".pdf")


def format_option(*formats: Format, help: str | None = None):
    """``--format``: one of ``formats`` (text by default), given to the command as its :class:`Format`."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice([f.name for f in formats]),
        default=TEXT.name,
        show_default=True,
        help=help,
        callback=lambda ctx, param, value: FORMATS[value],
    )


def emit(fmt: Format, output: str | None = None, **made_by: Callable[[], object] | None) -> None:
    """Write what ``made_by[fmt.name]()`` makes in ``fmt``; a maker that is None (or makes None)
    writes nothing here.  A command names every format it declared: one it leaves out is a bug."""
    if fmt.name not in made_by:
        raise LookupError(f"this command declares --format {fmt} but makes nothing in it")
    make = made_by[fmt.name]
    made = make() if make is not None else None
    if made is not None:
        fmt.write(made, output)


def output_format(fmt: Format, output: str | None, allowed: tuple[Format, ...]) -> Format:
    """The format to write: the one ``-o FILE``'s extension names, which --format may not contradict.

    A FILE whose extension names no format (``report``, ``out.log``) gets --format (text by
    default); a picture's extension is refused with a pointer to --plot.
    """
    if not output:
        return fmt
    ext = os.path.splitext(output)[1].lower()
    if ext in PICTURE_EXTENSIONS:
        raise click.UsageError(f"-o {output}: -o writes the report, not a picture; draw one with --plot {output}")
    named = OUTPUT_EXTENSIONS.get(ext)
    if named is None:
        return fmt
    if named not in allowed:
        raise click.UsageError(
            f"-o {output}: {ext} names the {named} format, which this command does not write "
            f"(--format {'|'.join(map(str, allowed))})"
        )
    if given("fmt") and fmt is not named:
        raise click.UsageError(
            f"-o {output} names the {named} format but --format is {fmt}; give one of them, "
            "or a FILE whose extension agrees"
        )
    return named
