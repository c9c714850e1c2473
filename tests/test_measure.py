"""``gdlcheck measure``: a trained model's equivariance error layer by layer on the user's data,
and each layer's own contribution.  A DeepSets model with a per-position leak is trained for a
moment, saved, loaded into its module, and measured; the numbers are checked against the same
quantities computed here by hand."""

import json
import sys

import numpy as np
import pytest
import safetensors.torch
import torch
from torch import nn

import gdlcheck
from gdlcheck.code import layerwise
from gdlcheck.errors import GdlcheckError
from tests.conftest import SAMPLES

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'

N, D, H = 6, 2, 16
# the manual's worked example: a DeepSets model with a per-position scale after phi (the leak)
sys.path.insert(0, str(SAMPLES))
from leaky_deepsets import LeakyDeepSets  # noqa: E402


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Trained for a moment on a target that depends on the first position (so the leak learns)."""
    torch.manual_seed(0)
    model = LeakyDeepSets()
    x = torch.randn(256, N, D)
    y = x[..., 0].sum(-1, keepdim=True) + 2 * x[:, :1, 1]
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(150):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    path = tmp_path_factory.mktemp("trained") / "leaky.safetensors"
    safetensors.torch.save_file(model.state_dict(), str(path))
    return model, path, torch.randn(16, N, D, generator=torch.Generator().manual_seed(1))


def act(p, t, axis=1):
    """The entry at j moves to p[j] (docs/design.md section 1), by hand."""
    out = torch.empty_like(t)
    index = [slice(None)] * t.dim()
    source = [slice(None)] * t.dim()
    for j, pj in enumerate(p):
        index[axis], source[axis] = pj, j
        out[tuple(index)] = t[tuple(source)]
    return out


def test_measure_names_the_leaking_layer_and_its_numbers_are_the_hand_computed_ones(trained):
    model, path, data = trained
    assert float(model.leak.pos.detach().std()) > 1e-3  # training moved the leak off zero
    fresh = LeakyDeepSets()  # the checkpoint loads into a new module of the class
    measured = gdlcheck.measure(fresh, "symmetric", data, weights=path, elements=4, seed=3)
    assert measured.largest.path == "leak"
    layers = {m.path: m for m in measured.layers}
    assert [m.path for m in measured.layers][:3] == ["", "phi", "phi.0"]  # the order the model runs them
    perms, kinds = layerwise.group_elements(gdlcheck.group("symmetric", n=N), 4, 3)
    assert kinds == ["generator"] * 2 + ["random"] * 4
    m64 = model.double().eval()
    x = data.double()
    with torch.no_grad():
        u = m64.phi(x)  # the leak's input in the run on x
        scale = 1 + m64.leak.pos
        fx = m64(x)
        for k, p in enumerate(perms):
            gu = act(p, u)
            own = torch.linalg.norm(gu * scale - act(p, u * scale)) / torch.linalg.norm(act(p, u * scale))
            whole = torch.linalg.norm(m64(act(p, x)) - fx) / torch.linalg.norm(fx)  # invariant output
            assert layers["leak"].own[k] == pytest.approx(float(own), rel=1e-9)
            assert layers["leak"].errors[k] == pytest.approx(float(own), rel=1e-9)  # phi keeps it: the same
            assert layers[""].errors[k] == pytest.approx(float(whole), rel=1e-9)
    # the layers before the leak keep the symmetry; those after it add nothing of their own
    assert all(layers[p].error < 1e-12 for p in ("phi", "phi.0", "phi.1", "phi.2"))
    assert all((layers[p].own_contribution or 0) < 1e-12 for p in ("rho.0", "rho.1", "rho.2"))
    assert layers["rho.2"].error > 1e-3


class ZeroPadded(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 4, 3, padding=1)
        self.act = nn.ReLU()
        self.c2 = nn.Conv1d(4, 1, 3, padding=1, padding_mode="circular")

    def forward(self, x):
        return self.c2(self.act(self.c1(x)))


def test_a_cnn_with_zero_padding_breaks_the_shifts_at_its_zero_padded_conv():
    torch.manual_seed(0)
    cnn = ZeroPadded()
    data = torch.randn(8, 1, 16)
    measured = gdlcheck.measure(cnn, "cyclic", data, points_axis=2, elements=2)
    layers = {m.path: m for m in measured.layers}
    assert measured.largest.path == "c1"
    assert layers["act"].own_contribution == 0 and layers["c2"].own_contribution < 1e-12
    # by hand: the unit shift moves entry j to j + 1, which zero padding does not commute with
    c1 = cnn.c1.double()
    with torch.no_grad():
        x = data.double()
        own = torch.linalg.norm(c1(torch.roll(x, 1, 2)) - torch.roll(c1(x), 1, 2)) / torch.linalg.norm(
            torch.roll(c1(x), 1, 2)
        )
    assert measured.elements[0] == "(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)"
    assert layers["c1"].own[0] == pytest.approx(float(own), rel=1e-9)


def test_the_command_line_gives_the_table_json_and_picture(run, trained, tmp_path, monkeypatch):
    _, path, data = trained
    monkeypatch.chdir(tmp_path)
    np.save(tmp_path / "batch.npy", data.numpy())
    model = f"{SAMPLES / 'leaky_deepsets.py'}:LeakyDeepSets"
    args = ["measure", "--callable", model, "--weights", path, "--data", "batch.npy", "-g", "symmetric"]
    result = run([*args, "--format", "json", "--elements", "2"])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["schema_version"] == 1 and out["largest_contributor"] == "leak"
    assert out["data"] == {"input": "batch.npy", "shape": [16, N, D], "points_axis": 1}
    assert [e["kind"] for e in out["elements"]] == ["generator", "generator", "random", "random"]
    leak = next(layer for layer in out["layers"] if layer["path"] == "leak")
    assert leak["kind"] == "PosLeak" and leak["own_contribution"] == max(leak["own"]) > 0
    monkeypatch.setenv("COLUMNS", "120")
    result = run([*args, "--plot", tmp_path / "layers.png"])
    assert result.exit_code == 0 and "largest own contribution: leak (PosLeak)" in result.stdout
    assert (tmp_path / "layers.png").read_bytes()[:4] == b"\x89PNG"
    # bad input is one line, exit 2
    for bad, says in ((["--data", "missing.npy"], "cannot read"), (["-n", "5"], "the group acts on n = 5")):
        result = run(["measure", "--callable", model, "--data", "batch.npy", "-g", "symmetric", *bad])
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and says in result.stderr, result.stderr


def test_measure_refuses_what_it_cannot_measure():
    """Not a module, data that is not finite, a module with no values (its copy is verify's: the
    meta device is told, not found by a failing call)."""
    with pytest.raises(GdlcheckError, match="measure takes a torch.nn.Module"):
        gdlcheck.measure(lambda x: x, "cyclic", np.ones((2, 4, 1)))
    with pytest.raises(GdlcheckError, match="NaN or infinite"):
        gdlcheck.measure(nn.Identity(), "cyclic", np.full((2, 4, 1), np.nan))
    with pytest.raises(GdlcheckError, match="^Sequential: the module Sequential is on the meta device"):
        gdlcheck.measure(nn.Sequential(nn.Linear(1, 1, device="meta")), "cyclic", np.ones((2, 4, 1)))
    measured = gdlcheck.measure(nn.Identity(), "cyclic", np.ones((4, 1)))  # one input: a batch of one
    assert measured.largest is None and measured.data_shape == (1, 4, 1)
    assert "no layer contributes" in measured.report()


@pytest.mark.parametrize("own, named", [([0.0, 7.5e-17], None), ([3e-13, 0.0], None), ([0.0, 2e-9], "b")])
def test_the_largest_own_contribution_is_past_float64_rounding(own, named):
    layers = [
        layerwise.LayerMeasure("", "Model", 0, 0, "points", errors=[max(own)], own=[None], is_leaf=False),
        layerwise.LayerMeasure("a", "Linear", 1, 1, "points", errors=[own[0]], own=[own[0]]),
        layerwise.LayerMeasure("b", "Linear", 1, 2, "points", errors=[own[1]], own=[own[1]]),
    ]
    measured = layerwise.Measured(
        "m", "x", (1, 4, 2), 1, gdlcheck.group("cyclic", n=4), ["(0 1 2 3)"], ["generator"], layers
    )
    assert (measured.largest.path if measured.largest else None) == named
