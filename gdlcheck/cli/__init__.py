"""The command line: a thin layer over :mod:`gdlcheck.api`, one module per command.

This package is the only code that writes to standard output or standard error, and the
only one that knows exit codes (docs/design.md section 3):

    0 holds / success   1 does not hold   2 usage or input error   3 inconclusive   70 internal error
    74 the output could not be written   130 interrupted
"""

from __future__ import annotations

import os
import sys

import click

from gdlcheck import __version__
from gdlcheck.cli.common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_OUTPUT,
    OutputError,
    error_line,
    message,
)
from gdlcheck.cli.streams import guarded_streams, quiet_warnings
from gdlcheck.errors import GdlcheckError
from gdlcheck.text import printable, safe_str


class _Interrupted(Exception):
    """SIGINT inside a command, carried past click (which prints an empty line for it)."""


class _Cli(click.Group):
    """Maps exceptions to one line on standard error and an exit code.

    Standard output is guarded (:class:`~gdlcheck.cli.streams.GuardedStdout`): a reader that
    went away (a closed pipe) discards the rest of the output and leaves the exit code to the
    verdicts; any other failure to write (a full disk, an I/O error) is one line and exit 74.
    Text that the stream's encoding cannot hold is escaped, and Python warnings never reach
    standard error.
    """

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv or bool(os.environ.get("GDLCHECK_DEBUG"))
        with quiet_warnings(), guarded_streams() as guard:
            code = self._run(argv, prog_name, complete_var, debug, guard, **extra)
        sys.exit(code)

    def _run(self, argv, prog_name, complete_var, debug, guard, **extra) -> int:
        try:
            code = super().main(argv, prog_name or "gdlcheck", complete_var, standalone_mode=False, **extra)
            code = code if isinstance(code, int) else EXIT_OK
        except SystemExit as err:  # the commands exit with their verdict's code; no other exit is one
            if not _exits_here(err):
                error_line(
                    f"the code under check called exit ({printable(safe_str(err.code))}) outside a check; "
                    "code must return, not exit"
                )
                code = EXIT_INPUT
            else:
                code = err.code if isinstance(err.code, int) else (EXIT_OK if err.code is None else EXIT_INPUT)
        except click.exceptions.NoArgsIsHelpError as err:
            click.echo(err.ctx.get_help())
            code = EXIT_OK
        except click.UsageError as err:
            hint = f" (see '{err.ctx.command_path} --help')" if err.ctx is not None else ""
            error_line(err.format_message() + hint)
            code = EXIT_INPUT
        except click.ClickException as err:
            error_line(err.format_message())
            code = EXIT_INPUT
        except GdlcheckError as err:
            error_line(message(err))
            code = EXIT_INPUT
        except OutputError as err:
            error_line(str(err))
            code = EXIT_OUTPUT
        except (_Interrupted, KeyboardInterrupt, click.Abort):
            click.echo("gdlcheck: interrupted", err=True)
            code = EXIT_INTERRUPTED
        except Exception as err:  # a bug in gdlcheck, or the machine's
            if debug:
                raise
            code = self._unexpected(err)
        try:
            guard.finish()
        except OutputError as err:
            if code != EXIT_OUTPUT:  # not reported yet: one line, however many writes failed
                error_line(str(err))
                code = EXIT_OUTPUT
        return code

    @staticmethod
    def _unexpected(err: Exception) -> int:
        if isinstance(err, OSError) and not _cwd_exists():
            error_line("the current folder no longer exists; cd to a folder and run again")
            return EXIT_INPUT
        click.echo(
            f"gdlcheck: internal error: {type(err).__name__}: {printable(safe_str(err))} -- this is a bug in "
            "gdlcheck; please report it with the input and 'gdlcheck --debug ...' output",
            err=True,
        )
        return EXIT_INTERNAL


def _exits_here(err: SystemExit) -> bool:
    """Was ``err`` raised by a command of this package (a verdict's exit) or by click (shell
    completion), not by other code?"""
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = tb.tb_frame.f_globals.get("__name__", "") if tb is not None else "gdlcheck.cli"
    return module.startswith(("gdlcheck.cli", "click"))


def _cwd_exists() -> bool:
    try:
        os.getcwd()
    except OSError:
        return False
    return True


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="gdlcheck")
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error.")
def cli(debug: bool) -> None:
    """Verify that neural-network layers respect a symmetry group, and derive the form it forces.

    \b
    Examples:
      gdlcheck verify samples/layer.yaml
      gdlcheck derive --group cyclic -n 8
      gdlcheck derive --group cyclic -n 6 --format csv | gdlcheck verify - --group cyclic
    """


def main() -> None:
    cli()


def _register() -> None:
    from gdlcheck.cli import derive, groups, inspection, kinds, measure, project, symmetries, verify

    for module in (verify, derive, project, inspection, groups, symmetries, measure, kinds):
        cli.add_command(module.command)
    cli.add_command(kinds.schema_command)


_register()
