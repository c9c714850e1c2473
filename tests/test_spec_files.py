"""Files where a spec or a command takes data (the manual, "The spec format" and "Groups"): a 1-D
weight (a conv kernel, a bias, a relative table) from ``{file: ...}``, and a graph for every
command that takes ``--graph`` as a dense adjacency, a scipy.sparse ``.npz`` or a 2 x E edge list."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

import gdlcheck

N = 6
RING = np.roll(np.eye(N), 1, axis=1) + np.roll(np.eye(N), -1, axis=1)
EDGES = np.array(np.nonzero(RING.T))  # (source, target) of every edge, both directions


def spec(tmp_path, layer: str, n: int = N) -> str:
    path = tmp_path / "layer.yaml"
    path.write_text(f"symmetry: {{group: cyclic, n: {n}}}\nlayer:\n{layer}")
    return str(path)


@pytest.mark.parametrize(
    "name, write",
    [
        ("k.npy", lambda p: np.save(p, np.array([1.0, 2.0, 3.0]))),
        ("k.csv", lambda p: p.write_text("1,2,3\n")),
        ("k.txt", lambda p: p.write_text("1\n2\n3\n")),
        ("k.json", lambda p: p.write_text("[1, 2, 3]")),
    ],
)
def test_a_conv_kernel_and_bias_from_a_file(tmp_path, name, write):
    write(tmp_path / name)
    np.save(tmp_path / "b.npy", np.full(N, 0.5))
    literal = gdlcheck.verify(spec(tmp_path, "  kind: conv\n  kernel: [1, 2, 3]\n  bias: 0.5\n"), method="numeric")
    result = gdlcheck.verify(
        spec(tmp_path, f"  kind: conv\n  kernel: {{file: {name}}}\n  bias: {{file: b.npy}}\n"), method="numeric"
    )
    assert result.passed and result.verdict == literal.verdict
    assert result.checks[0].max_abs_error == literal.checks[0].max_abs_error


def test_a_bias_from_a_file_that_breaks_the_symmetry_fails(tmp_path):
    np.save(tmp_path / "b.npy", np.arange(N, dtype=float))
    result = gdlcheck.verify(spec(tmp_path, "  kind: conv\n  kernel: [1, 2]\n  bias: {file: b.npy}\n"))
    assert not result.passed


def test_a_relative_table_from_a_file(tmp_path):
    np.save(tmp_path / "r.npy", np.linspace(0, 1, N))
    layer = (
        "  kind: attention\n  wq: {random: [2, 2]}\n  wk: {random: [2, 2]}\n  wv: {random: [2, 2]}\n"
        "  positional: {relative: {file: r.npy}}\n"
    )
    assert gdlcheck.verify(spec(tmp_path, layer)).passed


def test_a_matrix_weight_from_a_1d_file_is_still_refused(tmp_path, run):
    np.save(tmp_path / "w.npy", np.arange(N, dtype=float))
    result = run(["verify", spec(tmp_path, "  kind: linear\n  weight: {file: w.npy}\n")])
    assert result.exit_code == 2 and "a weight must be 2-D" in result.stderr and result.stderr.count("\n") == 1


def test_a_2d_kernel_from_a_file_with_its_grid(tmp_path):
    np.save(tmp_path / "k.npy", np.array([[1.0, 2.0], [3.0, 4.0]]))
    path = tmp_path / "grid.yaml"
    path.write_text(
        "symmetry: {group: translations, shape: [4, 4]}\nlayer:\n  kind: conv\n  kernel: {file: k.npy}\n"
        "  shape: [4, 4]\n"
    )
    assert gdlcheck.verify(str(path)).passed


# ---------------------------------------------------------------- --graph files


@pytest.fixture
def graph_files(tmp_path):
    np.savetxt(tmp_path / "dense.csv", RING, delimiter=",", fmt="%d")
    np.savetxt(tmp_path / "edges.csv", EDGES, delimiter=",", fmt="%d")
    sp.save_npz(tmp_path / "sparse.npz", sp.csr_matrix(RING))
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        ["groups", "automorphisms", "--format", "json"],
        ["derive", "--group", "automorphisms", "--format", "json"],
    ],
)
def test_every_graph_file_gives_the_same_group_and_form(run, graph_files, command):
    outputs = []
    for name in ("dense.csv", "edges.csv", "sparse.npz"):
        result = run([*command, "--graph", graph_files / name])
        assert result.exit_code == 0, (name, result.stderr)
        outputs.append(json.loads(result.stdout))
    orders = {o["order"] if "order" in o else o["group"]["order"] for o in outputs}
    assert orders == {2 * N}  # the ring's automorphisms: the dihedral group
    if command[0] == "derive":
        assert len({o["dimension"] for o in outputs}) == 1


def test_project_takes_a_sparse_graph_and_an_edge_list(run, graph_files):
    W = np.random.default_rng(0).standard_normal((N, N))
    np.save(graph_files / "W.npy", W)
    distances = []
    for name in ("dense.csv", "edges.csv", "sparse.npz"):
        result = run(
            [
                "project",
                graph_files / "W.npy",
                "--group",
                "automorphisms",
                "--graph",
                graph_files / name,
                "--format",
                "json",
            ]
        )
        assert result.exit_code == 0, (name, result.stderr)
        distances.append(json.loads(result.stdout)["relative_distance"])
    assert len(set(distances)) == 1


def test_an_edge_list_naming_a_node_past_n_is_one_line(run, graph_files):
    result = run(["derive", "--group", "automorphisms", "-n", "4", "--graph", graph_files / "edges.csv"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "n = 4" in result.stderr


# ---------------------------------------------------------------- exact, for code (the docstring's promise)


def test_exact_for_code_is_a_proof_of_a_module_and_inconclusive_for_other_code():
    assert (
        gdlcheck.verify_callable(lambda X: X - X.mean(axis=0), "symmetric", shape=(5, 2), method="exact").verdict
        == "inconclusive"
    )
    torch = pytest.importorskip("torch")
    assert gdlcheck.verify_callable(torch.nn.Linear(3, 3), "symmetric", shape=(5, 3), method="exact").verdict == "holds"
    assert "always inconclusive" not in gdlcheck.verify_callable.__doc__
