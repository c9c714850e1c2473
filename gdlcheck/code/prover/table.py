"""The tracer's one rule table: operation object -> rule.

Rules are registered with :func:`rule`, keyed by the operation objects themselves (aten
overloads such as ``torch.ops.aten.mm.default``), as torch's meta registrations
(``register_meta``) and jax's batching rules are.  An operation tagged ``pointwise`` by torch has
the one elementwise rule unless it has its own.  No operation is ever looked up by its name.

A rule is a pure function of one :class:`Call`: the operation's arguments bound by its schema
and, for each tensor argument, how the generator moves it (a :class:`~gdlcheck.code.prover.moves.Moves`,
or None for a constant).  It returns the output's :class:`~gdlcheck.code.prover.moves.Moves` (a tuple for
several outputs), or an :class:`Out` that adds conditions on constants (:class:`Fixed`), and
raises :class:`NoRule` where it does not apply.  The walker (:mod:`gdlcheck.code.prover.walk`) checks
the conditions on the constants' values and writes the proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gdlcheck.layers.proofs import Reason

if TYPE_CHECKING:  # torch is imported when code is checked
    import torch

RULES: dict = {}
TURNED: dict = {}  # operation object -> its rule for moves that swap axes (a grid's rotation)
UNITS: dict = {}  # torch.nn class -> the rule of the whole module (a theorem about the class)
FUNCTIONS: dict = {}  # a torch function (torch._C._nn.pad) -> the rule of the whole call (a theorem about it)


class NoRule(Exception):
    """The rule does not cover this call (the reason is the message): the output is not known."""


class NotUnit(NoRule):
    """A unit's theorem is not about this module at all (a convolution without circular padding):
    what the operations inside said is the note, not the theorem's reason."""


def rule(*ops):
    """Register the decorated function as the rule of each operation object in ``ops``."""

    def register(fn):
        for op in ops:
            if op in RULES:
                raise ValueError(f"two rules for {op}")
            RULES[op] = fn
        return fn

    return register


def turned(*ops):
    """Register the decorated function as the rule of each operation in ``ops`` for moves that
    swap axes (:attr:`~gdlcheck.code.prover.moves.Moves.order`).  The walker hands such a move only to
    these rules: the others read a move's axes one by one, and would drop its order."""

    def register(fn):
        for op in ops:
            if op in TURNED:
                raise ValueError(f"two rules for {op} under swapped axes")
            TURNED[op] = fn
        return fn

    return register


def lookup_turned(func):
    """The rule of ``func`` for moves that swap axes, or None."""
    import torch

    found = TURNED.get(func)
    if found is None and torch.Tag.pointwise in getattr(func, "tags", ()):
        found = TURNED.get(POINTWISE)
    return found


def for_moves(found, func, moves: dict):
    """The rule that may see ``moves``: ``found`` itself, or where a move swaps axes, the rule of
    :data:`TURNED` (None: there is none)."""
    if any(getattr(m, "order", None) is not None for v in moves.values() for m in (v if isinstance(v, list) else [v])):
        return lookup_turned(func)
    return found


def step(rule_name: str):
    """Mark a rule as a step of the proof worth a line (a theorem of the texts, a scatter): the
    walker records it where it applies.  ``rule_name`` is a key of the proof's sentences."""

    def mark(fn):
        fn.step = rule_name
        return fn

    return mark


def lookup(func):
    """The rule of ``func``: its own, else the elementwise rule of a ``pointwise`` operation."""
    import torch

    found = RULES.get(func)
    if found is None and torch.Tag.pointwise in getattr(func, "tags", ()):
        found = RULES.get(POINTWISE)
    if found is None and torch.Tag.out in getattr(func, "tags", ()):
        found = RULES.get(functional(func))
    return found


def functional(func):
    """The functional overload of an ``out=`` variant (``mm.out`` -> ``mm.default``): the overload of
    the same operation whose schema has the same arguments but the written ``out`` ones.  Its rule
    is the out variant's: the walker drops the ``out`` buffer, which is written whole."""
    own = [(a.name, str(a.type)) for a in func._schema.arguments if not (a.kwarg_only and a.alias_info is not None)]
    packet = func.overloadpacket
    for name in packet.overloads():
        other = getattr(packet, name)
        if other is func or any(a.alias_info is not None and a.alias_info.is_write for a in other._schema.arguments):
            continue
        if [(a.name, str(a.type)) for a in other._schema.arguments] == own:
            return other
    return None


def out_arguments(func) -> list[str]:
    """The ``out=`` arguments of an operation's out variant (keyword-only and written)."""
    return [name for name, kwarg_only, _, _, written in _arguments(func) if kwarg_only and written]


def overwritten(func) -> list[str]:
    """The argument an in-place operation writes whole, whatever it held: ``copy_``'s ``self``
    (every entry becomes ``src``'s, broadcast)."""
    import torch

    return ["self"] if func is torch.ops.aten.copy_.default else []


POINTWISE = object()  # the key of the elementwise rule


def constant(fn):
    """Mark a rule whose operation's result does not depend on the inputs' values (only on
    their shapes): the result is a constant of the call."""
    fn.constant = True
    return fn


# the word of a condition on a constant that the walk names by the moving axes it meets
# (``constant_rows`` for one, ``constant_pairs`` for two)
CONSTANT = "constant"


@dataclass(frozen=True, eq=False)
class Fixed:
    """A condition on a constant: ``tensor`` is unchanged when each axis in ``axes`` is moved by its
    permutation (``T[..., p[i], ...] = T[..., i, ...]``, bit for bit).  ``what`` names it for the
    proof (``constant_rows``, ``constant_pairs``, ``mask``, ``index``)."""

    tensor: torch.Tensor
    axes: dict
    what: str = CONSTANT


@dataclass(frozen=True, eq=False)
class Broken:
    """A condition that fails outright for this generator (``what`` says which)."""

    what: str


@dataclass
class Out:
    moves: object
    conditions: list = field(default_factory=list)


@dataclass
class Call:
    """One operation of the call, for one generator: ``args`` bound by the schema (names to
    values), ``moves`` of each tensor argument by name (None: a constant; for a list of tensors,
    a list), and the outputs' shapes."""

    func: object
    args: dict
    moves: dict
    out: object
    gen: object = None  # the generator (array form): a fact about constants it may state, never values

    def value(self, name):
        return self.args.get(name)

    def shape(self, name) -> tuple[int, ...]:
        return tuple(self.args[name].shape)

    def ndim(self, name) -> int:
        return self.args[name].dim()


def bind(func, args, kwargs) -> dict:
    """The call's arguments by name, as the operation's schema names them (defaults filled)."""
    out = {}
    kwargs = kwargs or {}
    count = len(args)
    for k, (name, kwarg_only, has_default, default, _) in enumerate(_arguments(func)):
        if k < count and not kwarg_only:
            out[name] = args[k]
        elif name in kwargs:
            out[name] = kwargs[name]
        elif has_default:
            out[name] = list(default) if isinstance(default, list) else default  # a fresh list, as the schema gives
        else:
            out[name] = None
    return out


def writes(func, args=(), kwargs=None) -> list[str]:
    """The arguments the operation writes into (in-place and ``out=`` variants), by its schema,
    and the ones its schema does not say: ``native_batch_norm`` in training mode updates its
    running statistics."""
    out = [name for name, _, _, _, written in _arguments(func) if written]
    if func in _HIDDEN_WRITES and bind(func, args, kwargs).get("training"):
        out += list(_HIDDEN_WRITES[func])
    return out


def _arguments(func) -> tuple:
    """The operation's schema arguments as ``(name, kwarg_only, has_default, default, written)``,
    read once per operation (torch builds the schema's Python objects anew at each
    ``func._schema.arguments``: several times per operation of every traced call)."""
    try:
        return _ARGUMENTS[func]
    except KeyError:
        pass
    except TypeError:  # not hashable: read every time
        return _read_arguments(func)
    found = _ARGUMENTS[func] = _read_arguments(func)
    return found


def _read_arguments(func) -> tuple:
    return tuple(
        (
            a.name,
            a.kwarg_only,
            a.has_default_value(),
            a.default_value if a.has_default_value() else None,
            a.alias_info is not None and a.alias_info.is_write,
        )
        for a in func._schema.arguments
    )


_ARGUMENTS: dict = {}


def _hidden_writes() -> dict:
    import torch

    return {torch.ops.aten.native_batch_norm.default: ("running_mean", "running_var")}


_HIDDEN_WRITES = _hidden_writes()


def unit(*classes):
    def register(fn):
        for cls in classes:
            UNITS[cls] = fn
        return fn

    return register


def function(*fns):
    """Register the decorated function as the theorem of each torch function in ``fns``: called as
    ``theorem(args, kwargs, moves, x, out)`` with the function's arguments, how the generator moves
    its first argument ``x``, and ``x`` and ``out`` without values; it returns the output's moves, or
    None where the theorem does not speak (the operations inside then stand)."""

    def register(fn):
        for f in fns:
            FUNCTIONS[f] = fn
        return fn

    return register


def unit_of(module):
    """The unit rule of ``module``, or None (not a unit, or not called as its class defines it: an
    instance attribute that shadows a method of the class, or hooks of its own)."""
    found = UNITS.get(type(module))
    if found is None or module._forward_hooks or module._forward_pre_hooks:
        return None
    if getattr(module, "_forward_hooks_with_kwargs", None) or getattr(module, "_forward_pre_hooks_with_kwargs", None):
        return None
    cls = type(module)
    if any(callable(getattr(cls, name, None)) for name in vars(module)):
        return None  # forward, _conv_forward ... replaced on the instance
    from gdlcheck.code.prover.own import installed

    return found if installed(cls) else None  # forward, F.conv1d ... replaced on torch's class: other code


def unit_moves(found, module, m, inner, blind, where: str):
    """A unit's theorem for one generator: the output's moves from the input's ``m``; where the
    theorem does not apply, what the operations inside said (``inner``) stands, unless they
    stopped too: then the input's own stop, or the theorem's reason, is the note."""
    if isinstance(m, Halt):
        return m if isinstance(inner, Halt) else inner  # the first cause, carried through the unit
    if getattr(m, "order", None) is not None and not getattr(found, "turns", False):
        return inner  # a move that swaps axes, for a theorem about each axis on its own
    try:
        return found(module, m, *blind)
    except NotUnit:
        return inner
    except NoRule as why:
        name = type(module).__name__
        return Halt(where or name, f"{name} ({why})", "no_op_rule") if isinstance(inner, Halt) else inner
    except Exception:  # an axis in an order not known (moves.Unordered)
        return inner


class Halt:
    """Where and why a generator's proof stopped (the first cause, carried with the value);
    ``reason`` is a :class:`~gdlcheck.layers.proofs.Reason` or its word."""

    __slots__ = ("where", "what", "reason", "condition")

    def __init__(self, where: str, what: str, reason: Reason | str, condition=None):
        self.where, self.what, self.reason, self.condition = where, what, Reason(reason), condition


# Operations that select by a mask or read at indices (their shape, or whether they raise, may
# depend on values), and the ones that write at indices
def _selecting():
    import torch

    aten = torch.ops.aten
    return frozenset({aten.index.Tensor, aten.masked_select.default, aten.index_select.default})


_SELECTING = _selecting()


def _indexed():
    import torch

    aten = torch.ops.aten
    return frozenset(
        {
            aten.gather.default,
            aten.embedding.default,
            aten.scatter_add.default,
            aten.scatter_add_.default,
            aten.scatter_reduce.two,
            aten.scatter_reduce_.two,
            aten.index_add.default,
            aten.index_add_.default,
            aten.index_put.default,
            aten.index_put_.default,
            aten.take.default,
            aten.scatter.src,
            aten.scatter_.src,
            aten.scatter.value,
            aten.scatter_.value,
        }
    )


_INDEXED = _indexed()
