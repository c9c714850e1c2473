"""Memory the call allocated and has not written yet: ``new_empty``, ``empty_like``, ``torch.empty``.

A fresh buffer's cells hold whatever the allocator left there, which differs from call to call:
they are no constant, and relate to nothing in the moved call.  The walk keeps, per storage, the
cells not yet written (:class:`Unwritten`).

* A read of one of them (any operation on a tensor over them, but a view, a shape, or a write
  that replaces them whatever they held) makes what the operation returns unknown; a value read
  into Python, or an output over them, stops the proof.
* A write that replaces what it writes, whatever it was (``copy_``, ``fill_``, ``zero_``,
  ``index_copy_``, ``index_put_`` without accumulation, an ``out=`` buffer) removes the cells it
  writes; its rule follows it as any write.  Any other write leaves them unwritten (a later read
  stops the proof).
* The first write into a storage nothing wrote yet (MFConv's ``out.index_copy_(0, idx, r)`` for
  the nodes of degree 0) may take the old values to move as the written ones need: the rule sees
  the target as a constant and its conditions on it are dropped, and a container written block by
  block (:func:`~gdlcheck.code.prover.regions.refill`) takes its other cells to move as the block does.

Why that is sound.  The moves of a partly written buffer are said of its written cells ``D`` only,
and keep ``D' = q(D)``: the moved call's written cells are the images of the first call's under
the buffer's moves ``q``.  Nothing written: ``D = D' = {}``, whatever ``q``.  A write of cells
``W`` with rule-given moves ``q``: rows at labels relabelled by ``lam`` land at ``lam``'s images, a
constant index and a view write the same cells, and the cells not written keep their old moves,
so ``W' = q(W)`` and ``D' u W' = q(D u W)``.  Where the first call has written every cell, so has
the moved call, and the buffer's moves hold on all of it.  Cells the walk cannot list (an index of
the random points' values, a tensor too large for :func:`~gdlcheck.code.prover.regions.cells`) stay
unwritten: reads then stop, which only forgets what is known.
"""

from __future__ import annotations

import weakref

import numpy as np

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover import regions
from gdlcheck.code.prover.table import Halt, out_arguments, writes
from gdlcheck.code.prover.values import _SHAPE_ONLY, Abstract, _tensors


def _fresh():
    import torch

    aten = torch.ops.aten
    return frozenset(
        {
            aten.empty.memory_format,
            aten.empty_like.default,
            aten.empty_permuted.default,
            aten.new_empty.default,
            aten.new_empty_strided.default,
            aten.empty_strided.default,
        }
    )


FRESH = _fresh()


def _replacing():
    import torch

    aten = torch.ops.aten
    return frozenset(
        {
            aten.copy_.default,
            aten.fill_.Scalar,
            aten.fill_.Tensor,
            aten.zero_.default,
            aten.index_copy_.default,
            aten.index_put_.default,
        }
    )


REPLACING = _replacing()  # writes whose result at a written cell does not depend on what it held


def _storage(t):
    import torch

    try:
        return torch._C.TensorBase.untyped_storage(t)
    except Exception:  # sparse, meta or nested tensors: no storage
        return None


class Unwritten:
    """Per storage the cells (element offsets) not written yet, and whether any write reached it."""

    def __init__(self):
        self._d: dict = {}  # data_ptr -> [weakref(storage), element size, bool mask, pristine]

    def __bool__(self) -> bool:
        if self._d:  # forget storages freed or written whole: a call that allocates often stays cheap
            self._d = {k: e for k, e in self._d.items() if e[0]() is not None and (e[3] or e[2].any())}
        return bool(self._d)

    def _entry(self, t):
        s = _storage(t)
        if s is None:
            return None
        found = self._d.get(s.data_ptr())
        if found is None or found[0]() is not s:
            return None
        return found

    def add(self, t) -> None:
        s = _storage(t)
        if s is None or not t.element_size():
            return
        size = s.nbytes() // t.element_size()
        self._d[s.data_ptr()] = [weakref.ref(s), t.element_size(), np.ones(size, dtype=bool), True]

    def touches(self, t) -> bool:
        """``t`` covers a cell not written yet (or may: another dtype's view, cells not listed)."""
        found = self._entry(t)
        if found is None or not found[2].any():
            return False
        mine = regions.cells(t)
        if mine is False or t.element_size() != found[1]:
            return True
        return bool(found[2][mine[mine < found[2].size]].any())

    def pristine(self, t) -> bool:
        """No write reached ``t``'s storage yet: every cell of it is unwritten, in both calls."""
        found = self._entry(t)
        return found is not None and found[3]

    def written(self, t, cells) -> None:
        """A write reached ``t``'s storage; ``cells`` (element offsets, or None: not known) now hold
        what it wrote."""
        found = self._entry(t)
        if found is None:
            return
        found[3] = False
        if cells is not None and t.element_size() == found[1]:
            found[2][cells[cells < found[2].size]] = False


def replaced_cells(func, bound, target):
    """The cells of ``target`` a replacing write writes, or None where they are not known: every
    cell for ``copy_``, ``fill_``, ``zero_``; the rows at the index for ``index_copy_`` and
    ``index_put_`` at one 1-D index (or a bool mask of ``target``'s shape), read only where the
    index is a value of given inputs or a constant (``readable``)."""
    import torch

    aten = torch.ops.aten
    every = regions.cells(target)
    if every is False:
        return None
    if func in (aten.copy_.default, aten.fill_.Scalar, aten.fill_.Tensor, aten.zero_.default):
        return every
    if func is aten.index_copy_.default:
        d, index = bound["dim"] % max(target.dim(), 1), bound["index"]
    else:
        if bound.get("accumulate"):
            return None
        indices = list(bound["indices"])
        used = [k for k, i in enumerate(indices) if i is not None]
        if len(used) != 1:
            return None
        d, index = used[0], indices[used[0]]
        if index.dtype == torch.bool:
            if tuple(index.shape) != tuple(target.shape) or index.device.type == "meta":
                return None
            return every.reshape(tuple(target.shape))[index.detach().cpu().numpy()] if _row_major(target) else None
    if index is None or index.dim() != 1 or index.device.type == "meta" or not _row_major(target):
        return None
    rows = np.asarray(index.detach().cpu().numpy(), dtype=np.int64) % max(target.shape[d], 1)
    return np.take(every.reshape(tuple(target.shape)), rows, axis=d).ravel()


def _row_major(t) -> bool:
    """``cells(t)`` (sorted offsets) lists ``t``'s entries in row-major order: strides decrease
    with the axes and no two entries share a cell."""
    sizes = [(s, st) for s, st in zip(t.shape, t.stride()) if s > 1]
    return all(a[1] > b[1] * b[0] - 1 and b[1] > 0 for a, b in zip(sizes, sizes[1:])) and all(st > 0 for _, st in sizes)


# ---------------------------------------------------------------- the guards


def _fresh_buffer(walk, op) -> bool:
    """A fresh buffer: not a constant (its cells differ between calls), its cells unwritten."""
    if op.func not in FRESH:
        return False
    free = any(not a.const and a.free for a in op.inputs)
    for t in op.outs:
        walk.values[t] = Abstract(False, [mv.still(t.dim())] * len(walk.gens), free=free)
        walk.unwritten.add(t)
    return True


def _targets(op, bound) -> list:
    """The tensors an operation writes whatever they held: the ``out=`` buffers, the target of a
    replacing write."""
    out = [bound[name] for name in out_arguments(op.func) if bound.get(name) is not None]
    if op.func in REPLACING and not bound.get("accumulate"):
        out.append(bound["self"])
    return list(_tensors(out))


def reads(walk, op) -> bool:
    """An operation that reads a cell not written yet stops the proof; the first write into a
    storage nothing wrote yet tells the rule to take the old values as it needs them."""
    walk.vacuous = None
    if _fresh_buffer(walk, op):
        return True
    if not walk.unwritten or op.func.is_view or op.func in _SHAPE_ONLY:
        return False
    bound = op.bound
    targets = _targets(op, bound)
    for t in op.tensors:
        if not any(t is w for w in targets) and walk.unwritten.touches(t):
            what = f"the code reads memory no operation wrote ({op.func}): it holds what it held before"
            if op.outs:  # what it returns is not known (a torch kernel may copy such cells and write
                walk._halt_outputs(op.outs, Halt(walk.place() or str(op.func), what, "no_op_rule"))  # them
            else:  # later: circular padding); a value read into Python stops the proof
                walk.stop_everywhere(what, "asks_value")
            return True
    if op.func in REPLACING and targets and targets[-1] is bound["self"] and walk.unwritten.pristine(targets[-1]):
        walk.vacuous = "self"
    return False


def wrote(walk, op) -> bool:
    """After the operation: the cells its writes replaced are written (where the index that chose
    them is a value of given inputs or a constant, the same cells in every draw)."""
    walk.vacuous = None
    if not walk.unwritten or walk.everywhere is not None:
        return False
    bound = op.bound
    targets = _targets(op, bound)
    chosen = [t for name in ("index", "indices") for t in _tensors(bound.get(name))]
    known = not any(walk.of(t).free for t in chosen)
    outs = out_arguments(op.func)
    for name in writes(op.func, op.args, op.kwargs):
        for t in _tensors(bound.get(name)):
            cells = None
            if name in outs:
                cells = regions.cells(t)
            elif known and any(t is w for w in targets):
                cells = replaced_cells(op.func, bound, t)
            walk.unwritten.written(t, None if cells is False else cells)
    return False


def kept(walk, conditions, bound) -> list:
    """A rule's conditions but those on the target of a fresh buffer's first write: its cells are
    unwritten in both calls, so any moves hold of them."""
    target = bound.get(walk.vacuous) if walk.vacuous is not None else None
    return [c for c in conditions if target is None or getattr(c, "tensor", None) is not target]


def touches(walk, tensor) -> bool:
    """A value read into Python, or an output: whether it covers a cell not written yet."""
    return bool(walk.unwritten) and walk.unwritten.touches(tensor)
