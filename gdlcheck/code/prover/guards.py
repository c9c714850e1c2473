"""The soundness argument of a proof of torch code, as data: one ordered table of named guards.

A proof says: for every value of the random points, the module's call on ``g . X`` returns
``g . f(X)``.  The walker (:mod:`gdlcheck.code.prover.walk`) follows the first call operation by
operation and, for each one, runs the guards of :data:`GUARDS` in order until one settles the
operation; each guard discharges one obligation of the argument, stated in its sentence.  The
last guard applies the operation's rule; the guards marked ``after`` run once the operation is
settled.  What no guard here can see is left to the proof's other checks, each stated in
:data:`CALL_CHECKS` (they run around the call in :mod:`gdlcheck.code.prover.prove`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from gdlcheck.code.prover import effects, held, own, sight, unwritten
from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.facts import BELOW_FLOAT64, may_write, no_dropout, selects, tagged
from gdlcheck.code.prover.table import Halt, bind, lookup, writes
from gdlcheck.code.prover.values import _SHAPE_ONLY, Abstract, _op_text, _scalar_result, own_dispatch, user_line
from gdlcheck.layers.proofs import Role

if TYPE_CHECKING:  # torch is imported when code is checked
    from torch._ops import OpOverload


class OverBudget(BaseException):
    """Raised into the call past the budget: a BaseException, so that the code's own ``except
    Exception`` does not swallow it (the proof is stopped either way)."""


@dataclass
class Op:
    """One dispatched operation as the guards see it."""

    func: OpOverload
    args: tuple
    kwargs: dict
    out: object
    before: dict
    tensors: list
    outs: list
    inputs: list = field(default_factory=list)  # the walk's abstract value of each tensor argument

    # what several guards read, found once per operation (the guards do not change the call's arguments)
    @cached_property
    def seeded(self) -> bool:
        return tagged(self.func, "nondeterministic_seeded") and not no_dropout(self.func, self.bound)

    @cached_property
    def bound(self) -> dict:
        """The arguments by name (:func:`~gdlcheck.code.prover.table.bind`); read, never changed."""
        return bind(self.func, self.args, self.kwargs)

    @cached_property
    def rule(self):
        return lookup(self.func)


@dataclass(frozen=True)
class Guard:
    """``check(walk, op)`` returns True when it settled the operation (no later guard runs)."""

    name: str
    sentence: str
    check: Callable[..., bool]
    after: bool = False
    # whether the check can do anything for an overload, by its schema and tags alone (None: it may, for
    # any): where it says no, the walk does not run the check for that overload (:func:`plan`)
    applies: Callable[[OpOverload], bool] | None = None


def _budget(walk, op: Op) -> bool:
    walk.count += 1
    if walk.count > walk.budget:  # stop the call itself: a proof past the budget costs no more
        walk.stop_everywhere(
            f"the call dispatches more than {walk.budget:,} operations (the tracer's budget)", "budget"
        )
        raise OverBudget(walk.budget)
    return False


def _stopped(walk, op: Op) -> bool:
    return walk.everywhere is not None


def _foreign_type(walk, op: Op) -> bool:
    import torch

    odd = next((t for t in op.tensors if type(t) is not torch.Tensor and own_dispatch(type(t))), None)
    if odd is not None:
        walk.stop_everywhere(
            f"a tensor of type {type(odd).__qualname__} with its own __torch_dispatch__ or "
            f"__torch_function__ ({_op_text(op.func)})",
            "foreign_type",
        )
        return True
    registered = own.kernels_of_the_program()
    if registered and op.func.name() in registered:  # none registered, the common case: one lookup
        walk.stop_everywhere(
            f"{_op_text(op.func)} runs a kernel the program registered for it (torch.library), not torch's",
            "foreign_type",
        )
        return True
    op.inputs = [walk.of(t) for t in op.tensors]
    return False


def _unseen_write(walk, op: Op) -> bool:
    walk.returned = op.outs
    if not any(sight.written_unseen(walk, t) for t in op.tensors):  # the usual answer, without the message
        return False
    return sight.stop_if_written(walk, op.tensors, f"used by {_op_text(op.func)}")


def _writes_seen(walk, op: Op) -> bool:
    sight.count_writes(walk, op)
    return False


def _value_read(walk, op: Op) -> bool:
    if _scalar_result(op.out) and op.func not in _SHAPE_ONLY and not walk.read(op.tensors, repr(op.out)):
        walk.stop_everywhere(f"the code asks for a value ({_op_text(op.func)})", "asks_value")
        return True
    return False


def _foreign_write(walk, op: Op) -> bool:
    import torch

    for name in writes(op.func, op.args, op.kwargs):
        target = op.bound.get(name)
        if isinstance(target, torch.Tensor) and walk.of(target).foreign:  # the next call sees the write
            name = walk.of(target).origin or "a tensor the call did not make"
            walk.stop_everywhere(f"the call changes state: {name} (written by {_op_text(op.func)})", "state")
            return True
    return False


def _constant(walk, op: Op) -> bool:
    if not all(a.const for a in op.inputs) or op.seeded:
        return False
    # a value made from constants is named by the parameter or buffer it came from, else by the
    # submodule that made it; a view of a parameter is that parameter
    origin = next((a.origin for a in op.inputs if a.origin), "") or _made_here()
    role = op.inputs[0].role if op.inputs and op.func.is_view else Role.CONSTANT
    for t in op.outs:
        walk.values[t] = Abstract(True, origin=origin, role=role)
    return True


def _made_here() -> str:
    """How a constant made inside ``forward`` from nothing named is called: by the user's line that
    made it (``the constant made at model.py:17``; the note adds the submodule running), not by the
    module alone."""
    return f"the constant made at {user_line()}"


def _data_shape(walk, op: Op) -> bool:
    if not tagged(op.func, "data_dependent_output") or op.rule is not None:
        return False
    if not all(walk.knowable(t) for t in op.tensors):
        walk.stop_everywhere(f"the code asks for a value ({_op_text(op.func)})", "asks_value")
    return True


def _random(walk, op: Op) -> bool:
    if not op.seeded:
        return False
    walk._halt_outputs(op.outs, Halt(walk.place(), f"a random draw ({_op_text(op.func)})", "random"))
    return True


def _shape_only_rule(walk, op: Op) -> bool:
    found = op.rule
    if found is None or not getattr(found, "constant", False):
        return False
    for t in op.outs:
        walk.values[t] = Abstract(True, origin=_made_here())
    return True


def _no_rule(walk, op: Op) -> bool:
    if op.rule is not None:
        return False
    halt = Halt(walk.place() or _op_text(op.func), _op_text(op.func), "no_op_rule")
    for t in op.outs:  # but for a generator that leaves every input as it is: the output stays too
        walk.values[t] = Abstract(
            False,
            [mv.still(t.dim()) if held.inputs_unchanged(walk, op.tensors, k) else halt for k in range(len(walk.gens))],
        )
    return True


def _rule(walk, op: Op) -> bool:
    walk._apply(op.rule, op)
    return True


def _aliasing(walk, op: Op) -> bool:
    if walk.everywhere is None:
        effects.aliases(walk, op, all(a.const for a in op.inputs))
    return False


def _rounding(walk, op: Op) -> bool:
    if not walk.rounded:
        walk.rounded = any(t.dtype in BELOW_FLOAT64 for t in op.outs)
    return False


def _selection(walk, op: Op) -> bool:
    if walk.everywhere is None:
        effects.shape_read(walk, op)
        effects.unknown_index(walk, op)
    return False


GUARDS = (
    Guard("budget", "A call past the operation budget is stopped: what a proof costs is bounded.", _budget),
    Guard(
        "stopped",
        "Once the proof stopped for every generator, the call runs on and only its path is recorded "
        "(the moved call must dispatch the same operations).",
        _stopped,
    ),
    Guard(
        "unseen write",
        "A write the walk did not see (torch's dispatch turned off, another thread) changes what a "
        "tensor holds unseen: a tensor whose version counter is not the one it was met with plus "
        "the writes seen since through that counter stops the proof (code/prover/sight.py).",
        _unseen_write,
    ),
    Guard(
        "foreign type",
        "A tensor whose class has its own __torch_dispatch__ or __torch_function__, or an aten "
        "operation with a kernel the program registered (torch.library), runs that code, not the "
        "operation a rule is about: the proof stops.",
        _foreign_type,
    ),
    Guard(
        "unwritten",
        "A fresh buffer (new_empty, empty_like, torch.empty) holds what the allocator left, which "
        "differs between calls: a read of a cell not written yet stops the proof; the first write "
        "into a buffer nothing wrote yet may take its old values to move as the rule needs, since "
        "they are unwritten in both calls (code/prover/unwritten.py).",
        unwritten.reads,
    ),
    Guard(
        "value read",
        "A value of a tensor that depends on the random points, handed to Python, may choose the "
        "path: the proof stops (values of constants and of given values the group does not move "
        "are the same in every call, and a value of given inputs that every generator leaves "
        "where it is, a count or a maximum over every moving axis, is the same in the moved call, "
        "which must read it alike).",
        _value_read,
        applies=lambda func: func not in _SHAPE_ONLY,  # a shape's value is the same in every call
    ),
    Guard(
        "foreign write",
        "A write into a tensor the call did not make is seen by the next call, which may then "
        "compute something else: the proof stops.",
        _foreign_write,
        applies=may_write,  # writes nothing: nothing to check
    ),
    Guard("constant", "An operation of constants gives a constant, the same in the moved call.", _constant),
    Guard(
        "data shape",
        "An operation whose output's shape depends on values, with no rule, is followed only "
        "where those values are the same in every call.",
        _data_shape,
        applies=lambda func: tagged(func, "data_dependent_output"),  # its check starts with this tag
    ),
    Guard(
        "random",
        "A random draw differs between calls: what it reaches is not known.",
        _random,
        applies=lambda func: tagged(func, "nondeterministic_seeded"),  # what torch tags random (Op.seeded)
    ),
    Guard("shape only", "An operation whose result depends only on shapes gives a constant.", _shape_only_rule),
    Guard("no rule", "An operation without a rule: what it returns is not known.", _no_rule),
    Guard(
        "rule",
        "The rule sees the tensors that depend on the random points without their values (meta "
        "tensors), so what it says holds for every draw; its conditions on constants are checked on "
        "their values, bit for bit.",
        _rule,
    ),
    Guard(
        "aliasing",
        "A write changes every view of what it writes: those views are no longer known.",
        _aliasing,
        after=True,
        applies=may_write,  # writes nothing: no view changes
    ),
    Guard(
        "selection",
        "A selection whose shape depends on values, or an index not known, may differ in the moved "
        "call: the proof stops where its moves are not known.",
        _selection,
        after=True,
        applies=selects,  # the cases effects.shape_read and unknown_index look at
    ),
    Guard(
        "writes seen",
        "Each write the walk sees is counted by version counter, for the versions the writes bump "
        "once the operation returns.",
        _writes_seen,
        after=True,
        applies=lambda func: func.is_view or may_write(func),  # sight.count_writes counts these only
    ),
    Guard(
        "written",
        "The cells a write replaces whatever they held (copy_, fill_, index_copy_, index_put_ at an index "
        "of given inputs or constants, an out= buffer) are written: the moved call wrote their images "
        "under the buffer's moves.",
        unwritten.wrote,
        after=True,
        # writes nothing: no cell is written (the fresh buffer's mark, walk.vacuous, is set only for a
        # write, whose own "written" clears it)
        applies=may_write,
    ),
    Guard(
        "rounding",
        "An operation that makes a floating tensor below float64 rounds at its precision: the moved "
        "call's output is compared with float32's rounding, else with float64's.",
        _rounding,
        after=True,
    ),
)
# the guards the walk runs before an operation's rule applies, and those it runs after (the effects)
BEFORE = tuple(g for g in GUARDS if not g.after)
AFTER = tuple(g for g in GUARDS if g.after)


def plan(func) -> tuple[tuple[Guard, ...], tuple[Guard, ...]]:
    """The guards of :data:`BEFORE` and :data:`AFTER` the walk runs for an overload: all but those
    whose ``applies`` says they can do nothing for it, found once per overload (where that cannot be
    found, every guard)."""
    try:
        return _PLANS[func]
    except KeyError:
        pass
    except TypeError:  # not hashable
        return BEFORE, AFTER
    try:
        found = tuple(tuple(g for g in gs if g.applies is None or g.applies(func)) for gs in (BEFORE, AFTER))
    except Exception:  # an operation without a schema or tags: every guard runs
        return BEFORE, AFTER
    _PLANS[func] = found
    return found  # type: ignore[return-value]


_PLANS: dict = {}

# What the proof checks around the call (gdlcheck.code.prover.prove), for what no guard of an operation sees
CALL_CHECKS = (
    (
        "value readers",
        "Tensor methods that read values without an operation (tolist, numpy, storages, ...), on "
        "torch.Tensor and on torch._C.TensorBase, the number protocol torch's C++ constructors read "
        "through (torch.LongTensor([k])) and tensor_split's kernel, stop the proof when the tensor "
        "depends on the random points; they are patched for the proving thread only, under one lock "
        "(code/prover/patches.py).",
    ),
    (
        "state",
        "The module's state (every attribute of every submodule and its classes, at any depth, tensors by "
        "content) and the random states are the same before and after each call; it holds neither the "
        "user's module (of which the module is a copy) nor a part of it, a weak reference to one or its id.",
    ),
    (
        "foreign tensors",
        "A tensor no operation made, neither state nor argument, made during the proof (with "
        "torch's dispatch off, in another thread, by no operation: code/prover/sight.py) may hold "
        "values of the points: the proof stops where the walk meets it; one there before the proof "
        "has the same content in both calls (a hash of all of it).",
    ),
    (
        "path",
        "The moved call dispatches the same operations with the same plain arguments, and the same fresh "
        "tensors (hashed whole).",
    ),
    (
        "moved call",
        "The module called on g . X for a uniformly random element g of the group returns g . f(X) "
        "within the tolerance and rounding: a holds always carries this numeric trial, and where it "
        "does not, the module does not commute with g: the check fails, with this counterexample.",
    ),
)
