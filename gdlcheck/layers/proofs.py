"""The vocabulary of proofs: how the group acts on a layer's output, a rule and its side
conditions, and a proof of a layer tree step by step (typed steps: a layer, a traced operation, a
constant checked, where a traced proof stopped).

Layer kinds state their rules with these (``Layer.rule``); the deduction
(:mod:`gdlcheck.verification.deduce`) and the tracer of torch modules build :class:`Proof` s
from them; :mod:`gdlcheck.output.proof` words them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from gdlcheck.verdicts import Word

# How the group acts on a layer's output, given how it acts on the input (X moves by P):
EQUIVARIANT = "equivariant"  # the output's rows move by P
INVARIANT = "invariant"  # the output has no point axis and does not move


@dataclass(frozen=True)
class Condition:
    """A side condition of a layer's rule, checked exactly for one generator.

    ``what`` names it (a key of :data:`gdlcheck.output.words.CONDITIONS`: ``weights``
    ``W[g i, g j] = W[i, j]``, ``bias`` ``b[g i] = b[i]``, ``graph`` ``P A P^T = A``, ``mask``
    ``P M P^T = M``, ``table`` ``P E = E``, ``relative_bias`` ``P B P^T = B``); ``parameter`` is
    the spec key it is about (``bias``, ``positional``, ...); ``entry``, ``image`` and ``values``
    show the first place that breaks it (an entry, its image under g, and the values there).
    Numbers are compared bit for bit and expressions structurally: a condition that fails
    here may still hold mathematically, which the exact fallback checks decide.
    """

    what: str
    generator: str
    holds: bool
    parameter: str = ""
    entry: tuple = ()
    image: tuple = ()
    values: tuple = ()


@dataclass(frozen=True)
class Rule:
    """Why a layer commutes with the group: the rule (a key of the output's sentences), the
    theorem of the texts it is, and its side conditions for each generator."""

    name: str
    theorem: str | None = None
    conditions: tuple[Condition, ...] = ()


class Role(Word):
    """Whose a constant of a traced module is: the module's own ``parameter`` or ``buffer`` (by
    its name), or a ``constant`` made otherwise (a value computed from one, a held input)."""

    PARAMETER = "parameter"
    BUFFER = "buffer"
    CONSTANT = "constant"

    @property
    def is_own(self) -> bool:
        """The module's own tensor, named by its qualified name (the culprit names it)."""
        return self is not Role.CONSTANT


class Step:
    """One step of a proof, of one of four types: a :class:`LayerStep` (a layer of a spec), an
    :class:`OperationStep` (a traced operation, unit or module), a :class:`ConstantCheck` (a
    constant an operation meets on a moving axis) or a :class:`Halted` step (where a traced proof
    stopped with no condition).  Each has its place ``path``, the ``rule`` (and ``theorem``) that
    makes it commute with the group, that rule's side conditions for each generator, and its
    ``depth`` in the layer tree (0 for the whole layer); :attr:`label` is what the proof's JSON
    and report show as its ``kind``."""

    path: str
    rule: str | None
    theorem: str | None
    conditions: list[Condition]
    depth: int
    # the step's rule is said for a layer "kind", else for an "operation" (its text when it has none)
    unit = "operation"

    @property
    def label(self) -> str:
        """The JSON ``"kind"`` of the step (and its culprit's)."""
        raise NotImplementedError


@dataclass
class LayerStep(Step):
    """A layer of a spec: ``kind`` is its layer kind (``linear``, ``conv``, ...)."""

    path: str
    kind: str
    rule: str | None
    theorem: str | None
    conditions: list[Condition]
    depth: int = 0
    unit = "kind"

    @property
    def label(self) -> str:
        return self.kind


@dataclass
class OperationStep(Step):
    """What a traced call ran: an operation (``op`` its text, ``aten.mm.default``), a unit of
    ``torch.nn`` proved whole or the module itself (``op`` its class name)."""

    path: str
    op: str
    rule: str | None
    theorem: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    depth: int = 1

    @property
    def label(self) -> str:
        return self.op


@dataclass
class ConstantCheck(Step):
    """A constant that meets a moving axis, checked for each generator (the rule ``constant``):
    in the walk's steps ``op`` is the operation that met it; where a traced proof stopped there,
    ``op`` is None and ``role`` says whose constant it is."""

    path: str
    conditions: list[Condition]
    op: str | None = None
    role: Role = Role.CONSTANT
    depth: int = 1
    rule = "constant"
    theorem = None

    def __post_init__(self) -> None:
        self.role = Role(self.role)

    @property
    def label(self) -> str:
        return self.op if self.op is not None else self.role.value


@dataclass
class Halted(Step):
    """Where a traced proof stopped with no condition: ``what`` says it (the walk's own sentence,
    or the operation without a rule)."""

    path: str
    what: str
    depth: int = 1
    conditions: list[Condition] = field(default_factory=list)
    rule = None
    theorem = None

    @property
    def label(self) -> str:
        return self.what


@dataclass
class Untraced(Halted):
    """The tracer does not follow ``path`` (an input, a call or an output): it shows ``untraceable``."""

    what: str = "untraceable"


class Reason(Enum):
    """Why a generator's proof stopped: what the conclusion and the wording of a stop
    (:func:`gdlcheck.output.proof.stop_text`) dispatch on.  The prover and the tracer name a
    reason by its word; :class:`Stop` (and the tracer's ``Halt``) read it into a member, so a
    misspelt word fails where it is written."""

    CONDITION = "condition"  # a side condition fails for the generator
    NO_RULE = "no_rule"  # the layer kind has no rule
    OUTPUT_EQUIVARIANT = "output_equivariant"  # invariant was expected, the output moves
    NO_OP_RULE = "no_op_rule"  # a traced operation has no rule (or its rule refused it)
    NOT_TRACED = "not_traced"  # the tracer does not follow this input, call or output
    OUTPUT_MOVES_OTHERWISE = "output_moves_otherwise"  # a traced output moves unlike it should
    # the walk stopped, and its own sentence (the step's kind) says why in full
    ASKS_VALUE = "asks_value"  # the code reads the values of a moving tensor
    STATE = "state"  # the call changes state
    PATH = "path"  # a second call takes another path
    BUDGET = "budget"  # the call dispatches too many operations
    RANDOM = "random"  # a random draw
    CONDITION_GRAPH = "condition_graph"  # the generator is no automorphism of the fixed graph
    MOVED = "moved"  # the moved call's output is not the moved output
    FOREIGN_TYPE = "foreign_type"  # a tensor class with its own __torch_dispatch__/__torch_function__

    @property
    def is_worded_by_the_walk(self) -> bool:
        """The stop's step is :class:`Halted` and its ``what`` the walk's own sentence, said in full."""
        return self in (
            Reason.ASKS_VALUE,
            Reason.STATE,
            Reason.PATH,
            Reason.BUDGET,
            Reason.RANDOM,
            Reason.CONDITION_GRAPH,
            Reason.MOVED,
            Reason.FOREIGN_TYPE,
        )


@dataclass
class Stop:
    """Where the proof stopped for one generator: the step, the condition that failed there
    (None: the layer kind has no rule, or the output moves unlike what was expected), and why
    (a :class:`Reason`, or its word)."""

    step: Step
    condition: Condition | None = None
    reason: Reason = Reason.CONDITION

    def __post_init__(self):
        self.reason = Reason(self.reason)


@dataclass(frozen=True)
class Disagreement:
    """A traced proof's moved call against its first call: ``f(g X)`` is not ``g f(X)`` past the
    tolerance rule, for the group element ``element`` (array form), X drawn from
    ``numpy.random.default_rng([seed, trial])``.  ``entry`` is the first output entry that differs
    (``output`` names which of several outputs), ``got`` its value in ``f(g X)``, ``expected`` in
    ``g f(X)``; the errors are over the whole output, ``magnitude`` the largest value on the way."""

    element: tuple[int, ...]
    seed: int
    trial: int
    entry: tuple[int, ...]
    output: str | None
    expected: float | None
    got: float | None
    max_abs_error: float
    relative_error: float
    magnitude: float


class Source(Word):
    """What a proof read: the layers' rules, or a torch module's trace."""

    RULES = "rules"
    TRACE = "trace"


@dataclass
class Proof:
    """The layer tree, proved rule by rule: ``steps`` in the order the layers run (a
    combinator before its parts), and for each generator whether the whole layer commutes
    with it as expected, or where the proof stopped.  ``source`` says what was read: the
    layers' ``rules``, or a torch module's ``trace``.  ``disagreement``: a traced proof whose
    moved call contradicts it (the module is then shown not to commute with that element)."""

    steps: list[Step]
    proven: dict[str, bool]
    stops: dict[str, Stop] = field(default_factory=dict)
    source: Source | str = Source.RULES  # the word is read into a member
    disagreement: Disagreement | None = None

    def __post_init__(self) -> None:
        self.source = Source(self.source)  # a misspelt source fails where the proof is made

    @property
    def traced(self) -> bool:
        """Whether the proof followed a torch module's operations (its steps are not :class:`LayerStep` s)."""
        return self.source is Source.TRACE

    @property
    def holds(self) -> bool:
        return all(self.proven.values())


# --------------------------------------------------------------------------- side conditions


def generator_text(s: np.ndarray) -> str:
    from gdlcheck.groups import cycle_string

    return cycle_string(np.asarray(s).tolist())  # Python ints at numpy's speed (a generator: 0.8 s per 10^6)


def commutes_condition(W: np.ndarray, s: np.ndarray, parameter: str) -> Condition:
    """``W[g i, g j] = W[i, j]`` for all ``i, j`` (numbers bit for bit, expressions structurally).

    The identity commutes with every matrix (no gather); otherwise one gather and one compare,
    and the first differing pair is looked for only where one differs."""
    s = np.asarray(s)
    if np.array_equal(s, np.arange(len(s))):
        return Condition("weights", generator_text(s), True, parameter)
    image = W[np.ix_(s, s)]
    neq = image != W
    if not np.any(neq):
        return Condition("weights", generator_text(s), True, parameter)
    i, j = (int(v) for v in np.argwhere(neq)[0])
    return Condition(
        "weights", generator_text(s), False, parameter, (i, j), (int(s[i]), int(s[j])), (W[i, j], image[i, j])
    )


def vector_condition(b, s: np.ndarray, what: str, parameter: str) -> Condition:
    """``b[g i] = b[i]`` for all ``i`` (rows of a table alike: ``P E = E``)."""
    b = np.asarray(b)
    image = b[s]
    differ = np.nonzero((image != b).reshape(len(s), -1).any(axis=1))[0]
    if not differ.size:
        return Condition(what, generator_text(s), True, parameter)
    k = int(differ[0])
    values = (b[k], image[k]) if b.ndim == 1 else ()  # rows of a table are shown by their index
    return Condition(what, generator_text(s), False, parameter, (k,), (int(s[k]),), values)


def conjugation_condition(M, s: np.ndarray, what: str, parameter: str) -> Condition:
    """``P M P^T = M``, i.e. ``M[g i, g j] = M[i, j]`` (dense or scipy.sparse, never densified)."""
    from gdlcheck.groups import fixes

    if fixes(s, M):
        return Condition(what, generator_text(s), True, parameter)
    if hasattr(M, "tocoo"):
        return Condition(what, generator_text(s), False, parameter)
    image = M[np.ix_(s, s)]
    i, j = (int(v) for v in np.argwhere(image != M)[0])
    return Condition(what, generator_text(s), False, parameter, (i, j), (int(s[i]), int(s[j])), (M[i, j], image[i, j]))
