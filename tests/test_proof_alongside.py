"""Issue 28's findings beside the wrong ``holds``, each written from its description: a report that
crashed on a key padding mask, a storage read that took minutes, proofs in two threads, an ``out=``
buffer, and grad mode."""

import threading

import pytest

pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

D = 8


MODEL = """
import torch
D = 8


class Padded(torch.nn.Module):
    def __init__(self, n, encoder):
        super().__init__()
        if encoder:
            layer = torch.nn.TransformerEncoderLayer(D, 2, 16, batch_first=True)
            self.enc = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        else:
            self.attn = torch.nn.MultiheadAttention(D, 2, batch_first=True)
        self.encoder = encoder
        mask = torch.zeros(1, n, dtype=torch.bool)
        mask[0, -1] = True
        self.register_buffer("pad", mask)

    def forward(self, x):
        if self.encoder:
            return self.enc(x, src_key_padding_mask=self.pad)
        return self.attn(x, x, x, key_padding_mask=self.pad)[0]


torch.manual_seed(0)
attention, encoder = Padded(6, False), Padded(6, True)
"""


@pytest.mark.parametrize("target", ["attention", "encoder"])
@pytest.mark.parametrize("form", ["text", "json"])
def test_a_key_padding_mask_buffer_is_reported_not_a_crash(target, form, run, tmp_path, monkeypatch):
    (tmp_path / "padded.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run(
        [
            "verify",
            "--callable",
            f"padded:{target}",
            "--input-shape",
            f"1x6x{D}",
            "--points-axis",
            "1",
            "--group",
            "symmetric",
            "--method",
            "exact",
            "--format",
            form,
        ]
    )
    assert result.exit_code in (1, 3), result.output  # the last key is padding: not symmetric, no exit 70


class StorageRead(torch.nn.Module):
    def forward(self, x):
        values = x._typed_storage().tolist()
        return x + values[0]


def test_a_storage_read_stops_the_proof_in_linear_time():
    result = gdlcheck.verify_callable(StorageRead(), "symmetric", shape=(1024, 2), method="exact")
    assert result.verdict == "inconclusive"
    stops = " ".join(str(s.step.label) for s in result.proof.stops.values())
    assert "a handle on the memory of a tensor the call made (Tensor._typed_storage)" in stops


class Linear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x).relu()


def test_two_proofs_in_threads_leave_no_tensor_method_patched():
    before = {name: torch.Tensor.__dict__.get(name) for name in dir(torch.Tensor)}
    grad = torch.is_grad_enabled
    verdicts = []
    # made before the threads: a module made meanwhile draws from torch's global generator, which a
    # proof in another thread then sees change (and stops, as for any call that changes it)
    modules = [Linear() for _ in range(3)]

    def prove(module):
        verdicts.append(gdlcheck.verify_callable(module, "symmetric", shape=(6, 3), method="exact").verdict)

    threads = [threading.Thread(target=prove, args=(m,)) for m in modules]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert verdicts == ["holds"] * 3
    after = {name: torch.Tensor.__dict__.get(name) for name in dir(torch.Tensor)}
    assert after == before and torch.is_grad_enabled is grad


class OutInto(torch.nn.Module):
    def forward(self, x):
        buf = torch.empty_like(x)
        torch.add(x, 1.0, out=buf)
        return buf


def test_an_out_buffer_made_by_empty_like_is_proved():
    result = gdlcheck.verify_callable(OutInto(), "symmetric", shape=(6, 2), method="exact")
    assert result.verdict == "holds"


def test_a_module_that_branches_on_grad_mode_is_noted():
    torch.manual_seed(0)
    attention = torch.nn.MultiheadAttention(D, 2, batch_first=True)

    class Self(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = attention

        def forward(self, x):
            return self.attn(x, x, x)[0]

    result = gdlcheck.verify_callable(Self(), "symmetric", shape=(1, 5, D), points_axis=1, method="exact")
    assert any(n.what == "grad_mode" for n in result.notes)
    plain = gdlcheck.verify_callable(Linear(), "symmetric", shape=(6, 3), method="exact")
    assert not any(n.what == "grad_mode" for n in plain.notes)


def test_the_path_check_keys_a_storage_by_its_size_not_its_entries():
    """A storage's repr lists every entry: keyed by it, a read entry by entry (each a ``set_`` with
    the storage as argument) cost the whole storage per entry, quadratic in its size."""
    from gdlcheck.code.prover import values

    t = torch.zeros(100_000, dtype=torch.float64)
    key = values.path_key(torch.ops.aten.set_.source_Storage, (torch.empty(0), t.untyped_storage()), {})
    assert key == (("UntypedStorage", 800_000),)
