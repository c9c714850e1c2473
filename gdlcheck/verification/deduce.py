"""Deduce a spec's proof: the texts' theorems applied to the layer tree, for every n.

Each layer kind has a rule (``Layer.rule``) that reduces "f commutes with generator g" to
side conditions on its own parameters, checked exactly (numbers bit for bit, expressions
structurally); combinators put the rules together:

* a layer of its own commutes with g when its conditions for g hold;
* a sequence (``sequential``, ``transformer_encoder``) commutes with g when each part does,
  in order; once an output is invariant (after a pooling), everything after it is too;
* a residual ``X + f(X)`` commutes with g when f does, or when f is invariant;
* pooling over the points turns an equivariant input into an invariant output.

A failed condition does not prove that the layer breaks the symmetry (a later layer may
restore it), so the proof stops there for that generator: "not proven", and the other
methods decide.  The work is the conditions' own, at most O(n^2) per condition and
generator: no forward pass, whatever n.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.groups import PermGroup
from gdlcheck.layers import Layer
from gdlcheck.layers.proofs import EQUIVARIANT, INVARIANT, Condition, LayerStep, Reason, generator_text
from gdlcheck.verification.result import Proof, Step, Stop


def deduce(layer: Layer, group: PermGroup, expect: str = "equivariant", seed: int = 0) -> Proof:
    """Prove, for each generator of ``group``, that ``layer`` commutes with it as ``expect`` says
    (``f(gX) = g f(X)``, or ``f(gX) = f(X)`` for an invariant output).  ``seed`` draws what a layer
    that proves itself draws (a torch module's moved call: its input and its random element).

    Raises
    ------
    SpecError
        when the layer's output is proved invariant (it has no point axis) but ``expect`` is
        equivariant: the spec should say ``expect: invariant``.
    """
    own = layer.own_proof(group, expect, seed)
    if own is not None:
        return own
    gens = group.gen_arrays()
    names = [generator_text(s) for s in gens]
    steps: list[Step] = []
    stops: dict[str, Stop] = {}
    states = _act_through(layer, group, gens, names, dict.fromkeys(names, EQUIVARIANT), steps, stops, 0)
    wanted = INVARIANT if expect == "invariant" else EQUIVARIANT
    if expect != "invariant" and (any(state == INVARIANT for state in states.values()) or _pooled(layer, group)):
        raise SpecError(
            f"the layer's output has 1 row(s), not n = {group.n}: a pooled output is invariant; use expect: invariant",
            where="expect",
        )
    for g, state in states.items():
        if state == EQUIVARIANT and wanted == INVARIANT:
            stops.setdefault(g, Stop(steps[0], None, Reason.OUTPUT_EQUIVARIANT))
    return Proof(
        steps,
        {g: states[g] == wanted for g in names},
        {g: stops[g] for g in names if g in stops and states[g] != wanted},
    )


def _pooled(layer: Layer, group: PermGroup) -> bool:
    """Whether the output is pooled whatever the weights: the walk under the identity, which
    every condition holds for, ends invariant exactly when a pool takes the points away (so a
    spec that forgot ``expect: invariant`` is told so even where its proof stops)."""
    identity = np.arange(group.n)
    return _act_through(layer, group, [identity], ["()"], {"()": EQUIVARIANT}, [], {}, 0)["()"] == INVARIANT


def _act_through(layer, group, gens, names, states, steps, stops, depth) -> dict:
    """How the group acts on ``layer``'s output, generator by generator (None: not proven)."""
    rule = layer.rule(group, gens)
    step = LayerStep(
        layer.path,
        layer.kind,
        rule.name if rule else None,
        rule.theorem if rule else None,
        list(rule.conditions) if rule else [],
        depth,
    )
    steps.append(step)
    if rule is None:
        for g in names:
            if states[g] == EQUIVARIANT:
                stops.setdefault(g, Stop(step, None, Reason.NO_RULE))
        # identical inputs give identical outputs, whatever the layer does
        return {g: INVARIANT if states[g] == INVARIANT else None for g in names}
    if layer.combinator == "sequence":
        for child in layer.children():
            states = _act_through(child, group, gens, names, states, steps, stops, depth + 1)
        return states
    if layer.combinator == "residual":
        inner = _act_through(layer.children()[0], group, gens, names, states, steps, stops, depth + 1)
        # X + f(X): f equivariant keeps the rows together; f invariant adds one row to all
        return {g: states[g] if states[g] is not None and inner[g] is not None else None for g in names}
    failed: dict[str, Condition] = {}
    for c in step.conditions:
        if not c.holds:
            failed.setdefault(c.generator, c)
    out = {}
    for g in names:
        if states[g] is None or states[g] == INVARIANT:
            out[g] = states[g]
        elif g in failed:
            stops.setdefault(g, Stop(step, failed[g]))
            out[g] = None
        else:
            out[g] = layer.transfer(states[g])
    return out
