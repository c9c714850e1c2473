"""Seventh soundness hunt (issue 28): a module with a complex buffer.

gdlcheck runs a copy of the module in the run's dtype.  The copy was made by torch's
``Module.to(float64)``, which casts a complex parameter or buffer to a real one and drops its
imaginary part.  A module adding a complex constant laid along the points, whose real part is 0
and whose imaginary part differs from point to point, then taking ``abs``, is not equivariant;
the copy it was checked as (the constant 0) is, and both methods said ``holds``, at 8 points and
at 1400.  The copy now keeps complex tensors complex, in the complex type of the run's precision.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402


class ImaginaryBias(torch.nn.Module):
    """``|x + i b|`` with ``b`` one number per point (not invariant), or one per feature."""

    def __init__(self, n: int, per_point: bool = True):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        shape = (n, 1) if per_point else (1, 3)
        self.register_buffer("b", torch.complex(torch.zeros(shape), torch.randn(shape, generator=g)))

    def forward(self, x):
        return (x.to(self.b.dtype) + self.b).abs()


def _commutes(module, n: int) -> bool:
    x = torch.as_tensor(np.random.default_rng(1).standard_normal((n, 3)))
    g = torch.tensor([1, 0] + list(range(2, n)))
    with torch.no_grad():
        return torch.allclose(module(x[g]), module(x)[g])


def _verdict(module, n: int, method: str, dtype: str = "float64"):
    return gdlcheck.verify_callable(module, "symmetric", shape=(n, 3), method=method, dtype=dtype).verdict


@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_an_imaginary_part_laid_along_the_points_is_not_proved(method, dtype):
    module = ImaginaryBias(8)
    assert not _commutes(module, 8)
    assert _verdict(module, 8, method, dtype) != "holds"
    assert module.b.is_complex()  # the user's module is left as it was


@pytest.mark.slow
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_an_imaginary_part_laid_along_many_points_is_not_proved(method):
    module = ImaginaryBias(1400)
    assert not _commutes(module, 1400)
    assert _verdict(module, 1400, method) != "holds"


def test_a_complex_constant_per_feature_is_still_proved():
    module = ImaginaryBias(8, per_point=False)
    assert _commutes(module, 8)
    assert _verdict(module, 8, "exact") == "holds"


def test_a_complex_parameter_keeps_its_imaginary_part():
    linear = torch.nn.Linear(3, 3, dtype=torch.complex64)
    with torch.no_grad():
        linear.weight.imag.fill_(1.0)
    from gdlcheck.code.running import prepare_module

    copy = prepare_module(linear, "float64")
    assert copy.weight.dtype == torch.complex128
    assert torch.equal(copy.weight.imag, torch.ones(3, 3, dtype=torch.float64))
    assert isinstance(copy.weight, torch.nn.Parameter)
