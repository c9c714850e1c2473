"""Kernels of everyday torch.nn modules that torch does not tag ``pointwise``, and two that reduce.

* ``hardswish`` and ``log_sigmoid_forward`` (``nn.Hardswish``, ``nn.LogSigmoid``) map entries one
  by one: every axis keeps its permutation;
* ``native_group_norm`` (``nn.GroupNorm``) normalises each sample's group of channels over the
  channels and every spatial position: the positions may move by any permutation (the same
  entries in another order), the channels may not; its mean and deviation move with the batch;
* ``_trilinear`` (``nn.Bilinear``) unsqueezes each operand at its ``expand`` axes, multiplies them
  broadcast, and sums the ``sumdim`` axes: the broadcast rule, then a sum over whole axes;
* ``transpose_``, ``squeeze_``, ``unsqueeze_`` are their functional forms in place (a recurrent
  network's layout, ``vmap``);
* ``linear`` and ``layer_norm`` (inference mode keeps them whole) are the product's and
  ``native_layer_norm``'s rules;
* ``_embedding_bag`` (``nn.EmbeddingBag``) sums or averages rows over bags;
* what inference mode keeps whole (``reshape``, ``dropout`` outside training,
  ``scaled_dot_product_attention``) has its decomposition's rule.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.attention import _sdpa
from gdlcheck.code.prover.rules.common import axes_or_still, broadcast
from gdlcheck.code.prover.rules.layout import transpose, view
from gdlcheck.code.prover.rules.linalg import contract, layer_norm
from gdlcheck.code.prover.table import Fixed, Halt, NoRule, Out, rule, step

aten = torch.ops.aten


def _plain(m):
    if m.labels is not None:
        raise NoRule("arithmetic on node labels")
    return mv.Moves(m.axes)


@rule(aten.hardswish.default)
def hardswish(call):
    return _plain(call.moves["self"])


@rule(aten.log_sigmoid_forward.default)
def log_sigmoid(call):
    m = _plain(call.moves["self"])
    buffer = call.out[1]
    return (m, m if tuple(buffer.shape) == call.shape("self") else mv.still(buffer.dim()))


@rule(aten.native_group_norm.default)
def group_norm(call):
    x, m = call.args["input"], call.moves["input"]
    _plain(m)
    if x.dim() < 2 or mv.moving(m.axes[1]):
        raise NoRule("a group norm over channels that move")
    if any(call.moves.get(name) is not None for name in ("weight", "bias")):
        raise NoRule("a group norm whose weight depends on the inputs")
    stats = mv.Moves((m.axes[0], None))
    return (mv.Moves(m.axes), stats, stats)


@rule(aten._trilinear.default)
def trilinear(call):
    names = ("i1", "i2", "i3")
    expands = [sorted(int(d) for d in call.args[f"expand{k}"]) for k in (1, 2, 3)]
    operands, views = [], {}
    for name, expand in zip(names, expands):
        t, m = call.args[name], call.moves[name]
        axes = list(axes_or_still(m, t.dim()))
        shape = list(t.shape)
        for d in expand:
            axes.insert(d, None)
            shape.insert(d, 1)
        wide = torch.empty(shape, dtype=t.dtype, device="meta")
        views[id(wide)] = (t, expand)
        operands.append((wide, None if m is None else mv.Moves(tuple(axes), m.labels)))
    nd = operands[0][0].dim()
    perms, conditions = broadcast(operands, nd)
    back = []
    for c in conditions:  # on the operand itself: its expand axes have size 1 and never appear
        t, expand = views[id(c.tensor)]
        back.append(Fixed(t, {a - sum(d < a for d in expand): p for a, p in c.axes.items()}, c.what))
    summed = {int(d) % nd for d in call.args["sumdim"]}
    return Out(mv.Moves(tuple(p for a, p in enumerate(perms) if a not in summed)), back)


@rule(aten.transpose_.default)
def transpose_in_place(call):
    return transpose(call)


@rule(aten.squeeze_.dims, aten.squeeze_.dim, aten.squeeze_.default)
def squeeze_in_place(call):
    """The rule sees ``self`` after the operation changed its shape: the axes before are the moves'
    axes, and the axes dropped are the named ones when every one of them was dropped."""
    m = call.moves["self"]
    before, after = len(m.axes), call.out.dim()
    dims = call.args.get("dim", call.args.get("dims"))
    if dims is None:
        if before != after:
            raise NoRule("squeeze_ of axes not named")
        return mv.Moves(m.axes, m.labels)
    dims = {d % max(before, 1) for d in ([dims] if isinstance(dims, int) else dims)}
    if len(dims) != before - after:
        raise NoRule("squeeze_ of some of the named axes")
    return mv.Moves(tuple(p for a, p in enumerate(m.axes) if a not in dims), m.labels)


@rule(aten.unsqueeze_.default)
def unsqueeze_in_place(call):
    m = call.moves["self"]
    axes = list(m.axes)
    axes.insert(call.args["dim"] % (len(axes) + 1), None)
    return mv.Moves(tuple(axes), m.labels)


@rule(aten.layer_norm.default)
def layer_norm_whole(call):
    """``layer_norm`` where torch keeps it whole (inference mode): ``native_layer_norm``'s output."""
    out = layer_norm(call)
    return Out(out.moves[0], out.conditions)


@rule(aten.linear.default)
def linear(call):
    """``input @ weight.T + bias`` (``F.linear`` where torch does not decompose it: inference mode):
    the product's rule with the weight's axes swapped back for its conditions."""
    x, w, mx = call.args["input"], call.args["weight"], call.moves["input"]
    if call.moves.get("weight") is not None or call.moves.get("bias") is not None:
        raise NoRule("a linear map whose weight depends on the inputs")
    if mx.labels is not None:
        raise NoRule("a product of node labels")
    conditions: list = []
    _, q = contract(x, mx, w.t(), None, conditions)
    back = [Fixed(w, {1 - a: p for a, p in c.axes.items()}, c.what) for c in conditions]
    axes = tuple(mx.axes[:-1]) + (q,)
    bias = call.args.get("bias")
    if bias is not None and mv.moving(q):
        back.append(Fixed(bias, {0: q}))
    return Out(mv.Moves(axes), back)


@rule(aten._embedding_bag.default, aten._embedding_bag_forward_only.default)
def embedding_bag(call):
    """Rows of a table summed or averaged over each bag (``offsets``, a constant): ids that move
    within their bags give the same bags (a sum is blind to order).  ``max`` bags (mode 2), weights
    per id and ids that cross bags have no rule."""
    ids, mi = call.args["indices"], call.moves["indices"]
    if call.moves.get("weight") is not None or call.moves.get("offsets") is not None:
        raise NoRule("an embedding bag whose table or offsets depend on the inputs")
    if call.args["mode"] not in (0, 1) or call.args.get("per_sample_weights") is not None:
        raise NoRule("an embedding bag by maximum or with weights per id")
    p = None if mi is None else mv.known(mi.axes[0])
    if mi is not None and mi.labels is not None:
        raise NoRule("an embedding bag of ids relabelled")
    if p is not None:
        offsets = [int(o) for o in call.args["offsets"].tolist()] + [ids.shape[0]]
        for start, stop in zip(offsets, offsets[1:]):
            inside = np.arange(start, stop)
            if not np.array_equal(np.sort(p[inside]), inside):
                raise NoRule("ids moved across bags")
    # the bags' sums and sizes, and which bag each id is in, do not move; the positions of the
    # maxima (the fourth output) are not followed
    outs = [mv.still(t.dim()) for t in call.out[:3]]
    return tuple(outs) + (Halt("", "an embedding bag's positions of maxima", "no_op_rule"),)


@rule(
    aten.dropout.default, aten.feature_dropout.default, aten.alpha_dropout.default, aten.feature_alpha_dropout.default
)
def dropout_off(call):
    """A dropout outside training (kept whole in inference mode) returns its input."""
    if call.args.get("train") is not False:
        raise NoRule("a dropout in training")
    m = call.moves["input"]
    return mv.Moves(m.axes, m.labels)


@rule(aten.reshape.default)
def reshape_whole(call):
    """``reshape`` where torch keeps it whole (inference mode): a view's rule."""
    return view(call)


@rule(aten.scaled_dot_product_attention.default)
@step("theorem4")
def sdpa_whole(call):
    """Attention where torch keeps it whole (inference mode): the CPU kernel's rule (Theorem 4)."""
    if call.args.get("enable_gqa"):
        raise NoRule("attention with grouped query heads")
    q, k, v = call.args["query"], call.args["key"], call.args["value"]
    causal = bool(call.args.get("is_causal"))
    return _sdpa(call, q, k, v, call.args.get("attn_mask"), call.moves.get("attn_mask"), causal)
