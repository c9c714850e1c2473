"""The form a symmetry forces on a linear map (``derive``) and the nearest matrix of that form
(``project``).
"""

from __future__ import annotations

import os

import numpy as np

from gdlcheck import derivation
from gdlcheck.api.groups import group_options
from gdlcheck.derivation import Derived, Projected
from gdlcheck.errors import GdlcheckError, GroupError, LimitError, param
from gdlcheck.groups import PermGroup
from gdlcheck.inputs.arrays import as_matrix, check_square
from gdlcheck.inputs.matrices import load_matrix


def derive(
    group: PermGroup, in_order: int = 1, out_order: int = 1, channels_in: int = 1, channels_out: int = 1
) -> Derived:
    """The parameter form a symmetry forces on a linear map (``gdlcheck derive``).

    Parameters
    ----------
    group : a :class:`PermGroup` from :func:`group`; it acts on every index.
    in_order, out_order : tensor orders 0..4 (``W : (n,)*out_order x (n,)*in_order``;
        1 -> 1 is an ``n x n`` matrix, 2 -> 2 maps edge features).
    channels_in, channels_out : ``D`` and ``D2``; ``free_parameters = dimension * D * D2``.

    Raises
    ------
    GroupError
        if ``group`` is not a group; LimitError for orders or sizes over the budget.
    """
    if not isinstance(group, PermGroup):
        raise GroupError(
            f"derive needs a group, e.g. gdlcheck.derive(gdlcheck.group('cyclic', n=6)); got {type(group).__name__}"
        )
    for label, value in (
        ("in_order", in_order),
        ("out_order", out_order),
        ("channels_in", channels_in),
        ("channels_out", channels_out),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise LimitError(f"{param(label)} must be an integer, got {value!r}")
    return derivation.derive(
        group,
        in_order=int(in_order),
        out_order=int(out_order),
        channels_in=int(channels_in),
        channels_out=int(channels_out),
    )


def project(matrix, group=None, *, n: int | None = None, shape=None, generators=None, graph=None) -> Projected:
    """The nearest equivariant matrix (orbit averages) and the relative distance ``|W - P| / |W|``
    (``gdlcheck project``).

    ``matrix`` is the path of a matrix file or a matrix (as for :func:`verify`); ``group`` a
    :class:`PermGroup` or a name (``n`` defaults to the matrix's size).
    """
    label = os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "<matrix>"
    W = check_square(load_matrix(label), file=label) if label != "<matrix>" else as_matrix(matrix)
    if W.dtype == object:
        raise GdlcheckError("project needs numbers, not symbols", file=label)
    opts = group_options(group, n, shape, generators, graph)
    if not opts.given:
        raise GroupError(f"project needs {param('group', 'NAME')}", file=label)
    g = opts.build(n_default=W.shape[0])
    if g.n != W.shape[0]:
        raise GdlcheckError(f"matrix is {W.shape[0]} x {W.shape[0]} but the group acts on n = {g.n} points", file=label)
    P, distance = derivation.project(W, g)
    return Projected(P, distance, g, _input=W, _label=label)
