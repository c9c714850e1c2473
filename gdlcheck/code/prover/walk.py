"""The walker: follow one real call of the module at torch's dispatcher, operation by operation.

:class:`Walk` is a ``TorchDispatchMode``: every aten operation the call dispatches passes through
:meth:`Walk.__torch_dispatch__`, runs as it would (the call computes what it computes without
gdlcheck), and then the rule table (:mod:`gdlcheck.code.prover.table`) says how each generator moves its
outputs, given how it moves its inputs.  Python around the computation (defaults, ``isinstance``,
``try``, ``*args``, a class-level ``__call__``, hooks) is simply the call running.

What the call does that a proof cannot follow stops the proof for every generator:

* it asks for a value of a tensor that depends on the inputs (``float(t)``, ``.item()``,
  ``bool(t)``, ``.tolist()``, ``.numpy()``): the path may depend on it;
* an operation with a data-dependent output shape and no rule;
* it draws random numbers that reach the output (a random operation's result is never known).

A tensor the walk has not seen made is a constant of the call where it was there before the proof
(a parameter, a buffer, an attribute, a global): it is the same in the moved call.  One made during
the proof out of the walk's sight (dispatch turned off, another thread) stops the proof
(:mod:`~gdlcheck.code.prover.sight`).
"""

from __future__ import annotations

import sys

import numpy as np

from gdlcheck.code.prover import conditions, held
from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.guards import Op, plan
from gdlcheck.code.prover.sight import Sight, meet, stop_if_written
from gdlcheck.code.prover.table import (
    CONSTANT,
    Broken,
    Call,
    Fixed,
    Halt,
    NoRule,
    Out,
    bind,
    for_moves,
    out_arguments,
    overwritten,
    unit_moves,
    unit_of,
    writes,
)
from gdlcheck.code.prover.unwritten import Unwritten, kept, touches
from gdlcheck.code.prover.values import (
    Abstract,
    NamedStorages,
    Storages,
    Values,
    _op_text,
    _shape,
    _tensors,
    _without_values,
    path_key,
    user_line,
)


class Walk:
    """One traced call.  ``gens`` are the generators (array form), ``names`` their cycle strings."""

    def __init__(self, gens, names, budget: int, module_names: dict):
        self.gens, self.names = [np.asarray(s, dtype=np.int64) for s in gens], names
        self.moving = Storages()  # storages of tensors that depend on the inputs
        self.values = Values(self.moving)
        self.budget, self.count = budget, 0
        self.everywhere: Halt | None = None  # a stop for every generator (a value asked for ...)
        self.stopped: dict = {}  # generator k -> the stop of its own proof only
        self.steps: list = []  # (where, op, rule, conditions) for the proof
        self.module_names = module_names
        self.stack: list[str] = []
        self.constant_names: dict = {}  # id(tensor) -> parameter / buffer name
        self.roles: dict = {}  # that name -> Role.PARAMETER or Role.BUFFER
        self.signature: list = []  # (op, output shapes): the path, for the second call
        self.busy = False  # inside the walk's own bookkeeping
        self.foreign_hooks = False  # global module hooks besides the walk's: no units
        self.given_ids: set = set()  # the call's own arguments (never foreign)
        self.grad_read = self.rounded = False  # the code asked is_grad_enabled(); a float below float64 made
        self.foreign: list = []  # content of each foreign tensor, in the order met
        self.made = Storages()  # storages of every tensor an operation returned
        self.reads: list = []  # every value the code read into Python, in order
        self.checked_reads: set = set()  # which of them the moved call must read alike
        self.unwritten = Unwritten()  # cells of fresh buffers (new_empty) not written yet
        self.vacuous: str | None = None  # a fresh buffer's first write: its target (unwritten.py)
        self.sight: Sight | None = None  # which tensors were made during the proof (sight.py)
        self.state_storages = NamedStorages()  # the parameters' and buffers' memory, by name
        self.meeting, self.moment = None, 0  # the operation whose arguments the walk reads, and when
        self.returned: list = []  # what that operation returned
        self.earlier = Storages()  # in the moved call: what the first call's operations made
        self.out_of_sight: Halt | None = None  # the stop at a tensor made out of the walk's sight

    # ---------------------------------------------------------------- inputs and lookups

    def set(self, tensor, per, free: bool = True) -> None:
        self.values[tensor] = Abstract(False, list(per), free=free)

    def knowable(self, tensor) -> bool:
        """Whether the code may read this tensor's values: a constant, or a value computed from
        given inputs only that no generator moves (the moved call reads the same numbers, and
        every call does)."""
        a = self.of(tensor)
        return not touches(self, tensor) and (
            a.const or not a.free and all(isinstance(m, mv.Moves) and m.still for m in a.per)
        )

    def read(self, tensors, value) -> bool:
        """The code reads ``value``, computed from ``tensors``, into Python: whether it may (the
        path may then depend on it).  It may where each tensor is knowable (:meth:`knowable`): a
        constant, or a value of the given inputs only that every generator leaves where it is (a
        count of nodes or edges, a degree, the largest graph of a batch, a number of relations):
        the moved call reads the same value, which is checked (every read is kept, in order).  A
        value of the random points is never read, even one no generator changes (a count of
        positive entries): another draw may read another value and take a path the proof did not
        follow."""
        self.reads.append(value)
        if all(self.of(t).const and not touches(self, t) for t in tensors):
            return True
        if all(self.knowable(t) for t in tensors):
            self.checked_reads.add(len(self.reads) - 1)
            return True
        return False

    def of(self, tensor) -> Abstract:
        """What the walk knows of a tensor; one met first is judged by :func:`~.sight.meet`."""
        found = self.values.get(tensor)
        if found is None:
            found = self.values[tensor] = meet(self, tensor)
        return found

    def place(self) -> str:
        """The submodule running now (its qualified name), for the proof's steps."""
        return self.stack[-1] if self.stack else ""

    def stop_each(self, what: str, reason: str, per) -> None:
        """Stop the proof of each generator whose moves in ``per`` are not known, with the first
        cause they carry (a generator that is no automorphism of a fixed graph stops only its own
        proof); where none is known, every generator's, with ``what``."""
        halted = [k for k, m in enumerate(per) if isinstance(m, Halt)]
        if len(halted) == len(self.gens) or not halted:
            self.stop_everywhere(what, reason)
            return
        for k in halted:
            self.stopped.setdefault(k, per[k])

    def stop_everywhere(self, what: str, reason: str) -> None:
        if self.everywhere is None:
            self.everywhere = Halt(self.place() or "call", f"{what} at {user_line()}", reason)

    # ---------------------------------------------------------------- the mode

    def mode(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        walk = self

        class Mode(TorchDispatchMode):
            @classmethod
            def _should_skip_dynamo(cls) -> bool:  # torch wraps the mode in dynamo's disable, whose first
                return "torch._dynamo" in sys.modules  # call imports dynamo (seconds): where nothing loaded it,
                # nothing compiles, and there is nothing to disable (issue 33: the first proof as the next)

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                walk.meeting, walk.moment = func, walk.moment + 1  # code may have run since the last
                before = walk.before(func, args, kwargs or {})
                try:
                    out = func(*args, **(kwargs or {}))
                    walk.moment += 1
                except Exception:  # whether it raises may depend on the values: the path may too
                    if not all(walk.knowable(t) for t in _tensors((args, kwargs))):
                        walk.stop_everywhere(
                            f"an operation raised on values that depend on the inputs ({_op_text(func)})", "asks_value"
                        )
                    raise
                walk.busy = True  # the walk's own reads of tensors are not the code's
                try:
                    walk.step(func, args, kwargs or {}, out, before)
                finally:
                    walk.busy, walk.meeting = False, None
                return out

        return Mode()

    def before(self, func, args, kwargs) -> dict:
        """Copies of the constants an in-place operation is about to write: its rule checks
        conditions on the values they had."""
        import torch

        written = writes(func, args, kwargs)
        if not written or self.everywhere is not None:
            return {}
        bound = bind(func, args, kwargs)
        out = {}
        for name in set(written) - set(out_arguments(func)):
            t = bound.get(name)
            if isinstance(t, torch.Tensor) and (self.of(t).const or not self.of(t).free):  # values a rule reads
                copy = out[name] = t.detach().clone()  # the walk's own copy: known as what it copies
                self.made.add(copy)
                self.values[copy] = self.of(t)
        return out

    def step(self, func, args, kwargs, out, before=None) -> None:
        """One operation: the guards of :func:`~gdlcheck.code.prover.guards.plan` (those of ``GUARDS`` that
        apply to its overload), in order, until one settles it (the last applies its rule), then the after ones."""
        op = Op(func, args, kwargs, out, before or {}, list(_tensors((args, kwargs))), list(_tensors(out)))
        for t in [t for t in op.tensors if all(t is not o for o in op.outs)]:  # met before the outputs join
            self.of(t)  # `made`, where a view of a tensor there before the proof would look made by the call
        self.made.update(op.outs)
        self.signature.append((func, tuple(_shape(t) for t in op.outs), path_key(func, args, kwargs)))
        # before the rule: an in-place operation's output is its argument, which the rule rewrites
        free = any(a is not None and a.free for a in (self.values.get(t) for t in op.tensors))
        for guard in plan(func)[0]:
            if guard.check(self, op):
                break
        for t in op.outs:  # before the effects: a container refilled by a write reads it
            a = self.values.get(t)
            if a is not None and not a.const:
                a.free = free
        for guard in plan(func)[1]:
            guard.check(self, op)

    def unit(self, module, inputs, output) -> None:
        """A ``torch.nn`` unit's theorem (:mod:`gdlcheck.code.prover.rules.units`) says how its output
        moves, in place of the operations inside it."""
        import torch

        found = unit_of(module)
        if found is None or self.everywhere is not None or len(inputs) != 1 or self.foreign_hooks:
            return
        if not all(self.of(p).const for p in list(module.parameters(recurse=False)) + list(module.buffers(False))):
            return  # its weights come from the inputs (torch.func.functional_call): not the class's theorem
        x = inputs[0]
        if not isinstance(x, torch.Tensor) or not isinstance(output, torch.Tensor):
            return
        a, inner = self.of(x), self.values.get(output)
        if a.const or inner is None or inner.const or stop_if_written(self, (x, output), "handed on by a unit"):
            return
        from torch.utils._python_dispatch import _disable_current_modes

        with _disable_current_modes():  # made outside the walk, and reading the kernel: not operations of the call
            blind = (_without_values(x), _without_values(output))
            per = [
                i if mv.wrapped(m) else unit_moves(found, module, m, i, blind, self.place())  # padded: no unit
                for m, i in zip(a.per, inner.per)
            ]
        self.values[output] = Abstract(False, per, free=a.free)
        if all(not isinstance(m, Halt) for m in per) and any(isinstance(m, Halt) for m in inner.per):
            turns = any(isinstance(m, mv.Moves) and m.order is not None for m in a.per)
            self.steps.append((self.place(), type(module).__name__, "turned_kernel" if turns else "theorem1", []))

    def _halt_outputs(self, outs, halt: Halt) -> None:
        for t in outs:
            self.values[t] = Abstract(False, [halt] * len(self.gens))

    def _apply(self, found, op) -> None:
        """Each output's moves, per generator: the rule gives one per top-level output (a tensor,
        a None, or a list of tensors for a split), in order."""
        func, out, before, bound = op.func, op.out, op.before, dict(op.bound)  # (the guards' bound: a copy)
        if any(t.is_nested for t in op.tensors + op.outs):  # ragged: no rule sees its shape
            halt = Halt(self.place() or _op_text(func), f"{_op_text(func)} (on a nested tensor)", "no_op_rule")
            return self._halt_outputs(op.outs, halt)
        for name in out_arguments(func) + overwritten(func):  # an out= buffer, or copy_'s self, is written
            bound.pop(name, None)  # whole: its old values do not count
            before.pop(name, None)
        slots = [out] if not isinstance(out, (tuple, list)) else list(out)
        per_out: list[list] = [[] for _ in slots]
        # the rule sees moving tensors without their values (shape, dtype and moves): what it
        # says then holds for every value of the inputs, not only for this draw's
        blind = {name: self.blind(value) for name, value in bound.items()}
        blind_out = _without_values(out)
        seen = {**blind, **before}  # the rule sees written constants as they were before the write
        for k in range(len(self.gens)):
            moves, halted = {}, None
            for name, value in bound.items():
                m, h = self._moves_of(value, k)
                if h is not None:
                    halted = halted or h
                moves[name] = None if name == self.vacuous else m  # unwritten: they move as needed
            if halted is not None:
                result = [halted] * len(slots)
            else:  # where it refuses, given values this generator leaves as they are are constants
                result = held.retried(self, found, func, seen, moves, blind_out, k, len(slots))
            for slot, r in zip(per_out, result):
                slot.append(r)
        import torch

        named = getattr(found, "step", None)
        if named is not None and all(not isinstance(m, Halt) for per in per_out for m in per):
            self.steps.append((self.place() or _op_text(func), _op_text(func), named, []))
        for slot, per in zip(slots, per_out):
            if isinstance(slot, torch.Tensor):
                self.values[slot] = Abstract(False, per)
            elif slot is not None:  # a list of tensors under one output: each piece moves alike
                for t in _tensors(slot):
                    self.values[t] = Abstract(False, per)

    def blind(self, value):
        """An argument as a rule may see it: a constant, or a value computed from given inputs only
        (the same in every call: an ``edge_index`` and the masks made from it), as it is; a tensor
        that depends on the random points as a tensor of the same shape and dtype without values
        (on torch's meta device)."""
        import torch

        if isinstance(value, torch.Tensor):
            return _without_values(value) if self.of(value).free else value
        if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
            return type(value)(self.blind(v) for v in value)
        return value

    def _moves_of(self, value, k):
        """The moves of an argument for generator k (None for a constant), or the halt it carries."""
        import torch

        if isinstance(value, torch.Tensor):
            a = self.of(value)
            if a.const:
                return None, None
            m = a.per[k]
            return (None, m) if isinstance(m, Halt) else (m, None)
        if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
            out, halted = [], None
            for v in value:
                m, h = self._moves_of(v, k)
                halted = halted or h
                out.append(m)
            return out, halted
        return None, None

    def _one(self, found, func, bound, moves, out, k: int, count: int) -> list:
        where = self.place() or _op_text(func)
        found = for_moves(found, func, moves)  # a move that swaps axes reaches only the rules that follow it
        if found is None:
            return [
                Halt(
                    where,
                    f"{_op_text(func)} (the generator swaps axes here: the rule follows each axis on its own)",
                    "no_op_rule",
                )
            ] * count
        if not getattr(found, "wrapped", False) and any(mv.wrapped(m) for m in moves.values()):
            # an axis padded circularly is no permutation of its entries: only the rules written for it
            return [
                Halt(
                    where,
                    f"{_op_text(func)} (of an axis padded circularly, which only a convolution reads)",
                    "no_op_rule",
                )
            ] * count
        try:
            result = found(Call(func, bound, moves, out, self.gens[k]))
        except NoRule as why:
            return [Halt(where, f"{_op_text(func)} ({why})", "no_op_rule")] * count
        except Exception as err:  # a rule's bug is a stop at its operation, never a crash or a holds
            return [Halt(where, f"{_op_text(func)} (rule_error: {type(err).__name__}: {err})", "no_op_rule")] * count
        if not isinstance(result, Out):
            result = Out(result)
        for c in kept(self, result.conditions, bound):
            failed = self._check(c, k, func)
            if failed is not None:
                return [failed] * count
        ms = result.moves if isinstance(result.moves, (tuple, list)) else (result.moves,)
        if len(ms) < count:
            missing = Halt(where, f"{_op_text(func)} (an output without a rule)", "no_op_rule")
            ms = tuple(ms) + (missing,) * (count - len(ms))
        return list(ms[:count])

    def _check(self, c, k: int, func):
        """A condition of a rule on a constant, checked bit for bit; the halt when it fails."""
        from gdlcheck.layers.proofs import Condition

        where = self.place() or _op_text(func)
        if isinstance(c, Broken):
            return Halt(where, c.what, "no_op_rule")
        assert isinstance(c, Fixed)
        value = c.tensor
        axes = {a % max(value.dim(), 1): p for a, p in c.axes.items() if p is not None and value.shape[a] != 1}
        if any(isinstance(p, mv.Unordered) for p in axes.values()):
            return Halt(
                where,
                f"a constant laid along an axis in an order not known "
                f"({next(p for p in axes.values() if isinstance(p, mv.Unordered)).what})",
                "no_op_rule",
            )
        name = self.of(value).origin or "a constant"
        if not axes:
            return None
        if any(len(p) != value.shape[a] for a, p in axes.items()):
            return Halt(where, f"{name}: laid along a moving axis with another size", "no_op_rule")
        entry = conditions.first_moved(value, axes)
        what = c.what if c.what != CONSTANT else ("constant_rows" if len(axes) == 1 else "constant_pairs")
        condition = Condition(what, self.names[k], entry is None, name, *(() if entry is None else entry))
        self.steps.append((where, _op_text(func), "constant", [condition]))
        if entry is None:
            return None
        # "parameter" or "buffer" only for the tensor itself or a view of it; a value made from one
        # is a constant
        return Halt(where, self.of(value).role, "condition", condition)
