"""The Python API: gdlcheck.group / derive / verify / verify_callable, and a cheap import."""

import json
import subprocess
import sys

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import gdlcheck
from gdlcheck.errors import CallableError, GdlcheckError, GroupError, SpecError
from tests.conftest import newcomer_env


@pytest.mark.slow
def test_done_when_derive_dimension_of_cyclic_6():
    out = subprocess.run(
        [sys.executable, "-c", "import gdlcheck; print(gdlcheck.derive(gdlcheck.group('cyclic', n=6)).dimension)"],
        capture_output=True,
        text=True,
        check=True,
        env=newcomer_env(),
    )
    assert out.stdout == "6\n"


@pytest.mark.slow
def test_import_is_cheap():
    code = (
        "import sys, gdlcheck; heavy = [m for m in ('sympy', 'scipy', 'rich', 'torch', 'numpy', 'click') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=newcomer_env())
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_using_the_api_does_not_import_torch():
    code = (
        "import sys, gdlcheck; gdlcheck.verify_callable(lambda X: 2 * X, 'cyclic', shape=(4, 2)); "
        "gdlcheck.derive(gdlcheck.group('symmetric', n=4)); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=newcomer_env())
    assert out.stdout.strip() == "False"


def test_exports():
    assert {"group", "derive", "verify", "verify_callable", "assert_equivariant"} <= set(gdlcheck.__all__)
    assert callable(gdlcheck.group) and callable(gdlcheck.verify_callable)
    with pytest.raises(AttributeError):
        gdlcheck.no_such_thing  # noqa: B018


def test_derive_and_verify_are_the_api_functions():
    from gdlcheck import api

    assert gdlcheck.derive is api.derive and gdlcheck.verify is api.verify
    assert gdlcheck.derive(gdlcheck.group("cyclic", n=3)).dimension == 3


def test_group_catalogue_and_errors():
    g = gdlcheck.group("cyclic", n=5)
    assert (g.n, g.order) == (5, 5)
    assert g.gens[0] == (1, 2, 3, 4, 0)  # the unit shift j -> j+1
    assert gdlcheck.group("translations", shape="4x4").order == 16
    assert gdlcheck.group("p4", shape=(3, 3)).order == 36
    assert gdlcheck.group(generators=["(0 1 2)"], n=4).order == 3
    cycle = np.roll(np.eye(6), 1, axis=1) + np.roll(np.eye(6), -1, axis=1)
    assert gdlcheck.group(graph=cycle).order == 12
    with pytest.raises(GroupError):
        gdlcheck.group("cyclc", n=4)
    with pytest.raises(GroupError):
        gdlcheck.group("cyclic")
    with pytest.raises(GroupError):
        gdlcheck.group("generators", n=3, generators=["[1, 1, 0]"])


def test_derive_cyclic_is_the_circulant():
    d = gdlcheck.derive(gdlcheck.group("cyclic", n=4))
    assert d.dimension == 4 and d.form == "circulant"
    assert d.parameters == ["theta_0", "theta_1", "theta_2", "theta_3"]
    i, j = np.indices((4, 4))
    assert np.array_equal(d.pattern, (i - j) % 4)
    assert d.basis.shape == (4, 4, 4) and d.basis.dtype == np.int8
    assert np.array_equal(d.basis.sum(axis=0), np.ones((4, 4)))
    theta = sympy.symbols("theta_0:4", real=True)
    assert d.matrix == sympy.Matrix(4, 4, lambda i, j: theta[(i - j) % 4])
    obj = d.to_json()
    assert obj["dimension"] == 4 and obj["form"] == "circulant"
    json.dumps(obj)


def test_derive_symmetric_and_channels():
    d = gdlcheck.derive(gdlcheck.group("symmetric", n=3), channels_in=2, channels_out=5)
    assert d.dimension == 2 and d.free_parameters == 20
    alpha, beta = sympy.symbols("alpha beta", real=True)
    assert d.matrix[0, 0] == alpha + beta and d.matrix[0, 1] == beta
    d22 = gdlcheck.derive(gdlcheck.group("symmetric", n=4), in_order=2, out_order=2)
    assert d22.dimension == 15 and d22.pattern.shape == (4, 4, 4, 4)
    with pytest.raises(GdlcheckError):
        d22.matrix  # noqa: B018
    with pytest.raises(GroupError):
        gdlcheck.derive("cyclic")


@given(
    st.sampled_from(["cyclic", "dihedral", "symmetric", "alternating"]), st.integers(3, 6), st.integers(0, 2**32 - 1)
)
def test_every_derived_matrix_verifies_and_a_random_one_fails(name, n, seed):
    g = gdlcheck.group(name, n=n)
    d = gdlcheck.derive(g)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal(d.dimension)[d.pattern]
    assert gdlcheck.verify(W, g).passed
    # Random dense weights break any non-trivial group.
    assert not gdlcheck.verify(rng.standard_normal((n, n)), g).passed


def test_verify_paths_dicts_text_and_matrices(samples):
    r = gdlcheck.verify(samples / "conv.yaml")
    assert r.passed and r.verdict == "holds" and r.to_json()["schema_version"] == 1
    r = gdlcheck.verify(str(samples / "symbolic-broken.yaml"))
    assert not r.passed and r.constraints == ["b = c"]
    spec = {"symmetry": {"group": "cyclic", "n": 4}, "layer": {"kind": "conv", "kernel": ["a", "b"]}}
    assert gdlcheck.verify(spec).verdict == "holds"
    assert gdlcheck.verify("symmetry: {group: cyclic, n: 3}\nlayer: {kind: conv, kernel: [1, 2]}\n").passed
    assert gdlcheck.verify(np.eye(3) + 1, "symmetric").verdict == "holds"
    a, b = sympy.symbols("a b")
    assert gdlcheck.verify(sympy.Matrix([[a, b], [b, a]]), "symmetric").verdict == "holds"
    r = gdlcheck.verify([[1, 2, 3], [3, 1, 2], [2, 3, 1]], gdlcheck.group("cyclic", n=3), method="exact")
    assert r.verdict == "holds"
    assert [c.method for c in r.checks] == ["exact"]


def test_verify_errors_are_gdlcheck_errors(samples):
    with pytest.raises(SpecError, match="no symmetry"):
        gdlcheck.verify(np.eye(3))
    with pytest.raises(SpecError, match="3 x 3 but the group acts on n = 4"):
        gdlcheck.verify(np.eye(3), gdlcheck.group("cyclic", n=4))
    with pytest.raises(SpecError):
        gdlcheck.verify(np.ones((2, 3)), "cyclic")
    with pytest.raises(SpecError):
        gdlcheck.verify([[1, float("nan")], [0, 1]], "cyclic")
    with pytest.raises(GdlcheckError):
        gdlcheck.verify(samples / "does-not-exist.yaml")
    with pytest.raises(GdlcheckError, match="method"):
        gdlcheck.verify(np.eye(2), "cyclic", method="fast")
    with pytest.raises(SpecError):
        gdlcheck.verify({"layer": {"kind": "nope"}}, "cyclic", n=3)


def test_verify_callable_laws():
    g = gdlcheck.group("symmetric", n=6)
    r = gdlcheck.verify_callable(lambda X: X - X.mean(axis=0), g, shape=(6, 2))
    assert r.passed and r.verdict == "holds_numerically"
    # each generator, then a uniformly random element of the group
    assert [c.generator for c in r.checks][:2] == g.generator_strings and len(r.checks) == 3
    r = gdlcheck.verify_callable(lambda X: np.cumsum(X, axis=0), "cyclic", shape=(6, 2))
    assert not r.passed and r.verdict == "fails"
    c = r.checks[0]
    assert c.relative_error > 0.1 and c.counterexample["seed"] == 0 and "trial" in c.counterexample
    json.dumps(r.to_json())
    # invariant: the output has no point axis
    assert gdlcheck.verify_callable(lambda X: X.max(axis=0), g, shape=(6, 3), expect="invariant").passed
    assert not gdlcheck.verify_callable(lambda X: X[0], g, shape=(6, 3), expect="invariant").passed
    # a vector input and a 3-axis input
    assert gdlcheck.verify_callable(lambda x: np.tanh(x), "cyclic", shape=(5,)).passed
    assert gdlcheck.verify_callable(
        lambda X: X * X.sum(axis=(1, 2), keepdims=True), "symmetric", shape=(4, 2, 3)
    ).passed


def test_verify_callable_with_an_adjacency_is_theorem_3():
    n = 5
    rng = np.random.default_rng(1)
    A = (rng.random((n, n)) < 0.5).astype(float)
    A = np.triu(A, 1)
    A = A + A.T

    def gcn(X, A):
        At = A + np.eye(len(A))
        d = At.sum(axis=1) ** -0.5
        return np.maximum(d[:, None] * At * d[None, :] @ X, 0)

    assert gdlcheck.verify_callable(gcn, "symmetric", shape=(n, 2), adjacency=A).passed
    # the same GCN with A held fixed is not equivariant under every permutation
    assert not gdlcheck.verify_callable(lambda X: gcn(X, A), "symmetric", shape=(n, 2)).passed


@pytest.mark.slow  # runs torch
def test_verify_callable_errors():
    def bad(X):
        raise ValueError("boom")

    with pytest.raises(CallableError, match="raised ValueError: boom") as info:
        gdlcheck.verify_callable(bad, "cyclic", shape=(4, 1))
    assert isinstance(info.value, GdlcheckError) and isinstance(info.value.__cause__, ValueError)
    with pytest.raises(CallableError, match="first axis"):
        gdlcheck.verify_callable(lambda X: X.sum(axis=0), "cyclic", shape=(4, 2))
    with pytest.raises(CallableError, match="4 points but the group acts on n = 5"):
        gdlcheck.verify_callable(lambda X: X, gdlcheck.group("cyclic", n=5), shape=(4, 2))
    with pytest.raises(CallableError, match="not an array"):
        gdlcheck.verify_callable(lambda X: "text", "cyclic", shape=(4, 2))
    with pytest.raises(CallableError):
        gdlcheck.verify_callable(lambda X: X, "cyclic", shape=(4, 0))
    with pytest.raises(CallableError):
        gdlcheck.verify_callable(lambda X: X, "cyclic", shape=(4, 2), expect="covariant")
    with pytest.raises(GroupError):
        gdlcheck.verify_callable(lambda X: X, "cyclc", shape=(4, 2))


@given(st.integers(2, 7), st.integers(1, 3), st.integers(0, 2**16))
def test_rowwise_maps_hold_for_every_permutation(n, d, seed):
    W = np.random.default_rng(seed).standard_normal((d, d))
    r = gdlcheck.verify_callable(lambda X: np.tanh(X @ W), "symmetric", shape=(n, d), seed=seed)
    assert r.passed


@given(st.integers(3, 7), st.integers(0, 2**16))
def test_float32_uses_a_looser_default_tolerance(n, seed):
    W = np.random.default_rng(seed).standard_normal((n, n))
    Wc = W[0][(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]  # circulant
    r = gdlcheck.verify_callable(lambda X: (Wc @ X).astype(np.float32), "cyclic", shape=(n, 2), dtype="float32")
    assert r.passed


def test_a_one_line_yaml_spec_is_read_as_yaml_not_as_a_path():
    r = gdlcheck.verify("{symmetry: {group: cyclic, n: 3}, layer: {kind: conv, kernel: [1, 2]}}")
    assert r.input == "<spec>" and r.verdict == "holds"
    r = gdlcheck.verify("layer: {kind: deepsets, alpha: 1, beta: 2}", group="symmetric", n=4)
    assert r.verdict == "holds"
    # a path that does not exist is still a path
    with pytest.raises(GdlcheckError, match="no such file"):
        gdlcheck.verify("no/such/spec.yaml", group="cyclic")


def test_library_errors_name_python_parameters_and_the_cli_names_flags(run):
    g = gdlcheck.group("cyclic", n=4)
    with pytest.raises(GdlcheckError) as err:
        gdlcheck.derive(g, in_order=5)
    assert str(err.value) == "in_order must be between 0 and 4, got 5"
    with pytest.raises(GroupError) as err:
        gdlcheck.group("cyclic")
    assert str(err.value) == "group 'cyclic' needs a size: give n"
    result = run(["derive", "--group", "cyclic"])
    assert result.exit_code == 2 and result.stderr == "gdlcheck: error: group 'cyclic' needs a size: give -n N\n"
    with pytest.raises(CallableError, match=r"the input's first axis \(shape\) has 5 points"):
        gdlcheck.verify_callable(lambda X: X, g, shape=(5, 2))


def test_project_inspect_and_symmetries_are_api_calls_too(samples):
    W = np.arange(16.0).reshape(4, 4)
    p = gdlcheck.project(W, "cyclic")
    assert p.group.n == 4 and 0 < p.distance < 1
    assert gdlcheck.verify(p.matrix, p.group).verdict == "holds"
    assert gdlcheck.inspect(samples / "gcn.yaml").depends_on == "graph"
    found = gdlcheck.find_symmetries(samples / "petersen.csv")
    assert found.group.order == 120 and found.to_json("petersen")["group"]["order"] == 120
