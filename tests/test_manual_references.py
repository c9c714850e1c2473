"""Every page the repository's docstrings and comments point at exists (a reference to a page
that is not there, like the contract that once lived outside the repository, sends a reader
nowhere), and every citation of the design, ``docs/design.md section N``, names a section the
page has."""

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.conftest import ROOT

MD_NAME = re.compile(r"(?<![\w./-])([\w./-]+\.md)\b")
DESIGN_SECTION = re.compile(r"docs/design\.md,? sections? (\d+)")
# the package, whose every string is read (a message may name a page too), and the folders
# around it, whose docstrings and comments are (their strings are test data and output)
PACKAGE = "gdlcheck"
AROUND = ("tests", "benchmarks", "tools", "fuzz")


def prose(source: str) -> str:
    """The docstrings and comments of a Python file, one after another."""
    parts = [
        tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append(ast.get_docstring(node, clean=False) or "")
    return "\n".join(parts)


def sources() -> list[tuple[Path, str]]:
    """Each Python file with the text whose references count."""
    out = [(path, path.read_text(encoding="utf-8")) for path in sorted((ROOT / PACKAGE).rglob("*.py"))]
    for folder in AROUND:
        out += [(path, prose(path.read_text(encoding="utf-8"))) for path in sorted((ROOT / folder).rglob("*.py"))]
    return out


def named(pattern: re.Pattern) -> dict[str, list[str]]:
    """Each match of ``pattern``, with the files that name it."""
    found: dict[str, list[str]] = {}
    for path, text in sources():
        for name in pattern.findall(text):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_page_a_docstring_or_comment_names_exists():
    found = named(MD_NAME)
    # the scan reads the references it is meant to check, in the package and around it
    assert "docs/design.md" in found and "docs/architecture.md" in found
    assert any(not f.startswith(PACKAGE) for f in found["docs/design.md"])
    missing = {name: files for name, files in found.items() if not (ROOT / name).is_file()}
    assert missing == {}


def test_every_cited_section_of_the_design_exists():
    sections = set(re.findall(r"^## (\d+)\. ", (ROOT / "docs" / "design.md").read_text(encoding="utf-8"), re.M))
    assert sections == {str(k) for k in range(1, 11)}  # the contract's ten sections, numbered as it numbers them
    cited = named(DESIGN_SECTION)
    assert len(cited) >= 5
    assert {number: files for number, files in cited.items() if number not in sections} == {}


def test_the_patterns_find_bare_names_paths_and_sections():
    # and not a name inside a longer word (x.mdx)
    assert MD_NAME.findall("see DESIGN.md section 5, docs/code.md and x.mdx") == ["DESIGN.md", "docs/code.md"]
    assert DESIGN_SECTION.findall("(docs/design.md section 5; docs/design.md, section 12)") == ["5", "12"]


def test_prose_is_the_docstrings_and_comments_not_the_strings():
    source = '"""Module, see a.md."""\n\n\ndef f():\n    """b.md"""\n    return "c.md"  # d.md\n'
    assert MD_NAME.findall(prose(source)) == ["d.md", "a.md", "b.md"]
