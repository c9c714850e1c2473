"""What the sweep of PyG's catalogue found alongside (issue 36): a generator that is not an
automorphism stops only its own proof; a stop note names PyG's line, not the caller's; the trials
say when the calls changed the module's state (WLConv's colour table)."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
gnn = pytest.importorskip("torch_geometric.nn")

import gdlcheck  # noqa: E402

N = 8


def ring(n=N):
    i = torch.arange(n)
    return torch.stack([torch.cat([i, (i + 1) % n]), torch.cat([(i + 1) % n, i])])


def stops(r) -> dict:
    return {f.args["generator"]: f.args["stop"] for f in r.notes if f.what == "not_proven"}


def prove(module, group, **kw):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gdlcheck.verify_callable(module, group, method="exact", **kw)


def test_a_generator_that_is_no_automorphism_stops_only_its_own_proof():
    rotation = "(" + " ".join(map(str, range(N))) + ")"
    held = {"shape": (N, 4), "inputs": ["points", gdlcheck.fixed(ring())]}
    alone = prove(gnn.GCNConv(4, 3), gdlcheck.group("generators", n=N, generators=[rotation]), **held)
    # where the proof stopped, if it did (once inconclusive in a whole-suite run, not reproduced alone)
    assert alone.verdict == "holds", (stops(alone), alone.proof.stops if alone.proof else None)
    G = gdlcheck.group("generators", n=N, generators=[rotation, "(0 1)"])
    r = prove(gnn.GCNConv(4, 3), G, **held)
    assert r.verdict == "inconclusive"  # the group is every permutation: not proved
    assert list(stops(r)) == ["(0 1)"]  # the rotation's proof went on
    assert stops(r)["(0 1)"].reason.value == "condition_graph"
    # the trials decide the rest: the transposition is no symmetry of the ring
    assert gdlcheck.verify_callable(gnn.GCNConv(4, 3), G, **held).verdict == "fails"


def test_a_stop_note_names_the_pyg_line_not_the_callers():
    ei = torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]])
    # HypergraphConv reads hyperedge_index[1].max() + 1: a maximum of node labels, which a
    # relabelling changes (the proof stops there, at PyG's line)
    r = prove(gnn.HypergraphConv(4, 3), "symmetric", shape=(N, 4), graph=ei)
    kinds = {s.step.label for s in stops(r).values()}
    assert r.verdict == "inconclusive"
    assert any("hypergraph_conv.py:" in k for k in kinds), kinds
    assert not any("test_pyg_alongside.py" in k for k in kinds), kinds


class Colours(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = gnn.WLConv()

    def forward(self, x, edge_index):
        return self.conv(x.argmax(-1), edge_index).double()


def test_the_trials_say_the_calls_changed_the_state():
    ei = torch.from_numpy(np.array([[0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = gdlcheck.verify_callable(Colours(), "symmetric", shape=(4, 3), graph=ei)
    changed = [f for f in r.notes if f.what == "state_changed"]
    assert changed and "conv.hashmap" in changed[0].args["places"], r.notes
    assert "changed the module's state (conv.hashmap)" in str(r.to_json())
    plain = gdlcheck.verify_callable(gnn.GCNConv(3, 2), "symmetric", shape=(4, 3), graph=ei)
    assert not [f for f in plain.notes if f.what == "state_changed"]
