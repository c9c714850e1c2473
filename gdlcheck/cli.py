"""The command line: a thin layer over the library.

This is the only module that writes to standard output or standard error, and the only
one that knows exit codes (DESIGN.md section 3):

    0 holds / success   1 does not hold   2 usage or input error   3 inconclusive   70 internal error
"""

from __future__ import annotations

import os
import sys

import click

from gdlcheck import __version__
from gdlcheck.errors import GdlcheckError

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 70
# With several inputs the exit code is the worst one: 2 over 1 over 3 over 0.
_SEVERITY = {EXIT_OK: 0, EXIT_INCONCLUSIVE: 1, EXIT_FAIL: 2, EXIT_INPUT: 3}


def worst(codes) -> int:
    return max(codes, key=lambda c: _SEVERITY.get(c, 4), default=EXIT_OK)


def _error_line(message: str) -> None:
    click.echo(f"gdlcheck: error: {message}", err=True)


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
            _error_line(err.format_message() + hint)
            code = EXIT_INPUT
        except click.ClickException as err:
            _error_line(err.format_message())
            code = EXIT_INPUT
        except GdlcheckError as err:
            _error_line(str(err))
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


def _console(stderr: bool = False):
    from rich.console import Console

    # NO_COLOR: no escape codes at all (rich alone keeps bold and dim on a terminal)
    no_color = bool(os.environ.get("NO_COLOR"))
    return Console(stderr=stderr, highlight=False, soft_wrap=False, color_system=None if no_color else "auto")


def group_options(fn):
    """--group, -n, --shape, --generators, --graph."""
    fn = click.option("--graph", type=click.Path(dir_okay=False), help="Adjacency matrix file (group automorphisms).")(fn)
    fn = click.option("--generators", "generators", multiple=True, metavar="PERM",
                      help="A generator in cycle notation '(0 1)(2 3)' or array form '[1, 0, 3, 2]'; repeatable.")(fn)
    fn = click.option("--shape", metavar="HxW", help="Grid shape for translations, p4, p4m (e.g. 8x8).")(fn)
    fn = click.option("-n", "n", type=click.IntRange(min=1), help="Number of points.")(fn)
    fn = click.option("--group", "-g", "group", metavar="NAME", help="Group name (see 'gdlcheck groups').")(fn)
    return fn


def _group_options(group, n, shape, generators, graph):
    from gdlcheck.sources import GroupOptions

    return GroupOptions(name=group, n=n, shape=shape, generators=tuple(generators), graph=graph)


def _build_group(opts, what: str, n_default: int | None = None):
    """The group the options name (``n_default``: the input's size, used when -n is not given)."""
    if not opts.given:
        raise click.UsageError(f"{what} needs --group NAME")
    return opts.build(n_default=n_default)


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


# --------------------------------------------------------------------------- verify


@cli.command()
@click.argument("inputs", nargs=-1, required=False, metavar="INPUT...")
@group_options
@click.option("--method", type=click.Choice(["auto", "exact", "numeric", "both"]), default="auto", show_default=True,
              help="exact: compare weights (sympy for symbols); numeric: random inputs; auto: both where they apply.")
@click.option("--tol", type=click.FloatRange(min=0), default=1e-9, show_default=True,
              help="Relative tolerance for numeric weights and trials.")
@click.option("--trials", type=click.IntRange(min=1, max=10_000), default=8, show_default=True,
              help="Random inputs per generator.")
@click.option("--seed", type=click.IntRange(min=0), default=None, help="Seed of the random inputs [default: the spec's seed, else 0].")
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
def verify(inputs, group, n, shape, generators, graph, method, tol, trials, seed, fmt, quiet, target, input_shape,
           dtype, expect):
    """Check that each INPUT (a spec or a matrix; - for standard input) commutes with a group.

    \b
    Example:
      gdlcheck verify samples/conv.yaml
      gdlcheck verify weights.npy --group dihedral --format json
      gdlcheck verify --callable mylayers:centred --input-shape 6x2 --group symmetric
    """
    from gdlcheck.report import dumps, error_json
    from gdlcheck.sources import resolve
    from gdlcheck.verification import Options, verify_layer

    opts = _group_options(group, n, shape, generators, graph)
    if inputs.count("-") > 1:
        raise click.UsageError("standard input '-' can be read only once")
    if target is not None and inputs:
        raise click.UsageError("give INPUT files or --callable MODULE:ATTR, not both")
    if target is None and not inputs:
        raise click.UsageError("missing INPUT: give a spec or matrix file (- for standard input), or --callable")
    if target is None and (input_shape or dtype or expect):
        raise click.UsageError("--input-shape, --dtype and --expect go with --callable (a spec says expect:)")
    if target is not None:
        from gdlcheck.api import verify_target

        inputs = (target,)
        tol_given = click.get_current_context().get_parameter_source("tol") is not click.core.ParameterSource.DEFAULT
    codes, results, errors = [], [], 0
    console = None if (fmt == "json" or quiet) else _console()
    for path in inputs:
        try:
            if target is not None:
                result = verify_target(target, opts, input_shape, expect=expect, dtype=dtype, method=method,
                                       tol=tol if tol_given else None, trials=trials, seed=seed)
            else:
                job = resolve(path, opts)
                options = Options(method=method, tol=tol, trials=trials,
                                  seed=seed if seed is not None else (job.seed or 0))
                result = verify_layer(job.layer, job.group, expect=job.expect, channels=job.channels,
                                      options=options, input=path, kind=job.kind, name=job.name)
        except GdlcheckError as err:
            err.located(file=path)
            _error_line(str(err))
            errors += 1
            codes.append(EXIT_INPUT)
            if fmt == "json" and not quiet:
                click.echo(dumps(error_json(path, str(err))))
            continue
        results.append(result)
        codes.append(EXIT_OK if result.passed else (EXIT_INCONCLUSIVE if result.verdict == "inconclusive"
                                                    else EXIT_FAIL))
        if quiet:
            continue
        if fmt == "json":
            click.echo(dumps(result.to_json()))
        else:
            from gdlcheck.render import render_verify

            console.print(render_verify(result))
    if console is not None and len(inputs) > 1:
        from gdlcheck.render import render_summary

        console.print(render_summary(results, errors))
    sys.exit(worst(codes))


# --------------------------------------------------------------------------- derive


@cli.command()
@group_options
@click.option("--in-order", type=click.IntRange(0, 4), default=1, show_default=True, help="Order of the input tensor.")
@click.option("--out-order", type=click.IntRange(0, 4), default=1, show_default=True, help="Order of the output tensor.")
@click.option("--channels-in", type=click.IntRange(min=1), default=1, show_default=True,
              help="Input channels D (free parameters = dimension x D x D2).")
@click.option("--channels-out", type=click.IntRange(min=1), default=1, show_default=True, help="Output channels D2.")
@click.option("--explain", is_flag=True, help="Show the constraint each generator imposes, then the orbits.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "latex", "csv", "npy"]), default="text",
              show_default=True, help="latex: a bmatrix; csv: the 1 -> 1 pattern; npy: the basis array.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to FILE.")
@click.option("--export-svg", "svg", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Also save the text report as an SVG picture.")
def derive(group, n, shape, generators, graph, in_order, out_order, channels_in, channels_out, explain, fmt, output,
           svg):
    """Derive the parameter form that a symmetry forces on a linear layer.

    The basis is the orbits of the group on the index tuples [n]^(L+K), output indices
    first; csv and latex print the order 1 -> 1 matrix, npy the basis array
    (dimension x output shape x input shape).

    \b
    Example:
      gdlcheck derive --group cyclic -n 8
      gdlcheck derive --group p4 --shape 8x8 --explain
      gdlcheck derive --group symmetric -n 5 --in-order 2 --out-order 2 --format json
      gdlcheck derive --group automorphisms --graph samples/petersen.csv --format npy -o basis.npy
    """
    from gdlcheck import derivation
    from gdlcheck.report import derive_json, dumps

    g = _build_group(_group_options(group, n, shape, generators, graph), "derive")
    d = derivation.derive(g, in_order=in_order, out_order=out_order, channels_in=channels_in,
                          channels_out=channels_out)
    if svg and fmt != "text":
        raise click.UsageError("--export-svg saves the text report; use it with --format text")
    if fmt == "npy":
        _write_npy(d.basis(), output)
        return
    if fmt in ("csv", "latex") and (in_order, out_order) != (1, 1):
        raise click.UsageError(f"--format {fmt} prints an order 1 -> 1 matrix; use json or npy for other orders")
    if fmt == "json":
        text = dumps(derive_json(d)) + "\n"
    elif fmt == "csv":
        text = derivation.pattern_csv(d.pattern)
    elif fmt == "latex":
        text = derivation.latex_form(d)
    else:
        from gdlcheck.render import render_derive

        lines = derivation.explain(d) if explain else None
        _print_rich(render_derive(d, lines), output, svg)
        return
    _write_text(text, output)


def _open_output(output: str, mode: str):
    """Open ``-o FILE`` for writing; a path that cannot be written is the user's error (exit 2)."""
    try:
        return open(output, mode, **({} if "b" in mode else {"encoding": "utf-8"}))
    except OSError as err:
        raise GdlcheckError(f"cannot write: {(err.strerror or str(err)).lower()}", file=output) from None


def _write_text(text: str, output: str | None) -> None:
    if output:
        with _open_output(output, "w") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False)


def _write_npy(array, output: str | None) -> None:
    import io

    import numpy as np

    if output:
        with _open_output(output, "wb") as fh:  # a file handle: np.save(path) would append ".npy"
            np.save(fh, array)
        return
    if sys.stdout.isatty():
        raise click.UsageError("--format npy writes binary: give -o FILE or redirect standard output")
    buf = io.BytesIO()
    np.save(buf, array)
    sys.stdout.buffer.write(buf.getvalue())
    sys.stdout.flush()


def _print_rich(renderable, output: str | None, svg: str | None = None) -> None:
    if output:
        from rich.console import Console

        with _open_output(output, "w") as fh:
            Console(file=fh, width=120, color_system=None).print(renderable)
    else:
        _console().print(renderable)
    if svg:
        import io

        from rich.console import Console

        # a recording console of its own, so the picture keeps the colours even when
        # standard output is not a terminal
        recorder = Console(record=True, file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")
        recorder.print(renderable)
        try:
            recorder.save_svg(svg, title="gdlcheck derive")
        except OSError as err:
            raise GdlcheckError(f"cannot write the SVG: {err.strerror}", file=svg) from None


# --------------------------------------------------------------------------- project


@cli.command()
@click.argument("matrix", metavar="MATRIX")
@group_options
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "npy"]), default="text", show_default=True,
              help="csv/npy: the matrix alone on standard output, the distance on standard error.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to FILE.")
def project(matrix, group, n, shape, generators, graph, fmt, output):
    """Print the nearest equivariant matrix to MATRIX (orbit averages) and its distance.

    Every entry is replaced by the mean of its orbit: the orthogonal projection onto the
    matrices that commute with the group.  The distance is |W - P|_F / |W|_F.

    \b
    Example:
      gdlcheck project trained.npy --group cyclic --format csv > tied.csv
      gdlcheck verify tied.csv --group cyclic
    """
    import numpy as np

    from gdlcheck.derivation import project as project_matrix
    from gdlcheck.matrices import check_square, load_matrix
    from gdlcheck.report import project_json, dumps

    W = check_square(load_matrix(matrix), file=matrix)
    if W.dtype == object:
        raise GdlcheckError("project needs numbers, not symbols", file=matrix)
    g = _build_group(_group_options(group, n, shape, generators, graph), "project", n_default=W.shape[0])
    if g.n != W.shape[0]:
        raise GdlcheckError(f"matrix is {W.shape[0]} x {W.shape[0]} but the group acts on n = {g.n} points",
                            file=matrix)
    P, dist = project_matrix(W, g)
    if fmt in ("npy", "csv"):
        click.echo(f"relative distance: {dist!r}", err=True)
        if fmt == "npy":
            _write_npy(P, output)
        else:
            _write_text("".join(",".join(repr(float(x)) for x in row) + "\n" for row in P.tolist()), output)
        return
    if fmt == "json":
        _write_text(dumps(project_json(matrix, g, P, dist)) + "\n", output)
        return
    from gdlcheck.render import render_project

    with np.printoptions(precision=4, suppress=True, linewidth=100, threshold=400, edgeitems=4):
        _print_rich(render_project(matrix, g, P, dist), output)


# --------------------------------------------------------------------------- inspect


@cli.command()
@click.argument("spec", metavar="SPEC")
@click.option("-n", "n", type=click.IntRange(min=1), help="Number of points, if the spec does not fix it.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Seed of the sample inputs [default: the spec's seed, else 0].")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def inspect(spec, n, seed, fmt):
    """Show SPEC's layer in the unified form Y = G(X, A) V(X) and the properties of G.

    What G depends on (constant, offset, graph, content) and whether it is static, square,
    sparse or approximately sparse, symmetric, row-stochastic and non-negative, measured on
    seeded sample inputs, beside the texts' adjacency-versus-attention comparison.

    \b
    Example:
      gdlcheck inspect samples/attention.yaml
      gdlcheck inspect samples/gcn.yaml --format json
    """
    from gdlcheck.nn import inspect_layer
    from gdlcheck.report import dumps
    from gdlcheck.sources import _points_of, resolve_layer

    job = resolve_layer(spec, n)
    points = job.group.n if job.group is not None else (n or _points_of(job.layer))
    try:
        result = inspect_layer(job.layer, points, job.channels, input=spec, kind=job.kind,
                               seed=seed if seed is not None else (job.seed or 0))
    except GdlcheckError as err:
        raise err.located(file=spec) from None
    if fmt == "json":
        click.echo(dumps(result.to_json()))
    else:
        from gdlcheck.render import render_inspect

        _console().print(render_inspect(result))


# --------------------------------------------------------------------------- groups


@cli.command()
@click.argument("name", required=False)
@click.option("-n", "n", type=click.IntRange(min=1), help="Number of points.")
@click.option("--shape", metavar="HxW", help="Grid shape for translations, p4, p4m.")
@click.option("--generators", multiple=True, metavar="PERM", help="A generator (for NAME = generators); repeatable.")
@click.option("--graph", type=click.Path(dir_okay=False), help="Adjacency matrix file (for automorphisms).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def groups(name, n, shape, generators, graph, fmt):
    """List the catalogue of groups, or show one group's order and generators.

    \b
    Example:
      gdlcheck groups
      gdlcheck groups cyclic -n 8 --format json
    """
    from gdlcheck.report import SCHEMA_VERSION, dumps, groups_json

    if name is None:
        if fmt == "json":
            from gdlcheck.groups import CATALOGUE

            for key, (needs, gens, order) in CATALOGUE.items():
                click.echo(dumps({"schema_version": SCHEMA_VERSION, "name": key, "needs": needs,
                                  "generators": gens, "order": order}))
        else:
            from gdlcheck.render import render_catalogue

            _console().print(render_catalogue())
        return
    g = _group_options(name, n, shape, generators, graph).build()
    if fmt == "json":
        click.echo(dumps(groups_json(g)))
    else:
        from gdlcheck.render import render_group

        _console().print(render_group(g))


# --------------------------------------------------------------------------- symmetries


@cli.command()
@click.argument("matrix", metavar="MATRIX")
@click.option("--tol", type=click.FloatRange(min=0), default=1e-9, show_default=True,
              help="Entries within tol x the largest entry count as equal.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def symmetries(matrix, tol, fmt):
    """Find every permutation that MATRIX commutes with, and name the groups it contains.

    The permutations sigma with W[sigma(i), sigma(j)] == W[i, j] are the automorphisms of W
    as an edge-coloured directed graph (equal entries share a colour); their group comes
    from BLISS (igraph): its order, generators, and the catalogue groups inside it.

    \b
    Example:
      gdlcheck symmetries trained.npy
      gdlcheck symmetries samples/petersen.csv --format json
    """
    from gdlcheck.matrices import check_square, load_matrix
    from gdlcheck.report import dumps, symmetries_json
    from gdlcheck.graphs import find_symmetries

    W = check_square(load_matrix(matrix), file=matrix)
    if W.dtype == object:
        raise GdlcheckError("symmetries needs numbers, not symbols", file=matrix)
    found = find_symmetries(W, tol=tol)
    if fmt == "json":
        click.echo(dumps(symmetries_json(matrix, found)))
    else:
        from gdlcheck.render import render_symmetries

        _console().print(render_symmetries(matrix, found))


def main() -> None:
    cli()
