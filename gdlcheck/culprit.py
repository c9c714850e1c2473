"""Where a ``torch.nn.Module`` breaks the symmetry: the first submodule, in execution order, whose
inputs are related by the generator but whose outputs are not (DESIGN.md section 9).

The module runs twice with forward hooks on every submodule: on the failing trial's input
``X`` and on ``g X`` (the other inputs moved as the check moved them).  Two tensors are
*related* by ``g`` when one permutation action maps one onto the other within the tolerance:
equal, moved along an axis of ``n`` points (or a grid's axes), moved on two such axes
(``P W P^T``), following the edges, or node labels relabelled
(:func:`gdlcheck.actions.relation`).  Calls finish children first, so the first call (in the
order they finish) whose inputs relate and whose outputs do not is the innermost submodule
that breaks it.  When that is a module with submodules of its own, the break is in its own
``forward`` code: the report names the child after which and the child before which it
happens (a learned positional embedding added between two blocks).
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck import torch_bridge
from gdlcheck.actions import relation
from gdlcheck.groups import PermGroup, act, cycle_string

# The copies of the submodules' inputs and outputs kept per run; a larger model's later calls
# are not compared (no culprit is named past them).
RECORD_BYTES = 1 << 30


def find_culprit(layer, group: PermGroup, checks, tol: float) -> dict | None:
    """The culprit of the first failing numeric check, ``{"path", "generator", "kind", "relative_error",
    "trial", "seed"}`` (and ``"after"``/``"before"``), or None when the code is not a module or no
    submodule can be named.

    ``layer`` is a :class:`gdlcheck.user_code.CallableLayer` of a torch module.
    """
    if not getattr(layer, "is_torch", False):
        return None
    check = next((c for c in checks if c.passed is False and c.method == "numeric" and c.witness is not None), None)
    if check is None:
        return None
    s = next((g for g in group.gen_arrays() if cycle_string(tuple(g.tolist())) == check.generator), None)
    if s is None:
        return None
    w = check.witness
    sig = layer.signature
    X = np.random.default_rng([w.seed, w.trial]).standard_normal((layer.points, layer.in_channels))
    A = layer.graph()
    gA = sig.move_inputs(s, A, sig.graph_law)
    order = sig.edge_order(s)
    try:
        args, kwargs = layer.call_arguments(X, A, tensors=True)
        calls = torch_bridge.record_calls(layer.f, args, kwargs, RECORD_BYTES)
        gargs, gkwargs = layer.call_arguments(act(s, X), gA, tensors=True)
        moved = torch_bridge.record_calls(layer.f, gargs, gkwargs, RECORD_BYTES)
    except Exception:  # the check ran it; a hook that cannot run leaves the culprit unknown
        return None
    grid = sig.grid
    n = group.n

    def related(xs, ys) -> tuple[bool, float]:
        if len(xs) != len(ys):
            return False, math.inf
        worst = 0.0
        for x, y in zip(xs, ys):
            action, err = relation(s, x, y, n, grid, tol, edge_order=order)
            if action is None:
                return False, err
            worst = max(worst, err)
        return True, worst

    start = {c["index"]: c for c in moved}
    for call in calls:
        other = start.get(call["index"])
        if other is None or other["path"] != call["path"]:
            return None  # the two runs took different paths through the module
        if call["outputs"] is None or other["outputs"] is None:
            return None  # past the memory budget of the copies: not compared
        if not related(call["inputs"], other["inputs"])[0]:
            continue
        ok, err = related(call["outputs"], other["outputs"])
        if ok:
            continue
        found = {"path": call["path"], "generator": check.generator, "kind": call["module"],
                 "relative_error": err, "trial": w.trial, "seed": w.seed}
        found.update(_between(call, calls, start, related))
        return found
    return None


def _between(call, calls, start, related) -> dict:
    """For a culprit with submodules: the child after which and the child before which its own
    code breaks the symmetry (``after``/``before``, either may be missing)."""
    children = sorted((c for c in calls if c["parent"] == call["index"]), key=lambda c: c["index"])
    if not children:
        return {}
    previous = None
    for child in children:
        if child["inputs"] is None or start[child["index"]]["inputs"] is None:
            return {}
        if not related(child["inputs"], start[child["index"]]["inputs"])[0]:
            out = {"before": child["path"]}
            if previous is not None:
                out["after"] = previous["path"]
            return out
        previous = child
    return {"after": previous["path"]}
