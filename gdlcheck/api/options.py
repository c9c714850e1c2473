"""The checks of the options that several calls share, and the defaults they fall back to.

Each raises :class:`gdlcheck.errors.GdlcheckError` naming the parameter as Python spells it.
"""

from __future__ import annotations

import os

import numpy as np

from gdlcheck.errors import GdlcheckError, param
from gdlcheck.verification import METHODS


def check_options(method: str, tol, trials, seed) -> None:
    """``method``, ``tol``, ``trials`` and ``seed`` as :func:`gdlcheck.verify` and
    :func:`gdlcheck.verify_callable` take them."""
    if method not in METHODS:
        raise GdlcheckError(f"{param('method')} must be one of {', '.join(METHODS)}, got {method!r}")
    check_tol(tol)
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= 10_000:
        raise GdlcheckError(f"{param('trials')} must be an integer from 1 to 10000, got {trials!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise GdlcheckError(f"{param('seed')} must be a non-negative integer, got {seed!r}")


def check_tol(tol) -> None:
    """A tolerance: a finite number >= 0."""
    import math

    if (
        isinstance(tol, bool)
        or not isinstance(tol, (int, float, np.floating, np.integer))
        or not (math.isfinite(tol) and tol >= 0)
    ):
        raise GdlcheckError(f"{param('tol')} must be a finite number >= 0, got {tol!r}")


def seed_of(seed: int | None, job) -> int:
    """The seed of the random inputs: the one given, else the spec's, else 0."""
    return seed if seed is not None else (job.seed or 0)


def allowed_folders(paths) -> tuple[str, ...]:
    """``allow_paths`` (one path or several) as the folders a spec's ``{file: ...}`` may read."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return tuple(os.fspath(p) for p in (paths or ()))
