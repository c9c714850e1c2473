"""``gdlcheck symmetries``: every permutation a matrix commutes with, and the groups it contains."""

from __future__ import annotations

import sys

import click

from gdlcheck.cli.common import (
    TOLERANCE,
    Progress,
    check_plot,
    complete_files,
    note_stdin,
    plot_option,
    save_plot,
)
from gdlcheck.cli.formats import JSON, TEXT, emit, format_option
from gdlcheck.tolerances import TOL


@click.command("symmetries")
@click.argument("matrix", metavar="MATRIX", shell_complete=complete_files)
@click.option(
    "--tol",
    type=TOLERANCE,
    default=TOL,
    show_default=True,
    help="Colours of entries: the sorted values are cut greedily, each colour taking the values within "
    "tol x the largest |entry| of its smallest one, so no two entries of a colour (and no entry and "
    "its image under a reported permutation) differ by more; two entries within tol can still get "
    "two colours at a cut (a near tie, reported).",
)
@format_option(TEXT, JSON)
@plot_option("the matrix and its entries coloured by orbit of the group found")
def command(matrix, tol, fmt, plot):
    """Find every permutation that MATRIX commutes with, and name the groups it contains.

    The permutations sigma with W[sigma(i), sigma(j)] == W[i, j] are the automorphisms of W
    as an edge-coloured directed graph (equal entries share a colour); their group comes
    from BLISS (igraph): its order, generators, and the catalogue groups inside it.

    \b
    Example:
      gdlcheck symmetries trained.npy
      gdlcheck symmetries samples/petersen.csv --format json
      gdlcheck symmetries samples/petersen.csv --plot orbits.png
    """
    from gdlcheck import api

    check_plot(plot)
    note_stdin([matrix])
    source = matrix
    if plot:  # read the matrix once (standard input cannot be read twice)
        stdin_data = sys.stdin.buffer.read() if matrix == "-" else None
        source = api.input_matrix(matrix, stdin_data)
    progress = Progress("symmetries") if fmt is TEXT else None
    try:
        found = api.find_symmetries(source, tol=tol, progress=progress)
    finally:
        if progress is not None:
            progress.done()
    emit(fmt, text=lambda: _report(matrix, found), json=lambda: found.to_json(matrix))
    if plot:
        from gdlcheck.output.plot_pictures import symmetries_picture

        orbits = api.derive(found.group)
        save_plot(symmetries_picture(matrix, source, found, orbits), plot)


def _report(matrix, found):
    from gdlcheck.output.render_groups import render_symmetries

    return render_symmetries(matrix, found)
