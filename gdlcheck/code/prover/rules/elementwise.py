"""Elementwise operations: every operation torch tags ``pointwise`` (``add``, ``relu``, ``where``,
``masked_fill`` ...) maps entries one by one, so with its operands broadcast it moves as they do.
Comparing node labels for (in)equality gives values that do not depend on the labelling."""

from __future__ import annotations

import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import broadcast
from gdlcheck.code.prover.table import POINTWISE, NoRule, Out, constant, rule

aten = torch.ops.aten


def _operands(call):
    out = []
    for name, v in call.args.items():
        if isinstance(v, torch.Tensor):
            out.append((v, call.moves.get(name)))
    return out


@rule(POINTWISE)
def elementwise(call):
    ndim = call.out.dim()
    perms, conditions = broadcast(_operands(call), ndim)
    return Out(mv.Moves(tuple(perms)), conditions)


@rule(aten._prelu_kernel.default)
def prelu(call):
    """PReLU: elementwise, its weight broadcast along the channels (a constant fixed there)."""
    return elementwise(call)


@rule(aten.glu.default)
def glu(call):
    """``a * sigmoid(b)`` of the two halves of an axis: entry by entry elsewhere, so it keeps the
    moves of every other axis; the split axis must not move."""
    m = call.moves["self"]
    d = call.args["dim"] % call.ndim("self")
    if m.labels is not None or mv.moving(m.axes[d]):
        raise NoRule("glu along an axis that moves")
    return mv.Moves(m.axes)


@rule(aten.masked_fill_.Scalar, aten.masked_fill_.Tensor)
def masked_fill_in_place(call):
    """``masked_fill_`` is ``masked_fill`` written back: elementwise."""
    return elementwise(call)


@rule(aten.copy_.default)
def copy(call):
    """``self.copy_(src)``: every entry of ``self`` becomes ``src``'s (broadcast); node labels stay
    labels in the same dtype."""
    same = call.args["src"].dtype == call.out.dtype
    perms, conditions = broadcast([(call.args["src"], call.moves["src"])], call.out.dim(), allow_labels=same)
    return Out(mv.Moves(tuple(perms), None if call.moves["src"] is None else call.moves["src"].labels), conditions)


@rule(aten.fill_.Scalar, aten.zero_.default)
@constant
def fill(call):
    """Every entry set to one number: the result does not depend on the values it had."""


@rule(aten.eq.Tensor, aten.ne.Tensor)
def label_comparison(call):
    """``a == b`` of two label tensors relabelled alike (``row != col``): a relabelling is a
    bijection, so it keeps every equality; otherwise as any elementwise operation."""
    ops = _operands(call)
    labels = [m.labels for _, m in ops if m is not None and m.labels is not None]
    if not labels:
        return elementwise(call)
    if len(labels) != len(ops) or not all(mv.same(labels[0], lam) for lam in labels[1:]):
        raise NoRule("node labels compared with values relabelled otherwise")
    perms, conditions = broadcast(ops, call.out.dim(), allow_labels=True)
    return Out(mv.Moves(tuple(perms)), conditions)
