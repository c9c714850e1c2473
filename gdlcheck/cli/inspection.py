"""``gdlcheck inspect``: a spec's layer in the unified form Y = G(X, A) V(X)."""

from __future__ import annotations

import click

from gdlcheck.cli.common import Integer
from gdlcheck.cli.formats import JSON, TEXT, emit, format_option


@click.command("inspect")
@click.argument("spec", metavar="SPEC")
@click.option("-n", "n", type=Integer(min=1), help="Number of points, if the spec does not fix it.")
@click.option(
    "--seed", type=Integer(min=0), default=None, help="Seed of the sample inputs [default: the spec's seed, else 0]."
)
@format_option(TEXT, JSON)
@click.option(
    "--allow-path",
    "allow",
    multiple=True,
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="A folder the spec's {file: ...} may read besides its own; repeatable.",
)
def command(spec, n, seed, fmt, allow):
    """Show SPEC's layer in the unified form Y = G(X, A) V(X) and the properties of G.

    What G depends on (constant, offset, graph, content) and whether it is static, square,
    sparse or approximately sparse, symmetric, row-stochastic and non-negative, measured on
    seeded sample inputs, beside a graph's adjacency matrix and an attention matrix as the
    Transformers-vs-GCN paper describes them.

    \b
    Example:
      gdlcheck inspect samples/attention.yaml
      gdlcheck inspect samples/gcn.yaml --format json
    """
    from gdlcheck import api

    result = api.inspect(spec, n=n, seed=seed, allow_paths=allow)
    emit(fmt, text=lambda: _report(result), json=result.to_json)


def _report(result):
    from gdlcheck.output.render_inspect import render_inspect

    return render_inspect(result)
