"""``gdlcheck project``: the nearest equivariant matrix (orbit averages) and its distance."""

from __future__ import annotations

import sys

import click

from gdlcheck.cli.common import (
    check_output_path,
    check_plot,
    complete_files,
    group_options,
    make_group_options,
    note_stdin,
    plot_option,
    save_plot,
)
from gdlcheck.cli.formats import CSV, JSON, NPY, TEXT, emit, format_option, output_format

FORMATS = (TEXT, JSON, CSV, NPY)


@click.command("project")
@click.argument("matrix", metavar="MATRIX", shell_complete=complete_files)
@group_options
@format_option(
    *FORMATS,
    help="csv/npy: the matrix alone on standard output, the distance on standard error "
    "[default: the one -o FILE's extension names, else text].",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    shell_complete=complete_files,
    callback=check_output_path,
    help="Write to FILE, in the format its extension names (.txt .json .csv .npy); - for standard output.",
)
@plot_option("the matrix, its projection and where they differ")
@click.option(
    "--tensor",
    metavar="NAME",
    help="For a weights file (.pt .pth .safetensors .npz) with several square tensors: the one to project "
    "(a glob that matches one).",
)
def command(matrix, group, n, shape, generators, graph, fmt, output, plot, tensor):
    """Print the nearest equivariant matrix to MATRIX (orbit averages) and its distance.

    Every entry is replaced by the mean of its orbit: the orthogonal projection onto the
    matrices that commute with the group.  The distance is |W - P|_F / |W|_F.

    \b
    Example:
      gdlcheck project trained.npy --group cyclic --format csv > tied.csv
      gdlcheck verify tied.csv --group cyclic
      gdlcheck project trained.npy --group cyclic --plot projection.png
    """
    from gdlcheck import api

    fmt = output_format(fmt, output, FORMATS)
    opts = make_group_options(group, n, shape, generators, graph)
    if not opts.given:
        raise click.UsageError("project needs --group NAME")
    check_plot(plot)
    note_stdin([matrix])
    source = matrix
    if tensor and not api.is_weights_file(matrix):
        raise click.UsageError("--tensor picks a tensor of a weights file (.pt .pth .safetensors .npz)")
    if plot or tensor:  # read the matrix once (standard input cannot be read twice), then project and draw it
        stdin_data = sys.stdin.buffer.read() if matrix == "-" else None
        source = api.input_matrix(matrix, stdin_data, tensor=tensor)
    projected = api.project(source, group, n=n, shape=shape, generators=list(generators) or None, graph=graph)
    P, dist, g = projected.matrix, projected.distance, projected.group
    # the matrix first: where it cannot be written, that error is the one line on standard error
    emit(
        fmt,
        output,
        text=lambda: _report(matrix, g, P, dist),
        json=lambda: projected.to_json(matrix),
        csv=lambda: _matrix_csv(P),
        npy=lambda: P,
    )
    if fmt in (CSV, NPY):  # the matrix alone: a line for people beside it (JSON has the number with every digit)
        from gdlcheck.output.render_matrices import number_text

        click.echo(f"relative distance: {number_text(dist)}", err=True)
    if plot:
        from gdlcheck.output.plot_pictures import matrix_picture

        save_plot(matrix_picture(matrix, source, P, g, dist), plot)


def _report(matrix, g, P, dist):
    from gdlcheck.output.render_derive import render_project

    return render_project(matrix, g, P, dist)


def _matrix_csv(P) -> str:
    """The matrix as CSV, each number with every digit (refused past CSV's budget before it is built)."""
    from gdlcheck.output.report import check_output_cells

    check_output_cells(int(P.size), CSV.name, "matrix")
    return "".join(",".join(repr(float(x)) for x in row) + "\n" for row in P.tolist())
