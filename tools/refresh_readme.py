"""Refresh the reports the manual (README.md, docs/*.md) shows verbatim (tests/test_readme_examples.py checks them).

    python tools/refresh_readme.py

Each command under a ``$ `` line that the tests list is run at 80 columns without colour, and
its output replaces the block up to the next ``$ `` line or the end of the code block.
"""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.manual import PAGES  # noqa: E402
from tests.test_readme_examples import VERBATIM  # noqa: E402


def main() -> None:
    for page in PAGES:
        refresh(str(page))


def refresh(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    for command, folder in VERBATIM:
        head = f"$ {command}\n"
        if head not in text:
            continue
        start = text.index(head) + len(head)
        rest = text[start:]
        end = start + min(i for i in (rest.find("\n$ "), rest.find("\n```")) if i >= 0) + 1
        out = subprocess.run(
            command, shell=True, cwd=os.path.join(ROOT, folder), capture_output=True, text=True, env=env, timeout=120
        ).stdout
        text = text[:start] + out + text[end:]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
