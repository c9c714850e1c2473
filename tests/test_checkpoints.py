"""Every checkpoint read safely: tensors that torch.load(weights_only=True) accepts but numpy
cannot take as they are, containers that hold themselves or are shared 2^60 ways, nesting past
the budget, .npz members zipfile cannot decompress, numpy arrays in a checkpoint, and archives
and headers opened once per file (linear in the number of tensors)."""

import json
import struct
import sys
import warnings
import zipfile

import numpy as np
import pytest
import safetensors.numpy
import torch

from gdlcheck.inputs import tensor_files, weights

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'

N = 4


def circulant(n: int = N) -> torch.Tensor:
    i = torch.arange(n)
    return torch.arange(1.0, n + 1)[(i[:, None] - i[None, :]) % n]


def one_error_line(result, path) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith(f"gdlcheck: error: {path}: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def verdicts(result) -> dict:
    return {o["tensor"]: o["verdict"] for o in map(json.loads, result.stdout.splitlines())}


@pytest.fixture(autouse=True)
def _quiet_torch():
    with warnings.catch_warnings():  # sparse CSR, quantized and nested tensors are beta or deprecated in torch
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize(
    "make",
    [lambda t: t.to_sparse(), lambda t: t.to_sparse_csr(), lambda t: torch.quantize_per_tensor(t, 0.5, 0, torch.qint8)],
    ids=["coo", "csr", "quantized"],
)
def test_sparse_and_quantized_tensors_are_read_as_their_values(run, tmp_path, make):
    path = tmp_path / "w.pt"
    broken = circulant()
    broken[0, 1] += 1.0
    torch.save({"conv": make(circulant()), "mix": make(broken)}, path)
    result = run(["verify", path, "--group", "cyclic", "-n", N, "--format", "json"])
    assert result.exit_code == 1, result.stderr
    assert verdicts(result) == {"conv": "holds", "mix": "fails"}
    (conv, _) = weights.read_tensors(str(path))
    assert np.array_equal(conv.load(), circulant().numpy())


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda: torch.empty(N, N, device="meta"), "tensor m is a meta tensor, which holds no values"),
        (lambda: torch.nested.nested_tensor([torch.ones(2, 2), torch.ones(3, 2)]), "tensor m is a nested tensor"),
    ],
    ids=["meta", "nested"],
)
def test_meta_and_nested_tensors_are_one_error_line(run, tmp_path, make, says):
    path = tmp_path / "w.pt"
    torch.save({"m": make(), "conv": circulant()}, path)
    result = run(["verify", path, "--group", "cyclic", "--tensor", "m", "--tensor", "conv", "--format", "json"])
    assert verdicts(result) == {"m": "error", "conv": "holds"}
    assert says in one_error_line(result, path)


def test_a_list_that_holds_itself_is_walked_once(run, tmp_path):
    path = tmp_path / "w.pt"
    loop = [circulant()]
    loop.append(loop)
    torch.save({"a": loop, "b": loop}, path)
    assert [t.name for t in weights.read_tensors(str(path))] == ["a.0"]
    assert run(["verify", path, "--group", "cyclic"]).exit_code == 0


def test_billion_laughs_costs_one_visit_per_list(tmp_path, monkeypatch):
    path = tmp_path / "laughs.pt"
    y = [circulant()]
    for _ in range(60):
        y = [y, y]  # 2^60 paths to the one tensor
    torch.save(y, path)
    assert path.stat().st_size < 4000
    seen = []
    real = tensor_files._torch_tensor
    monkeypatch.setattr(tensor_files, "_torch_tensor", lambda *a: seen.append(a[1]) or real(*a))
    (tensor,) = weights.read_tensors(str(path))
    assert tensor.name == ".".join(["0"] * 61) and len(seen) == 1


def test_nesting_past_the_budget_is_refused(run, tmp_path):
    path = tmp_path / "deep.pt"
    deep = circulant()
    for _ in range(5000):
        deep = [deep]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # torch.save pickles recursively
    try:
        torch.save(deep, path)
    finally:
        sys.setrecursionlimit(limit)
    result = run(["verify", path, "--group", "cyclic"])
    assert f"nests its containers more than {tensor_files.MAX_CHECKPOINT_DEPTH} levels deep" in one_error_line(
        result, path
    )


def test_the_entries_and_tensor_budgets(run, tmp_path, monkeypatch):
    path = tmp_path / "many.pt"
    torch.save({f"t{i}": circulant() for i in range(20)}, path)
    monkeypatch.setattr(tensor_files, "MAX_WEIGHTS_TENSORS", 10)
    result = run(["verify", path, "--group", "cyclic"])
    assert "holds 11 tensors or more, over the limit of 10 for a weights file" in one_error_line(result, path)
    np.savez(tmp_path / "many.npz", **{f"t{i}": circulant().numpy() for i in range(20)})
    assert "over the limit of 10" in run(["verify", tmp_path / "many.npz", "--group", "cyclic"]).stderr
    safetensors.numpy.save_file({f"t{i}": circulant().numpy() for i in range(20)}, str(tmp_path / "many.safetensors"))
    assert "over the limit of 10" in run(["verify", tmp_path / "many.safetensors", "--group", "cyclic"]).stderr
    monkeypatch.setattr(tensor_files, "MAX_WEIGHTS_TENSORS", 100)
    monkeypatch.setattr(tensor_files, "MAX_CHECKPOINT_ENTRIES", 10)
    result = run(["verify", path, "--group", "cyclic"])
    assert "holds more than 10 entries in its containers" in one_error_line(result, path)


def test_a_numpy_array_in_a_checkpoint_is_told_to_save_tensors(run, tmp_path):
    path = tmp_path / "w.pt"
    torch.save({"w": np.eye(N)}, path)
    result = run(["verify", path, "--group", "cyclic"])
    assert "holds numpy arrays, which torch.load(weights_only=True) does not read: save tensors" in one_error_line(
        result, path
    )


def _patched_npz(path, flags: int = 0, method: int | None = None) -> None:
    np.savez(path, w=circulant().numpy())
    data = bytearray(path.read_bytes())
    central = data.find(b"PK\x01\x02")
    struct.pack_into("<H", data, 6, flags)
    struct.pack_into("<H", data, central + 8, flags)
    if method is not None:
        struct.pack_into("<H", data, 8, method)
        struct.pack_into("<H", data, central + 10, method)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "flags, method, says",
    [
        (0, 99, "That compression method is not supported"),
        (1, None, "it is encrypted"),
        (0x20, None, "compressed patched data"),
    ],
    ids=["method-99", "encrypted", "flag-bit-5"],
)
def test_npz_members_zipfile_cannot_read_are_one_line(run, tmp_path, flags, method, says):
    path = tmp_path / "w.npz"
    _patched_npz(path, flags, method)
    stderr = one_error_line(run(["verify", path, "--group", "cyclic"]), path)
    assert f"member w.npy cannot be read ({says}" in stderr and "save the archive with numpy.savez" in stderr


@pytest.mark.parametrize("suffix", [".npz", ".safetensors"])
def test_the_archive_or_header_is_opened_once_per_file(tmp_path, monkeypatch, suffix):
    tensors = {f"layer{i}.weight": circulant().numpy() for i in range(30)}
    path = tmp_path / f"w{suffix}"
    np.savez(path, **tensors) if suffix == ".npz" else safetensors.numpy.save_file(tensors, str(path))
    opened = []
    if suffix == ".npz":
        real = zipfile.ZipFile.__init__
        monkeypatch.setattr(zipfile.ZipFile, "__init__", lambda self, *a, **k: opened.append(a) or real(self, *a, **k))
    else:
        real = tensor_files._safetensors_offsets
        monkeypatch.setattr(tensor_files, "_safetensors_offsets", lambda p: opened.append(p) or real(p))
    listed = weights.read_tensors(str(path))
    values = [t.load() for t in listed]
    assert len(opened) == 1
    assert sorted(t.name for t in listed) == sorted(tensors)
    assert all(np.array_equal(v, tensors[t.name]) for t, v in zip(listed, values))


def test_plot_takes_the_tensor_named(run, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "w.npz"
    broken = circulant().numpy()
    broken[0, 1] += 1.0
    np.savez(path, conv=circulant().numpy(), mix=broken)
    picture = tmp_path / "w.png"
    result = run(["verify", path, "--group", "cyclic", "-n", N, "--tensor", "mix", "--plot", picture])
    assert result.exit_code == 1, result.stderr
    assert picture.stat().st_size > 0 and "mix" in result.stdout and "conv" not in result.stdout
    result = run(["verify", path, "--group", "cyclic", "--tensor", "mix", "--tensor", "conv", "--plot", picture])
    assert result.exit_code == 2 and "--plot draws one matrix: give one --tensor NAME" in result.stderr
