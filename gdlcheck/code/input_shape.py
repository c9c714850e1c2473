"""The input of a check of code: its shape parsed (``--input-shape 6x2``), and where the points
are in it (``points_axis``, ``batch_axes``, or a grid group's shape found on its axes).  The user's
code is not looked at here (:mod:`gdlcheck.code.running` checks its layout against these axes).
"""

from __future__ import annotations

import numpy as np

from gdlcheck.code.actions import as_axes, normal_axes
from gdlcheck.errors import CallableError, param
from gdlcheck.limits import MAX_MATRIX_ENTRIES
from gdlcheck.text import parse_shape

EXPECT = ("equivariant", "invariant")
DTYPES = ("float64", "float32")


def parse_input_shape(text) -> tuple[int, ...]:
    """``"6x2"`` -> ``(6, 2)``; ``"6"`` -> ``(6,)``; a tuple or list of positive ints as is.

    Raises
    ------
    CallableError
        for anything else (one line that quotes the value).
    """
    dims = parse_shape(
        text,
        what=param("input_shape", python="shape"),
        error=CallableError,
        example="NxD (e.g. 6x2): N points by D channels",
    )
    if int(np.prod(dims)) > MAX_MATRIX_ENTRIES:
        raise CallableError(
            f"input shape {text!r} has {int(np.prod(dims))} entries, over the limit of {MAX_MATRIX_ENTRIES}"
        )
    return dims


def points_axes(
    dims: tuple[int, ...], points_axis=None, batch_axes=None, grid: tuple[int, ...] | None = None
) -> tuple[int, ...]:
    """The axes of an input of shape ``dims`` that hold the points, as non-negative indices.

    ``points_axis`` (an int, negative allowed, or a tuple: a grid's axes) wins; else a grid
    group's shape is looked for on consecutive axes that are not batch axes (it must match in
    exactly one place); else the first axis that is not a batch axis.  Batch axes are never
    permuted.

    Raises
    ------
    CallableError
        for an axis out of range, a points axis that is also a batch axis, or a grid that
        matches no place or several.
    """
    ndim = len(dims)
    batch = normal_axes(as_axes(batch_axes, param("batch_axes")) or (), ndim, param("batch_axes"))
    if points_axis is not None:
        axes = normal_axes(as_axes(points_axis, param("points_axis")) or (), ndim, param("points_axis"))
    elif grid is not None and len(grid) > 1:
        g = len(grid)
        places = [
            tuple(range(k, k + g))
            for k in range(ndim - g + 1)
            if tuple(dims[k : k + g]) == tuple(grid) and not set(range(k, k + g)) & set(batch)
        ]
        grid_text = "x".join(map(str, grid))
        if not places:
            raise CallableError(
                f"the group acts on a {grid_text} grid, but no consecutive axes of the input "
                f"{shape_text(dims)} are {grid_text}; give {param('points_axis')} (the grid's axes)"
            )
        if len(places) > 1:
            raise CallableError(
                f"the {grid_text} grid fits axes {' and '.join(map(str, places))} of the input "
                f"{shape_text(dims)}; say which with {param('points_axis', literal=places[-1])}"
            )
        axes = places[0]
    else:
        free = [a for a in range(ndim) if a not in batch]
        if not free:
            raise CallableError(f"every axis of {shape_text(dims)} is a batch axis: the points need one")
        axes = (free[0],)
    both = set(axes) & set(batch)
    if both:
        raise CallableError(f"axis {min(both)} is both a points axis and a batch axis (batch axes are never permuted)")
    return axes


def shape_text(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
