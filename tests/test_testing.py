"""gdlcheck.testing.assert_equivariant: for users' own pytest suites."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gdlcheck
from gdlcheck.errors import CallableError
from gdlcheck.testing import assert_equivariant
from tests.conftest import newcomer_env


def test_passes_quietly_and_returns_the_result():
    r = assert_equivariant(lambda X: X - X.mean(axis=0), "symmetric", (6, 2))
    assert r.passed and r.verdict == "holds_numerically"
    assert_equivariant(lambda X: X.sum(axis=0), gdlcheck.group("symmetric", n=4), (4, 3), expect="invariant")
    # the package exports it too
    assert gdlcheck.assert_equivariant is assert_equivariant


def test_failure_names_generator_error_and_seed():
    with pytest.raises(AssertionError) as info:
        assert_equivariant(lambda X: np.cumsum(X, axis=0), "cyclic", (6, 2), seed=7)
    message = str(info.value)
    lines = message.splitlines()
    assert lines[0].startswith("lambda is not equivariant under cyclic (n=6)")
    assert "generator (0 1 2 3 4 5): relative error" in lines[1]
    assert "seed 7" in lines[1] and "default_rng([7," in lines[1]


def test_only_the_failing_generators_are_listed():
    # the shift commutes with np.roll, the transposition does not
    with pytest.raises(AssertionError) as info:
        assert_equivariant(lambda X: np.roll(X, 1, axis=0), "symmetric", (5, 1))
    body = str(info.value).splitlines()[1:]
    # the transposition, and the trials' uniformly random element of the group; never the shift
    assert "generator (0 1):" in body[0] and len(body) == 2
    assert not any(line.split(":")[0].strip() == "generator (0 1 2 3 4)" for line in body)


@pytest.mark.slow  # runs torch
def test_a_broken_callable_is_an_error_not_a_failed_assertion():
    def bad(X):
        raise KeyError("w")

    with pytest.raises(CallableError, match="raised KeyError"):
        assert_equivariant(bad, "cyclic", (4, 1))


@given(st.integers(3, 6), st.integers(0, 1000))
def test_a_row_permuting_layer_fails_exactly_when_it_is_not_the_identity(n, seed):
    # The centre of S_n is trivial for n >= 3: only the identity commutes with every permutation.
    perm = np.random.default_rng(seed).permutation(n)
    f = lambda X: X[perm]  # noqa: E731
    if np.array_equal(perm, np.arange(n)):
        assert_equivariant(f, "symmetric", (n, 2))
    else:
        with pytest.raises(AssertionError):
            assert_equivariant(f, "symmetric", (n, 2))


@pytest.mark.slow
def test_its_own_frame_is_hidden_from_pytest_tracebacks(tmp_path):
    (tmp_path / "test_user.py").write_text(
        textwrap.dedent("""
        import numpy as np
        from gdlcheck.testing import assert_equivariant

        def test_cumsum():
            assert_equivariant(lambda X: np.cumsum(X, axis=0), "cyclic", (6, 2))
    """)
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            str(tmp_path / "test_user.py"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=newcomer_env(PYTHONDONTWRITEBYTECODE="1"),
        timeout=120,
    )
    assert out.returncode == 1, out.stdout
    assert "generator (0 1 2 3 4 5): relative error" in out.stdout
    assert "test_user.py" in out.stdout
    assert "raise AssertionError" not in out.stdout and "testing.py" not in out.stdout


def test_a_proof_that_holds_is_cross_checked_by_one_trial_and_one_that_does_not_by_all():
    """auto after a torch module's proof that holds for every generator: one trial (a pass per
    generator and one random element); the proof's moved call is a trial of its own.  A module the
    proof does not hold for keeps --trials trials."""
    import torch

    class Cumsum(torch.nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 0)

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    r = assert_equivariant(mlp, "symmetric", (6, 3), trials=5)
    assert r.verdict == "holds" and r.proof.holds
    numeric = [c for c in r.checks if c.method == "numeric"]
    assert len(numeric) == 3 and all(c.trials == 1 for c in numeric)  # (0 .. 5), (0 1), a random element
    r = gdlcheck.verify_callable(Cumsum(), "cyclic", shape=(6, 3), trials=5)
    assert r.verdict == "fails"
    assert [c.trials for c in r.checks if c.method == "numeric"][:2] == [5, 5]
