"""Values on pairs of points (``P X P^T``: an order-2 input, attention scores, an adjacency).

* ``diagonal`` of two axes that one permutation moves: ``X'[p i, p i] = X[i, i]``, so the diagonal
  (the last axis of the view) moves by ``p`` and the other axes keep theirs.  An offset diagonal of
  moving axes, or axes moved differently, has no rule; a diagonal of axes that do not move does not.
"""

from __future__ import annotations

import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.table import NoRule, rule

aten = torch.ops.aten


@rule(aten.diagonal.default)
def diagonal(call):
    m = call.moves["self"]
    nd = call.ndim("self")
    d1, d2 = call.args["dim1"] % nd, call.args["dim2"] % nd
    p, q = m.axes[d1], m.axes[d2]
    rest = tuple(a for i, a in enumerate(m.axes) if i not in (d1, d2))
    if isinstance(p, mv.Unordered) or isinstance(q, mv.Unordered):
        raise NoRule("a diagonal of an axis in an order not known")
    if not mv.moving(p) and not mv.moving(q):
        return mv.Moves(rest + (None,), m.labels)
    if call.args["offset"] != 0:
        raise NoRule("a diagonal off the middle of axes that move")
    if not mv.same(p, q):
        raise NoRule("a diagonal of two axes that move differently")
    return mv.Moves(rest + (p,), m.labels)
