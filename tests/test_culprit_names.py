"""A code culprit names what broke the symmetry: held masks by their argument, a per-point
constant by the submodule that made it, and ``-inf`` masks compare as equal (no numpy warning)."""

import warnings

import numpy as np
import pytest
import torch

import gdlcheck
from gdlcheck.code.actions import Motion
from gdlcheck.code.relation import relation

pytestmark = pytest.mark.slow  # torch

N, D = 6, 8
BOOL_MASK = torch.triu(torch.ones(N, N, dtype=torch.bool), 1)
FLOAT_MASK = torch.triu(torch.full((N, N), float("-inf")), 1)
PADDING = torch.tensor([[False] * (N - 1) + [True]])


def encoder_layer():
    torch.manual_seed(0)
    return torch.nn.TransformerEncoderLayer(D, 2, dim_feedforward=16, dropout=0.0, batch_first=True)


class Positional(torch.nn.Module):
    """A learned position table made inside forward, added between two blocks."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.inp, self.pos, self.block = torch.nn.Linear(D, D), torch.nn.Embedding(N, D), torch.nn.Linear(D, D)

    def forward(self, x):
        p = self.pos(torch.arange(x.shape[0]))
        return self.block(self.inp(x) + p)


def culprit(module, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's 'invalid value' must not leak
        warnings.simplefilter("ignore", UserWarning)  # torch's own deprecation of mixed masks
        result = gdlcheck.verify_callable(module, "symmetric", **kwargs)
    assert result.verdict == "fails"
    return result.to_json()["culprit"]


def test_an_inf_mask_relates_to_itself():
    mask = FLOAT_MASK.numpy().astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        action, err = relation(np.arange(N), mask, mask.copy(), N, None, 1e-9)
    assert action is not None and action.kind is Motion.UNCHANGED and err == 0.0
    other = mask.copy()
    other[0, 1] = 0.0  # -inf against 0: not the same mask
    assert relation(np.arange(N), mask, other, N, None, 1e-9)[0] is None


@pytest.mark.parametrize("mask", [BOOL_MASK, FLOAT_MASK], ids=["bool", "float-inf"])
def test_held_masks_are_named_by_their_keywords(mask):
    found = culprit(
        encoder_layer(),
        shape=(1, N, D),
        batch_axes=0,
        inputs={0: "points", "src_mask": gdlcheck.unchanged(mask), "src_key_padding_mask": gdlcheck.unchanged(PADDING)},
    )
    assert found["path"] == "self_attn"
    assert found["held"] == ["src_mask", "src_key_padding_mask"]
    assert "src_mask, src_key_padding_mask are held" in found["text"]


class Masked(torch.nn.Module):
    """Attention under a mask given positionally; the check on the mask keeps fx from tracing it."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.attn = torch.nn.MultiheadAttention(D, 2)

    def forward(self, x, attn_mask):
        if not bool(attn_mask.any()):
            return x
        return self.attn(x, x, x, attn_mask=attn_mask, need_weights=False)[0]


def test_a_positional_mask_is_named_by_the_forward_parameter():
    found = culprit(Masked(), shape=(N, D), inputs=["points", gdlcheck.unchanged(BOOL_MASK)])
    assert found["path"] == "attn" and found["held"] == ["attn_mask"]


def test_a_constant_made_by_a_submodule_names_that_submodule():
    found = culprit(Positional(), shape=(N, D))
    assert (found["path"], found.get("after"), found.get("before"), found.get("made_by")) == ("", "inp", "block", "pos")
    assert "with the output of pos" in found["text"]
