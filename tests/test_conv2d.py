"""2-D circular convolution (`conv` with `shape`): the doubly block-circulant form on a torus."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import derive
from gdlcheck.layers import Linear, circulant
from gdlcheck.verification import verify_layer


def test_2d_circulant_against_the_definition():
    H, W = 3, 4
    kernel = np.arange(1.0, 7.0).reshape(2, 3)
    M = circulant(kernel, (H, W))
    for a in range(H):
        for b in range(W):
            for c in range(H):
                for d in range(W):
                    da, db = (a - c) % H, (b - d) % W
                    want = kernel[da, db] if da < 2 and db < 3 else 0.0
                    assert M[a * W + b, c * W + d] == want


def test_1d_circulant_is_the_seeds_formula():
    kernel = np.array([1.0, 2.0, 3.0])
    M = circulant(kernel, 5)
    assert all(M[i, j] == (kernel[(i - j) % 5] if (i - j) % 5 < 3 else 0) for i in range(5) for j in range(5))


@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 2)])
def test_full_kernel_of_distinct_values_is_the_derived_translations_pattern(shape):
    n = int(np.prod(shape))
    M = circulant(np.arange(n).reshape(shape), shape)
    d = derive(groups.build_group("translations", shape="x".join(map(str, shape))))
    np.testing.assert_array_equal(M, d.pattern)


@given(st.integers(2, 5), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_every_2d_convolution_commutes_with_translations(H, W, seed):
    rng = np.random.default_rng(seed)
    kh, kw = int(rng.integers(1, H + 1)), int(rng.integers(1, W + 1))
    M = circulant(rng.standard_normal((kh, kw)), (H, W))
    assert verify_layer(Linear(M), groups.build_group("translations", shape=f"{H}x{W}")).verdict == "holds"


@pytest.mark.parametrize(
    "sample, group, code",
    [
        ("cnn-2d.yaml", None, 0),
        ("cnn-2d.yaml", "p4", 1),
        ("cnn-2d.yaml", "translations", 0),
        ("cnn-2d-p4.yaml", None, 0),
        ("cnn-2d-p4.yaml", "p4m", 0),
        ("cnn-2d-p4.yaml", "translations", 0),
    ],
)
def test_samples(run, samples, sample, group, code):
    args = ["verify", samples / sample, "-q"] + (["--group", group] if group else [])
    assert run(args).exit_code == code


@pytest.mark.parametrize(
    "layer, message",
    [
        ("{kind: conv, shape: [3, 3], kernel: [[1, 2, 3, 4]]}", "is larger than the grid"),
        ("{kind: conv, kernel: [[1, 2], [3, 4]]}", "a 2-D kernel needs shape"),
        ("{kind: conv, shape: [3, 3], kernel: [1, 2]}", "kernel is 1-D but shape [3, 3] is 2-D"),
        ("{kind: conv, shape: [2, 2], kernel: [[1]]}", "the layer acts on 4 points but the group on n = 9"),
        ("{kind: conv, shape: 3xq, kernel: [[1]]}", "is not like '8x8'"),
    ],
)
def test_bad_2d_kernels(run, tmp_path, layer, message):
    path = tmp_path / "conv.yaml"
    path.write_text(f"symmetry: {{group: translations, shape: [3, 3]}}\nlayer: {layer}\n")
    result = run(["verify", path])
    assert result.exit_code == 2 and message in result.stderr, result.stderr
