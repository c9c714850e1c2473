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
    output_format,
    plot_option,
    print_rich,
    save_plot,
    write_npy,
    write_text,
)

FORMATS = ("text", "json", "csv", "npy")


@click.command("project")
@click.argument("matrix", metavar="MATRIX", shell_complete=complete_files)
@group_options
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="csv/npy: the matrix alone on standard output, the distance on standard error "
                   "[default: the one -o FILE's extension names, else text].")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), shell_complete=complete_files,
              callback=check_output_path,
              help="Write to FILE, in the format its extension names (.txt .json .csv .npy); - for standard output.")
@plot_option("the matrix, its projection and where they differ")
@click.option("--tensor", metavar="NAME",
              help="For a weights file (.pt .pth .safetensors .npz) with several square tensors: the one to project "
                   "(a glob that matches one).")
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
    from gdlcheck.output.report import check_output_cells, dumps

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
    if fmt in ("npy", "csv"):
        # the matrix first: where it cannot be written, that error is the one line on standard error
        if fmt == "npy":
            write_npy(P, output)
        else:
            check_output_cells(int(P.size), "csv", "matrix")
            write_text("".join(",".join(repr(float(x)) for x in row) + "\n" for row in P.tolist()), output)
        from gdlcheck.output.render_matrices import number_text

        # a line for people beside the file (JSON has the number with every digit)
        click.echo(f"relative distance: {number_text(dist)}", err=True)
    elif fmt == "json":
        write_text(dumps(projected.to_json(matrix)) + "\n", output)
    else:
        from gdlcheck.output.render_derive import render_project

        print_rich(render_project(matrix, g, P, dist), output)
    if plot:
        from gdlcheck.output.plot_pictures import matrix_picture

        save_plot(matrix_picture(matrix, source, P, g, dist), plot)
