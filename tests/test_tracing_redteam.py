"""The red team's reproducers (round 13) against the tracer: none is proved where it does not commute,
and none makes ``verify_callable`` raise.

Each module is checked through the public API (``method="exact"``: the proof alone speaks) against
the numeric check on float64 inputs: a generator the proof passes must commute numerically.
"""

import warnings

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402
from tests.test_tracing import numeric_holds  # noqa: E402

F = torch.nn.functional


class Fn(torch.nn.Module):
    """``forward(x) = fn(self, x)``, with the keyword tensors as buffers."""

    def __init__(self, fn, **buffers):
        super().__init__()
        self.fn = fn
        for name, value in buffers.items():
            self.register_buffer(name, value)

    def forward(self, x):
        return self.fn(self, x)


def exact(module, shape, axis=0, expect="equivariant", group="symmetric"):
    """verify_callable's verdict and, per generator, whether its exact check passed."""
    group = groups.build_group(group, n=shape[axis]) if isinstance(group, str) else group
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = gdlcheck.verify_callable(module, group, shape=shape, points_axis=axis, expect=expect,
                                          method="exact").to_json()
    return report["verdict"], {c["generator"]: c["passed"] for c in report["checks"]}


def assert_sound(module, shape, axis=0, expect="equivariant"):
    """The proof passes no generator the module does not commute with; returns the proof's checks."""
    module = module.double().eval()
    group = groups.build_group("symmetric", n=shape[axis])
    verdict, passed = exact(module, shape, axis, expect, group)
    numeric = numeric_holds(module, group, shape, axis, invariant=expect == "invariant")
    for generator, ok in passed.items():
        assert not ok or numeric[generator], (generator, verdict)
    return verdict, passed, numeric


def assert_refused(module, shape, axis=0, expect="equivariant"):
    """The module does not commute, and the proof does not say it does."""
    verdict, passed, numeric = assert_sound(module, shape, axis, expect)
    assert not all(numeric.values())
    assert verdict != "holds"
    return passed


# --------------------------------------------------------------------------- U1 expand


def test_expand_moves_the_points_to_the_trailing_aligned_axis():
    torch.manual_seed(0)
    assert_refused(Fn(lambda s, x: (x.expand(5, 5, 3) * s.W).sum(1), W=torch.randn(5, 3)), (5, 3))
    assert_refused(Fn(lambda s, x: (x.unsqueeze(0).expand(x.shape[0], -1, -1) * s.W).sum(1),
                      W=torch.randn(5, 3)), (5, 3))
    assert_refused(Fn(lambda s, x: (x.expand_as(s.B) * s.W).sum(1), B=torch.zeros(5, 5, 3), W=torch.randn(5, 3)),
                   (5, 3))


def test_expand_with_a_fixed_table_is_still_proved():
    """x broadcast over a new leading axis and pooled there again: equivariant, and proved."""
    module = Fn(lambda s, x: x.expand(4, -1, -1).sum(0))
    verdict, passed, numeric = assert_sound(module, (5, 3))
    assert verdict == "holds" and all(numeric.values())


# --------------------------------------------------------------------------- U2 in-place writes


def _zero_row(s, x):
    y = x.clone()
    y[0].zero_()
    return y


def _causal(s, x):
    scores = x @ x.T
    mask = torch.ones_like(scores)
    mask.tril_()                                  # a causal mask, written in place
    return torch.softmax(scores.masked_fill(mask == 0, float("-inf")), -1) @ x


def _add_table(s, x):
    y = x * 1.0
    y.add_(s.P)
    return y


def _augmented_alias(s, x):
    x = x * 1.0
    y = x
    x += s.P                                      # fx alone would trace x = x + P, leaving y as it was
    return y


def _copy_flipped(s, x):
    y = x * 1.0
    y.copy_(x.flip(0))
    return y


def _narrow_mul(s, x):
    y = x * 1.0
    y.narrow(0, 0, 1).mul_(3)
    return y


def _masked_fill(s, x):
    y = x * 1.0
    y.masked_fill_(s.M, 0.0)
    return y


def _out(s, x):
    y = x * 1.0
    torch.add(x, s.P, out=y)
    return y


def _relu_row(s, x):
    y = x * 1.0
    F.relu(y[0], inplace=True)
    return y


class _ReluRow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.nn.ReLU(inplace=True)

    def forward(self, x):
        y = x * 1.0
        self.act(y[0])
        return y


@pytest.mark.parametrize("fn", [_zero_row, _causal, _add_table, _augmented_alias, _copy_flipped, _narrow_mul,
                                _masked_fill, _out, _relu_row], ids=lambda f: f.__name__.strip("_"))
def test_an_in_place_write_stops_the_proof_even_when_its_result_is_unused(fn):
    torch.manual_seed(0)
    mask = torch.zeros(5, 3, dtype=torch.bool)
    mask[0, 0] = True
    assert_refused(Fn(fn, P=torch.randn(5, 3), M=mask), (5, 3))


def test_an_in_place_module_on_a_view_stops_the_proof():
    assert_refused(_ReluRow(), (5, 3))


def test_the_stop_names_the_in_place_write():
    from gdlcheck.tracing import Expected, Flow, trace_proof

    proof = trace_proof(Fn(_zero_row).double(), groups.build_group("symmetric", n=5), [(Flow((0,)), (5, 3))],
                        Expected("points", (0,)))
    assert not any(proof.proven.values())
    assert {s.step.kind for s in proof.stops.values()} == {"in-place zero_"}


# --------------------------------------------------------------------------- U3 split dims


def _unbind_stack(s, x):
    a, b, c, d = x.unbind(1)
    return torch.stack([a, b, c, d], 0)


def test_unbind_reads_its_dim_from_the_second_argument():
    assert_refused(Fn(_unbind_stack), (4, 4, 3), axis=1)
    assert_refused(Fn(lambda s, x: torch.stack(torch.unbind(x, 1), 0)), (4, 4, 3), axis=1)


@pytest.mark.parametrize("split", [lambda x: x.chunk(2, 1), lambda x: torch.chunk(x, 2, 1), lambda x: x.split(2, 1),
                                   lambda x: torch.split(x, 2, 1), lambda x: x.tensor_split(2, 1),
                                   lambda x: x.split([2, 2], dim=1)])
def test_every_split_keeps_points_on_a_free_axis_and_refuses_them_on_a_cut_one(split):
    """x (n, 4, 3) points on axis 0, cut along axis 1: proved; points on axis 1: not proved."""
    def glue(s, x):
        parts = split(x)
        return torch.cat([parts[1], parts[0]], 1)

    verdict, _, numeric = assert_sound(Fn(glue), (4, 4, 3), axis=0)
    assert verdict == "holds" and all(numeric.values())
    assert_refused(Fn(glue), (4, 4, 3), axis=1)


# --------------------------------------------------------------------------- C1 cat of one tuple node


def test_cat_and_stack_of_a_split_node_are_followed():
    for fn, shape in [(lambda s, x: torch.cat(x.chunk(2, -1), -1), (5, 4)),
                      (lambda s, x: torch.stack(x.unbind(1), 1), (5, 4, 3)),
                      (lambda s, x: torch.cat(torch.split(x, 1, -1), dim=-1), (5, 4))]:
        verdict, _, numeric = assert_sound(Fn(fn), shape)
        assert verdict == "holds" and all(numeric.values())
    assert_refused(Fn(lambda s, x: torch.stack(x.unbind(1), 0)), (4, 4, 3), axis=1)


# --------------------------------------------------------------------------- a rule that raises


def test_a_rule_that_raises_is_a_stop_at_its_node_not_a_crash(monkeypatch):
    from gdlcheck.tracing import Expected, Flow, functions, trace_proof

    def broken(*args, **kwargs):
        raise IndexError("a rule's bug")

    monkeypatch.setattr(functions, "_reduce", broken)
    module = Fn(lambda s, x: x - x.mean(0)).double()
    proof = trace_proof(module, groups.build_group("symmetric", n=5), [(Flow((0,)), (5, 3))], Expected("points", (0,)))
    assert not any(proof.proven.values())
    stop = next(iter(proof.stops.values()))
    assert stop.step.path == "mean" and "rule_error: IndexError" in stop.step.kind
    verdict, passed, numeric = assert_sound(module, (5, 3))
    assert verdict != "holds" and all(numeric.values())


def test_a_walk_that_raises_is_not_proven(monkeypatch):
    from gdlcheck.tracing import trace as trace_module

    def broken(self, result, outputs):
        raise KeyError("dim0")

    monkeypatch.setattr(trace_module._Context, "conclude", broken)
    verdict, passed, _ = assert_sound(Fn(lambda s, x: x.relu()), (5, 3))
    assert verdict != "holds" and not any(passed.values())


# --------------------------------------------------------------------------- U4, U5, S1 attention


class _Attention(torch.nn.Module):
    def __init__(self, call, batch_first=False):
        super().__init__()
        torch.manual_seed(0)
        self.mha = torch.nn.MultiheadAttention(8, 4, batch_first=batch_first)
        self.call = call

    def forward(self, x):
        return self.call(self.mha, x)


def test_per_head_weights_of_an_unbatched_call_move_on_their_last_two_axes():
    """(h, L, S) with h == n == 4: summed over the queries, the keys' axis 1 moves, not axis 0."""
    assert_refused(_Attention(lambda a, x: a(x, x, x, average_attn_weights=False)[1].sum(1)), (4, 8))
    verdict, _, numeric = assert_sound(
        _Attention(lambda a, x: a(x, x, x, average_attn_weights=False)[1].sum(0).sum(-1)), (4, 8))
    assert verdict == "holds" and all(numeric.values())


@pytest.mark.parametrize("batch_first", [False, True])
def test_per_head_weights_of_a_batched_call_move_on_their_last_two_axes(batch_first):
    """(N, h, L, S) summed over the batch and the queries: (h, S), the keys on axis 1."""
    shape, axis = ((2, 4, 8), 1) if batch_first else ((4, 2, 8), 0)
    weights = _Attention(lambda a, x: a(x, x, x, average_attn_weights=False)[1].sum(-2).sum(0), batch_first)
    if batch_first:
        verdict, _, numeric = assert_sound(weights, shape, axis)
        assert verdict == "holds" and all(numeric.values())
    else:
        assert_refused(weights, shape, axis)


def test_mha_by_keywords_is_proved():
    verdict, _, numeric = assert_sound(_Attention(lambda a, x: a(query=x, key=x, value=x)[0]), (5, 8))
    assert verdict == "holds" and all(numeric.values())


def test_mha_without_weights_is_proved():
    """need_weights=False returns (output, None): the None has no entries to move (red-team S1)."""
    for call in (lambda a, x: a(x, x, x, need_weights=False)[0],
                 lambda a, x: a(x, x, x, need_weights=False)[0] + a(x, x, x)[1] @ x):
        verdict, _, numeric = assert_sound(_Attention(call), (5, 8))
        assert verdict == "holds" and all(numeric.values())


def test_sdpa_with_broadcast_keys_moves_the_queries_axis_of_the_result():
    torch.manual_seed(0)
    module = Fn(lambda s, x: F.scaled_dot_product_attention(x, s.K, s.V), K=torch.randn(4, 5, 3),
                V=torch.randn(4, 5, 3))
    assert_refused(module, (4, 3))
    batched = Fn(lambda s, x: F.scaled_dot_product_attention(x, s.K, s.V).transpose(0, 1), K=torch.randn(4, 5, 3),
                 V=torch.randn(4, 5, 3))
    verdict, _, numeric = assert_sound(batched, (4, 3))
    assert verdict == "holds" and all(numeric.values())


# --------------------------------------------------------------------------- C2..C5 crashes


def test_a_constant_with_a_broadcast_axis_is_fixed_along_it():
    torch.manual_seed(0)
    verdict, _, numeric = assert_sound(Fn(lambda s, x: torch.einsum("ij,ij->ij", x, s.c), c=torch.randn(1, 3)),
                                       (5, 3))
    assert verdict == "holds" and all(numeric.values())
    for mask in (torch.randn(1, 5), torch.randn(5, 1)):
        assert_sound(Fn(lambda s, x: F.scaled_dot_product_attention(x, x, x, attn_mask=s.m), m=mask), (2, 5, 4),
                     axis=1)
    assert_refused(Fn(lambda s, x: F.scaled_dot_product_attention(x, x, x, attn_mask=s.m), m=torch.randn(1, 5)),
                   (2, 5, 4), axis=1)


def test_keyword_arguments_are_read_by_their_names():
    torch.manual_seed(0)
    for module in (Fn(lambda s, x: torch.swapaxes(x, axis0=0, axis1=1).T),
                   Fn(lambda s, x: F.linear(input=x, weight=s.w), w=torch.randn(2, 3)),
                   Fn(lambda s, x: F.layer_norm(input=x, normalized_shape=(3,)))):
        verdict, _, numeric = assert_sound(module, (5, 3))
        assert verdict == "holds" and all(numeric.values())


# --------------------------------------------------------------------------- U6 rules by object, U7 random


@torch.fx.wrap
def relu(x):
    """A function of the user's named like torch's, kept as one call by fx."""
    return x.roll(1, 0)


def test_a_wrapped_function_named_like_a_torch_function_gets_no_rule():
    assert_refused(Fn(lambda s, x: relu(x)), (5, 3))
    from gdlcheck.tracing import Expected, Flow, trace_proof

    proof = trace_proof(Fn(lambda s, x: relu(x)), groups.build_group("symmetric", n=5), [(Flow((0,)), (5, 3))],
                        Expected("points", (0,)))
    assert {s.step.kind for s in proof.stops.values()} == {f"{__name__}.relu"}


def test_torch_functions_are_still_known_by_their_objects():
    from gdlcheck.tracing import functions

    class Node:
        def __init__(self, target):
            self.target = target

    import operator
    for target, name in [(torch.relu, "relu"), (F.relu, "relu"), (torch.Tensor.relu, "relu"), (operator.add, "add"),
                         (F.linear, "linear"), (torch.cat, "cat"), (getattr, "getattr"), (operator.getitem, "getitem"),
                         ("relu", "relu")]:
        assert functions.name_of(Node(target)) == name


@pytest.mark.parametrize("noise", [lambda s, x: torch.ones(x.shape[1], dtype=x.dtype).cauchy_(),
                                   lambda s, x: F.gumbel_softmax(s.z),
                                   lambda s, x: torch.binomial(s.count, s.p)])
def test_random_samplers_on_constants_are_not_constants(noise):
    module = Fn(lambda s, x: x * noise(s, x), z=torch.zeros(3), count=torch.full((3,), 10.0),
                p=torch.full((3,), 0.5))
    assert_refused(module, (5, 3))


# --------------------------------------------------------------------------- S3 aliases of supported calls


def test_a_full_slice_and_the_axis_keyword_are_followed():
    for fn, expect in [(lambda s, x: x[0:x.shape[0]], "equivariant"), (lambda s, x: x[0:5, :2], "equivariant"),
                       (lambda s, x: x.sum(axis=0), "invariant")]:
        verdict, _, numeric = assert_sound(Fn(fn), (5, 3), expect=expect)
        assert verdict == "holds" and all(numeric.values())


def test_a_slice_that_drops_points_is_not_proved():
    assert_refused(Fn(lambda s, x: x[1:].sum(0)), (5, 3), expect="invariant")


def test_an_unchanged_tensor_input_is_a_constant_of_the_proof():
    class Given(torch.nn.Module):
        def forward(self, x, scale):
            return x * scale

    inputs = ["points", gdlcheck.unchanged(torch.ones(3, dtype=torch.float64))]
    report = gdlcheck.verify_callable(Given(), "symmetric", shape=(5, 3), inputs=inputs, method="exact").to_json()
    assert report["verdict"] == "holds"
    table = ["points", gdlcheck.unchanged(torch.randn(5, 3, dtype=torch.float64))]
    report = gdlcheck.verify_callable(Given(), "symmetric", shape=(5, 3), inputs=table, method="exact").to_json()
    assert report["verdict"] != "holds"


# --------------------------------------------------------------------------- round 2: R1 hooks


def _hooked_linear():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 3)
    lin.register_forward_hook(lambda m, i, o: o.roll(1, 0))
    return lin


def _pre_hooked():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 3)
    lin.register_forward_pre_hook(lambda m, i: (i[0].flip(0),))
    return torch.nn.Sequential(lin, torch.nn.ReLU())


def _own_forward():
    relu = torch.nn.ReLU()
    relu.forward = lambda x: x.roll(1, 0)
    return torch.nn.Sequential(relu)


def _hooked_root():
    root = Fn(lambda s, x: x * 2)
    root.register_forward_hook(lambda m, i, o: o.roll(1, 0))
    return root


def _kwargs_hook():
    lin = torch.nn.Linear(3, 3)
    lin.register_forward_hook(lambda m, a, k, o: o.flip(0), with_kwargs=True)
    return torch.nn.Sequential(lin)


def _hooked_inside_a_unit():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(3, 1, dim_feedforward=4, dropout=0.0)
    layer.linear2.register_forward_hook(lambda m, i, o: o.roll(1, 0))
    return layer


@pytest.mark.parametrize("build", [_hooked_linear, _pre_hooked, _own_forward, _hooked_root, _kwargs_hook,
                                   _hooked_inside_a_unit],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_hooked_module_or_its_own_forward_is_not_proved(build):
    assert_refused(build(), (5, 3))


def test_a_global_forward_hook_stops_the_proof():
    handle = torch.nn.modules.module.register_module_forward_hook(
        lambda m, i, o: o.roll(1, 0) if isinstance(m, torch.nn.Linear) else o)
    try:
        torch.manual_seed(0)
        assert_refused(torch.nn.Sequential(torch.nn.Linear(3, 3)), (5, 3))
    finally:
        handle.remove()
    verdict, _, numeric = assert_sound(torch.nn.Sequential(torch.nn.Linear(3, 3)), (5, 3))
    assert verdict == "holds" and all(numeric.values())


# --------------------------------------------------------------------------- round 2: R2..R5


class _Eleven(torch.nn.Module):
    def forward(self, a0, a1, x, a3, a4, a5, a6, a7, a8, a9, a10):
        return x * a10


def test_eleven_positional_inputs_are_matched_in_numeric_order():
    inputs = [1.0, 1.0, "points"] + [1.0] * 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = gdlcheck.verify_callable(_Eleven(), "symmetric", shape=(5, 3), inputs=inputs, expect="invariant",
                                          method="exact").to_json()
        assert report["verdict"] != "holds"
        report = gdlcheck.verify_callable(_Eleven(), "symmetric", shape=(5, 3), inputs=inputs, method="exact").to_json()
    assert report["verdict"] == "holds"


@pytest.mark.parametrize("fn", [lambda s, x: (x.unbind(0),), lambda s, x: [x.unbind(0)],
                                lambda s, x: (x.split(1, 0),)], ids=["tuple", "list", "split"])
def test_an_output_holding_a_split_node_is_not_a_constant(fn):
    x = torch.randn(5, 3, dtype=torch.float64)
    rows = torch.stack(fn(None, x)[0])
    assert not torch.equal(torch.stack(fn(None, x.roll(1, 0))[0]), rows)   # the rows come back permuted
    verdict, passed = exact(Fn(fn).double(), (5, 3), expect="invariant")
    assert verdict != "holds" and not any(passed.values())


@pytest.mark.parametrize("fn", [lambda s, x: x[True].squeeze(0).movedim(0, 2),
                                lambda s, x: x[True, ...].squeeze(0).movedim(0, 2),
                                lambda s, x: x[None, True].squeeze(0).squeeze(0).movedim(0, 2)],
                         ids=["true", "true-ellipsis", "none-true"])
def test_a_bool_index_adds_an_axis(fn):
    assert_refused(Fn(fn), (5, 5, 5), axis=2)
    verdict, _, numeric = assert_sound(Fn(fn), (5, 5, 5), axis=0)   # x.movedim(0, 2): points on axis 2 ...
    assert not all(numeric.values())                                 # ... so not on axis 0
    verdict, _, numeric = assert_sound(Fn(lambda s, x: fn(s, x).movedim(2, 0)), (5, 5, 5), axis=0)
    assert verdict == "holds" and all(numeric.values())


def test_stack_cat_and_unbind_read_the_axis_keyword():
    assert_refused(Fn(lambda s, x: torch.stack([x * (k + 1) for k in range(5)], axis=1).transpose(0, 1)), (5, 3))
    assert_refused(Fn(lambda s, x: torch.stack(torch.unbind(x, axis=1), 0)), (5, 5, 3), axis=1)
    for fn in (lambda s, x: torch.stack([x, 2 * x], axis=1), lambda s, x: torch.cat([x, x], axis=1),
               lambda s, x: torch.stack(torch.unbind(x, axis=1), axis=1), lambda s, x: torch.chunk(x, 1, axis=0)[0]):
        verdict, _, numeric = assert_sound(Fn(fn), (5, 3, 3))
        assert verdict == "holds" and all(numeric.values())


# --------------------------------------------------------------------------- round 2: R7 writes


def _aten_add(s, x):
    y = x * 1.0
    torch.ops.aten.add_.Tensor(y, s.P)
    return y


def _aten_copy(s, x):
    y = x * 1.0
    torch.ops.aten.copy_.default(y, x.flip(0))
    return y


def _set_data(s, x):
    y = x * 1.0
    y.data = x.flip(0)
    return y


def _view_iadd(s, x):
    y = x * 1.0
    t = y.T
    t += s.P.T
    return y


@pytest.mark.parametrize("fn", [_aten_add, _aten_copy, _set_data, _view_iadd], ids=lambda f: f.__name__.strip("_"))
def test_writes_through_aten_overloads_and_attributes_stop_the_proof(fn):
    torch.manual_seed(0)
    assert_refused(Fn(fn, P=torch.randn(5, 3)), (5, 3))


def test_a_non_mutating_aten_overload_is_not_a_write():
    from gdlcheck.tracing import functions

    assert functions._mutable_op(torch.ops.aten.add_.Tensor, {})
    assert functions._mutable_op(torch.ops.aten.add_, {})
    assert not functions._mutable_op(torch.ops.aten.add.Tensor, {})
    assert not functions._mutable_op(torch.ops.aten.add, {})
    assert functions._mutable_op(torch.ops.aten.add, {"out": object()})


# --------------------------------------------------------------------------- round 2: R8 calls on fixed values

_COUNTER = [0]


@torch.fx.wrap
def _stateful(p):
    _COUNTER[0] += 1
    return p * _COUNTER[0]


@pytest.mark.parametrize("fn", [lambda s, x: torch._standard_gamma(x.abs().sum(0) + 1),
                                lambda s, x: torch._sample_dirichlet(x.abs().sum(0) + 1),
                                lambda s, x: torch.ops.aten.bernoulli.p(x.sum(0).sigmoid(), 0.5),
                                lambda s, x: torch.ops.aten.native_dropout(x.sum(0), 0.5, True)[0],
                                lambda s, x: torch.ops.aten.randn_like.default(x.sum(0)),
                                lambda s, x: torch._C._nn.rrelu_with_noise(x.sum(0), x.new_zeros(3), training=True),
                                lambda s, x: _stateful(x.sum(0))],
                         ids=["gamma", "dirichlet", "bernoulli", "native_dropout", "randn_like", "rrelu", "stateful"])
def test_an_unknown_call_on_values_g_leaves_alone_is_not_invariant(fn):
    verdict, passed, numeric = assert_sound(Fn(fn), (5, 3), expect="invariant")
    assert verdict != "holds" and not any(passed.values())


def test_a_known_call_on_values_g_leaves_alone_is_still_invariant():
    verdict, _, numeric = assert_sound(Fn(lambda s, x: torch.tanh(x.sum(0)).exp().cumsum(0)), (5, 3),
                                       expect="invariant")
    assert verdict == "holds" and all(numeric.values())


# --------------------------------------------------------------------------- round 2: R6 a 1-D attention mask

_INVOLUTIONS = [(1, 0, 2, 3, 4), (0, 1, 3, 2, 4)]


def test_a_one_dimensional_attention_mask_lies_on_the_keys():
    """A key mask (S,) must be fixed as P m = m, not checked under g twice (which every involution passes)."""
    torch.manual_seed(0)
    group = groups.from_generators(5, _INVOLUTIONS)
    for mask in (torch.randn(5), torch.tensor([True, False, True, True, False])):
        module = Fn(lambda s, x: F.scaled_dot_product_attention(x, x, x, attn_mask=s.m), m=mask).double()
        verdict, passed = exact(module, (5, 4), group=group)
        numeric = numeric_holds(module.eval(), group, (5, 4), 0)
        assert not all(numeric.values()) and verdict != "holds"
        assert all(numeric[g] for g, ok in passed.items() if ok)
    fixed = Fn(lambda s, x: F.scaled_dot_product_attention(x, x, x, attn_mask=s.m), m=torch.tensor([1., 1., 2., 2., 0.]))
    verdict, passed = exact(fixed.double(), (5, 4), group=group)
    assert verdict == "holds" and all(numeric_holds(fixed.double().eval(), group, (5, 4), 0).values())


def test_values_given_in_a_keyword_list_are_followed():
    """torch.cat(tensors=[...]): the pieces are in a keyword, not a position (found after round 2)."""
    assert_refused(Fn(lambda s, x: torch.cat(tensors=[x, x.flip(0)], dim=1)), (5, 3), expect="invariant")
    verdict, _, numeric = assert_sound(Fn(lambda s, x: torch.cat(tensors=[x, x], dim=1).sum(0)), (5, 3),
                                       expect="invariant")
    assert verdict == "holds" and all(numeric.values())


class _FractionalPool(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = torch.nn.FractionalMaxPool2d(2, output_size=(3, 3))

    def forward(self, x):
        return self.pool(x.sum(0).reshape(1, 1, 7, 7))


def test_a_fractional_max_pool_draws_in_eval_mode_too():
    """Its pooling regions are drawn on every call: of a pooled (fixed) value it is still not invariant."""
    module = _FractionalPool().double().eval()
    x = torch.randn(5, 49, dtype=torch.float64)
    torch.manual_seed(0)
    assert any(not torch.equal(module(x), module(x)) for _ in range(20))
    verdict, passed = exact(module, (5, 49), expect="invariant")
    assert verdict != "holds" and not any(passed.values())
