"""Issue 28's wrong ``holds``, each written from its description: none of these modules commutes
with its group, and none may be proved, with ``method="exact"`` or ``"auto"``, at n = 8 and at
n x d > 4096 (where ``auto`` runs no trials).  A truly equivariant use of the same operations
stays proved."""

import numpy as np
import pytest

pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402

# (n, d): small, and past auto's trial threshold (n x d > 4096)
SIZES = [(8, 2), (2049, 2)]


class ThresholdRow(torch.nn.Module):
    """The first row above the third largest first coordinate, added to every row."""

    def forward(self, x):
        n = x.shape[0]
        thr = x[:, 0].sort().values[n - 3]
        return x + x[x[:, 0] > thr][0]


class NonzeroRow(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        thr = x[:, 0].sort().values[n - 3]
        idx = torch.nonzero(x[:, 0] > thr)[:1, 0]
        return x + x.index_select(0, idx)


class WhereRow(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        thr = x[:, 0].sort().values[n - 3]
        return x + x[torch.where(x[:, 0] > thr)[0][:1]]


class TwoMasks(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        m1 = x[:, 0] > x[:, 0].sort().values[n - 3]
        m2 = x[:, 1] > x[:, 1].sort().values[n - 3]
        return x + x[m1][0] + x[m2][0]


class AboveMedian(torch.nn.Module):
    """The first row above the median."""

    def forward(self, x):
        return x + x[x[:, 0] > x[:, 0].median()][0]


WRONG = [ThresholdRow, NonzeroRow, WhereRow, TwoMasks, AboveMedian]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("module", WRONG, ids=lambda m: m.__name__)
def test_a_selection_by_moving_values_is_not_proved(module, method, size):
    result = gdlcheck.verify_callable(module(), "symmetric", shape=size, method=method)
    assert result.verdict != "holds"
    if method == "auto":
        assert result.verdict == "fails"


class FirstSelectedRow(torch.nn.Module):
    def forward(self, x):
        return x[torch.nonzero(x[:, 0] > -1)[:, 0]][0]


def test_the_first_selected_row_is_not_invariant():
    x = torch.arange(14, dtype=torch.float64).reshape(7, 2)
    shifted = torch.roll(x, 1, 0)
    assert not torch.equal(FirstSelectedRow()(x), FirstSelectedRow()(shifted))  # the pair
    for method in ("exact", "auto"):
        result = gdlcheck.verify_callable(FirstSelectedRow(), "cyclic", shape=(7, 2), expect="invariant", method=method)
        assert result.verdict != "holds"


class MaskedSum(torch.nn.Module):
    def forward(self, x):
        return x[x[:, 0] > 0].sum(0)


class MaskedMax(torch.nn.Module):
    def forward(self, x):
        return x[x[:, 0] > 0].amax(0) + x[x[:, 1] > 0].norm(dim=0)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("module", [MaskedSum, MaskedMax], ids=lambda m: m.__name__)
def test_a_selection_by_the_points_own_values_is_left_to_the_trials(module, size):
    """Equivariant, but not proved: the selection's size is this draw's, and code may read it
    (``k = x[mask].shape[0]``) and branch, which neither the walk nor the moved call sees (a moved
    input keeps the count); the trials decide, and pass."""
    exact = gdlcheck.verify_callable(module(), "symmetric", shape=size, expect="invariant", method="exact")
    assert exact.verdict == "inconclusive" and "a shape that depends on the values" in str(exact.proof.stops)
    numeric = gdlcheck.verify_callable(module(), "symmetric", shape=size, expect="invariant", method="numeric")
    assert numeric.passed


class ReadsTheCount(torch.nn.Module):
    """The soundness hunt's case: equivariant only for the draws whose selection has 5 rows."""

    def forward(self, x):
        k = x[x[:, 0] > 0].shape[0]
        return x if k == 5 else x.flip(0)


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_code_that_reads_the_size_of_a_selection_is_not_proved(method):
    for seed in range(8):
        result = gdlcheck.verify_callable(ReadsTheCount().double(), "cyclic", shape=(6, 3), method=method, seed=seed)
        assert result.verdict != "holds", seed


class ConvMax(torch.nn.Module):
    """A position-dependent map, then a max over the points: only a permutation that moves the
    largest row shows it."""

    def __init__(self, n):
        super().__init__()
        self.register_buffer("w", torch.linspace(1.0, 2.0, n, dtype=torch.float64)[:, None])

    def forward(self, x):
        return (self.w * x).amax(0)


def test_the_trials_apply_random_elements_of_the_group():
    n = 64
    result = gdlcheck.verify_callable(ConvMax(n), "symmetric", shape=(n, 1), expect="invariant", method="numeric")
    assert result.verdict == "fails"
    # the generators alone: a transposition (0 1) and the shift rarely move the maximum
    assert any(c.generator not in groups.symmetric(n).generator_strings for c in result.checks if not c.passed)


@pytest.mark.parametrize(
    "family, size",
    [
        ("cyclic", 7),
        ("dihedral", 6),
        ("symmetric", 5),
        ("alternating", 5),
        ("translations", (2, 3)),
        ("p4", (3, 3)),
        ("p4m", (3, 3)),
    ],
)
def test_a_random_element_is_uniform_on_the_group(family, size):
    group = groups.build_group(family, shape=size) if isinstance(size, tuple) else groups.build_group(family, n=size)
    elements = set(group.elements())
    rng = np.random.default_rng(0)
    draws = [tuple(group.random_element(rng).tolist()) for _ in range(40 * len(elements))]
    assert set(draws) == elements  # every element, and nothing else
    counts = np.array([draws.count(e) for e in elements])
    assert counts.min() > 10  # 40 expected each: no element starved


def test_a_random_element_of_a_generated_group_is_in_it():
    group = groups.from_generators(6, ["(0 1 2)(3 4 5)", "(0 3)(1 4)(2 5)"])
    elements = set(group.elements())
    rng = np.random.default_rng(1)
    draws = {tuple(group.random_element(rng).tolist()) for _ in range(200)}
    assert draws == elements


# --------------------------------------------------------------------------- cause 2: state the call changes


class Counting(torch.nn.Module):
    """Doubles its input for 4 calls, then adds row 0 to every row; ``how`` says where it counts."""

    def __init__(self, how):
        super().__init__()
        self.how = how
        self.array = np.zeros(1)
        self.ns = __import__("types").SimpleNamespace(k=0)
        self.register_buffer("step", torch.zeros(()))
        self.calls_hooks = 0
        self.deep = {"a": {"b": {"c": 0}}}
        self.kind = type(f"Counter{how}", (), {"count": 0})  # a class of its own per module

    def tick(self) -> int:
        if self.how == "numpy":
            self.array += 1
            return int(self.array[0])
        if self.how == "namespace":
            self.ns.k += 1
            return self.ns.k
        if self.how == "data":
            self.step.data = self.step.data + 1
            return int(self.step)
        if self.how == "hooks":
            self.calls_hooks += 1
            return self.calls_hooks
        if self.how == "deep":
            self.deep["a"]["b"]["c"] += 1
            return self.deep["a"]["b"]["c"]
        type(self).count = getattr(type(self), "count", 0) + 1
        return type(self).count

    def forward(self, x):
        return 2 * x if self.tick() <= 4 else x + x[0]


def counting(how):
    # the class-level counter lives on a class of its own, so each test starts at 0
    cls = type(f"Counting_{how}", (Counting,), {})
    return cls(how)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("how", ["numpy", "namespace", "data", "hooks", "deep", "class"])
def test_state_the_call_changes_stops_the_proof(how, method, size):
    result = gdlcheck.verify_callable(counting(how), "symmetric", shape=size, method=method)
    assert result.verdict in ("fails", "inconclusive")
    assert result.proof is not None and not any(result.proof.proven.values())


def test_a_counter_on_a_subclass_named_as_its_base_stops_the_proof(monkeypatch):
    """``class Counted(Counted)``: the state fingerprint keys each class of the MRO apart (it once
    keyed them by name, and the base's entry hid the subclass's counter: proved, found by the search)."""
    from gdlcheck.code.prover import prove

    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the state check alone
    base = type("Counted", (Counting,), {"count": 0})
    module = type("Counted", (base,), {"count": 0})("class")
    result = gdlcheck.verify_callable(module, "symmetric", shape=(8, 2), method="exact")
    assert result.verdict == "inconclusive" and "changes state" in str(result.proof.stops)


# --------------------------------------------------------------------------- cause 3: labels cast


class DropAgreeing(torch.nn.Module):
    """Message passing that drops the edges whose endpoints agree after a cast."""

    def __init__(self, cast):
        super().__init__()
        self.cast = cast

    def forward(self, x, edge_index):
        row, col = edge_index
        keep = self.cast(row) != self.cast(col)
        out = torch.zeros_like(x)
        return out.index_add(0, col[keep], x[row[keep]])


def ring_with_chords(n, chords, seed=0):
    rng = np.random.default_rng(seed)
    s = np.arange(n)
    pairs = [np.stack([s, (s + 1) % n])]
    a = rng.integers(0, n, chords)
    b = (a + 256 * rng.integers(1, max(n // 256, 2), chords)) % n  # endpoints 256 apart: int8 agrees
    pairs.append(np.stack([a, b]))
    ei = np.concatenate(pairs, axis=1)
    return np.concatenate([ei, ei[::-1]], axis=1)


@pytest.mark.parametrize(
    "cast, n",
    [(lambda t: t.to(torch.int8), 300), (lambda t: t.bool(), 300), (lambda t: t.half(), 3000)],
    ids=["int8", "bool", "half"],
)
def test_labels_cast_to_a_dtype_that_cannot_hold_them_are_not_proved(cast, n):
    ei = ring_with_chords(n, 150)
    result = gdlcheck.verify_callable(
        DropAgreeing(cast), "symmetric", shape=(n, 2), inputs=["points", gdlcheck.graph(ei)], method="exact"
    )
    assert result.verdict != "holds"


def test_labels_cast_to_an_integer_dtype_that_holds_them_stay_proved():
    ei = ring_with_chords(300, 150)
    result = gdlcheck.verify_callable(
        DropAgreeing(lambda t: t.to(torch.int16)),
        "symmetric",
        shape=(300, 2),
        inputs=["points", gdlcheck.graph(ei)],
        method="exact",
    )
    assert result.verdict == "holds"


# --------------------------------------------------------------------------- cause 4: a subclass's own dispatch


class RowZeroBias(torch.Tensor):
    """A bias whose ``add`` also adds the other operand's row 0."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        if func is torch.Tensor.add or func is torch.add or func.__name__ == "__add__":
            other = next(a for a in args if not isinstance(a, RowZeroBias))
            out = out.as_subclass(torch.Tensor) + other.as_subclass(torch.Tensor)[0]
        return out


class SubclassBias(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.register_buffer("bias", torch.ones(d))

    def forward(self, x):
        return x + self.bias.as_subclass(RowZeroBias)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_constant_with_its_own_torch_function_stops_the_proof(method, size):
    result = gdlcheck.verify_callable(SubclassBias(size[1]), "symmetric", shape=size, method=method)
    assert result.verdict != "holds"


# --------------------------------------------------------------------------- cause 5: randomness without torch


class UrandomNoise(torch.nn.Module):
    def forward(self, x):
        noise = torch.frombuffer(bytearray(__import__("os").urandom(x.shape[1])), dtype=torch.uint8)
        return x + noise.to(x.dtype)


class FreshRandomTensor(torch.nn.Module):
    def forward(self, x):
        values = np.random.default_rng().standard_normal(x.numel()).tolist()  # > 4,096 numbers
        return x + torch.tensor(values, dtype=x.dtype).reshape(x.shape)[0]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("module", [UrandomNoise, FreshRandomTensor], ids=lambda m: m.__name__)
def test_random_numbers_made_without_torch_are_not_proved(module, method, size):
    result = gdlcheck.verify_callable(module(), "symmetric", shape=size, method=method)
    assert result.verdict != "holds"


# --------------------------------------------------------------------------- cause 6: TensorBase readers


class TensorBaseRead(torch.nn.Module):
    def forward(self, x):
        first = torch._C.TensorBase.tolist(x[:, 0])
        return x * first[0]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_values_read_through_tensorbase_are_not_proved(method, size):
    result = gdlcheck.verify_callable(TensorBaseRead(), "symmetric", shape=size, method=method)
    assert result.verdict != "holds"


class WritesThroughAnArray(torch.nn.Module):
    """The soundness hunt's case: an array handle on a tensor the call made, taken while it is a
    constant, written after the points' values entered it (no operation sees that write)."""

    def forward(self, x):
        base = torch.zeros(6, 4, dtype=x.dtype)
        handle = base.numpy()
        base[:, :2] = x[:, :2]
        handle[:, 2] = np.array([0, 0, 1, 0, 1, 0.0])
        return base


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_write_through_a_handle_on_memory_the_call_made_is_not_proved(method):
    group = gdlcheck.group(generators=["(0 1)", "(2 3 4 5)"], n=6)
    result = gdlcheck.verify_callable(WritesThroughAnArray(), group, shape=(6, 2), method=method)
    assert result.verdict != "holds"
    if method == "exact":
        assert "a handle on the memory of a tensor the call made" in str(result.proof.stops)
