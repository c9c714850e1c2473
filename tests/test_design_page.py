"""The design page (docs/design.md) states what the tool does: the JSON keys of section 6 are in
the objects the commands print, the commands and exit codes of section 3 are the command
line's, section 2 names every group of the catalogue with its aliases, and section 4 every layer
kind."""

import re

import pytest

import gdlcheck
from gdlcheck.api import kinds
from gdlcheck.cli import cli, common
from gdlcheck.groups import FAMILIES
from tests.conftest import ROOT, SAMPLES

DESIGN = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")


def section(number: int) -> str:
    return DESIGN.split(f"\n## {number}. ", 1)[1].split("\n## ", 1)[0]


def promised(command: str) -> set[str]:
    """The quoted words of section 6's bullet for ``command``."""
    bullet = re.search(rf"^- `{re.escape(command)}`: (.*?)(?=^- |^\S|\Z)", section(6), re.M | re.S)
    assert bullet, command
    return set(re.findall(r'"(\w+)"', bullet[1]))


def words(value) -> set[str]:
    """Every key of a JSON object, at any depth, and every string value (``depends_on``'s)."""
    if isinstance(value, dict):
        return set(value) | {w for v in value.values() for w in words(v)}
    if isinstance(value, list):
        return {w for v in value for w in words(v)}
    return {value} if isinstance(value, str) else set()


def objects(command: str) -> list[dict]:
    g = gdlcheck.group("cyclic", n=6)
    if command == "verify":  # a proof, and a failure located by a condition
        return [
            gdlcheck.verify(str(SAMPLES / "conv.yaml")).to_json(),
            gdlcheck.verify(str(SAMPLES / "bias-breaks.yaml")).to_json(),
        ]
    if command == "derive":
        return [gdlcheck.derive(g).to_json()]
    if command == "inspect":  # offset, graph, content, constant
        return [
            gdlcheck.inspect(str(SAMPLES / name)).to_json()
            for name in ("conv.yaml", "gcn.yaml", "attention.yaml", "deepsets.yaml")
        ]
    if command == "symmetries":
        return [gdlcheck.find_symmetries(str(SAMPLES / "trained.npy")).to_json()]
    from gdlcheck.output.report import groups_json

    return [groups_json(g)]


@pytest.mark.parametrize("command", ["verify", "derive", "inspect", "symmetries", "groups NAME ..."])
def test_every_json_key_the_design_promises_is_printed(command):
    keys = promised(command)
    assert len(keys) >= 4, keys
    have = set().union(*(words(obj) for obj in objects(command)))
    assert keys - have == set()


def test_the_exit_codes_are_the_command_lines():
    table = {int(code) for code in re.findall(r"^\| (\d+) \|", section(3), re.M)}
    assert table == {
        common.EXIT_OK,
        common.EXIT_FAIL,
        common.EXIT_INPUT,
        common.EXIT_INCONCLUSIVE,
        common.EXIT_INTERNAL,
    }


def test_the_commands_are_the_command_lines():
    opening = section(3).split("\n\n")[1]  # the paragraph under the heading
    assert opening.startswith("The commands are")
    assert set(re.findall(r"`(\w+)`", opening)) == set(cli.commands)


def test_the_catalogue_is_the_groups():
    text = section(2)
    named = {name for family in FAMILIES.values() for name in (family.name, *family.aliases)}
    assert len(named) >= 13
    assert {name for name in named if f"`{name}`" not in text} == set()


def test_the_layer_kinds_are_the_specs():
    text = section(4)
    names = [k.name for k in kinds()]
    assert len(names) >= 12
    assert [name for name in names if f"`{name}`" not in text] == []
