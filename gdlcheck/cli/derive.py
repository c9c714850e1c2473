"""``gdlcheck derive``: the parameter form a symmetry forces on a linear layer."""

from __future__ import annotations

import click

from gdlcheck.cli.common import (
    Integer,
    build_group,
    check_output_path,
    group_options,
    make_group_options,
    print_rich,
    write_npy,
    write_text,
)
from gdlcheck.limits import MAX_CELLS


@click.command("derive")
@group_options
@click.option("--in-order", type=Integer(0, 4), default=1, show_default=True, help="Order of the input tensor.")
@click.option("--out-order", type=Integer(0, 4), default=1, show_default=True,
              help="Order of the output tensor.")
@click.option("--channels-in", type=Integer(min=1), default=1, show_default=True,
              help="Input channels D (free parameters = dimension x D x D2).")
@click.option("--channels-out", type=Integer(min=1), default=1, show_default=True, help="Output channels D2.")
@click.option("--explain", is_flag=True, help="Show the constraint each generator imposes, then the orbits.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "latex", "csv", "npy"]), default="text",
              show_default=True, help="latex: a bmatrix; csv: the 1 -> 1 pattern; npy: the basis array.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), callback=check_output_path,
              help="Write to FILE (- for standard output).")
@click.option("--export-svg", "svg", type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              callback=check_output_path, help="Also save the text report as an SVG picture.")
def command(group, n, shape, generators, graph, in_order, out_order, channels_in, channels_out, explain, fmt, output,
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
    from gdlcheck import api
    from gdlcheck.output import explain as prose
    from gdlcheck.output.report import check_output_cells, derive_json, dumps

    g = build_group(make_group_options(group, n, shape, generators, graph), "derive")
    d = api.derive(g, in_order=in_order, out_order=out_order, channels_in=channels_in,
                   channels_out=channels_out).derivation
    if svg and fmt != "text":
        raise click.UsageError("--export-svg saves the text report; use it with --format text")
    if fmt == "npy":
        write_npy(d.basis(), output)
        return
    if fmt in ("csv", "latex") and (in_order, out_order) != (1, 1):
        raise click.UsageError(f"--format {fmt} prints an order 1 -> 1 matrix; use json or npy for other orders")
    if fmt == "json":
        text = dumps(derive_json(d)) + "\n"
    elif fmt == "csv":
        if d.cells <= MAX_CELLS:
            check_output_cells(d.cells, "csv", "pattern")
        text = prose.pattern_csv(d.pattern)
    elif fmt == "latex":
        text = prose.latex_form(d)
    else:
        from gdlcheck.output.render import render_derive

        print_rich(render_derive(d, prose.explain(d) if explain else None), output, svg, title="gdlcheck derive")
        return
    write_text(text, output)
