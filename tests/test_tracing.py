"""The tracer proves torch modules soundly: whenever it says a generator commutes, the module does.

Random modules built from supported and unsupported operations, against cyclic, dihedral and
symmetric groups: when the tracer says holds, f(g x) = g f(x) (or f(g x) = f(x)) to 1e-10 in
float64; when that fails, the tracer did not say holds.  Rules broken on purpose are caught by
the same search.  And the real modules of the issue get their verdicts.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

from gdlcheck import groups  # noqa: E402
from gdlcheck.output.proof import proof_lines, stop_text  # noqa: E402
from gdlcheck.tracing import Expected, Flow, functions, trace_proof, units  # noqa: E402
from gdlcheck.tracing import trace as trace_module  # noqa: E402

F = torch.nn.functional


def prove(module, group, shape, axis=0, out=None):
    out = out if out is not None else Expected("points", (axis,))
    return trace_proof(module.eval().double(), group, [(Flow((axis,)), shape)], out)


def numeric_holds(module, group, shape, axis=0, invariant=False, trials=3, seed=0) -> dict:
    """Per generator: f(x[g]) against f(x)[g] (or f(x)) on random float64 inputs."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    with torch.no_grad():
        for name, s in zip(group.generator_strings, group.gen_arrays()):
            index = torch.as_tensor(np.asarray(s), dtype=torch.long)
            ok = True
            for _ in range(trials):
                x = torch.randn(shape, dtype=torch.float64, generator=gen)
                y = module(x)
                moved = module(x.index_select(axis, index))
                want = y if invariant else y.index_select(axis, index)
                scale = max(1.0, float(want.abs().max()))
                ok &= bool((moved - want).abs().max() <= 1e-10 * scale)
            out[name] = ok
    return out


# --------------------------------------------------------------------------- the real modules of the issue


def encoder_layer(d=16, heads=4, **kw):
    torch.manual_seed(0)
    return torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=32, **kw).eval().double()


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_layer_is_proved_symmetric(batch_first):
    layer = encoder_layer(batch_first=batch_first)
    shape, axis = ((2, 8, 16), 1) if batch_first else ((8, 2, 16), 0)
    group = groups.build_group("symmetric", n=8)
    proof = prove(layer, group, shape, axis)
    assert proof.holds
    assert [s.rule for s in proof.steps] == ["traced", "encoder"]
    assert all(numeric_holds(layer, group, shape, axis).values())


def test_transformer_encoder_is_proved_symmetric():
    torch.manual_seed(0)
    encoder = torch.nn.TransformerEncoder(encoder_layer(), 2, enable_nested_tensor=False).eval().double()
    group = groups.build_group("symmetric", n=8)
    proof = prove(encoder, group, (8, 16))
    assert proof.holds
    assert all(numeric_holds(encoder, group, (8, 16)).values())


class Masked(torch.nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.block = encoder_layer()
        self.register_buffer("mask", mask)

    def forward(self, x):
        return self.block(x, src_mask=self.mask)


def test_a_causal_mask_is_proved_under_its_automorphisms_only():
    mask = torch.nn.Transformer.generate_square_subsequent_mask(8, dtype=torch.float64)
    module = Masked(mask).double()
    automorphisms = groups.automorphism_group(torch.isfinite(mask).double().numpy())
    assert automorphisms.order == 1                   # a causal order has no symmetry but the identity
    assert prove(module, automorphisms, (8, 16)).holds
    for name in ("symmetric", "cyclic"):
        group = groups.build_group(name, n=8)
        proof = prove(module, group, (8, 16))
        assert not any(proof.proven.values())
        assert all(s.step.rule == "constant" and s.condition.what == "mask" for s in proof.stops.values())
        assert not any(numeric_holds(module, group, (8, 16)).values())


def test_a_block_mask_is_proved_under_its_automorphisms_and_not_beyond():
    allowed = torch.zeros(8, 8, dtype=torch.bool)
    allowed[:4, :4] = allowed[4:, 4:] = True        # two windows of four tokens that see each other
    mask = torch.zeros(8, 8, dtype=torch.float64).masked_fill(~allowed, float("-inf"))
    module = Masked(mask).double()
    automorphisms = groups.automorphism_group(allowed.double().numpy())
    assert automorphisms.order == 2 * 24 * 24
    assert prove(module, automorphisms, (8, 16)).holds
    assert all(numeric_holds(module, automorphisms, (8, 16)).values())
    proof = prove(module, groups.build_group("symmetric", n=8), (8, 16))
    assert proof.proven == {"(0 1 2 3 4 5 6 7)": False, "(0 1)": True}


class Positional(torch.nn.Module):
    def __init__(self, n=8, d=16):
        super().__init__()
        torch.manual_seed(1)
        self.pos_emb = torch.nn.Parameter(torch.randn(n, d))
        self.block = encoder_layer(d)

    def forward(self, x):
        return self.block(x + self.pos_emb)


def test_a_learned_positional_embedding_is_not_proven_and_named():
    module = Positional().double()
    group = groups.build_group("symmetric", n=8)
    proof = prove(module, group, (8, 16))
    assert not any(proof.proven.values())
    note = stop_text("(0 1)", proof.stops["(0 1)"])
    assert note == "not proven for (0 1) at pos_emb (at node add): rows 0 and 1 of pos_emb differ, so P E != E " \
                   "for (0 1)"
    assert not any(numeric_holds(module, group, (8, 16)).values())


def test_an_embedding_with_equal_rows_is_fixed_by_every_permutation():
    module = Positional().double()
    with torch.no_grad():
        module.pos_emb[:] = module.pos_emb[0]
    assert prove(module, groups.build_group("symmetric", n=8), (8, 16)).holds


def conv(padding_mode):
    torch.manual_seed(0)
    return torch.nn.Conv1d(3, 5, 3, padding=1, padding_mode=padding_mode).double()


def test_a_circular_conv1d_is_proved_cyclic_and_not_dihedral():
    layer = conv("circular")
    cyclic = groups.build_group("cyclic", n=16)
    assert prove(layer, cyclic, (2, 3, 16), axis=2).holds
    assert all(numeric_holds(layer, cyclic, (2, 3, 16), axis=2).values())
    dihedral = groups.build_group("dihedral", n=16)
    proof = prove(layer, dihedral, (2, 3, 16), axis=2)
    shift, reflection = dihedral.generator_strings
    assert proof.proven == {shift: True, reflection: False}
    assert proof.stops[reflection].condition.what == "weights"
    assert numeric_holds(layer, dihedral, (2, 3, 16), axis=2) == {shift: True, reflection: False}


def test_a_symmetric_kernel_is_proved_dihedral():
    layer = conv("circular")
    with torch.no_grad():
        layer.weight[:] = layer.weight + layer.weight.flip(-1)
    dihedral = groups.build_group("dihedral", n=16)
    assert prove(layer, dihedral, (3, 16), axis=1).holds
    assert all(numeric_holds(layer, dihedral, (3, 16), axis=1).values())


def test_a_zero_padded_conv1d_is_not_proven():
    layer = conv("zeros")
    cyclic = groups.build_group("cyclic", n=16)
    proof = prove(layer, cyclic, (2, 3, 16), axis=2)
    assert not proof.holds
    stop = next(iter(proof.stops.values()))
    assert (stop.reason, stop.step.kind) == ("no_op_rule", "Conv1d")
    assert not any(numeric_holds(layer, cyclic, (2, 3, 16), axis=2).values())


class DeepSets(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.phi = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8))
        self.rho = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))

    def forward(self, x):
        return self.rho(self.phi(x).sum(dim=0))


class MaxPool(torch.nn.Module):
    def forward(self, x):
        return torch.max(x, dim=0).values


@pytest.mark.parametrize("module", [DeepSets(), MaxPool()], ids=["deepsets", "max-pool"])
def test_pooled_models_are_proved_invariant(module):
    group = groups.build_group("symmetric", n=6)
    proof = prove(module, group, (6, 3), out=Expected("invariant"))
    assert proof.holds
    assert "pooling" in [s.rule for s in proof.steps]
    assert all(numeric_holds(module.double(), group, (6, 3), invariant=True).values())
    # the same output is not what a check of equivariance asks for
    assert not prove(module, group, (6, 3)).holds


class SelfAttention(torch.nn.Module):
    """Theorem 4 written out: softmax(X Wq (X Wk)^T / sqrt d) X Wv."""

    def __init__(self, d=4):
        super().__init__()
        torch.manual_seed(0)
        self.q, self.k, self.v = (torch.nn.Linear(d, d) for _ in range(3))

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-2, -1) / x.shape[-1] ** 0.5
        return torch.softmax(scores, dim=-1) @ self.v(x)


def test_attention_written_out_is_a_contraction_of_point_axes():
    module = SelfAttention().double()
    group = groups.build_group("symmetric", n=6)
    proof = prove(module, group, (6, 4))
    assert proof.holds
    assert "contraction" in [s.rule for s in proof.steps]
    lines = proof_lines(proof)
    assert lines[0] == "SelfAttention [SelfAttention]: the module's traced graph, followed operation by operation"


def test_multihead_attention_moves_its_weights_as_pairs():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(4, 2).double().eval()
    group = groups.build_group("symmetric", n=6)
    flows = [(Flow((0,)), (6, 1, 4))] * 3
    assert trace_proof(mha, group, flows, (Expected("points", (0,)), Expected("pairs", (1, 2)))).holds
    assert not trace_proof(mha, group, flows, (Expected("points", (0,)), Expected("points", (1,)))).holds


class Untraceable(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:              # control flow on a value: fx cannot follow it
            return x
        return -x


def test_an_untraceable_module_is_not_proven_with_the_reason():
    proof = prove(Untraceable(), groups.build_group("symmetric", n=4), (4, 2))
    assert not any(proof.proven.values())
    stop = next(iter(proof.stops.values()))
    assert stop.reason == "untraceable"
    assert "TraceError" in stop.step.path


class Subclassed(torch.nn.Linear):
    """A subclass of a torch module keeps its name, not its rule."""

    def forward(self, x):
        return super().forward(x.roll(1, 0))


def test_rules_cover_torch_classes_not_subclasses():
    torch.manual_seed(0)
    group = groups.build_group("symmetric", n=5)
    assert not prove(Subclassed(3, 3), group, (5, 3)).holds
    assert not prove(torch.nn.Sequential(Subclassed(3, 3)), group, (5, 3)).holds


class Random(torch.nn.Module):
    def forward(self, x):
        return x + torch.randn(1, x.shape[1], dtype=x.dtype) + F.dropout(x, 0.5)


def test_random_operations_have_no_rule():
    proof = prove(Random(), groups.build_group("symmetric", n=4), (4, 3))
    assert not any(proof.proven.values())
    assert {s.step.kind for s in proof.stops.values()} == {"randn"}


def test_the_proof_does_not_run_the_module(monkeypatch):
    """Shapes come from fake tensors: proving at n = 4096 computes no scores (4096 x 4096).  (Watched
    through the class's forward: a hook on the layer would stop the proof.)"""
    from torch._subclasses.fake_tensor import FakeTensor

    layer = encoder_layer()
    seen = []
    forward = torch.nn.TransformerEncoderLayer.forward

    def watched(self, *args, **kwargs):
        output = forward(self, *args, **kwargs)
        seen.append(type(output))
        return output

    monkeypatch.setattr(torch.nn.TransformerEncoderLayer, "forward", watched)
    proof = prove(layer, groups.build_group("symmetric", n=4096), (4096, 1, 16))
    assert proof.holds
    assert seen and all(issubclass(t, FakeTensor) for t in seen)


# --------------------------------------------------------------------------- random modules: soundness

N_D = 4   # the channels of every random module's points


def _point_table(rng, n, keep):
    if keep == "equal":
        return torch.as_tensor(np.tile(rng.standard_normal((1, N_D)), (n, 1)))
    return torch.as_tensor(rng.standard_normal((n, N_D)))


def _pair_matrix(rng, n, keep):
    if keep == "equal":
        return torch.as_tensor(rng.standard_normal() * np.eye(n) + rng.standard_normal() * np.ones((n, n)))
    if keep == "ring":
        M = np.zeros((n, n))
        for i in range(n):
            M[i, (i + 1) % n] = M[(i + 1) % n, i] = 1.0
        return torch.as_tensor(M)
    return torch.as_tensor(rng.standard_normal((n, n)))


OPS = ["linear", "relu", "tanh_square", "bias", "table", "residual_pool", "softmax0", "softmax1", "layer_norm",
       "attention", "mix", "transpose_twice", "reshape", "cat", "einsum", "mask_fill", "sdpa", "mean_keep",
       "max_values", "sigmoid_gate", "expand", "chunk_cat", "unbind_stack",
       # no rule (they do or do not commute; the tracer must not say holds for them)
       "roll", "cumsum", "flip", "index0", "sort", "scramble",
       # in-place writes: the tracer stops at every one, used or not
       "inplace_row", "inplace_all", "augmented_alias"]


class RandomModule(torch.nn.Module):
    """A chain of operations on x of shape (n, N_D), drawn by hypothesis; tables and mixing
    matrices are fixed by every permutation, by a ring's automorphisms, or by nothing."""

    def __init__(self, ops, n, seed, pool):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.ops, self.pool = list(ops), pool
        self.linears = torch.nn.ModuleList(torch.nn.Linear(N_D, N_D) for _ in ops)
        self.merge = torch.nn.Linear(2 * N_D, N_D)
        for k, op in enumerate(ops):
            keep = rng.choice(["equal", "ring", "none"])
            if op == "bias":
                self.register_buffer(f"c{k}", torch.as_tensor(rng.standard_normal((1, N_D))))
            elif op in ("table", "expand", "augmented_alias"):
                self.register_buffer(f"c{k}", _point_table(rng, n, keep))
            elif op in ("mix", "mask_fill", "sdpa"):
                self.register_buffer(f"c{k}", _pair_matrix(rng, n, keep))
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.as_tensor(rng.standard_normal(tuple(p.shape)) / 2))

    def forward(self, x):
        for k, op in enumerate(self.ops):
            c = getattr(self, f"c{k}", None)
            if op == "linear":
                x = self.linears[k](x)
            elif op == "relu":
                x = F.relu(x)
            elif op == "tanh_square":
                x = torch.tanh(x) * x
            elif op == "bias":
                x = x + c
            elif op == "table":
                x = x + c
            elif op == "residual_pool":
                x = x + x.sum(0, keepdim=True)
            elif op == "softmax0":
                x = torch.softmax(x, dim=0)
            elif op == "softmax1":
                x = x.softmax(-1)
            elif op == "layer_norm":
                x = F.layer_norm(x, (N_D,))
            elif op == "attention":
                x = torch.softmax(x @ x.t() / 2, dim=-1) @ self.linears[k](x)
            elif op == "mix":
                x = c @ x
            elif op == "transpose_twice":
                x = x.transpose(0, 1).contiguous().t()
            elif op == "reshape":
                x = x.reshape(x.shape[0], 2, N_D // 2).flatten(1)
            elif op == "cat":
                x = self.merge(torch.cat([x, x.relu()], dim=-1))
            elif op == "einsum":
                x = torch.einsum("ij,jk->ik", torch.softmax(x @ x.T, -1), x)
            elif op == "mask_fill":
                scores = (x @ x.T).masked_fill(c > 0.5, -1e9)
                x = torch.softmax(scores, -1) @ x
            elif op == "sdpa":
                q = x.unsqueeze(0)
                x = F.scaled_dot_product_attention(q, q, q, attn_mask=c)[0]
            elif op == "mean_keep":
                x = x * x.mean(dim=0, keepdim=True)
            elif op == "max_values":
                x = x - x.max(0).values
            elif op == "sigmoid_gate":
                x = x * torch.sigmoid(self.linears[k](x))
            elif op == "roll":
                x = torch.roll(x, 1, 0)
            elif op == "cumsum":
                x = x.cumsum(0)
            elif op == "flip":
                x = x.flip(0)
            elif op == "index0":
                x = x + x[0]
            elif op == "sort":
                x = x.sort(dim=0).values
            elif op == "scramble":
                x = x.reshape(x.shape[1], x.shape[0]).t()
            elif op == "expand":       # the points on axis 1 of the expanded value: c must be fixed
                x = x + (x.expand(x.shape[0], -1, -1) * c).sum(1)
            elif op == "chunk_cat":
                a, b = x.chunk(2, -1)
                x = torch.cat(x.chunk(2, -1), -1) + torch.cat([b, a], -1)
            elif op == "unbind_stack":
                x = torch.stack(x.unbind(1), 0).t()
            elif op == "inplace_row":
                x = x.clone()
                x[0].mul_(2.0)
            elif op == "inplace_all":
                x = x * 1.0
                x.mul_(2.0)
            elif op == "augmented_alias":
                y = x * 1.0
                z = y
                y += c                 # writes into z as well (fx alone would not see it)
                x = z
        return x.sum(0) if self.pool else x


@st.composite
def modules(draw):
    n = draw(st.integers(3, 6))
    ops = draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=5))
    group = draw(st.sampled_from(["symmetric", "cyclic", "dihedral", "ring"]))
    group = groups.automorphism_group(_pair_matrix(None, n, "ring").numpy()) if group == "ring" else \
        groups.build_group(group, n=n)
    return RandomModule(ops, n, draw(st.integers(0, 2**16)), draw(st.booleans())).double().eval(), group, n


def _verdicts(case):
    module, group, n = case
    out = Expected("invariant") if module.pool else Expected("points", (0,))
    proof = trace_proof(module, group, [(Flow((0,)), (n, N_D))], out)
    numeric = numeric_holds(module, group, (n, N_D), invariant=module.pool)
    return proof, numeric


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_whenever_the_tracer_says_holds_the_module_commutes(case):
    proof, numeric = _verdicts(case)
    for generator, proven in proof.proven.items():
        if proven:
            assert numeric[generator], (case[0].ops, generator)


def _unsound(case) -> bool:
    proof, numeric = _verdicts(case)
    return any(proven and not numeric[g] for g, proven in proof.proven.items())


def _search(monkeypatch_target, attribute, replacement):
    """A module the tracer wrongly proves once ``attribute`` of ``monkeypatch_target`` is replaced."""
    patch = pytest.MonkeyPatch()
    patch.setattr(monkeypatch_target, attribute, replacement)
    try:
        return find(modules(), _unsound, settings=settings(max_examples=2000, deadline=None, database=None,
                                                           suppress_health_check=list(HealthCheck)))
    finally:
        patch.undo()


def test_a_rule_for_roll_as_if_elementwise_is_caught():
    case = _search(functions, "UNARY", functions.UNARY | {"roll"})
    assert "roll" in case[0].ops


def test_a_constant_check_that_always_passes_is_caught():
    def never_broken(self, node, const, axes, what=None):
        return frozenset()

    case = _search(trace_module._Context, "fixed_constant", never_broken)
    assert {"table", "mix", "mask_fill", "sdpa"} & set(case[0].ops)


def test_a_reshape_rule_that_forgets_where_an_axis_starts_is_caught():
    def careless(old, new, axes):
        found = [new.index(old[a]) for a in axes if old[a] in new]
        return tuple(found) if len(found) == len(axes) else None

    case = _search(functions, "reshape_axes", careless)
    assert "scramble" in case[0].ops


def test_the_random_modules_reach_both_verdicts():
    """The soundness search means something only if its modules are proved and refused alike."""
    proved = find(modules(), lambda c: len(c[0].ops) >= 3 and _verdicts(c)[0].holds,
                  settings=settings(max_examples=2000, deadline=None, database=None))
    assert proved[0].ops
    def commutes_unproved(case):
        proof, numeric = _verdicts(case)
        return not any(proof.proven.values()) and all(numeric.values())

    assert find(modules(), commutes_unproved, settings=settings(max_examples=2000, deadline=None, database=None))


def test_the_units_know_their_rules():
    assert {"ReLU", "Softmax", "Dropout"} <= units.ELEMENTWISE
