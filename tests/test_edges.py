"""Edges found in review: output paths, YAML number forms, inspect of DeepSets and max pooling,
symmetries of small and 3-D grids, colour-free terminals."""

import json

import numpy as np
import pytest


@pytest.mark.parametrize(
    "args",
    [
        ["derive", "-g", "cyclic", "-n", "3", "--format", "npy", "-o", "{missing}/x.npy"],
        ["derive", "-g", "cyclic", "-n", "3", "--format", "csv", "-o", "{missing}/x.csv"],
        ["derive", "-g", "cyclic", "-n", "3", "-o", "{missing}/x.txt"],
    ],
)
def test_an_unwritable_output_path_is_an_input_error(run, tmp_path, args):
    result = run([a.replace("{missing}", str(tmp_path / "no-such-folder")) for a in args])
    assert result.exit_code == 2
    assert "cannot write: no such file or directory" in result.stderr and "internal" not in result.stderr


def test_npy_output_goes_to_the_path_given(run, tmp_path):
    target = tmp_path / "basis.bin"
    assert run(["derive", "-g", "cyclic", "-n", "3", "--format", "npy", "-o", target]).exit_code == 0
    assert target.exists() and not (tmp_path / "basis.bin.npy").exists()
    assert np.load(target).shape == (3, 3, 3)


@pytest.mark.parametrize("eps", ["1e-5", "1.0e-5", "1/100000"])
def test_layernorm_eps_in_every_number_form(run, tmp_path, eps):
    spec = tmp_path / "ln.yaml"
    spec.write_text(f"symmetry: {{group: symmetric, n: 3}}\nchannels: 2\nlayer: {{kind: layernorm, eps: '{eps}'}}\n")
    assert run(["verify", spec, "-q"]).exit_code == 0
    spec.write_text(f"symmetry: {{group: symmetric, n: 3}}\nchannels: 2\nlayer: {{kind: layernorm, eps: {eps}}}\n")
    assert run(["verify", spec, "-q"]).exit_code == 0


def test_deepsets_written_two_ways_inspects_the_same(run, tmp_path):
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    a.write_text("symmetry: {group: symmetric, n: 4}\nlayer: {kind: deepsets, alpha: 1, beta: 0}\n")
    b.write_text(
        "symmetry: {group: symmetric, n: 4}\nchannels: 1\nlayer: {kind: deepsets, lambda: [[1]], gamma: [[0]]}\n"
    )
    pa = json.loads(run(["inspect", a, "--format", "json"]).stdout)["properties"]
    pb = json.loads(run(["inspect", b, "--format", "json"]).stdout)["properties"]
    assert pa == pb and pa["sparse"] is True


def test_max_pool_has_a_content_chosen_G(run, tmp_path):
    spec = tmp_path / "pool.yaml"
    spec.write_text(
        "symmetry: {group: symmetric, n: 4}\nchannels: 2\nexpect: invariant\nlayer: {kind: pool, op: max}\n"
    )
    obj = json.loads(run(["inspect", spec, "--format", "json"]).stdout)
    assert obj["depends_on"] == "content"
    assert obj["properties"]["static"] is False and obj["properties"]["square"] is False


def test_symmetries_lists_small_and_3d_groups(run, tmp_path):
    z2 = tmp_path / "z2.csv"
    z2.write_text("0,0\n0,0\n")
    contains = json.loads(run(["symmetries", z2, "--format", "json"]).stdout)["contains"]
    assert {"dihedral", "alternating", "symmetric"} <= set(contains)
    ones = tmp_path / "ones.csv"
    ones.write_text("\n".join(",".join(["1"] * 8) for _ in range(8)) + "\n")
    contains = json.loads(run(["symmetries", ones, "--format", "json"]).stdout)["contains"]
    assert "translations 2x2x2" in contains


def test_matrix_commands_refuse_a_spec_with_a_clear_line(run, samples):
    for command in (["symmetries"], ["project", "-g", "cyclic"]):
        result = run([command[0], samples / "layer.yaml"] + command[1:])
        assert result.exit_code == 2 and "not from a layer spec" in result.stderr


def test_no_color_means_no_escape_codes_even_on_a_terminal(monkeypatch):
    from gdlcheck.cli.common import console as _console

    monkeypatch.setenv("NO_COLOR", "1")
    console = _console()
    with console.capture() as capture:
        console.print("[bold]x[/bold] y")
    assert console.color_system is None and "\x1b[" not in capture.get()
