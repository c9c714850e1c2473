"""Code wrapped the way people wrap it (issue 29, item 4): ``torch.jit.script``/``torch.jit.trace``
modules and submodules, ``torch.vmap`` and ``torch.inference_mode`` are followed at the
dispatcher like any code, and an ``nn.EmbeddingBag`` sums over bags.  A wrapped module that is not
equivariant is never proved, and one that reads a value of the points stops."""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402

nn = torch.nn
N, D = 8, 4


def verdict(module, group="symmetric", method="exact", **kw):
    kw.setdefault("shape", (N, D))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gdlcheck.verify_callable(module, group, method=method, **kw).to_json()


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(D, D), nn.ReLU(), nn.Linear(D, D)).double()


class Scripted(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.jit.script(mlp())

    def forward(self, x):
        return self.inner(x).tanh()


class Mapped(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = mlp()

    def forward(self, x):
        return torch.vmap(self.lin)(x)


class Inference(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = mlp()

    def forward(self, x):
        with torch.inference_mode():
            return self.lin(x)


class FirstRow(nn.Module):
    def forward(self, x):
        return x + x[0]


class Branch(nn.Module):
    def forward(self, x):
        if bool(x.sum() > 0):
            return x
        return x + x[0]


def wrapped():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # torch's note on jit.trace
        traced = torch.jit.trace(mlp(), torch.randn(N, D, dtype=torch.float64))
    return {
        "jit.script": torch.jit.script(mlp()),
        "jit.trace": traced,
        "a scripted submodule": Scripted(),
        "vmap over the points": Mapped(),
        "inference_mode": Inference(),
    }


@pytest.mark.parametrize("name", list(wrapped()))
def test_wrapped_code_is_proved(name):
    assert verdict(wrapped()[name])["verdict"] == "holds"


def test_a_scripted_module_that_is_not_equivariant_fails():
    module = torch.jit.script(FirstRow())
    assert verdict(module)["verdict"] == "inconclusive"
    assert verdict(module, method="auto")["verdict"] == "fails"


def test_a_scripted_branch_on_the_points_stops_the_proof():
    obj = verdict(torch.jit.script(Branch()))
    assert obj["verdict"] == "inconclusive"


class Bag(nn.Module):
    def __init__(self, mode="mean"):
        super().__init__()
        torch.manual_seed(0)
        self.bag = nn.EmbeddingBag(10, D, mode=mode).double()

    def forward(self, ids):
        return self.bag(ids.view(1, -1))


IDS = np.array([1, 4, 2, 2, 9, 0, 3, 3])


@pytest.mark.parametrize("mode", ["mean", "sum"])
def test_an_embedding_bag_of_moving_ids_is_invariant(mode):
    obj = verdict(Bag(mode), shape=(N,), inputs=[gdlcheck.points(IDS)], expect="invariant")
    assert obj["verdict"] == "holds"


def test_an_embedding_bag_by_maximum_is_left_to_the_trials():
    obj = verdict(Bag("max"), shape=(N,), inputs=[gdlcheck.points(IDS)], expect="invariant")
    assert obj["verdict"] == "inconclusive"


class Padded(nn.Module):
    """An encoder given a padding mask: torch runs it on nested (ragged) tensors."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(D, 2, 8, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2).double().eval()
        self.register_buffer("pad", torch.zeros(1, N, dtype=torch.bool))

    def forward(self, x):
        return self.enc(x, src_key_padding_mask=self.pad)


def test_an_encoder_on_nested_tensors_stops_cleanly_and_the_trials_decide():
    kw = {"shape": (1, N, D), "points_axis": 1}
    obj = verdict(Padded(), **kw)
    assert obj["verdict"] == "inconclusive"
    assert not any("raises" in note for note in obj["notes"])
    assert verdict(Padded(), method="auto", **kw)["verdict"] == "holds_numerically"
