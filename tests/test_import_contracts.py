"""The import contracts catch what they are there for: each forbidden import, written into a
scratch copy of the package, makes ``lint-imports`` fail; the unmodified copy passes.

A contract that keeps whatever it is given proves nothing: these are its mutation tests.  The
copy has the package and pyproject.toml (its ``[tool.importlinter]`` configuration) and
nothing else, so the linter analyses the copy and its own cache is never used.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # subprocesses: deselect with -m 'not slow'

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# (what it is, file written into the copy, its text, the contract that must break)
MUTANTS = [
    (
        "the command line imports the tracer",
        "gdlcheck/cli/_mutant.py",
        "from gdlcheck.code.prover import walk\n",
        "The command line talks to the API",
    ),
    (
        "the command line imports the code package",
        "gdlcheck/cli/_mutant.py",
        "import gdlcheck.code\n",
        "The command line talks to the API",
    ),
    (
        "groups imports the API under TYPE_CHECKING",
        "gdlcheck/groups/_mutant.py",
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from gdlcheck.api import verify\n",
        "Commands on top",
    ),
    (
        "groups reaches the API through the root package",
        "gdlcheck/groups/_mutant.py",
        "import gdlcheck\n\n\ndef check(layer):\n    return gdlcheck.verify(layer)\n",
        "Only the command line uses the root package",
    ),
    (
        "groups imports a name of the root package",
        "gdlcheck/groups/_mutant.py",
        "def check(layer):\n    from gdlcheck import verify\n    return verify(layer)\n",
        "Only the command line uses the root package",
    ),
    (
        "the API imports the torch layers",
        "gdlcheck/api/_mutant.py",
        "from gdlcheck.nn import EquivariantLinear\n",
        "Nothing torch-free imports the torch layers",
    ),
    (
        "the derivation imports the torch layers under TYPE_CHECKING",
        "gdlcheck/derivation/_mutant.py",
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import gdlcheck.nn.paths\n",
        "Nothing torch-free imports the torch layers",
    ),
    (
        "a rule imports the walker",
        "gdlcheck/code/prover/rules/_mutant.py",
        "from gdlcheck.code.prover import walk\n",
        "code.prover.rules: below the walker",
    ),
    (
        "a rule reads values through the walk's value module",
        "gdlcheck/code/prover/rules/_mutant.py",
        "from gdlcheck.code.prover.values import Values\n",
        "code.prover.rules: below the walker",
    ),
    (
        "a rule imports the process-wide patches",
        "gdlcheck/code/prover/rules/_mutant.py",
        "import gdlcheck.code.prover.patches\n",
        "code.prover.rules: below the walker",
    ),
    (
        "the group record imports the registry under TYPE_CHECKING (the old cycle)",
        "gdlcheck/groups/family.py",
        "\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from gdlcheck.groups.names import FAMILIES\n",
        "No import cycles",
    ),
]


def scratch_copy(tmp_path: Path) -> Path:
    """The package and its configuration, without caches."""
    shutil.copytree(ROOT / "gdlcheck", tmp_path / "gdlcheck", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_unmodified_copy_keeps_every_contract(tmp_path):
    out = lint(scratch_copy(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert " 0 broken" in out.stdout


@pytest.mark.parametrize(("what", "path", "text", "contract"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_a_forbidden_import_breaks_its_contract(tmp_path, what, path, text, contract):
    root = scratch_copy(tmp_path)
    target = root / path
    target.write_text(target.read_text() + text if target.exists() else f'"""{what}."""\n\n{text}')
    out = lint(root)
    assert out.returncode == 1, out.stdout + out.stderr
    broken = out.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, out.stdout
    # the report names the module written into the copy: the copy, not the tree, was analysed
    assert path.removesuffix(".py").replace("/", ".") in broken, out.stdout
