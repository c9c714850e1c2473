"""Proofs of code are proofs of the call that runs (issue 20), through the public API.

Each of the five ways ordinary Python around a module fooled the fx tracer has a module written
from its description: with ``method="exact"`` the proof stops (``inconclusive``), and with
``auto`` at a size past the trials' shortcut the trials find the counterexample (``fails``).  The
common code that used to stop the proof is proved; PyG's message passing is proved on a graph
that moves with the points and on fixed graphs under their automorphisms, and not under the
symmetric group there.
"""

import random

import numpy as np
import pytest

# every test here runs torch (the marker: pytest -m "not slow" is the loop without it)
pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")
pyg = pytest.importorskip("torch_geometric")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402

nn = torch.nn
D = 8


def proved(result) -> bool:
    obj = result.to_json()
    exact = [c for c in obj["checks"] if c["method"] == "exact"]
    return obj["verdict"] == "holds" and "proof" in obj and bool(exact) and all(c["passed"] for c in exact)


def notes(result) -> str:
    return " ".join(result.to_json().get("notes", []))


def seeded(module):
    torch.manual_seed(0)
    return module


# --------------------------------------------------------------------------- the five causes


class CausalByDefault(nn.Module):
    """Cause 1: ``attn_mask=None`` by default, then the causal buffer: not symmetric."""

    def __init__(self, n):
        super().__init__()
        self.attn = nn.MultiheadAttention(D, 2, batch_first=True)
        self.register_buffer("causal", torch.ones(n, n, dtype=torch.bool).triu(1))

    def forward(self, x, attn_mask=None):
        if attn_mask is None:
            attn_mask = self.causal
        return self.attn(x, x, x, attn_mask=attn_mask)[0]


class FlipOnCall(nn.Module):
    """Cause 2: a class-level ``__call__`` that reverses the points around the forward."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D)

    def forward(self, x):
        return self.lin(x)

    def __call__(self, x):
        return super().__call__(x).flip(-2)


class FlipImpl(FlipOnCall):
    """Cause 2 again: ``_call_impl`` on the class.  (A flip, not a roll: a roll of the points
    commutes with the cyclic generator, and the proof rightly proves that generator.)"""

    __call__ = nn.Module.__call__

    def _call_impl(self, x):
        return self.forward(x).flip(-2)


class Inspects(nn.Module):
    """Cause 3: code that inspects a value takes the branch a real tensor takes."""

    def __init__(self, how):
        super().__init__()
        self.how = how
        self.lin = nn.Linear(D, D)

    def forward(self, x):
        h = self.lin(x)
        if self.how == "isinstance":
            real = isinstance(h, torch.Tensor)
        elif self.how == "type":
            real = type(h) is torch.Tensor
        elif self.how == "class_name":
            real = h.__class__.__name__ == "Tensor"
        elif self.how == "torch_function":
            real = not torch.overrides.has_torch_function((h,))
        else:
            try:
                real = float(h[..., 0, 0].sum()) == float(h[..., 0, 0].sum())
            except Exception:
                real = False
        return h.cumsum(-2) if real else h


class StarArgs(nn.Module):
    """Cause 4: ``forward(self, x, *rest)``: the third input moves and is read against the points."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D)

    def forward(self, x, *rest):
        bias, other = rest
        return self.lin(x) + bias + other.flip(-2)


class Stateful(nn.Module):
    """Cause 5: state changed by the call: a buffer counter, a Python counter, Python's random."""

    def __init__(self, how):
        super().__init__()
        self.how = how
        self.lin = nn.Linear(D, D)
        self.register_buffer("step", torch.zeros(()))
        self.calls = 0

    def forward(self, x):
        h = self.lin(x)
        if self.how == "buffer":
            self.step += 1
            return h.roll(int(self.step) % 3, -2)
        if self.how == "counter":
            self.calls += 1
            return h.roll(self.calls % 3, -2)
        return h * random.random()


def causes(n):
    return {
        "default": (CausalByDefault(n), (1, n, D), 1, None),
        "class_call": (FlipOnCall(), (1, n, D), 1, None),
        "call_impl": (FlipImpl(), (1, n, D), 1, None),
        **{
            f"inspect_{how}": (Inspects(how), (1, n, D), 1, None)
            for how in ("isinstance", "type", "class_name", "torch_function", "try")
        },
        "star_args": (StarArgs(), (1, n, D), 1, ["points", "points", "points"]),
        "buffer": (Stateful("buffer"), (1, n, D), 1, None),
        "counter": (Stateful("counter"), (1, n, D), 1, None),
        "random": (Stateful("random"), (1, n, D), 1, None),
    }


@pytest.mark.parametrize("name", sorted(causes(6)))
def test_each_cause_stops_the_exact_proof(name):
    module, shape, axis, inputs = causes(6)[name]
    result = gdlcheck.verify_callable(
        seeded(module), "symmetric", shape=shape, points_axis=axis, inputs=inputs, method="exact"
    )
    # a guard stops it (inconclusive), or the proof's moved call shows the counterexample (fails)
    assert result.verdict in ("inconclusive", "fails"), notes(result)
    assert not any(result.proof.proven.values())


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(causes(6)))
def test_each_cause_fails_in_auto_past_the_trials_shortcut(name):
    """n x d = 640 x 8 > 4096: a proof alone would settle ``auto`` there; the trials must speak."""
    module, shape, axis, inputs = causes(640)[name]
    result = gdlcheck.verify_callable(seeded(module), "symmetric", shape=shape, points_axis=axis, inputs=inputs)
    if name in ("random", "buffer", "counter"):
        # a module that counts its calls gives another output on the same input (the trials call it
        # for each generator and a random element, then once more): random, or failing, never holds
        assert result.verdict in ("inconclusive", "fails"), notes(result)
        assert name != "random" or "random" in notes(result)
    else:
        assert result.verdict == "fails", notes(result)


def test_a_value_read_stops_the_proof_with_its_line_even_when_caught():
    result = gdlcheck.verify_callable(Inspects("try"), "symmetric", shape=(1, 6, D), points_axis=1, method="exact")
    assert "asks for a value" in notes(result) and "test_code_proofs.py:" in notes(result)


def test_a_state_change_names_what_changed():
    result = gdlcheck.verify_callable(Stateful("buffer"), "symmetric", shape=(1, 6, D), points_axis=1, method="exact")
    assert "changes state: step" in notes(result)


class Wrapper(nn.Module):
    """The equivariant wrapper: ``mask=None`` defaults, ``isinstance`` guards, a raise on a mask."""

    def __init__(self):
        super().__init__()
        self.enc = nn.TransformerEncoderLayer(D, 2, 16, batch_first=True)

    def forward(self, x, mask=None, key_padding_mask=None):
        if mask is not None:
            raise ValueError("this wrapper takes no mask")
        if not isinstance(x, torch.Tensor):
            raise TypeError("a tensor please")
        return self.enc(x, src_key_padding_mask=key_padding_mask)


def test_an_equivariant_wrapper_with_defaults_and_guards_is_proved():
    assert proved(gdlcheck.verify_callable(seeded(Wrapper()), "symmetric", shape=(2, 6, D), points_axis=1))


# --------------------------------------------------------------------------- common code, proved


class Decoder(nn.Module):
    def __init__(self, layers):
        super().__init__()
        layer = nn.TransformerDecoderLayer(D, 2, 16, batch_first=True)
        self.dec = nn.TransformerDecoder(layer, layers) if layers > 1 else layer

    def forward(self, tgt, memory):
        return self.dec(tgt, memory)


@pytest.mark.parametrize("layers", [1, 2])
def test_a_decoder_is_proved_with_target_and_memory_moving_or_the_memory_held(layers):
    moving = gdlcheck.verify_callable(
        seeded(Decoder(layers)), "symmetric", shape=(1, 6, D), points_axis=1, inputs=["points", "points"]
    )
    held = gdlcheck.verify_callable(
        seeded(Decoder(layers)),
        "symmetric",
        shape=(1, 6, D),
        points_axis=1,
        inputs=["points", gdlcheck.unchanged(torch.randn(1, 5, D))],
    )
    assert proved(moving) and proved(held)


def test_a_pointwise_conv1d_is_proved():
    net = seeded(nn.Sequential(nn.Conv1d(3, 8, 1), nn.ReLU(), nn.Conv1d(8, 4, 1)))
    assert proved(gdlcheck.verify_callable(net, "symmetric", shape=(2, 3, 10), points_axis=2))


def test_circular_convolutions_are_proved_for_their_translations_only():
    conv1 = seeded(nn.Conv1d(3, 5, 3, padding=1, padding_mode="circular"))
    assert proved(gdlcheck.verify_callable(conv1, "cyclic", shape=(3, 16), points_axis=1))
    dihedral = gdlcheck.verify_callable(conv1, "dihedral", shape=(3, 16), points_axis=1)
    assert not proved(dihedral) and dihedral.verdict == "fails"
    conv2 = seeded(
        nn.Sequential(
            nn.Conv2d(3, 4, 3, padding=1, padding_mode="circular"),
            nn.ReLU(),
            nn.Conv2d(4, 2, 3, padding=1, padding_mode="circular"),
        )
    )
    assert proved(gdlcheck.verify_callable(conv2, "translations", shape=(3, 6, 6), points_axis=(1, 2)))
    p4 = gdlcheck.verify_callable(conv2, "p4", shape=(3, 6, 6), points_axis=(1, 2), method="exact")
    assert (
        p4.verdict == "inconclusive"
        and "the kernel turned as the grid turns is none of its output channels" in notes(p4)
    )


class ClsToken(nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(torch.randn(1, 1, D))
        self.enc = nn.TransformerEncoderLayer(D, 2, 16, batch_first=True)

    def forward(self, x):
        h = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        return self.enc(h)[:, 0]


def test_a_cls_token_prepended_and_read_back_is_proved_invariant():
    assert proved(
        gdlcheck.verify_callable(seeded(ClsToken()), "symmetric", shape=(2, 6, D), points_axis=1, expect="invariant")
    )


class Context(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D)

    def forward(self, x, *, context):
        return self.lin(x) * context.mean(0, keepdim=True)


def test_a_keyword_input_that_moves_is_proved():
    assert proved(
        gdlcheck.verify_callable(
            seeded(Context()), "symmetric", shape=(6, D), inputs={0: "points", "context": "points"}
        )
    )


class Padded(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(D, 2, batch_first=True)

    def forward(self, x, pad):
        return self.attn(x, x, x, key_padding_mask=pad)[0]


class Masked(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.attn = nn.MultiheadAttention(D, 2, batch_first=True)
        self.register_buffer("mask", mask)

    def forward(self, x, mask=None):
        return self.attn(x, x, x, attn_mask=self.mask if mask is None else mask)[0]


def test_bool_and_float_masks_as_inputs_or_buffers_are_proved_where_they_are_fixed():
    pad = np.zeros((1, 6), dtype=bool)
    pad[0, 2] = True
    assert proved(
        gdlcheck.verify_callable(
            seeded(Padded()),
            "symmetric",
            shape=(1, 6, D),
            points_axis=1,
            inputs=["points", gdlcheck.points(pad, axis=1)],
        )
    )
    inf = torch.zeros(6, 6)
    inf[0, 1] = inf[1, 0] = float("-inf")
    pairs = groups.build_group("generators", n=6, generators=["(0 1)", "(2 3 4 5)"])
    assert proved(gdlcheck.verify_callable(seeded(Masked(inf)), pairs, shape=(1, 6, D), points_axis=1))
    assert proved(gdlcheck.verify_callable(seeded(Masked(inf != 0)), pairs, shape=(1, 6, D), points_axis=1))
    wider = gdlcheck.verify_callable(seeded(Masked(inf)), "symmetric", shape=(1, 6, D), points_axis=1)
    assert not proved(wider) and "mask" in notes(wider)


def test_a_positional_none_mask_is_proved():
    module = seeded(Masked(torch.zeros(6, 6)))
    assert proved(
        gdlcheck.verify_callable(
            module, "symmetric", shape=(1, 6, D), points_axis=1, inputs=["points", gdlcheck.unchanged(None)]
        )
    )


def test_a_grid_of_points_that_turns_is_followed_where_the_rules_swap_axes():
    conv = seeded(nn.Conv2d(1, 1, 1))
    assert proved(gdlcheck.verify_callable(conv, "p4", shape=(1, 4, 4), points_axis=(1, 2)))
    wide = seeded(nn.Conv2d(1, 1, 3, padding=1))  # zero padding: no rule under swapped axes
    result = gdlcheck.verify_callable(wide, "p4", shape=(1, 4, 4), points_axis=(1, 2), method="exact")
    assert result.verdict == "inconclusive" and "a kernel wider than 1 under swapped axes" in notes(result)


# --------------------------------------------------------------------------- PyG


def ring(n):
    src = np.arange(n)
    return np.concatenate([np.stack([src, (src + 1) % n]), np.stack([(src + 1) % n, src])], axis=1)


def grid(h, w):
    edges = []
    for a in range(h):
        for b in range(w):
            for da, db in ((0, 1), (1, 0)):
                if a + da < h and b + db < w:
                    u, v = a * w + b, (a + da) * w + b + db
                    edges += [(u, v), (v, u)]
    return np.array(edges).T


def petersen():
    outer = [(i, (i + 1) % 5) for i in range(5)]
    spokes = [(i, i + 5) for i in range(5)]
    inner = [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    edges = outer + spokes + inner
    return np.array(edges + [(v, u) for u, v in edges]).T


def layers():
    from torch_geometric import nn as gnn

    torch.manual_seed(0)
    return {
        "GCNConv": (gnn.GCNConv(4, 5), False),
        "GraphConv": (gnn.GraphConv(4, 5), False),
        "SAGEConv": (gnn.SAGEConv(4, 5), False),
        "GINConv": (gnn.GINConv(nn.Linear(4, 5)), False),
        "GINEConv": (gnn.GINEConv(nn.Linear(4, 5), edge_dim=3), True),
        "NNConv": (gnn.NNConv(4, 5, nn.Linear(3, 20)), True),
        "GATConv": (gnn.GATConv(4, 5, heads=2), False),
        "GATv2Conv": (gnn.GATv2Conv(4, 5), False),
        "TransformerConv": (gnn.TransformerConv(4, 5, heads=2, edge_dim=3), True),
    }


def _check(layer, edge_attrs, group, ei, how):
    n = int(ei.max()) + 1
    inputs = ["points", how(ei)]
    if edge_attrs:
        inputs.append(gdlcheck.edges(np.random.default_rng(1).standard_normal((ei.shape[1], 3))))
    return gdlcheck.verify_callable(layer, group, shape=(n, 4), inputs=inputs)


@pytest.mark.parametrize("name", sorted(layers()))
def test_message_passing_is_proved_on_a_moving_graph(name):
    layer, edge_attrs = layers()[name]
    assert proved(_check(layer, edge_attrs, "symmetric", petersen(), gdlcheck.graph))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(layers()))
def test_message_passing_on_a_fixed_graph_is_proved_under_its_automorphisms_only(name):
    layer, edge_attrs = layers()[name]
    for ei in (ring(8), grid(3, 3), petersen()):
        n = int(ei.max()) + 1
        A = np.zeros((n, n))
        A[ei[0], ei[1]] = 1
        autos = groups.automorphism_group(A)
        assert proved(_check(layer, edge_attrs, autos, ei, gdlcheck.fixed))
        beyond = _check(layer, edge_attrs, "symmetric", ei, gdlcheck.fixed)
        assert not proved(beyond)


class Pooled(nn.Module):
    def __init__(self, pool, batch):
        super().__init__()
        self.pool, self.batch = pool, batch
        self.conv = __import__("torch_geometric").nn.GCNConv(4, 5)

    def forward(self, x, edge_index, batch=None):
        return self.pool(self.conv(x, edge_index).relu(), batch)


@pytest.mark.parametrize("pool", ["global_add_pool", "global_mean_pool", "global_max_pool"])
def test_a_model_with_global_pooling_is_proved_invariant_with_or_without_a_batch(pool):
    from torch_geometric import nn as gnn

    fn = getattr(gnn, pool)
    alone = gdlcheck.verify_callable(
        seeded(Pooled(fn, None)),
        "symmetric",
        shape=(10, 4),
        inputs=["points", gdlcheck.graph(petersen())],
        expect="invariant",
    )
    assert proved(alone)
    two = np.concatenate([ring(5), ring(5) + 5], axis=1)
    batch = np.repeat([0, 1], 5)
    within = groups.build_group("generators", n=10, generators=["(0 1 2 3 4)", "(5 6)"])
    batched = gdlcheck.verify_callable(
        seeded(Pooled(fn, None)),
        within,
        shape=(10, 4),
        expect="invariant",
        inputs=["points", gdlcheck.graph(two), gdlcheck.points(batch)],
    )
    assert proved(batched)


def test_a_node_index_feature_stops_the_proof_at_that_constant():
    class WithIndex(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = __import__("torch_geometric").nn.GCNConv(5, 3)

        def forward(self, x, edge_index):
            ids = torch.arange(x.shape[0], dtype=x.dtype).unsqueeze(1)
            return self.conv(torch.cat([x, ids], dim=1), edge_index)

    result = gdlcheck.verify_callable(
        seeded(WithIndex()), "symmetric", shape=(10, 4), inputs=["points", gdlcheck.graph(petersen())], method="exact"
    )
    assert result.verdict in ("inconclusive", "fails") and "P E = E" in " ".join(
        c["what"] for s in result.to_json()["proof"] for c in s["conditions"]
    )
