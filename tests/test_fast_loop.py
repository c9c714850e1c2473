"""The fast loop (``pytest -m "not slow"``, docs/install.md) skips importing the test modules that
are slow as a whole, and every other run collects them (tests/conftest.py)."""

import pathlib
import types

from tests.conftest import ROOT, WHOLE_MODULE_SLOW, pytest_ignore_collect


def _config(markexpr: str):
    return types.SimpleNamespace(getoption=lambda name, default=None: markexpr if name == "markexpr" else default)


def _whole_slow() -> list[pathlib.Path]:
    return [p for p in sorted((ROOT / "tests").glob("test_*.py")) if WHOLE_MODULE_SLOW in p.read_text()]


def test_a_module_slow_as_a_whole_is_not_imported_by_the_fast_loop():
    slow = _whole_slow()
    assert ROOT / "tests" / "test_pyg_catalogue.py" in slow
    for path in slow:
        assert pytest_ignore_collect(path, _config("not slow")) is True
        assert pytest_ignore_collect(path, _config("  not   slow ")) is True


def test_every_other_run_collects_it():
    for path in _whole_slow():
        for markexpr in ("", "slow", "not slow and not torch", "slow or not slow"):
            assert pytest_ignore_collect(path, _config(markexpr)) is None


def test_a_module_with_some_fast_tests_is_collected_by_the_fast_loop():
    this = pathlib.Path(__file__)
    assert pytest_ignore_collect(this, _config("not slow")) is None
    assert pytest_ignore_collect(ROOT / "tests" / "test_cli.py", _config("not slow")) is None
