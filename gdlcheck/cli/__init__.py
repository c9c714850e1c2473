"""The command line: a thin layer over :mod:`gdlcheck.api`, one module per command.

This package is the only code that writes to standard output or standard error, and the
only one that knows exit codes (DESIGN.md section 3):

    0 holds / success   1 does not hold   2 usage or input error   3 inconclusive   70 internal error
"""

from __future__ import annotations

import os
import sys

import click

from gdlcheck import __version__
from gdlcheck.cli.common import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, error_line, message
from gdlcheck.errors import GdlcheckError


class _Cli(click.Group):
    """Maps exceptions to one line on standard error and an exit code."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv or bool(os.environ.get("GDLCHECK_DEBUG"))
        try:
            code = super().main(argv, prog_name or "gdlcheck", complete_var, standalone_mode=False, **extra)
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
        except click.Abort:
            click.echo("gdlcheck: interrupted", err=True)
            code = 130
        except BrokenPipeError:
            code = EXIT_OK
        except Exception as err:  # a bug in gdlcheck
            if debug:
                raise
            click.echo(f"gdlcheck: internal error: {type(err).__name__}: {err} -- this is a bug in gdlcheck; "
                       "please report it with the input and 'gdlcheck --debug ...' output", err=True)
            code = EXIT_INTERNAL
        sys.exit(code if isinstance(code, int) else EXIT_OK)


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
    from gdlcheck.cli import derive, groups, inspection, kinds, project, symmetries, verify

    for module in (verify, derive, project, inspection, groups, symmetries, kinds):
        cli.add_command(module.command)
    cli.add_command(kinds.schema_command)


_register()
