"""`gdlcheck verify --callable module:attr`: importing, building, verdicts and errors."""

import json
import subprocess
import sys
import textwrap

import pytest

from gdlcheck.code.input_shape import parse_input_shape
from gdlcheck.code.running import build_callable, load_callable
from gdlcheck.errors import CallableError
from tests.conftest import SAMPLES, newcomer_env


def gdlcheck_in(folder, *args):
    """Run the real command line in ``folder`` (a fresh process: imports as a user's would be)."""
    return subprocess.run(
        [sys.executable, "-m", "gdlcheck", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=newcomer_env(NO_COLOR="1"),
        timeout=120,
    )


@pytest.mark.slow
def test_done_when_centred_passes_under_symmetric():
    out = gdlcheck_in(
        SAMPLES, "verify", "--callable", "mylayers:centred", "--input-shape", "6x2", "--group", "symmetric"
    )
    assert out.returncode == 0, out.stderr
    assert "PASS" in out.stdout and "mylayers:centred" in out.stdout and out.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    "target, shape",
    [("torchlayers:median_centred", "6x5"), ("torchlayers:encoder", "8x2x3"), ("mylayers:TorchDeepSets", "6x7")],
)
def test_a_wrong_input_shape_for_a_torch_module_is_one_line(target, shape):
    """torch logs a traceback when a shape probe fails (its fake-tensor logger); the user sees
    gdlcheck's one line only. A fresh process: the logger's handler holds the real stderr."""
    out = gdlcheck_in(SAMPLES, "verify", "--callable", target, "--input-shape", shape, "--group", "symmetric")
    assert out.returncode == 2
    assert out.stderr.startswith(f"gdlcheck: error: {target}: ") and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.slow
def test_done_when_cumsum_fails_under_cyclic():
    out = gdlcheck_in(
        SAMPLES,
        "verify",
        "--callable",
        "mylayers:cumsum",
        "--input-shape",
        "6x2",
        "--group",
        "cyclic",
        "--format",
        "json",
    )
    assert out.returncode == 1, out.stderr
    obj = json.loads(out.stdout)
    assert obj["input"] == "mylayers:cumsum" and obj["kind"] == "callable"
    assert obj["passed"] is False and obj["verdict"] == "fails"
    assert obj["group"]["generators"] == ["(0 1 2 3 4 5)"]
    counter = obj["checks"][0]["counterexample"]
    assert counter["seed"] == 0 and isinstance(counter["trial"], int)


@pytest.mark.slow
def test_invariant_and_factory_and_quiet():
    out = gdlcheck_in(
        SAMPLES,
        "verify",
        "--callable",
        "mylayers:total",
        "--input-shape",
        "5x3",
        "--group",
        "symmetric",
        "--expect",
        "invariant",
        "--quiet",
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Write ``name.py`` into a temporary folder, chdir there, and forget it afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # restores sys.path afterwards

    def write(name, source):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
        monkeypatch.delitem(sys.modules, name, raising=False)
        return name

    yield write


@pytest.mark.slow  # runs torch
def test_user_errors_are_one_line_and_exit_2(run, user_module):
    user_module(
        "ul_err",
        """
        import numpy as np

        def bad(X):
            raise ValueError("shapes (6,2) and (3,3) not aligned")

        def pooled(X):
            return X.sum(axis=0)

        class NeedsArgs:
            def __init__(self, width):
                self.width = width

        not_callable = 3
    """,
    )
    user_module("ul_import_fails", "import a_package_that_is_not_there\n")
    cases = [
        (["ul_err:bad"], "ul_err:bad: raised ValueError: shapes (6,2) and (3,3) not aligned"),
        (["ul_err:nope"], "ul_err:nope: module 'ul_err' has no attribute 'nope'"),
        (["no_such_module_xyz:f"], "no_such_module_xyz:f: no module named 'no_such_module_xyz'"),
        (["ul_import_fails:f"], "ul_import_fails:f: importing ul_import_fails raised ModuleNotFoundError"),
        (["ul_err:pooled"], "use --expect invariant"),
        (
            ["ul_err:NeedsArgs"],
            "ul_err:NeedsArgs: building the layer (class called with no arguments) raised TypeError",
        ),
        (["ul_err:not_callable"], "int object is not callable"),
        (["no-colon"], "is not like module:attr"),
    ]
    for target, message in cases:
        result = run(["verify", "--callable", *target, "--input-shape", "6x2", "--group", "symmetric"])
        assert result.exit_code == 2, (target, result.stdout, result.stderr)
        assert result.stderr.startswith("gdlcheck: error: ") and message in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_usage_errors(run, user_module):
    user_module("ul_ok", "def same(X):\n    return X\n")
    cases = [
        (["verify"], "missing INPUT"),
        (["verify", "--callable", "ul_ok:same"], "--input-shape"),
        (["verify", "--callable", "ul_ok:same", "--input-shape", "6by2", "--group", "cyclic"], "--input-shape"),
        (["verify", "--callable", "ul_ok:same", "--input-shape", "6x2"], "--group"),
        (
            ["verify", "--callable", "ul_ok:same", "--input-shape", "6x2", "--group", "cyclic", "-n", "5"],
            "6 points but the group acts on n = 5",
        ),
        (["verify", "x.yaml", "--callable", "ul_ok:same"], "not both"),
        (["verify", "x.yaml", "--input-shape", "6x2"], "go with --callable"),
    ]
    for args, message in cases:
        result = run(args)
        assert result.exit_code == 2, (args, result.stdout)
        assert message in result.stderr, (args, result.stderr)


def test_callable_json_text_and_exact(run, user_module):
    user_module(
        "ul_layers",
        """
        import numpy as np

        def shift_back(X):
            return np.roll(X, 1, axis=0)

        class Scaled:
            def __call__(self, X):
                return 3.0 * X

        def make_scaled():
            return Scaled()
    """,
    )
    for target in ("ul_layers:shift_back", "ul_layers:Scaled", "ul_layers:make_scaled"):
        result = run(["verify", "--callable", target, "--input-shape", "4x2", "--group", "cyclic", "--format", "json"])
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["verdict"] == "holds_numerically"
    # shift_back commutes with the shift but not with every permutation
    result = run(["verify", "--callable", "ul_layers:shift_back", "--input-shape", "4x2", "--group", "symmetric"])
    assert result.exit_code == 1 and "FAIL" in result.stdout
    # no exact check applies to code: --method exact is inconclusive
    result = run(
        [
            "verify",
            "--callable",
            "ul_layers:Scaled",
            "--input-shape",
            "4x2",
            "--group",
            "cyclic",
            "--method",
            "exact",
            "--format",
            "json",
        ]
    )
    assert result.exit_code == 3 and json.loads(result.stdout)["verdict"] == "inconclusive"


def test_dtype_float32_loosens_the_default_tolerance_only(run, user_module):
    user_module(
        "ul_f32",
        """
        import numpy as np

        def mix(X):
            W = np.linspace(-1, 1, 36).reshape(6, 6)
            C = W[0][(np.arange(6)[:, None] - np.arange(6)[None, :]) % 6]
            return np.tanh(C.astype(X.dtype) @ X)
    """,
    )
    base = ["verify", "--callable", "ul_f32:mix", "--input-shape", "6x3", "--group", "cyclic", "--format", "json"]
    # float32 rounding (~1e-7 relative) passes the float32 default tolerance, 1e-5 ...
    result = run(base + ["--dtype", "float32"])
    assert result.exit_code == 0, result.stdout
    errors = [c["relative_error"] for c in json.loads(result.stdout)["checks"]]
    assert 1e-9 < max(errors) < 1e-5  # it really ran in float32, compared in float64
    # ... but an explicit --tol wins over that default
    result = run(base + ["--dtype", "float32", "--tol", "1e-9"])
    assert result.exit_code == 1
    assert run(base + ["--tol", "1e-9"]).exit_code == 0


def test_parse_input_shape():
    assert parse_input_shape("6x2") == (6, 2)
    assert parse_input_shape("6") == (6,)
    assert parse_input_shape("4x3x2") == (4, 3, 2)
    assert parse_input_shape((5, 1)) == (5, 1)
    for bad in ("", "x", "6x", "6x0", "-1x2", "a", (0, 2), (True, 2), 2.5):
        with pytest.raises(CallableError):
            parse_input_shape(bad)


def test_load_callable_uses_the_folder_and_builds(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ul_folder", raising=False)
    (tmp_path / "ul_folder.py").write_text("class Layer:\n    def __call__(self, X):\n        return X\n")
    f = load_callable("ul_folder:Layer", str(tmp_path))
    assert type(f).__name__ == "Layer"
    assert build_callable(len) is len
    with pytest.raises(CallableError):
        build_callable(3)


def test_a_factory_with_default_arguments_is_called_to_build_the_layer(run, user_module):
    name = user_module(
        "factories",
        """
        import numpy as np

        def make_scaled(scale=2.0):
            return lambda X: scale * X

        def scaled(X, scale=2.0):
            return scale * X
    """,
    )
    assert (
        run(["verify", "--callable", f"{name}:make_scaled", "--input-shape", "4x2", "-g", "symmetric", "-q"]).exit_code
        == 0
    )
    assert (
        run(["verify", "--callable", f"{name}:scaled", "--input-shape", "4x2", "-g", "symmetric", "-q"]).exit_code == 0
    )
