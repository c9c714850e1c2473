"""Seventh soundness hunt (issue 28): the copy that runs is not the module.

gdlcheck checks a copy of the user's module (``copy.deepcopy``, then ``Module.to(float64)``).
A class of the program can make that copy another module: its own ``__deepcopy__``,
``__reduce_ex__`` or ``__getstate__``, or a ``to`` or ``_apply`` that clears a flag (or fills a
mask buffer) on the way.
Each module below adds the first point's row, ``x[0]``, to every row (not equivariant) while its
flag ``bad`` is set, and its copy had the flag cleared, lost the attribute, or was of another
class: both methods said ``holds``.  The copy is now compared with the module, submodule by
submodule (the classes, each plain attribute, each parameter and buffer), and a copy that differs is an input error.
``eval`` is left out of the comparison: the check is of the module in eval mode (docs/code.md)."""

import copy

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.errors import CallableError  # noqa: E402


class Flagged(torch.nn.Module):
    shift = 0.0

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.bad = True
        self.shift = 1.0

    def forward(self, x):
        return self.lin(x) + (self.shift * x[0] if self.bad else 0)


class OwnDeepcopy(Flagged):
    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        torch.nn.Module.__init__(new)
        new.lin, new.bad, new.shift = copy.deepcopy(self.lin, memo), False, self.shift
        return new


class OwnGetstate(Flagged):
    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("shift")  # the class's 0.0 is read in the copy
        return state


class OwnTo(Flagged):
    def to(self, *args, **kwargs):
        out = super().to(*args, **kwargs)
        out.bad = False
        return out


class OwnApply(Flagged):
    def _apply(self, fn, recurse=True):
        self.bad = False
        return super()._apply(fn, recurse)


class Plain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x)


class OwnReduce(Flagged):
    def __reduce_ex__(self, protocol):
        return (Plain, ())


class OwnApplyFillsAMask(torch.nn.Module):
    """``lin(x)`` on the first point only (a mask laid along the points); its ``_apply`` fills the
    mask with ones on the way, and the copy is ``lin(x)``, which the proof proved."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.register_buffer("mask", (torch.arange(8) == 0).float()[:, None])

    def forward(self, x):
        return self.lin(x) * self.mask

    def _apply(self, fn, recurse=True):
        out = super()._apply(fn, recurse)
        self.mask.fill_(1.0)
        return out


def _moves(module) -> bool:
    x = torch.randn(8, 3, generator=torch.Generator().manual_seed(0))
    g = torch.tensor([1, 0, 2, 3, 4, 5, 6, 7])
    with torch.no_grad():
        return torch.allclose(module(x[g]), module(x)[g])


@pytest.mark.parametrize(
    "cls", [OwnDeepcopy, OwnGetstate, OwnTo, OwnApply, OwnReduce, OwnApplyFillsAMask], ids=lambda c: c.__name__
)
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_a_copy_that_is_another_module_is_refused(cls, method):
    module = cls()
    assert not _moves(module)
    with pytest.raises(CallableError, match="is not the module"):
        gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method=method)


def test_the_cli_says_so_in_one_line_and_exits_2(run, tmp_path):
    (tmp_path / "flagged.py").write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__(); self.lin = torch.nn.Linear(3, 3); self.bad = True\n"
        "    def forward(self, x):\n"
        "        return self.lin(x) + (x[0] if self.bad else 0)\n"
        "    def _apply(self, fn, recurse=True):\n"
        "        self.bad = False\n"
        "        return super()._apply(fn, recurse)\n"
    )
    r = run(
        ["verify", "--callable", str(tmp_path / "flagged.py") + ":M", "--input-shape", "8x3", "--group", "symmetric"]
    )
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "is not the module" in r.stderr


def test_a_module_whose_copy_is_itself_is_still_proved():
    assert gdlcheck.verify_callable(Plain(), "symmetric", shape=(8, 3), method="exact").verdict == "holds"


def test_a_nan_attribute_is_the_same_in_the_copy():
    module = Plain()
    module.scale = float("nan")
    assert gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact").verdict == "holds"
