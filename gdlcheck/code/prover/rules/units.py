"""Units: ``torch.nn`` modules proved by a theorem as a whole, keyed by their classes.

A unit's own code may do what the walk does not follow (circular padding writes a new tensor
slice by slice), yet its class is a theorem: a convolution with circular padding commutes with
every cyclic shift of its positions (Theorem 1).  The walk meets a unit at its forward hook: the
unit's rule reads how the generator moves the unit's input and says how it moves its output,
which replaces whatever the operations inside said.  Only the class itself counts, called as
torch defines it: a subclass, an instance ``forward``, or hooks of its own are not the theorem.
"""

from __future__ import annotations

import numpy as np
import torch

from gdlcheck.code.prover import moves as mv
from gdlcheck.code.prover.rules import grid_conv
from gdlcheck.code.prover.table import NoRule, NotUnit, unit


def rotation(p) -> bool:
    """``p`` is a cyclic shift ``i -> i + t mod L`` (the identity included)."""
    if p is None:
        return True
    return bool((p == (np.arange(len(p)) + int(p[0])) % len(p)).all())


@unit(torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)
def circular_convolution(module, moves, x, out):
    """Theorem 1: with circular padding that keeps every axis's length and stride 1, output
    position ``i`` reads the input at ``i + offsets`` mod the length, so a shift of the input
    shifts the output alike; the batch axis may move.  A turn or mirror of the grid, and channels
    that move (a group convolution's rotation axis), are followed where the kernel keeps them
    (:func:`grid_conv.turned_convolution`)."""
    spatial = grid_conv.spatial_axes(module)  # by the class: the kernel_size attribute is read by no computation
    plain = type(module.padding_mode) is str and all(type(s) is int for s in module.stride)  # compared as torch's
    if not plain or module.padding_mode != "circular" or any(s != 1 for s in module.stride):
        raise NotUnit("not a circular convolution of stride 1")
    if tuple(out.shape[-spatial:]) != tuple(x.shape[-spatial:]):
        raise NotUnit("a circular convolution that changes the length")
    axes = mv.axes_or_still(moves, x.dim())
    lead = x.dim() - spatial - 1
    if moves is not None and moves.labels is not None:
        raise NoRule("a convolution of node labels")
    if mv.turned(moves) or mv.moving(axes[lead]) or not all(rotation(p) for p in axes[lead + 1 :]):
        return grid_conv.turned_convolution(module, moves, x, out)  # by the kernel's symmetry
    return mv.Moves(tuple(axes[:lead]) + (None,) + tuple(axes[lead + 1 :]))


circular_convolution.turns = True  # the walker may hand it moves that swap axes
