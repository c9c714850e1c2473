"""``gdlcheck groups``: the catalogue, or one group's order and generators."""

from __future__ import annotations

import click

from gdlcheck.cli.common import Integer, complete_groups, console, make_group_options


@click.command("groups")
@click.argument("name", required=False, shell_complete=complete_groups)
@click.option("-n", "n", type=Integer(min=1), help="Number of points.")
@click.option("--shape", metavar="HxW", help="Grid shape for translations, p4, p4m.")
@click.option("--generators", multiple=True, metavar="PERM", help="A generator (for NAME = generators); repeatable.")
@click.option("--graph", type=click.Path(dir_okay=False), help="Adjacency matrix file (for automorphisms).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def command(name, n, shape, generators, graph, fmt):
    """List the catalogue of groups, or show one group's order and generators.

    \b
    Example:
      gdlcheck groups
      gdlcheck groups cyclic -n 8 --format json
    """
    from gdlcheck.output.report import catalogue_json, dumps, groups_json

    if name is None:
        if n is not None or shape or generators or graph:
            raise click.UsageError("-n, --shape, --generators and --graph size the group NAME; give NAME (e.g. "
                                   "'gdlcheck groups cyclic -n 8'), or none of them to list the catalogue")
        if fmt == "json":
            from gdlcheck.api import FAMILIES

            for family in FAMILIES.values():
                click.echo(dumps(catalogue_json(family)))
        else:
            from gdlcheck.output.render_groups import render_catalogue

            console().print(render_catalogue())
        return
    g = make_group_options(name, n, shape, generators, graph).build()
    if fmt == "json":
        click.echo(dumps(groups_json(g)))
    else:
        from gdlcheck.output.render_groups import render_group

        console().print(render_group(g))
