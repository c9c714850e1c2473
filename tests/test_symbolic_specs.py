"""Specs whose numbers are expressions with free symbols, where the exact passes meet what they
cannot evaluate (issue 23, point 8: the ``isnum`` case; fuzz/surfaces.py's ``symbolic_case``).

Each spec runs as a process under a memory cap and a time limit, and gets a verdict or one
error line with exit 2, never exit 70.
"""

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


@pytest.mark.parametrize("method", ["exact", "both"])
def test_a_weight_that_overflows_beside_symbols_is_one_line(tmp_path, method):
    # found by the symbolic specs' run (seed 2, case 323): alpha + beta overflows to inf on the
    # deepsets diagonal, and the symbolic pass turned the inf into a sympy number: TypeError
    # "invalid input: inf", exit 70.  The numeric check already said "not finite"
    (tmp_path / "overflow.yaml").write_text(OVERFLOW)
    one_line(capped(["verify", "overflow.yaml", "--method", method], tmp_path, timeout=300), 2,
             "a weight of the layer is not finite in float64")


def test_the_same_layer_without_the_overflow_gets_a_verdict(tmp_path):
    (tmp_path / "fine.yaml").write_text(OVERFLOW.replace("1e308", "2"))
    result = capped(["verify", "fine.yaml", "--method", "exact"], tmp_path, timeout=300)
    assert result.returncode in (0, 1, 3), (result.returncode, result.stdout[-300:], result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
