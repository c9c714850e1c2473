"""How the group acts on code's inputs and outputs: axes, pairs, graphs as edge lists and sparse
matrices (never dense), and the sparse automorphism path.  numpy and scipy only (no torch)."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import gdlcheck
from gdlcheck.code import graphs
from gdlcheck.code.actions import Action, act_along, move_array, parse_action
from gdlcheck.code.describe import build_signature
from gdlcheck.code.relation import relation
from gdlcheck.errors import CallableError, GdlcheckError
from gdlcheck.groups import act, conjugate, fixes, perm_matrix, then
from gdlcheck.groups.catalogue import automorphism_group
from gdlcheck.output.witnesses import witness_text

perms = st.integers(2, 7).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n))))


def random_edges(n, m, seed, sort=False):
    rng = np.random.default_rng(seed)
    ei = rng.integers(0, n, size=(2, m))
    if sort:
        ei = ei[:, np.lexsort((ei[1], ei[0]))]
    return ei.astype(np.int64)


def dense_of(ei, n):
    A = np.zeros((n, n))
    np.add.at(A, (ei[1], ei[0]), 1.0)  # A[target, source]
    return A


# --------------------------------------------------------------------------- moving arrays


@given(perms, st.integers(0, 2**16))
def test_points_on_any_axis_is_the_row_action_moved_there(pq, seed):
    p, q = (np.array(x) for x in pq)
    n = len(p)
    Y = np.random.default_rng(seed).standard_normal((3, n, 2))
    moved = act_along(p, Y, (1,))
    assert np.array_equal(np.moveaxis(moved, 1, 0), act(p, np.moveaxis(Y, 1, 0)))
    # an action: p then q is q after p
    assert np.array_equal(
        act_along(np.array(then(tuple(p), tuple(q))), Y, (1,)), act_along(q, act_along(p, Y, (1,)), (1,))
    )


@given(st.permutations(range(6)), st.integers(0, 2**16))
def test_grid_axes_are_one_row_major_index(p, seed):
    p = np.array(p)
    Y = np.random.default_rng(seed).standard_normal((4, 2, 3))  # (C, H, W): the grid is H x W = 6 points
    moved = act_along(p, Y, (1, 2))
    flat = np.moveaxis(Y, 0, -1).reshape(6, 4)  # point (a, b) is row a * W + b
    assert np.array_equal(np.moveaxis(moved, 0, -1).reshape(6, 4), act(p, flat))


@given(st.permutations(range(5)), st.integers(0, 2**16))
def test_pairs_is_p_w_p_transpose(p, seed):
    p = np.array(p)
    W = np.random.default_rng(seed).standard_normal((5, 5))
    P = perm_matrix(tuple(p))
    assert np.allclose(move_array(Action("pairs", (0, 1)), p, W), P @ W @ P.T, atol=0, rtol=0)
    batched = np.stack([W, 2 * W])  # (B, L, L): the last two axes
    assert np.array_equal(move_array(Action("pairs", (1, 2)), p, batched)[1], 2 * (P @ W @ P.T))


# --------------------------------------------------------------------------- graphs


@given(
    st.integers(2, 9).flatmap(
        lambda n: st.tuples(st.just(n), st.permutations(range(n)), st.integers(0, 2**16), st.booleans())
    )
)
def test_a_relabelled_edge_list_is_the_conjugated_adjacency(args):
    n, p, seed, sort = args
    p = np.array(p)
    ei = random_edges(n, 3 * n, seed, sort=sort)
    moved, order = graphs.relabel(p, ei, n)
    assert np.array_equal(dense_of(moved, n), conjugate(p, dense_of(ei, n)))
    key = ei[0] * n + ei[1]
    if np.all(key[1:] >= key[:-1]):  # a sorted edge list stays sorted; moved edge k is edge order[k]
        key = moved[0] * n + moved[1]
        assert np.all(key[1:] >= key[:-1])
        assert np.array_equal(moved, p[ei][:, order])
    elif not np.all((ei[1] * n + ei[0])[1:] >= (ei[1] * n + ei[0])[:-1]):
        # otherwise the edges keep their order: attributes need not move
        assert order is None and np.array_equal(moved, p[ei])
    assert graphs.is_fixed(p, ei) == fixes(p, dense_of(ei, n))


def test_edge_attributes_follow_their_edges_in_a_sorted_edge_list():
    n = 5
    ei = np.array([[0, 0, 1, 3], [1, 4, 2, 0]])  # sorted by source
    attr = np.array([10.0, 11.0, 12.0, 13.0])  # the attribute of each edge
    p = np.array([4, 3, 2, 1, 0])
    moved, order = graphs.relabel(p, ei, n)
    moved_attr = attr[order]
    before = {(int(p[u]), int(p[v])): a for (u, v), a in zip(ei.T, attr)}
    after = {(int(u), int(v)): a for (u, v), a in zip(moved.T, moved_attr)}
    assert before == after


def test_a_large_sparse_graph_is_moved_without_a_dense_array():
    n = 200_000  # dense: 320 GB
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, n, 10 * n), rng.integers(0, n, 10 * n)
    A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    p = rng.permutation(n)
    B, order = graphs.move_graph(p, A)
    assert sp.issparse(B) and B.format == "csr" and B.nnz == A.nnz and order is None
    assert graphs.is_fixed(np.arange(n), A) and not graphs.is_fixed(p, A)


def test_what_is_an_edge_list():
    assert graphs.form(graphs.as_graph(np.array([[0, 1, 2], [1, 2, 0]]))) == "edge_index"
    assert graphs.form(graphs.as_graph(np.array([[0.0, 1.0, 2.0], [1.0, 2.0, 0.0]]))) == "edge_index"  # from a CSV
    assert graphs.form(graphs.as_graph(np.array([[0, 1], [1, 0]]))) == "dense"  # 2 x 2: an adjacency
    assert graphs.form(graphs.as_graph(sp.eye(3, format="csr"))) == "sparse"
    with pytest.raises(GdlcheckError, match="names node 7, but there are n = 5 nodes"):
        graphs.as_graph(np.array([[0, 7, 1], [1, 2, 3]]), n=5)
    with pytest.raises(GdlcheckError, match="2 x 3"):
        graphs.as_graph(np.array([[0.5, 1, 2], [1, 2, 3]]))
    with pytest.raises(GdlcheckError, match="NaN"):
        graphs.as_graph(np.array([[np.nan, 1], [1, 0]]))


def test_an_edge_list_from_a_file(tmp_path):
    (tmp_path / "ring.csv").write_text("0,1,2,3\n1,2,3,0\n")
    ei = graphs.load_graph_file(str(tmp_path / "ring.csv"))
    assert graphs.form(ei) == "edge_index" and ei.dtype == np.int64
    sp.save_npz(tmp_path / "g.npz", sp.csr_matrix(dense_of(ei, 4)))
    assert graphs.form(graphs.load_graph_file(str(tmp_path / "g.npz"))) == "sparse"
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(GdlcheckError, match="bad.npz"):
        graphs.load_graph_file(str(tmp_path / "bad.npz"))


# --------------------------------------------------------------------------- automorphisms of sparse graphs


@given(st.integers(2, 8), st.integers(0, 2**16), st.booleans(), st.booleans())
def test_sparse_automorphisms_are_the_dense_ones(n, seed, directed, weighted):
    rng = np.random.default_rng(seed)
    A = (rng.random((n, n)) < 0.4).astype(float)
    if weighted:
        A *= rng.integers(1, 3, size=(n, n))
    if not directed:
        A = np.triu(A, 1) + np.triu(A, 1).T
    dense = automorphism_group(A)
    sparse = automorphism_group(sp.csr_matrix(A))
    assert sparse.order == dense.order and sparse.graph is None
    assert all(fixes(g, A) for g in sparse.gens)


def test_the_group_of_an_edge_index_comes_from_bliss_without_a_dense_matrix():
    side = 100
    idx = np.arange(side * side).reshape(side, side)
    right = np.stack([idx.ravel(), np.roll(idx, -1, 1).ravel()])
    down = np.stack([idx.ravel(), np.roll(idx, -1, 0).ravel()])
    ei = np.concatenate([right, down, right[::-1], down[::-1]], axis=1)  # the 100 x 100 torus, both directions
    g = gdlcheck.group("automorphisms", graph=ei)
    assert (g.n, g.order) == (side * side, 8 * side * side)
    # the same graph as scipy.sparse
    assert gdlcheck.group("automorphisms", graph=graphs.to_sparse(ei)).order == 8 * side * side


# --------------------------------------------------------------------------- words and relations


def test_actions_are_written_the_same_in_python_and_on_the_command_line():
    assert parse_action("points", outputs=True) == Action("points")
    assert parse_action("points:1,2", outputs=True) == Action("points", (1, 2))
    assert parse_action("pairs:-2,-1", outputs=True) == Action("pairs", (-2, -1))
    assert parse_action("unchanged", outputs=True) == Action("invariant")  # the same action, the other word
    assert parse_action("invariant", outputs=False) == Action("unchanged")
    with pytest.raises(CallableError, match="did you mean 'pairs'"):
        parse_action("pair", outputs=True)
    with pytest.raises(CallableError, match="pairs moves two axes"):
        parse_action("pairs:1", outputs=True)
    with pytest.raises(CallableError, match="takes no axes"):
        parse_action("graph:1", outputs=False)
    assert parse_action("pairs", outputs=False) == Action("pairs")  # an order-2 input (issue 32)
    with pytest.raises(CallableError, match="not how an input moves"):
        parse_action("ignored", outputs=False)


@given(st.permutations(range(5)).filter(lambda p: list(p) != sorted(p)), st.integers(0, 2**16))
def test_relation_finds_how_two_tensors_are_related(p, seed):
    p = np.array(p)
    rng = np.random.default_rng(seed)
    Y = rng.standard_normal((2, 5, 3))
    assert relation(p, Y, act_along(p, Y, (1,)), 5, None, 1e-12)[0] == Action("points", (1,))
    W = rng.standard_normal((5, 5))
    assert relation(p, W, move_array(Action("pairs", (0, 1)), p, W), 5, None, 1e-12)[0] == Action("pairs", (0, 1))
    assert relation(p, Y, Y.copy(), 5, None, 1e-12)[0] == Action("unchanged")
    assert relation(p, Y, Y + 1.0, 5, None, 1e-12)[0] is None
    labels = np.array([[0, 1, 2], [3, 4, 0]])
    assert relation(p, labels, p[labels], 5, None, 0.0)[0] == Action("graph")


# --------------------------------------------------------------------------- numpy code with several inputs and outputs


def circular_conv_cl(X):
    """A circular convolution over the positions of X : (C, L), mixing channels."""
    return X + 0.5 * np.roll(X, 1, axis=1) - 0.25 * np.roll(X, -2, axis=1)


def test_points_on_the_last_axis():
    assert gdlcheck.verify_callable(circular_conv_cl, "cyclic", shape=(3, 10), points_axis=-1).passed
    assert not gdlcheck.verify_callable(circular_conv_cl, "dihedral", shape=(3, 10), points_axis=-1).passed
    # on axis 0 the group acts on the 3 channels: the roll along axis 1 is left alone, so it holds --
    # about the wrong axis; hence points_axis (torch convolutions are refused, see test_code.py)
    r = gdlcheck.verify_callable(circular_conv_cl, "cyclic", shape=(3, 10))
    assert r.passed and r.group.n == 3


def test_batch_axes_are_never_permuted():
    table = np.random.default_rng(0).standard_normal((6, 2))

    def with_positions(X):  # (B, n, d)
        return X + table

    assert not gdlcheck.verify_callable(with_positions, "symmetric", shape=(3, 6, 2), batch_axes=0).passed
    # the trap, the group on the batch axis, is refused: a short leading axis asks for the axes
    with pytest.raises(CallableError, match="may be a batch.*batch_axes=0"):
        gdlcheck.verify_callable(with_positions, "symmetric", shape=(3, 6, 2))
    assert gdlcheck.verify_callable(with_positions, "symmetric", shape=(3, 6, 2), points_axis=0).passed
    with pytest.raises(CallableError, match="both a points axis and a batch axis"):
        gdlcheck.verify_callable(with_positions, "symmetric", shape=(3, 6, 2), batch_axes=0, points_axis=0)


def test_several_outputs_each_with_its_own_law():
    def attention(X):
        S = X @ X.T
        G = np.exp(S - S.max(axis=1, keepdims=True))
        G /= G.sum(axis=1, keepdims=True)
        return G @ X, G, X.sum()

    r = gdlcheck.verify_callable(attention, "symmetric", shape=(5, 3), outputs=("points", "pairs", "invariant"))
    assert r.passed
    wrong = gdlcheck.verify_callable(attention, "symmetric", shape=(5, 3), outputs=("points", "points", "invariant"))
    assert not wrong.passed
    assert wrong.to_json()["checks"][0]["counterexample"]["output"] == "[1]"
    assert "output[1] entry [" in witness_text(wrong.checks[0].witness)
    # the resolved description of each tensor, as a tracer would read it
    sig = build_signature(None, ("points", "pairs", "invariant"), shape=(5, 3), points_axes=(0,), n=5, grid=None)
    sig.flatten(attention(np.ones((5, 3))))
    assert sig.input_actions() == [(0, Action("points", (0,)))]
    assert sig.output_actions() == [
        ("[0]", Action("points", (0,))),
        ("[1]", Action("pairs", (0, 1))),
        ("[2]", Action("invariant")),
    ]
    ignored = gdlcheck.verify_callable(attention, "symmetric", shape=(5, 3), outputs=("points", "ignored", "ignored"))
    assert ignored.passed
    with pytest.raises(CallableError, match="tuple of 3 items"):
        gdlcheck.verify_callable(attention, "symmetric", shape=(5, 3))
    with pytest.raises(CallableError, match="2 are described"):
        gdlcheck.verify_callable(attention, "symmetric", shape=(5, 3), outputs=("points", "pairs"))


def test_dict_inputs_and_outputs():
    def layer(x, scale, shift=0.0):
        return {"y": scale * x + shift, "total": x.sum(axis=0)}

    r = gdlcheck.verify_callable(
        layer,
        "symmetric",
        shape=(4, 2),
        inputs={"x": "points", "scale": 2.0},
        outputs={"y": "points", "total": "invariant"},
    )
    assert r.passed
    with pytest.raises(CallableError, match="describe every key"):
        gdlcheck.verify_callable(
            layer, "symmetric", shape=(4, 2), inputs={"x": "points", "scale": 2.0}, outputs={"y": "points"}
        )
    with pytest.raises(CallableError, match="one per key"):
        gdlcheck.verify_callable(layer, "symmetric", shape=(4, 2), inputs={"x": "points", "scale": 2.0})


def test_a_dict_of_one_key_is_its_value_the_default_output():
    """A transformers ModelOutput of ``last_hidden_state`` only, or any one-key dict, needs no ``outputs=``:
    its value moves as the default output does; a leak in it fails and the counterexample names the key."""
    r = gdlcheck.verify_callable(lambda x: {"last_hidden_state": 2.0 * x}, "symmetric", shape=(4, 2))
    assert r.passed
    r = gdlcheck.verify_callable(lambda x: {"last_hidden_state": x + x[:1]}, "symmetric", shape=(4, 2))
    failed = [c for c in r.to_json()["checks"] if not c["passed"]]
    assert r.verdict == "fails" and failed[0]["counterexample"]["output"] == "['last_hidden_state']"


def gcn_sparse(X, A):
    """Y = D~^-1/2 (A + I) D~^-1/2 X with a scipy.sparse A (never dense)."""
    At = A + sp.identity(A.shape[0], format="csr")
    d = np.asarray(At.sum(axis=1)).ravel() ** -0.5
    return sp.diags(d) @ At @ sp.diags(d) @ X


def gcn_edges(X, edge_index):
    """The same GCN on an edge list (messages source -> target), as PyG writes it."""
    n = X.shape[0]
    src, dst = np.r_[edge_index[0], np.arange(n)], np.r_[edge_index[1], np.arange(n)]
    deg = np.bincount(dst, minlength=n).astype(float)
    norm = deg[src] ** -0.5 * deg[dst] ** -0.5
    Y = np.zeros_like(X)
    np.add.at(Y, dst, norm[:, None] * X[src])
    return Y


def test_graph_layers_on_sparse_graphs_and_edge_lists(monkeypatch):
    n = 3000
    rng = np.random.default_rng(1)
    ei = np.unique(rng.integers(0, n, size=(2, 6 * n)), axis=1)  # sorted: the moved list is sorted too
    ei = ei[:, ei[0] != ei[1]]
    A = graphs.to_sparse(ei, n)
    # a dense n x n array anywhere would be a bug
    monkeypatch.setattr(sp.csr_matrix, "toarray", lambda *a, **k: pytest.fail("densified"))
    assert gdlcheck.verify_callable(gcn_sparse, "symmetric", shape=(n, 4), graph=A, trials=2).passed
    assert gdlcheck.verify_callable(gcn_edges, "symmetric", shape=(n, 4), graph=ei, trials=2).passed
    # held fixed, the graph keeps the symmetry for its automorphisms only (a random graph: none)
    r = gdlcheck.verify_callable(gcn_edges, "symmetric", shape=(n, 4), graph=ei, inputs=("points", "fixed"), trials=2)
    assert not r.passed
    assert any("not an automorphism of the fixed graph" in line for line in r.to_json()["diagnosis"])


def test_edge_attributes_and_edge_outputs_follow_their_edges():
    n = 6
    ei = np.array([[0, 0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0, 3]])  # sorted by source
    weight = np.linspace(1.0, 2.0, ei.shape[1])

    def weighted(X, edge_index, w):
        Y = np.zeros_like(X)
        np.add.at(Y, edge_index[1], w[:, None] * X[edge_index[0]])
        return Y, w[:, None] * (X[edge_index[0]] - X[edge_index[1]])  # node and edge outputs

    r = gdlcheck.verify_callable(
        weighted,
        "symmetric",
        shape=(n, 2),
        graph=ei,
        inputs=("points", "graph", gdlcheck.edges(weight)),
        outputs=("points", "edges"),
    )
    assert r.passed, r.to_json()
    # the attributes described as unchanged no longer match their (reordered) edges
    bad = gdlcheck.verify_callable(
        weighted,
        "symmetric",
        shape=(n, 2),
        graph=ei,
        inputs=("points", "graph", gdlcheck.unchanged(weight)),
        outputs=("points", "edges"),
    )
    assert not bad.passed


def test_given_points_move_with_the_points():
    batch = np.array([0, 0, 0, 1, 1, 1])

    def pool(X, batch):
        return np.stack([X[batch == b].sum(axis=0) for b in range(2)])

    assert gdlcheck.verify_callable(
        pool, "symmetric", shape=(6, 2), inputs=("points", gdlcheck.points(batch)), expect="invariant"
    ).passed
    # the batch held: permutations that mix the two graphs break it, the ones within each keep it
    held = ("points", gdlcheck.unchanged(batch))
    assert not gdlcheck.verify_callable(pool, "symmetric", shape=(6, 2), inputs=held, expect="invariant").passed
    within = gdlcheck.group("generators", n=6, generators=["(0 1 2)", "(0 1)", "(3 4 5)", "(3 4)"])
    assert gdlcheck.verify_callable(pool, within, shape=(6, 2), inputs=held, expect="invariant").passed


def test_random_code_is_reported_as_random_not_as_breaking_the_symmetry():
    rng = np.random.default_rng(0)

    def dropout(X):
        return X * (rng.random(X.shape) > 0.5) * 2.0

    r = gdlcheck.verify_callable(dropout, "symmetric", shape=(6, 2))
    assert r.verdict == "inconclusive" and not r.passed and r.diagnosis is None
    assert any(note.startswith("random: two calls on the same input") for note in r.to_json()["notes"])


def test_code_errors_name_the_parameters():
    with pytest.raises(CallableError, match="graph refers to the graph"):
        gdlcheck.verify_callable(gcn_edges, "symmetric", shape=(4, 2), inputs=("points", "graph"))
    with pytest.raises(CallableError, match="does not use it"):
        gdlcheck.verify_callable(lambda X: X, "symmetric", shape=(4, 2), graph=np.eye(4), inputs=("points",))
    with pytest.raises(CallableError, match="has no points input"):
        gdlcheck.verify_callable(lambda A: A, "symmetric", shape=(4, 2), graph=np.eye(4), inputs=("graph",))
    with pytest.raises(CallableError, match="pairs moves two axes of the n = 4 points"):
        gdlcheck.verify_callable(lambda X: (X @ X.T)[:2], "symmetric", shape=(4, 2), outputs="pairs")
    with pytest.raises(CallableError, match=r"points axis 0 \(its first axis\)|first axis is the 4 points"):
        gdlcheck.verify_callable(lambda X: X.sum(axis=0), "symmetric", shape=(4, 2))
    with pytest.raises(CallableError, match="out of range"):
        gdlcheck.verify_callable(lambda X: X, "symmetric", shape=(4, 2), points_axis=2)
    with pytest.raises(CallableError, match="graph or its older name adjacency"):
        gdlcheck.verify_callable(lambda X, A: X, "symmetric", shape=(4, 2), graph=np.eye(4), adjacency=np.eye(4))


def test_json_is_the_same_for_the_same_seed():
    def attention(X):
        G = np.exp(X @ X.T)
        return (G / G.sum(axis=1, keepdims=True)) @ X

    a = gdlcheck.verify_callable(lambda X: np.cumsum(X, axis=1), "cyclic", shape=(3, 7), points_axis=1)
    b = gdlcheck.verify_callable(lambda X: np.cumsum(X, axis=1), "cyclic", shape=(3, 7), points_axis=1)
    assert json.dumps(a.to_json()) == json.dumps(b.to_json())
    assert gdlcheck.verify_callable(attention, "symmetric", shape=(5, 2)).passed


# --------------------------------------------------------------------------- the command line


def test_callable_options_on_the_command_line(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "ul_code12.py").write_text(
        "import numpy as np\n"
        "def conv(X):\n    return X + 0.5 * np.roll(X, 1, axis=1)\n"
        "def gcn(X, edge_index):\n"
        "    Y = X.copy()\n    np.add.at(Y, edge_index[1], X[edge_index[0]])\n    return Y\n"
        "def attention(X):\n    G = np.exp(X @ X.T)\n    G /= G.sum(axis=1, keepdims=True)\n    return G @ X, G\n"
    )
    (tmp_path / "ring.csv").write_text("0,1,2,3,4,5,1,2,3,4,5,0\n1,2,3,4,5,0,0,1,2,3,4,5\n")
    base = ["verify", "--callable"]
    assert (
        run(base + ["ul_code12:conv", "--input-shape", "3x8", "-g", "cyclic", "--points-axis", "-1", "-q"]).exit_code
        == 0
    )
    assert (
        run(base + ["ul_code12:conv", "--input-shape", "3x8", "-g", "symmetric", "--points-axis", "1", "-q"]).exit_code
        == 1
    )
    assert (
        run(base + ["ul_code12:gcn", "--input-shape", "6x2", "-g", "symmetric", "--graph", "ring.csv", "-q"]).exit_code
        == 0
    )
    fixed = run(
        base
        + [
            "ul_code12:gcn",
            "--input-shape",
            "6x2",
            "-g",
            "automorphisms",
            "--graph",
            "ring.csv",
            "--input",
            "points",
            "--input",
            "fixed",
            "--format",
            "json",
        ]
    )
    assert fixed.exit_code == 0 and json.loads(fixed.stdout)["group"]["order"] == 12
    held = run(
        base
        + [
            "ul_code12:gcn",
            "--input-shape",
            "6x2",
            "-g",
            "symmetric",
            "--graph",
            "ring.csv",
            "--input",
            "X=points",
            "--input",
            "edge_index=fixed",
            "--format",
            "json",
        ]
    )
    assert held.exit_code == 1 and json.loads(held.stdout)["verdict"] == "fails"
    both = run(
        base
        + [
            "ul_code12:attention",
            "--input-shape",
            "5x2",
            "-g",
            "symmetric",
            "--output",
            "points",
            "--output",
            "pairs:0,1",
            "-q",
        ]
    )
    assert both.exit_code == 0
    errors = [
        (["ul_code12:attention", "--input-shape", "5x2", "-g", "symmetric"], "say how each moves with --output"),
        (["ul_code12:conv", "--input-shape", "3x8", "-g", "cyclic", "--points-axis", "x"], "--points-axis"),
        (
            ["ul_code12:gcn", "--input-shape", "6x2", "-g", "symmetric", "--input", "points", "--input", "grph"],
            "did you mean 'graph'",
        ),
        (
            ["ul_code12:gcn", "--input-shape", "6x2", "-g", "symmetric", "--input", "x=points", "--input", "fixed"],
            "not a mix",
        ),
    ]
    for args, message in errors:
        result = run(base + args)
        assert result.exit_code == 2, (args, result.stdout)
        assert message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert (
        "--points-axis, --batch-axes, --input, --output and --weights go with --callable"
        in run(["verify", "x.yaml", "--points-axis", "1"]).stderr
    )
