"""PyTorch modules and functions on tensors (CI installs torch, so these run rather than skip)."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import gdlcheck
from gdlcheck.errors import CallableError
from gdlcheck.testing import assert_equivariant
from tests.conftest import SAMPLES, newcomer_env

pytestmark = pytest.mark.slow  # subprocesses and torch: deselect with -m 'not slow'


class SelfAttention(torch.nn.Module):
    """``torch.nn.MultiheadAttention`` on one unbatched sequence ``X : (L, E)``."""

    def __init__(self, dim=4, heads=2, causal=False):
        super().__init__()
        torch.manual_seed(0)
        self.mha = torch.nn.MultiheadAttention(dim, heads, dropout=0.1)
        self.causal = causal

    def forward(self, X):
        mask = None
        if self.causal:  # True: may not attend (a later position)
            L = X.shape[0]
            mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        return self.mha(X, X, X, attn_mask=mask, need_weights=False)[0]


class GCN(torch.nn.Module):
    """``Y = relu(D~^-1/2 (A + I) D~^-1/2 X W)`` (Kipf and Welling), on the adjacency it is given."""

    def __init__(self, d_in=3, d_out=2):
        super().__init__()
        torch.manual_seed(1)
        self.lin = torch.nn.Linear(d_in, d_out, bias=False)

    def forward(self, X, A):
        At = A + torch.eye(A.shape[0], dtype=A.dtype)
        d = At.sum(dim=1).rsqrt()
        return torch.relu(d[:, None] * At * d[None, :] @ self.lin(X))


class RingGCN(GCN):
    """The same GCN with the graph fixed to a ring: a CNN (equivariant under the ring's automorphisms)."""

    def forward(self, X):
        n = X.shape[0]
        A = torch.zeros(n, n, dtype=X.dtype)
        i = torch.arange(n)
        A[i, (i + 1) % n] = 1
        A[(i + 1) % n, i] = 1
        return super().forward(X, A)


def random_graph(n, seed):
    rng = np.random.default_rng(seed)
    A = np.triu((rng.random((n, n)) < 0.4).astype(float), 1)
    return A + A.T


def test_linear_rowwise_is_equivariant_and_the_module_is_left_alone():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 4)
    before = {k: v.clone() for k, v in lin.state_dict().items()}
    r = gdlcheck.verify_callable(lin, "symmetric", shape=(5, 3))
    assert r.passed and r.kind == "torch.nn.Module"
    assert max(c.relative_error for c in r.checks if c.method == "numeric") < 1e-12  # ran in float64
    assert lin.weight.dtype == torch.float32 and lin.training
    assert all(torch.equal(before[k], v) for k, v in lin.state_dict().items())


def test_linear_along_the_points_axis_is_not():
    torch.manual_seed(0)
    mix = torch.nn.Linear(5, 5)
    r = gdlcheck.verify_callable(lambda X: mix(X.T).T, "cyclic", shape=(5, 3), dtype="float32")
    assert not r.passed


def test_multihead_attention_without_a_mask_is_equivariant():
    attn = SelfAttention()
    attn.train()  # dropout on: verification must switch it off (eval mode) on its copy
    r = gdlcheck.verify_callable(attn, "symmetric", shape=(6, 4))
    assert r.passed, r.to_json()
    assert attn.training


def test_multihead_attention_with_a_causal_mask_is_not():
    r = gdlcheck.verify_callable(SelfAttention(causal=True), "cyclic", shape=(6, 4))
    assert not r.passed and r.verdict == "fails"
    assert [c for c in r.checks if c.method == "numeric"][0].counterexample["seed"] == 0
    assert not gdlcheck.verify_callable(SelfAttention(causal=True), "symmetric", shape=(6, 4)).passed


@given(st.integers(3, 7), st.integers(0, 2**16))
def test_gcn_with_the_graph_as_input_is_equivariant_theorem_3(n, seed):
    A = random_graph(n, seed)
    assert gdlcheck.verify_callable(GCN(), "symmetric", shape=(n, 3), adjacency=A, seed=seed).passed


def test_gcn_on_a_fixed_ring_is_a_cnn():
    assert gdlcheck.verify_callable(RingGCN(), "cyclic", shape=(6, 3)).passed
    assert gdlcheck.verify_callable(RingGCN(), "dihedral", shape=(6, 3)).passed
    assert not gdlcheck.verify_callable(RingGCN(), "symmetric", shape=(6, 3)).passed


def test_functions_on_tensors_and_functions_returning_tensors():
    # takes tensors (fails on numpy, retried with tensors)
    assert gdlcheck.verify_callable(lambda X: torch.softmax(X, dim=0), "symmetric", shape=(5, 2)).passed
    # takes numpy, returns a tensor that needs no_grad/detach
    w = torch.randn(2, 2, requires_grad=True, dtype=torch.float64)
    r = gdlcheck.verify_callable(lambda X: torch.as_tensor(X) @ w, "symmetric", shape=(5, 2))
    assert r.passed
    # invariant pooling in torch
    assert gdlcheck.verify_callable(lambda X: X.amax(dim=0), "symmetric", shape=(5, 2), expect="invariant").passed


def test_float32_runs_in_float32_and_compares_in_float64():
    attn = SelfAttention()
    r32 = gdlcheck.verify_callable(attn, "symmetric", shape=(6, 4), dtype="float32")
    assert r32.passed  # default float32 tolerance, 1e-5
    worst = max(c.relative_error for c in r32.checks if c.method == "numeric")
    assert 1e-12 < worst < 1e-5
    # at a tolerance below float32's rounding the trials fail; a module the tracer proves still holds
    # (the trials measured float32 rounding, and a note says so), one it cannot prove fails
    strict = gdlcheck.verify_callable(attn, "symmetric", shape=(6, 4), dtype="float32", tol=1e-12)
    assert any(c.method == "numeric" and c.passed is False for c in strict.checks)
    proved = any(c.method == "exact" and c.detail == "proved" for c in strict.checks)
    assert strict.passed == proved
    assert any(n.what == "trials_rounding" for n in strict.notes) == proved


def test_a_module_that_raises_is_the_users_error():
    class Broken(torch.nn.Module):
        def forward(self, X):
            return X @ torch.ones(7, 7, dtype=X.dtype)

    with pytest.raises(CallableError, match="raised RuntimeError"):
        gdlcheck.verify_callable(Broken(), "cyclic", shape=(4, 3))
    with pytest.raises(CallableError, match="tuple"):
        gdlcheck.verify_callable(lambda X: (X, X), "cyclic", shape=(4, 3))


def test_assert_equivariant_on_torch_modules():
    assert_equivariant(SelfAttention(), "symmetric", (5, 4))
    with pytest.raises(AssertionError, match="not equivariant"):
        assert_equivariant(SelfAttention(causal=True), "cyclic", (5, 4))


def test_cli_verifies_a_torch_module_from_the_current_folder(run, monkeypatch):
    """The float64 run in a fresh process (imports as a user's are), float32 in this one."""
    args = [
        "verify",
        "--callable",
        "mylayers:TorchDeepSets",
        "--input-shape",
        "5x3",
        "--group",
        "symmetric",
        "--format",
        "json",
    ]
    out = subprocess.run(
        [sys.executable, "-m", "gdlcheck", *args],
        cwd=SAMPLES,
        capture_output=True,
        text=True,
        env=newcomer_env(NO_COLOR="1"),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    monkeypatch.chdir(SAMPLES)
    for stdout in (out.stdout, run(args + ["--dtype", "float32"]).stdout):
        obj = json.loads(stdout)
        # proved by its trace: Linear maps of the rows, a sum over the points, broadcast back
        assert obj["kind"] == "torch.nn.Module" and obj["verdict"] == "holds"
        assert obj["proof"][0]["rule"] == "the call as it ran, followed operation by operation at torch's dispatcher"


def test_a_lambda_around_a_float32_module_says_how_to_fix_the_dtype():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2)
    batched = lambda X: lin(X[None])[0]  # noqa: E731 -- a module that wants a batch axis, wrapped
    with pytest.raises(CallableError, match="must have the same dtype.*dtype="):
        gdlcheck.verify_callable(batched, "symmetric", shape=(4, 3))
    assert gdlcheck.verify_callable(batched, "symmetric", shape=(4, 3), dtype="float32").passed


def test_float32_rounding_of_a_proved_module_is_not_a_counterexample():
    """x - 3.7 mean_points(x): proved by its trace; in float32 the mean's order of summation changes under a
    permutation, so the trials measure rounding of about 1e-7."""

    class Centred(torch.nn.Module):
        def forward(self, x):
            return x - x.mean(0, keepdim=True) * 3.7

    strict = gdlcheck.verify_callable(Centred(), "symmetric", shape=(64, 8), dtype="float32", tol=1e-12)
    assert all(c.passed for c in strict.checks if c.method == "exact")
    assert any(c.method == "numeric" and c.passed is False for c in strict.checks)  # float32 rounding
    assert strict.verdict == "holds" and [n.what for n in strict.notes if n.what == "trials_rounding"]
    # in float64 the same rounding is below 1e-9: no note at all
    assert gdlcheck.verify_callable(Centred(), "symmetric", shape=(64, 8), tol=1e-12).verdict == "holds"
