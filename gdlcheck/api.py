"""The Python API: the same catalogue, checks and errors as the command line, which calls it.

Re-exported from the package on first use::

    import gdlcheck

    g = gdlcheck.group("cyclic", n=6)
    d = gdlcheck.derive(g)                     # d.dimension == 6, d.form == "circulant"
    r = gdlcheck.verify("samples/conv.yaml")   # r.passed, r.verdict, r.checks, r.to_json()
    r = gdlcheck.verify_callable(lambda X: X - X.mean(axis=0), g, shape=(6, 2))

Conventions (DESIGN.md section 1): points are ``0 .. n-1``; a permutation ``s`` acts on
an array by moving the entry at ``j`` to ``s[j]`` (``P[s[j], j] = 1``); the unit shift is
``j -> j + 1 mod n``.

Every function raises :class:`gdlcheck.errors.GdlcheckError` (or a subclass) for a
user's mistake, naming its parameters as Python spells them, and never prints or exits.  A
layer that does not hold the symmetry is a result (``passed`` is False), not an exception.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from gdlcheck import derivation, results
from gdlcheck.code import graphs, torch_bridge
from gdlcheck.code.actions import as_axes, edges, fixed, graph, points, unchanged
from gdlcheck.code.culprit import find_culprit
from gdlcheck.code.describe import build_signature
from gdlcheck.code.graphs import load_graph_file
from gdlcheck.code.loading import (
    DTYPES,
    EXPECT,
    build_callable,
    callable_name,
    check_layout,
    load_callable,
    parse_input_shape,
    points_axes,
)
from gdlcheck.code.user_code import CallableLayer
from gdlcheck.errors import CallableError, GdlcheckError, GroupError, LimitError, SpecError, param
from gdlcheck.groups import FAMILIES, PermGroup, build_group, find_family
from gdlcheck.inputs.arrays import as_matrix, check_square
from gdlcheck.inputs.matrices import load_matrix
from gdlcheck.inputs.spec import dump_yaml, is_spec_text
from gdlcheck.inputs.weights import is_weights_file
from gdlcheck.inspection import inspect_layer
from gdlcheck.layers import Fact
from gdlcheck.results import Derived, Found, Inspected, Projected, TensorChecked, Verified
from gdlcheck.sources import GroupOptions, layer_points, matrix_job, resolve, resolve_layer
from gdlcheck.symmetries import find_symmetries as _find_symmetries
from gdlcheck.tolerances import DEFAULT_TOL, FLOAT32_LEVEL, ROUNDING, TOL
from gdlcheck.verification import FAILS, METHODS, Options, random_code, verify_layer

__all__ = ["group", "derive", "verify", "verify_callable", "verify_weights", "is_weights_file", "project", "inspect",
           "find_symmetries", "Derived",
           "Verified", "PermGroup", "GroupOptions", "GdlcheckError", "CallableError", "FAMILIES", "points", "graph",
           "fixed", "edges", "unchanged"]


# --------------------------------------------------------------------------- groups


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


def _as_group(g, n: int | None = None) -> PermGroup:
    if isinstance(g, PermGroup):
        return g
    if isinstance(g, str):
        return group(g, n=n)
    raise GroupError(f"expected a group (gdlcheck.group(...)) or a group name, got {type(g).__name__}")


def _group_options(g, n, shape, generators, graph) -> GroupOptions:
    """A group given as a PermGroup, or a name and the options that size it."""
    if graph is not None and not isinstance(graph, (str, os.PathLike)):
        g = group(g, n=n, shape=shape, generators=generators, graph=graph)
    if isinstance(g, PermGroup):
        return GroupOptions(name=g.name, n=g.n, group=g)
    if g is not None and not isinstance(g, str):
        raise GroupError(f"group is a PermGroup or a name like 'cyclic', got {type(g).__name__}")
    if isinstance(generators, str):
        generators = [generators]
    return GroupOptions(name=g, n=n, shape=shape, generators=tuple(generators or ()),
                        graph=os.fspath(graph) if graph is not None else None)


# --------------------------------------------------------------------------- derive and project


def derive(group: PermGroup, in_order: int = 1, out_order: int = 1, channels_in: int = 1,
           channels_out: int = 1) -> Derived:
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
        raise GroupError(f"derive needs a group, e.g. gdlcheck.derive(gdlcheck.group('cyclic', n=6)); "
                         f"got {type(group).__name__}")
    for label, value in (("in_order", in_order), ("out_order", out_order), ("channels_in", channels_in),
                         ("channels_out", channels_out)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise LimitError(f"{param(label)} must be an integer, got {value!r}")
    return Derived(derivation.derive(group, in_order=int(in_order), out_order=int(out_order),
                                     channels_in=int(channels_in), channels_out=int(channels_out)))


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
    opts = _group_options(group, n, shape, generators, graph)
    if not opts.given:
        raise GroupError(f"project needs {param('group', 'NAME')}", file=label)
    g = opts.build(n_default=W.shape[0])
    if g.n != W.shape[0]:
        raise GdlcheckError(f"matrix is {W.shape[0]} x {W.shape[0]} but the group acts on n = {g.n} points",
                            file=label)
    P, distance = derivation.project(W, g)
    return Projected(P, distance, g)


# --------------------------------------------------------------------------- verify


def _check_options(method: str, tol, trials, seed) -> None:
    if method not in METHODS:
        raise GdlcheckError(f"{param('method')} must be one of {', '.join(METHODS)}, got {method!r}")
    _check_tol(tol)
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= 10_000:
        raise GdlcheckError(f"{param('trials')} must be an integer from 1 to 10000, got {trials!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise GdlcheckError(f"{param('seed')} must be a non-negative integer, got {seed!r}")


def _check_tol(tol) -> None:
    import math

    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating, np.integer)) or \
            not (math.isfinite(tol) and tol >= 0):
        raise GdlcheckError(f"{param('tol')} must be a finite number >= 0, got {tol!r}")


def verify(spec_or_path_or_matrix, group=None, *, n: int | None = None, shape=None, generators=None,
           graph=None, expect: str | None = None, method: str = "auto", tol: float = TOL, trials: int = 8,
           seed: int | None = None, allow_paths=()) -> Verified:
    """Check that a layer commutes with a group (``gdlcheck verify``).

    Parameters
    ----------
    spec_or_path_or_matrix :
        the path of a spec (``.yaml``) or matrix file (``.npy .csv .tsv .txt .json``); a spec
        as a dict (the YAML's mapping) or as YAML text (a string that is not a path and whose
        first line is a YAML key or ``{``); or a square matrix ``W : (n, n)`` (numpy array,
        nested list of numbers or expression strings, or a sympy Matrix), verified as the
        linear layer ``Y = W X``.
    group : a :class:`PermGroup`, or a name with ``n``/``shape``/``generators``/``graph``
        as in :func:`group` (``n`` defaults to the input's size).  Default: the spec's
        ``symmetry``; a matrix needs one.
    expect : ``"equivariant"`` or ``"invariant"``: overrides the spec's (matrices default
        to equivariant).
    method, tol, trials, seed : as the command line's ``--method`` (auto, exact, numeric,
        both), ``--tol``, ``--trials``, ``--seed`` (default: the spec's seed, else 0).
    allow_paths : folders besides the spec's own that its ``{file: ...}`` weights may read
        (``--allow-path``); by default a spec reads only files in its own folder.

    Returns
    -------
    Verified
        ``passed``, ``verdict`` (``holds``, ``holds_within_tolerance``,
        ``holds_numerically``, ``fails``, ``inconclusive``), ``checks`` (one per generator
        and method, with witnesses) and ``to_json()``.

    Raises
    ------
    GdlcheckError
        (SpecError, GroupError, ...) for a missing or malformed input or group.
    """
    _check_options(method, tol, trials, seed)
    if expect is not None and expect not in EXPECT:
        raise SpecError(f"{param('expect')} must be equivariant or invariant, got {expect!r}")
    opts = _group_options(group, n, shape, generators, graph)
    source = spec_or_path_or_matrix
    if isinstance(source, (str, os.PathLike)) and not _is_spec_text(source):
        return verify_input(os.fspath(source), opts, expect=expect, method=method, tol=tol, trials=trials, seed=seed,
                            allow_paths=allow_paths)
    if isinstance(source, (str, dict)):
        text = source if isinstance(source, str) else dump_yaml(source)
        return verify_input("-", opts, expect=expect, method=method, tol=tol, trials=trials, seed=seed,
                            allow_paths=allow_paths,
                            stdin_data=text.encode("utf-8"), label="<spec>")
    job = matrix_job("<matrix>", as_matrix(source), opts)
    return _run(job, "<matrix>", expect, method, tol, trials, seed)


def verify_input(path: str, options: GroupOptions, *, expect: str | None = None, method: str = "auto",
                 tol: float = TOL, trials: int = 8, seed: int | None = None, stdin_data: bytes | None = None,
                 label: str | None = None, allow_paths=()) -> Verified:
    """Verify one INPUT of ``gdlcheck verify`` (a path, or ``-`` with ``stdin_data``)."""
    label = label or path
    try:
        job = resolve(path, options, stdin_data=stdin_data, allow=_allowed(allow_paths))
    except GdlcheckError as err:
        if err.file == "-" and label != "-":
            err.file = label
        raise
    return _run(job, label, expect, method, tol, trials, seed)


def _run(job, label, expect, method, tol, trials, seed) -> Verified:
    options = Options(method=method, tol=float(tol), trials=trials, seed=_seed(seed, job))
    try:
        result = verify_layer(job.layer, job.group, expect=expect or job.expect, channels=job.channels,
                              options=options, input=label, kind=job.kind, name=job.name)
    except GdlcheckError as err:
        raise err.located(file=label) from None
    # a matrix input is kept for result.plot()
    return results.verified(result, matrix=job.layer.W if job.kind == "matrix" else None, tol=options.tol)


def verify_weights(path, group=None, *, n: int | None = None, shape=None, generators=None, graph=None,
                   tensors=(), expect: str | None = None, method: str = "auto", tol: float = TOL, trials: int = 8,
                   seed: int | None = None) -> list[TensorChecked]:
    """Check every square 2-D tensor of a trained weights file, or those ``tensors`` names
    (``fnmatch`` globs), as the linear layer ``Y = W X`` (``gdlcheck verify model.safetensors``).

    ``path`` is a ``.pt``/``.pth`` checkpoint (read with ``torch.load(weights_only=True)``:
    no code in it runs), a ``.safetensors`` file or an ``.npz`` archive.  ``group`` and the
    other options are :func:`verify`'s (``group`` may also be the command line's
    :class:`GroupOptions`); ``n`` defaults to each tensor's size.

    Returns
    -------
    list[TensorChecked]
        one per tensor, in the file's order: ``name``, ``shape``, ``result`` (a
        :class:`Verified`), ``distance`` (the relative distance ``|W - P| / |W|`` to the
        nearest equivariant matrix, as ``project`` gives it), or ``error`` for a tensor that
        cannot be checked (not square, past the budget of one matrix, not finite).

    Raises
    ------
    GdlcheckError
        for a file that cannot be read, a ``tensors`` glob that matches nothing, no square
        tensor to check, or a selection past the budget of one file.
    """
    from gdlcheck.inputs.arrays import check_finite
    from gdlcheck.inputs.weights import matrix_of, read_tensors, select

    _check_options(method, tol, trials, seed)
    opts = group if isinstance(group, GroupOptions) else _group_options(group, n, shape, generators, graph)
    label = os.fspath(path)
    if not opts.given:
        raise GroupError(f"a weights file carries no symmetry: give {param('group', 'NAME')}", file=label)
    checked = []
    for tensor in select(read_tensors(label), tuple(tensors), label):
        try:
            W = check_finite(matrix_of(tensor, label), where=f"tensor {tensor.name}")
            job = matrix_job(label, W, opts)
            result = _run(job, f"{label}:{tensor.name}", expect, method, tol, trials, seed)
            distance = derivation.project(W, result.group)[1]
            checked.append(TensorChecked(label, tensor.name, tensor.shape, result, distance))
        except GdlcheckError as err:
            err.located(file=label)
            checked.append(TensorChecked(label, tensor.name, tensor.shape, error=err))
    return checked


def _seed(seed: int | None, job) -> int:
    """The seed of the random inputs: the one given, else the spec's, else 0."""
    return seed if seed is not None else (job.seed or 0)


def _is_spec_text(source) -> bool:
    """A string that is a spec rather than a path: several lines, or one YAML line that is no file."""
    if not isinstance(source, str):
        return False
    return "\n" in source or (not os.path.exists(source) and is_spec_text(source))


# --------------------------------------------------------------------------- callables


def verify_callable(f, group, shape=None, expect: str = "equivariant", trials: int = 8, tol: float | None = None,
                    seed: int = 0, *, dtype: str = "float64", graph=None, inputs=None, outputs=None,
                    points_axis=None, batch_axes=None, adjacency=None, method: str = "auto",
                    name: str | None = None) -> Verified:
    """Check that a Python callable commutes with a group: ``f(P X) == P f(X)``.

    Parameters
    ----------
    f : a function, a callable object, a class with no required arguments (instantiated
        once), or a ``torch.nn.Module`` (run on a copy in ``dtype``, eval mode, no gradients).
        It takes ``X : shape`` with the group's ``n`` points on ``points_axis`` and returns an
        array (numpy, torch, anything ``numpy.asarray`` reads) that moves with the points
        (``expect="equivariant"``) or does not (``expect="invariant"``: ``f(P X) == f(X)``).
    group : a :class:`PermGroup`, or a group name (built from the input's points: ``n``, or
        the grid of two ``points_axis`` axes; ``"automorphisms"`` of ``graph``).
    shape : the input's shape, e.g. ``(n, d)``, ``(C, L)``, ``(B, n, d)``, ``(C, H, W)``;
        default ``(group.n, 1)``.
    trials : seeded random inputs per generator (standard normal, trial ``t`` seeded by
        ``(seed, t)``).
    tol : the largest allowed relative error ``max|f(gX) - g f(X)| / max(|f(gX)|, |g f(X)|)``;
        default 1e-9, or 1e-5 with ``dtype="float32"``.
    dtype : ``"float64"`` (default) or ``"float32"``: what ``f`` is run in; the comparison
        is always done in float64.
    graph : a graph passed after ``X`` (``f(X, A)``), moved with the points: a dense
        ``(n, n)`` adjacency, a scipy.sparse or torch sparse matrix (``P A P^T``, never
        densified), or an ``edge_index : (2, E)`` (relabelled; a sorted edge list stays
        sorted).  ``inputs=("points", "fixed")`` holds it fixed instead.  ``adjacency`` is its
        older name.
    inputs : how each argument moves: a list (positional) or dict (keywords; integer keys
        are positions) of ``"points"`` (random, of ``shape``; ``"points:AXIS"``, or
        ``"points:6x3"`` for another shape), ``"graph"``/``"fixed"`` (the ``graph``),
        :func:`gdlcheck.points` / :func:`gdlcheck.graph` / :func:`gdlcheck.fixed` /
        :func:`gdlcheck.edges` / :func:`gdlcheck.unchanged` with a value, or any other value
        (passed unchanged).  Default ``["points"]`` (``["points", "graph"]`` with a graph).
    outputs : how each output moves: ``"points"`` (``"points:AXIS"``), ``"pairs"`` (``P W
        P^T`` on the last two axes, or ``"pairs:A,B"``), ``"edges"``, ``"invariant"``,
        ``"ignored"``; a tuple/list or dict of these for code that returns several.  Default:
        ``"points"`` on the input's points axis (``"invariant"`` with ``expect="invariant"``).
    points_axis : the axis of the input that holds the points (default 0, negative allowed;
        a tuple of two axes for a grid group on an image).
    batch_axes : axes that are never permuted; the points axis defaults to the first other
        axis (``(B, n, d)`` with ``batch_axes=0`` is checked on axis 1).
    method : ``"auto"``/``"numeric"`` (random trials) or ``"exact"`` (always inconclusive:
        no exact check applies to code).

    Returns
    -------
    Verified
        ``passed``, ``verdict`` (``holds_numerically``, ``fails``, or ``inconclusive`` for
        random code), ``checks`` (one per generator: error, and for a failure the trial,
        seed, output and entry), ``culprit`` (a failing torch module: the first submodule
        that breaks it), ``notes``, ``to_json()``.

    Raises
    ------
    CallableError
        if ``f`` raises (the message names the exception), returns no array, or returns an
        output that does not fit its description; if the axes or inputs do not fit the
        input; if a module is on the meta device.
    GdlcheckError
        for a bad group, shape or option.
    """
    if dtype not in DTYPES:
        raise CallableError(f"{param('dtype')} must be float64 or float32, got {dtype!r}")
    if tol is None:
        tol = DEFAULT_TOL[dtype]
    _check_options(method, tol, trials, seed)
    if expect not in EXPECT:
        raise CallableError(f"{param('expect')} must be equivariant or invariant, got {expect!r}")
    if graph is not None and adjacency is not None:
        raise CallableError(f"give {param('graph')} or its older name adjacency, not both")
    graph_value = graph if graph is not None else adjacency
    dims = parse_input_shape(shape) if shape is not None else None
    label = name or callable_name(f)
    g, dims, axes = _callable_group(group, dims, points_axis, batch_axes, graph_value)
    f = build_callable(f, label)
    if torch_bridge.is_torch_module(f):
        torch_bridge.check_size(f)   # before anything walks the module tree (the walks recurse)
    layout_notes = check_layout(f, dims, axes, explicit=points_axis is not None or batch_axes is not None)
    grid = tuple(g.shape) if g.shape is not None and len(g.shape) > 1 and len(axes) > 1 else None
    sig = build_signature(inputs, outputs, shape=dims, points_axes=as_axes(points_axis, param("points_axis")) or axes,
                          n=g.n, grid=grid, expect=expect,
                          **({} if graph_value is None else {"graph_value": graph_value}))
    if outputs is not None and expect == "invariant" and not sig.invariant:
        raise CallableError(f"{param('expect', value='invariant')} but {param('outputs')} has outputs that move; "
                            f"describe them as invariant (or leave out {param('expect')})")
    layer = CallableLayer(f, sig, dtype=dtype, label=label)
    kind = "torch.nn.Module" if layer.is_torch else "callable"
    options = Options(method=method, tol=float(tol), trials=trials, seed=seed, **_rounding(layer, dtype))
    notes = layer.notes() + layout_notes
    if inputs is not None or outputs is not None or points_axis is not None or batch_axes is not None or \
            graph_value is not None:
        notes.append(Fact("moves", {"text": sig.describe()}))
    with torch_bridge.preserved_rng():
        return _verify_code(layer, g, kind, options, notes, sig, dtype)


def _verify_code(layer, g, kind, options, notes, sig, dtype) -> Verified:
    tol = options.tol
    result = verify_layer(layer, g, expect=layer.expect, channels=layer.in_channels, options=options,
                          input=layer.label, kind=kind)
    # random code fails (two calls differ, so f(PX) and P f(X) do): asked only then, it costs a
    # passing check nothing
    random = layer.randomness(float(tol)) if result.verdict == FAILS else None
    if random is not None:
        result = random_code(result, random)
    elif result.verdict == FAILS:
        # a traced proof that stopped at a condition names the parameter and its entries; else
        # the submodule the forward hooks find
        result.culprit = result.culprit or find_culprit(layer, g, result.checks, float(tol))
        result.diagnosis = (result.diagnosis or []) + _fixed_inputs_moved(layer, g, result.checks)
        hint = _float32_level(result, dtype, float(tol))
        if hint is not None:
            result.notes.append(hint)
    if sig.segments is not None and notes and notes[-1].what == "moves":
        notes[-1] = Fact("moves", {"text": sig.describe()})  # now with the outputs' resolved axes
    result.notes = notes + result.notes
    return results.verified(result)


def _rounding(layer, dtype: str) -> dict:
    """How the cross-check of a proof by trials reads rounding for code run in ``dtype``: a few
    ulps of that dtype, of the largest magnitude on the way -- the trials' inputs and outputs,
    and a module's parameters and buffers (a bias of 1e7 that cancels in the output still
    rounds at 1e7); float32 inside a float64 check is float32 rounding, not a wrong rule."""
    return {"rounding": ROUNDING[dtype], "magnitude": _largest_parameter(layer),
            "lower_rounding": ROUNDING["float32"] if dtype == "float64" else None}


def _largest_parameter(layer) -> float:
    """The largest finite ``|entry|`` of a torch module's floating parameters and buffers (0 for
    other code)."""
    if not layer.is_torch:
        return 0.0
    largest = 0.0
    for tensor in (*layer.f.parameters(), *layer.f.buffers()):
        if tensor.is_floating_point() and tensor.numel() and tensor.device.type != "meta":
            values = tensor.detach().abs()
            values = values[values.isfinite()]
            if values.numel():
                largest = max(largest, float(values.max()))
    return largest


def _fixed_inputs_moved(layer, g: PermGroup, checks) -> list[Fact]:
    """For each failing generator, the fixed graphs it is not an automorphism of (diagnosis findings)."""
    failing = {c.generator for c in checks if c.passed is False}
    out = []
    for s, name in zip(g.gen_arrays(), g.generator_strings):
        if name in failing:
            out.extend(Fact("breaks", {"generator": name, "fact": Fact("fixed_input_moved", {"input": label})})
                       for label in layer.signature.not_fixed(s))
    return out


def _callable_group(spec, dims, points_axis, batch_axes, graph_value):
    """The group, the input's shape and its points axes, each from the others where not given."""
    if isinstance(spec, PermGroup):
        g = spec
        if dims is None:
            dims = (g.n, 1)
        grid = tuple(g.shape) if g.shape is not None and len(g.shape) > 1 else None
        axes = points_axes(dims, points_axis, batch_axes, grid)
    elif isinstance(spec, str):
        if dims is None:
            g = _as_group(spec)
            dims = (g.n, 1)
            return g, dims, points_axes(dims, points_axis, batch_axes)
        axes = points_axes(dims, points_axis, batch_axes)
        sizes = tuple(dims[a] for a in axes)
        family = find_family(spec)
        if family.is_grid and len(sizes) > 1:
            g = group(spec, shape=sizes)
        elif family.of_a_graph and graph_value is not None:
            g = group(spec, graph=graph_value, n=int(np.prod(sizes)))
        else:
            g = group(spec, n=int(np.prod(sizes)))
    else:
        raise GroupError(f"expected a group (gdlcheck.group(...)) or a group name, got {type(spec).__name__}")
    count = int(np.prod([dims[a] for a in axes]))
    if count != g.n:
        if axes == (0,):
            raise CallableError(f"the input's first axis ({param('input_shape', python='shape')}) has {count} points "
                                f"but the group acts on n = {g.n}")
        where = f"axis {axes[0]}" if len(axes) == 1 else f"axes {axes}"
        raise CallableError(f"the input's points ({param('input_shape', python='shape')} {_dims_text(dims)}, "
                            f"{where}) are {count}, but the group acts on n = {g.n}")
    return g, dims, axes


def _dims_text(dims) -> str:
    return "x".join(map(str, dims))


def _float32_level(result, dtype: str, tol: float):
    """A failure of a float64 check whose errors are all at float32 rounding level: a hint."""
    errors = [c.relative_error for c in result.checks if c.passed is False and c.relative_error is not None]
    if dtype != "float64" or not errors or any(e is None for e in errors):
        return None
    worst = max(errors)
    if max(tol, FLOAT32_LEVEL[0]) < worst <= FLOAT32_LEVEL[1]:
        return Fact("float32_level", {"error": worst})
    return None


def verify_target(target: str, group_options: GroupOptions, input_shape, *, expect: str | None = None,
                  dtype: str | None = None, method: str = "auto", tol: float | None = None, trials: int = 8,
                  seed: int | None = None, folder: str | None = None, points_axis=None, batch_axes=None,
                  inputs=None, outputs=None) -> Verified:
    """``gdlcheck verify --callable module:attr --input-shape NxD``: import, build and verify.

    ``module`` is imported from ``folder`` (default: the current folder) or the installed
    packages; ``n`` of the group defaults to the input's points.  ``--graph FILE`` (in
    ``group_options``) is both the graph the callable is given and, for ``--group
    automorphisms``, the graph whose automorphisms are the group.  ``inputs`` and ``outputs``
    are lists of ``--input`` and ``--output`` texts (``KIND`` or ``NAME=KIND``).
    """
    if input_shape is None:
        raise CallableError(f"{param('callable')} needs {param('input_shape', 'NxD', python='shape')} (N points by "
                            "D channels, e.g. 6x2)", file=target)
    dims = parse_input_shape(input_shape)
    if not group_options.given:
        raise GroupError(f"{param('callable')} needs a group: give {param('group', 'NAME')} (e.g. "
                         f"{param('group', value='symmetric')})", file=target)
    axes = points_axes(dims, points_axis, batch_axes)
    n = group_options.n or int(np.prod([dims[a] for a in axes]))
    A = load_graph_file(group_options.graph, n=n) if group_options.graph else None
    name = group_options.name or ("automorphisms" if A is not None and not group_options.generators else None)
    if A is not None and name is not None and find_family(name).of_a_graph:
        g = group(name, graph=A, n=n)
    else:
        g = replace(group_options, graph=None).build(n_default=n)
    f = load_callable(target, folder)
    if inputs and not any(_kind_of(item) in ("graph", "fixed") for item in inputs) and g.family is not None \
            and g.family.of_a_graph:
        A = None  # the graph names the group only: the callable holds it (--input points alone)
    return verify_callable(f, g, shape=dims, expect=expect or "equivariant", trials=trials, tol=tol,
                           seed=seed or 0, dtype=dtype or "float64", method=method, name=target, graph=A,
                           points_axis=points_axis, batch_axes=batch_axes, inputs=_named(inputs, "input"),
                           outputs=_named(outputs, "output"))


def _kind_of(item: str) -> str:
    """``"edge_index=fixed"`` -> ``"fixed"``; ``"points:6x3"`` -> ``"points"``."""
    return item.partition("=")[2 if "=" in item else 0].partition(":")[0].strip()


def _named(items, what: str):
    """``["points", "graph"]`` as a list; ``["x=points", "edge_index=graph"]`` as a dict (keywords)."""
    if not items:
        return None
    named = ["=" in item for item in items]
    if any(named) and not all(named):
        raise CallableError(f"give every {param(what + 's')} as KIND (positional) or every one as NAME=KIND "
                            "(keywords), not a mix")
    if not any(named):
        return list(items)
    out = {}
    for item in items:
        key, _, kind = item.partition("=")
        if not key.isidentifier():
            raise CallableError(f"{param(what + 's')} {item!r}: {key!r} is not a keyword name")
        out[key] = kind
    return out


# --------------------------------------------------------------------------- inspect and symmetries


def _allowed(paths) -> tuple[str, ...]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return tuple(os.fspath(p) for p in (paths or ()))


def inspect(spec, n: int | None = None, seed: int | None = None, allow_paths=()) -> Inspected:
    """The layer of ``spec`` (a path) in the unified form ``Y = G(X, A) V(X)`` (``gdlcheck inspect``)."""
    if not isinstance(spec, (str, os.PathLike)):
        raise SpecError(f"inspect reads a spec or matrix file: give its path, not a {type(spec).__name__}")
    path = os.fspath(spec)
    job = resolve_layer(path, n, allow=_allowed(allow_paths))
    points = job.group.n if job.group is not None else (n or layer_points(job.layer))
    try:
        result = inspect_layer(job.layer, points, job.channels, input=path, kind=job.kind, seed=_seed(seed, job))
    except GdlcheckError as err:
        raise err.located(file=path) from None
    return results.inspected(result)


def find_symmetries(matrix, tol: float = TOL, progress=None) -> Found:
    """Every permutation ``matrix`` commutes with, and the catalogue groups inside (``gdlcheck symmetries``)."""
    _check_tol(tol)
    label = os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "<matrix>"
    W = check_square(load_matrix(label), file=label) if label != "<matrix>" else as_matrix(matrix)
    if W.dtype == object:
        raise GdlcheckError("symmetries needs numbers, not symbols", file=label)
    return results.found(_find_symmetries(W, tol=float(tol), progress=progress))


# --------------------------------------------------------------------------- for pictures and completion


def input_matrix(path: str, stdin_data: bytes | None = None, tensor: str | None = None) -> np.ndarray:
    """The square matrix of numbers in a matrix file (``-``: ``stdin_data``), for ``--plot``; in a
    weights file, the one square tensor (or the one ``tensor`` names).

    Raises
    ------
    GdlcheckError
        for a spec (its layer is not one matrix), a symbolic or non-square matrix.
    """
    from gdlcheck.sources import read_input

    try:
        if tensor:
            from gdlcheck.inputs.arrays import check_finite
            from gdlcheck.inputs.weights import single_matrix

            source = check_finite(single_matrix(path, tensor))
        else:
            source = read_input(path, stdin_data)
        if not isinstance(source, np.ndarray):
            raise GdlcheckError(f"{param('plot')} draws a matrix input; this is a layer spec, whose layer is not "
                                "one matrix")
        W = check_square(source, file=path)
        if W.dtype == object:
            raise GdlcheckError(f"{param('plot')} draws numbers; this matrix holds symbols")
    except GdlcheckError as err:
        raise err.located(file=path) from None
    return W


def group_names() -> list[str]:
    """Every name and alias of the catalogue (for shell completion)."""
    return [name for family in FAMILIES.values() for name in (family.name, *family.aliases)]


# --------------------------------------------------------------------------- the spec reference


def kinds() -> list:
    """Every layer kind's reference (``gdlcheck kinds``): name, summary, keys, example."""
    from gdlcheck.layers.reference import KIND_REFERENCE

    return list(KIND_REFERENCE.values())


def kind(name: str):
    """One layer kind's reference (``gdlcheck kinds NAME``).

    Raises
    ------
    SpecError
        for an unknown kind, with a suggestion.
    """
    from gdlcheck.layers.reference import KIND_REFERENCE
    from gdlcheck.text import suggest

    if name not in KIND_REFERENCE:
        raise SpecError(f"unknown layer kind {name!r}{suggest(name, KIND_REFERENCE)}; known: "
                        f"{', '.join(sorted(KIND_REFERENCE))}")
    return KIND_REFERENCE[name]


def spec_schema() -> dict:
    """The spec format as a JSON Schema (``gdlcheck schema``)."""
    from gdlcheck.output.schema import spec_schema as build

    return build()
