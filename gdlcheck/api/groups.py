"""Groups for the calls: ``group()`` from the catalogue, and a group given as a
:class:`~gdlcheck.groups.PermGroup` or as a name with the options that size it.
"""

from __future__ import annotations

import os

from gdlcheck.code import graphs
from gdlcheck.code.graphs import load_graph_file
from gdlcheck.errors import GroupError
from gdlcheck.groups import PermGroup, build_group
from gdlcheck.sources import GroupOptions


def group(name: str | None = None, n: int | None = None, shape=None, generators=None, graph=None) -> PermGroup:
    """A permutation group from the catalogue (``gdlcheck groups`` lists it).

    Parameters
    ----------
    name : ``"cyclic"``, ``"dihedral"``, ``"symmetric"``, ``"alternating"``, ``"trivial"``,
        ``"translations"``, ``"p4"``, ``"p4m"``, ``"automorphisms"``, ``"generators"`` (or an
        alias).  Optional when ``generators`` (-> ``"generators"``) or ``graph``
        (-> ``"automorphisms"``) is given.
    n : the number of points (for the groups on ``n`` points).
    shape : a grid's shape, ``"8x8"`` or ``(8, 8)`` (for translations, p4, p4m); points are
        flattened row-major, ``(a, b) -> a * W + b``.
    generators : permutations in cycle notation ``"(0 1 2)"`` (0-based) or array form
        ``[1, 2, 0]`` (``s[i]`` is the image of ``i``).
    graph : an adjacency matrix ``(n, n)`` (array or nested list) or the path of a matrix file.

    Returns
    -------
    PermGroup
        with ``n``, ``order``, ``gens`` (array forms) and ``generator_strings``.

    Raises
    ------
    GroupError
        for an unknown name, a missing size, or a bad generator.
    """
    if graph is not None:
        graph = _graph_value(graph, n)
    if name is None:
        name = "generators" if generators else ("automorphisms" if graph is not None else None)
    if name is None:
        raise GroupError("no group: give a name, e.g. gdlcheck.group('cyclic', n=6)")
    if not isinstance(name, str):
        raise GroupError(f"a group name is a string like 'cyclic', got {type(name).__name__}")
    if generators is not None and isinstance(generators, str):
        generators = [generators]
    return build_group(name, n=n, shape=shape, generators=list(generators) if generators else None, graph=graph)


def _graph_value(graph, n: int | None):
    """A graph for a group: a path, a dense adjacency, scipy.sparse, torch sparse or an edge_index
    (as scipy.sparse ``A[target, source]``, never dense)."""
    if isinstance(graph, (str, os.PathLike)):
        A = load_graph_file(os.fspath(graph), n=n)
    else:
        A = graphs.as_graph(graph, where="graph", n=n, error=GroupError)
    return graphs.to_sparse(A, n)


def group_options(g, n, shape, generators, graph) -> GroupOptions:
    """A group given as a PermGroup, or a name and the options that size it."""
    if graph is not None and not isinstance(graph, (str, os.PathLike)):
        g = group(g, n=n, shape=shape, generators=generators, graph=graph)
    if isinstance(g, PermGroup):
        return GroupOptions(name=g.name, n=g.n, group=g)
    if g is not None and not isinstance(g, str):
        raise GroupError(f"group is a PermGroup or a name like 'cyclic', got {type(g).__name__}")
    if isinstance(generators, str):
        generators = [generators]
    return GroupOptions(
        name=g,
        n=n,
        shape=shape,
        generators=tuple(generators or ()),
        graph=os.fspath(graph) if graph is not None else None,
    )
