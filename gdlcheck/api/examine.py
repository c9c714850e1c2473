"""Look at a layer or a matrix rather than verify it: a layer in the unified form
``Y = G(X, A) V(X)`` (``inspect``), every permutation a matrix commutes with
(``find_symmetries``), and the matrix of an input that ``--plot`` draws.
"""

from __future__ import annotations

import os

import numpy as np

from gdlcheck.api.options import allowed_folders, check_tol, seed_of
from gdlcheck.errors import GdlcheckError, SpecError, param
from gdlcheck.inputs.arrays import as_matrix, check_square
from gdlcheck.inputs.matrices import load_matrix
from gdlcheck.inspection import Inspected, inspect_layer
from gdlcheck.sources import layer_points, resolve_layer
from gdlcheck.symmetries import Found
from gdlcheck.symmetries import find_symmetries as _find_symmetries
from gdlcheck.tolerances import TOL


def inspect(spec, n: int | None = None, seed: int | None = None, allow_paths=()) -> Inspected:
    """The layer of ``spec`` (a path) in the unified form ``Y = G(X, A) V(X)`` (``gdlcheck inspect``)."""
    if not isinstance(spec, (str, os.PathLike)):
        raise SpecError(f"inspect reads a spec or matrix file: give its path, not a {type(spec).__name__}")
    path = os.fspath(spec)
    job = resolve_layer(path, n, allow=allowed_folders(allow_paths))
    points = job.group.n if job.group is not None else (n or layer_points(job.layer))
    if points is None:
        raise SpecError("the number of points is not known: give n", file=path)
    try:
        result = inspect_layer(job.layer, points, job.channels, input=path, kind=job.kind, seed=seed_of(seed, job))
    except GdlcheckError as err:
        raise err.located(file=path) from None
    return result


def find_symmetries(matrix, tol: float = TOL, progress=None) -> Found:
    """Every permutation ``matrix`` commutes with, and the catalogue groups inside (``gdlcheck symmetries``)."""
    check_tol(tol)
    label = os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "<matrix>"
    W = check_square(load_matrix(label), file=label) if label != "<matrix>" else as_matrix(matrix)
    if W.dtype == object:
        raise GdlcheckError("symmetries needs numbers, not symbols", file=label)
    return _find_symmetries(W, tol=float(tol), progress=progress)


def input_matrix(path: str, stdin_data: bytes | None = None, tensor: str | None = None) -> np.ndarray:
    """The square matrix of numbers in a matrix file (``-``: ``stdin_data``), for ``--plot``; in a
    weights file, the one square tensor (or the one ``tensor`` names).

    Raises
    ------
    GdlcheckError
        for a spec (its layer is not one matrix), a symbolic or non-square matrix.
    """
    from gdlcheck.sources import read_input

    source: object
    try:
        if tensor:
            from gdlcheck.inputs.arrays import check_finite
            from gdlcheck.inputs.weights import single_matrix

            source = check_finite(single_matrix(path, tensor))
        else:
            source = read_input(path, stdin_data)
        if not isinstance(source, np.ndarray):
            raise GdlcheckError(
                f"{param('plot')} draws a matrix input; this is a layer spec, whose layer is not one matrix"
            )
        W = check_square(source, file=path)
        if W.dtype == object:
            raise GdlcheckError(f"{param('plot')} draws numbers; this matrix holds symbols")
    except GdlcheckError as err:
        raise err.located(file=path) from None
    return W
