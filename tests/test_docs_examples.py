"""Every example in the manual runs as written: the README (the front page and its tour) and
every page of docs/. The sections tests/test_readme_examples.py and tests/test_readme_code.py
check in more detail are run there, not twice."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests import manual
from tests.conftest import ROOT, SAMPLES

pytestmark = pytest.mark.slow  # subprocesses and torch: deselect with -m 'not slow'

# sections whose examples another test file runs, with checks of its own
RUN_ELSEWHERE = ["## Use it from Python and in your tests", "## Check your PyTorch and PyG code"]


def examples_text(page) -> str:
    """The page without the sections run elsewhere."""
    text = manual.read(page)
    for heading in RUN_ELSEWHERE:
        if f"\n{heading}\n" in f"\n{text}":
            text = text.replace(manual.section(heading), "")
    return text


BLOCKS = [
    (manual.name(page), i, code)
    for page in manual.PAGES
    for i, code in enumerate(manual.python_blocks(examples_text(page)))
]
COMMANDS = [
    (manual.name(page), *command) for page in manual.PAGES for command in manual.exit_commands(examples_text(page))
]


def env() -> dict:
    out = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
    out["PATH"] = os.path.dirname(sys.executable) + os.pathsep + out.get("PATH", "")
    return out


@pytest.mark.parametrize("page, index, code", BLOCKS, ids=[f"{p}[{i}]" for p, i, _ in BLOCKS])
def test_python_block_runs(page, index, code, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    namespace = {"__name__": f"manual_example_{index}"}
    exec(compile(code, f"{page}[python block {index}]", "exec"), namespace)
    for test in [v for k, v in namespace.items() if k.startswith("test_") and callable(v)]:
        test()  # a pytest example: run the tests it defines


PAGES_WITH_COMMANDS = sorted({page for page, *_ in COMMANDS})


@pytest.mark.parametrize("page", PAGES_WITH_COMMANDS)
def test_commands_give_the_exit_codes_shown(page, tmp_path):
    # in the page's order (a command may read what one before it wrote); those after `$ cd samples`
    # run in a copy of samples/, so what they write stays out of the clone
    copy = tmp_path / "samples"
    shutil.copytree(SAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    page_path = next(p for p in manual.PAGES if manual.name(p) == page)
    for in_samples, command, code, shown in manual.exit_commands(examples_text(page_path), printed=True):
        out = subprocess.run(
            command,
            shell=True,
            cwd=copy if in_samples else ROOT,
            capture_output=True,
            text=True,
            env=env(),
            timeout=300,
        )
        assert out.returncode == code, (page, command, out.stderr)
        # the box shows what the command prints (standard output, then standard error), nothing left out
        assert (out.stdout + out.stderr).splitlines() == shown, (page, command)


def test_the_readme_is_a_front_page_and_its_tour_is_tested():
    readme = manual.read("README.md")
    assert len(readme.splitlines()) <= 250
    assert len([b for b in BLOCKS if b[0] == "README.md"]) == 1
    assert {c for p, _, c, _ in COMMANDS if p == "README.md"} == {
        "gdlcheck verify trained.npy --group cyclic -q",
        "gdlcheck project trained.npy --group cyclic -o tied.npy --plot tied.png",
        "gdlcheck verify tied.npy --group cyclic -q",
    }


def test_the_quick_starts_first_command_verifies_the_sample_as_it_says():
    readme = manual.read("README.md")
    quick = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    first = quick.strip().splitlines()[0]
    command = first.split(" && ", 1)[1]
    assert command == "gdlcheck verify samples/layer.yaml" and "(exit 0)" in readme
    out = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, env=env(), timeout=120)
    assert out.returncode == 0 and "PASS" in out.stdout, out.stderr
    assert quick.strip().splitlines()[1].endswith("&& python -m pytest")  # the command CI runs


def test_the_tour_quotes_the_near_miss_hint_verify_prints():
    quoted = re.search(r"ends with a hint: `(near miss: .*?)`", manual.read("README.md"), flags=re.S).group(1)
    out = subprocess.run(
        "gdlcheck verify trained.npy --group cyclic --method exact",
        shell=True,
        cwd=SAMPLES,
        capture_output=True,
        text=True,
        env=env(),
        timeout=120,
    )
    assert out.returncode == 1
    printed = " ".join(out.stdout.replace("│", " ").split())
    assert " ".join(quoted.split()) in printed


def test_the_tour_derive_prints_what_the_readme_shows():
    command = "gdlcheck derive --group p4 --shape 5x5 --format json | python -c"
    rest = manual.read("README.md").split(f"$ {command}", 1)[1]
    line, shown = rest.split("\n", 1)
    out = subprocess.run(
        f"{command}{line}", shell=True, cwd=ROOT, capture_output=True, text=True, env=env(), timeout=120
    )
    assert out.returncode == 0 and out.stdout == shown.split("\n```", 1)[0] + "\n"


def test_every_page_is_in_the_manuals_contents_and_every_readme_link_resolves():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in manual.PAGES[1:]:
        assert f": {page.name}\n" in nav, page.name
    for target in re.findall(r"\]\(((?:docs/)?[\w./-]+\.(?:md|png))\)", manual.read("README.md")):
        assert (ROOT / target).is_file(), target
