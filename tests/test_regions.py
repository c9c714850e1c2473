"""Writes into parts of a tensor the call made (gdlcheck/code/prover/regions.py), as a law: a container
filled block by block from moving values, constants and slices of itself, in any order, is proved
only when it is equivariant (the proof's claim is checked against the module run on moved points),
and the plain fills people write are proved."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

N, D = 6, 3
F64 = torch.float64


class Fill(torch.nn.Module):
    """``out`` made by the call, then written block by block: ``steps`` are (what, start, stop, axis)
    with what one of ``x`` (the points' values), ``xr`` (x's rows reversed), ``one`` (a number),
    ``ramp`` (numbers that differ), ``row0`` (the first point's values, broadcast)."""

    def __init__(self, steps, base):
        super().__init__()
        self.steps, self.base = steps, base

    def forward(self, x):
        out = (
            torch.zeros(N, 2 * D, dtype=x.dtype)
            if self.base == "zeros"
            else torch.arange(N * 2 * D, dtype=x.dtype).reshape(N, 2 * D).clone()
        )
        for what, start, stop, axis in self.steps:
            if axis == 1:  # a block of columns, every row
                block = out[:, start:stop]
                src = {
                    "x": x,
                    "xr": x.flip(0),
                    "one": torch.tensor(1.5, dtype=x.dtype),
                    "ramp": torch.arange(N * D, dtype=x.dtype).reshape(N, D),
                    "row0": x[:1],
                }[what]
                block.copy_(src[:, : stop - start] if src.dim() == 2 else src)
            else:  # a block of rows, every column
                block = out[start:stop]
                block.copy_(
                    torch.full((stop - start, 2 * D), 0.5, dtype=x.dtype) if what != "x" else x[start:stop].repeat(1, 2)
                )
        return out


def step():
    cols = st.tuples(st.sampled_from(["x", "xr", "one", "ramp", "row0"]), st.integers(0, D), st.just(1))
    rows = st.tuples(st.sampled_from(["x", "one"]), st.integers(0, N - 1), st.just(0))
    return st.one_of(
        cols.map(lambda t: (t[0], t[1], t[1] + D, 1)), rows.map(lambda t: (t[0], t[1], min(N, t[1] + 2), 0))
    )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(step(), min_size=1, max_size=3),
    st.sampled_from(["zeros", "ramp"]),
    st.sampled_from(["symmetric", "cyclic"]),
)
def test_law_a_filled_container_is_proved_only_when_equivariant(steps, base, group):
    module = Fill(steps, base)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(module, group, shape=(N, D), method="exact").to_json()
    if obj["verdict"] != "holds":
        return
    g = gdlcheck.group(group, n=N)
    rng = np.random.default_rng(1)
    for s in g.gen_arrays() + [g.random_element(rng)]:
        x = torch.tensor(rng.standard_normal((N, D)))
        moved = torch.empty_like(x)
        moved[torch.as_tensor(np.asarray(s))] = x  # (P x)[s[j]] = x[j]
        y, ym = module(x), module(moved)
        want = torch.empty_like(y)
        want[torch.as_tensor(np.asarray(s))] = y
        assert torch.allclose(ym, want, atol=1e-12), steps


@pytest.mark.parametrize(
    "steps, base", [([("x", 0, D, 1), ("one", D, 2 * D, 1)], "zeros"), ([("x", 0, D, 1), ("x", D, 2 * D, 1)], "zeros")]
)
def test_plain_fills_are_proved(steps, base):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(Fill(steps, base), "symmetric", shape=(N, D), method="exact").to_json()
    assert obj["verdict"] == "holds"
