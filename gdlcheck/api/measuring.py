"""Measure a trained model's equivariance layer by layer on the user's data (``gdlcheck measure``)."""

from __future__ import annotations

import os

import numpy as np

from gdlcheck.api.groups import group as group_of
from gdlcheck.api.groups import group_options
from gdlcheck.code import torch_bridge
from gdlcheck.code.boundary import running_code
from gdlcheck.code.layerwise import Measured, group_elements, measure_layers
from gdlcheck.code.running import build_callable, callable_name, load_callable
from gdlcheck.code.trained import load_weights
from gdlcheck.errors import CallableError, GdlcheckError, SpecError, param
from gdlcheck.groups import cycle_string, find_family

MAX_DATA_ENTRIES = 1 << 26  # entries of the data batch (as float64: 512 MiB)


def measure(
    model,
    group,
    data,
    *,
    n: int | None = None,
    shape=None,
    generators=None,
    points_axis: int | None = None,
    elements: int = 8,
    seed: int = 0,
    weights=None,
    progress=None,
    name: str | None = None,
    graph=None,
) -> Measured:
    """The equivariance error of each submodule of a torch model on the user's data, and each
    one's own contribution (``gdlcheck measure``).

    Parameters
    ----------
    model : a ``torch.nn.Module`` (or a class or factory that builds one); run on a float64
        copy in eval mode.
    group : a :class:`PermGroup`, or a name with ``n``/``shape``/``generators`` as in
        :func:`group` (``n`` defaults to the data's points).
    data : a batch of inputs: a torch tensor or numpy array ``(B, n, ...)`` (one input
        ``(n, ...)`` is a batch of one), or the path of a ``.pt``/``.pth``, ``.npy``, ``.npz`` or
        ``.safetensors`` file holding one such array.
    points_axis : the data's axis of the points (default 1: axis 0 is the batch; 0 with a graph).
    graph : the graph the model takes besides the data, ``model(data, graph)``, moved with the
        nodes: an ``edge_index`` ``(2, E)`` of integers (relabelled, PyG's convention), a dense
        adjacency ``(n, n)`` (``P A P^T``), a scipy.sparse matrix ``A[target, source]`` (given to
        the model as its edge_index), or the path of a graph file (as ``--graph FILE``).  The
        data is then the nodes' features as the model takes them, ``(n, ...)``, no batch axis
        added; with ``group="automorphisms"`` the group is the graph's.
    elements : seeded random group elements, applied besides the generators.
    weights : a trained state_dict loaded into a copy of the model first (as ``verify_callable``).
    progress : called with a short text before each group element (the command line's progress).
    name : the model's name in the report (default: its class's or function's).

    Returns
    -------
    Measured
        ``layers`` (per submodule in the order the model runs them: ``path``, ``kind``,
        ``depth``, ``error``, ``own_contribution``, per element ``errors`` and ``own``),
        ``largest`` (the leaf with the largest own contribution), ``to_json()``, ``plot()``.

    Raises
    ------
    GdlcheckError
        for a model that is not a torch module, data that cannot be read or does not fit the
        group, or a model that raises on the data.
    """
    label = name or callable_name(model)
    with running_code(label) as run:  # the user's code: what it prints, raises or closes stays its own
        return _measure_built(
            model,
            label,
            run,
            group,
            data,
            n=n,
            shape=shape,
            generators=generators,
            points_axis=points_axis,
            elements=elements,
            seed=seed,
            weights=weights,
            progress=progress,
            graph=graph,
        )


def _measure_built(
    model, label, run, group, data, *, n, shape, generators, points_axis, elements, seed, weights, progress, graph
) -> Measured:
    import torch

    model = run.subject = build_callable(model, label)
    if not torch_bridge.is_torch_module(model):
        raise CallableError(f"measure takes a torch.nn.Module; got a {type(model).__name__}", file=label)
    if weights is not None:
        model = run.subject = load_weights(model, os.fspath(weights))
    if isinstance(elements, bool) or not isinstance(elements, int) or elements < 0:
        raise CallableError(f"{param('elements')} must be a whole number >= 0, got {elements!r}")
    x, data_label = read_data(data)
    axis = (0 if graph is not None else 1) if points_axis is None else int(points_axis)
    if x.dim() == 1 or (points_axis is None and graph is None and x.dim() == 2):
        x = x.unsqueeze(0)  # one input: a batch of one (a graph model takes its nodes' features as they are)
    if not -x.dim() <= axis < x.dim():
        raise CallableError(
            f"{param('points_axis', literal=axis)} is not an axis of the data of shape {tuple(x.shape)}",
            file=data_label,
        )
    axis %= x.dim()
    points = int(x.shape[axis])
    A, graph_label = (None, None) if graph is None else _graph_input(graph, n or points)
    opts = group_options(group, n, shape, generators, None)
    if not opts.given:
        raise CallableError(f"measure needs a group: give {param('group', 'NAME')}")
    if A is not None and opts.group is None and opts.name is not None and find_family(opts.name).of_a_graph:
        g = group_of(opts.name, graph=A, n=n or points)  # the automorphisms of the graph the model is given
    else:
        g = opts.build(n_default=points)
    if g.n != points:
        raise CallableError(
            f"the data has {points} points on axis {axis} (shape {tuple(x.shape)}) but the group acts on n = {g.n}",
            file=data_label,
        )
    perms, kinds = group_elements(g, elements, seed)
    names = [cycle_string(tuple(int(v) for v in p)) for p in perms]
    with torch_bridge.preserved_rng():
        return measure_layers(
            model,
            g,
            x.to(torch.float64),
            axis,
            perms,
            label,
            data_label,
            names,
            kinds,
            progress=progress,
            graph=None if A is None else _graph_tensor(A),
            graph_label=graph_label,
        )


def _graph_input(graph, n: int):
    """The graph given with the data, checked against the ``n`` nodes: ``(value, label)`` in one of
    :mod:`gdlcheck.code.graphs`' forms (a sparse matrix as its edge_index)."""
    from gdlcheck.code import graphs

    if isinstance(graph, (str, os.PathLike)):
        label = os.fspath(graph)
        A = graphs.load_graph_file(label, n=n)
    else:
        label = "<graph>"
        A = graphs.as_graph(graph, where="graph", n=n, error=CallableError)
    if graphs.form(A) == "sparse":  # A[target, source]: the edge_index of its stored entries
        coo = A.tocoo()
        A = np.stack([coo.col, coo.row]).astype(np.int64)
    return A, label


def _graph_tensor(A):
    """The graph as the model gets it: an int64 edge_index, or a float64 dense adjacency."""
    import torch

    from gdlcheck.code import graphs

    if graphs.form(A) == "edge_index":
        return torch.from_numpy(np.ascontiguousarray(A, dtype=np.int64))
    return torch.from_numpy(np.ascontiguousarray(A, dtype=np.float64))


def read_data(data) -> tuple:
    """The data batch as a torch tensor, and its label."""
    import torch

    from gdlcheck.inputs.arrays import plain_array

    if isinstance(data, (str, os.PathLike)):
        label = os.fspath(data)
        array = _data_file(label)
    else:
        label = "<data>"
        array = plain_array(data, label)
        if not isinstance(array, np.ndarray):
            try:
                array = np.asarray(array, dtype=np.float64)
            except (TypeError, ValueError):
                raise SpecError(f"data must be an array of numbers, got {type(data).__name__}", file=label) from None
    if array.dtype.kind not in "biuf" or array.ndim == 0:
        raise SpecError(
            f"data must be an array of real numbers with the points on an axis, got {array.dtype} of "
            f"shape {array.shape}",
            file=label,
        )
    if array.size > MAX_DATA_ENTRIES:
        raise SpecError(f"data of {array.size} entries, over the limit of {MAX_DATA_ENTRIES}", file=label)
    if not np.isfinite(array).all():
        raise SpecError("data holds NaN or infinite values", file=label)
    return torch.from_numpy(np.ascontiguousarray(array, dtype=np.float64)), label


def _data_file(path: str) -> np.ndarray:
    from gdlcheck.inputs.weights import is_weights_file, read_tensors, values_of

    try:
        if path.lower().endswith(".npy"):
            return _npy(path)
        if not is_weights_file(path):
            raise SpecError("data is a .pt/.pth, .npy, .npz or .safetensors file of one array", file=path)
        tensors = read_tensors(path)
        if len(tensors) != 1:
            names = ", ".join(t.name for t in tensors[:6])
            raise SpecError(f"holds {len(tensors)} arrays ({names}); data is a file of one array", file=path)
        return values_of(tensors[0], path)
    except GdlcheckError as err:
        raise err.located(file=path) from None


def measure_target(
    target: str, data, group_opts, *, points_axis=None, elements: int = 8, seed: int = 0, weights=None, progress=None
) -> Measured:
    """``gdlcheck measure --callable MODULE:ATTR --data FILE``: import the model, then :func:`measure`
    (``group_opts.graph``, ``--graph FILE``, is the graph the model takes besides the data)."""
    with running_code(target):  # importing the module runs its code
        model = load_callable(target, None)
    if not group_opts.given:
        raise CallableError(f"measure needs a group: give {param('group', 'NAME')}", file=target)
    name = group_opts.name or ("automorphisms" if group_opts.graph and not group_opts.generators else None)
    return measure(
        model,
        group_opts.group or name,
        data,
        n=group_opts.n,
        shape=group_opts.shape,
        generators=list(group_opts.generators) or None,
        points_axis=points_axis,
        elements=elements,
        seed=seed,
        weights=weights,
        progress=progress,
        name=target,
        graph=group_opts.graph,
    )


def _npy(path: str) -> np.ndarray:
    """A ``.npy`` file of numbers, its header checked before its data is read; no pickles."""
    from numpy.lib import format as npy

    from gdlcheck.limits import MAX_NPY_HEADER

    try:
        with open(path, "rb") as fh:
            version = npy.read_magic(fh)
            reader = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
            shape, _, dtype = reader(fh, max_header_size=MAX_NPY_HEADER)
            if dtype.kind not in "biuf" or int(np.prod(shape)) > MAX_DATA_ENTRIES:
                raise SpecError(
                    f"data of dtype {dtype} and shape {shape}: expected at most {MAX_DATA_ENTRIES} real numbers",
                    file=path,
                )
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, SyntaxError, TypeError) as err:
        raise SpecError(
            f"cannot read the data ({str(err).splitlines()[0][:100] if str(err) else type(err).__name__})", file=path
        ) from None
