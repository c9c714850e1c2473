"""Fourth soundness hunt: a circular convolution written by hand (``F.pad(mode="circular")`` then
``F.conv2d``) under the turns and mirrors of ``p4``/``p4m``, where the kernel's taps wrap.

With ``k = n`` taps every offset mod ``n`` is one tap, at ``(t - left) mod n``: the kernel is
equivariant exactly when it is symmetric in its offsets mod ``n``, which for ``left != k // 2`` is
no symmetry of the tap array (a tap condition read on the taps, not on the offsets, proves the
wrong kernels and refuses the right ones).  A 5 x 5 kernel with C4 but not D4 symmetry is chiral:
it holds under ``p4`` only, and a pair of output channels ``(k, mirror of k)`` swaps under the
mirror.  With the moved call's cross-check off (the rules alone decide), every ``holds`` is
checked against float64 trials under random elements of the group, and the symmetric kernels
must hold (the check is not vacuous)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import prove  # noqa: E402
from gdlcheck.groups.named import p4_element, p4m_element  # noqa: E402

pytestmark = pytest.mark.slow  # torch
F = torch.nn.functional
C = 2
TURNS = [
    np.array([[1, 0], [0, 1]]),
    np.array([[0, 1], [-1, 0]]),
    np.array([[-1, 0], [0, -1]]),
    np.array([[0, -1], [1, 0]]),
]
MIRROR = np.array([[1, 0], [0, -1]])


class Hand(torch.nn.Module):
    def __init__(self, kernel, pad, head=lambda y: y):
        super().__init__()
        self.kernel, self.pad, self.head = kernel, pad, head

    def forward(self, x):
        return self.head(F.conv2d(F.pad(x[None], self.pad, mode="circular"), self.kernel)[0])


def _offset_symmetric(n: int, group: str, rng) -> np.ndarray:
    """A (C, C, n, n) kernel indexed by offsets mod n, summed over the group's turns of them."""
    c = rng.integers(-3, 4, (C, C, n, n)).astype(float)
    u = np.indices((n, n))
    mats = TURNS + ([A @ MIRROR for A in TURNS] if group == "p4m" else [])
    return sum(
        c[..., (A @ u.reshape(2, -1)).reshape(2, n, n)[0] % n, (A @ u.reshape(2, -1)).reshape(2, n, n)[1] % n]
        for A in mats
    )


def _act(g, x):
    flat = x.reshape(x.shape[0], -1)
    moved = torch.empty_like(flat)
    moved[:, torch.as_tensor(g)] = flat
    return moved.reshape(x.shape)


def _commutes(module, group: str, n: int) -> bool:
    rng = np.random.default_rng(5)
    element = p4m_element if group == "p4m" else p4_element
    for _ in range(12):
        x = torch.as_tensor(rng.standard_normal((C, n, n)))
        g = element((n, n), rng)
        with torch.no_grad():
            if not torch.allclose(module(_act(g, x)), _act(g, module(x)), rtol=1e-9, atol=1e-9):
                return False
    return True


def _verdict(module, group: str, n: int, monkeypatch) -> str:
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the rules alone
    return gdlcheck.verify_callable(module, group, shape=(C, n, n), points_axis=(1, 2), method="exact").verdict.value


@pytest.mark.parametrize("group", ["p4", "p4m"])
@pytest.mark.parametrize("n, left", [(3, 0), (3, 2), (4, 0), (4, 3), (5, 1), (5, 4)])
def test_a_kernel_as_wide_as_the_grid_holds_where_its_offsets_are_symmetric(n, left, group, monkeypatch):
    offsets = (np.arange(n) - left) % n  # tap t reads offset t - left mod n
    kernel = _offset_symmetric(n, group, np.random.default_rng([n, left]))[..., offsets[:, None], offsets[None, :]]
    pad = (left, n - 1 - left) * 2
    right = Hand(torch.as_tensor(kernel), pad)
    assert _commutes(right, group, n)
    assert _verdict(right, group, n, monkeypatch) == "holds"
    broken = torch.as_tensor(kernel).clone()
    broken[0, 0, (left + 1) % n, left] += 1  # offset (1, 0): a turn moves it
    wrong = Hand(broken, pad)
    assert not _commutes(wrong, group, n)
    assert _verdict(wrong, group, n, monkeypatch) != "holds"


@pytest.mark.parametrize(
    "head, group, equivariant",
    [
        (lambda y: y[:1], "p4", True),
        (lambda y: y[:1], "p4m", False),  # a chiral kernel: the mirror is no symmetry
        (lambda y: y.amax(0, keepdim=True), "p4m", True),  # the mirror swaps the pair
        (lambda y: y[:1] - y[1:], "p4m", False),
    ],
)
def test_a_chiral_pair_of_channels_swaps_under_the_mirror(head, group, equivariant, monkeypatch):
    base = torch.as_tensor(np.random.default_rng(21).integers(-3, 4, (C, 5, 5))).double()
    c4 = sum(torch.rot90(base, r, (-2, -1)) for r in range(4))
    assert not torch.equal(c4, c4.flip(-1))
    module = Hand(torch.stack([c4, c4.flip(-1)]), (2, 2, 2, 2), head)
    assert _commutes(module, group, 5) == equivariant
    assert (_verdict(module, group, 5, monkeypatch) == "holds") == equivariant
