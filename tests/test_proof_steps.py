"""A proof's steps are typed: a layer of a spec, a traced operation, a constant checked, or where a
traced proof stopped.  What each shows as its JSON ``kind`` is its own field (a layer kind, an
operation's text, whose constant it is), and the conclusion and the culprit read the type."""

import pathlib
import re

import numpy as np
import pytest
import torch

import gdlcheck
from gdlcheck.layers.proofs import ConstantCheck, Halted, LayerStep, OperationStep, Role, Step, Untraced

pytestmark = pytest.mark.slow  # torch

N, D = 5, 3


class Positional(torch.nn.Module):
    """A per-point table: a parameter of its own (``own``) or made inside forward (``made``)."""

    def __init__(self, how: str):
        super().__init__()
        self.how = how
        self.table = torch.nn.Parameter(torch.arange(N * D, dtype=torch.float64).reshape(N, D))

    def forward(self, x):
        table = self.table if self.how == "own" else self.table * 2.0
        return x + table


def test_a_spec_proof_is_made_of_layer_steps():
    result = gdlcheck.verify("samples/bias-breaks.yaml")
    assert result.proof.steps and all(isinstance(s, LayerStep) for s in result.proof.steps)
    proof = result.to_json()["proof"]
    assert [p["kind"] for p in proof] == [s.kind for s in result.proof.steps]
    culprit = result.to_json()["culprit"]
    assert culprit["kind"] == "conv" and culprit["path"] == "layer.bias"


def test_a_traced_proof_shows_each_step_by_its_own_field():
    result = gdlcheck.verify_callable(Positional("own"), "symmetric", (N, D))
    steps = result.proof.steps
    assert isinstance(steps[0], OperationStep) and steps[0].op == "Positional" and steps[0].rule == "traced"
    checks = [s for s in steps if isinstance(s, ConstantCheck)]
    assert checks and all(s.rule == "constant" for s in checks)
    json_kinds = [p["kind"] for p in result.to_json()["proof"]]
    assert json_kinds == [s.label for s in steps]
    assert {s.op for s in checks if s.op is not None} <= set(json_kinds)


@pytest.mark.parametrize("how, role, named", [("own", Role.PARAMETER, True), ("made", Role.CONSTANT, False)])
def test_the_stop_at_a_constant_says_whose_it_is(how, role, named):
    result = gdlcheck.verify_callable(Positional(how), "symmetric", (N, D))
    assert result.verdict == "fails"
    stops = list(result.proof.stops.values())
    assert stops and all(isinstance(s.step, ConstantCheck) and s.step.op is None and s.step.role is role for s in stops)
    assert stops[0].step.label == role.value == role  # the JSON word
    culprit = result.to_json().get("culprit")
    if named:  # the module's own parameter, by its name, from the proof
        assert culprit["kind"] == "parameter" and culprit["path"] == "table"
    else:  # a value made in forward: the forward hooks name the submodule instead
        assert culprit is None or culprit["kind"] != "constant"


def test_a_role_is_its_word_and_a_misspelt_one_fails():
    assert Role("buffer") is Role.BUFFER and Role.PARAMETER.is_own and not Role.CONSTANT.is_own
    assert ConstantCheck("x", [], role="buffer").role is Role.BUFFER
    with pytest.raises(ValueError):
        ConstantCheck("x", [], role="paramter")


def test_each_step_type_shows_its_label():
    assert LayerStep("layer", "conv", "theorem1", "Theorem 1", []).label == "conv"
    assert OperationStep("attn", "aten.mm.default", "contraction").label == "aten.mm.default"
    assert ConstantCheck("attn", [], op="aten.add.Tensor").label == "aten.add.Tensor"
    assert ConstantCheck("attn", [], role=Role.BUFFER).label == "buffer"
    assert Halted("sort", "the code reads the values of a tensor").label == "the code reads the values of a tensor"
    assert Untraced("the input x").label == "untraceable" and Untraced("the input x").path == "the input x"
    assert LayerStep("l", "linear", None, None, []).unit == "kind" and Halted("x", "y").unit == "operation"
    with pytest.raises(NotImplementedError):
        _ = Step().label  # the base is no step of its own


def test_no_module_makes_a_bare_step():
    root = pathlib.Path(gdlcheck.__file__).parent
    made = [
        f"{p.relative_to(root)}: {line.strip()}"
        for p in sorted(root.rglob("*.py"))
        for line in p.read_text().splitlines()
        if re.search(r"(?<![\w.])Step\(", line)
    ]
    assert made == []


def test_a_traced_proof_that_holds_has_no_halted_step():
    module = torch.nn.Linear(D, 4, dtype=torch.float64)
    result = gdlcheck.verify_callable(module, "symmetric", (N, D))
    assert result.verdict == "holds"
    assert not any(isinstance(s, Halted) for s in result.proof.steps)
    assert np.all([s.depth in (0, 1) for s in result.proof.steps])
