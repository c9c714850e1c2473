"""Rules for the ``torch.nn`` modules a traced module calls as units.

Modules of ``torch.nn`` are not traced into (fx keeps them as calls); the texts' theorems
say how each moves the points:

* maps of the last axis (``Linear``), elementwise modules (activations, ``Dropout`` in eval
  mode, ``Identity``) and ``LayerNorm`` over free axes: row-wise, they keep the action;
* ``MultiheadAttention``, ``TransformerEncoderLayer`` and ``TransformerEncoder``: Theorem 4
  on the sequence axis, with the masks they are given fixed by g (``P M P^T = M``; a causal
  mask is fixed only by the identity);
* ``Conv1d`` with circular padding, stride 1 and its length kept: Theorem 1 for the shifts of
  its length axis; other generators check its induced circulants entry by entry;
* anything else: no rule (not proven at that module).
"""

from __future__ import annotations

import numpy as np

from gdlcheck.groups import is_translation
from gdlcheck.layers.rules import Condition, commutes_condition
from gdlcheck.tracing.flow import UNKNOWN, Flow, merge_broken, normal

ELEMENTWISE = {"ReLU", "ReLU6", "GELU", "Tanh", "Sigmoid", "SiLU", "Softplus", "LeakyReLU", "ELU", "SELU", "CELU",
               "Mish", "Hardtanh", "Hardswish", "Hardsigmoid", "LogSigmoid", "Softsign", "Tanhshrink", "Dropout",
               "Dropout1d", "Dropout2d", "AlphaDropout", "Identity", "Threshold", "Softmax", "LogSoftmax",
               "Softmin"}
# the most entries of induced circulants a Conv1d's non-shift generators are checked on
MAX_CIRCULANT_ENTRIES = 1 << 24


def apply(ctx, node, module, args, kwargs):
    """The flow of a call of ``module`` (a ``torch.nn.Module``), or None: no rule for it.

    A rule applies to the ``torch.nn`` class itself only (``type(module) is torch.nn.X``): a
    subclass may do anything in its ``forward``.
    """
    import inspect

    import torch

    name = type(module).__name__
    if type(module) is not getattr(torch.nn, name, None):
        return None
    try:   # keywords named as forward's parameters become positions: mha(query=x, key=x, value=x)
        bound = inspect.signature(type(module).forward).bind(module, *args, **kwargs)
    except TypeError:
        return None
    args, kwargs = list(bound.args[1:]), dict(bound.kwargs)
    flows = [ctx.flow_of(a) for a in args] + [ctx.flow_of(v) for v in kwargs.values()]
    if not flows or any(isinstance(f, Flow) and not f.known for f in flows):
        return UNKNOWN
    x = flows[0]
    if _random(module):
        return None
    if all(isinstance(f, Flow) and not f.moves for f in flows):
        return Flow((), broken=merge_broken(f for f in flows if isinstance(f, Flow)))   # nothing moves
    if len(args) != 1 and name not in ("MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder"):
        return None
    ndim = len(ctx.shape(args[0]))
    if name in ELEMENTWISE or (name == "PReLU" and module.num_parameters == 1):
        ctx.unit(node, module, "rowwise")
        return x
    if name == "GLU" and normal(module.dim, ndim) not in x.axes:
        ctx.unit(node, module, "rowwise")
        return x
    if name == "Linear" or name == "PReLU":
        channel = ndim - 1 if name == "Linear" else min(1, ndim - 1)
        if channel in x.axes:
            return None   # the points are what the layer mixes: no rule
        ctx.unit(node, module, "rowwise")
        return x
    if name in ("LayerNorm", "RMSNorm"):
        normalized = set(range(ndim - len(module.normalized_shape), ndim))
        if normalized & set(x.axes):
            return None
        ctx.unit(node, module, "rowwise")
        return x
    if name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d") and not module.training and \
            module.track_running_stats and min(1, ndim - 1) not in x.axes:
        ctx.unit(node, module, "rowwise")   # eval mode: a fixed affine map of each channel
        return x
    if name == "MultiheadAttention":
        return _attention(ctx, node, module, args, kwargs)
    if name in ("TransformerEncoderLayer", "TransformerEncoder"):
        return _encoder(ctx, node, module, args, kwargs)
    if name == "Conv1d":
        return _conv1d(ctx, node, module, args, x)
    return None


# a module's own hooks (every kind that runs on a forward call)
HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
         "_forward_pre_hooks_with_kwargs")
# instance attributes that replace what a call of the module runs
CALLS = ("forward", "_call_impl", "_wrapped_call_impl", "__call__")


def hooked(module, inside: bool = False) -> str | None:
    """Why a call of ``module`` may not run its class's ``forward`` alone, or None: a forward hook
    or pre-hook on it, a ``forward`` set on the instance, or a compiled call.  fx keeps a leaf as a
    ``call_module`` node (and traces the root's ``type(root).forward``), so none of these is in the
    graph: a rule for the class would prove code the call does not run.  ``inside``: the module's
    submodules too (a leaf calls them itself: ``TransformerEncoderLayer`` calls ``linear1``)."""
    if inside:
        return next((why for m in module.modules() if (why := hooked(m))), None)
    for name in HOOKS:
        if getattr(module, name, None):
            return f"hooked {type(module).__name__} ({name.strip('_').replace('_', ' ')})"
    for name in CALLS:
        if name in vars(module):
            return f"hooked {type(module).__name__} ({name} set on the instance)"
    if getattr(module, "_compiled_call_impl", None) is not None:
        return f"hooked {type(module).__name__} (compiled)"
    return None


def global_hooks() -> str | None:
    """Forward hooks registered for every module (``register_module_forward_hook``), or None."""
    import torch.nn.modules.module as base

    for name in ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_forward_hooks_with_kwargs",
                 "_global_forward_hooks_always_called"):
        if getattr(base, name, None):
            return f"hooked modules ({name.strip('_').replace('_', ' ')})"
    return None


def _sequence_axis(module, ndim: int) -> int:
    """The tokens' axis: 1 for a batched ``batch_first`` module, else 0 (an encoder layer keeps
    the flag on its attention)."""
    attention = getattr(module, "self_attn", module)
    return 1 if ndim == 3 and getattr(attention, "batch_first", False) else 0


def _attention(ctx, node, module, args, kwargs):
    """Theorem 4 for ``MultiheadAttention(query, key, value)``: rows move with the query, columns
    with the key (which the value must follow); masks laid on them must be fixed by g."""
    names = ("query", "key", "value", "key_padding_mask", "need_weights", "attn_mask", "average_attn_weights",
             "is_causal")
    given = dict(zip(names, args)) | kwargs
    q, k, v = (ctx.flow_of(given[x]) for x in ("query", "key", "value"))
    ndim = len(ctx.shape(given["query"]))
    seq = _sequence_axis(module, ndim)
    for f in (q, k, v):
        if set(f.axes) - {seq}:
            return None   # the points on another axis than the sequence: no rule
    if set(k.axes) != set(v.axes):
        return None       # keys move and values do not (or back): G V mixes them
    rows, cols = bool(q.axes), bool(k.axes)
    broken = merge_broken([q, k, v])
    conditions = []
    masks = _masks(ctx, node, given.get("attn_mask"), given.get("key_padding_mask"), rows, cols)
    if masks is None:
        return None
    broken |= masks
    if given.get("is_causal") and (rows or cols):
        conditions += ctx.causal(node)
        broken |= {c.generator for c in conditions if not c.holds}
    ctx.unit(node, module, "theorem4", conditions)
    out = Flow((seq,) if rows else (), broken=broken)
    if module.bias_k is not None or module.add_zero_attn:
        weights = UNKNOWN   # an extra key that does not move: the weights' columns are not one axis
    else:
        # weights (N, L, S) or (L, S) averaged over the heads, (N, h, L, S) or (h, L, S) per head
        lead = (1 if ndim == 3 else 0) + (0 if given.get("average_attn_weights", True) else 1)
        weights = Flow(tuple(a for a, moves in ((lead, rows), (lead + 1, cols)) if moves), broken=broken)
    return (out, weights)


def _encoder(ctx, node, module, args, kwargs):
    """A transformer encoder (layer): Theorem 4 in each block's self-attention, row-wise maps
    (feed-forward, layer norms, dropout in eval mode) around it, composed."""
    import torch

    names = ("src", "src_mask", "src_key_padding_mask", "is_causal") if type(module).__name__ == \
        "TransformerEncoderLayer" else ("src", "mask", "src_key_padding_mask", "is_causal")
    given = dict(zip(names, args)) | kwargs
    x = ctx.flow_of(given["src"])
    ndim = len(ctx.shape(given["src"]))
    blocks = [module] if type(module).__name__ == "TransformerEncoderLayer" else list(module.layers)
    if not blocks or not all(_standard_block(b) for b in blocks):
        return None       # a block replaced or given an activation of the user's: no rule
    if type(module).__name__ == "TransformerEncoder" and module.norm is not None and \
            type(module.norm) is not torch.nn.LayerNorm:
        return None
    seq = _sequence_axis(blocks[0], ndim)
    if set(x.axes) - {seq} or len({_sequence_axis(b, ndim) for b in blocks}) != 1:
        return None
    broken = x.broken
    conditions = []
    masks = _masks(ctx, node, given.get("src_mask", given.get("mask")), given.get("src_key_padding_mask"),
                   bool(x.axes), bool(x.axes))
    if masks is None:
        return None
    broken |= masks
    if given.get("is_causal") and x.axes:
        conditions += ctx.causal(node)
        broken |= {c.generator for c in conditions if not c.holds}
    ctx.unit(node, module, "encoder", conditions)
    return Flow(x.axes, broken=broken)


def _conv1d(ctx, node, module, args, x):
    """Theorem 1 for a circular ``Conv1d`` along its length axis (the points)."""
    shape = ctx.shape(args[0])
    length_axis = len(shape) - 1
    if x.axes != (length_axis,):
        return None
    L = shape[-1]
    pad = module.padding[0] if isinstance(module.padding, tuple) else None
    k, dil = module.kernel_size[0], module.dilation[0]
    if (module.padding_mode != "circular" or module.stride[0] != 1 or pad is None
            or 2 * pad != dil * (k - 1) or L != ctx.group.n):
        return None       # zero padding (or a stride) tells the ends of the line apart: no rule
    conditions = []
    for g, s in zip(ctx.names, ctx.gens):
        if is_translation(s, (L,)):
            continue
        conditions.append(_circulant_condition(module, s, L, pad, dil, g, node.target))
    ctx.unit(node, module, "theorem1", conditions)
    return Flow(x.axes, broken=x.broken | {c.generator for c in conditions if not c.holds})


def _random(module) -> bool:
    """A module that draws on a call: dropout and RReLU in train mode (gdlcheck runs modules in eval
    mode), a fractional max pool in either mode (it draws its pooling regions on every call)."""
    import torch

    for m in module.modules():
        if isinstance(m, (torch.nn.FractionalMaxPool2d, torch.nn.FractionalMaxPool3d)) and m._random_samples is None:
            return True
        if not m.training:
            continue
        if isinstance(m, (torch.nn.modules.dropout._DropoutNd, torch.nn.RReLU)):
            return True
        if isinstance(m, torch.nn.MultiheadAttention) and m.dropout > 0:
            return True
    return False


def _masks(ctx, node, attn_mask, padding, rows: bool, cols: bool):
    """The generators that break an attention mask (``P M P^T = M`` on the axes that move) or a
    key padding mask (``P m = m`` when the keys move), or None when a mask has no rule."""
    broken = frozenset()
    if attn_mask is not None:
        ndim = len(ctx.shape(attn_mask))
        axes = tuple(a for a, moves in ((ndim - 2, rows), (ndim - 1, cols)) if moves and a >= 0)
        fixed = ctx.aligned(node, attn_mask, axes, "mask")
        if fixed is None:
            return None
        broken |= fixed
    if padding is not None:
        fixed = ctx.aligned(node, padding, (len(ctx.shape(padding)) - 1,) if cols else (), "constant_rows")
        if fixed is None:
            return None
        broken |= fixed
    return broken


def _standard_block(block) -> bool:
    """A ``torch.nn.TransformerEncoderLayer`` as torch builds it: its own attention, linear maps,
    norms and dropouts, and an elementwise activation."""
    import torch
    import torch.nn.functional as F

    parts = {"self_attn": torch.nn.MultiheadAttention, "linear1": torch.nn.Linear, "linear2": torch.nn.Linear,
             "norm1": torch.nn.LayerNorm, "norm2": torch.nn.LayerNorm, "dropout": torch.nn.Dropout,
             "dropout1": torch.nn.Dropout, "dropout2": torch.nn.Dropout}
    if type(block) is not torch.nn.TransformerEncoderLayer:
        return False
    if any(type(getattr(block, name, None)) is not cls for name, cls in parts.items()):
        return False
    attn = block.self_attn
    if attn.bias_k is not None or attn.add_zero_attn:
        return False
    act = block.activation
    if isinstance(act, torch.nn.Module):
        return type(act) is getattr(torch.nn, type(act).__name__, None) and type(act).__name__ in ELEMENTWISE
    return act in (F.relu, F.gelu, torch.relu, F.silu, torch.tanh, F.tanh)


def _circulant_condition(module, s, L: int, pad: int, dil: int, g: str, path: str) -> Condition:
    """``W[g i, g j] = W[i, j]`` for the L x L circulant of every (output, input) channel pair."""
    import torch

    w = module.weight.detach().to("cpu", torch.float64).numpy()
    c_out, c_in, k = w.shape
    if c_out * c_in * L * L > MAX_CIRCULANT_ENTRIES:
        return Condition("weights", g, False, "weight")
    i = np.arange(L)
    for o in range(c_out):
        for c in range(c_in):
            M = np.zeros((L, L))
            for t in range(k):
                np.add.at(M, (i, (i + t * dil - pad) % L), w[o, c, t])
            cond = commutes_condition(M, np.asarray(s), "weight")
            if not cond.holds:
                return cond
    return Condition("weights", g, True, "weight")


def causal_condition(names, gens) -> list[Condition]:
    """A causal mask ``M[i, j] = [j <= i]`` is fixed (``P M P^T = M``) only by the identity."""
    return [Condition("mask", g, bool(np.array_equal(np.asarray(s), np.arange(len(s)))), "is_causal")
            for g, s in zip(names, gens)]


__all__ = ["apply", "causal_condition", "global_hooks", "hooked", "normal"]
