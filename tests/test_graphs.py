"""Graph automorphism groups (BLISS through igraph): orders, directions, weights, commutants."""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gdlcheck import groups
from gdlcheck.derivation import derive, orbit_labels, orbitals
from gdlcheck.groups import automorphism_group
from gdlcheck.groups.colours import colour_classes


def petersen():
    outer = [(i, (i + 1) % 5) for i in range(5)]
    spokes = [(i, i + 5) for i in range(5)]
    inner = [(5 + i, 5 + (i + 2) % 5) for i in range(5)]
    A = np.zeros((10, 10), dtype=int)
    for a, b in outer + spokes + inner:
        A[a, b] = A[b, a] = 1
    return A


def cube():
    A = np.zeros((8, 8), dtype=int)
    for v in range(8):
        for bit in range(3):
            A[v, v ^ (1 << bit)] = 1
    return A


def fixes(A, g):
    g = np.asarray(g)
    B = np.empty_like(A)
    B[np.ix_(g, g)] = A
    return np.array_equal(A, B)


def test_petersen_group_has_order_120_and_commutant_dimension_3():
    g = automorphism_group(petersen())
    assert g.name == "automorphisms" and g.order == 120 == g.to_sympy().order()
    assert all(fixes(petersen(), s) for s in g.gens)
    assert derive(g).dimension == 3


def test_cube_group_has_order_48_and_commutant_dimension_4():
    g = automorphism_group(cube())
    assert g.order == 48 == g.to_sympy().order()
    assert derive(g).dimension == 4


def test_directed_cycle_gives_the_cyclic_group_not_the_dihedral():
    n = 7
    A = np.zeros((n, n))
    A[(np.arange(n) + 1) % n, np.arange(n)] = 1
    g = automorphism_group(A)
    assert g.order == n
    assert set(g.elements()) == set(groups.cyclic(n).elements())
    assert automorphism_group(A + A.T).order == 2 * n


def test_weights_and_the_diagonal_are_kept():
    n = 6
    A = np.zeros((n, n))
    for i in range(n):
        A[i, (i + 1) % n] = A[(i + 1) % n, i] = 1.0
    assert automorphism_group(A).order == 12
    A[0, 1] = A[1, 0] = 2.5  # one heavier edge: only the reflection through it survives
    g = automorphism_group(A)
    assert g.order == 2 and all(fixes(A, s) for s in g.gens)
    B = np.ones((4, 4)) - np.eye(4)
    B[2, 2] = 3.0  # a self-loop weight colours its vertex
    assert automorphism_group(B).order == 6


def test_colour_classes_group_values_within_tolerance():
    x = np.array([0.0, 1.0, 1.0 + 1e-12, 2.0])
    assert colour_classes(x).tolist() == [0, 1, 2, 3]
    assert colour_classes(x, 1e-9).tolist() == [0, 1, 1, 2]


@given(st.integers(2, 7).flatmap(lambda n: st.lists(st.integers(0, 2), min_size=n * n, max_size=n * n)))
def test_automorphisms_fast_path_matches_the_reference(values):
    n = int(round(len(values) ** 0.5))
    A = np.array(values, dtype=float).reshape(n, n)
    g = automorphism_group(A)
    assert all(fixes(A, s) for s in g.gens)
    assert g.order == g.to_sympy().order()
    ref = orbit_labels(g, 2)
    assert np.array_equal(derive(g).pattern, ref)
    assert np.array_equal(orbitals(g), ref)


def test_cli_derive_and_groups_read_a_graph_file(run, samples):
    result = run(["derive", "-g", "automorphisms", "--graph", samples / "petersen.csv", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    obj = json.loads(result.stdout)
    assert obj["dimension"] == 3 and obj["group"]["order"] == 120
    result = run(["groups", "automorphisms", "--graph", samples / "petersen.csv"])
    assert result.exit_code == 0 and "120" in result.stdout


def test_spec_symmetry_automorphisms_of_a_graph(run, tmp_path):
    A = petersen()
    W = 2 * np.eye(10) + 0.5 * A + 0.25 * (1 - A - np.eye(10))
    spec = tmp_path / "graph.yaml"
    spec.write_text(
        "symmetry: {group: automorphisms, graph: %s}\nlayer: {kind: linear, weight: %s}\n"
        % (json.dumps(A.tolist()), json.dumps(W.tolist()))
    )
    result = run(["verify", spec, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["group"]["order"] == 120
    W[0, 1] += 1.0
    spec.write_text(
        "symmetry: {group: automorphisms, graph: %s}\nlayer: {kind: linear, weight: %s}\n"
        % (json.dumps(A.tolist()), json.dumps(W.tolist()))
    )
    assert run(["verify", spec]).exit_code == 1


@pytest.mark.parametrize(
    "content, message", [("1,2\n3,4\n5,6\n", "square"), ("1.5,2,3\n4,5,6\n", "square"), ("1,nan\n0,1\n", "")]
)
def test_bad_graph_files_are_input_errors(run, tmp_path, content, message):
    path = tmp_path / "g.csv"
    path.write_text(content)
    result = run(["groups", "automorphisms", "--graph", path])
    assert result.exit_code == 2 and result.stderr.startswith("gdlcheck: error:")
    assert message in result.stderr
