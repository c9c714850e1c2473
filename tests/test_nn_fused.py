"""The fused products of the symmetric group's layer (``EquivariantLinear`` at order 1 -> 1):
``addmv`` and ``addmm`` add the shift ``(sum_j x_j) w1^T + b`` as a row inside the product, and
``baddbmm`` does so per set of a batch.  Each is proved where the added row is invariant, and
none is proved where the added term is read from one point (``x[0]``: it moves when the points
move), is the points sorted (a term per point, in an order that forgets theirs), or is a constant
laid along the points that the group does not keep."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow  # torch

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.nn import EquivariantLinear  # noqa: E402

# (n, c): small, and past auto's trial threshold (n x c > 4096), where only the proof can decide
SIZES = [(6, 2), (2049, 3)]


def _weights(c: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(c, c, generator=g, dtype=torch.float64) for _ in range(2)], torch.randn(c, dtype=torch.float64)


class Fused(torch.nn.Module):
    """``y = x A + s`` with the row ``s`` read from the points as ``row`` says, in one of the products."""

    def __init__(self, op: str, row: str, c: int):
        super().__init__()
        (self.A, self.B), self.b = _weights(c)
        self.op, self.row = op, row

    def _row(self, x):
        if self.row == "sum":
            return x.sum(-2, keepdim=True) @ self.B + self.b  # invariant: the layer's shift
        if self.row == "one point":
            return x[..., :1, :] @ self.B + self.b  # moves with point 0
        if self.row == "sorted":
            return x.sort(dim=-2).values  # a term per point, in an order the points forget
        positions = torch.arange(x.shape[-2], dtype=x.dtype)[:, None]
        return positions * self.b  # a constant on the points, not kept

    def forward(self, x):
        s = self._row(x)
        if self.op == "addmv":
            return torch.addmv(s[..., 0], x, self.A[:, 0]).unsqueeze(-1)
        if self.op == "addmm":
            return torch.addmm(s, x, self.A)
        return torch.baddbmm(s, x, self.A.expand(len(x), -1, -1))


def _verify(module, size, batch: bool, method: str):
    shape = ((2,) if batch else ()) + size
    options = {"batch_axes": (0,), "points_axis": 1} if batch else {}
    return gdlcheck.verify_callable(module, "symmetric", shape=shape, method=method, **options)


OPS = [("addmv", False), ("addmm", False), ("baddbmm", True)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(("op", "batch"), OPS, ids=[o for o, _ in OPS])
def test_a_row_from_the_sum_added_in_the_product_is_proved(op, batch, size):
    result = _verify(Fused(op, "sum", size[1]), size, batch, "exact")
    assert result.verdict == "holds"
    assert all(c.passed for c in result.checks)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("row", ["one point", "sorted", "positions"])
@pytest.mark.parametrize(("op", "batch"), OPS, ids=[o for o, _ in OPS])
def test_a_row_that_is_not_invariant_is_not_proved(op, batch, row, method, size):
    result = _verify(Fused(op, row, size[1]), size, batch, method)
    assert result.verdict != "holds"
    if method == "auto":
        assert result.verdict == "fails"


@pytest.mark.parametrize(("c_in", "c_out"), [(1, 1), (3, 1), (1, 3), (2, 3)])
@pytest.mark.parametrize("batch", [(), (2,), (2, 3)], ids=["no batch", "batch", "two batch axes"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no bias"])
def test_every_branch_of_the_symmetric_layer_is_proved_and_computes_the_form(c_in, c_out, batch, bias):
    n = 5
    g = gdlcheck.group("symmetric", n=n)
    torch.manual_seed(0)
    layer = EquivariantLinear(g, c_in, c_out, bias=bias).double()
    x = torch.randn(batch + (n, c_in), dtype=torch.float64)
    alpha_plus_beta, beta = layer.weight.detach()
    expected = x @ (alpha_plus_beta - beta).T + x.sum(-2, keepdim=True) @ beta.T
    if bias:
        expected = expected + layer.bias.detach()[0]
    with torch.no_grad():
        torch.testing.assert_close(layer(x), expected, rtol=1e-12, atol=1e-12)
    axes = {"batch_axes": tuple(range(len(batch))), "points_axis": len(batch)} if batch else {}
    result = gdlcheck.verify_callable(layer, g, shape=batch + (n, c_in), **axes)
    assert result.verdict == "holds" and result.proof is not None
    assert all(c.passed for c in result.checks if c.method == "exact")


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 7),
    c_in=st.integers(1, 3),
    c_out=st.integers(1, 3),
    bias=st.booleans(),
    batch=st.lists(st.integers(0, 3), max_size=2).map(tuple),
    transposed=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_the_symmetric_layer_is_alpha_x_plus_beta_sum_for_every_shape_and_layout(
    n, c_in, c_out, bias, batch, transposed, seed
):
    # y = x (w0 - w1)^T + (sum_j x_j) w1^T + b, whatever branch runs, on an empty batch and on a
    # non-contiguous input (the points and channels laid out transposed in memory) too
    g = gdlcheck.group("symmetric", n=n)
    torch.manual_seed(seed)
    layer = EquivariantLinear(g, c_in, c_out, bias=bias).double()
    if transposed:
        x = torch.randn(batch + (c_in, n), dtype=torch.float64).transpose(-1, -2)
    else:
        x = torch.randn(batch + (n, c_in), dtype=torch.float64)
    w0, w1 = layer.weight.detach()
    expected = x @ (w0 - w1).T + x.sum(-2, keepdim=True) @ w1.T
    if bias:
        expected = expected + layer.bias.detach()[0]
    with torch.no_grad():
        y = layer(x)
    assert y.shape == batch + (n, c_out)
    torch.testing.assert_close(y, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("c_in", "c_out"), [(1, 1), (3, 1), (1, 3), (2, 3)])
@pytest.mark.parametrize("batch", [(), (2,)], ids=["no batch", "batch"])
def test_every_branch_of_the_symmetric_layer_has_the_gradients_of_its_formula(c_in, c_out, batch):
    # torch's gradcheck: the products' backward (addmv, addmm, baddbmm of an expanded weight)
    # against finite differences, for the input, the weight and the bias
    g = gdlcheck.group("symmetric", n=4)
    torch.manual_seed(1)
    layer = EquivariantLinear(g, c_in, c_out).double()
    x = torch.randn(batch + (4, c_in), dtype=torch.float64, requires_grad=True)
    weight = layer.weight.detach().clone().requires_grad_(True)
    bias = layer.bias.detach().clone().requires_grad_(True)

    def run(x, weight, bias):
        return torch.func.functional_call(layer, {"weight": weight, "bias": bias}, (x,))

    assert torch.autograd.gradcheck(run, (x, weight, bias))
