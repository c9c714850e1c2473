"""Trained models as users have them (issue 30): a checkpoint loaded into the user's module
(``--weights``, ``weights=``), the user's own tensors wherever a matrix goes, and example inputs
(``example=(x, edge_index)``) in place of a shape."""

import json
import textwrap

import numpy as np
import pytest
import safetensors.torch
import torch

import gdlcheck
from gdlcheck.errors import CallableError, GdlcheckError

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'

MODEL = textwrap.dedent("""
    import torch
    from torch import nn


    class Net(nn.Module):
        # DeepSets with a per-position term: equivariant exactly when pos is zero
        def __init__(self, n=6, d=2, h=8):
            super().__init__()
            self.phi = nn.Linear(d, h)
            self.pos = nn.Parameter(torch.zeros(n, 1))
            self.rho = nn.Linear(h, 1)

        def forward(self, x):
            return self.rho(torch.relu(self.phi(x) + self.pos)).sum(-2)
""")


@pytest.fixture
def model_file(tmp_path, monkeypatch):
    (tmp_path / "model.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    import model

    importlib.reload(model)
    return model


def trained(model, leak: float):
    torch.manual_seed(0)
    net = model.Net()
    with torch.no_grad():
        net.pos.copy_(leak * torch.randn(6, 1))
    return net


@pytest.mark.parametrize("suffix", [".safetensors", ".pt"])
def test_a_checkpoint_is_judged_with_its_model(run, tmp_path, model_file, suffix):
    path = tmp_path / f"leaky{suffix}"
    state = trained(model_file, 0.5).state_dict()
    safetensors.torch.save_file(state, str(path)) if suffix == ".safetensors" else torch.save(state, path)
    args = [
        "verify",
        "--callable",
        "model.py:Net",
        "--input-shape",
        "6x2",
        "--group",
        "symmetric",
        "--expect",
        "invariant",
        "--format",
        "json",
    ]
    # the module as its class builds it (pos = 0) holds; with the trained weights it does not
    assert json.loads(run(args).stdout)["passed"] is True
    result = run([*args, "--weights", path])
    out = json.loads(result.stdout)
    assert result.exit_code == 1 and out["verdict"] == "fails"
    assert (out["culprit"]["path"], out["culprit"]["kind"]) == ("pos", "parameter")  # the leak, named
    # the Python call gives the same, and leaves the user's module as it was
    net = model_file.Net()
    assert gdlcheck.verify_callable(net, "symmetric", shape=(6, 2), expect="invariant", weights=path).verdict == "fails"
    assert float(net.pos.abs().max()) == 0.0


def test_a_checkpoint_saved_in_a_dict_or_by_dataparallel_loads_after_its_prefix(tmp_path, model_file):
    state = trained(model_file, 0.0).state_dict()
    torch.save({"model": state, "epoch": 3}, tmp_path / "ckpt.pt")
    torch.save({f"module.{k}": v for k, v in state.items()}, tmp_path / "dp.pt")
    for name in ("ckpt.pt", "dp.pt"):
        r = gdlcheck.verify_callable(
            model_file.Net(), "symmetric", shape=(6, 2), expect="invariant", weights=tmp_path / name
        )
        assert r.passed, name


def test_weights_that_do_not_fit_are_one_line(run, tmp_path, model_file):
    torch.save({"phi.weight": torch.zeros(8, 2)}, tmp_path / "part.pt")
    with pytest.raises(CallableError, match=r"the weights do not fit Net: missing phi.bias, pos, rho.bias, rho.weight"):
        gdlcheck.verify_callable(model_file.Net(), "symmetric", shape=(6, 2), weights=tmp_path / "part.pt")
    state = model_file.Net().state_dict()
    state["phi.weight"] = torch.zeros(3, 3)
    torch.save(state, tmp_path / "shape.pt")
    result = run(
        [
            "verify",
            "--callable",
            "model.py:Net",
            "--input-shape",
            "6x2",
            "--group",
            "symmetric",
            "--weights",
            tmp_path / "shape.pt",
        ]
    )
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "tensor phi.weight is 3 x 3 but the module's phi.weight is 8 x 2" in result.stderr
    result = run(
        [
            "verify",
            "--callable",
            "model.py:Net",
            "--input-shape",
            "6x2",
            "--group",
            "symmetric",
            "--weights",
            tmp_path / "missing.pt",
        ]
    )
    assert result.exit_code == 2 and "cannot read" in result.stderr
    assert "go with --callable" in run(["verify", tmp_path / "shape.pt", "-g", "cyclic", "--weights", "x.pt"]).stderr
    with pytest.raises(CallableError, match="loads a state_dict into a torch.nn.Module"):
        gdlcheck.verify_callable(lambda x: x, "symmetric", shape=(6, 2), weights=tmp_path / "shape.pt")


def test_torch_tensors_and_array_likes_go_wherever_a_matrix_goes():
    i = torch.arange(5)
    W = torch.randn(5)[(i[:, None] - i[None, :]) % 5].requires_grad_()
    assert gdlcheck.verify(W, "cyclic").verdict == "holds"
    assert gdlcheck.verify(W.to(torch.bfloat16), "cyclic").verdict == "holds"
    assert gdlcheck.verify(W.detach().to_sparse(), "cyclic").verdict == "holds"
    assert gdlcheck.project(torch.eye(5) + W, "cyclic").distance == 0
    assert gdlcheck.find_symmetries(torch.eye(3)).group.order == 6

    class Foreign:  # any array type numpy reads through __array__
        def __array__(self, dtype=None, copy=None):
            return np.eye(4)

    assert gdlcheck.verify(Foreign(), "symmetric").verdict == "holds"
    with pytest.raises(GdlcheckError, match="meta tensor holds no matrix"):
        gdlcheck.verify(torch.empty(3, 3, device="meta"), "cyclic")


def message_passing(x, edge_index):
    out = torch.zeros_like(x)
    out.index_add_(0, edge_index[1], x[edge_index[0]])
    return out + x


def test_example_inputs_are_moved_as_they_are(tmp_path):
    x = torch.randn(5, 3, dtype=torch.float64)
    edge_index = torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    for example in ((x, edge_index), {"x": x, "edge_index": edge_index}):
        result = gdlcheck.verify_callable(message_passing, "symmetric", example=example)
        assert result.passed and result.group.n == 5
    gdlcheck.assert_equivariant(message_passing, "symmetric", example=(x, edge_index))
    # the edge_index is relabelled with the points: held fixed instead, the symmetric group breaks it
    with pytest.raises(AssertionError):
        gdlcheck.assert_equivariant(message_passing, "symmetric", example=(x, gdlcheck.fixed(edge_index)))
    with pytest.raises(CallableError, match="not both"):
        gdlcheck.verify_callable(message_passing, "symmetric", shape=(5, 3), example=(x, edge_index))
    with pytest.raises(CallableError, match="needs an array of floating point numbers"):
        gdlcheck.verify_callable(message_passing, "symmetric", example=(edge_index,))
