"""The call's inputs for the tracer: how each generator moves each argument.

Random and given points move on their axis by the generator; an ``edge_index`` that moves with
the points is relabelled by it (``lam = g``) and its edges take the order the trials give them; a
fixed ``edge_index`` is its own relabelling with its edges permuted as the automorphism induces
(:func:`edge_perms`); edge attributes follow their edges; unchanged values and dense fixed graphs
are constants.
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.table import Halt
from gdlcheck.code.prover.walk import Walk
from gdlcheck.layers.proofs import generator_text


def unsupported(signature) -> str | None:
    for inp in signature.inputs:
        if inp.action.kind.takes_axes and not inp.action.axes:
            return f"points on no axis ({inp.label})"
    return None


def on_axes(s, axes: tuple, shape: tuple):
    """Per tensor axis the permutation of the points ``s`` on ``axes`` (one axis: ``s`` itself; a
    grid of several, flattened row-major: the factors of ``s`` along each axis); where ``s`` swaps
    the grid's axes (a rotation of a square grid), a :class:`~gdlcheck.code.prover.moves.Moves` with
    their order; a Halt when ``s`` is neither."""
    nd = len(shape)
    axes = tuple(a % nd for a in axes)
    sizes = [shape[a] for a in axes]
    parts = [s] if len(axes) == 1 else mv.factor(s, sizes)
    if parts is False:
        found = mv.turn(s, sizes)
        if found is None:
            return Halt(
                "call", f"{generator_text(s)} does not move the grid axis by axis, nor swap its axes", "not_traced"
            )
        order, perms = found
        where = dict(zip(axes, perms))
        tensor_order = list(range(nd))
        for k, o in enumerate(order):
            tensor_order[axes[k]] = axes[o]
        return mv.with_order(tuple(where.get(a) for a in range(nd)), tensor_order)
    where = dict(zip(axes, parts))
    return tuple(where.get(a) for a in range(nd))


def _arguments(signature, args, kwargs):
    """``(Input, value)`` of each argument, as :meth:`Signature.arguments` placed them."""
    positions = sorted(i.key for i in signature.inputs if isinstance(i.key, int))
    for inp in signature.inputs:
        if isinstance(inp.key, int):
            yield inp, args[positions.index(inp.key)]
        else:
            yield inp, kwargs[inp.key]


def input_moves(walk: Walk, signature, args, kwargs, gens) -> Halt | None:
    """Say how each generator moves each argument; a Halt for an input the tracer cannot follow."""
    import torch

    graph_q: list | None = None
    inputs = list(_arguments(signature, args, kwargs))
    kinds: dict = {}
    for inp, value in inputs:  # one tensor object passed as two arguments that move differently
        if isinstance(value, torch.Tensor) and kinds.setdefault(id(value), inp.action) != inp.action:
            return Halt("call", f"one tensor given as two arguments that move differently ({inp.label})", "not_traced")
    for inp, value in inputs:
        kind = inp.action.kind
        if kind.is_graph and isinstance(value, torch.Tensor) and _is_edge_index(value):
            graph_q = edge_perms(value, gens, moving=not kind.is_held, n=signature.n)
            break
    for inp, value in inputs:
        kind = inp.action.kind
        if kind.is_constant:
            continue
        if not isinstance(value, torch.Tensor):
            return Halt("call", f"a {kind} input that is not a tensor ({inp.label})", "not_traced")
        if value.layout != torch.strided:
            return Halt("call", f"a sparse {kind} input ({inp.label})", "not_traced")
        nd = value.dim()
        if kind.moves_each_axis:  # pairs: each of its axes by the generator (P X P^T)
            axes = {a % nd for a in inp.action.axes}
            walk.set(
                value, [mv.Moves(tuple(s if a in axes else None for a in range(nd))) for s in gens], free=not inp.given
            )
        elif kind.takes_axes:
            per = [on_axes(s, inp.action.axes, tuple(value.shape)) for s in gens]
            walk.set(value, [p if isinstance(p, (Halt, mv.Moves)) else mv.Moves(p) for p in per], free=not inp.given)
        elif kind.is_graph and _is_edge_index(value) and graph_q is not None:  # read by the loop above
            walk.set(
                value, [q if isinstance(q, Halt) else mv.Moves((None, q), s) for q, s in zip(graph_q, gens)], free=False
            )
        elif kind.is_graph and not kind.is_held and nd == 2 and value.shape[0] == value.shape[1] == signature.n:
            walk.set(value, [mv.Moves((s, s)) for s in gens], free=False)
        elif kind.is_held:
            continue  # a dense fixed graph is a constant: where it meets moving values it must be fixed
        elif kind.follows_edges:
            if graph_q is None:
                return Halt("call", f"edge attributes without an edge_index input ({inp.label})", "not_traced")
            walk.set(
                value, [q if isinstance(q, Halt) else mv.Moves((q,) + (None,) * (nd - 1)) for q in graph_q], free=False
            )
        else:
            return Halt("call", f"a {kind} input of shape {tuple(value.shape)} ({inp.label})", "not_traced")
    return None


def _is_edge_index(value) -> bool:
    return value.dim() == 2 and value.shape[0] == 2 and not value.is_floating_point() and value.dtype != _bool()


def _bool():
    import torch

    return torch.bool


def edge_perms(ei, gens, moving: bool, n: int) -> list:
    """Per generator, the permutation of the edges: for a graph that moves, the order the trials
    give the relabelled edges; for a fixed graph, the edge permutation an automorphism induces."""
    from gdlcheck.code import graphs

    e = ei.detach().cpu().numpy().astype(np.int64)
    out: list[np.ndarray | Halt | None] = []
    for s in gens:
        if moving:
            _, order = graphs.relabel(s, e, n)
            out.append(None if order is None else mv.inverse(np.asarray(order, dtype=np.int64)))
            continue
        # the trials' own match (edge order[m] lands on column m); the tracer's moves are
        # permutations the other way round (column k goes to q[k])
        order = graphs.automorphism_edge_order(s, e, n)
        if order is None:
            out.append(
                Halt(
                    "call",
                    f"{generator_text(s)} does not map the fixed graph's edges onto themselves",
                    "condition_graph",
                )
            )
            continue
        q = mv.inverse(order)
        out.append(None if mv.is_identity(q) else q)
    return out


def module_names(module) -> dict:
    return {id(m): (name or type(m).__name__) for name, m in module.named_modules()}


def constant_names(module) -> dict:
    out = {id(p): name for name, p in module.named_parameters()}
    out.update({id(b): name for name, b in module.named_buffers()})
    return out
