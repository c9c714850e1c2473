"""What several rules share: broadcasting operands against each other, and broadcast axes."""

from __future__ import annotations

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.moves import axes_or_still  # the rules import it from here too
from gdlcheck.code.prover.table import Fixed, NoRule


def uniform(t, m, a: int) -> bool:
    """Axis ``a`` of ``t`` is a broadcast (``expand``: stride 0): all its entries are one entry of
    memory, so every permutation of the axis leaves the tensor as it is.  Read from the strides,
    which a rule sees on a moving tensor too (its meta stand-in keeps them); an invariant value
    broadcast along the points (PointNet's global feature, ``F.normalize(h, dim=0)``) then moves
    with them.  Or the moves say so (``repeat`` of a size-1 axis)."""
    return (t.dim() > a and t.stride(a) == 0) or (m is not None and a in m.uniform)


def broadcast(operands: list, out_ndim: int, allow_labels: bool = False):
    """Operands ``(tensor, moves)`` broadcast together (aligned from the right): the result's axis
    permutations, and the conditions on constant operands.  An operand that does not move on an
    axis where another does (with more than one entry there) must be a constant fixed by that
    permutation; a moving operand that does not move there has no rule."""
    perms = [None] * out_ndim
    for t, m in operands:
        if m is not None and m.labels is not None and not allow_labels:
            raise NoRule("arithmetic on node labels")
        axes = axes_or_still(m, t.dim())
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
        axes = axes_or_still(m, t.dim())
        shift = out_ndim - t.dim()
        need = {}
        for a in range(t.dim()):
            p = perms[a + shift]
            if t.shape[a] == 1 or not mv.moving(p) or axes[a] is not None:
                continue
            if m is not None:
                if uniform(t, m, a):  # every entry along the axis is one entry: any permutation keeps it
                    continue
                raise NoRule("a value that depends on the inputs but does not move where the others do")
            need[a] = p
        if need:
            conditions.append(Fixed(t, need))
    return perms, conditions


def reshape_groups(old, new):
    """The row-major reshape from ``old`` to ``new`` as groups ``(old axes, new axes)`` of equal
    product (size-1 axes left out), or None."""
    src = [a for a, s in enumerate(old) if s != 1]
    dst = [b for b, s in enumerate(new) if s != 1]
    out, i, j = [], 0, 0
    while i < len(src) or j < len(dst):
        if i >= len(src) or j >= len(dst):
            return None
        gi, gj = [src[i]], [dst[j]]
        po, pn = old[src[i]], new[dst[j]]
        i, j = i + 1, j + 1
        while po != pn:
            if po < pn:
                if i >= len(src):
                    return None
                gi.append(src[i])
                po *= old[src[i]]
                i += 1
            else:
                if j >= len(dst):
                    return None
                gj.append(dst[j])
                pn *= new[dst[j]]
                j += 1
        out.append((gi, gj))
    return out


def reduced_axes(call, nd: int) -> set:
    """The axes a reduction's ``dim`` names (all of them when it names none), counted from 0."""
    dims = call.args.get("dim")
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return set(range(nd))
    if isinstance(dims, int):
        dims = [dims]
    return {d % max(nd, 1) for d in dims}


def squeezed_axes(call, shape) -> set:
    """The axes ``squeeze`` removes: those of size 1 among the ones it names (all, when none)."""
    dims = call.args.get("dim", call.args.get("dims"))
    if dims is None:
        return {a for a, s in enumerate(shape) if s == 1}
    dims = [dims] if isinstance(dims, int) else list(dims)
    return {d % max(len(shape), 1) for d in dims if shape and shape[d % len(shape)] == 1}
