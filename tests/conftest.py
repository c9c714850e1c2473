"""Shared fixtures: a CliRunner that keeps stdout and stderr apart, and the samples folder."""

import os
import pathlib
import sys

import pytest
from click.testing import CliRunner
from hypothesis import settings

from gdlcheck.cli import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

# The README's test command is deterministic: the same examples on every run and every machine,
# whatever the environment says, so a green run stays green. A search for new examples is asked
# for by name: ``python -m pytest --hypothesis-profile explore`` (docs/install.md); hypothesis's
# own plugin reads the option after this file is loaded, so it overrides the default below.
settings.register_profile("default-derandomized", derandomize=True, deadline=None, max_examples=60, database=None)
settings.register_profile("explore", deadline=None, max_examples=200)
settings.load_profile("default-derandomized")


WHOLE_MODULE_SLOW = "\npytestmark = pytest.mark.slow\n"


def pytest_ignore_collect(collection_path: pathlib.Path, config) -> bool | None:
    """The fast loop (``pytest -m "not slow"``) does not import a test module marked slow as a whole
    (``pytestmark = pytest.mark.slow`` at its top level): all its tests would be deselected, and its
    imports (PyG's catalogue, the coverage models: seconds) would be paid by every worker for none.
    Any other mark expression collects everything."""
    if config.getoption("markexpr", "").split() != ["not", "slow"]:
        return None
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        if WHOLE_MODULE_SLOW in collection_path.read_text(encoding="utf-8"):
            return True
    return None


def newcomer_env(**extra: str) -> dict[str, str]:
    """The environment for a gdlcheck (or python) subprocess: the parent's, without any
    ``PYTHON*`` variable, as a newcomer's shell has it (no ``PYTHONUNBUFFERED``: standard output
    is block-buffered, so write errors surface at the last flush), with this checkout first on
    the path; ``extra`` on top."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def forbid(monkeypatch, target, name: str, what: str) -> None:
    """Make ``target.name`` fail the test when called, wherever gdlcheck holds it.

    ``from module import f`` binds a module's own reference to ``f``, so patching only the
    defining module would leave every importer calling the real function: each loaded
    gdlcheck module that holds the same object under that name is patched too.
    """
    real = getattr(target, name)

    def never(*args, **kwargs):
        raise AssertionError(f"{what} ran before the budget refused the request")

    # the holders are found first, in each module's own namespace: getattr would run the root
    # package's lazy __getattr__ after the patch and cache the patched function there for good
    holders = [
        module
        for module_name, module in list(sys.modules.items())
        if module_name.split(".")[0] == "gdlcheck" and vars(module).get(name) is real
    ]
    monkeypatch.setattr(target, name, never)
    for module in holders:
        monkeypatch.setattr(module, name, never)


@pytest.fixture
def run():
    """``run(args, input=None)`` -> click Result with ``exit_code``, ``stdout``, ``stderr``."""
    runner = CliRunner()

    def invoke(args, input=None):
        return runner.invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def samples():
    return SAMPLES
