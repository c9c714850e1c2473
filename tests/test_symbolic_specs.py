"""Specs whose numbers are expressions with free symbols, where the exact passes meet what they
cannot evaluate (issue 23, point 8: the ``isnum`` case; fuzz/surfaces.py's ``symbolic_case``).

Each spec runs as a process under a memory cap and a time limit, and gets a verdict or one
error line with exit 2, never exit 70.
"""

import json

import pytest

from tests.test_budgets import capped, one_line

pytestmark = pytest.mark.slow

OVERFLOW = """symmetry: {group: cyclic, n: 3}
expect: invariant
layer:
  kind: residual
  layer:
    - {kind: gcn, adjacency: [[0, 1, 1], [1, 0, 1], [1, 1, 0]], weight: [['sqrt(a)']]}
    - {kind: deepsets, alpha: 1e308, beta: 1e308}
"""


def test_a_weight_that_overflows_beside_symbols_is_one_line(tmp_path):
    # found by the first run of the symbolic specs (an early symbolic_case): alpha + beta overflows to inf on the
    # deepsets diagonal, and the symbolic pass turned the inf into a sympy number: TypeError
    # "invalid input: inf", exit 70.  The numeric check already said "not finite"
    (tmp_path / "overflow.yaml").write_text(OVERFLOW)
    one_line(
        capped(["verify", "overflow.yaml", "--method", "both"], tmp_path, timeout=300),
        2,
        "a weight of the layer is not finite in float64",
    )


def test_the_same_layer_without_the_overflow_gets_a_verdict(tmp_path):
    (tmp_path / "fine.yaml").write_text(OVERFLOW.replace("1e308", "2"))
    result = capped(["verify", "fine.yaml", "--method", "exact"], tmp_path, timeout=300)
    assert result.returncode in (0, 1, 3), (result.returncode, result.stdout[-300:], result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "expect, verdict, constraint",
    [
        ("invariant", 1, "no values of the symbols make it hold"),  # W's numbers differ along a row
        ("equivariant", 1, "a = b"),  # the bias must be constant
    ],
)
def test_numeric_weights_beside_a_symbolic_bias_are_solved(tmp_path, expect, verdict, constraint):
    # found by fuzz/redteam.py --surfaces symbolic (seed 3, case 199): with expect: invariant the
    # bias takes no part, so every equation was a difference of two float64 weights, and solving
    # for the symbols asked a numpy float for its free_symbols: AttributeError, exit 70
    (tmp_path / "bias.yaml").write_text(
        f"symmetry: {{group: cyclic, n: 2}}\nexpect: {expect}\n"
        "layer: {kind: linear, weight: [[1, 0.5], [0.5, 1]], bias: [a, b]}\n"
    )
    result = capped(["verify", "bias.yaml", "--method", "both", "--format", "json"], tmp_path, timeout=300)
    assert result.returncode == verdict, (result.stdout[-300:], result.stderr)
    assert json.loads(result.stdout)["constraints"] == [constraint]


def test_invariant_weights_beside_a_symbolic_bias_hold(tmp_path):
    (tmp_path / "bias.yaml").write_text(
        "symmetry: {group: cyclic, n: 2}\nexpect: invariant\n"
        "layer: {kind: linear, weight: [[1, 1], [1, 1]], bias: [a, b]}\n"
    )
    result = capped(["verify", "bias.yaml", "--method", "exact", "--format", "json"], tmp_path, timeout=300)
    assert result.returncode == 0 and json.loads(result.stdout)["verdict"] == "holds", result.stderr


@pytest.mark.parametrize("method", ["numeric", "both"])
def test_deepsets_symbols_that_cancel_on_one_point_get_values(tmp_path, method):
    # found hunting the isnum case: at n = 1 the matrix alpha*I + beta*11^T is alpha + beta, so
    # with alpha = a + b and beta = -b the symbol b is not in it; the trials drew no value for b
    # and rebuilding the layer from alpha and beta was KeyError: b, exit 70
    (tmp_path / "one.yaml").write_text(
        "symmetry: {group: cyclic, n: 1}\nlayer: {kind: deepsets, alpha: 'a+b', beta: '-b'}\n"
    )
    result = capped(["verify", "one.yaml", "--method", method], tmp_path, timeout=300)
    assert result.returncode == 0, (result.stdout[-300:], result.stderr)
