"""Issue 29's everyday stops, proved: ``stack``, ``repeat``, ``roll``, ``_safe_softmax``, ``out=``,
an invariant value broadcast along the points (``expand``, ``repeat``, ``F.normalize(dim=0)``), and
writes into parts of a tensor the call made (``copy_`` into views: blocks filled one by one, an
LSTM's gate chunks written in place).  Each proof has a twin that is not equivariant and is never
proved."""

import json
import warnings

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

F = torch.nn.functional
N, D = 8, 4


class Code(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.lin = torch.nn.Linear(D, D)
        self.fn = fn

    def forward(self, x):
        return self.fn(self, x)


def verdict(fn, group="symmetric", method="exact", **kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gdlcheck.verify_callable(Code(fn), group, method=method, shape=(N, D), **kw).to_json()


PROVED = {
    "stack of two per-point values": (lambda s, x: torch.stack([x, s.lin(x)], -1).amax(-1), "symmetric"),
    "stack along a new first axis": (lambda s, x: torch.stack([x, s.lin(x)]).sum(0), "symmetric"),
    "repeat along the points": (lambda s, x: x.repeat(2, 1)[N:] * 2, "cyclic"),
    "repeat along the channels": (lambda s, x: x.repeat(1, 3), "symmetric"),
    "roll along the points under shifts": (lambda s, x: x + torch.roll(x, 2, 0), "cyclic"),
    "roll along the channels": (lambda s, x: torch.roll(x, 1, 1), "symmetric"),
    "mm into an out= buffer": (
        lambda s, x: torch.mm(x, s.lin.weight, out=torch.empty(N, D, dtype=x.dtype)),
        "symmetric",
    ),
    "a global feature expanded to every point (PointNet)": (
        lambda s, x: torch.cat([x, s.lin(x).amax(0, keepdim=True).expand(N, -1)], 1),
        "symmetric",
    ),
    "a global feature repeated to every point": (
        lambda s, x: torch.cat([x, x.mean(0, keepdim=True).repeat(N, 1)], 1),
        "symmetric",
    ),
    "F.normalize over the points": (lambda s, x: F.normalize(x, dim=0), "symmetric"),
    "sdpa with a float mask (the safe softmax)": (
        lambda s, x: F.scaled_dot_product_attention(
            x[None], x[None], x[None], attn_mask=torch.zeros(N, N, dtype=x.dtype)
        )[0],
        "symmetric",
    ),
    "a fresh tensor filled block by block": (lambda s, x: _blocks(x, s.lin(x)), "symmetric"),
    "rows written past a leading row": (lambda s, x: _past_a_row(x), "cyclic"),
    "a chunk written in place beside another": (lambda s, x: _chunks(s.lin(x).repeat(1, 2)), "symmetric"),
    "a 2-D mask that keeps every point (after to_dense_batch)": (
        lambda s, x: s.lin(x)[None][torch.ones(1, N, dtype=torch.bool)],
        "symmetric",
    ),
}


def _blocks(x, y):
    out = x.new_zeros(N, 2 * D)
    out[:, :D] = x
    out[:, D:] = y
    return out


def _past_a_row(x):
    out = torch.zeros(N + 1, D, dtype=x.dtype)
    out[1:] = x
    return out[1:] + out[:1]


def _chunks(h):
    a, b = h.chunk(2, 1)
    a.tanh_()
    return a + b


def _into_numbers(x):
    out = torch.arange(N * 2 * D, dtype=x.dtype).reshape(N, 2 * D).clone()  # rows that differ
    out[:, :D] = x
    return out


def _overlapping(x):
    h = x.clone()
    h[:, 0].copy_(x[0, 0].expand(N))
    return h


def _half(x):
    mask = torch.zeros(1, N, dtype=torch.bool)
    mask[0, : N // 2] = True
    return x[None][mask].sum(0)


TWINS = {
    "a 2-D mask that keeps half the points": lambda s, x: x + _half(x),
    "a block of a tensor whose other rows differ": lambda s, x: _into_numbers(x),
    "a write that overlaps what is read": lambda s, x: _overlapping(x),
    "stack beside a row that does not move": lambda s, x: torch.stack([x, x[:1].expand(N, D)], -1).sum(-1),
    "roll along the points under reflections": lambda s, x: x + torch.roll(x, 2, 0),
    "a first row repeated to every point": lambda s, x: torch.cat([x, x[:1].repeat(N, 1)], 1),
    "out= of a product with the points' first row": lambda s, x: torch.mm(
        x, x[:1].T.expand(D, D).contiguous(), out=torch.empty(N, D, dtype=x.dtype)
    ),
}


@pytest.mark.parametrize("name", list(PROVED))
def test_everyday_code_is_proved(name):
    fn, group = PROVED[name]
    result = verdict(fn, group)
    assert result["verdict"] == "holds", json.dumps(result.get("proof"), indent=1)[:3000]


@pytest.mark.parametrize("name", list(TWINS))
def test_the_twins_are_not_proved_and_fail_by_trials(name):
    group = "dihedral" if "reflections" in name else "symmetric"
    assert verdict(TWINS[name], group)["verdict"] == "inconclusive"
    assert verdict(TWINS[name], group, method="auto")["verdict"] == "fails"


def test_a_roll_under_reflections_stops_at_the_sum_of_two_moves():
    obj = verdict(TWINS["roll along the points under reflections"], "dihedral")
    assert "operands moved differently" in " ".join(obj.get("notes", []))


def ring_edges(n=N):
    import numpy as np

    s = np.arange(n)
    return np.concatenate([np.stack([s, (s + 1) % n]), np.stack([(s + 1) % n, s])], axis=1)


class LoopWeights(torch.nn.Module):
    """Message passing over a graph with self loops, whose loop weights are then lowered by a mask of
    the loops (ChebConv's Laplacian): proved when the loop weights are one value, which the loops'
    relabelling keeps; not when they are the node numbers."""

    def __init__(self, by_node: bool):
        super().__init__()
        self.by_node = by_node

    def forward(self, x, edge_index):
        n = x.shape[0]
        loops = torch.arange(n).repeat(2, 1)
        ei = torch.cat([edge_index, loops], 1)
        fill = torch.arange(n, dtype=x.dtype) if self.by_node else torch.full((n,), 2.0, dtype=x.dtype)
        w = torch.cat([torch.ones(edge_index.shape[1], dtype=x.dtype), fill])
        w[ei[0] == ei[1]] -= 1
        return torch.zeros_like(x).index_add_(0, ei[0], w[:, None] * x[ei[1]])


@pytest.mark.parametrize("by_node", [False, True], ids=["one loop weight", "loop weights by node number"])
def test_a_mask_of_the_loops_on_given_weights(by_node):
    import gdlcheck as g

    kw = {"shape": (N, D), "inputs": ["points", g.graph(ring_edges())]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = g.verify_callable(LoopWeights(by_node), "symmetric", method="exact", **kw).verdict
        auto = g.verify_callable(LoopWeights(by_node), "symmetric", **kw).verdict
    assert (exact, auto) == (("inconclusive", "fails") if by_node else ("holds", "holds"))
