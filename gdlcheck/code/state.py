"""What a call may change: a fingerprint of the module's state, before and after.

State is every attribute of every submodule (tensors by identity and version counter, plain
values by value, containers by their items, two levels deep), Python's and numpy's global random
state; torch's generator is compared by the caller.  A call that changes any of it is not proved:
its next call may compute something else.
"""

from __future__ import annotations

import random

import numpy as np


def snapshot(module) -> dict:
    """What a call may change: every attribute of every submodule (tensors by identity and
    version, plain values by value, containers by their items), and the random states."""
    import torch

    out = {}
    for name, m in module.named_modules():
        for key, value in vars(m).items():
            if key in ("_parameters", "_buffers", "_modules"):
                for k, v in value.items():
                    out[(name, k)] = fingerprint(v, torch)
            elif not key.endswith("hooks") and not key.startswith("__"):
                out[(name, key)] = fingerprint(value, torch)
    out[("", "python random")] = random.getstate()
    state = np.random.get_state()
    out[("", "numpy random")] = (state[0], state[1].tobytes(), state[2:])
    return out


def fingerprint(value, torch, depth: int = 0):
    if isinstance(value, torch.Tensor):
        return ("tensor", id(value), value._version, tuple(value.shape))
    if isinstance(value, (random.Random, np.random.RandomState)):
        return ("generator", repr(value.getstate() if isinstance(value, random.Random) else value.get_state()))
    if isinstance(value, np.random.Generator):
        return ("generator", repr(value.bit_generator.state))
    if isinstance(value, torch.Generator):
        return ("generator", value.get_state().numpy().tobytes())
    if isinstance(value, (int, float, str, bool, type(None), complex, bytes)):
        return value
    if depth < 2 and isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return (type(value).__name__, tuple(fingerprint(v, torch, depth + 1) for v in items))
    if depth < 2 and isinstance(value, dict):
        return ("dict", tuple((repr(k), fingerprint(v, torch, depth + 1)) for k, v in value.items()))
    return ("object", id(value))


def changed(before: dict, after: dict) -> list[str]:
    keys = list(dict.fromkeys(list(before) + list(after)))
    return [f"{name + '.' if name else ''}{key}" for name, key in keys
            if before.get((name, key)) != after.get((name, key))]
