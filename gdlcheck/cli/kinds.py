"""``gdlcheck kinds`` and ``gdlcheck schema``: the spec reference, for people and for editors."""

from __future__ import annotations

import click

from gdlcheck.cli.formats import JSON, TEXT, emit, format_option


def complete_kinds(ctx, param, incomplete):
    """Shell completion of a layer kind."""
    from click.shell_completion import CompletionItem

    from gdlcheck.api import kinds

    return [CompletionItem(k.name, help=k.summary) for k in kinds() if k.name.startswith(incomplete)]


@click.command("kinds")
@click.argument("name", required=False, shell_complete=complete_kinds)
@format_option(TEXT, JSON)
def command(name, fmt):
    """List the layer kinds of a spec, or print one kind's keys with their type, default and meaning.

    \b
    Example:
      gdlcheck kinds
      gdlcheck kinds gcn
      gdlcheck kinds attention --format json
    """
    from gdlcheck import api
    from gdlcheck.output.report import kind_json

    chosen = [api.kind(name)] if name is not None else api.kinds()
    emit(fmt, text=lambda: _report(chosen, name is not None), json=lambda: [kind_json(kind) for kind in chosen])


def _report(chosen, one: bool):
    from gdlcheck.output.render_kinds import render_kind, render_kinds

    return render_kind(chosen[0]) if one else render_kinds(chosen)


@click.command("schema")
def schema_command():
    """Print the spec format as a JSON Schema, for editors that validate and complete YAML.

    The YAML language server reads it from a first line of the spec:
    '# yaml-language-server: $schema=PATH/gdlcheck-spec.schema.json'.

    \b
    Example:
      gdlcheck schema > gdlcheck-spec.schema.json
    """
    import json

    from gdlcheck import api

    click.echo(json.dumps(api.spec_schema(), indent=2, ensure_ascii=True))
