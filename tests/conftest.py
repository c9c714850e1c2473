"""Shared fixtures: a CliRunner that keeps stdout and stderr apart, and the samples folder."""

import os
import pathlib

import pytest
from click.testing import CliRunner
from hypothesis import settings

from gdlcheck.cli import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60)
settings.register_profile("dev", deadline=None, max_examples=60)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


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
