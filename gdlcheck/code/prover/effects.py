"""What writes and selections do to what the walk knows.

An in-place write changes the written tensor's views and, when the operation does not return it,
the written tensor itself; a selection by a mask has a shape that depends on the values; an
index the proof does not know may be out of range in the moved call.  Each of these makes values
unknown, or stops the proof where the path itself may differ.
"""

from __future__ import annotations

from gdlcheck.code.prover import regions
from gdlcheck.code.prover.table import _INDEXED, _SELECTING, Halt, lookup, writes
from gdlcheck.code.prover.values import Abstract, _op_text, _tensors, storage


def aliases(walk, op, constant: bool) -> None:
    """An in-place write changes every view of the written tensor: those the walk has seen
    (other than the written one) are no longer known, nor is a written argument the operation
    does not return (``_foreach_add_``, batch norm's running statistics)."""

    func, bound = op.func, op.bound
    written = writes(func, op.args, op.kwargs)
    if not written:
        return
    outs = {id(t) for t in op.outs}
    for name in written:
        for t in _tensors(bound.get(name)):
            if id(t) not in outs and not constant:
                halt = Halt(walk.place() or _op_text(func), f"written by {_op_text(func)}", "no_op_rule")
                walk.values[t] = Abstract(False, [halt] * len(walk.gens))
            _views_of(walk, t, func, constant, _overwritten_with_constants(walk, func, bound, written))


def _overwritten_with_constants(walk, func, bound, written) -> bool:
    """The write replaces every written entry by constants (``copy_`` of a constant, ``fill_``,
    ``zero_``): what the written cells held before does not matter."""
    import torch

    aten = torch.ops.aten
    if func not in (aten.copy_.default, aten.fill_.Scalar, aten.fill_.Tensor, aten.zero_.default):
        return False
    return all(walk.of(v).const for name, v in bound.items() if name not in written and isinstance(v, torch.Tensor))


def _views_of(walk, t, func, constant: bool = False, constant_block: bool = False) -> None:
    """The other tensors on ``t``'s storage that share a cell with ``t`` are changed by a write into
    it: a container the call made, written block by block, gets the moves of its blocks
    (:func:`~gdlcheck.code.prover.regions.refill`); any other is unknown.  A view apart from ``t`` keeps
    what was known of it.  Constants written with constants stay constants, views and all; but a
    constant view of a container that holds moving values also changes that container (its
    constant cells were checked before the write)."""
    mine, key = walk.values.get(t), storage(t)
    if key is None:  # a tensor without storage: nothing shares it
        return
    halt = Halt(
        walk.place() or _op_text(func), f"a value written in place through a view ({_op_text(func)})", "no_op_rule"
    )
    written = None
    for other, a in list(walk.values.items()):
        if constant and a.const:
            continue
        if other is not t and a is not mine and storage(other) == key:
            if written is None:
                written = regions.cells(t)
            how = regions.relation(t, written, other)
            if how is regions.Relation.APART:
                continue
            contains = how is regions.Relation.CONTAINS
            walk.values[other] = (
                regions.refill(walk, t, other, halt, constant_block)
                if contains
                else Abstract(False, [halt] * len(walk.gens))
            )


def unknown_index(walk, op) -> None:
    """An index whose values the proof does not know (neither constant nor labels it follows)
    may be out of range in the moved call: whether the operation raises, and so the path,
    may depend on it."""
    func = op.func
    if func not in _SELECTING and func not in _INDEXED:
        return
    for name in ("index", "indices"):
        for t in _tensors(op.bound.get(name)):
            a = walk.of(t)
            if not a.const and any(isinstance(m, Halt) for m in a.per):
                walk.stop_each(
                    f"an index the proof does not know ({_op_text(func)}): whether it is in "
                    "range may depend on the values",
                    "asks_value",
                    a.per,
                )
                return


def shape_read(walk, op) -> None:
    """An operation whose output's shape depends on the values (a bool mask's selection,
    ``nonzero`` and ``argwhere`` whatever the dtype, ``masked_select``, and those without a rule
    that torch tags of a dynamic output shape: ``unique``, ``unique_consecutive``): where its moves
    are not known, its shape, which the code reads without a torch operation, may differ in the
    moved call."""
    import torch

    func = op.func
    bools = any(t.dtype == torch.bool for t in op.tensors)
    # ``nonzero`` has a rule for its moves, yet its length is the count of the values not zero
    dynamic = torch.Tag.data_dependent_output in func.tags or (
        torch.Tag.dynamic_output_shape in func.tags and (lookup(func) is None or func not in _SELECTING)
    )
    if not dynamic and not (bools and func in _SELECTING):
        return
    # the shape comes from the masks (a selection by bools) or from every input: where it depends on
    # the random points, another draw has another shape, which the code may read (``.shape``, ``len``)
    # and branch on without any operation the walk or the moved call (which keeps the count) sees
    deciding = [t for t in op.tensors if t.dtype == torch.bool] if bools else op.tensors
    if any(walk.of(t).free for t in deciding):
        walk.stop_everywhere(
            f"a shape that depends on the values of the points ({_op_text(func)}): another "
            "input may give another shape, and the code another path",
            "asks_value",
        )
        return
    for a in (walk.values.get(t) for t in op.outs):
        if a is not None and not a.const and any(isinstance(m, Halt) for m in a.per):
            walk.stop_each(f"a shape that depends on the values ({_op_text(func)})", "asks_value", a.per)
            return
