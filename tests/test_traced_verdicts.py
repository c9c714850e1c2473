"""The issue's real modules get their verdicts through the public API, as a user asks for them.

``gdlcheck.verify_callable`` with the default method: the tracer's proof decides where it
holds (verdict ``holds``, a ``proof`` in the JSON, an exact check per generator); where the
proof stops, the numeric check speaks, and the report says where the proof stopped.
"""

import numpy as np
import pytest

# every test here runs torch (the marker: pytest -m "not slow" is the loop without it)
pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck import groups  # noqa: E402


def encoder_layer(d=16, heads=4, **kw):
    torch.manual_seed(0)
    return torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=32, **kw).eval().double()


class Positional(torch.nn.Module):
    def __init__(self, n=8, d=16):
        super().__init__()
        torch.manual_seed(1)
        self.pos_emb = torch.nn.Parameter(torch.randn(n, d))
        self.block = encoder_layer(d)

    def forward(self, x):
        return self.block(x + self.pos_emb)


def conv(padding_mode):
    torch.manual_seed(0)
    return torch.nn.Conv1d(3, 5, 3, padding=1, padding_mode=padding_mode).double()


class DeepSets(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.phi = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8))
        self.rho = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))

    def forward(self, x):
        return self.rho(self.phi(x).sum(dim=0))


class MaxPool(torch.nn.Module):
    def forward(self, x):
        return torch.max(x, dim=0).values


PROVED = "the call as it ran, followed operation by operation at torch's dispatcher"


class Masked(torch.nn.Module):
    def __init__(self, allowed):
        super().__init__()
        self.block = encoder_layer()
        self.register_buffer("mask", ~allowed)  # True where attention is not allowed

    def forward(self, x):
        return self.block(x, src_mask=self.mask)


def proved(result) -> bool:
    obj = result.to_json()
    exact = [c for c in obj["checks"] if c["method"] == "exact"]
    return (
        obj["verdict"] == "holds"
        and obj["proof"][0]["rule"] == PROVED
        and bool(exact)
        and all(c["passed"] for c in exact)
    )


def numeric_failed(result) -> bool:
    obj = result.to_json()
    return obj["verdict"] == "fails" and any(c["method"] == "numeric" and not c["passed"] for c in obj["checks"])


def test_a_transformer_encoder_layer_is_proved_symmetric():
    assert proved(gdlcheck.verify_callable(encoder_layer(), "symmetric", shape=(8, 2, 16)))


def test_a_transformer_encoder_is_proved_symmetric():
    encoder = torch.nn.TransformerEncoder(encoder_layer(), 2, enable_nested_tensor=False)
    assert proved(gdlcheck.verify_callable(encoder, "symmetric", shape=(8, 16)))


def test_a_mask_is_proved_under_its_automorphisms_only():
    causal = ~torch.ones(8, 8, dtype=torch.bool).triu(1)
    module = Masked(causal)
    trivial = groups.automorphism_group(causal.double().numpy())
    assert trivial.order == 1  # a causal order: only the identity, which every module has
    assert gdlcheck.verify_callable(module, trivial, shape=(8, 16)).verdict == "holds"
    result = gdlcheck.verify_callable(module, "symmetric", shape=(8, 16))
    assert numeric_failed(result)
    assert "mask" in " ".join(result.to_json()["notes"])
    windows = torch.zeros(8, 8, dtype=torch.bool)
    windows[:4, :4] = windows[4:, 4:] = True
    module = Masked(windows)
    automorphisms = groups.automorphism_group(windows.double().numpy())
    assert automorphisms.order == 2 * 24 * 24
    assert proved(gdlcheck.verify_callable(module, automorphisms, shape=(8, 16)))
    assert numeric_failed(gdlcheck.verify_callable(module, "cyclic", shape=(8, 16)))


def test_a_learned_positional_embedding_is_not_proven_and_named():
    result = gdlcheck.verify_callable(Positional(), "symmetric", shape=(8, 16))
    assert numeric_failed(result)
    notes = " ".join(result.to_json()["notes"])
    assert "rows 0 and 1 of pos_emb differ" in notes
    assert result.culprit is not None and result.culprit["path"] == "pos_emb"


def test_a_circular_conv1d_is_proved_cyclic_and_a_zero_padded_one_is_not():
    assert proved(gdlcheck.verify_callable(conv("circular"), "cyclic", shape=(3, 16), points_axis=1))
    result = gdlcheck.verify_callable(conv("zeros"), "cyclic", shape=(3, 16), points_axis=1)
    assert numeric_failed(result)
    assert "not proven for (0 1 2 .. 15) at node" in " ".join(result.to_json()["notes"]).replace(
        "3 4 5 6 7 8 9 10 11 12 13 14", ".."
    )


@pytest.mark.parametrize("module", [DeepSets(), MaxPool()], ids=["deepsets", "max-pool"])
def test_pooled_models_are_proved_invariant(module):
    assert proved(gdlcheck.verify_callable(module, "symmetric", shape=(6, 3), expect="invariant"))


def test_a_proof_is_the_same_at_any_size():
    """The proof does not run the module: its JSON at n = 8 and n = 512 differ only in n."""
    small, large = (
        gdlcheck.verify_callable(MaxPool(), "symmetric", shape=(n, 3), expect="invariant") for n in (8, 512)
    )
    assert [s["rule"] for s in small.to_json()["proof"]] == [s["rule"] for s in large.to_json()["proof"]]
    assert np.all([c["passed"] for c in large.to_json()["checks"]])
