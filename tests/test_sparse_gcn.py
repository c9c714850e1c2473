"""A GCN on a scipy.sparse adjacency: the same results as dense, and never densified."""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

from gdlcheck import groups  # noqa: E402
from gdlcheck.layers import GCN, normalize_adjacency  # noqa: E402
from gdlcheck.verification import Options, verify_layer  # noqa: E402


def ring(n, chords=()):
    A = np.zeros((n, n))
    i = np.arange(n)
    A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1
    for a, b in chords:
        A[a, b] = A[b, a] = 1
    return A


@pytest.mark.parametrize("normalization", ["symmetric", "random_walk", "none"])
@pytest.mark.parametrize("self_loops", [True, False])
def test_sparse_normalisation_equals_dense(normalization, self_loops):
    A = ring(7, [(0, 3)])
    A[5, 6] = A[6, 5] = 0  # a node of degree 1 and, without self loops, one with a zero row below
    A[6, 0] = A[0, 6] = 0
    G = normalize_adjacency(sp.csr_matrix(A), normalization, self_loops)
    assert sp.issparse(G)
    assert np.allclose(G.toarray(), normalize_adjacency(A, normalization, self_loops))


def test_act_on_both_keeps_sparse_and_follows_the_convention():
    rng = np.random.default_rng(0)
    A = (rng.random((6, 6)) < 0.4) * rng.standard_normal((6, 6))
    p = [2, 0, 1, 5, 3, 4]
    for fmt in ("csr", "csc", "coo"):
        B = groups.conjugate(p, sp.csr_matrix(A).asformat(fmt))
        assert sp.issparse(B) and B.format == fmt
        assert np.array_equal(B.toarray(), groups.conjugate(p, A))
    B = groups.conjugate(p, sp.csr_array(A))
    assert isinstance(B, sp.csr_array)


@pytest.mark.parametrize(
    "graph_mode, group, verdict",
    [
        ("input", groups.symmetric(8), "holds"),  # Theorem 3
        ("fixed", groups.symmetric(8), "fails"),
        ("fixed", groups.cyclic(8), "holds"),  # the ring's rotations are automorphisms
    ],
)
def test_sparse_gcn_verifies_as_the_dense_one(graph_mode, group, verdict):
    A = ring(8)
    W = np.random.default_rng(1).standard_normal((3, 2))
    results = []
    for adjacency in (A, sp.csr_matrix(A)):
        layer = GCN(adjacency, W, "tanh", graph_mode=graph_mode)
        results.append(verify_layer(layer, group, channels=3))
    dense, sparse = results
    assert sparse.verdict == dense.verdict == verdict
    for a, b in zip(dense.checks, sparse.checks):
        assert a.passed == b.passed and a.method == b.method
        if a.method == "numeric":
            assert np.isclose(a.max_abs_error, b.max_abs_error, rtol=1e-9, atol=1e-12)
    assert dense.diagnosis == sparse.diagnosis
    X = np.random.default_rng(2).standard_normal((8, 3))
    assert np.allclose(GCN(A, W).forward(X), GCN(sp.csr_matrix(A), W).forward(X))


def test_small_sparse_gcn_takes_the_exact_check():
    A = ring(4)
    result = verify_layer(GCN(sp.csr_matrix(A), np.array([[0.5]]), "relu"), groups.symmetric(4))
    assert result.verdict == verify_layer(GCN(A, np.array([[0.5]]), "relu"), groups.symmetric(4)).verdict


@pytest.mark.slow
def test_ten_thousand_node_sparse_gcn_is_never_densified(monkeypatch):
    n = 10_000
    i = np.arange(n)
    A = sp.coo_matrix(
        (np.ones(2 * n), (np.concatenate([i, (i + 1) % n]), np.concatenate([(i + 1) % n, i]))), shape=(n, n)
    ).tocsr()
    layer = GCN(A, np.random.default_rng(0).standard_normal((4, 4)), "relu")
    seen = []
    real = normalize_adjacency

    def spy(adjacency, *args, **kwargs):
        G = real(adjacency, *args, **kwargs)
        seen.append((adjacency, G))
        return G

    def no_dense(*args, **kwargs):
        raise AssertionError("a sparse adjacency was densified")

    import gdlcheck.layers.graph as graph

    monkeypatch.setattr(graph, "normalize_adjacency", spy)
    monkeypatch.setattr(sp.csr_matrix, "toarray", no_dense)
    monkeypatch.setattr(sp.csr_matrix, "todense", no_dense)
    result = verify_layer(layer, groups.cyclic(n), channels=4, options=Options(method="both", trials=2))
    assert result.verdict == "holds"
    assert seen and all(sp.issparse(a) and sp.issparse(G) for a, G in seen)
