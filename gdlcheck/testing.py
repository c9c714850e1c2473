"""An assertion for your own test suite: ``assert_equivariant(f, group, shape)``.

    from gdlcheck.testing import assert_equivariant

    def test_my_layer_is_permutation_equivariant():
        assert_equivariant(my_layer, "symmetric", (6, 3))

On failure it raises ``AssertionError`` whose message names each failing generator (in
cycle notation), its relative error, and the trial and seed of the input that shows it, so
the failure can be reproduced.  Its own frame is hidden from pytest's traceback
(``__tracebackhide__``), so the report points at the test; when the callable raises, pytest
shows the test's line and the callable's own frames, none of gdlcheck's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from gdlcheck.api import verify_callable
from gdlcheck.api.callables import Axes, Shape
from gdlcheck.errors import GdlcheckError
from gdlcheck.groups import PermGroup
from gdlcheck.output.words import failure_lines
from gdlcheck.verification import Verified

__all__ = ["assert_equivariant"]


def assert_equivariant(
    f: Callable[..., Any],
    group: PermGroup | str,
    shape: Shape | None = None,
    expect: str = "equivariant",
    trials: int = 8,
    tol: float | None = None,
    seed: int = 0,
    *,
    dtype: str = "float64",
    graph: Any = None,
    inputs: Any = None,
    outputs: Any = None,
    points_axis: Axes | None = None,
    batch_axes: Axes | None = None,
    method: str = "auto",
    name: str | None = None,
    weights: str | os.PathLike | None = None,
    example: Any = None,
) -> Verified:
    """Assert that ``f(P X) == P f(X)`` (``f(P X) == f(X)`` for ``expect="invariant"``).

    Parameters
    ----------
    f : a function, callable object, class or ``torch.nn.Module``; ``X : shape``, first axis
        the group's points (see :func:`gdlcheck.verify_callable`).
    group : a group from :func:`gdlcheck.group`, or a name (``n = shape[0]``).
    shape : ``(n, d)`` or any ``(n, ...)``.
    expect, trials, tol, seed, dtype, graph, inputs, outputs, points_axis, batch_axes, method, name, weights, example :
        as :func:`gdlcheck.verify_callable` (keywords from ``dtype`` on); ``example`` (the
        test's own inputs, such as ``(x, edge_index)``) takes the place of ``shape``.

    Returns
    -------
    Verified
        when the law holds.

    Raises
    ------
    AssertionError
        when it does not: one line per failing generator with the error and the seed.
    GdlcheckError
        when ``f`` cannot be run (it raises, or returns the wrong shape): a broken test
        setup rather than a broken symmetry.
    """
    __tracebackhide__ = True
    try:
        result = verify_callable(
            f,
            group,
            shape=shape,
            expect=expect,
            trials=trials,
            tol=tol,
            seed=seed,
            dtype=dtype,
            graph=graph,
            inputs=inputs,
            outputs=outputs,
            points_axis=points_axis,
            batch_axes=batch_axes,
            method=method,
            name=name,
            weights=weights,
            example=example,
        )
    except GdlcheckError as err:
        # raised again from this (hidden) frame: pytest shows the test's line and, as the cause, the
        # user's own exception with the user's frames, and none of gdlcheck's own in between
        raise err.with_traceback(None) from err.__cause__
    if not result.passed:
        raise AssertionError("\n".join(failure_lines(result)))
    return result
