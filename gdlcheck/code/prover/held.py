"""Values of given inputs that a generator leaves as they are: constants of that generator's proof.

A tensor computed from given inputs only (an ``edge_index``, node types, their masks; not from the
random points) is the same in every draw, and the rules are handed its values.  Where a generator
``g`` moves it (its :class:`~gdlcheck.code.prover.moves.Moves` for ``g``) onto exactly its own values, bit
for bit, the moved call holds the very same tensor: for ``g``'s proof it is a constant.  Node types
that are all alike, under any permutation, are such a tensor; so is a fixed graph's edge list under
its automorphisms.

Where an operation's rule refuses such a tensor described by its moves (a slice of a moving axis:
HEATConv's ``(type_vec[1:] < type_vec[:-1]).any()``, whether the types are sorted), the rule is
asked again with it as a constant; an operation without a rule of such tensors only (HEATConv's
``index2ptr``) returns the same tensor in the moved call.  Each answer is a proof of its own, so
the second is as sound as the first; it is asked only where the first refused, so what the rules
prove already is unchanged.  An operation whose inputs are all constants for the rule (but the
``out=`` buffer it writes whole, or a fresh buffer's first write, whose old values do not count)
returns the same in the moved call: no rule is asked.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.table import Halt
from gdlcheck.code.prover.values import _tensors


def unchanged(value, m) -> bool:
    """Moving ``value`` (a tensor the rule was given with its values) by ``m`` gives ``value``."""
    if value.device.type == "meta" or not isinstance(m, mv.Moves) or mv.turned(m) or value.is_sparse:
        return False
    if any(isinstance(p, mv.Unordered) for p in m.axes) or value.dim() != len(m.axes):
        return False
    t = value.detach().cpu().numpy()
    if m.labels is not None:
        if t.dtype.kind not in "iu" or (t.size and (t.min() < 0 or t.max() >= len(m.labels))):
            return False
        t2 = np.asarray(m.labels)[t]
    else:
        t2 = t
    moved = np.empty_like(t2)
    moved[np.ix_(*[np.arange(s) if p is None else np.asarray(p) for p, s in zip(m.axes, t.shape)])] = t2
    return moved.tobytes() == t.tobytes()


def inputs_unchanged(walk, tensors, k: int) -> bool:
    """Every tensor is a constant, or a value of given inputs that generator ``k`` leaves as it is:
    an operation of them (without a rule, not random) returns the same in the moved call."""
    for t in tensors:
        a = walk.of(t)
        if not a.const and (a.free or isinstance(a.per[k], Halt) or not unchanged(t, a.per[k])):
            return False
    return bool(tensors)


def retried(walk, found, func, seen: dict, moves: dict, out, k: int, count: int) -> list:
    """The rule's answer for generator ``k``; where it stops, its answer with each tensor of given
    values that ``k`` leaves as it is (:func:`unchanged`) said to stay where it is, then taken as a
    constant (a rule may read a constant's values)."""
    if all(m is None or isinstance(m, list) and all(x is None for x in m) for m in moves.values()):
        return _still(out, count)  # constants only (an out= buffer, a fresh buffer's first write aside)
    first = walk._one(found, func, seen, moves, out, k, count)
    if not any(isinstance(r, Halt) for r in first):
        return first
    for as_constant in (False, True):
        again = {name: _held(seen.get(name), m, as_constant) for name, m in moves.items()}
        if all(a is m for a, m in zip(again.values(), moves.values())):
            return first
        second = walk._one(found, func, seen, again, out, k, count)
        if not any(isinstance(r, Halt) for r in second):
            return second
    return first


def _still(out, count: int) -> list:
    """Each output stays where it is: computed from constants only, it is the same in the moved call."""
    import torch

    slots = list(out) if isinstance(out, (tuple, list)) else [out]
    per = []
    for slot in slots[:count]:
        first = next(iter(_tensors(slot)), None)
        per.append(None if first is None else mv.still(first.dim()) if isinstance(first, torch.Tensor) else None)
    return per


def _held(value, m, as_constant: bool):
    """``m``, or, for a tensor (or each tensor of a list) that ``m`` leaves as it is, still moves
    (None: a constant)."""
    import torch

    if isinstance(value, torch.Tensor) and m is not None and unchanged(value, m):
        return None if as_constant else mv.still(value.dim())
    if isinstance(value, (list, tuple)) and isinstance(m, list):
        kept = [_held(v, x, as_constant) for v, x in zip(value, m)]
        return m if all(a is b for a, b in zip(kept, m)) else kept
    return m
