"""Node labels offset by zero: PyG's ``construct_bipartite_edge_index`` shifts each edge type's
labels by its node type's offset in place (``edge_index[0] += src_offset``); with one node type
the offset is 0, and labels plus a constant zero are the labels themselves, relabelled as before.
Any other ``add`` is elementwise (:func:`~gdlcheck.code.prover.rules.elementwise.elementwise`)."""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.elementwise import elementwise
from gdlcheck.code.prover.table import rule

aten = torch.ops.aten


@rule(aten.add.Tensor, aten.add_.Tensor)
def add(call):
    m, other, mo = call.moves["self"], call.args["other"], call.moves.get("other")
    t = call.args["self"]
    if (
        m is not None
        and m.labels is not None
        and mo is None
        and tuple(call.out.shape) == tuple(t.shape)
        and call.out.dtype == t.dtype
        and _zero(other)
    ):  # (labels + 0.0 are floats: elementwise refuses)
        return mv.Moves(m.axes, m.labels)  # labels + 0: the same labels, in the same places
    return elementwise(call)


def _zero(other) -> bool:
    """A constant (a number, or a tensor the rule was given with its values) that is 0 everywhere."""
    if isinstance(other, torch.Tensor):
        return other.device.type != "meta" and not np.asarray(other.detach().cpu().numpy()).any()
    return isinstance(other, (int, float)) and other == 0
