"""Trained weights files: .pt/.pth (torch.load with weights_only=True), .safetensors and .npz, each
square 2-D tensor (or those --tensor names) checked in a row of its own, with its relative
distance to the nearest equivariant matrix computed here by hand."""

import json
import zipfile

import numpy as np
import pytest
import safetensors.numpy
import torch

import gdlcheck
from gdlcheck.inputs import weights

pytestmark = pytest.mark.slow  # torch: deselect with -m 'not slow'

N = 6


def circulant(seed: int = 0, n: int = N) -> np.ndarray:
    i = np.arange(n)
    return np.random.default_rng(seed).standard_normal(n)[(i[:, None] - i[None, :]) % n]


def cyclic_distance(W: np.ndarray) -> float:
    """|W - P| / |W| with P the mean of W over each diagonal offset, by hand."""
    n = W.shape[0]
    i = np.arange(n)
    offsets = (i[:, None] - i[None, :]) % n
    means = np.array([W[offsets == k].mean() for k in range(n)])
    return float(np.linalg.norm(W - means[offsets]) / np.linalg.norm(W))


@pytest.fixture
def trained():
    """A circulant, the same with one entry moved (a near miss), and tensors that are not square."""
    broken = circulant(1)
    broken[2, 4] += 0.25
    return {"conv.weight": circulant(0), "mix.weight": broken, "mix.bias": np.zeros(N), "head.weight": np.ones((3, N))}


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_safetensors_rows_one_per_square_tensor_with_the_distance(run, tmp_path, trained, monkeypatch):
    path = tmp_path / "model.safetensors"
    safetensors.numpy.save_file(trained, str(path))
    monkeypatch.setenv("COLUMNS", "100")
    result = run(["verify", path, "--group", "cyclic", "-n", N])
    assert result.exit_code == 1, result.stderr
    rows = {
        line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line.endswith(tuple("0123456789"))
    }
    assert rows["conv.weight"] == ["6", "x", "6", "6", "PASS", "0"]
    assert rows["mix.weight"][:5] == ["6", "x", "6", "6", "FAIL"]
    assert float(rows["mix.weight"][5]) == pytest.approx(cyclic_distance(trained["mix.weight"]), rel=1e-3)
    assert "head.weight: not on the points (3 x 6): check the model with --callable" in " ".join(result.stdout.split())
    assert "4 tensors: 2 hold, 1 fail, 1 not judged" in result.stdout


def test_without_a_size_a_square_tensor_that_does_not_commute_is_not_called_failing(
    run, tmp_path, trained, monkeypatch
):
    # nothing says whether a 6 x 6 tensor maps the points or mixes 6 features: one that commutes
    # holds, one that does not is listed with its distance and the -n that would judge it
    path = tmp_path / "model.safetensors"
    safetensors.numpy.save_file(trained, str(path))
    monkeypatch.setenv("COLUMNS", "100")
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 0, result.stderr
    rows = {
        line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line.endswith(tuple("0123456789"))
    }
    assert rows["conv.weight"] == ["6", "x", "6", "6", "PASS", "0"]
    assert rows["mix.weight"][:5] == ["6", "x", "6", "6", "-"]
    assert float(rows["mix.weight"][5]) == pytest.approx(cyclic_distance(trained["mix.weight"]), rel=1e-3)
    assert "FAIL" not in result.stdout
    words = " ".join(result.stdout.split())
    assert "mix.weight: does not commute with cyclic on its own 6 points (" in words
    assert "give -n 6 to judge it as a map on the points, or check the model with --callable" in words
    # without -n a vector is not judged (the bias of which points?), nor a 3 x 6 matrix: listed, with why
    assert "mix.bias: a vector (n = 6): give the group's size (-n N) to check it as a bias on its points" in words
    assert "head.weight: not on the points (3 x 6): check the model with --callable" in words
    assert "4 tensors: 1 hold, 3 not judged" in result.stdout
    listed = {o["tensor"]: o for o in lines(run(["verify", path, "--group", "cyclic", "--format", "json"]).stdout)}
    mix = listed["mix.weight"]
    assert (mix["verdict"], mix["passed"], mix["role"], mix["n"]) == ("not_judged", None, "matrix", 6)
    assert mix["checks"][0]["passed"] is False and mix["checks"][0]["counterexample"] is not None
    assert mix["relative_distance"] == pytest.approx(cyclic_distance(trained["mix.weight"]), rel=1e-12)
    (checked,) = [c for c in gdlcheck.verify_weights(path, "cyclic") if c.name == "mix.weight"]
    assert checked.undecided and not checked.judged and checked.result.verdict == "fails"


def test_json_lines_one_object_per_tensor(run, tmp_path, trained):
    path = tmp_path / "model.safetensors"
    safetensors.numpy.save_file(trained, str(path))
    listed = lines(run(["verify", path, "--group", "cyclic", "-n", N, "--format", "json"]).stdout)
    assert {o["tensor"]: (o["role"], o["verdict"]) for o in listed if o["verdict"] == "not_judged"} == {
        "head.weight": ("other", "not_judged")
    }
    out = [o for o in listed if o["verdict"] != "not_judged" and o["role"] == "matrix"]
    assert [(o["tensor"], o["verdict"]) for o in out] == [("conv.weight", "holds"), ("mix.weight", "fails")]
    assert all(o["input"] == str(path) and o["shape"] == [N, N] and o["schema_version"] == 1 for o in out)
    assert out[0]["relative_distance"] == 0
    assert out[1]["relative_distance"] == pytest.approx(cyclic_distance(trained["mix.weight"]), rel=1e-12)
    assert out[1]["checks"][0]["counterexample"] is not None


def test_a_pt_checkpoint_nested_state_dict_and_tensor_globs(run, tmp_path, trained):
    path = tmp_path / "ckpt.pt"
    state = {k: torch.tensor(v) for k, v in trained.items()}
    torch.save({"model": state, "epoch": 7, "optimizer": {"lr": 0.1}}, path)
    out = lines(run(["verify", path, "--group", "cyclic", "--format", "json", "--tensor", "model.conv.*"]).stdout)
    assert [(o["tensor"], o["verdict"]) for o in out] == [("model.conv.weight", "holds")]
    # a glob picks the square tensors it matches (not the bias, not the 3 x 6 head)
    out = lines(run(["verify", path, "--group", "cyclic", "--format", "json", "--tensor", "model.*"]).stdout)
    assert [o["tensor"] for o in out] == ["model.conv.weight", "model.mix.weight"]
    # a tensor named exactly that is not square is an error row (exit 2), the others are still checked
    result = run(
        [
            "verify",
            path,
            "--group",
            "cyclic",
            "--format",
            "json",
            "--tensor",
            "model.*.weight",
            "--tensor",
            "model.head.weight",
        ]
    )
    assert result.exit_code == 2
    verdicts = {o["tensor"]: o["verdict"] for o in lines(result.stdout)}
    # (without -n the near-circulant may mix 6 features: not judged)
    assert verdicts == {"model.conv.weight": "holds", "model.mix.weight": "not_judged", "model.head.weight": "error"}
    assert result.stderr == f"gdlcheck: error: {path}: tensor model.head.weight is 3 x 6, not a square matrix\n"
    result = run(["verify", path, "--group", "cyclic", "--tensor", "model.mix.b*"])
    assert result.exit_code == 2 and "--tensor 'model.mix.b*' matches no tensor on the points" in result.stderr
    # with the group's size the bias is judged as one: constant on the orbit of the shifts
    out = lines(
        run(["verify", path, "--group", "cyclic", "-n", N, "--format", "json", "--tensor", "model.mix.b*"]).stdout
    )
    assert [(o["tensor"], o["role"], o["verdict"], o["relative_distance"]) for o in out] == [
        ("model.mix.bias", "bias", "holds", 0)
    ]


def test_a_glob_that_matches_nothing_names_what_the_file_holds(run, tmp_path, trained):
    path = tmp_path / "w.npz"
    np.savez(path, **trained)
    result = run(["verify", path, "--group", "cyclic", "--tensor", "encoder.*"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert (
        "--tensor 'encoder.*' matches no tensor; the file has conv.weight (6 x 6), mix.weight (6 x 6)" in result.stderr
    )


def test_npz_and_pth_are_read_the_same(run, tmp_path, trained):
    np.savez(tmp_path / "w.npz", **trained)
    torch.save({k: torch.tensor(v) for k, v in trained.items()}, tmp_path / "w.pth")
    for name in ("w.npz", "w.pth"):
        out = lines(run(["verify", tmp_path / name, "--group", "cyclic", "--format", "json"]).stdout)
        assert [(o["tensor"], o["verdict"]) for o in out] == [
            ("conv.weight", "holds"),
            ("mix.weight", "not_judged"),
            ("mix.bias", "not_judged"),
            ("head.weight", "not_judged"),
        ]


def test_a_pickle_that_would_run_code_is_refused_and_never_runs(run, tmp_path):
    witness = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(witness), "w"))

    path = tmp_path / "evil.pt"
    torch.save({"weight": torch.eye(4), "payload": Payload()}, path)
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 2 and not witness.exists()
    assert "torch.load(weights_only=True) refuses to run the code its pickle names" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_pickled_npz_member_is_refused(run, tmp_path):
    path = tmp_path / "objects.npz"
    np.savez(path, w=np.array([[{"a": 1}, None], [None, None]], dtype=object))
    result = run(["verify", path, "--group", "cyclic", "--tensor", "w"])
    assert result.exit_code == 2
    assert result.stderr == f"gdlcheck: error: {path}: tensor w is of dtype object, not real numbers\n"


@pytest.mark.parametrize(
    "name, data",
    [
        ("bad.pt", b"PK\x03\x04 not a zip"),
        ("bad.npz", b"\x00\x01garbage"),
        ("bad.safetensors", b"\xff" * 16),
        ("empty.pt", b""),
    ],
)
def test_a_corrupt_weights_file_is_one_line(run, tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 2 and result.stderr.startswith(f"gdlcheck: error: {path}: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_bfloat16_safetensors_are_read_without_numpy_knowing_the_type(tmp_path):
    import safetensors.torch

    W = torch.tensor(circulant(3), dtype=torch.bfloat16)
    path = tmp_path / "bf16.safetensors"
    safetensors.torch.save_file({"w": W}, str(path))
    (tensor,) = weights.read_tensors(str(path))
    assert np.array_equal(weights.matrix_of(tensor, str(path)), W.to(torch.float64).numpy())
    assert gdlcheck.verify_weights(path, "cyclic")[0].verdict == "holds"  # rounding keeps a circulant one


# --------------------------------------------------------------------------- budgets


def test_the_budget_of_one_tensor_is_a_row_the_others_still_checked(run, tmp_path, trained, monkeypatch):
    path = tmp_path / "w.npz"
    np.savez(path, small=circulant(0, 3), **trained)
    monkeypatch.setattr(weights, "MAX_MATRIX_ENTRIES", 20)
    result = run(["verify", path, "--group", "cyclic", "--format", "json"])
    verdicts = {o["tensor"]: o["verdict"] for o in lines(result.stdout)}
    assert verdicts == {
        "small": "holds",
        "conv.weight": "error",
        "mix.weight": "error",
        "mix.bias": "not_judged",
        "head.weight": "not_judged",
    }
    assert "tensor conv.weight is 6 x 6: 36 entries exceed the limit of 20" in result.stderr


def test_the_budget_of_the_file_refuses_it_before_any_tensor_is_read(run, tmp_path, trained, monkeypatch):
    path = tmp_path / "w.npz"
    np.savez(path, **trained)
    monkeypatch.setattr(weights, "MAX_WEIGHTS_ENTRIES", 50)

    def never(*args, **kwargs):
        raise AssertionError("a tensor was read before the budget refused the file")

    monkeypatch.setattr(np, "frombuffer", never)
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 2
    assert "the 2 tensors to check hold 72 entries, over the limit of 50 for one file" in result.stderr
    monkeypatch.setattr(weights, "MAX_WEIGHTS_BYTES", 10)
    assert "exceeds the limit of 10 for a weights file" in run(["verify", path, "--group", "cyclic"]).stderr


# --------------------------------------------------------------------------- project, Python, hints


def test_project_reads_a_weights_file_and_picks_a_tensor(run, tmp_path, trained):
    path = tmp_path / "w.npz"
    np.savez(path, **trained)
    result = run(["project", path, "--group", "cyclic"])
    assert result.exit_code == 2
    assert "holds 2 square 2-D tensors (conv.weight (6 x 6), mix.weight (6 x 6))" in result.stderr
    assert "--tensor NAME" in result.stderr
    out = json.loads(run(["project", path, "--group", "cyclic", "--tensor", "mix.*", "--format", "json"]).stdout)
    assert out["relative_distance"] == pytest.approx(cyclic_distance(trained["mix.weight"]), rel=1e-12)
    np.savez(tmp_path / "one.npz", w=trained["mix.weight"])
    assert run(["project", tmp_path / "one.npz", "--group", "cyclic", "--format", "json"]).exit_code == 0


def test_tensor_without_a_weights_file_is_refused(run, samples):
    result = run(["verify", samples / "dense.csv", "--group", "cyclic", "--tensor", "w"])
    assert result.exit_code == 2 and "--tensor picks tensors of a weights file" in result.stderr


def test_python_verify_weights_and_verify_of_a_single_tensor_file(tmp_path, trained):
    path = tmp_path / "w.safetensors"
    safetensors.numpy.save_file(trained, str(path))
    checked = [c for c in gdlcheck.verify_weights(path, "cyclic", n=N) if c.role == "matrix"]
    assert [(c.name, c.verdict) for c in checked] == [("conv.weight", "holds"), ("mix.weight", "fails")]
    assert checked[1].distance == pytest.approx(cyclic_distance(trained["mix.weight"]), rel=1e-12)
    assert repr(checked[0]) == "<TensorChecked conv.weight holds: distance 0>"
    np.savez(tmp_path / "one.npz", w=trained["conv.weight"])
    assert gdlcheck.verify(tmp_path / "one.npz", "cyclic").verdict == "holds"


def test_a_python_file_given_as_a_matrix_gets_the_callable_hint(run, samples):
    result = run(["verify", samples / "mylayers.py", "--group", "cyclic"])
    assert result.exit_code == 2
    assert (
        "a .py file is code, not a matrix: check a layer it defines with --callable mylayers.py:NAME" in result.stderr
    )


def test_another_binary_file_gets_the_np_save_hint(run, tmp_path):
    path = tmp_path / "weights.bin"
    path.write_bytes(b"\x00\x01\x02binary")
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "binary data where text was expected; save an array with numpy.save('W.npy', W)" in result.stderr


def test_a_zip_that_is_not_an_npz_is_refused(run, tmp_path):
    path = tmp_path / "w.npz"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("readme.txt", "hello")
    result = run(["verify", path, "--group", "cyclic"])
    assert result.exit_code == 2 and "member readme.txt is not a .npy array" in result.stderr
