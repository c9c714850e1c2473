"""``gdlcheck derive``: the parameter form a symmetry forces on a linear layer."""

from __future__ import annotations

import click

from gdlcheck.cli.common import (
    Integer,
    build_group,
    check_output_path,
    check_plot,
    check_svg,
    complete_files,
    given,
    group_options,
    make_group_options,
    plot_option,
    save_plot,
    save_svg,
)
from gdlcheck.cli.formats import CSV, JSON, LATEX, NPY, TEXT, emit, format_option, output_format
from gdlcheck.limits import MAX_CELLS

FORMATS = (TEXT, JSON, LATEX, CSV, NPY)


@click.command("derive")
@group_options
@click.option("--in-order", type=Integer(0, 4), default=1, show_default=True, help="Order of the input tensor.")
@click.option("--out-order", type=Integer(0, 4), default=1, show_default=True, help="Order of the output tensor.")
@click.option(
    "--channels-in",
    type=Integer(min=1),
    default=1,
    show_default=True,
    help="Input channels D (free parameters = dimension x D x D2).",
)
@click.option("--channels-out", type=Integer(min=1), default=1, show_default=True, help="Output channels D2.")
@click.option("--explain", is_flag=True, help="Show the constraint each generator imposes, then the orbits.")
@format_option(
    *FORMATS,
    help="latex: a bmatrix; csv: the 1 -> 1 pattern; npy: the basis array "
    "[default: the one -o FILE's extension names, else text].",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    shell_complete=complete_files,
    callback=check_output_path,
    help="Write to FILE, in the format its extension names (.txt .json .tex .csv .npy); - for standard output.",
)
@click.option(
    "--export-svg",
    "svg",
    type=click.Path(dir_okay=False, writable=True),
    metavar="FILE",
    shell_complete=complete_files,
    callback=check_output_path,
    help="Also save the text report as an SVG screenshot (FILE.svg).",
)
@plot_option("the whole sharing pattern, one colour per orbit (and the kernel offsets of a grid group)")
def command(
    group, n, shape, generators, graph, in_order, out_order, channels_in, channels_out, explain, fmt, output, svg, plot
):
    """Derive the parameter form that a symmetry forces on a linear layer.

    The basis is the orbits of the group on the index tuples [n]^(L+K), output indices
    first; csv and latex print the order 1 -> 1 matrix, npy the basis array
    (dimension x output shape x input shape).

    \b
    Example:
      gdlcheck derive --group cyclic -n 8
      gdlcheck derive --group p4 --shape 8x8 --explain
      gdlcheck derive --group p4 --shape 5x5 --plot pattern.png
      gdlcheck derive --group symmetric -n 5 --in-order 2 --out-order 2 --format json
      gdlcheck derive --group automorphisms --graph samples/petersen.csv -o basis.npy
    """
    from gdlcheck import api
    from gdlcheck.output import explain as prose
    from gdlcheck.output.report import derive_json_text

    fmt = output_format(fmt, output, FORMATS)
    _refuse_what_does_not_apply(fmt, in_order, out_order, channels_in, channels_out, explain, svg)
    check_svg(svg)
    check_plot(plot)
    g = build_group(make_group_options(group, n, shape, generators, graph), "derive")
    d = api.derive(g, in_order=in_order, out_order=out_order, channels_in=channels_in, channels_out=channels_out)
    report = None
    if fmt is TEXT:
        from gdlcheck.output.render_derive import render_derive

        report = render_derive(d, prose.explain(d) if explain else None)
    emit(
        fmt,
        output,
        text=lambda: report,
        json=lambda: derive_json_text(d),
        csv=lambda: _pattern_csv(d),
        latex=lambda: prose.latex_form(d),
        npy=lambda: d.basis,
    )
    if svg:
        save_svg(report, svg, title="gdlcheck derive")
    if plot:
        from gdlcheck.output.plot_pictures import derive_picture

        save_plot(derive_picture(d), plot)


def _pattern_csv(d) -> str:
    """The 1 -> 1 pattern as CSV, refused before it is built when it has more cells than CSV's budget."""
    from gdlcheck.output import explain as prose
    from gdlcheck.output.report import check_output_cells

    if d.cells <= MAX_CELLS:
        check_output_cells(d.cells, CSV.name, "pattern")
    return prose.pattern_csv(d.pattern)


def _refuse_what_does_not_apply(fmt, in_order, out_order, channels_in, channels_out, explain, svg) -> None:
    """Every option given must change what is written (else exit 2, saying why)."""
    if svg and fmt is not TEXT:
        raise click.UsageError("--export-svg saves the text report; use it with --format text")
    if explain and fmt is not TEXT:
        raise click.UsageError(f"--explain adds the derivation to the text report; --format {fmt} has no room for it")
    if fmt in (CSV, LATEX) and (in_order, out_order) != (1, 1):
        raise click.UsageError(f"--format {fmt} prints an order 1 -> 1 matrix; use json or npy for other orders")
    if (
        fmt in (CSV, LATEX, NPY)
        and (given("channels_in") or given("channels_out"))
        and (channels_in, channels_out) != (1, 1)
    ):
        what = {CSV: "the pattern", LATEX: "the matrix of parameter names", NPY: "the basis B_o"}[fmt]
        raise click.UsageError(
            f"--format {fmt} writes {what}, which channels do not change (each basis element "
            "gets a D2 x D block); use text or json to see the channel counts"
        )
