"""Every process-wide patch of a proof is opened by ``gdlcheck/code/prover/patches.py`` (the watches of
value reads are in ``reads.py`` beside it), behind one lock: the
value readers on ``torch.Tensor`` and on the C type ``torch._C.TensorBase`` (issue 28, cause 6),
the Python writers, the module hooks, grad mode and torch's random state.  Each is watched for the
call only and put back exactly, whatever the call does."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils._python_dispatch import _disable_current_modes  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import patches, prove, reads  # noqa: E402

NAMES = reads.READERS + reads.PYTHON_WRITERS


def _descriptors():
    return {
        (cls.__name__, name): vars(cls)[name]
        for cls in (torch.Tensor, torch._C.TensorBase)
        for name in NAMES
        if name in vars(cls)
    }


class BaseRead(torch.nn.Module):
    """Reads a moving value through the C type, past any method of torch.Tensor."""

    def forward(self, x):
        return x * torch._C.TensorBase.tolist(x[0, :1])[0]


class Raises(torch.nn.Module):
    def forward(self, x):
        raise RuntimeError("no")


def test_a_read_through_the_c_type_stops_the_proof_by_itself(monkeypatch):
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the watch alone, not the trial
    result = gdlcheck.verify_callable(BaseRead(), "symmetric", shape=(6, 2), method="exact")
    assert result.verdict == "inconclusive"
    assert "reads the values" in " ".join(str(s.step.label) for s in result.proof.stops.values())


@pytest.mark.parametrize("module", [BaseRead, Raises, lambda: torch.nn.Linear(2, 2)], ids=["read", "raises", "linear"])
def test_every_patched_method_is_put_back_as_it_was(module):
    before, grad, hooks = _descriptors(), torch.is_grad_enabled, dict(torch.nn.modules.module._global_forward_hooks)
    gdlcheck.verify_callable(module(), "symmetric", shape=(6, 2), method="exact")
    assert _descriptors() == before  # the same objects, on the class that held each
    assert torch.is_grad_enabled is grad and dict(torch.nn.modules.module._global_forward_hooks) == hooks
    x = torch.arange(3.0)
    assert x.tolist() == torch._C.TensorBase.tolist(x) == [0.0, 1.0, 2.0]


def test_the_provers_own_reads_are_not_the_codes():
    """The walk hashes and locates tensors through the C type's readers while they are watched:
    a module that reads nothing is proved."""
    layer = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    assert gdlcheck.verify_callable(layer, "symmetric", shape=(6, 2), method="exact").verdict == "holds"


class SplitsAndCounts(torch.nn.Module):
    def forward(self, x):
        first, rest = torch.tensor_split(x, torch.LongTensor([1]), dim=1)
        return first * rest


def test_the_number_protocol_and_the_split_kernel_are_put_back():
    """The number slots are set on torch.Tensor for the call only, and tensor_split's kernel is
    torch's own again after it."""

    def kernels():
        return torch._C._dispatch_dump("aten::tensor_split.tensor_indices_or_sections")

    held, numbers = kernels(), {name: vars(torch.Tensor).get(name) for name in reads.NUMBERS}
    result = gdlcheck.verify_callable(SplitsAndCounts(), "symmetric", shape=(6, 2), method="exact")
    assert result.verdict == "holds"
    assert kernels() == held and "patches.py" not in held and "reads.py" not in held
    assert {name: vars(torch.Tensor).get(name) for name in reads.NUMBERS} == numbers
    assert int(torch.tensor(3)) == 3 and [
        p.shape[0] for p in torch.tensor_split(torch.zeros(5), torch.tensor([2]))
    ] == [2, 3]


class ReadsOnAnotherInput(torch.nn.Module):
    """Reads its input into Python only where it is not the proof's first input: in the moved call
    alone (the comparison runs with dispatch off, so no operation of it is seen)."""

    def __init__(self):
        super().__init__()
        self.first = torch.as_tensor(np.random.default_rng([0, prove.PROOF_TRIAL]).standard_normal((6, 2)))

    def forward(self, x):
        with _disable_current_modes():
            same = torch.equal(x, self.first)
        if not same:
            x.tolist()
        return x * 1.0


def test_the_patches_are_set_once_per_proof_and_watch_each_call(monkeypatch):
    """One proof sets every patch once for both of its calls (and puts it back after); each call's
    reads still reach its own walk: a read in the moved call alone stops the proof."""
    opened = []
    setting = reads.value_reads

    def counted(*args, **kwargs):
        opened.append(1)
        return setting(*args, **kwargs)

    monkeypatch.setattr(patches, "value_reads", counted)
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the watch alone, not the trial
    before = _descriptors()
    result = gdlcheck.verify_callable(ReadsOnAnotherInput(), "symmetric", shape=(6, 2), method="exact")
    assert opened == [1]
    assert result.verdict == "inconclusive"
    assert "the moved call read another value" in str(result.proof.stops)
    assert _descriptors() == before
    assert gdlcheck.verify_callable(torch.nn.Linear(2, 2), "symmetric", shape=(6, 2), method="exact").verdict == "holds"
    assert opened == [1, 1]


def test_between_a_proofs_calls_the_patches_pass_through():
    """Outside a traced call (between the two calls of a proof) a patched reader is torch's own:
    it reads, and reports to no walk."""
    with patches.patched() as watch:
        assert watch.walk is None
        x = torch.arange(3.0)
        assert x.tolist() == [0.0, 1.0, 2.0] and float(x[1]) == 1.0 and repr(x) == "tensor([0., 1., 2.])"
    assert watch.walk is None
