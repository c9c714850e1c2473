"""The comparison inside every proof (``compare.disagreement``): the largest error and the scale it is
read against are those of the masked definition -- the largest ``|f(g X) - g f(X)|`` over the entries
that differ (infinite where one is not finite on one side only, or is a NaN on one side only; equal
infinities are equal, though their difference is a NaN) and the largest finite
magnitude of either output -- for every pair of outputs, finite or not; two outputs equal entry for
entry (a NaN against a NaN) never disagree."""

import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gdlcheck.code.prover import compare
from gdlcheck.scale import SUBNORMAL_STEP
from gdlcheck.tolerances import DEFAULT_TOL, ROUNDING, SUBNORMAL_ULPS

ENTRIES = st.one_of(
    st.floats(-1e6, 1e6),
    st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 5e-324]),
)


class _Invariant:
    """An invariant output (the target is the first output itself): locates an entry as itself."""

    invariant = True

    @staticmethod
    def locate(entry):
        return None, entry


def _masked(first: np.ndarray, second: np.ndarray):
    """The error and scale by the definition: masks of the finite entries, no shortcut."""
    with np.errstate(all="ignore"):
        diff = np.abs(second - first)
        same = (second == first) | (np.isnan(second) & np.isnan(first))
        if same.all():
            return None
        differ = diff[~same]  # equal infinities leave a NaN difference: they are equal
        err = float(np.max(differ)) if np.isfinite(differ).all() else float("inf")
        scale = max(float(np.max(np.abs(a), initial=0.0, where=np.isfinite(a))) for a in (first, second))
    return err, scale


def _layer():
    import torch

    return types.SimpleNamespace(f=torch.nn.Identity(), dtype="float64")


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_error_and_its_scale_are_the_masked_definitions(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=6))
    first = data.draw(hnp.arrays(np.float64, shape, elements=ENTRIES))
    # the second output: the first with some entries redrawn (often equal, as a proof's are)
    second = first.copy()
    redraw = data.draw(hnp.arrays(np.bool_, shape))
    second[redraw] = data.draw(hnp.arrays(np.float64, shape, elements=ENTRIES))[redraw]
    X = np.ones((2, 2))
    found = compare.disagreement(_layer(), _Invariant(), None, X, first, second, False)
    expected = _masked(first, second)
    if expected is None:
        assert found is None
        return
    err, scale = expected
    magnitude = max(scale, 1.0)  # the input's largest entry is 1; the module has no parameters
    bound = max(
        ROUNDING["float64"] * magnitude, SUBNORMAL_ULPS * first.size * SUBNORMAL_STEP, DEFAULT_TOL["float64"] * scale
    )
    if err <= bound:
        assert found is None
        return
    assert found is not None
    *_, found_err, found_rel, found_magnitude = found
    assert (found_err, found_magnitude) == (err, magnitude)
    assert found_rel == (err / scale if scale > 0 and np.isfinite(err) else float("inf"))


def test_a_module_with_infinite_outputs_that_round_otherwise_elsewhere_is_proved():
    """Its sums round otherwise in the moved call (another order), its infinities are the same: the
    comparison saw an infinite error with no entry past the bound, and the proof raised."""
    torch = pytest.importorskip("torch")
    import gdlcheck

    class SumAndItsSign(torch.nn.Module):
        def forward(self, x):
            s = x.sum(0)
            return torch.stack([s, s * float("inf")])

    for seed in range(3):
        found = gdlcheck.verify_callable(
            SumAndItsSign(), "symmetric", shape=(64, 3), expect="invariant", method="exact", seed=seed
        )
        assert found.verdict == "holds"


@settings(max_examples=100, deadline=None)
@given(st.lists(ENTRIES, min_size=1, max_size=6), st.lists(ENTRIES, min_size=1, max_size=3))
def test_the_largest_entry_is_the_largest_finite_magnitude_of_the_parameters_and_buffers(weights, kept):
    """The magnitude rounding is read against: the largest finite ``|entry|`` (0 where none is finite)."""
    torch = pytest.importorskip("torch")
    from gdlcheck.code import torch_bridge

    module = torch.nn.Module()
    module.weight = torch.nn.Parameter(torch.tensor(weights, dtype=torch.float64))
    module.register_buffer("kept", torch.tensor(kept, dtype=torch.float32))
    module.register_buffer("count", torch.tensor([2**40]))  # not floating: not a magnitude of rounding
    every = np.abs(np.array(weights + [float(np.float32(v)) for v in kept]))
    assert torch_bridge.largest_entry(module) == float(np.max(every, initial=0.0, where=np.isfinite(every)))
