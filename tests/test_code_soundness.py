"""The tracer proves torch modules soundly: whenever it says a generator commutes, the module does.

Random modules built from operations with and without rules, and with ordinary Python around
their computation (defaulted arguments, isinstance / type / try branches, ``*args``, a class-level
``__call__``, buffer writes, counters, Python's and numpy's randomness), against cyclic, dihedral,
symmetric and ring groups: when the proof says holds, f(g x) = g f(x) (or f(g x) = f(x)) to 1e-10
in float64 on several inputs, from the second call on too.  Rules broken on purpose, by patching
the rule table, are caught by the same search.
"""

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

# every test here runs torch (the marker: pytest -m "not slow" is the loop without it)
pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402
from gdlcheck.code.prover import table, walk  # noqa: E402
from gdlcheck.code.prover.rules import elementwise, layout  # noqa: E402
from tests.test_proof_soundness import RowZeroBias  # noqa: E402  (cause 4: a subclass's own dispatch)

F = torch.nn.functional
aten = torch.ops.aten


def prove(module, group, shape, axis=0, expect="equivariant", inputs=None, **kw):
    """The proof ``verify_callable`` makes (``method="exact"``: no trials)."""
    result = gdlcheck.verify_callable(
        module, group, shape=shape, points_axis=axis, expect=expect, inputs=inputs, method="exact", **kw
    )
    return result.proof


def numeric_holds(module, group, shape, axis=0, invariant=False, trials=3, seed=0) -> dict:
    """Per generator: f(x[g]) against f(x)[g] (or f(x)) on random float64 inputs, each after a
    first call (a module that changes on its first call is caught on its later ones)."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    with torch.no_grad():
        for name, s in zip(group.generator_strings, group.gen_arrays()):
            index = torch.as_tensor(np.argsort(np.asarray(s)), dtype=torch.long)
            ok = True
            for _ in range(trials):
                x = torch.randn(shape, dtype=torch.float64, generator=gen)
                module(x)
                y = module(x)
                moved = module(x.index_select(axis, index))
                want = y if invariant else y.index_select(axis, index)
                scale = max(1.0, float(want.abs().max()))
                ok &= bool((moved - want).abs().max() <= 1e-10 * scale)
            out[name] = ok
    return out


# --------------------------------------------------------------------------- random modules: soundness

N_D = 4  # the channels of every random module's points


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


OPS = [
    "linear",
    "relu",
    "tanh_square",
    "bias",
    "table",
    "residual_pool",
    "softmax0",
    "softmax1",
    "layer_norm",
    "attention",
    "mix",
    "transpose_twice",
    "reshape",
    "cat",
    "einsum",
    "mask_fill",
    "sdpa",
    "mean_keep",
    "max_values",
    "sigmoid_gate",
    "expand",
    "chunk_cat",
    "unbind_stack",
    # no rule (they do or do not commute; the tracer must not say holds for them)
    "roll",
    "cumsum",
    "flip",
    "index0",
    "sort",
    "scramble",
    # in-place writes: followed when nothing else sees them, else the views are unknown
    "inplace_row",
    "inplace_all",
    "augmented_alias",
    # Python around the computation: the call takes the path it takes
    "default_mask",
    "isinstance_branch",
    "type_branch",
    "try_float",
    "counter",
    "buffer_write",
    "python_random",
    "numpy_random",
    "class_name",
]
# issue 28's numbered causes, each an operation of the search (test_proof_soundness.py has each at its size)
SELECTIONS = ["mask_row", "nonzero_row", "where_row", "two_masks", "mask_sum"]  # 1: selections by moving values
COUNTERS = ["np_counter", "namespace_counter", "data_rebind", "hooks_counter", "deep_counter", "class_counter"]  # 2
FOREIGN = ["subclass_bias", "urandom", "fresh_tensor", "tensorbase_read", "storage_read", "out_buffer"]  # 4, 5, 6
OPS += SELECTIONS + COUNTERS + FOREIGN
# the operations that make the next calls differ (state), and those that read moving values in Python
STATE_OPS = {"counter", "buffer_write", "python_random", "numpy_random", *COUNTERS}
VALUE_OPS = {"try_float", "tensorbase_read", "storage_read"}


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
            elif op in ("mix", "mask_fill", "sdpa", "default_mask"):
                self.register_buffer(f"c{k}", _pair_matrix(rng, n, keep))
            elif op in ("buffer_write", "data_rebind"):
                self.register_buffer(f"c{k}", torch.zeros(()))
            elif op == "subclass_bias":
                self.register_buffer(f"c{k}", torch.ones(N_D))
        self.calls = 0
        self.array = np.zeros(1)  # counters the state check must see (cause 2)
        self.namespace = __import__("types").SimpleNamespace(k=0)
        self.calls_hooks = 0  # a name that ends in "hooks"
        self.deep = {"a": {"b": {"c": 0}}}  # three dicts deep
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
            elif op == "expand":  # the points on axis 1 of the expanded value: c must be fixed
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
                y += c  # writes into z as well (fx alone would not see it)
                x = z
            elif op == "default_mask":  # the mask=None default of a real call takes the buffer
                x = self._masked(x, None, c)
            elif op == "isinstance_branch":
                x = x * 2 if isinstance(x, torch.Tensor) else x.flip(0)
            elif op == "type_branch":
                x = x.relu() if type(x) is torch.Tensor else x.flip(0)
            elif op == "try_float":
                try:
                    x = x.flip(0) if float(x[0, 0]) > 10.0 else x
                except Exception:
                    x = x.roll(1, 0)
            elif op == "counter":
                self.calls += 1
                x = x.roll(1, 0) if self.calls > 3 else x
            elif op == "buffer_write":
                c += 1
                x = x + c
            elif op == "python_random":
                x = x + random.random()
            elif op == "numpy_random":
                x = x * float(np.random.rand())
            elif op == "class_name":
                x = x.tanh() if x.__class__.__name__ == "Tensor" else x.flip(0)
            else:
                x = self._cause(op, x, c)
        return x.sum(0) if self.pool else x

    def _cause(self, op, x, c):
        """Issue 28's numbered causes: the first row a moving threshold keeps (not equivariant), an
        order-blind sum of it (equivariant), counters the state check must see (add row 0 after 3
        calls), a subclass constant, random numbers made without torch, values read through the
        C type or a storage, and an out= buffer (equivariant)."""
        n = x.shape[0]
        if op in ("mask_row", "nonzero_row", "where_row", "two_masks"):
            mask = x[:, 0] > x[:, 0].sort().values[n - 3]  # the top two rows
            if op == "mask_row":
                return x + x[mask][0]
            if op == "nonzero_row":
                return x + x.index_select(0, torch.nonzero(mask)[:1, 0])
            if op == "where_row":
                return x + x[torch.where(mask)[0][:1]]
            other = x[:, 1] > x[:, 1].sort().values[n - 3]
            return x + x[mask][0] + x[other][0]
        if op == "mask_sum":
            return x + x[x[:, 0] > 0].sum(0)
        if op in COUNTERS:
            return x + x[0] if self._tick(op, c) > 3 else x
        if op == "subclass_bias":
            return x + c.as_subclass(RowZeroBias)
        if op == "urandom":
            noise = torch.frombuffer(bytearray(__import__("os").urandom(x.shape[1])), dtype=torch.uint8)
            return x + noise.to(x.dtype)
        if op == "fresh_tensor":  # past the first 4,096 numbers only
            fresh = [0.0] * 4096 + np.random.default_rng().standard_normal(N_D).tolist()
            return x + torch.tensor(fresh, dtype=x.dtype)[4096:]
        if op == "tensorbase_read":
            return x * torch._C.TensorBase.tolist(x[0, :1])[0]
        if op == "storage_read":
            return x + x.contiguous().untyped_storage().tolist()[0]
        buffer = torch.empty_like(x)  # out_buffer
        torch.mul(x, 2.0, out=buffer)
        return buffer

    def _tick(self, op, c) -> int:
        if op == "np_counter":
            self.array += 1
            return int(self.array[0])
        if op == "namespace_counter":
            self.namespace.k += 1
            return self.namespace.k
        if op == "data_rebind":  # the same buffer object, new values
            c.data = c.data + 1
            return int(c)
        if op == "hooks_counter":
            self.calls_hooks += 1
            return self.calls_hooks
        if op == "deep_counter":
            self.deep["a"]["b"]["c"] += 1
            return self.deep["a"]["b"]["c"]
        type(self).count += 1  # class_counter, read through type(self)
        return type(self).count

    def _masked(self, x, mask=None, c=None):
        if mask is None:
            mask = c > 0.5
        scores = (x @ x.T).masked_fill(mask, -1e9)
        return torch.softmax(scores, -1) @ x


@st.composite
def modules(draw):
    n = draw(st.integers(3, 6))
    ops = draw(st.lists(st.sampled_from(OPS), min_size=1, max_size=5))
    group = draw(st.sampled_from(["symmetric", "cyclic", "dihedral", "ring"]))
    group = (
        groups.automorphism_group(_pair_matrix(None, n, "ring").numpy())
        if group == "ring"
        else groups.build_group(group, n=n)
    )
    cls = type("RandomModule", (RandomModule,), {"count": 0})  # a class of its own: its counter starts at 0
    return cls(ops, n, draw(st.integers(0, 2**16)), draw(st.booleans())).double().eval(), group, n


def _proof(case):
    module, group, n = case
    return prove(module, group, (n, N_D), expect="invariant" if module.pool else "equivariant")


def _numeric(case) -> dict:
    """The trials, run after the proof (a module that changes on its calls is proved first, as before)."""
    module, group, n = case
    return numeric_holds(module, group, (n, N_D), invariant=module.pool)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_whenever_the_tracer_says_holds_the_module_commutes(case):
    from gdlcheck.code.prover import prove as prover

    with pytest.MonkeyPatch.context() as patch:  # the guards and rules alone, the stronger claim: the
        patch.setattr(prover, "_disagreement", lambda *args, **kwargs: None)  # moved call only adds stops
        proof = _proof(case)
    if not any(proof.proven.values()):
        return  # nothing proven: no claim for the trials to contradict (they would cost as much as the proof)
    numeric = _numeric(case)
    for generator, proven in proof.proven.items():
        if proven:
            assert numeric[generator], (case[0].ops, generator)


@pytest.mark.parametrize("op", [op for op in SELECTIONS + COUNTERS + FOREIGN if op not in ("mask_sum", "out_buffer")])
def test_each_cause_of_issue_28_alone_is_not_proved_by_the_guards(op, monkeypatch):
    """Each numbered cause, as the search draws it, with the moved call's cross-check off: the
    guards alone stop it (the cross-check is the net, not the argument)."""
    from gdlcheck.code.prover import prove as prover

    monkeypatch.setattr(prover, "_disagreement", lambda *args, **kwargs: None)
    n = 6
    for seed in range(3):
        cls = type("RandomModule", (RandomModule,), {"count": 0})
        case = (cls([op], n, seed, False).double().eval(), groups.build_group("symmetric", n=n), n)
        assert not any(_proof(case).proven.values()), (op, seed)
    assert not all(_numeric(case).values()), op  # the module does not commute: the test means something


def test_the_equivariant_use_out_buffer_stays_proved():
    cls = type("RandomModule", (RandomModule,), {"count": 0})
    case = (cls(["out_buffer"], 6, 0, False).double().eval(), groups.build_group("symmetric", n=6), 6)
    assert _proof(case).holds and all(_numeric(case).values())


def test_a_sum_of_a_selection_by_the_points_values_is_equivariant_and_not_proved():
    """mask_sum (x + x[mask].sum(0)) commutes, but the selection's size is this draw's: code that
    reads it (k = x[mask].shape[0]; if k == 5: ...) takes another path for another draw, which
    neither the walk nor the moved call (a moved input keeps the count) sees."""
    cls = type("RandomModule", (RandomModule,), {"count": 0})
    case = (cls(["mask_sum"], 6, 0, False).double().eval(), groups.build_group("symmetric", n=6), 6)
    assert not any(_proof(case).proven.values()) and all(_numeric(case).values())


class DropAgreeing(torch.nn.Module):
    """Message passing that drops the edges whose endpoints agree after a cast (cause 3)."""

    CASTS = {
        "int8": torch.int8,
        "uint8": torch.uint8,
        "int16": torch.int16,
        "int32": torch.int32,
        "bool": torch.bool,
        "half": torch.half,
        "float": torch.float32,
        "long": torch.long,
    }

    def __init__(self, cast):
        super().__init__()
        self.cast = cast

    def forward(self, x, edge_index):
        row, col = edge_index
        dtype = self.CASTS[self.cast]
        keep = row.to(dtype) != col.to(dtype)
        return torch.zeros_like(x).index_add(0, col[keep], x[row[keep]])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(257, 320), st.sampled_from(sorted(DropAgreeing.CASTS)), st.integers(0, 60), st.integers(0, 99))
def test_whenever_labels_cast_are_proved_the_message_passing_commutes(n, cast, chords, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, chords)
    s = np.arange(n)
    ei = np.concatenate([np.stack([s, (s + 1) % n]), np.stack([a, (a + 256) % n])], axis=1)  # 256 apart: int8 agrees
    ei = np.concatenate([ei, ei[::-1]], axis=1)
    module = DropAgreeing(cast)
    result = gdlcheck.verify_callable(
        module, "symmetric", shape=(n, 2), inputs=["points", gdlcheck.graph(ei)], method="exact"
    )
    if result.verdict != "holds":
        return
    x = torch.as_tensor(rng.standard_normal((n, 2)))
    g = rng.permutation(n)  # point j moves to g[j]
    moved_x = torch.empty_like(x)
    moved_x[torch.as_tensor(g)] = x
    with torch.no_grad():
        want = torch.empty_like(x)
        want[torch.as_tensor(g)] = module(x, torch.as_tensor(ei))
        got = module(moved_x, torch.as_tensor(g[ei]))
    assert torch.allclose(got, want, rtol=1e-12, atol=1e-12), (n, cast, chords)


class ConvMax(torch.nn.Module):
    """A circular convolution over the points, then their max (cause 7): invariant under the shift,
    and a transposition (0 1) rarely moves the maximum; a random permutation does."""

    def __init__(self, taps):
        super().__init__()
        self.taps = [float(t) for t in taps]

    def forward(self, x):
        a, b, c = self.taps
        return (a * x + b * torch.roll(x, 1, 0) + c * torch.roll(x, -1, 0)).amax(0)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(64, 200), st.integers(0, 99))
def test_the_trials_see_the_whole_group(n, seed):
    """The trials alone (``method="numeric"``: no proof, no moved call) apply a random element."""
    module = ConvMax(np.random.default_rng(seed).standard_normal(3))
    result = gdlcheck.verify_callable(module, "symmetric", shape=(n, 1), expect="invariant", method="numeric")
    assert result.verdict == "fails", (n, seed)


def _unsound(case) -> bool:
    proof = _proof(case)
    if not any(proof.proven.values()):
        return False
    numeric = _numeric(case)
    return any(proven and not numeric[g] for g, proven in proof.proven.items())


def _search(monkeypatch_target, attribute, replacement):
    """A module the tracer wrongly proves once ``attribute`` of ``monkeypatch_target`` is replaced."""
    from gdlcheck.code.prover import prove

    patch = pytest.MonkeyPatch()
    patch.setattr(monkeypatch_target, attribute, replacement)
    # the rules and the walk alone: the moved call's numeric cross-check would catch the mutant too
    patch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    try:
        return find(
            modules(),
            _unsound,
            settings=settings(max_examples=2000, deadline=None, database=None, suppress_health_check=list(HealthCheck)),
        )
    finally:
        patch.undo()


def test_a_rule_for_roll_as_if_elementwise_is_caught():
    case = _search(table, "RULES", {**table.RULES, aten.roll.default: elementwise.elementwise})
    assert "roll" in case[0].ops


def test_a_constant_check_that_always_passes_is_caught():
    from gdlcheck.code.prover import conditions

    case = _search(conditions, "first_moved", lambda value, axes: None)
    assert {"table", "mix", "mask_fill", "sdpa", "default_mask"} & set(case[0].ops)


def test_a_reshape_rule_that_forgets_where_an_axis_starts_is_caught():
    def careless(old, new, perms):
        out = [None] * len(new)
        for a, p in enumerate(perms):
            if p is not None and old[a] in new:
                out[list(new).index(old[a])] = p
        return out

    case = _search(layout, "reshape", careless)
    assert "scramble" in case[0].ops


def test_a_state_check_that_sees_nothing_is_caught():
    from gdlcheck.code.prover import state

    case = _search(state, "changed", lambda before, after: [])
    assert STATE_OPS & set(case[0].ops)


def test_a_walk_that_ignores_value_reads_is_caught():
    case = _search(walk.Walk, "stop_everywhere", lambda self, what, reason: None)
    assert (STATE_OPS | VALUE_OPS | set(FOREIGN)) & set(case[0].ops)


def test_the_random_modules_reach_both_verdicts():
    """The soundness search means something only if its modules are proved and refused alike."""
    proved = find(
        modules(),
        lambda c: len(c[0].ops) >= 3 and _proof(c).holds,
        settings=settings(max_examples=2000, deadline=None, database=None),
    )
    assert proved[0].ops

    def commutes_unproved(case):
        return not any(_proof(case).proven.values()) and all(_numeric(case).values())

    assert find(modules(), commutes_unproved, settings=settings(max_examples=2000, deadline=None, database=None))


def test_no_rule_is_found_by_a_name():
    """The table is keyed by operation objects: aten overloads, never strings."""
    assert all(not isinstance(op, str) for op in table.RULES)
    source = "".join(open(f).read() for f in _code_files())
    assert "__name__ ==" not in source and ".name() ==" not in source and "_schema.name" not in source


def _code_files():
    import pathlib

    import gdlcheck.code

    return sorted(pathlib.Path(gdlcheck.code.__file__).parent.rglob("*.py"))


def test_every_module_has_one_job_in_under_400_lines():
    """The whole package, as ruff formats it (CI checks the format)."""
    import pathlib

    import gdlcheck

    for path in sorted(pathlib.Path(gdlcheck.__file__).parent.rglob("*.py")):
        assert len(path.read_text().splitlines()) <= 400, path
