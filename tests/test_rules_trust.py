"""What a rule may trust: only what the layer is by construction, and only what a generator is.

A red-team round of the prover found no spec it wrongly proves; these are the ways around the
spec it found through the Python API, each closed here.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import yaml

from gdlcheck import groups
from gdlcheck.groups import PermGroup, Role, is_translation
from gdlcheck.layers import GCN, Conv, DeepSets
from gdlcheck.verification import verify_layer
from gdlcheck.verification.deduce import deduce


def test_a_conv_is_the_circulant_of_its_kernel():
    kernel = np.array([1.0, 2.0, 3.0])
    W = Conv(kernel, 5).W
    theta = np.zeros(5)
    theta[:3] = kernel
    assert all(W[i, j] == theta[(i - j) % 5] for i in range(5) for j in range(5))


def test_deepsets_is_alpha_identity_plus_beta_ones():
    W = DeepSets(2.0, 0.5, 4).W
    assert np.array_equal(W, 2.0 * np.eye(4) + 0.5 * np.ones((4, 4)))


@pytest.mark.parametrize(
    "p, shape, expected",
    [
        ((1, 2, 3, 0), (4,), True),
        ((3, 0, 1, 2), (4,), True),
        ((0, 1, 2, 3), (4,), True),
        ((1, 0, 2, 3), (4,), False),
        ((0, 3, 2, 1), (4,), False),
        ((3, 4, 5, 0, 1, 2), (2, 3), True),
        ((1, 2, 0, 4, 5, 3), (2, 3), True),
        ((1, 2, 3, 4, 5, 0), (2, 3), False),
    ],
)
def test_a_translation_is_read_from_the_permutation(p, shape, expected):
    assert is_translation(p, shape) is expected


def test_every_generator_of_a_catalogue_translation_group_is_a_translation():
    for group in (groups.cyclic(7), groups.translations((3, 4))):
        shape = group.shape or (group.n,)
        assert all(is_translation(s, shape) for s in group.gen_arrays())
    reflection = groups.dihedral(6).gen_arrays()[1]
    assert not is_translation(reflection, (6,))


@pytest.mark.parametrize(
    "group",
    [
        PermGroup("mine", 4, ((1, 0, 2, 3),), roles=(Role("shift"),)),
        PermGroup("mine", 6, ((1, 2, 3, 4, 5, 0), (0, 5, 4, 3, 2, 1)), roles=(Role("shift"), Role("shift"))),
    ],
    ids=["swap-called-shift", "reflection-called-shift"],
)
def test_a_generator_named_a_shift_is_not_trusted(group):
    layer = Conv(np.array([1.0, 2.0, 3.0]), group.n)
    proof = deduce(layer, group)
    wrong = group.generator_strings[-1]
    assert proof.proven[wrong] is False
    result = verify_layer(layer, group)
    assert result.verdict == "fails"


@pytest.mark.parametrize("make", [sp.csr_matrix, sp.coo_matrix, sp.csr_array])
def test_a_sparse_fixed_graph_is_checked_without_densifying(make):
    path = np.zeros((5, 5))
    for i in range(4):
        path[i, i + 1] = path[i + 1, i] = 1.0
    layer = GCN(make(path), np.array([[0.7]]), activation="identity", graph_mode="fixed")
    assert layer.linear_form() is None
    assert verify_layer(layer, groups.cyclic(5)).verdict == "fails"
    reflection = groups.from_generators(5, [[4, 3, 2, 1, 0]])
    assert verify_layer(layer, reflection).verdict == "holds"


def _spec(tmp_path, spec):
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("method", ["auto", "exact", "both"])
def test_a_pooled_output_is_named_whatever_the_method(run, tmp_path, method):
    """The proof stops at the bias for every generator, yet the output is pooled all the same."""
    spec = {
        "symmetry": {"group": "cyclic", "n": 8},
        "layer": [
            {"kind": "linear", "weight": np.eye(8).tolist(), "bias": list(range(8))},
            {"kind": "pointwise", "activation": "relu"},
            {"kind": "pool", "op": "sum"},
        ],
    }
    result = run(["verify", _spec(tmp_path, spec), "--method", method])
    assert result.exit_code == 2
    assert "use expect: invariant" in result.stderr


def test_two_input_graphs_in_nested_sequences_are_refused(run, tmp_path):
    ring = np.roll(np.eye(4), 1, axis=1) + np.roll(np.eye(4), -1, axis=1)
    full = np.ones((4, 4)) - np.eye(4)
    gcn = {"kind": "gcn", "weight": [[0.5]]}
    spec = {
        "symmetry": {"group": "cyclic", "n": 4},
        "layer": [
            [
                gcn | {"adjacency": ring.tolist(), "graph": "fixed"},
                gcn | {"adjacency": full.tolist(), "graph": "input"},
            ],
            gcn | {"adjacency": ring.tolist(), "graph": "input"},
        ],
    }
    result = run(["verify", _spec(tmp_path, spec)])
    assert result.exit_code == 2
    assert "read one graph" in result.stderr
