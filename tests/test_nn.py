"""gdlcheck.nn.EquivariantLinear: parameters exactly the derived form, equivariant, complete.

Every case is checked four ways, each independent of the path the layer computes by: the
parameter count against ``derive``; the probed dense matrix (the layer applied to each unit
input) against ``weight[pattern]``; equivariance in float64 under random group elements,
moved here by numpy; and completeness, the probed matrices of random draws spanning the
derived space (rank = ``free_parameters``).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gdlcheck
from gdlcheck.errors import GdlcheckError

pytestmark = pytest.mark.slow  # torch

torch = pytest.importorskip("torch")

from gdlcheck.nn import EquivariantLinear  # noqa: E402


def petersen() -> np.ndarray:
    A = np.zeros((10, 10))
    for i in range(5):
        for a, b in ((i, (i + 1) % 5), (i, i + 5), (i + 5, (i + 2) % 5 + 5)):
            A[a, b] = A[b, a] = 1
    return A


# (id, group, in_order, out_order, in_channels, out_channels, path)
CASES = [
    ("cyclic-channels", lambda: gdlcheck.group("cyclic", n=8), 1, 1, 2, 3, "convolution"),
    ("dihedral", lambda: gdlcheck.group("dihedral", n=7), 1, 1, 1, 2, "convolution"),
    ("torus", lambda: gdlcheck.group("translations", shape="3x4"), 1, 1, 2, 1, "convolution"),
    ("p4-5x5", lambda: gdlcheck.group("p4", shape="5x5"), 1, 1, 1, 1, "convolution"),
    ("p4m-4x4-channels", lambda: gdlcheck.group("p4m", shape="4x4"), 1, 1, 2, 2, "convolution"),
    ("symmetric-1-1", lambda: gdlcheck.group("symmetric", n=7), 1, 1, 3, 2, "deepsets"),
    ("symmetric-2-2-n6", lambda: gdlcheck.group("symmetric", n=6), 2, 2, 1, 1, "set-partition"),
    ("symmetric-2-2-channels", lambda: gdlcheck.group("symmetric", n=4), 2, 2, 2, 3, "set-partition"),
    ("symmetric-1-2", lambda: gdlcheck.group("symmetric", n=5), 1, 2, 2, 1, "set-partition"),
    ("symmetric-2-1", lambda: gdlcheck.group("symmetric", n=5), 2, 1, 1, 2, "set-partition"),
    ("symmetric-1-0", lambda: gdlcheck.group("symmetric", n=5), 1, 0, 2, 2, "set-partition"),
    ("symmetric-0-2", lambda: gdlcheck.group("symmetric", n=3), 0, 2, 2, 1, "set-partition"),
    ("symmetric-2-2-n2", lambda: gdlcheck.group("symmetric", n=2), 2, 2, 1, 1, "set-partition"),
    ("alternating", lambda: gdlcheck.group("alternating", n=5), 1, 1, 1, 2, "deepsets"),
    ("petersen", lambda: gdlcheck.group("automorphisms", graph=petersen()), 1, 1, 2, 2, "gathered"),
    ("petersen-2-2", lambda: gdlcheck.group("automorphisms", graph=petersen()), 2, 2, 1, 1, "gathered"),
    ("generators", lambda: gdlcheck.group(generators=["(0 1 2)(3 4)"], n=6), 1, 1, 2, 1, "gathered"),
    ("cyclic-2-1", lambda: gdlcheck.group("cyclic", n=5), 2, 1, 1, 2, "gathered"),
    ("trivial", lambda: gdlcheck.group("trivial", n=3), 1, 1, 1, 1, "gathered"),
]
IDS = [c[0] for c in CASES]


@pytest.fixture(params=CASES, ids=IDS)
def case(request):
    _, make, k, l, c_in, c_out, path = request.param
    return make(), k, l, c_in, c_out, path


def layer_of(g, k, l, c_in, c_out, bias=True, seed=0):
    torch.manual_seed(seed)
    return EquivariantLinear(g, c_in, c_out, in_order=k, out_order=l, bias=bias).double()


def probe(layer) -> np.ndarray:
    """The dense matrix the layer computes (without its bias): the layer of each unit input."""
    n, k, c = layer.n, layer.in_order, layer.in_channels
    size = n**k * c
    units = torch.eye(size, dtype=torch.float64).reshape((size,) + (n,) * k + (c,))
    with torch.no_grad():
        out = layer(units)
        if layer.bias is not None:
            out = out - layer(torch.zeros_like(units[:1]))
    return out.reshape(size, -1).T.numpy()


def random_element(g, rng) -> np.ndarray:
    """A random group element as a product of 12 random generators (array form), by numpy."""
    p = np.arange(g.n)
    gens = [np.asarray(s, dtype=np.int64) for s in g.gen_arrays()]
    for _ in range(12 if gens else 0):
        s = gens[rng.integers(len(gens))]
        p = s[p]  # p then s
    return p


def move(x: np.ndarray, p: np.ndarray, order: int, batch: int) -> np.ndarray:
    """The entry at ``j`` moves to ``p[j]`` along each of the ``order`` point axes after ``batch``."""
    out = x
    for axis in range(batch, batch + order):
        moved = np.empty_like(out)
        index = [slice(None)] * out.ndim
        index[axis] = p
        moved[tuple(index)] = out
        out = moved
    return out


def test_parameters_are_the_derived_form(case):
    g, k, l, c_in, c_out, path = case
    layer = layer_of(g, k, l, c_in, c_out)
    d = gdlcheck.derive(g, in_order=k, out_order=l, channels_in=c_in, channels_out=c_out)
    out_orbits = gdlcheck.derive(g, in_order=0, out_order=l).dimension
    assert layer.path == path
    assert layer.weight.numel() == d.free_parameters
    assert layer.bias.numel() == out_orbits * c_out
    assert sum(p.numel() for p in layer.parameters()) == d.free_parameters + out_orbits * c_out
    # the bias is constant on each orbit of the output's index tuples
    zero = torch.zeros((1,) + (g.n,) * k + (c_in,), dtype=torch.float64)
    with torch.no_grad():
        b = layer(zero)[0].numpy()
    pattern = gdlcheck.derive(g, in_order=0, out_order=l).pattern
    for orbit in range(out_orbits):
        values = b[pattern == orbit]
        assert np.all(values == values[0])


def test_the_path_computes_weight_of_pattern(case):
    g, k, l, c_in, c_out, _ = case
    layer = layer_of(g, k, l, c_in, c_out, seed=1)
    d = gdlcheck.derive(g, in_order=k, out_order=l)
    theta = layer.weight.detach().numpy()
    rows, cols = g.n**l, g.n**k
    expected = theta[d.pattern.reshape(rows, cols)].transpose(0, 2, 1, 3).reshape(rows * c_out, cols * c_in)
    np.testing.assert_allclose(probe(layer), expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(layer.to_matrix().numpy(), expected)


def test_equivariant_under_random_group_elements(case):
    g, k, l, c_in, c_out, _ = case
    layer = layer_of(g, k, l, c_in, c_out, seed=2)
    rng = np.random.default_rng(3)
    for _ in range(4):
        p = random_element(g, rng)
        x = rng.standard_normal((2,) + (g.n,) * k + (c_in,))
        with torch.no_grad():
            y = layer(torch.from_numpy(x)).numpy()
            y_moved = layer(torch.from_numpy(move(x, p, k, 1))).numpy()
        scale = np.abs(y).max()
        assert np.abs(y_moved - move(y, p, l, 1)).max() <= 1e-12 * scale


def test_complete_draws_span_the_derived_space(case):
    g, k, l, c_in, c_out, _ = case
    d = gdlcheck.derive(g, in_order=k, out_order=l, channels_in=c_in, channels_out=c_out)
    draws = np.stack(
        [probe(layer_of(g, k, l, c_in, c_out, bias=False, seed=s)).ravel() for s in range(d.free_parameters + 2)]
    )
    assert np.linalg.matrix_rank(draws) == d.free_parameters


def test_the_grid_axes_are_the_flattened_points():
    g = gdlcheck.group("p4", shape="5x5")
    layer = layer_of(g, 1, 1, 2, 3)
    x = torch.randn(4, 5, 5, 2, dtype=torch.float64)
    y = layer(x)
    assert y.shape == (4, 5, 5, 3)
    assert torch.equal(y.reshape(4, 25, 3), layer(x.reshape(4, 25, 2)))


def test_from_matrix_projects_and_to_matrix_round_trips():
    g = gdlcheck.group("automorphisms", graph=petersen())
    rng = np.random.default_rng(0)
    M = rng.standard_normal((20, 30))  # 10 points x 2 output channels, 10 points x 3 input channels
    b = rng.standard_normal(20)
    layer = EquivariantLinear.from_matrix(g, M, in_channels=3, out_channels=2, bias=b)
    P = layer.to_matrix().double().numpy()
    # each orbit and channel pair holds the mean of the dense weight there
    d = gdlcheck.derive(g)
    cells = M.reshape(10, 2, 10, 3)
    for orbit in range(d.dimension):
        mask = d.pattern == orbit
        expected = cells.transpose(0, 2, 1, 3)[mask].mean(axis=0)
        np.testing.assert_allclose(P.reshape(10, 2, 10, 3).transpose(0, 2, 1, 3)[mask][0], expected, rtol=1e-6)
    # the projection is orthogonal: the residual is orthogonal to every equivariant matrix
    other = layer_of(g, 1, 1, 3, 2, seed=5).to_matrix().numpy()
    assert abs(np.sum((M - P) * other)) < 1e-4 * np.abs(M).sum()
    # the bias is the mean of each output orbit (the Petersen graph is vertex-transitive)
    np.testing.assert_allclose(layer.bias.detach().numpy()[0], b.reshape(10, 2).mean(axis=0), rtol=1e-6)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), which=st.sampled_from(IDS))
def test_from_matrix_of_to_matrix_is_the_layer(seed, which):
    _, make, k, l, c_in, c_out, _ = CASES[IDS.index(which)]
    g = make()
    layer = layer_of(g, k, l, c_in, c_out, bias=False, seed=seed)
    again = EquivariantLinear.from_matrix(g, layer.to_matrix(), c_in, c_out, k, l).double()
    np.testing.assert_allclose(again.weight.detach().numpy(), layer.weight.detach().numpy(), rtol=1e-12, atol=1e-15)


def test_symmetric_at_n_100000_builds_no_n_by_n_array():
    g = gdlcheck.group("symmetric", n=100_000)
    layer = EquivariantLinear(g, 2, 3)
    assert layer.path == "deepsets"
    assert all(b.numel() < 100_000 * 10 for b in layer.buffers())
    x = torch.randn(100_000, 2)
    y = layer(x)  # an n x n float32 array would take 40 GB
    alpha_plus_beta, beta = layer.weight.detach()
    expected = x @ (alpha_plus_beta - beta).T + x.sum(dim=0) @ beta.T + layer.bias.detach()[0]
    torch.testing.assert_close(y, expected, rtol=1e-4, atol=1e-4)


def test_initialisation_keeps_a_dense_layers_output_variance():
    g = gdlcheck.group("symmetric", n=30)
    fan_in = 30 * 4
    x = torch.randn(64, 30, 4, generator=torch.Generator().manual_seed(0))
    ours, dense = [], []
    for seed in range(40):
        torch.manual_seed(seed)
        ours.append(EquivariantLinear(g, 4, 4, bias=False)(x).detach().var().item())
        dense.append(torch.nn.Linear(fan_in, 30 * 4, bias=False)(x.reshape(64, -1)).detach().var().item())
    bound = 1 / np.sqrt(fan_in)
    layer = EquivariantLinear(g, 4, 4)
    assert layer.weight.abs().max() <= bound and layer.bias.abs().max() <= bound
    # both are fan_in * bound^2 / 3 = 1/3 in expectation; 40 draws of 7,680 outputs each
    assert 0.8 < np.mean(ours) / np.mean(dense) < 1.25
    before = layer.weight.detach().clone()
    torch.manual_seed(123)
    layer.reset_parameters()
    assert not torch.equal(before, layer.weight.detach())


def test_bad_inputs_are_layer_errors():
    g = gdlcheck.group("cyclic", n=6)
    layer = EquivariantLinear(g, 2, 2)
    with pytest.raises(GdlcheckError, match=r"expects an input of shape \(\*batch, 6, 2\), got \(5, 2\)"):
        layer(torch.randn(5, 2))
    with pytest.raises(GdlcheckError, match="in_channels must be an integer of at least 1, got 0"):
        EquivariantLinear(g, 0, 2)
    with pytest.raises(GdlcheckError, match="out_order must be an integer of at least 0, got 1.5"):
        EquivariantLinear(g, 1, 1, out_order=1.5)
    with pytest.raises(GdlcheckError, match="in_order must be between 0 and 4, got 5"):
        EquivariantLinear(g, 1, 1, in_order=5)
    with pytest.raises(GdlcheckError, match=r"bias has shape \(5,\), expected \(6,\)"):
        EquivariantLinear.from_matrix(g, np.zeros((6, 6)), bias=np.zeros(5))
    with pytest.raises(GdlcheckError, match="group is a PermGroup"):
        EquivariantLinear("cyclic", 1, 1)
    with pytest.raises(GdlcheckError, match="matrix is 5x6, expected 6x6"):
        EquivariantLinear.from_matrix(g, np.zeros((5, 6)))


# ------------------------------------------------------------------------- proofs by gdlcheck
# What verify_callable says of each path today.  The symmetric group's sums from an order-1 input
# are proved exactly, and so is the gathered weight: ``theta[pattern]`` is an operator on the points
# that the group keeps (P W P^T = W, the product's operator law).  The convolution is circular
# padding and a convolution: proved under shifts and, with the kernel's taps symmetric, under
# reflections, and under the turns and mirrors of a square grid (p4, p4m: the move swaps the grid's
# axes) where the kernel's taps keep them.  An order-2 input moves as pairs (inputs=["pairs"]).

PROVED = [
    ("symmetric-1-1", lambda: gdlcheck.group("symmetric", n=6), 1, 1, {}),
    ("symmetric-1-0", lambda: gdlcheck.group("symmetric", n=5), 1, 0, {"expect": "invariant"}),
    ("symmetric-1-2", lambda: gdlcheck.group("symmetric", n=5), 1, 2, {"outputs": "pairs:0,1"}),
    ("alternating-1-1", lambda: gdlcheck.group("alternating", n=6), 1, 1, {}),
    ("petersen, gathered", lambda: gdlcheck.group("automorphisms", graph=petersen()), 1, 1, {}),
    ("generators, gathered", lambda: gdlcheck.group(generators=["(0 1 2)(3 4)"], n=6), 1, 1, {}),
    ("cyclic, convolution", lambda: gdlcheck.group("cyclic", n=8), 1, 1, {}),
    ("dihedral, convolution", lambda: gdlcheck.group("dihedral", n=7), 1, 1, {}),
    ("dihedral even, convolution", lambda: gdlcheck.group("dihedral", n=6), 1, 1, {}),
    ("torus, convolution", lambda: gdlcheck.group("translations", shape="3x4"), 1, 1, {"points_axis": (0, 1)}),
    ("3-d torus, convolution", lambda: gdlcheck.group("translations", shape="2x3x2"), 1, 1, {"points_axis": (0, 1, 2)}),
    ("p4 5x5, convolution", lambda: gdlcheck.group("p4", shape="5x5"), 1, 1, {"points_axis": (0, 1)}),
    ("p4m 4x4, convolution", lambda: gdlcheck.group("p4m", shape="4x4"), 1, 1, {"points_axis": (0, 1)}),
    ("p4 4x4 points flat, convolution", lambda: gdlcheck.group("p4", shape="4x4"), 1, 1, {"points_axis": 0}),
]


def verdict_of(layer, g, **options):
    grid = isinstance(options.get("points_axis"), tuple)  # the points given as the grid's axes
    shape = (tuple(g.shape) if grid else (g.n,) * layer.in_order) + (layer.in_channels,)
    return gdlcheck.verify_callable(layer, g, shape=shape, **options).to_json()


@pytest.mark.parametrize(("make", "k", "l", "options"), [c[1:] for c in PROVED], ids=[c[0] for c in PROVED])
def test_verify_callable_proves_the_sums_and_the_gathered_weight(make, k, l, options):
    g = make()
    obj = verdict_of(layer_of(g, k, l, 2, 3).float(), g, **options)
    exact = [c for c in obj["checks"] if c["method"] == "exact"]
    assert obj["verdict"] == "holds" and "proof" in obj
    assert exact and all(c["passed"] for c in exact)


def test_a_cyclic_layer_under_reflections_fails_at_its_kernel():
    # the twin of the dihedral layer: a cyclic layer's kernel is not symmetric in its offsets
    g, dihedral = gdlcheck.group("cyclic", n=8), gdlcheck.group("dihedral", n=8)
    obj = gdlcheck.verify_callable(layer_of(g, 1, 1, 2, 3), dihedral, shape=(8, 2)).to_json()
    assert obj["verdict"] == "fails" and "weight" in obj["culprit"]["suspects"]
    assert any("at weight" in note and "c[a d] = c[d] fails for (1 7)(2 6)(3 5)" in note for note in obj["notes"])


def test_a_torus_layer_under_turns_fails_at_its_kernel():
    # the twin of the p4 layer: a translations layer's kernel does not keep the quarter turn
    g, p4 = gdlcheck.group("translations", shape="4x4"), gdlcheck.group("p4", shape="4x4")
    obj = gdlcheck.verify_callable(layer_of(g, 1, 1, 2, 3), p4, shape=(4, 4, 2), points_axis=(0, 1)).to_json()
    assert obj["verdict"] == "fails" and "weight" in obj["culprit"]["suspects"]
    assert not all(c["passed"] for c in obj["checks"] if c["method"] == "exact")


ORDER_2 = [c for c in CASES if c[2] == 2]


@pytest.mark.parametrize("case", ORDER_2, ids=[c[0] for c in ORDER_2])
def test_verify_callable_proves_every_path_from_an_order_2_input(case):
    # the input moves as pairs (P X P^T); the symmetric group's path reads its diagonal, the
    # gathered one flattens it (the operator law on each index of the pair)
    _, make, k, l, c_in, c_out, _ = case
    g = make()
    options = {"inputs": ["pairs"], "outputs": "pairs:0,1" if l == 2 else "points"}
    obj = gdlcheck.verify_callable(layer_of(g, k, l, c_in, c_out), g, shape=(g.n, g.n, c_in), **options).to_json()
    assert obj["verdict"] == "holds" and "proof" in obj
    assert all(c["passed"] for c in obj["checks"] if c["method"] == "exact")


def test_a_checkpoint_holds_the_parameters_alone():
    g = gdlcheck.group("automorphisms", graph=petersen())
    layer = layer_of(g, 1, 1, 2, 2)
    assert set(layer.state_dict()) == {"weight", "bias"}
    other = layer_of(g, 1, 1, 2, 2, seed=9)
    other.load_state_dict(layer.state_dict())
    x = torch.randn(3, 10, 2, dtype=torch.float64)
    assert torch.equal(other(x), layer(x))


def test_gradients_are_those_of_weight_of_pattern(case):
    g, k, l, c_in, c_out, _ = case
    layer = layer_of(g, k, l, c_in, c_out, seed=4)
    rng = np.random.default_rng(5)
    x = torch.from_numpy(rng.standard_normal((2,) + (g.n,) * k + (c_in,)))
    r = torch.from_numpy(rng.standard_normal((2,) + (g.n,) * l + (c_out,)))
    (layer(x) * r).sum().backward()
    # the same loss through the dense weight theta[pattern], by autograd
    theta = layer.weight.detach().clone().requires_grad_(True)
    pattern = torch.from_numpy(
        gdlcheck.derive(g, in_order=k, out_order=l).pattern.reshape(g.n**l, g.n**k).astype(np.int64)
    )
    W = theta[pattern].permute(0, 2, 1, 3).reshape(g.n**l * c_out, g.n**k * c_in)
    (x.reshape(2, -1) @ W.T * r.reshape(2, -1)).sum().backward()
    torch.testing.assert_close(layer.weight.grad, theta.grad, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(layer.bias.grad.sum(0), r.sum(dim=tuple(range(r.dim() - 1))), rtol=1e-10, atol=1e-12)


def test_the_diagonal_of_an_order_2_output_is_written_exactly():
    # orbit 0 of 1 -> 2 is "all three indices equal": y[i, i] = x[i], 0 elsewhere, even near the float32 limit
    g = gdlcheck.group("symmetric", n=3)
    layer = EquivariantLinear(g, 1, 1, in_order=1, out_order=2, bias=False)
    with torch.no_grad():
        layer.weight.zero_()
        layer.weight[0] = 1.0
    x = torch.tensor([[3e38], [1.0], [-2.5]])
    y = layer(x)[..., 0]
    assert torch.equal(y, torch.diag(x[:, 0]))
