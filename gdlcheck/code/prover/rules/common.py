"""What several rules share: broadcasting operands against each other, and broadcast axes."""

from __future__ import annotations

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.table import Fixed, NoRule


def uniform(t, m, a: int) -> bool:
    """Axis ``a`` of ``t`` is a broadcast (``expand``: stride 0): all its entries are one entry of
    memory, so every permutation of the axis leaves the tensor as it is.  Read from the strides,
    which a rule sees on a moving tensor too (its meta stand-in keeps them); an invariant value
    broadcast along the points (PointNet's global feature, ``F.normalize(h, dim=0)``) then moves
    with them.  Or the moves say so (``repeat`` of a size-1 axis)."""
    return (t.dim() > a and t.stride(a) == 0) or (m is not None and a in m.uniform)


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
                if uniform(t, m, a):   # every entry along the axis is one entry: any permutation keeps it
                    continue
                raise NoRule("a value that depends on the inputs but does not move where the others do")
            need[a] = p
        if need:
            conditions.append(Fixed(t, need))
    return perms, conditions
