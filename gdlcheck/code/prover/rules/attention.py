"""Attention kernels as units of Theorem 4: ``S = Q K^T`` moves as ``P S P^T`` when the queries
and the keys move with the points, softmax by rows keeps it, and ``softmax(S) V`` moves as the
queries.  A mask beside the scores must move as they do: a constant one fixed by ``(p, p)``,
``P M P^T = M``; a causal mask is fixed only by the identity.  The feed-forward and the norms of
an encoder layer act on each token alone."""

from __future__ import annotations

import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules.common import axes_or_still
from gdlcheck.code.prover.table import Broken, Fixed, Halt, NoRule, Out, rule, step

aten = torch.ops.aten


def _tokens(m, nd, what):
    """``(batch permutations, token permutation)`` of a ``(..., L, E)`` tensor; E must not move."""
    axes = axes_or_still(m, nd)
    if m is not None and m.labels is not None:
        raise NoRule(f"{what} holding node labels")
    if mv.moving(axes[-1]):
        raise NoRule(f"{what} whose channels move")
    return list(axes[:-2]), axes[-2]


def _mask(mask, m_mask, axes: dict, conditions: list):
    """A mask laid on ``axes`` (its axis -> permutation) beside the scores."""
    if mask is None or mask.numel() == 0:
        return
    axes = {a % mask.dim(): p for a, p in axes.items() if -mask.dim() <= a < mask.dim()}
    if m_mask is None:
        need = {a: p for a, p in axes.items() if mv.moving(p)}
        if need:
            conditions.append(Fixed(mask, need, "mask"))
        return
    own = axes_or_still(m_mask, mask.dim())
    if any(not mv.same(own[a], p) for a, p in axes.items()) or m_mask.labels is not None:
        raise NoRule("a mask that moves otherwise than the scores")


def _batch(sides, conditions: list):
    """The batch axes' permutations of ``(tensor, moves, leading axes)`` sides: where one side's
    batch moves, every other side must move alike, or be a constant fixed there."""
    width = max(len(lead) for _, _, lead in sides)
    out = []
    for j in range(width):
        perms = [lead[j] for _, _, lead in sides if j < len(lead) and lead[j] is not None]
        p = perms[0] if perms else None
        if any(not mv.same(p, q) for q in perms[1:]):
            raise NoRule("queries and keys whose batches move differently")
        out.append(p)
        if not mv.moving(p):
            continue
        for t, m, lead in sides:
            if j < len(lead) and lead[j] is None and t.shape[j] != 1:
                if m is not None:
                    raise NoRule("a batch that moves on one side only")
                conditions.append(Fixed(t, {j: p}))
    return out


def _queries_keys_values(call, q, k, v):
    """The batch axes' permutations, the queries' and the keys' token permutations, and the
    conditions on constants beside them; keys and values must move alike."""
    qb, pl = _tokens(call.moves["query"], q.dim(), "queries")
    kb, ps = _tokens(call.moves["key"], k.dim(), "keys")
    vb, pv = _tokens(call.moves["value"], v.dim(), "values")
    if not mv.same(ps, pv) or any(not mv.same(a, b) for a, b in zip(kb, vb)):
        raise NoRule("keys and values that move differently")
    conditions: list = []
    batch = _batch([(q, call.moves["query"], qb), (k, call.moves["key"], kb), (v, call.moves["value"], vb)], conditions)
    return batch, pl, ps, conditions


@rule(aten._native_multi_head_attention.default)
@step("theorem4")
def multi_head_attention(call):
    """``nn.MultiheadAttention``'s kernel (batch first, ``(B, L, E)``): projections act per token."""
    q, k, v = call.args["query"], call.args["key"], call.args["value"]
    batch, pl, ps, conditions = _queries_keys_values(call, q, k, v)
    for name in ("qkv_weight", "qkv_bias", "proj_weight", "proj_bias"):
        if call.moves.get(name) is not None:
            raise NoRule("attention weights that depend on the inputs")
    mask_type = call.args.get("mask_type")
    mask = call.args.get("mask")
    b = batch[0] if batch else None
    if mask is not None:
        if mask_type == 1:
            _mask(mask, call.moves.get("mask"), {0: b, -1: ps}, conditions)
        elif mask_type == 2:
            _mask(mask, call.moves.get("mask"), {0: b, -2: pl, -1: ps}, conditions)
        else:
            _mask(mask, call.moves.get("mask"), {-2: pl, -1: ps}, conditions)
    out = mv.Moves(tuple(batch) + (pl, None))
    weights = call.out[1]
    if weights is None or weights.numel() == 0:
        w = mv.still(0 if weights is None else weights.dim())
    elif weights.dim() == len(batch) + 2:
        w = mv.Moves(tuple(batch) + (pl, ps))
    else:
        w = mv.Moves(tuple(batch) + (None,) * (weights.dim() - len(batch) - 2) + (pl, ps))
    return Out((out, w), conditions)


@rule(aten._transformer_encoder_layer_fwd.default)
@step("encoder")
def encoder_layer(call):
    """``nn.TransformerEncoderLayer``'s kernel: self-attention (Theorem 4) with per-token
    feed-forward and norms around it, residuals adding ``P X`` to ``P f(X)``."""
    src = call.args["src"]
    batch, pl = _tokens(call.moves["src"], src.dim(), "tokens")
    for name, value in call.args.items():
        if name not in ("src", "mask") and isinstance(value, torch.Tensor) and call.moves.get(name) is not None:
            raise NoRule("encoder weights that depend on the inputs")
    conditions: list = []
    mask = call.args.get("mask")
    if mask is not None:
        b = batch[0] if batch else None
        mask_type = call.args.get("mask_type")
        if mask_type == 1:
            axes = {0: b, -1: pl}
        elif mask_type == 2:  # merged (B, H, L, L): the batch too
            axes = {0: b, -2: pl, -1: pl}
        else:
            axes = {-2: pl, -1: pl}
        _mask(mask, call.moves.get("mask"), axes, conditions)
    return Out(mv.Moves(tuple(batch) + (pl, None)), conditions)


@rule(aten._scaled_dot_product_flash_attention_for_cpu.default)
@step("theorem4")
def sdpa_cpu(call):
    q, k, v = call.args["query"], call.args["key"], call.args["value"]
    mask, causal = call.args.get("attn_mask"), bool(call.args.get("is_causal"))
    return _sdpa(call, q, k, v, mask, call.moves.get("attn_mask"), causal)


def _sdpa(call, q, k, v, mask, m_mask, causal):
    if call.args.get("dropout_p"):
        raise NoRule("attention with dropout")
    batch, pl, ps, conditions = _queries_keys_values(call, q, k, v)
    if causal and (mv.moving(pl) or mv.moving(ps)):
        conditions.append(Broken("a causal mask: P M P^T = M holds only for the identity"))
    if mask is not None:
        axes = {-2: pl, -1: ps}
        lead = mask.dim() - 2
        for a in range(lead):
            j = len(batch) - lead + a
            if 0 <= j < len(batch) and mask.shape[a] != 1:
                axes[a] = batch[j]
        _mask(mask, m_mask, axes, conditions)
    outs = call.out if isinstance(call.out, (tuple, list)) else (call.out,)
    result = [mv.Moves(tuple(batch) + (pl, None))]
    for extra in outs[1:]:
        if extra.dim() == len(batch) + 1:
            result.append(mv.Moves(tuple(batch) + (pl,)))
        else:
            result.append(Halt("", "an attention statistic laid out otherwise", "no_op_rule"))
    return Out(tuple(result), conditions)
