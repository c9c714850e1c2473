"""What every command of the manual prints, written to a folder, so that a change that must keep the
output byte-identical (a rename, a refactoring) can be shown to: capture before, capture after, diff.

    git archive BEFORE | tar -x -C /tmp/before
    python tools/example_outputs.py /tmp/before /tmp/out-before
    python tools/example_outputs.py . /tmp/out-after
    diff -r /tmp/out-before /tmp/out-after

The commands are every ``gdlcheck ...`` line of a code block of the README and docs/, each verify
also with ``--format json``, ``--format junit`` and ``--explain``, and ``verify`` of every sample
spec in text, JSON, JUnit, ``--explain`` and ``--method exact``.  Each runs in a scratch copy of
samples/ and docs/ (from the copy's root when it names ``samples/`` or ``docs/``, else inside
``samples/``), with the checkout given first on ``PYTHONPATH``; one file per command holds its exit
code, standard output and standard error, and ``INDEX`` says which command each file is.  The
synopsis lines (``gdlcheck verify INPUT... [--group NAME] ...``) run too: what the shell makes of
their ``|`` may interleave differently from run to run.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

EXIT = re.compile(r';\s*echo "exit \$\?"\s*$')
COMMAND = re.compile(r"^\s*(?:\$ )?(gdlcheck .*)$")
BLOCK = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)
VARIANTS = (" --format json", " --format junit", " --explain")
SAMPLE_VARIANTS = ("", " --format json", " --format junit", " --explain", " --method exact --format json")


def commands(root: pathlib.Path) -> list[str]:
    """The manual's commands and their variants, each once, in the order found."""
    found = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for block in BLOCK.findall(page.read_text(encoding="utf-8")):
            for line in block.splitlines():
                if m := COMMAND.match(line):
                    found.append(EXIT.sub("", m.group(1)).strip())
    for spec in sorted((root / "samples").glob("*.yaml")):
        found += [f"gdlcheck verify {spec.name}{extra}" for extra in SAMPLE_VARIANTS]
    for command in list(found):
        if command.startswith("gdlcheck verify") and not any(
            c in command for c in ("|", ">", "--format", "--explain", "...")
        ):
            found += [command + extra for extra in VARIANTS]
    return list(dict.fromkeys(found))


def main(root: pathlib.Path, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "NO_COLOR": "1",
        "COLUMNS": "80",
        "PYTHONPATH": str(root),
        "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
    }
    scratch = pathlib.Path(tempfile.mkdtemp())
    shutil.copytree(root / "samples", scratch / "samples", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(root / "docs", scratch / "docs")
    index = []
    for i, command in enumerate(commands(root)):
        cwd = scratch if ("samples/" in command or "docs/" in command) else scratch / "samples"
        try:
            run = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, env=env, timeout=180)
            text = b"rc=%d\n--stdout--\n%s\n--stderr--\n%s" % (run.returncode, run.stdout, run.stderr)
        except subprocess.TimeoutExpired:
            text = b"TIMEOUT"
        name = f"{i:03d}"
        (out / name).write_bytes(text.replace(str(scratch).encode(), b"<SCRATCH>"))
        index.append(f"{name} {command}")
    (out / "INDEX").write_text("\n".join(index) + "\n", encoding="utf-8")
    shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(index)} commands -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python tools/example_outputs.py CHECKOUT OUTPUT_FOLDER")
    main(pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]))
