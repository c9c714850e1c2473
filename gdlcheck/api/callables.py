"""Verify code: a Python callable or ``torch.nn.Module`` (``verify_callable``; the command
line's ``--callable module:attr`` reads its options into it in :mod:`gdlcheck.api.targets`).

The glue between the call and the code-checking machinery of :mod:`gdlcheck.code`: the group
and the input's points axes from each other, the signature of how each input and output moves,
the cross-check's rounding, and after a failure the culprit, the fixed inputs a generator
moves, and the hint of float32 rounding.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gdlcheck.api.groups import group
from gdlcheck.api.options import check_options
from gdlcheck.code import torch_bridge
from gdlcheck.code.actions import as_axes
from gdlcheck.code.boundary import running_code
from gdlcheck.code.culprit import find_culprit
from gdlcheck.code.describe import build_signature
from gdlcheck.code.input_shape import DTYPES, EXPECT, parse_input_shape, points_axes
from gdlcheck.code.running import callable_name, ready, to_run
from gdlcheck.code.trained import describe_example
from gdlcheck.code.user_code import CallableLayer
from gdlcheck.errors import CallableError, GroupError, param
from gdlcheck.groups import PermGroup, find_family
from gdlcheck.layers import Fact
from gdlcheck.tolerances import DEFAULT_TOL, FLOAT32_LEVEL, ROUNDING
from gdlcheck.verification import FAILS, Options, Verified, random_code, verify_layer

# What the parameters of code checks take, for type checkers (a misspelt keyword is a type error)
Shape = int | str | Sequence[int]
Axes = int | str | Sequence[int]


def verify_callable(
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
    adjacency: Any = None,
    method: str = "auto",
    name: str | None = None,
    weights: str | os.PathLike | None = None,
    example: Any = None,
) -> Verified:
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
    method : ``"auto"`` (a proof where one applies, and random trials), ``"numeric"`` (random
        trials only), ``"both"``, or ``"exact"`` (a proof only: a ``torch.nn.Module`` made of
        standard operations is proved from the call it runs; other code, or a module whose
        proof stops, is ``inconclusive``).
    weights : the path of a trained ``state_dict`` (``.pt``/``.pth``, read with
        ``torch.load(weights_only=True)``; ``.safetensors``; ``.npz``) loaded into a copy of the
        module ``f`` before the check (names and shapes must fit; a ``model.`` or ``module.``
        prefix is taken off).
    example : the user's own inputs in place of ``shape`` and ``inputs``: a tuple of positional
        values (``(x, edge_index)``), a dict of keyword values, or one array.  The first
        floating array moves with the points (its shape is the input's), an integer ``(2, E)``
        array is an ``edge_index`` relabelled with them, anything else is passed unchanged;
        described values (:func:`gdlcheck.graph`, ...) are taken as they are.

    Returns
    -------
    Verified
        ``passed``, ``verdict`` (``holds``: proved for every input, from the call the module
        runs; ``holds_numerically``: the trials pass; ``fails``; ``inconclusive``: random code,
        or ``method="exact"`` where the proof stops), ``checks`` (one per generator: error, and for a failure the trial,
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
    check_options(method, tol, trials, seed)
    if expect not in EXPECT:
        raise CallableError(f"{param('expect')} must be equivariant or invariant, got {expect!r}")
    if graph is not None and adjacency is not None:
        raise CallableError(f"give {param('graph')} or its older name adjacency, not both")
    graph_value = graph if graph is not None else adjacency
    if example is not None:
        if shape is not None or inputs is not None:
            raise CallableError(
                f"give {param('example')} (the inputs themselves) or {param('shape')} and {param('inputs')}, not both"
            )
        inputs, shape = describe_example(example)
    dims = parse_input_shape(shape) if shape is not None else None
    label = name or callable_name(f)
    g, dims, axes = _callable_group(group, dims, points_axis, batch_axes, graph_value)
    with running_code(label) as run:
        return _verify_built(
            f,
            g,
            dims,
            axes,
            label,
            run,
            expect=expect,
            trials=trials,
            tol=tol,
            seed=seed,
            dtype=dtype,
            graph_value=graph_value,
            inputs=inputs,
            outputs=outputs,
            points_axis=points_axis,
            batch_axes=batch_axes,
            method=method,
            weights=weights,
        )


def _verify_built(
    f,
    g,
    dims,
    axes,
    label,
    run,
    *,
    expect,
    trials,
    tol,
    seed,
    dtype,
    graph_value,
    inputs,
    outputs,
    points_axis,
    batch_axes,
    method,
    weights=None,
) -> Verified:
    """The callable built (inside the boundary around the user's code), its trained weights
    loaded, and checked."""
    f, layout_notes = ready(
        f, label, run, weights=weights, dims=dims, axes=axes, explicit=points_axis is not None or batch_axes is not None
    )
    grid = tuple(g.shape) if g.shape is not None and len(g.shape) > 1 and len(axes) > 1 else None
    sig = build_signature(
        inputs,
        outputs,
        shape=dims,
        points_axes=as_axes(points_axis, param("points_axis")) or axes,
        n=g.n,
        grid=grid,
        expect=expect,
        **({} if graph_value is None else {"graph_value": graph_value}),
    )
    if outputs is not None and expect == "invariant" and not sig.invariant:
        raise CallableError(
            f"{param('expect', value='invariant')} but {param('outputs')} has outputs that move; "
            f"describe them as invariant (or leave out {param('expect')})"
        )
    layer = CallableLayer(to_run(f, dtype), sig, label=label)
    kind = "torch.nn.Module" if layer.is_torch else "callable"
    options = Options(method=method, tol=float(tol), trials=trials, seed=seed, **_rounding(layer, dtype))
    notes = layer.notes() + layout_notes
    if (
        inputs is not None
        or outputs is not None
        or points_axis is not None
        or batch_axes is not None
        or graph_value is not None
    ):
        notes.append(Fact("moves", {"text": sig.describe()}))
    with torch_bridge.preserved_rng():
        return _verify_code(layer, g, kind, options, notes, sig, dtype)


def _verify_code(layer, g, kind, options, notes, sig, dtype) -> Verified:
    tol = options.tol
    before = layer.state()
    result = verify_layer(
        layer, g, expect=layer.expect, channels=layer.in_channels, options=options, input=layer.label, kind=kind
    )
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
        if layer.is_torch:
            result.diagnosis += [
                Fact("zero_padding", {"module": name}) for name in torch_bridge.zero_padded_convs(layer.f)
            ]
        hint = _float32_level(result, dtype, float(tol))
        if hint is not None:
            result.notes.append(hint)
    if sig.segments is not None and notes and notes[-1].what == "moves":
        notes[-1] = Fact("moves", {"text": sig.describe()})  # now with the outputs' resolved axes
    if layer.reads_grad_mode:  # known once the proof ran
        notes.append(Fact("grad_mode"))
    changed = layer.state_changed(before)
    if changed:  # the trials' calls too: a verdict of calls that change what the next one computes
        notes.append(Fact("state_changed", {"places": ", ".join(changed[:4])}))
    result.notes = notes + result.notes
    return result


def _rounding(layer, dtype: str) -> dict:
    """How the cross-check of a proof by trials reads rounding for code run in ``dtype``: a few
    ulps of that dtype, of the largest magnitude on the way -- the trials' inputs and outputs,
    and a module's parameters and buffers (a bias of 1e7 that cancels in the output still
    rounds at 1e7); float32 inside a float64 check is float32 rounding, not a wrong rule."""
    return {
        "rounding": ROUNDING[dtype],
        "magnitude": torch_bridge.largest_entry(layer.f) if layer.is_torch else 0.0,
        "lower_rounding": ROUNDING["float32"] if dtype == "float64" else None,
    }


def _fixed_inputs_moved(layer, g: PermGroup, checks) -> list[Fact]:
    """For each failing generator, the fixed graphs it is not an automorphism of (diagnosis findings)."""
    failing = {c.generator for c in checks if c.passed is False}
    out: list[Fact] = []
    for s, name in zip(g.gen_arrays(), g.generator_strings):
        if name in failing:
            out.extend(
                Fact("breaks", {"generator": name, "fact": Fact("fixed_input_moved", {"input": label})})
                for label in layer.signature.not_fixed(s)
            )
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
            find_family(spec)  # an unknown name is told first
            raise CallableError(
                f"a group given by name takes its size from the input: give shape=(n, d), e.g. "
                f"shape=(6, 2) for 6 points with 2 channels, or a group, e.g. "
                f"gdlcheck.group({spec!r}, n=6)"
            )
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
            raise CallableError(
                f"the input's first axis ({param('input_shape', python='shape')}) has {count} points "
                f"but the group acts on n = {g.n}"
            )
        where = f"axis {axes[0]}" if len(axes) == 1 else f"axes {axes}"
        raise CallableError(
            f"the input's points ({param('input_shape', python='shape')} {_dims_text(dims)}, "
            f"{where}) are {count}, but the group acts on n = {g.n}"
        )
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
