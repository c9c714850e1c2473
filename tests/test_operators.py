"""Stored operators on the points (issue 29, item 1): a constant ``M`` in ``M @ x`` is checked by
the operator law ``P M P^T = M`` and the product moves with the points; the law is what a failure
prints.  Theorem 1's circulant under shifts, Theorem 3's normalised adjacency under the graph's
automorphisms, dense and sparse, in ``@``, ``einsum``, ``torch.sparse.mm`` and a token-mixing
``Linear``."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code.prover.rules import operators  # noqa: E402

N = 8
F64 = torch.float64


def circulant(theta):
    n = len(theta)
    return torch.stack([torch.stack([theta[(i - j) % n] for j in range(n)]) for i in range(n)])


def ring_operator(n=N):
    """Theorem 3's ``D~^-1/2 (A + I) D~^-1/2`` of the n-ring."""
    A = torch.zeros(n, n, dtype=F64)
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    A = A + torch.eye(n, dtype=F64)
    d = A.sum(1).rsqrt()
    return d[:, None] * A * d[None]


class Stored(torch.nn.Module):
    def __init__(self, M, how="matmul"):
        super().__init__()
        self.register_buffer("M", M)
        self.how = how

    def forward(self, x):
        if self.how == "einsum":
            return torch.einsum("ij,jd->id", self.M, x)
        if self.how == "sparse":
            return torch.sparse.mm(self.M, x)
        if self.how == "bmm":
            return torch.bmm(self.M[None], x[None])[0]
        return self.M @ x


class Mixer(torch.nn.Module):
    """An MLP-Mixer block's token mixing: a ``Linear`` over the points (its weight circulant)."""

    def __init__(self, weight):
        super().__init__()
        self.tokens = torch.nn.Linear(N, N)
        with torch.no_grad():
            self.tokens.weight.copy_(weight)
            self.tokens.bias.fill_(0.25)

    def forward(self, x):
        return x + self.tokens(x.T).T


def verdict(module, group, method="exact", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gdlcheck.verify_callable(module, group, method=method, shape=(N, 3), **kw).to_json()


def notes(obj):
    return " ".join(obj.get("notes", []))


THETA = torch.linspace(-1, 1, N, dtype=F64) ** 3 + 0.1


@pytest.mark.parametrize("how", ["matmul", "einsum", "bmm"])
def test_a_circulant_is_proved_under_shifts(how):
    assert verdict(Stored(circulant(THETA), how), "cyclic")["verdict"] == "holds"


def test_a_token_mixing_linear_that_is_circulant_is_proved():
    assert verdict(Mixer(circulant(THETA)), "cyclic")["verdict"] == "holds"


@pytest.mark.parametrize("how", ["matmul", "sparse"])
def test_a_stored_normalised_adjacency_is_proved_under_the_rings_automorphisms(how):
    M = ring_operator()
    obj = verdict(Stored(M.to_sparse() if how == "sparse" else M, how), "dihedral")
    assert obj["verdict"] == "holds"


def test_a_failing_operator_prints_the_operator_law():
    """A circulant is not kept by the reflections: the note says P M P^T = M and the entries."""
    obj = verdict(Stored(circulant(THETA)), "dihedral")
    assert obj["verdict"] == "inconclusive"
    assert "P M P^T = M" in notes(obj) and "P E = E" not in notes(obj)


def test_the_non_equivariant_twin_fails_by_trials():
    twin = circulant(THETA).clone()
    twin[0, 3] += 0.5
    obj = verdict(Stored(twin), "cyclic", method="auto")
    assert obj["verdict"] == "fails"
    assert obj["culprit"]["generator"] == "(0 1 2 3 4 5 6 7)"


def test_a_constant_fixed_along_its_columns_keeps_its_output_still():
    """``11^T x`` is the sum broadcast: the row law holds and the output does not move, so it is
    proved invariant too."""
    ones = torch.ones(N, N, dtype=F64)
    assert verdict(Stored(ones), "symmetric", expect="invariant")["verdict"] == "holds"


def test_the_points_permutation_is_found_inside_a_flattened_axis():
    g = np.array([1, 2, 0])
    inner = operators.images(np.concatenate([g, g + 3]), 3)  # (channel, point), 2 channels
    outer = operators.images(np.repeat(g, 2) * 2 + np.tile([0, 1], 3), 6)  # (point, channel)
    assert any(np.array_equal(q, g) for q in inner)
    assert any(np.array_equal(q, np.concatenate([g, g + 3])) for q in outer)


def _group_average(B, g):
    """The average of ``P^k B P^-k`` over the cyclic group ``g`` generates: ``P M P^T = M``."""
    n = len(g)
    M, p = np.zeros_like(B), np.arange(n)
    for _ in range(n):
        M += B[np.ix_(p, p)]
        p = g[p]
    return M


@settings(max_examples=15, deadline=None)
@given(st.integers(3, 7), st.randoms(use_true_random=False), st.booleans())
def test_law_an_operator_holds_exactly_when_the_group_keeps_it(n, rnd, broken):
    """Proved exactly when ``P M P^T = M``; never proved when the trials find it fails."""
    perm = list(range(n))
    rnd.shuffle(perm)
    g = np.array(perm)
    rng = np.random.default_rng(rnd.randint(0, 10**6))
    M = _group_average(rng.standard_normal((n, n)), g)
    if broken:
        M[rng.integers(n), rng.integers(n)] += 1.0
    group = gdlcheck.group(generators=["[" + ", ".join(map(str, g)) + "]"], n=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(Stored(torch.tensor(M)), group, shape=(n, 2), method="both").to_json()
    exact = np.array_equal(M[np.ix_(g, g)], M)
    assert (obj["verdict"] == "holds") == exact
