"""The module run's own judge of a ``holds`` (fuzz/modules.py): ``f(g x)`` against ``g f(x)`` in
float64, written here and not through gdlcheck, so a wrong proof cannot also be a wrong check.

The module is built from its file as gdlcheck documents it runs one: a float64 copy in eval mode,
called under ``torch.no_grad()``.  The group elements are made here from the group's name: its
usual generators (the shift, a transposition, a reflection, a 3-cycle) and random elements of it.
A point ``j`` moves to ``sigma[j]`` (``P[sigma[j], j] = 1``); a symmetry of every element is also
one of their inverses, so the convention cannot change the answer.
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np


def elements(group: str, n: int, rng: np.random.Generator, count: int = 3) -> list[np.ndarray]:
    """The generators of the named group on ``n`` points, then ``count`` random elements of it."""
    shift = np.roll(np.arange(n), -1)  # j -> j + 1
    reflection = (-np.arange(n)) % n
    swap = np.arange(n)
    swap[[0, 1]] = [1, 0]
    if group == "cyclic":
        out = [shift] + [np.roll(np.arange(n), -int(k)) for k in rng.integers(1, n, count)]
    elif group == "dihedral":
        out = [shift, reflection] + [
            np.roll(reflection if rng.random() < 0.5 else np.arange(n), -int(k)) for k in rng.integers(0, n, count)
        ]
    elif group == "symmetric":
        out = [shift, swap] + [rng.permutation(n) for _ in range(count)]
    elif group == "alternating":
        three = np.arange(n)
        three[[0, 1, 2]] = [1, 2, 0]
        out = [three]
        for _ in range(count):
            p = rng.permutation(n)
            if _parity(p):
                p[[0, 1]] = p[[1, 0]]
            out.append(p)
    else:
        raise ValueError(f"no elements for group {group!r}")
    return [p for p in out if not np.array_equal(p, np.arange(n))]


def _parity(p: np.ndarray) -> int:
    seen, odd = np.zeros(len(p), bool), 0
    for start in range(len(p)):
        length, j = 0, start
        while not seen[j]:
            seen[j], j, length = True, p[j], length + 1
        odd += max(length - 1, 0)
    return odd % 2


def build_raw(path: str, name: str):
    """The module of ``path:name`` (a class, or a factory with no arguments), as its code builds it."""
    spec = importlib.util.spec_from_file_location("fuzzed_module", path)
    code = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code)
    return getattr(code, name)()


def build(path: str, name: str):
    """The module of ``path:name`` as gdlcheck runs it: in float64, in eval mode."""
    return build_raw(path, name).double().eval()


def moved(t, sigma: np.ndarray, axis: int):
    """``P t`` along ``axis``: entry ``j`` goes to place ``sigma[j]``."""
    import torch

    return t.index_select(axis, torch.as_tensor(np.argsort(sigma)))


def worst_error(
    path: str, name: str, shape, points_axis: int, group: str, expect: str, seed: int = 0, stateful: bool = False
):
    """The largest relative error ``max|f(gx) - g f(x)| / max(|f(gx)|, |g f(x)|)`` over a few
    random inputs and group elements, or None when an output is not finite (nothing to compare).
    A ``stateful`` module (it counts its calls, in itself or in its file's globals) is built
    afresh for every call, so both sides are the same function: its first call."""
    import torch

    torch.set_num_threads(1)
    module = build(path, name)

    def f(x):
        return (build(path, name) if stateful else module)(x)

    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    worst = 0.0
    with torch.no_grad():
        for sigma in elements(group, shape[points_axis], rng):
            x = torch.randn(*shape, generator=gen, dtype=torch.float64)
            image = f(moved(x, sigma, points_axis))
            base = f(x)
            if expect == "equivariant":
                base = moved(base, sigma, points_axis)
            a, b = image.double(), base.double()
            if a.shape != b.shape:
                return math.inf
            if not (torch.isfinite(a).all() and torch.isfinite(b).all()):
                return None
            scale = max(a.abs().max().item() if a.numel() else 0.0, b.abs().max().item() if b.numel() else 0.0)
            if scale > 0:
                worst = max(worst, (a - b).abs().max().item() / scale)
    return worst
