"""Gathers by index tensors and scatters into nodes: message passing.

``R = T.index_select(d, idx)`` reads ``R[k] = T[idx[k]]``.  When ``idx`` holds node labels that
the generator relabels as it moves ``T``'s axis ``d`` (an ``edge_index`` moving with the points,
``lam = p``), ``R'[q[k]] = T'[lam[idx[k]]] = T[idx[k]] = R[k]``: ``R`` moves as ``idx`` does along
its own axis (the edges).  A constant index must be mapped onto itself by ``p``
(:func:`~gdlcheck.code.prover.moves.restrict`).  A scatter ``out[idx[k]] += src[k]`` is the converse:
labels relabelled by ``lam`` put the sums where ``lam`` moves the nodes, so ``out`` moves by
``lam`` along ``d`` when ``src`` moves as ``idx`` does.  Degree counts, PyG's grouped softmax and
every aggregation (sum, mean, max, min, product) follow, since each sums or compares the same
entries in another order.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import axes_or_still
from gdlcheck.code.prover.table import Broken, Fixed, NoRule, Out, rule, step

aten = torch.ops.aten


def gathered(p, index, m_index, what="an index", table=None, d: int = 0):
    """How the gathered positions move, for an axis moved by ``p`` read at ``index`` (1-D); a
    constant ``table`` read at labels must be fixed by their relabelling along ``d`` (a vector of
    ones per hyperedge)."""
    if m_index is not None and m_index.labels is not None:
        if p is None and table is not None:
            return m_index.axes[0], [Fixed(table, {d: m_index.labels})]
        if not mv.same(m_index.labels, p):
            raise NoRule(f"{what} relabelled otherwise than the axis it reads")
        return m_index.axes[0], []
    if m_index is not None:
        if mv.moving(p):
            raise NoRule(f"{what} that depends on the inputs but holds no labels")
        return m_index.axes[0], []
    r = mv.restrict(p, index.detach().cpu().numpy())
    if r is False:
        return None, [Broken(f"{what} that the generator does not map onto itself")]
    return (None if r is None or mv.is_identity(r) else r), []


@rule(aten.index_select.default)
def index_select(call):
    t, m = call.args["self"], call.moves["self"]
    d = call.args["dim"] % max(t.dim(), 1)
    idx = call.args["index"]
    axes = axes_or_still(m, t.dim())
    if idx.dim() > 1:
        raise NoRule("an index of more than one axis")
    q, conditions = gathered(axes[d], idx, call.moves["index"], table=t if m is None else None, d=d)
    if any(isinstance(c, Broken) for c in conditions):
        return Out(None, conditions)
    out = list(axes)
    out[d] = q if q is not None else _kept_by_generator(idx, call.moves["index"], call.gen)
    return Out(mv.Moves(tuple(out), None if m is None else m.labels), conditions)


@rule(aten.index.Tensor)
def index(call):
    """``T[idx]`` with one index tensor on one axis (the others whole): a gather on that axis;
    a bool mask on it keeps the entries it selects, in their order."""
    t, m = call.args["self"], call.moves["self"]
    indices, ms = list(call.args["indices"]), list(call.moves["indices"] or [None] * len(call.args["indices"]))
    used = [k for k, i in enumerate(indices) if i is not None]
    if used == [0] and indices[0].dtype == torch.bool and indices[0].dim() > 1:
        return _mask_of_leading_axes(t, m, indices[0], ms[0])
    if len(used) != 1 or indices[used[0]].dim() != 1:
        raise NoRule("advanced indexing by more than one 1-D index")
    d = used[0]
    idx, mi = indices[d], ms[d]
    axes = axes_or_still(m, t.dim())
    if idx.dtype == torch.bool:
        axes = redescribed(t, axes, d, mi)
        q, conditions = _masked(axes[d], idx, mi)
    else:
        q, conditions = gathered(axes[d], idx, mi, table=t if m is None else None, d=d)
        q = q if q is not None else _kept_by_generator(idx, mi, call.gen)
    if any(isinstance(c, Broken) for c in conditions):
        return Out(None, conditions)
    out = list(axes)
    out[d] = q
    return Out(mv.Moves(tuple(out), None if m is None else m.labels), conditions)


def redescribed(t, axes: tuple, d: int, m_mask) -> tuple:
    """``t``'s axis permutations, with axis ``d`` described as the mask's where ``t``'s values may
    be read (a constant, or a value of given inputs only) and moving ``t`` by either gives the same
    tensor, bit for bit: PyG's self loops' weights are one value, so any permutation of their block
    moves them, and the loops' mask moves that block by the loops' own.  Else ``axes`` as given."""
    if m_mask is None or m_mask.labels is not None or not readable(t) or mv.same(axes[d], m_mask.axes[0]):
        return axes
    p, q = axes[d], m_mask.axes[0]
    if isinstance(p, mv.Unordered) or isinstance(q, mv.Unordered):
        return axes
    values = t.detach().cpu().numpy()
    n = values.shape[d]
    moved = [
        np.ascontiguousarray(np.take(values, np.arange(n) if r is None else mv.inverse(r), axis=d)) for r in (p, q)
    ]
    if moved[0].tobytes() != moved[1].tobytes():
        return axes
    out = list(axes)
    out[d] = q
    return tuple(out)


def _kept_by_generator(idx, m_idx, gen):
    """Rows read at a constant index that the generator maps onto itself (``idx[g[k]] = idx[k]``,
    one entry per point: a batch vector held, each node read its graph's maximum) are the same
    at ``k`` and ``g[k]``: they may be said to move by ``g``, as the points they sit beside do
    (PyG's grouped softmax at a held index).  None where that is not so, or not known."""
    if m_idx is not None or gen is None or idx.dim() != 1 or len(idx) != len(gen) or not readable(idx):
        return None
    values = idx.detach().cpu().numpy()
    if mv.is_identity(gen) or not np.array_equal(values[gen], values):
        return None
    return gen


def _mask_of_leading_axes(t, m, mask, m_mask):
    """``T[mask]`` with a bool mask of ``T``'s first axes: the selection of one 1-D mask on those
    axes flattened (row-major), each moved by its own permutation."""
    k = mask.dim()
    sizes = list(t.shape[:k])
    axes = axes_or_still(m, t.dim())
    if m_mask is not None and m_mask.labels is not None:
        raise NoRule("a mask of node labels")
    flat = None if m_mask is None else mv.Moves((mv.product(list(m_mask.axes), sizes),))
    q, conditions = _masked(mv.product(list(axes[:k]), sizes), mask.reshape(-1), flat)
    if conditions:
        return Out(None, conditions)
    return mv.Moves((q,) + tuple(axes[k:]), None if m is None else m.labels)


def _masked(p, mask, m_mask):
    """Positions kept by a bool mask: ``nonzero(mask)`` in order.  A mask whose values the rule may
    read (a constant, or one computed from given values only: the same in every call) is read: a
    constant one must be mapped onto itself by ``p``; one moving by ``p`` keeps the images of the
    kept positions, sorted, so the result moves by the rank of each image.  A mask of values that
    depend on the random points reaches the rule without values: it keeps the images of the kept
    rows in an order only those values decide, :class:`~gdlcheck.code.prover.moves.Unordered`."""
    if m_mask is not None and (m_mask.labels is not None or not mv.same(m_mask.axes[0], p)):
        raise NoRule("a mask moved otherwise than the axis it selects")
    if m_mask is not None and not mv.moving(p):
        return None, []
    if not readable(mask):
        return mv.Unordered("the rows a mask of moving values keeps"), []
    keep = np.nonzero(mask.detach().cpu().numpy())[0]
    if m_mask is None:
        r = mv.restrict(p, keep)
        if r is False:
            return None, [Broken("a mask that the generator does not map onto itself")]
        return (None if r is None or mv.is_identity(r) else r), []
    return _ranks(mv.known(p), keep), []


def _ranks(p, keep):
    images = p[keep]
    return np.searchsorted(np.sort(images), images).astype(np.int64)


def readable(t) -> bool:
    """Whether the rule was given ``t``'s values (the walk gives a tensor of the random points'
    values as a meta tensor, without them)."""
    return t.device.type != "meta"


@rule(aten.nonzero.default)
def nonzero(call):
    """``nonzero`` of a 1-D mask: the positions (labels of its axis, relabelled as the axis
    moves), in order: by the ranks of their images for a mask whose values the rule may read, in
    an order only the values decide for one of the random points."""
    t, m = call.args["self"], call.moves["self"]
    if t.dim() != 1 or m.labels is not None:
        raise NoRule("nonzero of more than one axis")
    p = m.axes[0]
    if not mv.moving(p):
        return mv.Moves((None, None))
    if not readable(t):
        return mv.Moves((mv.Unordered("the positions nonzero finds among moving values"), None), mv.known(p))
    return mv.Moves((_ranks(mv.known(p), np.nonzero(t.detach().cpu().numpy())[0]), None), p)


@rule(aten.embedding.default)
def embedding(call):
    """``W[ids]``: rows of a table read at ids.  Ids that move as points give rows that move with
    them; ids that are labels need the table fixed by the relabelling."""
    w, ids = call.args["weight"], call.args["indices"]
    mw, mi = call.moves["weight"], call.moves["indices"]
    if mw is not None:
        raise NoRule("an embedding table that depends on the inputs")
    conditions = []
    if mi is not None and mi.labels is not None:
        conditions.append(Fixed(w, {0: mi.labels}, "constant_rows"))
    return Out(mv.Moves(tuple(axes_or_still(mi, ids.dim())) + (None,)), conditions)


def _scatter(call, base, index, src, dim, one_dimensional):
    t, mt = call.args[base], call.moves[base]
    idx, mi = call.args[index], call.moves[index]
    s, ms = call.args[src], call.moves[src]
    nd = t.dim()
    d = dim % max(nd, 1)
    # labels relabelled by lam put the sums at lam's images; an index whose values stay (a batch
    # vector moving with its points, a constant) keeps them where they are
    lam = None if mi is None else mi.labels
    if any(m is not None and m.labels is not None for m in (ms, mt)):
        raise NoRule("node labels scattered as values")
    idx_axes = axes_or_still(mi, idx.dim())
    src_axes = axes_or_still(ms, s.dim())
    along = idx_axes[0] if one_dimensional else idx_axes[d]
    if not mv.same(src_axes[d], along):
        if ms is None and along is not None:
            return _with(Fixed(s, {d: along}), t, mt, nd, d, lam, src_axes)
        if mi is None:  # a constant index (a batch vector held) the generator maps onto itself
            return _with(_index_kept(idx, s, src_axes, d, one_dimensional), t, mt, nd, d, None, src_axes)
        raise NoRule("values scattered that do not move as their index does")
    if not one_dimensional and any(not mv.same(a, b) for k, (a, b) in enumerate(zip(idx_axes, src_axes)) if k != d):
        raise NoRule("an index moved otherwise than the values it scatters")
    return _with(None, t, mt, nd, d, lam, src_axes)


def _index_kept(idx, s, src_axes, d: int, one_dimensional: bool) -> Fixed:
    """A constant index with values that move under it: ``out[j]`` sums ``src[k]`` over the ``k``
    with ``idx[k] = j``; moved, ``src'[p[k]] = src[k]``, and where ``idx[p[k]] = idx[k]`` (the
    generator maps the index onto itself, checked bit for bit) each sum has the same terms: the
    output stays where it is."""
    if one_dimensional:
        return Fixed(idx, {0: src_axes[d]}, "index")
    if tuple(idx.shape) != tuple(s.shape):
        raise NoRule("a constant index of another shape than the values it scatters")
    return Fixed(idx, {k: p for k, p in enumerate(src_axes) if p is not None}, "index")


def _with(condition, t, mt, nd, d, lam, src_axes):
    base_axes = axes_or_still(mt, nd)
    conditions = [] if condition is None else [condition]
    out = list(src_axes) if len(src_axes) == nd else [None] * nd
    for a in range(nd):
        if a == d:
            continue
        if base_axes[a] is not None and not mv.same(base_axes[a], out[a]):
            raise NoRule("a scatter into values moved otherwise")
    if mt is None:
        need = {a: p for a, p in enumerate(out) if a != d and mv.moving(p)}
        if mv.moving(lam):
            need[d] = lam
        if need:
            conditions.append(Fixed(t, need))
    elif not mv.same(base_axes[d], lam):
        raise NoRule("a scatter into values that do not move with the nodes")
    out[d] = lam
    return Out(mv.Moves(tuple(out)), conditions)


@rule(aten.scatter_add.default, aten.scatter_add_.default, aten.scatter_reduce.two, aten.scatter_reduce_.two)
@step("scatter")
def scatter(call):
    return _scatter(call, "self", "index", "src", call.args["dim"], one_dimensional=False)


@rule(aten.index_add.default, aten.index_add_.default, aten.index_reduce.default, aten.index_reduce_.default)
@step("scatter")
def index_add(call):
    return _scatter(call, "self", "index", "source", call.args["dim"], one_dimensional=True)
