"""The raw scan of a checkpoint tells the truth: a tensor is judged as a map on the points only
where that is what it is (a square matrix of the group's n, a bias of length n, a convolution
kernel under the grid's rotations and mirrors); everything else is listed as not on the points,
never as FAIL.  Five kinds of checkpoint a user has: DeepSets, a CNN, an untied linear layer on
the points, an MLP, a whole pickled module."""

import json

import numpy as np
import pytest
import torch
from torch import nn

import gdlcheck
from gdlcheck.verification import tensors

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def save(module: nn.Module, path) -> None:
    torch.manual_seed(0)
    for p in module.parameters():
        nn.init.normal_(p)
    torch.save(module.state_dict(), path)


class DeepSets(nn.Module):
    def __init__(self, d: int = 2, h: int = 32):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, h))
        self.rho = nn.Sequential(nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))

    def forward(self, x):
        return self.rho(self.phi(x).sum(-2))


def test_deepsets_features_are_not_on_the_points(run, tmp_path):
    path = tmp_path / "deepsets.pt"
    save(DeepSets(), path)
    # on 10 points no tensor of the model acts on them: the model is what to check
    result = run(["verify", path, "--group", "symmetric", "-n", 10])
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "holds no tensor on the points to check (phi.0.weight (32 x 2), phi.0.bias (32)," in result.stderr
    assert "check the model with --callable MODULE:ATTR --weights FILE" in result.stderr
    # on 32 points the 32 x 32 weights would be maps on them, and are judged as such
    out = lines(run(["verify", path, "--group", "symmetric", "-n", 32, "--format", "json"]).stdout)
    roles = {o["tensor"]: (o["role"], o["n"]) for o in out}
    assert roles["phi.2.weight"] == ("matrix", 32) and roles["phi.2.bias"] == ("bias", 32)
    assert roles["phi.0.weight"] == ("other", None) and roles["rho.2.bias"] == ("other", 1)
    # without the group's size nothing says the 32 x 32 weights act on points: checked at their own n,
    # they do not commute, and they are listed as not judged, never as FAIL (exit 0)
    result = run(["verify", path, "--group", "symmetric", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    out = {o["tensor"]: o for o in lines(result.stdout)}
    assert {k for k, o in out.items() if o["role"] == "matrix"} == {"phi.2.weight", "rho.0.weight"}
    assert {o["verdict"] for o in out.values()} == {"not_judged"}
    assert "give -n 32 to judge it as a map on the points" in out["phi.2.weight"]["note"]


def test_a_cnn_has_its_kernels_judged_and_the_rest_listed(run, tmp_path):
    path = tmp_path / "cnn.pt"
    cnn = nn.Sequential(
        nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.Conv1d(8, 8, 5, padding=2), nn.Flatten(), nn.Linear(8 * 16, 3)
    )
    save(cnn, path)
    result = run(["verify", path, "--group", "cyclic", "-n", 16, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    out = {o["tensor"]: o for o in lines(result.stdout)}
    assert {k: (o["role"], o["verdict"]) for k, o in out.items()} == {
        "0.weight": ("kernel", "holds"),
        "0.bias": ("other", "not_judged"),
        "2.weight": ("kernel", "holds"),
        "2.bias": ("other", "not_judged"),
        "4.weight": ("other", "not_judged"),
        "4.bias": ("other", "not_judged"),
    }
    assert "zero padding breaks it at the border: check the model with --callable" in out["0.weight"]["note"]
    assert out["2.bias"]["note"] == "not on the points (n = 8): check the model with --callable"
    assert not any(o["verdict"] == "fails" for o in out.values())
    # a mirror is a condition on the kernel: a random one fails it, at its worst entry
    result = run(["verify", path, "--group", "dihedral", "-n", 16, "--format", "json"])
    kernel = {o["tensor"]: o for o in lines(result.stdout)}["0.weight"]
    assert result.exit_code == 1 and kernel["verdict"] == "fails"
    (check,) = kernel["checks"]
    K = cnn[0].weight.detach().double().numpy()
    diff = np.abs(K - K[..., ::-1])
    assert check["generator"] == "reflection" and check["max_abs_error"] == pytest.approx(diff.max(), rel=1e-6)
    assert check["counterexample"]["index"] == list(np.unravel_index(diff.argmax(), diff.shape))


def test_an_untied_linear_layer_on_the_points_fails_with_its_distance(run, tmp_path):
    path = tmp_path / "mix.pt"
    save(nn.Linear(6, 6), path)
    out = {
        o["tensor"]: o for o in lines(run(["verify", path, "--group", "cyclic", "-n", 6, "--format", "json"]).stdout)
    }
    assert out["weight"]["verdict"] == "fails" and out["weight"]["role"] == "matrix"
    # the bias is judged as one: constant on the orbit, else it fails, with its distance to the orbit mean
    b = torch.load(path)["bias"].double().numpy()
    assert out["bias"]["verdict"] == "fails"
    assert out["bias"]["relative_distance"] == pytest.approx(np.linalg.norm(b - b.mean()) / np.linalg.norm(b))


def test_an_mlp_over_features_is_not_judged_and_a_whole_module_is_refused(run, tmp_path):
    path = tmp_path / "mlp.pt"
    save(nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)), path)
    result = run(["verify", path, "--group", "symmetric", "-n", 5])
    assert result.exit_code == 2 and "holds no tensor on the points" in result.stderr
    whole = tmp_path / "whole.pt"
    torch.save(DeepSets(), whole)
    result = run(["verify", whole, "--group", "symmetric", "-n", 5])
    assert result.exit_code == 2 and "save the state_dict" in result.stderr


def test_without_a_size_each_square_tensor_is_judged_at_its_own_n_and_the_header_says_so(run, tmp_path, monkeypatch):
    path = tmp_path / "w.npz"
    i3, i4 = np.arange(3), np.arange(4)
    np.savez(path, small=np.arange(3.0)[(i3[:, None] - i3) % 3], large=np.arange(4.0)[(i4[:, None] - i4) % 4])
    monkeypatch.setenv("COLUMNS", "120")
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 0
    assert "2 tensor(s) against cyclic, each tensor at its own n" in " ".join(result.stdout.split())
    rows = {line.split()[0]: line.split()[4] for line in result.stdout.splitlines() if "PASS" in line}
    assert rows == {"small": "3", "large": "4"}


def _rotation_invariant(k: int = 5) -> np.ndarray:
    # integers, so the sum is exact; on 5 x 5 (unlike 3 x 3) a turned kernel need not be mirrored
    K = np.random.default_rng(0).integers(-9, 9, (2, 1, k, k)).astype(float)
    return sum(np.rot90(K, r, axes=(-2, -1)) for r in range(4))


@pytest.mark.parametrize(
    "group, kernel, verdict",
    [
        ("p4", _rotation_invariant(), "holds"),
        ("p4m", _rotation_invariant(), "fails"),  # not mirrored into itself
        ("p4m", _rotation_invariant() + _rotation_invariant()[..., ::-1], "holds"),
        ("translations", np.random.default_rng(1).standard_normal((2, 1, 3, 3)), "holds"),
    ],
)
def test_grid_kernels_under_rotations_and_mirrors(tmp_path, group, kernel, verdict):
    path = tmp_path / "k.npz"
    np.savez(path, conv=kernel)
    (checked,) = gdlcheck.verify_weights(path, group, shape="8x8")
    assert (checked.role, checked.verdict) == ("kernel", verdict)
    roles = {c.role for c in checked.kernel.checks}
    assert roles == {"translations": set(), "p4": {"rotation"}, "p4m": {"rotation", "grid-reflection"}}[group]


@pytest.mark.parametrize(
    "shape, sized, role, why",
    [
        ((6, 6), True, "matrix", None),
        ((4, 4), True, "other", tensors.NOT_POINTS),
        ((4, 4), False, "matrix", tensors.OWN_N),
        ((6,), True, "bias", None),
        ((6,), False, "other", tensors.NO_SIZE),
        ((3, 6), True, "other", tensors.NOT_POINTS),
        ((2, 1, 4), True, "other", tensors.EVEN_KERNEL),
        ((2, 1, 3), True, "kernel", None),
        ((2, 1, 3, 3), True, "other", tensors.KERNEL_GROUP),
        ((), True, "other", tensors.NOT_POINTS),
    ],
)
def test_what_a_tensor_is_for_the_dihedral_group_on_six_points(shape, sized, role, why):
    got = tensors.role_of(shape, gdlcheck.group("dihedral", n=6), sized)
    assert (got.role, got.why) == (role, why)
