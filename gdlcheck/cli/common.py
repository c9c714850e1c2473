"""What every command shares: exit codes, the flag spelling of parameters, error lines,
the group options, the Console, and writing output to standard output or ``-o FILE``.

The command line is the only code that prints or exits (docs/architecture.md).
"""

from __future__ import annotations

import os
import sys

import click

from gdlcheck.errors import GdlcheckError
from gdlcheck.text import NUMBER_FORMS, is_number_text, printable
from gdlcheck.verdicts import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_INPUT, EXIT_OK  # noqa: F401  (the verdicts' codes)

EXIT_INTERNAL = 70
EXIT_OUTPUT = 74  # the output could not be written (sysexits' EX_IOERR): full disk, I/O error, closed
EXIT_INTERRUPTED = 130  # SIGINT (128 + 2)
# With several inputs the exit code is the worst one: 2 over 1 over 3 over 0.
_SEVERITY = {EXIT_OK: 0, EXIT_INCONCLUSIVE: 1, EXIT_FAIL: 2, EXIT_INPUT: 3}

# The library names its parameters as Python does; the command line spells them as flags.
FLAGS = {
    "n": "-n",
    "shape": "--shape",
    "generators": "--generators",
    "graph": "--graph",
    "group": "--group",
    "in_order": "--in-order",
    "out_order": "--out-order",
    "channels_in": "--channels-in",
    "channels_out": "--channels-out",
    "input_shape": "--input-shape",
    "callable": "--callable",
    "dtype": "--dtype",
    "expect": "--expect",
    "method": "--method",
    "tol": "--tol",
    "trials": "--trials",
    "seed": "--seed",
    "points_axis": "--points-axis",
    "batch_axes": "--batch-axes",
    "inputs": "--input",
    "outputs": "--output",
    "plot": "--plot",
}


def worst(codes) -> int:
    return max(codes, key=lambda c: _SEVERITY.get(c, 4), default=EXIT_OK)


def message(err: GdlcheckError) -> str:
    """The error's one line, its parameters spelled as this command line's flags."""
    return err.message(FLAGS.get)


def spelled(text: str) -> str:
    """A sentence of the library with its parameters spelled as this command line's flags."""
    from gdlcheck.errors import spell

    return spell(text, FLAGS.get)


def given(name: str) -> bool:
    """Whether the option ``name`` (its Python name) was given on the command line, not defaulted."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source is not click.core.ParameterSource.DEFAULT


def error_line(text: str) -> None:
    click.echo(f"gdlcheck: error: {printable(text)}", err=True)


class Progress:
    """Steps of a long run on standard error: only on a terminal, only after two seconds, each
    line overwriting the last and cleared at the end (never in JSON, never when piped)."""

    def __init__(self, what: str, after: float = 2.0):
        import time

        self.what = what
        self.start = time.monotonic()
        self.after = after
        self.shown = False
        self.on = bool(sys.stderr is not None and sys.stderr.isatty())

    def __call__(self, step: str) -> None:
        import time

        if self.on and time.monotonic() - self.start >= self.after:
            sys.stderr.write(f"\r\x1b[Kgdlcheck: {self.what}: {step} ({time.monotonic() - self.start:.0f} s)")
            sys.stderr.flush()
            self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


class OutputError(Exception):
    """Writing the output failed (a full disk, an I/O error, a closed standard output): exit 74."""


def output_failed(err: OSError, where: str) -> OutputError:
    reason = (err.strerror or str(err) or type(err).__name__).lower()
    return OutputError(f"cannot write {where}: {reason}")


def check_output_path(ctx, param, value):
    """``-o FILE``: ``-`` is standard output; a value that looks like an option is refused (click
    would take ``-o --format`` as the file name ``--format``); an empty one is refused too."""
    value = nonempty(ctx, param, value)
    if value is None or value == "-":
        return None
    if value.startswith("-"):
        raise click.BadParameter(
            f"{value!r} looks like an option, not a file name (write ./{value} for a file of that name)",
            ctx=ctx,
            param=param,
        )
    return value


def console(stderr: bool = False):
    from rich.console import Console

    # NO_COLOR: no escape codes at all (rich alone keeps bold and dim on a terminal)
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(stderr=stderr, highlight=False, soft_wrap=False, color_system=None if no_color else "auto")


def complete_groups(ctx, param, incomplete):
    """Shell completion of --group: the catalogue's names and aliases."""
    from click.shell_completion import CompletionItem

    from gdlcheck.api import group_names

    return [CompletionItem(name) for name in group_names() if name.startswith(incomplete.lower())]


def complete_files(ctx, param, incomplete):
    """Shell completion of an INPUT or FILE: the shell's own file names."""
    from click.shell_completion import CompletionItem

    return [CompletionItem(incomplete, type="file")]


class Tolerance(click.ParamType):
    """``--tol``: a finite number >= 0, written in one of the number forms gdlcheck reads."""

    name = "float"

    def convert(self, value, param, ctx):
        import math

        if isinstance(value, float) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and is_number_text(value):
            number = float(value)
        else:
            self.fail(f"{value!r} is not a number ({NUMBER_FORMS})", param, ctx)
        if not math.isfinite(number) or number < 0:
            self.fail(f"{value!r} must be a finite number >= 0", param, ctx)
        return number


TOLERANCE = Tolerance()


class Integer(click.IntRange):
    """An integer option written in decimal digits: ``1_000``, ``0x10`` and non-ASCII digits,
    which Python's ``int()`` reads, are refused like any other undocumented number form."""

    def convert(self, value, param, ctx):
        import re

        if isinstance(value, str) and not re.fullmatch(r"[+-]?[0-9]+", value.strip(" \t")):
            self.fail(f"{value!r} is not an integer written in decimal digits", param, ctx)
        return super().convert(value, param, ctx)


def group_options(fn):
    """--group, -n, --shape, --generators, --graph."""
    fn = click.option(
        "--graph",
        type=click.Path(dir_okay=False),
        shell_complete=complete_files,
        help="Adjacency matrix file (group automorphisms); with --callable also the graph the callable "
        "is given (an adjacency, a 2 x E edge list, or a scipy.sparse .npz).",
    )(fn)
    fn = click.option(
        "--generators",
        "generators",
        multiple=True,
        metavar="PERM",
        help="A generator in cycle notation '(0 1)(2 3)' or array form '[1, 0, 3, 2]'; repeatable.",
    )(fn)
    fn = click.option("--shape", metavar="HxW", help="Grid shape for translations, p4, p4m (e.g. 8x8).")(fn)
    fn = click.option("-n", "n", type=Integer(min=1), help="Number of points.")(fn)
    fn = click.option(
        "--group",
        "-g",
        "group",
        metavar="NAME",
        shell_complete=complete_groups,
        help="Group name (see 'gdlcheck groups').",
    )(fn)
    return fn


def nonempty(ctx, param, value):
    """A FILE option given as '' would silently write nothing (or standard output): refuse it."""
    if value is not None and not str(value).strip():
        raise click.BadParameter("the FILE name is empty")
    return value


def plot_option(what: str):
    """``--plot FILE``: also draw ``what`` with matplotlib, PNG, SVG or PDF by the extension."""
    return click.option(
        "--plot",
        "plot",
        metavar="FILE",
        type=click.Path(dir_okay=False),
        shell_complete=complete_files,
        callback=nonempty,
        help=f"Also draw {what} into FILE: .png, .svg or .pdf (needs matplotlib: pip install 'gdlcheck[plot]').",
    )


def note_stdin(paths) -> None:
    """Before '-' is read from a terminal (where it waits silently for Ctrl-D), say so on stderr."""
    if "-" in paths and stdin_is_terminal():
        click.echo(
            "gdlcheck: waiting for standard input (a matrix or a spec): type or paste it and end it with "
            "Ctrl-D (Ctrl-Z then Enter on Windows), or give a file instead of -",
            err=True,
        )


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):  # closed or detached
        return False


def check_plot(path: str | None) -> None:
    """Refuse a --plot FILE of the wrong extension, in a folder that does not exist, or without
    matplotlib, before any work is done."""
    if path:
        import os

        from gdlcheck.output import plot

        plot.plot_format(path)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise GdlcheckError(
                f"--plot {path}: the folder {os.path.dirname(path) or folder!r} does not exist; create it first"
            )
        plot.require()


def check_svg(svg: str | None) -> None:
    """--export-svg writes SVG: refuse a FILE with another extension."""
    import os

    if svg and os.path.splitext(svg)[1].lower() != ".svg":
        raise click.UsageError(
            f"--export-svg {svg}: it writes SVG, so FILE ends in .svg (for a PNG or PDF picture use --plot FILE)"
        )


def save_plot(picture, path: str) -> None:
    """Draw the picture in memory, then write it like any output: a folder that is not there is exit 2,
    a full disk exit 74, for PNG, SVG and PDF alike."""
    from gdlcheck.output import plot

    data = plot.render(picture, path)
    try:
        fh = open(path, "wb")
    except OSError as err:
        raise GdlcheckError(f"cannot write the picture: {(err.strerror or str(err)).lower()}", file=str(path)) from None
    try:
        with fh:
            fh.write(data)
    except OSError as err:
        raise output_failed(err, str(path)) from None


def make_group_options(group, n, shape, generators, graph):
    from gdlcheck.api import GroupOptions

    return GroupOptions(name=group, n=n, shape=shape, generators=tuple(generators), graph=graph)


def build_group(opts, what: str, n_default: int | None = None):
    """The group the options name (``n_default``: the input's size, used when -n is not given)."""
    if not opts.given:
        raise click.UsageError(f"{what} needs --group NAME")
    return opts.build(n_default=n_default)


# --------------------------------------------------------------------------- writing


def open_output(output: str, mode: str):
    """Open ``-o FILE`` for writing; a path that cannot be opened is the user's error (exit 2)."""
    try:
        if "b" in mode:
            return open(output, mode)
        return open(output, mode, encoding="utf-8", errors="backslashreplace")
    except OSError as err:
        raise GdlcheckError(f"cannot write: {(err.strerror or str(err)).lower()}", file=output) from None


def write_file(output: str, mode: str, write) -> None:
    """Open ``output`` and run ``write(fh)``; a failure while writing (a full disk) is exit 74."""
    fh = open_output(output, mode)
    try:
        with fh:
            write(fh)
    except OSError as err:
        raise output_failed(err, output) from None


def write_text(text: str, output: str | None) -> None:
    if output:
        write_file(output, "w", lambda fh: fh.write(text))
    else:
        click.echo(text, nl=False)


def write_npy(array, output: str | None) -> None:
    import io

    import numpy as np

    if output:  # a file handle: np.save(path) would append ".npy"
        write_file(output, "wb", lambda fh: np.save(fh, array))
        return
    if sys.stdout is None or not hasattr(sys.stdout, "buffer"):
        raise OutputError("cannot write standard output: it is closed")
    if sys.stdout.isatty():
        raise click.UsageError("--format npy writes binary: give -o FILE or redirect standard output")
    buf = io.BytesIO()
    np.save(buf, array)
    sys.stdout.flush()
    sys.stdout.buffer.write(buf.getvalue())
    sys.stdout.flush()


def print_rich(renderable, output: str | None = None) -> None:
    """The renderable on standard output, or into ``-o FILE`` (120 columns, no colour)."""
    if output:
        from rich.console import Console

        write_file(output, "w", lambda fh: Console(file=fh, width=120, color_system=None).print(renderable))
    else:
        console().print(renderable)


def save_svg(renderable, svg: str, title: str = "gdlcheck") -> None:
    """The renderable as an SVG picture (``--export-svg FILE``)."""
    import io

    from rich.console import Console

    # a recording console of its own, so the picture keeps the colours even when
    # standard output is not a terminal
    recorder = Console(record=True, file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")
    recorder.print(renderable)
    write_file(svg, "w", lambda fh: fh.write(recorder.export_svg(title=title)))
