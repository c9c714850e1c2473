"""A circular convolution written by hand (issue 29, issue 32): ``F.pad(mode="circular")`` proved
whole, and the convolution that reads the padded axes (gdlcheck/code/prover/rules/pad.py).

A padded axis is no permutation of its entries, so only the convolution may read it: every other
use of it, and every convolution that does not give back the input's length by stride 1, is not
proved, even where it happens to be equivariant; where it is not, the trials say ``fails``."""

import numpy as np
import pytest

import gdlcheck

torch = pytest.importorskip("torch")
F = torch.nn.functional
pytestmark = pytest.mark.slow  # torch

N, C = 8, 2


class Call(torch.nn.Module):
    """``fn(x, kernel)`` on ``x : (C, N)`` with a kernel parameter ``(3, C, taps)``."""

    def __init__(self, fn, taps=3, symmetric=False):
        super().__init__()
        k = torch.linspace(-1, 1, 3 * C * taps, dtype=torch.float64).reshape(3, C, taps) ** 3 + 0.3
        self.kernel = torch.nn.Parameter((k + k.flip(-1)) / 2 if symmetric else k)
        self.fn = fn

    def forward(self, x):
        return self.fn(x, self.kernel)


def conv(pad, **options):
    return lambda x, k: F.conv1d(F.pad(x[None], pad, mode="circular"), k, **options)[0]


def taps5(x, k):  # five taps over a pad of one each side and one zero of its own: length n
    return F.conv1d(F.pad(x[None], (1, 1), mode="circular"), torch.cat([k, k[..., :2]], -1), padding=1)[0]


def verdict(module, group, expect="equivariant"):
    g = gdlcheck.group(group, n=N)
    obj = gdlcheck.verify_callable(module, g, shape=(C, N), points_axis=1, expect=expect).to_json()
    exact = [c for c in obj["checks"] if c["method"] == "exact"]
    return obj["verdict"], all(c["passed"] for c in exact), " ".join(obj["notes"])


@pytest.mark.parametrize("pad, taps", [((1, 1), 3), ((2, 0), 3), ((0, 2), 3), ((N - 1, 0), N), ((0, 0), 1)])
def test_a_circular_convolution_is_proved_under_shifts(pad, taps):
    assert verdict(Call(conv(pad), taps), "cyclic")[:2] == ("holds", True)


def test_a_symmetric_kernel_centred_is_proved_under_reflections():
    assert verdict(Call(conv((1, 1)), symmetric=True), "dihedral")[:2] == ("holds", True)
    assert verdict(Call(conv((N - 1, 0)), N, symmetric=False), "dihedral")[0] == "fails"


def test_an_asymmetric_kernel_under_reflections_fails_at_the_kernel():
    obj = gdlcheck.verify_callable(
        Call(conv((1, 1))), gdlcheck.group("dihedral", n=N), shape=(C, N), points_axis=1
    ).to_json()
    assert obj["verdict"] == "fails" and obj["culprit"]["path"] == "kernel"
    assert "c[a d] = c[d] fails" in " ".join(obj["notes"])


def test_a_symmetric_kernel_off_centre_is_not_a_reflection():
    # offsets -2, -1, 0 reflect to 2, 1, 0: outside the kernel, and the layer does not commute
    found = verdict(Call(conv((2, 0)), symmetric=True), "dihedral")
    assert found[0] == "fails" and not found[1]


@pytest.mark.parametrize(
    "fn, why",
    [
        (lambda x, k: F.pad(x, (1, 1), mode="circular").sum(-1), "sums the pads"),
        (lambda x, k: F.pad(x, (1, 1), mode="circular")[:, 1:-1] * 2, "a slice"),
        (lambda x, k: F.pad(x, (1, 1), mode="circular").T.T[:, :N], "a transpose"),
        (taps5, "zero padding of its own"),
        (lambda x, k: conv((1, 1), stride=2)(x, k).repeat_interleave(2, -1), "a stride"),
        (lambda x, k: conv((2, 2))(x, k)[:, 1:-1], "a longer output, sliced: equivariant, not proved"),
        (lambda x, k: F.conv1d(F.pad(x[None], (1, 1), mode="reflect"), k)[0], "reflection padding"),
    ],
)
def test_what_reads_a_padded_axis_otherwise_is_not_proved(fn, why):
    v, exact, notes = verdict(Call(fn), "cyclic", expect="equivariant" if "sum" not in why else "invariant")
    assert not exact and v != "holds", why


def test_a_padded_axis_under_a_permutation_that_is_no_affine_map_is_not_proved():
    v, exact, notes = verdict(Call(conv((1, 1)), symmetric=True), "symmetric")
    assert v == "fails" and not exact


def test_a_dilated_circular_convolution_is_not_proved_though_it_commutes():
    fn = lambda x, k: F.conv1d(F.pad(x[None], (2, 2), mode="circular"), k, dilation=2)[0]  # noqa: E731
    v, exact, notes = verdict(Call(fn), "cyclic")
    assert v == "holds_numerically" and not exact
    assert "padded circularly" in notes or "dilation" in notes


def test_the_padded_values_are_the_periodic_extension():
    # the theorem the function's rule states, against torch itself
    x = torch.arange(2 * 5 * 4, dtype=torch.float64).reshape(2, 5, 4)
    y = F.pad(x, (3, 1, 2, 4), mode="circular")
    rows = (np.arange(5 + 2 + 4) - 2) % 5
    cols = (np.arange(4 + 3 + 1) - 3) % 4
    assert torch.equal(y, x[:, rows][:, :, cols])


class Watches(torch.nn.Module):
    """Raises where torch would not take its fast paths (a torch function override is active)."""

    def forward(self, x):
        if torch.overrides.has_torch_function((x,)):
            raise RuntimeError("a torch function override is active")
        return F.conv1d(F.pad(x[None], (1, 1), mode="circular"), torch.ones(1, C, 3, dtype=x.dtype))[0]


def test_the_proof_leaves_torchs_fast_paths_as_a_plain_call_finds_them():
    # the pad is watched by a patch of torch._C._nn.pad, not a torch function mode (which turns
    # attention's fast path off)
    assert verdict(Watches(), "cyclic")[:2] == ("holds", True)
    assert torch._C._nn.pad.__module__ == "torch._C._nn" and not hasattr(torch._C._nn.pad, "__wrapped__")
