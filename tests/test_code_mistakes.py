"""Mistakes in checking code get a plain answer (the manual, "Checking code"): a batch axis is never
checked silently, a wrong ``expect`` is diagnosed as it is for a matrix, and an error names what
to do."""

import numpy as np
import pytest

import gdlcheck
from gdlcheck.errors import CallableError, GdlcheckError

rng = np.random.default_rng(0)
TABLE = rng.standard_normal((6, 3))


def batch_first(X):
    return X + TABLE  # per-position table on axis 1: not equivariant on the points


def documented(X):
    """Takes X : (B, N, D), a batch of sets."""
    return X + TABLE


# ---------------------------------------------------------------- the batch axis (numpy path)


def test_a_short_leading_axis_is_not_checked_as_the_points():
    with pytest.raises(CallableError, match=r"axis 0 of the input \(2, 6, 3\).*may be a batch.*batch_axes=0"):
        gdlcheck.verify_callable(batch_first, "symmetric", shape=(2, 6, 3))
    assert not gdlcheck.verify_callable(batch_first, "symmetric", shape=(2, 6, 3), batch_axes=0).passed


def test_a_documented_batch_is_not_checked_as_the_points():
    with pytest.raises(CallableError, match="docstring of documented speaks of a batch"):
        gdlcheck.verify_callable(documented, "symmetric", shape=(6, 6, 3))
    assert not gdlcheck.verify_callable(documented, "symmetric", shape=(6, 6, 3), batch_axes=0).passed


def test_the_points_axis_given_is_taken_as_said():
    def centred(X):
        return X - X.mean(axis=0, keepdims=True)

    assert gdlcheck.verify_callable(centred, "symmetric", shape=(2, 6, 3), points_axis=0).passed
    assert gdlcheck.verify_callable(centred, "symmetric", shape=(6, 2, 3)).passed  # a long axis 0: the points


def test_the_command_line_spells_the_flags(run, tmp_path, monkeypatch):
    (tmp_path / "ubatch.py").write_text("import numpy as np\n\n\ndef f(X):\n    return X[:, ::-1]\n")
    monkeypatch.chdir(tmp_path)
    result = run(["verify", "--callable", "ubatch:f", "--input-shape", "2x6x3", "--group", "symmetric"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "--batch-axes 0" in result.stderr and "--points-axis 0" in result.stderr
    result = run(
        ["verify", "--callable", "ubatch:f", "--input-shape", "2x6x3", "--group", "symmetric", "--batch-axes", "0"]
    )
    assert result.exit_code == 1


# ---------------------------------------------------------------- the wrong expect


def centred(X):
    return X - X.mean(axis=0)


def test_an_equivariant_callable_checked_for_invariance_is_told_to_use_equivariant():
    result = gdlcheck.verify_callable(centred, "symmetric", shape=(5, 2), expect="invariant")
    assert not result.passed
    text = " ".join(result.to_json()["diagnosis"])
    assert "the output is equivariant, not invariant; use expect='equivariant'" in text
    assert "none of the neighbouring laws" not in text


def test_an_invariant_callable_checked_for_equivariance_is_told_to_use_invariant():
    def sorted_rows(X):  # the same for every order of the rows: invariant, and of the input's shape
        return np.sort(X, axis=0)

    result = gdlcheck.verify_callable(sorted_rows, "symmetric", shape=(5, 2))
    assert not result.passed
    assert "use expect='invariant'" in " ".join(result.to_json()["diagnosis"])


def test_a_callable_that_is_neither_gets_no_neighbouring_law():
    def positional(X):
        return X + TABLE[:5, :2]

    result = gdlcheck.verify_callable(positional, "symmetric", shape=(5, 2), expect="invariant")
    text = " ".join(result.to_json()["diagnosis"])
    assert "none of the neighbouring laws" in text and "use expect" not in text


def test_a_matrix_keeps_the_spec_spelling(run, tmp_path):
    spec = tmp_path / "pooled.yaml"
    spec.write_text(
        "symmetry: {group: symmetric, n: 4}\nexpect: invariant\nlayer: {kind: linear, weight: "
        "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]}\n"
    )
    result = run(["verify", spec, "--format", "json"])
    assert result.exit_code == 1 and "use expect: equivariant" in result.stdout


# ---------------------------------------------------------------- one line that says what to do


def test_a_continuous_group_is_said_to_be_out_of_scope(run, samples):
    for name in ("SO3", "SO(3)", "E(3)", "U1"):
        result = run(["verify", samples / "dense.csv", "--group", name])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1
        assert "continuous groups are out of scope" in result.stderr and "finite permutation groups" in result.stderr
    assert "did you mean 'cyclic'" in run(["verify", samples / "dense.csv", "--group", "cyclc"]).stderr


def test_an_output_that_is_none_says_what_to_do():
    with pytest.raises(CallableError, match="the output is None: the code returns nothing; return the layer's output"):
        gdlcheck.verify_callable(lambda X: None, "symmetric", shape=(4, 1))
    with pytest.raises(CallableError, match=r"output\[1\] is None: describe it as ignored \(outputs='ignored' in its"):
        gdlcheck.verify_callable(lambda X: (X, None), "symmetric", shape=(4, 1), outputs=("points", "points"))


def test_a_group_by_name_without_a_shape_asks_for_the_shape():
    with pytest.raises(CallableError, match=r"give shape=\(n, d\)") as caught:
        gdlcheck.verify_callable(centred, "symmetric")
    assert "give n" not in str(caught.value)
    with pytest.raises(GdlcheckError, match="unknown group 'cyclc'"):
        gdlcheck.verify_callable(centred, "cyclc")


def test_a_checkpoint_without_torch_names_the_cpu_build(monkeypatch, tmp_path):
    path = tmp_path / "model.pt"
    path.write_bytes(b"not read")
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # import torch fails
    with pytest.raises(GdlcheckError) as caught:
        gdlcheck.verify_weights(str(path), "cyclic")
    assert "--index-url https://download.pytorch.org/whl/cpu" in str(caught.value)
    assert "gdlcheck[torch]" not in str(caught.value)


torch = pytest.importorskip("torch")


@pytest.mark.slow
def test_a_module_given_to_verify_points_to_verify_callable():
    with pytest.raises(GdlcheckError, match=r"Linear is code: check it with gdlcheck.verify_callable"):
        gdlcheck.verify(torch.nn.Linear(4, 4), "cyclic")


@pytest.mark.slow
def test_a_shape_error_from_torch_points_to_the_shape_and_axes(run, tmp_path, monkeypatch):
    (tmp_path / "ulinear.py").write_text("import torch\n\nlayer = torch.nn.Linear(4, 4)\n")
    monkeypatch.chdir(tmp_path)
    result = run(["verify", "--callable", "ulinear:layer", "--input-shape", "6x3", "--group", "symmetric"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "mat1 and mat2" in result.stderr and "called on an input of shape (6, 3)" in result.stderr
    assert "--input-shape" in result.stderr and "--points-axis" in result.stderr
    assert "site-packages" not in result.stderr  # no line of torch's own code


@pytest.mark.slow
def test_a_zero_padded_convolution_is_told_to_pad_circularly():
    torch.manual_seed(0)
    zeros = torch.nn.Conv1d(1, 1, 3, padding=1)
    result = gdlcheck.verify_callable(zeros, "cyclic", shape=(1, 8), points_axis=1)
    assert not result.passed
    assert any("padding_mode='circular'" in line for line in result.to_json()["diagnosis"])
    circular = torch.nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular")
    assert gdlcheck.verify_callable(circular, "cyclic", shape=(1, 8), points_axis=1).passed
