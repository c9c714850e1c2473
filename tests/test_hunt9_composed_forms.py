"""A sequence's matrix is the product of its layers' matrices and a residual's is ``I + W``; in
float64 both round (issue 28, hunt 9).  The exact check compared the rounded entries: a sum pool
after ``[[1e17, 1e17, 0], [1, 0, 0], [-1e17, -1e17, 0]]`` computes ``y = x_0`` with the numbers as
given, yet its rounded column sums are all 0 and the layer was proved invariant (exact and auto);
``X + W X`` with ``W[0, 0] = 1e-17`` rounded to ``X``; a circular convolution followed by a mean
pool is invariant under every permutation, and its rounded column sums called it broken (exit 1).
the same for a fixed graph's ``w G(A)`` (``A + I``, a degree's root) and a DeepSets diagonal
``alpha + beta``, whose symbolic pass also read the rounded matrix.  A rounded form now decides nothing: the exact symbolic pass (exact rationals) or the trials do.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdlcheck

SYMMETRIC3 = {"group": "symmetric", "n": 3}

ROUNDED_AWAY = {
    "a sum pool after a cancelling matrix": {
        "symmetry": SYMMETRIC3,
        "expect": "invariant",
        "layer": [
            {"kind": "linear", "weight": [[1e17, 1e17, 0], [1, 0, 0], [-1e17, -1e17, 0]]},
            {"kind": "pool", "op": "sum"},
        ],
    },
    "two matrices whose product cancels": {
        "symmetry": SYMMETRIC3,
        "layer": [
            {"kind": "linear", "weight": [[1e17, 1e17, 1e17], [1, 0, 0], [-1e17, -1e17, -1e17]]},
            {"kind": "linear", "weight": [[1, 1, 1], [1, 1, 1], [1, 1, 1]]},
        ],
    },
    "a residual whose identity swallows the layer": {
        "symmetry": {"group": "symmetric", "n": 2},
        "layer": {"kind": "residual", "layer": {"kind": "linear", "weight": [[1e-17, 0], [0, 0]]}},
    },
    "a bias carried through the product and cancelled": {
        "symmetry": {"group": "cyclic", "n": 3},
        "layer": [
            {"kind": "linear", "weight": [[1, 1, 1], [1, 1, 1], [1, 1, 1]], "bias": [1, 0, 0]},
            {"kind": "linear", "weight": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "bias": 1e17},
            {"kind": "linear", "weight": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "bias": -1e17},
        ],
    },
    "a DeepSets diagonal alpha + beta that rounds, then a matrix": {
        "symmetry": {"group": "symmetric", "n": 2},
        "layer": [{"kind": "deepsets", "alpha": 1e-17, "beta": 1}, {"kind": "linear", "weight": [[2, 0], [1, 1]]}],
    },
}
for _norm in ("none", "random_walk", "symmetric"):
    ROUNDED_AWAY[f"a fixed graph whose A + I rounds ({_norm})"] = {
        "symmetry": {"group": "symmetric", "n": 2},
        "layer": {
            "kind": "gcn",
            "graph": "fixed",
            "activation": "identity",
            "normalization": _norm,
            "weight": [[1]],
            "adjacency": [[1e-17, 1], [1, 0]],
        },
    }


@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("name", sorted(ROUNDED_AWAY))
def test_what_rounding_hides_is_not_proved(name, method):
    assert gdlcheck.verify(ROUNDED_AWAY[name], method=method).verdict.value != "holds"


@pytest.mark.parametrize("bias", [0.5, "a + b"])
def test_a_convolution_then_a_mean_pool_is_invariant_under_every_permutation(bias):
    # every column of a circulant sums to the kernel's sum; rounded, the column sums differed
    spec = {
        "symmetry": {"group": "symmetric", "n": 6},
        "expect": "invariant",
        "layer": [{"kind": "conv", "kernel": [-0.95, -0.42, 1.45], "bias": bias}, {"kind": "pool", "op": "mean"}],
    }
    assert gdlcheck.verify(spec, method="exact").verdict.value == "holds"


ENTRIES = st.sampled_from([0, 1, -1, 2, 0.5, 0.1, 1e17, -1e17])
MATRIX = st.lists(st.lists(ENTRIES, min_size=3, max_size=3), min_size=3, max_size=3)


def _exact(matrix):
    return np.array([[Fraction(repr(float(x))) for x in row] for row in matrix], dtype=object)


@settings(max_examples=25, deadline=None)
@given(first=MATRIX, second=MATRIX, pooled=st.booleans())
def test_an_exact_verdict_on_a_product_is_the_exact_product_s(first, second, pooled):
    # the law: whatever the exact check decides agrees with the product in exact rationals
    layers = [{"kind": "linear", "weight": first}, {"kind": "linear", "weight": second}]
    W = _exact(second).dot(_exact(first))
    if pooled:
        layers.append({"kind": "pool", "op": "sum"})
        W = W.sum(axis=0, keepdims=True)
    spec = {"symmetry": SYMMETRIC3, "expect": "invariant" if pooled else "equivariant", "layer": layers}
    verdict = gdlcheck.verify(spec, method="exact").verdict.value
    holds = all((W[:, list(g)] == W).all() if pooled else (W[np.ix_(g, g)] == W).all() for g in ([1, 2, 0], [1, 0, 2]))
    if verdict in ("holds", "fails"):
        assert (verdict == "holds") == holds


def test_a_fixed_graph_that_is_not_an_automorphism_still_fails_exactly():
    # its normalised entries round, but by far less than the gap between them
    spec = {
        "symmetry": {"group": "symmetric", "n": 4},
        "layer": {
            "kind": "gcn",
            "graph": "fixed",
            "activation": "identity",
            "weight": [[1.5]],
            "adjacency": [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0]],
        },
    }
    assert gdlcheck.verify(spec, method="exact").verdict.value == "fails"


def test_a_rounded_product_still_fails_where_its_entries_differ_past_the_rounding():
    rng = np.random.default_rng(0)
    first, second = (np.round(rng.normal(size=(6, 6)), 2).tolist() for _ in range(2))
    spec = {
        "symmetry": {"group": "cyclic", "n": 6},
        "layer": [{"kind": "linear", "weight": w} for w in (first, second)],
    }
    assert gdlcheck.verify(spec, method="exact").verdict.value == "fails"
