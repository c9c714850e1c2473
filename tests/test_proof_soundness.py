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
    assert not torch.equal(FirstSelectedRow()(x), FirstSelectedRow()(shifted))   # the pair
    for method in ("exact", "auto"):
        result = gdlcheck.verify_callable(FirstSelectedRow(), "cyclic", shape=(7, 2), expect="invariant",
                                          method=method)
        assert result.verdict != "holds"


class MaskedSum(torch.nn.Module):
    def forward(self, x):
        return x[x[:, 0] > 0].sum(0)


class MaskedMax(torch.nn.Module):
    def forward(self, x):
        return x[x[:, 0] > 0].amax(0) + x[x[:, 1] > 0].norm(dim=0)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("module", [MaskedSum, MaskedMax], ids=lambda m: m.__name__)
def test_an_order_blind_use_of_a_selection_stays_proved(module, size):
    result = gdlcheck.verify_callable(module(), "symmetric", shape=size, expect="invariant", method="exact")
    assert result.verdict == "holds"
    assert result.proof is not None and result.proof.holds


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


@pytest.mark.parametrize("family, size", [("cyclic", 7), ("dihedral", 6), ("symmetric", 5), ("alternating", 5),
                                          ("translations", (2, 3)), ("p4", (3, 3)), ("p4m", (3, 3))])
def test_a_random_element_is_uniform_on_the_group(family, size):
    group = groups.build_group(family, shape=size) if isinstance(size, tuple) else groups.build_group(family, n=size)
    elements = set(group.elements())
    rng = np.random.default_rng(0)
    draws = [tuple(group.random_element(rng).tolist()) for _ in range(40 * len(elements))]
    assert set(draws) == elements   # every element, and nothing else
    counts = np.array([draws.count(e) for e in elements])
    assert counts.min() > 10   # 40 expected each: no element starved


def test_a_random_element_of_a_generated_group_is_in_it():
    group = groups.from_generators(6, ["(0 1 2)(3 4 5)", "(0 3)(1 4)(2 5)"])
    elements = set(group.elements())
    rng = np.random.default_rng(1)
    draws = {tuple(group.random_element(rng).tolist()) for _ in range(200)}
    assert draws == elements
