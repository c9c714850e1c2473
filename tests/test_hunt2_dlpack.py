"""Second soundness hunt: an alias of the points made outside torch's operations, through a DLPack
capsule (``torch.utils.dlpack``: no ``__dlpack__`` call, a new storage over the same memory).

The walk took the alias for a constant from outside (its storage is another object, and its first
view made it look like a tensor the call made, so it was not compared with the moved call's), and
let the code read its values into Python and branch on them: a wrong ``holds`` for a module that
reverses the points when one of them has a zero first coordinate."""

import pytest

torch = pytest.importorskip("torch")

from hunt2_points import a_zero_breaks_the_symmetry  # noqa: E402
from torch.utils import dlpack  # noqa: E402

import gdlcheck  # noqa: E402

N, D = 6, 4
GROUP = gdlcheck.group(generators=["(0 1)", "(2 3 4 5)"], n=N)

ALIASES = {
    "torch.utils.dlpack": lambda x: dlpack.from_dlpack(dlpack.to_dlpack(x)),
    "torch._C": lambda x: torch._C._from_dlpack(torch._C._to_dlpack(x)),
}


class ReadsAnAlias(torch.nn.Module):
    def __init__(self, alias):
        super().__init__()
        self.alias = alias

    def forward(self, x):
        firsts = self.alias(x)[:, 0].tolist()
        return x if min(abs(v) for v in firsts) > 0 else x.flip(0)


@pytest.mark.parametrize("alias", ALIASES.values(), ids=ALIASES.keys())
def test_a_point_with_a_zero_breaks_the_symmetry(alias):
    assert a_zero_breaks_the_symmetry(ReadsAnAlias(alias), N, D)


@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("alias", ALIASES.values(), ids=ALIASES.keys())
def test_reading_an_alias_of_the_points_made_outside_torch_stops_the_proof(alias, method):
    result = gdlcheck.verify_callable(ReadsAnAlias(alias), GROUP, shape=(N, D), method=method)
    assert result.verdict != "holds"
    if method == "exact":
        assert not any(result.proof.proven.values())
        assert "reads the values of a tensor that depends on the inputs" in str(result.proof.stops)
