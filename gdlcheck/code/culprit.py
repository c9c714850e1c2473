"""Where a ``torch.nn.Module`` breaks the symmetry: the first submodule, in execution order, whose
inputs are related by the generator but whose outputs are not (docs/design.md section 9).

The module runs twice with forward hooks on every submodule: on the failing trial's input
``X`` and on ``g X`` (the other inputs moved as the check moved them).  Two tensors are
*related* by ``g`` when one permutation action maps one onto the other within the tolerance:
equal, moved along an axis of ``n`` points (or a grid's axes), moved on two such axes
(``P W P^T``), following the edges, or node labels relabelled
(:func:`gdlcheck.code.relation.relation`).  Calls finish children first, so the first call (in the
order they finish) whose inputs relate and whose outputs do not is the innermost submodule
that breaks it.  When that is a module with submodules of its own, the break is in its own
``forward`` code: the report names the child after which and the child before which it
happens (a learned positional embedding added between two blocks), and a child whose output
is a per-point constant there (``made_by``: ``self.pos(torch.arange(n))``).

A given input that is held (unchanged) while the generator would move it -- a mask over the
points -- is named by its argument (``held``: ``attn_mask``, ``src_key_padding_mask``) when it
reaches the culprit.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from gdlcheck.code import torch_bridge
from gdlcheck.code.actions import act_along
from gdlcheck.code.relation import largest_difference, relation
from gdlcheck.groups import PermGroup, act, parse_perm
from gdlcheck.verdicts import Method

# The copies of the submodules' inputs and outputs kept per run; a larger model's later calls
# are not compared (no culprit is named past them).
RECORD_BYTES = 1 << 30


def find_culprit(layer, group: PermGroup, checks, tol: float) -> dict | None:
    """The culprit of the worst failing numeric check, ``{"path", "generator", "kind", "relative_error",
    "trial", "seed"}`` (and ``"after"``/``"before"``), or None when the code is not a module or no
    submodule can be named.

    ``layer`` is a :class:`gdlcheck.code.user_code.CallableLayer` of a torch module.
    """
    if not getattr(layer, "is_torch", False):
        return None
    failing = [c for c in checks if c.passed is False and c.method is Method.NUMERIC and c.witness is not None]
    if not failing:
        return None
    check = max(failing, key=lambda c: c.relative_error or 0.0)  # the worst failing generator, first among equals
    s = np.asarray(parse_perm(check.generator, group.n), dtype=np.int64)  # a generator or a random element
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
        found = {
            "path": call["path"],
            "generator": check.generator,
            "kind": call["module"],
            "relative_error": err,
            "trial": w.trial,
            "seed": w.seed,
        }
        found.update(_between(call, calls, start, related, lambda y: _moved_by(s, y, n)))
        held = [
            name for name, value in _held_arguments(layer, s, n) if any(_same_values(value, x) for x in call["inputs"])
        ]
        if held:
            found["held"] = held
        suspects = _suspects(layer.f, call["path"], s, n)
        if suspects:
            found["suspects"] = suspects
        return found
    return None


def _suspects(module, path: str, s, n: int) -> list[str]:
    """The culprit's buffers and parameters laid along the points that ``s`` does not keep: an
    ``n x n`` one by ``P M P^T = M`` (an ALiBi bias, an attention mask), any other by ``P E = E``
    along each axis of ``n`` entries (a position table, a RoPE angle table).  They are named even
    where the proof stopped before reaching them."""
    try:
        inside = module.get_submodule(path) if path else module
    except AttributeError:
        return []
    out = []
    for name, t in list(inside.named_buffers()) + list(inside.named_parameters()):
        if torch_bridge.is_sparse_tensor(t) or t.device.type == "meta" or t.dim() == 0 or n not in t.shape:
            continue
        try:
            value = torch_bridge.as_numpy(t.detach())
        except Exception:  # a dtype numpy does not hold (complex, bfloat16 on some builds): not named
            continue
        if value.ndim == 2 and value.shape == (n, n):
            broken = not np.array_equal(value[np.ix_(s, s)], value, equal_nan=value.dtype.kind == "f")
        else:
            broken = any(
                not np.array_equal(np.take(value, s, axis=k), value, equal_nan=value.dtype.kind == "f")
                for k, d in enumerate(value.shape)
                if d == n
            )
        if broken:
            out.append(f"{path}.{name}" if path else name)
    return out


def _moved_by(s, y, n: int) -> bool:
    """Whether ``s`` moves ``y`` along one of its axes of ``n`` points (a per-point value)."""
    y = np.asarray(y)
    return any(largest_difference(act_along(s, y, (k,)), y) > 0 for k, d in enumerate(y.shape) if d == n)


def _held_arguments(layer, s, n: int) -> list[tuple[str, np.ndarray]]:
    """The code's given inputs passed unchanged although ``s`` would move them, by argument name."""
    names = _parameter_names(layer.f)
    out = []
    for inp in layer.signature.inputs:
        if not inp.action.kind.is_constant:
            continue
        value = torch_bridge.as_numpy(inp.value) if torch_bridge.is_tensor(inp.value) else inp.value
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf" or not _moved_by(s, value, n):
            continue
        if isinstance(inp.key, str):
            out.append((inp.key, value))
        else:
            out.append((names[inp.key] if inp.key < len(names) else f"argument {inp.key}", value))
    return out


def _parameter_names(f) -> list[str]:
    """The positional parameter names of ``f.forward`` (or ``f``), for naming given inputs."""
    try:
        params = inspect.signature(getattr(f, "forward", f)).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _same_values(value: np.ndarray, x: np.ndarray) -> bool:
    """``x`` is ``value`` as the code saw it: equal, or a boolean mask turned into a float one (torch
    makes ``True`` (masked) ``-inf`` and ``False`` 0)."""
    x = np.asarray(x)
    if x.shape != value.shape:
        return False
    if largest_difference(value, x) == 0:
        return True
    if value.dtype.kind == "b" and x.dtype.kind == "f" and np.all(np.isneginf(x) | (x == 0)):
        return bool(np.array_equal(value, np.isneginf(x)))
    return False


def _between(call, calls, start, related, per_point) -> dict:
    """For a culprit with submodules: the child after which and the child before which its own
    code breaks the symmetry (``after``/``before``, either may be missing), and the child before
    it whose output is a per-point constant (``made_by``: its inputs do not move, yet its output
    is one that ``per_point`` says the generator moves)."""
    children = sorted((c for c in calls if c["parent"] == call["index"]), key=lambda c: c["index"])
    if not children:
        return {}
    previous, made_by = None, None
    for child in children:
        other = start[child["index"]]
        if child["inputs"] is None or other["inputs"] is None:
            return {}
        if not related(child["inputs"], other["inputs"])[0]:
            out = {"before": child["path"]}
            if previous is not None:
                out["after"] = previous["path"]
            return out | ({"made_by": made_by} if made_by else {})
        if made_by is None and _constant(child, other, per_point):
            made_by = child["path"]
        previous = child
    # every child's inputs are related: the culprit's own code after its last child breaks it
    return {"after": children[-1]["path"]} | ({"made_by": made_by} if made_by else {})


def _constant(call, other, per_point) -> bool:
    """A call whose inputs are the same in both runs but whose output is per-point (``self.pos(arange(n))``)."""
    if other["outputs"] is None or len(call["inputs"]) != len(other["inputs"]):
        return False
    if any(
        np.shape(x) != np.shape(y) or largest_difference(np.asarray(x), np.asarray(y)) > 0
        for x, y in zip(call["inputs"], other["inputs"])
    ):
        return False
    return any(per_point(y) for y in call["outputs"] or [])
