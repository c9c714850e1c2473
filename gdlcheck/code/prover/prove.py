"""Prove a torch module by following the call it runs: :func:`prove_call`.

1. Build the call's arguments as the numeric trials do (random points from a seeded block, the
   given values as given) and say how each generator moves each of them
   (:func:`_input_moves`).
2. Call the module, as the user's code calls it, under the :class:`~gdlcheck.code.prover.walk.Walk`
   dispatch mode, with every process-wide patch of :mod:`~gdlcheck.code.prover.patches` (the tensor
   methods that read memory outside torch's operations, ``.tolist()``, ``.numpy()``, ``repr``,
   are watched), and the state (parameters, buffers, every attribute
   of every submodule, Python's, numpy's and torch's random state) is compared before and after.
3. Call it a second time on the points moved by a uniformly random element ``g`` of the group: the
   operations it dispatches must be the same (else its path depends on the values or on state it
   keeps elsewhere), and its output must be the first output moved by ``g`` (a numeric trial
   inside every proof, at no extra pass: a proof that holds is never without one; where it
   disagrees, the proof carries the counterexample, and the module fails).
4. Read each output's moves against the move the check expects (:func:`_conclude`).

The proof is of this computation: the module's code as it ran, for these shapes and given values,
for every value of the random inputs.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code.prover import arguments, patches, state, values
from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.compare import disagreement as _disagreement
from gdlcheck.code.prover.guards import OverBudget
from gdlcheck.code.prover.sight import Sight, stop_if_written
from gdlcheck.code.prover.table import Halt
from gdlcheck.code.prover.unwritten import touches
from gdlcheck.code.prover.walk import Abstract, Walk
from gdlcheck.groups import act
from gdlcheck.layers.proofs import (
    Condition,
    ConstantCheck,
    Disagreement,
    Halted,
    OperationStep,
    Proof,
    Reason,
    Role,
    Step,
    Stop,
    Untraced,
    generator_text,
)

# operations one traced call may dispatch; past them the call is stopped (a 5,000-layer Sequential
# of activations dispatches 5,000)
TRACE_OPERATIONS = 50_000
# the proof's input is trial PROOF_TRIAL of the trials' draws, default_rng([seed, PROOF_TRIAL]); its
# moved call's element comes from default_rng([seed, PROOF_ELEMENT])
PROOF_TRIAL = 1 << 29
PROOF_ELEMENT = (1 << 29) + 1


def prove_call(layer, group, seed: int = 0) -> Proof:
    """Prove the torch module of ``layer`` (a :class:`~gdlcheck.code.user_code.CallableLayer`)
    against ``group``, for the call its signature describes."""
    # which tensors the proof's calls make out of the walk's sight; the patches, set once for both calls
    with Sight() as sight, patches.patched() as watch:
        return _prove(layer, group, seed, sight, watch)


def _prove(layer, group, seed: int, sight: Sight, watch: patches.Watch) -> Proof:
    import gdlcheck.code.prover.rules  # noqa: F401  (fills the rule table)

    module, signature = layer.f, layer.signature
    gens = [np.asarray(s, dtype=np.int64) for s in group.gen_arrays()]
    names = [generator_text(s) for s in gens]
    top = OperationStep(type(module).__name__, type(module).__name__, "traced", depth=0)
    unsupported = arguments.unsupported(signature)
    if unsupported:
        return _everywhere(top, names, Halt("call", unsupported, "not_traced"))
    # the input as a trial draws it (a counterexample of the moved call is a trial the user can rerun)
    X = np.random.default_rng([seed, PROOF_TRIAL]).standard_normal((signature.n, signature.channels))
    args, kwargs = layer.call_arguments(X, signature.bundle, tensors=True)
    walk = Walk(gens, names, TRACE_OPERATIONS, arguments.module_names(module))
    walk.constant_names.update(arguments.constant_names(module))
    walk.given_ids = {id(t) for t in values._tensors((args, kwargs))}
    walk.made.update(values._tensors((args, kwargs)))
    walk.roles.update({name: Role.PARAMETER for name, _ in module.named_parameters()})
    walk.roles.update({name: Role.BUFFER for name, _ in module.named_buffers()})
    walk.sight = sight
    walk.state_storages = values.NamedStorages(lambda: [*module.named_parameters(), *module.named_buffers()])
    halt = arguments.input_moves(walk, signature, args, kwargs, gens)
    if halt is not None:
        return _everywhere(top, names, halt)
    before = state.snapshot(module)
    if state.TELLS in before:
        return _everywhere(top, names, Halt("call", state.TELLS[1], "state"))
    try:
        out, rng_changed = patches.traced_call(watch, walk, module, args, kwargs)
    except OverBudget:
        halt = walk.everywhere
        assert halt is not None, "the budget stops the walk everywhere before it raises"
        return _everywhere(top, names, halt)
    except RecursionError:
        return _everywhere(top, names, Halt("call", "a call that nests too deep (RecursionError)", "not_traced"))
    except Exception as err:  # the call itself fails: the trials report it
        return _everywhere(top, names, Halt("call", f"a call that raises {type(err).__name__}", "not_traced"))
    walk.meeting = None  # what the walk meets from now on is handed on with no operation
    stop_if_written(walk, values._tensors(out), "returned")
    layer.reads_grad_mode = walk.grad_read
    changed = state.changed(before, state.snapshot(module)) + (["torch's random state"] if rng_changed else [])
    if changed:
        walk.stop_everywhere("the call changes state: " + ", ".join(changed[:4]), "state")
    proof = _conclude(walk, top, names, gens, signature, out)
    kept = [k for k, name in enumerate(names) if proof.proven[name]]
    # stopped only by what the walk did not see: the moved call may still show a counterexample
    unseen = walk.out_of_sight is not None and walk.everywhere is walk.out_of_sight
    if not kept and not unseen:
        return proof
    # the moved call takes a random element of what is proved: the group, or the subgroup of the
    # generators whose proofs went on (one that is no automorphism stops only its own)
    g = _element(group if unseen or len(kept) == len(names) else group.subgroup(kept), seed)
    moved = _moved_call(walk, layer, module, signature, X, g, out, watch)
    if walk.everywhere is not None:
        proof = _everywhere(top, names, walk.everywhere)
    if moved is not None:  # one numeric trial shows the module does not commute with g
        found = Disagreement(tuple(int(v) for v in g), seed, PROOF_TRIAL, *moved)
        # the proofs it contradicts are wrong (a rule, a thread, a dispatch the walk did not see)
        proof = _everywhere(
            top,
            names,
            Halt(
                "call",
                f"the moved call's output is not the output moved by a "
                f"random element of the group (relative error "
                f"{found.relative_error:.3g})",
                "moved",
            ),
        )
        proof.disagreement = found  # the counterexample: the check fails
    return proof


def _element(group, seed: int) -> np.ndarray:
    """A uniformly random element of the group for the moved call, other than the identity where
    the group has another (the identity would cross-check nothing but determinism)."""
    rng = np.random.default_rng([seed, PROOF_ELEMENT])
    identity = np.arange(group.n)
    g = group.random_element(rng)
    for _ in range(16):
        if not np.array_equal(g, identity):
            break
        g = group.random_element(rng)
    return np.asarray(g, dtype=np.int64)


def _moved_call(walk: Walk, layer, module, signature, X, g, out, watch) -> tuple | None:
    """Call the module on ``g . X`` for a uniformly random element ``g`` of the group (not a
    generator), also under a dispatch mode: the operations dispatched must be the same (else its
    path depends on the values or on state kept elsewhere).  Returns, where its output is not
    the first output moved by ``g`` past the tolerance rule and rounding, the fields of a
    :class:`~gdlcheck.layers.proofs.Disagreement` after its element and draw (a proof that holds
    is then wrong about this module, whatever the reason: a rule, a thread, a dispatch the walk
    did not see); else None.  Where the outputs cannot be compared the proof stops: it never
    holds without this cross-check."""

    try:  # before the moved call, which may write into what the first returned
        first = signature.flatten(out, layer.label)
    except Exception:  # an output the trials cannot compare: they report it
        walk.stop_everywhere("the output cannot be compared with the moved call's", "moved")
        return None
    moved_args, moved_kwargs = layer.call_arguments(
        act(g, X), signature.move_inputs(g, signature.bundle, signature.graph_law), tensors=True
    )
    again = Walk([], [], TRACE_OPERATIONS, walk.module_names)
    again.constant_names, again.roles = walk.constant_names, walk.roles
    again.sight, again.state_storages, again.earlier = walk.sight, walk.state_storages, walk.made
    again.given_ids = {id(t) for t in values._tensors((moved_args, moved_kwargs))}
    again.made.update(values._tensors((moved_args, moved_kwargs)))
    before = state.snapshot(module)
    try:
        moved_out, _ = patches.traced_call(watch, again, module, moved_args, moved_kwargs)
    except OverBudget:
        walk.stop_everywhere("the moved call dispatches more operations than the first", "path")
        return None
    except Exception as err:  # the moved call fails where the first did not: not the same path
        walk.stop_everywhere(f"the moved call raised {type(err).__name__}", "path")
        return None
    again.meeting = None
    if again.out_of_sight is None and not stop_if_written(again, values._tensors(moved_out), "returned"):
        for t in values._tensors(moved_out):  # the output, as the moved call returned it
            again.of(t)
    changed = state.changed(before, state.snapshot(module))
    if again.out_of_sight is not None:  # made or written out of sight in the moved call (maybe only there)
        walk.everywhere = walk.everywhere or again.out_of_sight
    if changed:
        walk.stop_everywhere("a second call changes state: " + ", ".join(changed[:4]), "state")
    elif again.signature != walk.signature:
        k = next(
            (i for i, (a, b) in enumerate(zip(walk.signature, again.signature)) if a != b),
            min(len(walk.signature), len(again.signature)),
        )
        walk.stop_everywhere(f"the moved call dispatched other operations (from operation {k} on)", "path")
    elif any(walk.reads[i] != again.reads[i] for i in walk.checked_reads if i < len(again.reads)) or len(
        again.reads
    ) != len(walk.reads):
        walk.stop_everywhere("the moved call read another value into Python than the first", "path")
    elif again.foreign != walk.foreign:
        walk.stop_everywhere(
            "a tensor made outside torch's operations (neither a parameter, a buffer nor an input) "
            "differs between the calls",
            "random",
        )
    else:
        try:
            second = signature.flatten(moved_out, layer.label)
        except Exception:  # an output the trials cannot compare: they report it
            walk.stop_everywhere("the moved call's output cannot be compared with the first", "moved")
            return None
        return _disagreement(layer, signature, g, X, first, second, walk.rounded or again.rounded)
    return None


# --------------------------------------------------------------------------- the conclusion


def _everywhere(top: Step, names, halt: Halt) -> Proof:
    top.rule = None
    stop = _stop(halt, 1)
    return Proof([top, stop.step], dict.fromkeys(names, False), dict.fromkeys(names, stop), "trace")


def _stop(halt: Halt, depth: int) -> Stop:
    if halt.reason is Reason.CONDITION and halt.condition is not None:
        # the halt's what is whose constant it is: a parameter, a buffer or another constant
        return Stop(ConstantCheck(halt.where, [halt.condition], role=Role(halt.what), depth=depth), halt.condition)
    if halt.reason is Reason.NOT_TRACED:  # worded as "the tracer does not follow <what>"
        return Stop(Untraced(halt.what, depth=depth), None, halt.reason)
    return Stop(Halted(halt.where, halt.what, depth), None, halt.reason)


def _conclude(walk: Walk, top: Step, names, gens, signature, out) -> Proof:
    from gdlcheck.code.outputs import matched

    if walk.everywhere is not None:
        return _everywhere(top, names, walk.everywhere)
    steps = [top] + _steps(walk)
    proven = dict.fromkeys(names, True)
    stops: dict = {}
    for k, halt in walk.stopped.items():  # a generator whose own proof stopped on the way
        proven[names[k]] = False
        stops[names[k]] = _stop(halt, 1)
    try:
        leaves = list(matched(signature.outputs, out, "", "callable"))
    except Exception as err:  # the output does not match its description: the trials report it
        return _everywhere(
            top,
            names,
            Halt("output", f"the output is not as described ({type(err).__name__})", "output_moves_otherwise"),
        )
    for where, action, value in leaves:
        if not action.kind.is_compared:
            continue
        for k, name in enumerate(names):
            if not proven[name]:
                continue
            halt = _output_halt(walk, value, action, signature, gens[k], k, where)
            if halt is not None:
                proven[name] = False
                stops[name] = _stop(halt, 1)
    if not all(proven.values()):
        for stop in stops.values():  # each place the proof stopped, once
            if all(stop.step is not s and (stop.step.path, stop.step.label) != (s.path, s.label) for s in steps):
                steps.append(stop.step)
    return Proof(steps, proven, stops, "trace")


def _output_halt(walk: Walk, value, action, signature, s, k: int, where: str) -> Halt | None:
    import torch

    label = f"output{where}" if where else "the output"
    if not isinstance(value, torch.Tensor):
        return Halt(label, f"{label} is not a tensor", "output_moves_otherwise")
    a: Abstract = walk.of(value)
    if touches(walk, value):
        return Halt(label, f"{label} holds memory no operation wrote", "output_moves_otherwise")
    nd = value.dim()
    want = _wanted(action, signature, nd, s, tuple(value.shape))
    if isinstance(want, Halt):
        return want
    if isinstance(want, mv.Moves):  # the grid's axes swapped (a rotation)
        m = a.per[k] if not a.const else mv.still(nd)
        if isinstance(m, Halt):
            return m
        if (
            a.const
            or m.labels is not None
            or mv.order_of(m, nd) != mv.order_of(want, nd)
            or not all(mv.same(p, q) for p, q in zip(m.axes, want.axes))
        ):
            return Halt(label, f"{label} moves otherwise than {action.text()} (its axes)", "output_moves_otherwise")
        return None
    if a.const:
        need = {ax: p for ax, p in enumerate(want) if mv.moving(p)}
        if not need:
            return None
        from gdlcheck.code.prover.table import Fixed

        return walk._check(Fixed(value, need), k, torch.ops.aten.alias.default)
    m = a.per[k]
    if isinstance(m, Halt):
        return m
    if m.labels is not None and mv.moving(m.labels):
        return Halt(label, f"{label} holds node labels", "output_moves_otherwise")
    for ax in range(nd):
        if not mv.same(m.axes[ax], want[ax]):
            return Halt(label, f"{label} moves otherwise than {action.text()} (axis {ax})", "output_moves_otherwise")
    return None


def _wanted(action, signature, nd: int, s, shape: tuple):
    """The permutation the check expects on each axis of an output."""
    want = [None] * nd
    kind = action.kind
    if kind.moves_each_axis:  # pairs: each axis by s
        for ax in action.resolved_axes(signature.points_axes):
            want[ax % nd] = s
    elif kind.takes_axes:  # points: the axes together are one index of the points
        axes = action.resolved_axes(signature.points_axes)
        if max(axes) >= nd:
            return Halt("output", "an output without the points axis", "output_moves_otherwise")
        found = arguments.on_axes(s, axes, tuple(shape))
        return found if isinstance(found, (Halt, mv.Moves)) else list(found)
    elif kind.follows_edges:
        return Halt("output", "an output of edges", "not_traced")
    return want


def _steps(walk: Walk) -> list[Step]:
    """The walk's steps for the proof: each unit (a theorem) and each checked constant, once per
    place (a constant's conditions for every generator in one step)."""
    out: dict[tuple, Step] = {}
    for where, op, rule, conditions in walk.steps:
        key = (where, op, rule)
        if key not in out:
            if len(out) >= 200:
                break
            out[key] = (
                ConstantCheck(where, [], op=op)
                if rule == ConstantCheck.rule
                else OperationStep(where, op, rule, THEOREMS.get(rule))
            )
        known = {(c.what, c.generator, c.parameter) for c in out[key].conditions}
        out[key].conditions += [c for c in conditions if (c.what, c.generator, c.parameter) not in known]
    return list(out.values())


THEOREMS = {"theorem4": "Theorem 4", "encoder": "Theorem 4", "theorem1": "Theorem 1", "theorem3": "Theorem 3"}


__all__ = ["prove_call", "Condition"]
