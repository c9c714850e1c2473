"""``gdlcheck project``: the nearest equivariant matrix (orbit averages) and its distance."""

from __future__ import annotations

import click

from gdlcheck.cli.common import check_output_path, group_options, make_group_options, print_rich, write_npy, write_text


@click.command("project")
@click.argument("matrix", metavar="MATRIX")
@group_options
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "npy"]), default="text", show_default=True,
              help="csv/npy: the matrix alone on standard output, the distance on standard error.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), callback=check_output_path,
              help="Write to FILE (- for standard output).")
def command(matrix, group, n, shape, generators, graph, fmt, output):
    """Print the nearest equivariant matrix to MATRIX (orbit averages) and its distance.

    Every entry is replaced by the mean of its orbit: the orthogonal projection onto the
    matrices that commute with the group.  The distance is |W - P|_F / |W|_F.

    \b
    Example:
      gdlcheck project trained.npy --group cyclic --format csv > tied.csv
      gdlcheck verify tied.csv --group cyclic
    """
    import numpy as np

    from gdlcheck import api
    from gdlcheck.output.report import check_output_cells, dumps

    opts = make_group_options(group, n, shape, generators, graph)
    if not opts.given:
        raise click.UsageError("project needs --group NAME")
    projected = api.project(matrix, group, n=n, shape=shape, generators=list(generators) or None, graph=graph)
    P, dist, g = projected.matrix, projected.distance, projected.group
    if fmt in ("npy", "csv"):
        # the matrix first: where it cannot be written, that error is the one line on standard error
        if fmt == "npy":
            write_npy(P, output)
        else:
            check_output_cells(int(P.size), "csv", "matrix")
            write_text("".join(",".join(repr(float(x)) for x in row) + "\n" for row in P.tolist()), output)
        click.echo(f"relative distance: {dist!r}", err=True)
        return
    if fmt == "json":
        write_text(dumps(projected.to_json(matrix)) + "\n", output)
        return
    from gdlcheck.output.render import render_project

    with np.printoptions(precision=4, suppress=True, linewidth=100, threshold=400, edgeitems=4):
        print_rich(render_project(matrix, g, P, dist), output)
