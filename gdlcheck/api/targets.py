"""The command line's ``verify --callable module:attr --input-shape NxD`` (``verify_target``):
the group from its options and the input's points, the graph file, the callable imported from
its module, and the ``--input``/``--output`` texts read into what :func:`verify_callable` takes.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gdlcheck.api.callables import verify_callable
from gdlcheck.api.groups import group
from gdlcheck.code.boundary import running_code
from gdlcheck.code.graphs import load_graph_file
from gdlcheck.code.input_shape import parse_input_shape, points_axes
from gdlcheck.code.running import load_callable
from gdlcheck.errors import CallableError, GroupError, param
from gdlcheck.groups import find_family
from gdlcheck.sources import GroupOptions
from gdlcheck.verification import Verified


def verify_target(
    target: str,
    group_options: GroupOptions,
    input_shape,
    *,
    expect: str | None = None,
    dtype: str | None = None,
    method: str = "auto",
    tol: float | None = None,
    trials: int = 8,
    seed: int | None = None,
    folder: str | None = None,
    points_axis=None,
    batch_axes=None,
    inputs=None,
    outputs=None,
    weights=None,
) -> Verified:
    """``gdlcheck verify --callable module:attr --input-shape NxD``: import, build and verify
    (``weights``: ``--weights FILE``, a state_dict loaded into the module first).

    ``module`` is imported from ``folder`` (default: the current folder) or the installed
    packages; ``n`` of the group defaults to the input's points.  ``--graph FILE`` (in
    ``group_options``) is both the graph the callable is given and, for ``--group
    automorphisms``, the graph whose automorphisms are the group.  ``inputs`` and ``outputs``
    are lists of ``--input`` and ``--output`` texts (``KIND`` or ``NAME=KIND``).
    """
    if input_shape is None:
        raise CallableError(
            f"{param('callable')} needs {param('input_shape', 'NxD', python='shape')} (N points by "
            "D channels, e.g. 6x2)",
            file=target,
        )
    dims = parse_input_shape(input_shape)
    if not group_options.given:
        raise GroupError(
            f"{param('callable')} needs a group: give {param('group', 'NAME')} (e.g. "
            f"{param('group', value='symmetric')})",
            file=target,
        )
    axes = points_axes(dims, points_axis, batch_axes)
    n = group_options.n or int(np.prod([dims[a] for a in axes]))
    A = load_graph_file(group_options.graph, n=n) if group_options.graph else None
    name = group_options.name or ("automorphisms" if A is not None and not group_options.generators else None)
    if A is not None and name is not None and find_family(name).of_a_graph:
        g = group(name, graph=A, n=n)
    else:
        g = replace(group_options, graph=None).build(n_default=n)
    with running_code(target):
        f = load_callable(target, folder)
    if (
        inputs
        and not any(_kind_of(item) in ("graph", "fixed") for item in inputs)
        and g.family is not None
        and g.family.of_a_graph
    ):
        A = None  # the graph names the group only: the callable holds it (--input points alone)
    return verify_callable(
        f,
        g,
        shape=dims,
        expect=expect or "equivariant",
        trials=trials,
        tol=tol,
        seed=seed or 0,
        dtype=dtype or "float64",
        method=method,
        name=target,
        graph=A,
        points_axis=points_axis,
        batch_axes=batch_axes,
        inputs=_named(inputs, "input"),
        outputs=_named(outputs, "output"),
        weights=weights,
    )


def _kind_of(item: str) -> str:
    """``"edge_index=fixed"`` -> ``"fixed"``; ``"points:6x3"`` -> ``"points"``."""
    return item.partition("=")[2 if "=" in item else 0].partition(":")[0].strip()


def _named(items, what: str):
    """``["points", "graph"]`` as a list; ``["x=points", "edge_index=graph"]`` as a dict (keywords)."""
    if not items:
        return None
    named = ["=" in item for item in items]
    if any(named) and not all(named):
        raise CallableError(
            f"give every {param(what + 's')} as KIND (positional) or every one as NAME=KIND (keywords), not a mix"
        )
    if not any(named):
        return list(items)
    out = {}
    for item in items:
        key, _, kind = item.partition("=")
        if not key.isidentifier():
            raise CallableError(f"{param(what + 's')} {item!r}: {key!r} is not a keyword name")
        out[key] = kind
    return out
