"""What verify_callable must say of the last EquivariantLinear paths once the prover has the rules.

Not collected (its name does not start with ``test_``): run it by hand,
``pytest tests/pending_nn_proofs.py``.  Today every path is proved (tests/test_nn.py: the gathered
weight by the operator law P W P^T = W, issue 29; the convolution as circular padding and a
convolution, and order-2 inputs moving as pairs, issue 32) but the convolution path on p4 and p4m:
a rotation swaps the grid's axes, and the tracer's moves are kept per axis (issue 29, item 3).
"""

import pytest

import gdlcheck
from tests.test_nn import CASES, layer_of

torch = pytest.importorskip("torch")


ORDER_1 = [c for c in CASES if c[2] == 1 and c[6] == "convolution" and c[0].startswith("p4")]


@pytest.mark.parametrize("case", ORDER_1, ids=[c[0] for c in ORDER_1])
def test_every_path_from_an_order_1_input_is_proved(case):
    _, make, k, l, c_in, c_out, _ = case
    g = make()
    options = {"points_axis": (0, 1)} if g.shape is not None and len(g.shape) > 1 else {}
    shape = (tuple(g.shape) if options else (g.n,)) + (c_in,)
    if l == 2:
        options["outputs"] = "pairs:0,1"
    if l == 0:
        options["expect"] = "invariant"
    obj = gdlcheck.verify_callable(layer_of(g, k, l, c_in, c_out), g, shape=shape, **options).to_json()
    assert obj["verdict"] == "holds" and "proof" in obj
    assert all(c["passed"] for c in obj["checks"] if c["method"] == "exact")
