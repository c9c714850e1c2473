"""Issue 28's last limit of sight: a tensor made during the call out of the walk's sight (torch's
dispatch turned off, another thread) and used without being read.  The walk never saw it made,
so it took it for a constant, and only the moved call could catch it, when its element moved
the points the tensor was built from: the element a proof at n = 8 draws leaves point 0 in
place, so ``x + x[0]`` with the row taken out of sight was proved.  Such a tensor now stops the
proof in the first call, whatever the element; tensors that were there before the proof (a
global constant, a parameter's ``.data``) stay constants."""

import concurrent.futures
import json
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, commutes, points, verdict  # noqa: E402
from torch.utils._mode_utils import no_dispatch  # noqa: E402

import gdlcheck  # noqa: E402
from tests.conftest import newcomer_env  # noqa: E402

POOL = concurrent.futures.ThreadPoolExecutor(1)
POOL.submit(int, 0).result()  # its worker thread is running before any proof


def in_a_thread(work):
    box = []
    thread = threading.Thread(target=lambda: box.append(work()))
    thread.start()
    thread.join()
    return box[0]


def dispatch_off(work):
    with torch._C._DisableTorchDispatch():
        return work()


def function_and_dispatch_off(work):
    with torch._C.DisableTorchFunction(), torch._C._DisableTorchDispatch():
        return work()


def without_dispatch(work):
    with no_dispatch():
        return work()


HIDE = {
    "_DisableTorchDispatch": dispatch_off,
    "DisableTorchFunction and dispatch off": function_and_dispatch_off,
    "no_dispatch": without_dispatch,
    "a thread": in_a_thread,
    "a pool made before": lambda work: POOL.submit(work).result(),
}
# what the hidden work computes from the points
WORK = {"row 0": lambda x: x[:1] * 1, "flip": lambda x: x.flip(0)}


class AddsWhatItHid(torch.nn.Module):
    """``x + y``, with ``y`` computed from ``x`` where the walk does not look."""

    def __init__(self, hide, work):
        super().__init__()
        self.hide, self.work = hide, work

    def forward(self, x):
        y = self.hide(lambda: self.work(x))
        return x + y


class ReturnsWhatItHid(torch.nn.Module):
    def forward(self, x):
        with no_dispatch():
            return x[:1] + x


CASES = {f"{h}, {w}": AddsWhatItHid(HIDE[h], WORK[w]) for h in HIDE for w in WORK}
CASES["returned"] = ReturnsWhatItHid()


@pytest.mark.parametrize("module", CASES.values(), ids=CASES.keys())
def test_each_module_moves_otherwise_than_the_points(module):
    perm = np.random.default_rng(1).permutation(8)
    assert perm[0] != 0
    assert not commutes(module, perm, points(8, 3))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("module", CASES.values(), ids=CASES.keys())
def test_a_tensor_made_out_of_sight_is_never_proved(module, method, size):
    assert verdict(module, size, method) != "holds"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("module", CASES.values(), ids=CASES.keys())
def test_the_first_call_stops_whatever_the_element(module, seed):
    """The stop is the first call's, not the moved call's chance: where the moved call finds no
    counterexample (its element keeps point 0), the note names the tensor and where it was used."""
    result = gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact", seed=seed)
    assert result.verdict in ("inconclusive", "fails")
    if result.verdict == "inconclusive":
        stops = str(result.proof.stops)
        assert "a tensor made out of the walk's sight" in stops and "test_sight_unseen.py:" in stops


@pytest.mark.parametrize("module", [m for name, m in CASES.items() if "row 0" in name])
def test_row_0_taken_out_of_sight_is_inconclusive_where_the_element_keeps_it(module):
    """The proof's element at n = 8 keeps point 0: the moved call agrees, the walk's stop remains."""
    result = gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact")
    assert result.verdict == "inconclusive" and "out of the walk's sight" in str(result.proof.stops)


def test_the_note_names_the_operation_that_used_it():
    result = gdlcheck.verify_callable(CASES["no_dispatch, row 0"], "symmetric", shape=(8, 3), method="exact")
    assert "used by aten.add.Tensor" in str(result.proof.stops)


GLOBAL = torch.linspace(-1.0, 1.0, 3, dtype=torch.float64)


class UsesWhatWasThere(torch.nn.Module):
    """A global constant, a parameter's memory taken with ``.data``: made before the proof."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.linear(x) + GLOBAL + self.linear.weight.data.sum(0)


class ReadsAConstantOutOfSight(torch.nn.Module):
    """A value read with dispatch off from a tensor made before the proof stays proved."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(2.0, dtype=torch.float64))

    def forward(self, x):
        with no_dispatch():
            k = self.scale.item()
        return x * k


ROW = torch.ones(1, 3, dtype=torch.float64)


class MeetsAConstantFirst(torch.nn.Module):
    """The walk lists the young tensors when it meets a tensor there before the proof; one made
    out of sight after that list, or met beside that tensor in one operation, is still found."""

    def __init__(self, same_operation: bool):
        super().__init__()
        self.same_operation = same_operation

    def forward(self, x):
        a = x * GLOBAL
        with no_dispatch():
            y = x[:1] * 1
        if self.same_operation:
            return a + torch.cat([ROW, y]).sum(0)
        return a + ROW + y


@pytest.mark.parametrize("same_operation", [False, True], ids=["later", "beside"])
def test_a_tensor_made_out_of_sight_after_a_constant_is_found(same_operation):
    result = gdlcheck.verify_callable(MeetsAConstantFirst(same_operation), "symmetric", shape=(8, 3), method="exact")
    assert result.verdict == "inconclusive" and "out of the walk's sight" in str(result.proof.stops)


@pytest.mark.parametrize("size", [(8, 3), (1366, 3)], ids=str)  # n x d past 4,096 too
@pytest.mark.parametrize("module", [UsesWhatWasThere(), ReadsAConstantOutOfSight()], ids=["data", "read"])
def test_what_was_there_before_the_proof_stays_proved(module, size):
    assert verdict(module, size, "exact") == "holds"


def test_a_constant_made_out_of_sight_stops_and_says_so():
    """Made from constants only, but out of sight: the walk cannot tell, so it stops."""

    class MadeOutOfSight(torch.nn.Module):
        def forward(self, x):
            with no_dispatch():
                c = torch.ones(3, dtype=torch.float64)
            return x + c

    result = gdlcheck.verify_callable(MadeOutOfSight(), "symmetric", shape=(8, 3), method="exact")
    assert result.verdict == "inconclusive" and "out of the walk's sight" in str(result.proof.stops)


@pytest.mark.slow
def test_the_command_line_does_not_pass_it(tmp_path):
    (tmp_path / "hidden.py").write_text(
        textwrap.dedent("""
        import torch
        from torch.utils._mode_utils import no_dispatch

        class Hidden(torch.nn.Module):
            def forward(self, x):
                with no_dispatch():
                    y = x[:1] * 1
                return x + y
    """)
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "gdlcheck",
            "verify",
            "--callable",
            "hidden.py:Hidden",
            "--input-shape",
            "2049x3",
            "--group",
            "symmetric",
            "--format",
            "json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=newcomer_env(NO_COLOR="1"),
        timeout=300,
    )
    assert out.returncode not in (0, 2, 70), out.stderr
    assert json.loads(out.stdout)["verdict"] in ("fails", "inconclusive")


# A write out of sight into a tensor the walk saw made: the walk kept what it knew of it (zeros, a
# constant), and the moved call agreed where its element kept point 0.  The write bumped the version
# counter the tensor shares with its views, which the walk reads.
def _written(hide):
    class WritesRow0(torch.nn.Module):
        def forward(self, x):
            z = torch.zeros(2, x.shape[1], dtype=x.dtype)
            row = z[:1]
            hide(lambda: z.copy_(x[:2]))
            return x + row

    return WritesRow0()


def _written_then_viewed(hide):
    class WritesThenViews(torch.nn.Module):
        """The view is made out of sight too, after the write: the walk meets it first."""

        def forward(self, x):
            z = torch.zeros(2, x.shape[1], dtype=x.dtype)
            row = hide(lambda: z.copy_(x[:2])[:1])
            return x + row

    return WritesThenViews()


WRITES = {name: _written(hide) for name, hide in HIDE.items()}
WRITES.update({f"{name}, viewed": _written_then_viewed(hide) for name, hide in HIDE.items()})


@pytest.mark.parametrize("module", WRITES.values(), ids=WRITES.keys())
def test_each_writing_module_moves_otherwise_than_the_points(module):
    assert not commutes(module, np.random.default_rng(1).permutation(8), points(8, 3))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("module", WRITES.values(), ids=WRITES.keys())
def test_a_write_out_of_sight_is_never_proved(module, method, size):
    assert verdict(module, size, method) != "holds"


@pytest.mark.parametrize("module", WRITES.values(), ids=WRITES.keys())
def test_a_write_out_of_sight_stops_the_first_call(module):
    result = gdlcheck.verify_callable(module, "symmetric", shape=(8, 3), method="exact")
    assert result.verdict == "inconclusive"
    assert "a tensor written out of the walk's sight" in str(result.proof.stops)


class WritesWhatItSees(torch.nn.Module):
    """Writes the walk sees, through views and in place, then reads: proved."""

    def forward(self, x):
        z = x * 1.0
        z.mul_(2.0)
        z.transpose_(0, 1)
        c = torch.zeros(1, x.shape[1], dtype=x.dtype)
        first = c[:, :1]
        first.fill_(1.0)
        c[:, 1:].add_(2.0)
        return z.T + c + first


@pytest.mark.parametrize("size", [(8, 3), (1366, 3)], ids=str)
def test_writes_the_walk_sees_stay_proved(size):
    assert verdict(WritesWhatItSees(), size, "exact") == "holds"


class WritesThroughAliases(torch.nn.Module):
    """Writes the walk sees through a detached alias (its base's counter) and into the pieces of an
    unsafe split (each its own counter, over one memory): proved."""

    def forward(self, x):
        z = x * 1.0
        z.detach().mul_(2.0)
        pieces = torch.ops.aten.unsafe_split.Tensor(torch.cat([x, x], 1) * 1.0, x.shape[1], 1)
        pieces[0].add_(1.0)
        return z + pieces[1] + pieces[0]


def test_writes_through_aliases_stay_proved():
    assert verdict(WritesThroughAliases(), (8, 3), "exact") == "holds"


class ViewOfAnAttribute(torch.nn.Module):
    """A plain tensor attribute (no parameter, no buffer) read through a view: ``w[:, 0]`` is a view
    an operation makes of a tensor there before the proof, and the tensor stays a constant."""

    def __init__(self):
        super().__init__()
        self.w = torch.randn(3, 3, generator=torch.Generator().manual_seed(0))

    def forward(self, x):
        return x * self.w[:, 0] + self.w[0]


def test_a_view_of_a_tensor_there_before_the_proof_keeps_it_a_constant():
    result = gdlcheck.verify_callable(ViewOfAnAttribute(), "symmetric", shape=(6, 3), method="exact")
    assert result.verdict == "holds", result.report()
