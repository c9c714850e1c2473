"""What several rules share: broadcasting operands against each other."""

from __future__ import annotations

from gdlcheck.code import moves as mv
from gdlcheck.code.table import Fixed, NoRule


def axes_of(m, ndim: int) -> tuple:
    return (None,) * ndim if m is None else m.axes


def broadcast(operands: list, out_ndim: int, allow_labels: bool = False):
    """Operands ``(tensor, moves)`` broadcast together (aligned from the right): the result's axis
    permutations, and the conditions on constant operands.  An operand that does not move on an
    axis where another does (with more than one entry there) must be a constant fixed by that
    permutation; a moving operand that does not move there has no rule."""
    perms = [None] * out_ndim
    for t, m in operands:
        if m is not None and m.labels is not None and not allow_labels:
            raise NoRule("arithmetic on node labels")
        axes = axes_of(m, t.dim())
        shift = out_ndim - t.dim()
        for a, p in enumerate(axes):
            if p is None or t.shape[a] == 1:
                continue
            j = a + shift
            if perms[j] is None:
                perms[j] = p
            elif not mv.same(perms[j], p):
                raise NoRule("operands moved differently on one axis")
    conditions = []
    for t, m in operands:
        axes = axes_of(m, t.dim())
        shift = out_ndim - t.dim()
        need = {}
        for a in range(t.dim()):
            p = perms[a + shift]
            if t.shape[a] == 1 or not mv.moving(p) or axes[a] is not None:
                continue
            if m is not None:
                raise NoRule("a value that depends on the inputs but does not move where the others do")
            need[a] = p
        if need:
            conditions.append(Fixed(t, need))
    return perms, conditions
