"""The trials' random draws: each trial's input and the group's random elements, drawn from seeded
numpy generators (:func:`~gdlcheck.verification.measure.trials.trial_residuals` says which).

They depend on the seed, the trial, the size and the group alone, so the last few are kept: a
checkpoint scan of many tensors of one size draws them once (0.5 ms a tensor at 512 points).
"""

from __future__ import annotations

import numpy as np

from gdlcheck.groups import PermGroup

# the last few draws are kept, up to KEPT_ENTRIES numbers each, read-only
KEPT_ENTRIES = 1 << 16
_KEPT: dict[tuple, object] = {}


def _kept(key: tuple, size: int, make):
    """``make()``, remembered under ``key`` when it holds at most KEPT_ENTRIES numbers."""
    if key in _KEPT:
        return _KEPT[key]
    value = make()
    if size <= KEPT_ENTRIES:
        if len(_KEPT) >= 64:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[key] = value
    return value


def trial_input(seed: int, t: int, n: int, channels: int) -> np.ndarray:
    """Trial ``t``'s input, ``default_rng([seed, t]).standard_normal((n, channels))`` (read-only)."""

    def draw():
        X = np.random.default_rng([seed, t]).standard_normal((n, channels))
        X.flags.writeable = False
        return X

    return _kept(("input", seed, t, n, channels), n * channels, draw)


def random_elements(group: PermGroup, count: int, seed: int, gens) -> list[np.ndarray]:
    """``count`` uniformly random elements of ``group``, drawn from ``default_rng([seed, RANDOM_ELEMENTS])``,
    leaving out the identity and the elements already checked (a small group may give them)."""
    if count <= 0 or not group.gens:
        return []
    key = (
        "elements",
        group.name,
        group.n,
        None if group.shape is None else tuple(group.shape),
        None if group.family is None else group.family.name,
        count,
        seed,
        b"".join(np.asarray(g, dtype=np.int64).tobytes() for g in group.gen_arrays()),
        b"|",
        b"".join(np.asarray(s, dtype=np.int64).tobytes() for s in gens),
    )
    return list(_kept(key, count * group.n, lambda: _random_elements(group, count, seed, gens)))


def _random_elements(group: PermGroup, count: int, seed: int, gens) -> list[np.ndarray]:
    rng = np.random.default_rng([seed, RANDOM_ELEMENTS])
    seen = {tuple(int(v) for v in s) for s in gens} | {tuple(range(group.n))}
    out: list[np.ndarray] = []
    for _ in range(8 * count):
        if len(out) == count:
            break
        h = np.asarray(group.random_element(rng), dtype=np.int64)
        key = tuple(h.tolist())
        if key not in seen:
            seen.add(key)
            h.flags.writeable = False
            out.append(h)
    return out


# the stream of the trials' random elements (apart from the trials' inputs, default_rng([seed, t]))
RANDOM_ELEMENTS = 1 << 30
