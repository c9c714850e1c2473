"""``gdlcheck groups``: the catalogue, or one group's order and generators."""

from __future__ import annotations

import click

from gdlcheck.cli.common import Integer, complete_groups, make_group_options
from gdlcheck.cli.formats import JSON, TEXT, emit, format_option


@click.command("groups")
@click.argument("name", required=False, shell_complete=complete_groups)
@click.option("-n", "n", type=Integer(min=1), help="Number of points.")
@click.option("--shape", metavar="HxW", help="Grid shape for translations, p4, p4m.")
@click.option("--generators", multiple=True, metavar="PERM", help="A generator (for NAME = generators); repeatable.")
@click.option("--graph", type=click.Path(dir_okay=False), help="Adjacency matrix file (for automorphisms).")
@format_option(TEXT, JSON)
def command(name, n, shape, generators, graph, fmt):
    """List the catalogue of groups, or show one group's order and generators.

    \b
    Example:
      gdlcheck groups
      gdlcheck groups cyclic -n 8 --format json
    """
    from gdlcheck.output.report import catalogue_json, groups_json

    if name is None:
        if n is not None or shape or generators or graph:
            raise click.UsageError(
                "-n, --shape, --generators and --graph size the group NAME; give NAME (e.g. "
                "'gdlcheck groups cyclic -n 8'), or none of them to list the catalogue"
            )
        emit(fmt, text=_catalogue, json=lambda: [catalogue_json(family) for family in _families()])
        return
    g = make_group_options(name, n, shape, generators, graph).build()
    emit(fmt, text=lambda: _group(g), json=lambda: groups_json(g))


def _families():
    from gdlcheck.api import FAMILIES

    return FAMILIES.values()


def _catalogue():
    from gdlcheck.output.render_groups import render_catalogue

    return render_catalogue()


def _group(g):
    from gdlcheck.output.render_groups import render_group

    return render_group(g)
