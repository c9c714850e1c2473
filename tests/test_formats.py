"""The output formats live in one place (gdlcheck/cli/formats.py): every command declares its
``--format`` with ``format_option`` and writes through ``emit``, one writer per format."""

import ast
import io
import json
import pathlib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import gdlcheck
from gdlcheck.cli import cli
from gdlcheck.cli.formats import CSV, FORMATS, JSON, NPY, OUTPUT_EXTENSIONS, TEXT, emit

CLI = pathlib.Path(gdlcheck.__file__).parent / "cli"

# one invocation per command that writes a report; {fmt} is each format the command declares
INVOCATIONS = {
    "verify": ["verify", "{samples}/deepsets.yaml", "{samples}/bias-breaks.yaml"],
    "derive": ["derive", "--group", "cyclic", "-n", "4"],
    "project": ["project", "{samples}/trained.npy", "--group", "cyclic"],
    "groups": ["groups", "cyclic", "-n", "4"],
    "kinds": ["kinds", "gcn"],
    "inspect": ["inspect", "{samples}/gcn.yaml"],
    "symmetries": ["symmetries", "{samples}/petersen.csv"],
}


def _declared(name: str) -> list[str]:
    (option,) = [p for p in cli.commands[name].params if p.name == "fmt"]
    return list(option.type.choices)


def test_every_command_with_a_format_declares_it_with_format_option():
    with_format = {name for name, command in cli.commands.items() if any(p.name == "fmt" for p in command.params)}
    assert with_format == set(INVOCATIONS) | {"measure"}
    for name in with_format:
        option = next(p for p in cli.commands[name].params if p.name == "fmt")
        assert set(_declared(name)) <= set(FORMATS) and option.default == "text" and option.callback is not None


def test_no_command_declares_format_or_compares_a_format_word_itself():
    formats = set(FORMATS)
    found = []
    for path in sorted(CLI.glob("*.py")):
        if path.name == "formats.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value == "--format":
                found.append((path.name, node.lineno, "--format declared"))
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                names = {s.id for s in sides if isinstance(s, ast.Name)}
                words = [
                    e.value
                    for s in sides
                    for e in (s.elts if isinstance(s, (ast.Tuple, ast.List)) else [s])
                    if isinstance(e, ast.Constant) and e.value in formats
                ]
                if "fmt" in names and words:
                    found.append((path.name, node.lineno, words))
    assert found == []


@pytest.mark.parametrize("name, fmt", [(name, fmt) for name in INVOCATIONS for fmt in _declared(name)])
def test_each_declared_format_writes_its_own_output(run, samples, tmp_path, name, fmt):
    args = [a.format(samples=samples) for a in INVOCATIONS[name]] + ["--format", fmt]
    if fmt == "npy":
        args += ["-o", tmp_path / "out.npy"]
    result = run(args)
    assert result.exit_code in (0, 1), result.stderr
    out = result.stdout
    if fmt == "json":
        assert all(isinstance(json.loads(line), dict) for line in out.splitlines()) and out.endswith("\n")
    elif fmt == "junit":
        assert ET.fromstring(out.split("\n", 1)[1]).tag == "testsuites"
    elif fmt == "npy":
        assert out == "" and np.load(tmp_path / "out.npy").ndim >= 2
    elif fmt == "csv":
        assert all(len(line.split(",")) > 1 for line in out.splitlines())
    elif fmt == "latex":
        assert "\\begin{bmatrix}" in out
    else:
        assert out.strip() and not out.lstrip().startswith(("{", "<?xml"))


def test_emit_writes_the_format_asked_for_and_nothing_for_none(capsys):
    emit(JSON, json=lambda: [{"a": 1}, '{"b": 2}'], text=lambda: 1 / 0)
    emit(TEXT, json=lambda: 1 / 0, text=None)
    emit(CSV, csv=lambda: "1,2\n")
    assert capsys.readouterr().out == '{"a": 1}\n{"b": 2}\n1,2\n'


def test_emit_refuses_a_format_the_command_makes_nothing_in():
    with pytest.raises(LookupError, match="--format npy"):
        emit(NPY, text=lambda: "x", json=lambda: {})


def test_a_file_extension_names_its_format(tmp_path):
    assert {ext: str(f) for ext, f in OUTPUT_EXTENSIONS.items()} == {
        ".txt": "text",
        ".json": "json",
        ".tex": "latex",
        ".csv": "csv",
        ".npy": "npy",
    }
    buf = io.BytesIO()
    NPY.write(np.eye(2), str(tmp_path / "x.npy"))
    np.save(buf, np.eye(2))
    assert (tmp_path / "x.npy").read_bytes() == buf.getvalue()
