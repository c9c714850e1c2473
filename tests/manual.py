"""The manual as the tests read it: the README (the front page) and every page of docs/.

Each page's examples run in the tests: ``$ gdlcheck ...; echo "exit $?"`` lines give the
exit code shown on the next line, Python blocks run as written (pytest-style blocks run the
tests they define), and the reports shown verbatim are what the tool prints.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def name(page: Path) -> str:
    """``README.md`` or ``docs/code.md``: how a failing test names the page."""
    return page.relative_to(ROOT).as_posix()


def read(page: Path | str) -> str:
    return (ROOT / page if isinstance(page, str) else page).read_text(encoding="utf-8")


def everything() -> str:
    """Every page, one after another (for "the manual says X somewhere")."""
    return "\n".join(read(page) for page in PAGES)


def section(heading: str) -> str:
    """The text under ``heading`` (a whole line such as ``## Bad input``) up to the next
    heading of the same or a higher level, on whichever page holds it."""
    level = len(heading) - len(heading.lstrip("#"))
    for page in PAGES:
        text = read(page)
        if f"\n{heading}\n" in f"\n{text}":
            body = f"\n{text}".split(f"\n{heading}\n", 1)[1]
            ends = [
                m.start()
                for m in re.finditer(r"^(#{1,%d}) " % level, body, flags=re.M)
                if not _inside_fence(body, m.start())
            ]
            return body[: min(ends, default=len(body))]
    raise AssertionError(f"no page of the manual has the heading {heading!r}")


def _inside_fence(text: str, at: int) -> bool:
    return text[:at].count("\n```") % 2 == 1


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def exit_commands(text: str, printed: bool = False) -> list[tuple]:
    """``(in_samples, command, exit code)`` for each ``$ gdlcheck ...; echo "exit $?"`` line
    followed by ``exit N`` (after the lines it prints, if the box shows them); ``in_samples`` when
    a ``$ cd samples`` came before it in its block.  ``printed``: each tuple ends with the lines
    shown between the command and its exit line."""
    found = []
    for block in re.findall(r"^```\n(.*?)^```", text, flags=re.S | re.M):
        in_samples = False
        lines = block.splitlines()
        for k, line in enumerate(lines):
            if line == "$ cd samples":
                in_samples = True
            match = re.fullmatch(r"\$ (gdlcheck .*?); echo \"exit \$\?\"", line)
            if not match:
                continue
            shown = []
            for after in lines[k + 1 :]:
                if re.fullmatch(r"exit \d+", after):
                    item = (in_samples, match.group(1), int(after.split()[1]))
                    found.append((*item, shown) if printed else item)
                    break
                if after.startswith("$ "):
                    break
                shown.append(after)
    return found
