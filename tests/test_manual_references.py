"""Every manual page the package's docstrings and comments point at exists in the repository
(a reference to a page that is not there, like the old ``DESIGN.md``, sends a reader nowhere)."""

import re

from tests.conftest import ROOT

MD_NAME = re.compile(r"(?<![\w./-])([\w./-]+\.md)\b")


def named_pages() -> dict[str, list[str]]:
    """Each ``*.md`` named in a source file of the package, with the files that name it."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "gdlcheck").rglob("*.py")):
        for name in MD_NAME.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def test_every_page_a_docstring_names_exists():
    found = named_pages()
    assert "docs/groups.md" in found   # the scan reads the references it is meant to check
    missing = {name: files for name, files in found.items() if not (ROOT / name).is_file()}
    assert missing == {}


def test_the_pattern_finds_bare_names_and_paths():
    # and not a name inside a longer word (x.mdx)
    assert MD_NAME.findall("see DESIGN.md section 5, docs/code.md and x.mdx") == ["DESIGN.md", "docs/code.md"]
