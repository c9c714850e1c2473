"""What Python's tools see of gdlcheck: a type checker resolves the API's types, `import gdlcheck`
stays cheap, results show themselves in a REPL, in a report and in a real Jupyter kernel, and
pytest shows no frame of gdlcheck's own when a checked callable raises."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gdlcheck
from gdlcheck.errors import GdlcheckError
from tests.conftest import ROOT, SAMPLES, newcomer_env


def python(code: str, cwd=ROOT) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter that imports this clone's gdlcheck."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


# --------------------------------------------------------------------------- type checkers


@pytest.mark.slow
def test_mypy_reveals_the_types_of_the_api(tmp_path):
    snippet = tmp_path / "user_code.py"
    snippet.write_text(
        textwrap.dedent("""\
        import numpy as np
        import gdlcheck

        g = gdlcheck.group("cyclic", n=4)
        reveal_type(gdlcheck.derive(g).dimension)
        reveal_type(gdlcheck.verify(np.eye(4), g).passed)
        reveal_type(gdlcheck.project(np.eye(4), g).distance)
        reveal_type(gdlcheck.verify_callable(lambda X: X, g, shape=(4, 2)).verdict)
        reveal_type(gdlcheck.testing.assert_equivariant(lambda X: X, g, (4, 2)))
        gdlcheck.verify(np.eye(4), g).pased
        """)
    )
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--follow-imports=silent",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--hide-error-context",
            "--no-error-summary",
            str(snippet),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    revealed = [t.removeprefix("builtins.") for t in re.findall(r'Revealed type is "(.*?)"', out.stdout)]
    assert revealed == ["int", "bool", "float", "str", "gdlcheck.verification.result.Verified"], out.stdout + out.stderr
    # and a typo is caught, which an Any would let through
    assert '"Verified" has no attribute "pased"' in out.stdout, out.stdout


@pytest.mark.slow  # a fresh virtual environment and two installs from the package index
def test_mypy_sees_the_api_after_the_readmes_install(tmp_path):
    """As a user runs it: a fresh venv, the README's ``pip install -e .``, then ``mypy snippet.py``
    in a folder of their own, with no MYPYPATH and no PYTHON* variable (setuptools' editable
    import hook hid the package from mypy: every type was Any, and nothing was caught)."""
    venv = tmp_path / "venv"
    env = newcomer_env()
    env.pop("PYTHONPATH")
    env.pop("MYPYPATH", None)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    python = str(venv / "bin" / "python")
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "-e", str(ROOT), "mypy"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    user = tmp_path / "user"
    user.mkdir()
    (user / "snippet.py").write_text(
        textwrap.dedent("""\
        import gdlcheck
        from gdlcheck.testing import assert_equivariant

        g = gdlcheck.group("cyclic", n=4)
        reveal_type(gdlcheck.verify_callable(lambda X: X, g, shape=(4, 2)).passed)
        reveal_type(gdlcheck.derive(g).dimension)
        reveal_type(gdlcheck.project([[1.0, 0.0], [0.0, 1.0]], gdlcheck.group("cyclic", n=2)).distance)
        assert_equivariant(lambda X: X, g, (4, 2), point_axis=-1)
        """)
    )
    out = subprocess.run(
        [python, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), "snippet.py"],
        cwd=user,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    revealed = [t.removeprefix("builtins.") for t in re.findall(r'Revealed type is "(.*?)"', out.stdout)]
    assert revealed == ["bool", "int", "float"], out.stdout + out.stderr
    assert 'Unexpected keyword argument "point_axis" for "assert_equivariant"' in out.stdout, out.stdout
    assert "Cannot find implementation" not in out.stdout, out.stdout


@pytest.mark.slow  # a fresh interpreter is the point: what `import gdlcheck` loads
def test_import_gdlcheck_loads_nothing_heavy_and_testing_is_an_attribute():
    out = python(
        "import sys, gdlcheck\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'sympy', 'rich', 'typing', 'torch')"
        " or m.startswith('gdlcheck.')))\n"
        "print(gdlcheck.testing.assert_equivariant.__name__)"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["[]", "assert_equivariant"]


def test_every_public_name_resolves():
    for name in gdlcheck.__all__:
        assert getattr(gdlcheck, name) is not None, name
    with pytest.raises(AttributeError):
        gdlcheck.no_such_name  # noqa: B018


# --------------------------------------------------------------------------- in a REPL and a report


def circulant(n: int) -> tuple:
    g = gdlcheck.group("cyclic", n=n)
    d = gdlcheck.derive(g)
    return g, np.random.default_rng(0).standard_normal(d.dimension)[d.pattern]


def test_results_have_short_reprs():
    g, W = circulant(6)
    r = gdlcheck.verify(W, g)
    # the exact check of the generator, its numeric trial, and a trial of one random group element
    assert [c.method for c in r.checks] == ["exact", "numeric", "numeric"]
    assert repr(r) == "<Verified holds: <matrix> (matrix) against cyclic (n=6), 3 check(s)>"
    assert repr(r.checks[0]) == "<Check (0 1 2 3 4 5) exact: PASS>"
    assert repr(gdlcheck.derive(g)) == "<Derived cyclic (n=6) order 1 -> 1: circulant, dimension 6>"
    assert repr(gdlcheck.project(W, g)).startswith("<Projected 6 x 6 onto cyclic (n=6): relative distance ")
    broken = W.copy()
    broken[0, 1] += 1
    assert repr(gdlcheck.verify(broken, g)).startswith("<Verified fails: ")


def test_report_is_the_text_report_the_command_prints(run, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    shown = run(["verify", SAMPLES / "conv.yaml"]).stdout
    assert gdlcheck.verify(SAMPLES / "conv.yaml").report(width=80) == shown
    g, W = circulant(8)
    derived = gdlcheck.derive(g).report(width=80)
    assert derived == run(["derive", "--group", "cyclic", "-n", "8"]).stdout


def test_html_is_the_report_in_colour_with_user_text_escaped():
    g, W = circulant(4)
    html = gdlcheck.verify(W, g)._repr_html_()
    assert html.startswith("<pre") and html.endswith("</pre>")
    assert "PASS" in html and "&lt;matrix&gt;" in html and "<matrix>" not in html
    assert "color:" in html  # the verdict's colour survives
    assert "circulant" in gdlcheck.derive(g)._repr_html_()


def test_plot_returns_the_verify_picture_of_a_matrix():
    g, W = circulant(6)
    W = W.copy()
    W[2, 3] += 0.5
    fig = gdlcheck.verify(W, g).plot()
    images = [ax.images[0].get_array() for ax in fig.axes if ax.images]
    assert len(images) == 3
    # drawn on [-1, 1] (the colour bar's ticks carry the units): W over its largest entry
    assert np.allclose(np.asarray(images[0]) * np.abs(W).max(), W, rtol=1e-12, atol=0)
    difference = np.asarray(images[2])
    assert np.unravel_index(np.argmax(np.abs(difference)), difference.shape) == (2, 3)
    assert fig._repr_png_().startswith(b"\x89PNG")
    assert gdlcheck.derive(gdlcheck.group("p4", shape=(3, 3))).plot().axes


def test_plot_of_a_spec_says_why_not():
    with pytest.raises(GdlcheckError, match="plot.. draws a matrix of numbers; this result is of a conv"):
        gdlcheck.verify(SAMPLES / "conv.yaml").plot()


# --------------------------------------------------------------------------- in a real kernel


@pytest.mark.slow
def test_a_notebook_shows_the_verdict_as_html_and_the_picture_as_a_figure():
    import nbclient
    import nbformat

    cells = [
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "import numpy as np, gdlcheck\n"
        "g = gdlcheck.group('cyclic', n=6)\n"
        "W = np.random.default_rng(0).standard_normal(6)[gdlcheck.derive(g).pattern]\n"
        "W[0, 1] += 1\n"
        "result = gdlcheck.verify(W, g)\n"
        "result",
        "result.plot()",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    verdict, picture = (cell.outputs for cell in nb.cells)
    (shown,) = [o for o in verdict if o.output_type == "execute_result"]
    assert "FAIL" in shown.data["text/html"] and "counterexample" in shown.data["text/html"]
    assert shown.data["text/plain"].startswith("<Verified fails: ")
    (figure,) = [o for o in picture if o.output_type == "execute_result"]
    assert "image/png" in figure.data


# --------------------------------------------------------------------------- pytest's traceback


@pytest.mark.slow
def test_pytest_shows_no_gdlcheck_frame_when_the_checked_callable_raises(tmp_path):
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent("""\
        from gdlcheck.testing import assert_equivariant

        def my_layer(X):
            raise ValueError("a bug in my layer")

        def test_my_layer():
            assert_equivariant(my_layer, "symmetric", (6, 3))
        """)
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 1
    assert 'raise ValueError("a bug in my layer")' in out.stdout  # the user's own frame
    assert "assert_equivariant(my_layer" in out.stdout  # the test's line
    assert "CallableError: my_layer: raised ValueError: a bug in my layer" in out.stdout
    assert not re.search(r"gdlcheck/[\w/]+\.py:\d+", out.stdout), out.stdout  # no frame of gdlcheck's own
