"""Theorems 3 and 4 of the GDL text as property tests, and the mistakes that break them.

Theorem 3: Y = G(A) V(X) is permutation equivariant, Y(PX, P A P^T) = P Y(X, A), when
G(P A P^T) = P G(A) P^T -- the GCN's D~^-1/2 (A + I) D~^-1/2 does.
Theorem 4: Y = G(X) V(X) is equivariant when G(PX) = P G(X) P^T -- softmax attention does.
P is the seed's: P[sigma[j], j] = 1 (groups.act moves the entry at j to sigma[j]).
"""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gdlcheck.groups import act, conjugate, perm_matrix
from gdlcheck.layers import GCN, Attention, normalize_adjacency

TOL = 1e-12


@st.composite
def problems(draw, min_n=2, max_n=7):
    n = draw(st.integers(min_n, max_n))
    sigma = np.array(draw(st.permutations(range(n))))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    upper = np.triu((rng.random((n, n)) < 0.5).astype(float), 1)
    return n, sigma, rng, upper + upper.T


def rel_err(a, b):
    return float(np.max(np.abs(a - b)) / (np.max(np.abs(b)) + 1e-300))


def test_permutation_helpers_are_the_seeds_P():
    sigma = np.array([1, 2, 0])
    P = perm_matrix(tuple(sigma))
    X = np.arange(6.0).reshape(3, 2)
    A = np.arange(9.0).reshape(3, 3)
    np.testing.assert_array_equal(act(sigma, X), P @ X)
    np.testing.assert_array_equal(conjugate(sigma, A), P @ A @ P.T)


@given(problems(), st.sampled_from(["symmetric", "random_walk", "none"]), st.sampled_from(["relu", "tanh", "identity"]))
def test_theorem_3_gcn_law_holds(problem, normalization, activation):
    n, sigma, rng, A = problem
    d, d2 = 3, 2
    X = rng.standard_normal((n, d))
    layer = GCN(A, rng.standard_normal((d, d2)), activation, normalization)
    # G(P A P^T) = P G(A) P^T ...
    G = normalize_adjacency(A, normalization)
    assert rel_err(normalize_adjacency(conjugate(sigma, A), normalization), conjugate(sigma, G)) <= TOL
    # ... so Y(PX, P A P^T) = P Y(X, A)
    Y = layer.forward(X, A)
    assert rel_err(layer.forward(act(sigma, X), conjugate(sigma, A)), act(sigma, Y)) <= TOL


@given(problems(min_n=4))
def test_rows_only_permutation_of_A_breaks_the_gcn_law(problem):
    n, sigma, rng, A = problem
    assume(not np.array_equal(act(sigma, A), conjugate(sigma, A)))  # P A differs from P A P^T
    layer = GCN(A, np.eye(2), "identity", "symmetric")
    X = rng.standard_normal((n, 2))
    wrong = layer.forward(act(sigma, X), act(sigma, A))
    assert rel_err(wrong, act(sigma, layer.forward(X, A))) > 1e-6


def attention(rng, d=3, dk=2, **kw):
    return Attention(rng.standard_normal((d, dk)), rng.standard_normal((d, dk)), rng.standard_normal((d, dk)), **kw)


@given(problems(), st.sampled_from(["softmax", "sigmoid", "relu", "tanh"]), st.integers(1, 2))
def test_theorem_4_attention_law_holds(problem, weights, heads):
    n, sigma, rng, _ = problem
    layer = attention(rng, dk=2 * heads, weights=weights, heads=heads)
    X = rng.standard_normal((n, 3))
    # G(PX) = P G(X) P^T ...
    for G, Gp in zip(layer.aggregations(X), layer.aggregations(act(sigma, X))):
        assert rel_err(Gp, conjugate(sigma, G)) <= TOL
    # ... so Y(PX) = P Y(X)
    assert rel_err(layer.forward(act(sigma, X)), act(sigma, layer.forward(X))) <= TOL


@given(problems(min_n=3))
def test_causal_mask_breaks_attention(problem):
    # Theorem 4's premise G(PX) = P G(X) P^T fails for every sigma but the identity: sigma
    # inverts some pair j < i, so P G(X) P^T carries the positive weight G[i, j] above the
    # diagonal, where the mask makes G(PX) zero.  (The outputs may still agree on an input
    # whose attention is concentrated on the rows sigma leaves alone.)
    n, sigma, rng, _ = problem
    assume(np.any(sigma != np.arange(n)))
    layer = attention(rng, mask="causal")
    X = rng.standard_normal((n, 3))
    (G,), (Gp,) = layer.aggregations(X), layer.aggregations(act(sigma, X))
    above = np.triu(np.ones((n, n), dtype=bool), 1)
    assert np.all(Gp[above] == 0) and np.any(conjugate(sigma, G)[above] > 0)


@settings(max_examples=30)
@given(problems(min_n=3))
def test_relative_bias_keeps_shifts(problem):
    n, _, rng, _ = problem
    layer = attention(rng, bias_b=rng.standard_normal(n))
    shift = (np.arange(n) + 1) % n
    X = rng.standard_normal((n, 3))
    assert rel_err(layer.forward(act(shift, X)), act(shift, layer.forward(X))) <= TOL
