"""Verification of linear layers: exact comparison of weights, numeric probes, verdicts."""

import numpy as np
import pytest

from gdlcheck import groups
from gdlcheck.inputs.arrays import to_array
from gdlcheck.inputs.expr import parse_expr
from gdlcheck.layers import Linear
from gdlcheck.verification import Options, verify_layer
from gdlcheck.verification.measure import weight_residuals
from gdlcheck.verification.verdict import judge


def circulant(theta):
    n = len(theta)
    return np.array([[theta[(i - j) % n] for j in range(n)] for i in range(n)], dtype=float)


def test_circulant_commutes_with_the_seeds_shift_matrix():
    W = circulant([1.0, 2.0, 3.0, 4.0, 5.0])
    S = groups.perm_matrix(groups.cyclic(5).gens[0])
    np.testing.assert_array_equal(W @ S, S @ W)
    r = verify_layer(Linear(W), groups.cyclic(5))
    assert r.passed and r.verdict == "holds"


def test_transposed_circulant_is_also_circulant_but_a_skewed_one_fails():
    W = circulant([1.0, 2.0, 3.0, 4.0])
    assert verify_layer(Linear(W.T), groups.cyclic(4)).passed
    W[0, 1] += 1
    r = verify_layer(Linear(W), groups.cyclic(4))
    assert not r.passed and r.verdict == "fails"
    exact = [c for c in r.checks if c.method == "exact"][0]
    assert exact.generator == "(0 1 2 3)"
    # the first differing pair in row-major order, with both values
    i, j = exact.witness.entry
    a, b = exact.witness.image_entry
    assert (a, b) == ((i + 1) % 4, (j + 1) % 4)
    assert W[a, b] != W[i, j]


def test_exactness_versus_tolerance():
    W = circulant([1.0, 2.0, 3.0])
    W[0, 0] += 1e-13
    r = verify_layer(Linear(W), groups.cyclic(3))
    assert r.passed and r.verdict == "holds_within_tolerance"
    r = verify_layer(Linear(W), groups.cyclic(3), options=Options(method="exact"))
    assert not r.passed and r.verdict == "fails"
    r = verify_layer(Linear(W), groups.cyclic(3), options=Options(tol=1e-15))
    assert not r.passed


@pytest.mark.parametrize("scale", [1e-20, 1.0, 1e20])
def test_tolerance_is_relative_to_the_data(scale):
    W = circulant([1.0, 2.0, 3.0, 4.0]) * scale
    assert verify_layer(Linear(W), groups.cyclic(4)).verdict == "holds"
    W[1, 2] *= 1.5
    assert verify_layer(Linear(W), groups.cyclic(4)).verdict == "fails"


def test_all_zero_matrix_is_equivariant_under_anything():
    r = verify_layer(Linear(np.zeros((4, 4))), groups.symmetric(4))
    assert r.passed and r.verdict == "holds"


def test_symbolic_failure_names_the_constraint():
    W = to_array([["a", "c", "b"], ["b", "a", "c"], ["c", "c", "a"]])
    r = verify_layer(Linear(W), groups.cyclic(3))
    assert not r.passed
    assert r.constraints == ["b = c"]
    exact = [c for c in r.checks if c.method == "exact"][0]
    assert exact.passed is False
    assert exact.witness.entry == (1, 0) and str(exact.witness.image_value) == "c"


def test_symbolic_entries_equal_after_simplification():
    W = to_array([["a", "b*(c+1)"], ["b*c + b", "a"]])
    r = verify_layer(Linear(W), groups.symmetric(2))
    assert r.passed and r.verdict == "holds"


def test_symbolic_identity_needing_simplify():
    W = to_array([["sin(a)**2 + cos(a)**2", "b"], ["b", "1"]])
    r = verify_layer(Linear(W), groups.symmetric(2))
    assert r.passed


def test_bias_must_be_constant_on_orbits():
    W = circulant([1.0, 2.0, 3.0])
    assert verify_layer(Linear(W, 2.5), groups.cyclic(3)).passed
    assert verify_layer(Linear(W, np.array([1.0, 1.0, 1.0])), groups.cyclic(3)).passed
    r = verify_layer(Linear(W, np.array([1.0, 2.0, 1.0])), groups.cyclic(3))
    assert not r.passed
    assert any(c.witness is not None and len(c.witness.entry) == 1 for c in r.checks if c.method == "exact")


def test_invariant_linear_functional_needs_constant_columns_on_orbits():
    W = np.ones((3, 3))
    r = verify_layer(Linear(W), groups.symmetric(3), expect="invariant")
    assert r.passed
    W[:, 1] = 2.0
    residuals, _ = weight_residuals(W, None, groups.symmetric(3), "invariant", 1e-9)
    assert not all(judge(r, 1e-9).passed for r in residuals)


def test_numeric_only_method_reports_trials_and_seed():
    W = np.random.default_rng(3).standard_normal((5, 5))
    r = verify_layer(Linear(W), groups.cyclic(5), options=Options(method="numeric", trials=3, seed=11))
    assert not r.passed
    check, element = r.checks  # the generator, and a uniformly random element of the group
    assert element.method == "numeric" and element.generator != check.generator
    assert check.method == "numeric" and check.trials == 3
    assert check.witness.seed == 11 and 0 <= check.witness.trial < 3


def test_symbolic_weights_under_method_numeric_are_still_decided_exactly():
    # docs/design.md section 5: symbolic weights pass only when the exact check holds
    W = to_array([["a", "b"], ["b", "a"]])
    r = verify_layer(Linear(W), groups.symmetric(2), options=Options(method="numeric"))
    assert r.passed and r.verdict == "holds"
    assert [c.method for c in r.checks] == ["exact", "numeric"]
    W = to_array([["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a + 1/10**12"]])
    r = verify_layer(Linear(W), groups.cyclic(3), options=Options(method="numeric"))
    assert not r.passed and r.verdict == "fails"


def test_parse_expr_entries_are_exact_numbers_beside_symbols():
    W = to_array([["a", 0.1], ["1/10", "a"]])
    assert W[0, 1] == parse_expr("1/10")
    assert verify_layer(Linear(W), groups.symmetric(2)).verdict == "holds"


def test_the_trials_draws_are_kept_as_they_were_drawn():
    """The trial inputs and random elements kept for later tensors of one size (issue 33) are the
    seeded draws themselves, read-only, and a later call gets the same ones."""
    from gdlcheck.verification.measure import draws

    X = draws.trial_input(3, 5, 7, 2)
    assert np.array_equal(X, np.random.default_rng([3, 5]).standard_normal((7, 2))) and not X.flags.writeable
    assert draws.trial_input(3, 5, 7, 2) is X
    g = groups.symmetric(6)
    first = draws.random_elements(g, 2, 0, g.gen_arrays())
    again = draws.random_elements(g, 2, 0, g.gen_arrays())
    assert [a.tolist() for a in first] == [a.tolist() for a in again] and len(first) == 2
    assert all(sorted(a.tolist()) == list(range(6)) and not a.flags.writeable for a in first)
    other = draws.random_elements(groups.cyclic(6), 2, 0, groups.cyclic(6).gen_arrays())
    assert all(any(np.array_equal(a, np.roll(np.arange(6), k)) for k in range(6)) for a in other)
