"""``gdlcheck verify``: check that each INPUT (or a Python callable) commutes with a group."""

from __future__ import annotations

import sys

import click

from gdlcheck.cli.common import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_INPUT,
    EXIT_OK,
    TOLERANCE,
    Integer,
    console,
    error_line,
    group_options,
    make_group_options,
    message,
    worst,
)
from gdlcheck.errors import GdlcheckError
from gdlcheck.tolerances import TOL


@click.command("verify")
@click.argument("inputs", nargs=-1, required=False, metavar="INPUT...")
@group_options
@click.option("--method", type=click.Choice(["auto", "exact", "numeric", "both"]), default="auto", show_default=True,
              help="exact: compare weights (sympy for symbols); numeric: random inputs; auto: both where they apply.")
@click.option("--tol", type=TOLERANCE, default=TOL, show_default=True,
              help="Relative tolerance for numeric weights and trials.")
@click.option("--trials", type=Integer(min=1, max=10_000), default=8, show_default=True,
              help="Random inputs per generator.")
@click.option("--seed", type=Integer(min=0), default=None,
              help="Seed of the random inputs [default: the spec's seed, else 0].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; the exit code tells the verdict.")
@click.option("--callable", "target", metavar="MODULE:ATTR",
              help="Verify a Python callable or torch module instead of INPUT (runs your code; MODULE is "
                   "imported from the current folder or the installed packages).")
@click.option("--input-shape", metavar="NxD", help="With --callable: the input's shape, N points by D channels.")
@click.option("--dtype", type=click.Choice(["float64", "float32"]), default=None,
              help="With --callable: run it in this dtype (compared in float64; float32 --tol default 1e-5) "
                   "[default: float64].")
@click.option("--expect", type=click.Choice(["equivariant", "invariant"]), default=None,
              help="With --callable: invariant for an output without the points axis [default: equivariant].")
@click.option("--allow-path", "allow", multiple=True, metavar="DIR", type=click.Path(file_okay=False),
              help="A folder a spec's {file: ...} may read besides the spec's own; repeatable.")
def command(inputs, group, n, shape, generators, graph, method, tol, trials, seed, fmt, quiet, target, input_shape,
            dtype, expect, allow):
    """Check that each INPUT (a spec or a matrix; - for standard input) commutes with a group.

    \b
    Example:
      gdlcheck verify samples/conv.yaml
      gdlcheck verify weights.npy --group dihedral --format json
      gdlcheck verify --callable mylayers:centred --input-shape 6x2 --group symmetric
    """
    from gdlcheck import api
    from gdlcheck.output.report import dumps, error_json, verify_json

    opts = make_group_options(group, n, shape, generators, graph)
    if inputs.count("-") > 1:
        raise click.UsageError("standard input '-' can be read only once")
    if target is not None and inputs:
        raise click.UsageError("give INPUT files or --callable MODULE:ATTR, not both")
    if target is None and not inputs:
        raise click.UsageError("missing INPUT: give a spec or matrix file (- for standard input), or --callable")
    if target is None and (input_shape or dtype or expect):
        raise click.UsageError("--input-shape, --dtype and --expect go with --callable (a spec says expect:)")
    if target is not None:
        inputs = (target,)
        tol_given = click.get_current_context().get_parameter_source("tol") is not click.core.ParameterSource.DEFAULT
    codes, results, errors = [], [], 0
    out = None if (fmt == "json" or quiet) else console()
    for path in inputs:
        try:
            if target is not None:
                result = api.verify_target(target, opts, input_shape, expect=expect, dtype=dtype, method=method,
                                           tol=tol if tol_given else None, trials=trials, seed=seed)
            else:
                result = api.verify_input(path, opts, method=method, tol=tol, trials=trials, seed=seed,
                                          allow_paths=allow)
        except GdlcheckError as err:
            err.located(file=path)
            error_line(message(err))
            errors += 1
            codes.append(EXIT_INPUT)
            if fmt == "json" and not quiet:
                click.echo(dumps(error_json(path, message(err))))
            continue
        results.append(result)
        codes.append(EXIT_OK if result.passed else (EXIT_INCONCLUSIVE if result.verdict == "inconclusive"
                                                    else EXIT_FAIL))
        if quiet:
            continue
        if fmt == "json":
            click.echo(dumps(verify_json(result)))
        else:
            from gdlcheck.output.render import render_verify

            out.print(render_verify(result))
    if out is not None and len(inputs) > 1:
        from gdlcheck.output.render import render_summary

        out.print(render_summary(results, errors))
    sys.exit(worst(codes))
