"""``gdlcheck symmetries``: every permutation a matrix commutes with, and the groups it contains."""

from __future__ import annotations

import click

from gdlcheck.cli.common import TOLERANCE, Progress, console
from gdlcheck.tolerances import TOL


@click.command("symmetries")
@click.argument("matrix", metavar="MATRIX")
@click.option("--tol", type=TOLERANCE, default=TOL, show_default=True,
              help="Entries within tol x the largest |entry| share a colour: sorted values are cut into colours "
                   "greedily, each taking the values within that width of its smallest one, so no two entries "
                   "of a colour (and no entry and its image under a reported permutation) differ by more.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(matrix, tol, fmt):
    """Find every permutation that MATRIX commutes with, and name the groups it contains.

    The permutations sigma with W[sigma(i), sigma(j)] == W[i, j] are the automorphisms of W
    as an edge-coloured directed graph (equal entries share a colour); their group comes
    from BLISS (igraph): its order, generators, and the catalogue groups inside it.

    \b
    Example:
      gdlcheck symmetries trained.npy
      gdlcheck symmetries samples/petersen.csv --format json
    """
    from gdlcheck import api
    from gdlcheck.output.report import dumps

    progress = Progress("symmetries") if fmt == "text" else None
    try:
        found = api.find_symmetries(matrix, tol=tol, progress=progress)
    finally:
        if progress is not None:
            progress.done()
    if fmt == "json":
        click.echo(dumps(found.to_json(matrix)))
    else:
        from gdlcheck.output.render import render_symmetries

        console().print(render_symmetries(matrix, found))
