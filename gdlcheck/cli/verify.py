"""``gdlcheck verify``: check that each INPUT (or a Python callable) commutes with a group."""

from __future__ import annotations

import shlex
import sys
from functools import partial

import click

from gdlcheck.cli.common import (
    TOLERANCE,
    Integer,
    check_plot,
    complete_files,
    error_line,
    given,
    group_options,
    make_group_options,
    message,
    note_stdin,
    plot_option,
    save_plot,
    spelled,
    worst,
)
from gdlcheck.cli.formats import JSON, JUNIT, TEXT, emit, format_option
from gdlcheck.cli.streams import code_writes_to_stderr
from gdlcheck.errors import GdlcheckError
from gdlcheck.tolerances import TOL
from gdlcheck.verdicts import Method, Verdict


@click.command("verify")
@click.argument("inputs", nargs=-1, required=False, metavar="INPUT...", shell_complete=complete_files)
@group_options
@click.option(
    "--method",
    type=click.Choice([m.word for m in Method]),
    default=Method.AUTO.word,
    show_default=True,
    help="exact: compare weights (sympy for symbols); numeric: random inputs; auto: both where they apply.",
)
@click.option(
    "--tol", type=TOLERANCE, default=TOL, show_default=True, help="Relative tolerance for numeric weights and trials."
)
@click.option(
    "--trials", type=Integer(min=1, max=10_000), default=8, show_default=True, help="Random inputs per generator."
)
@click.option(
    "--seed", type=Integer(min=0), default=None, help="Seed of the random inputs [default: the spec's seed, else 0]."
)
@format_option(TEXT, JSON, JUNIT, help="junit: one JUnit XML report (a test case per input) for CI.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing; the exit code tells the verdict.")
@click.option("--explain", is_flag=True, help="Write the proof out step by step: each layer's step and its conditions.")
@plot_option("the matrix, its projection and where they differ (one matrix INPUT)")
@click.option(
    "--callable",
    "target",
    metavar="MODULE:ATTR",
    help="Verify a Python callable or torch module instead of INPUT (runs your code; MODULE is "
    "imported from the current folder or the installed packages, or is a file PATH.py).",
)
@click.option("--input-shape", metavar="NxD", help="With --callable: the input's shape, N points by D channels.")
@click.option(
    "--dtype",
    type=click.Choice(["float64", "float32"]),
    default=None,
    help="With --callable: run it in this dtype (compared in float64; float32 --tol default 1e-5) [default: float64].",
)
@click.option(
    "--expect",
    type=click.Choice(["equivariant", "invariant"]),
    default=None,
    help="With --callable: invariant for an output without the points axis [default: equivariant].",
)
@click.option(
    "--points-axis",
    metavar="AXIS",
    help="With --callable: the input's axis that holds the points (negative counts from the end; two "
    "axes '1,2' for a grid group on an image) [default: the first axis that is not a batch axis].",
)
@click.option("--batch-axes", metavar="AXES", help="With --callable: axes that are never permuted (e.g. 0).")
@click.option(
    "--input",
    "input_kinds",
    multiple=True,
    metavar="KIND",
    help="With --callable: how the next argument moves: points (random, --input-shape), points:SHAPE, "
    "pairs (random, --input-shape NxNxD: an order-2 input moved as P X P^T), "
    "graph (the --graph FILE, moved with the points), fixed (the --graph FILE, held); NAME=KIND "
    "passes it as a keyword; repeatable [default: points, then graph with --graph].",
)
@click.option(
    "--output",
    "output_kinds",
    multiple=True,
    metavar="KIND",
    help="With --callable: how the next output moves: points[:AXIS], pairs[:A,B] (P W P^T), edges, "
    "invariant, ignored; NAME=KIND for a dict; repeatable [default: points].",
)
@click.option(
    "--weights",
    metavar="FILE",
    help="With --callable: a trained state_dict (.pt .pth .safetensors .npz; no code in it runs) loaded "
    "into the module before the check.",
)
@click.option(
    "--allow-path",
    "allow",
    multiple=True,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="A folder a spec's {file: ...} may read besides the spec's own; repeatable.",
)
@click.option(
    "--tensor",
    "tensors",
    multiple=True,
    metavar="NAME",
    help="For a weights file (.pt .pth .safetensors .npz): check the tensor NAME, or the tensors on the "
    "points a glob such as 'encoder.*' matches; repeatable [default: every tensor, each judged as what "
    "it is: a matrix, bias or kernel on the points, else listed as not on them].",
)
def command(
    inputs,
    group,
    n,
    shape,
    generators,
    graph,
    method,
    tol,
    trials,
    seed,
    fmt,
    quiet,
    explain,
    plot,
    target,
    input_shape,
    dtype,
    expect,
    points_axis,
    batch_axes,
    input_kinds,
    output_kinds,
    weights,
    allow,
    tensors,
):
    """Check that each INPUT (a spec or a matrix; - for standard input) commutes with a group.

    \b
    Example:
      gdlcheck verify samples/conv.yaml
      gdlcheck verify weights.npy --group dihedral --format json
      gdlcheck verify model.safetensors --group cyclic --tensor 'conv*.weight'
      gdlcheck verify specs/*.yaml --format junit > gdlcheck.xml
      gdlcheck verify --callable mylayers:centred --input-shape 6x2 --group symmetric
      gdlcheck verify --callable model.py:Net --weights ckpt.safetensors --input-shape 10x2 --group symmetric
      gdlcheck verify --callable models:conv --input-shape 100x16 --graph edges.npy --group symmetric
    """
    from gdlcheck import api
    from gdlcheck.output.report import verify_json

    opts = make_group_options(group, n, shape, generators, graph)
    code_options = (input_shape, dtype, expect, points_axis, batch_axes, input_kinds, output_kinds, weights)
    _refuse_what_does_not_apply(inputs, target, code_options, method, fmt, quiet, plot)
    if allow and target is not None:
        raise click.UsageError("--allow-path lets a spec's {file: ...} read a folder; --callable reads no spec")
    if explain and fmt is not TEXT:
        raise click.UsageError(f'--explain writes the proof into the text report; --format {fmt} has it as "proof"')
    if tensors and not any(api.is_weights_file(path) for path in inputs):
        raise click.UsageError("--tensor picks tensors of a weights file (.pt .pth .safetensors .npz); no INPUT is one")
    tol_given = given("tol")
    if target is not None:
        inputs = (target,)
    stdin_data, matrix = None, None
    note_stdin(inputs)
    if plot:
        check_plot(plot)
        if inputs == ("-",):
            stdin_data = sys.stdin.buffer.read()
        if len(tensors) > 1:
            raise click.UsageError("--plot draws one matrix: give one --tensor NAME")
        # a spec or a symbolic matrix is refused before any work
        matrix = api.input_matrix(inputs[0], stdin_data, tensor=tensors[0] if tensors else None)
    codes, entries = [], []
    for path in inputs:
        if target is None and api.is_weights_file(path):
            _verify_weights(path, opts, tensors, method, tol, trials, seed, fmt, quiet, codes, entries)
            continue
        try:
            if target is not None:
                with code_writes_to_stderr():
                    result = api.verify_target(
                        target,
                        opts,
                        input_shape,
                        expect=expect,
                        dtype=dtype,
                        method=method,
                        tol=tol if tol_given else None,
                        trials=trials,
                        seed=seed,
                        points_axis=points_axis,
                        batch_axes=batch_axes,
                        inputs=list(input_kinds),
                        outputs=list(output_kinds),
                        weights=weights,
                    )
            else:
                result = api.verify_input(
                    path,
                    opts,
                    method=method,
                    tol=tol,
                    trials=trials,
                    seed=seed,
                    stdin_data=stdin_data,
                    allow_paths=allow,
                )
        except GdlcheckError as err:
            _unreadable(path, err, fmt, quiet, codes, entries)
            continue
        hints = _hints(result, path, tol_given, opts)
        entries.append((path, result, hints))
        codes.append(Verdict(result.verdict).exit_code)
        if not quiet:
            emit(
                fmt,
                text=partial(_report, result, hints, explain),
                json=partial(verify_json, result, hints=hints),
                junit=None,
            )
    if not quiet:  # after the inputs: JUnit's one report, the text's summary of several inputs
        emit(
            fmt, junit=lambda: _junit(entries), json=None, text=partial(_summary, entries) if len(inputs) > 1 else None
        )
    if plot and entries and entries[0][1] is not None:
        from gdlcheck.output.plot_pictures import counterexample_cells, matrix_picture

        result = entries[0][1]
        projected = api.project(matrix, result.group)
        save_plot(
            matrix_picture(
                inputs[0],
                matrix,
                projected.matrix,
                result.group,
                projected.distance,
                Verdict(result.verdict).word,
                tol=tol,
                cells=counterexample_cells(result),
            ),
            plot,
        )
    sys.exit(worst(codes))


def _report(result, hints, explain: bool):
    from gdlcheck.output.render_verify import render_verify

    return render_verify(result, hints, explain=explain)


def _summary(entries):
    from gdlcheck.output.render_verify import render_summary

    return render_summary([(path, result) for path, result, _ in entries])


def _junit(entries) -> str:
    from gdlcheck.output.junit import junit_xml

    return junit_xml(entries)


def _verify_weights(path, opts, tensors, method, tol, trials, seed, fmt, quiet, codes, entries) -> None:
    """A weights file: one row per tensor (text), one JSON object per tensor, a test case per tensor."""
    from gdlcheck import api

    try:
        checked = api.verify_weights(path, opts, tensors=tensors, method=method, tol=tol, trials=trials, seed=seed)
    except GdlcheckError as err:
        _unreadable(path, err, fmt, quiet, codes, entries)
        return
    for c in checked:  # each tensor's JSON as it is judged, with its error line
        label = f"{path}:{c.name}"
        if c.error is not None:
            error_line(message(c.error))
            codes.append(Verdict.ERROR.exit_code)
            entries.append((label, None, message(c.error)))
        elif c.result is not None and c.judged:  # one not judged (it may mix features) counts for nothing
            codes.append(Verdict(c.result.verdict).exit_code)
            entries.append((label, c.result, ()))
        elif c.kernel is not None:  # a kernel judged by its conditions (no Verified): its code, no JUnit case
            codes.append(Verdict(c.kernel.verdict).exit_code)
        if not quiet:
            emit(fmt, json=partial(c.to_json, message(c.error) if c.error is not None else None), text=None, junit=None)
    if not quiet:
        emit(fmt, text=partial(_weights_report, path, checked), json=None, junit=None)


def _weights_report(path, checked):
    from gdlcheck.output.render_verify import render_weights

    return render_weights(path, checked)


def _unreadable(path, err: GdlcheckError, fmt, quiet, codes, entries) -> None:
    """An input that could not be read: its line on stderr, exit 2, a row of the summary, and
    its JSON error object."""
    from gdlcheck.output.report import error_json

    err.located(file=path)
    error_line(message(err))
    codes.append(Verdict.ERROR.exit_code)
    entries.append((path, None, message(err)))
    if not quiet:
        emit(fmt, json=lambda: error_json(path, message(err)), text=None, junit=None)


def _refuse_what_does_not_apply(inputs, target, code_options, method, fmt, quiet, plot) -> None:
    """Every option given must do something for this command and these inputs (else exit 2, saying why)."""
    if inputs.count("-") > 1:
        raise click.UsageError("standard input '-' can be read only once")
    if target is not None and inputs:
        raise click.UsageError("give INPUT files or --callable MODULE:ATTR, not both")
    if target is None and not inputs:
        raise click.UsageError("missing INPUT: give a spec or matrix file (- for standard input), or --callable")
    if target is None and any(code_options):
        raise click.UsageError(
            "--input-shape, --dtype, --expect, --points-axis, --batch-axes, --input, --output and "
            "--weights go with --callable (a spec says expect:)"
        )
    if method == Method.EXACT and given("trials"):
        raise click.UsageError("--trials sets the numeric trials, and --method exact runs none")
    if quiet and given("fmt"):
        raise click.UsageError(f"--quiet prints nothing, so --format {fmt} would not be printed; give one of them")
    if plot and (target is not None or len(inputs) != 1):
        raise click.UsageError("--plot draws one matrix: give a single matrix INPUT (not --callable)")


def _hints(result, path: str, tol_given: bool, opts) -> tuple[str, ...]:
    """Hints that save a round trip: a near miss under the default tolerance."""
    from gdlcheck.output.words import near_miss_hint

    project = None
    if result.kind == "matrix" and path != "-":
        words = ["gdlcheck", "project", path]
        for flag, value in (("--group", opts.name), ("-n", opts.n), ("--shape", opts.shape), ("--graph", opts.graph)):
            if value is not None:
                words += [flag, str(value)]
        for g in opts.generators:
            words += ["--generators", g]
        project = shlex.join(words)
    hint = near_miss_hint(result, tol_given, project)
    return (spelled(hint),) if hint else ()
