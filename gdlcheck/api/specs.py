"""Verify a layer given as data: a spec (a file, a dict or YAML text), a matrix, or the tensors
of a trained weights file (``gdlcheck verify INPUT``).
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np

from gdlcheck import derivation
from gdlcheck.api.groups import group_options
from gdlcheck.api.options import allowed_folders, check_options, seed_of
from gdlcheck.code.input_shape import EXPECT
from gdlcheck.errors import GdlcheckError, GroupError, SpecError, param
from gdlcheck.inputs.arrays import as_matrix
from gdlcheck.inputs.spec import dump_yaml, is_spec_text
from gdlcheck.sources import GroupOptions, matrix_job, resolve
from gdlcheck.tolerances import TOL
from gdlcheck.verification import Options, Verified, verify_layer
from gdlcheck.verification.result import HOLDS, TensorChecked, TensorsChecked
from gdlcheck.verification.tensors import BIAS, KERNEL, MATRIX, OTHER, bias_distance, check_kernel, role_of


def verify(
    spec_or_path_or_matrix,
    group=None,
    *,
    n: int | None = None,
    shape=None,
    generators=None,
    graph=None,
    expect: str | None = None,
    method: str = "auto",
    tol: float = TOL,
    trials: int = 8,
    seed: int | None = None,
    allow_paths=(),
) -> Verified:
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
    check_options(method, tol, trials, seed)
    if expect is not None and expect not in EXPECT:
        raise SpecError(f"{param('expect')} must be equivariant or invariant, got {expect!r}")
    opts = group_options(group, n, shape, generators, graph)
    source = spec_or_path_or_matrix
    if isinstance(source, (str, os.PathLike)) and not _is_spec_text(source):
        return verify_input(
            os.fspath(source),
            opts,
            expect=expect,
            method=method,
            tol=tol,
            trials=trials,
            seed=seed,
            allow_paths=allow_paths,
        )
    if isinstance(source, (str, dict)):
        text = source if isinstance(source, str) else dump_yaml(source)
        return verify_input(
            "-",
            opts,
            expect=expect,
            method=method,
            tol=tol,
            trials=trials,
            seed=seed,
            allow_paths=allow_paths,
            stdin_data=text.encode("utf-8"),
            label="<spec>",
        )
    if callable(source) and not hasattr(source, "shape"):
        raise SpecError(
            f"verify checks a spec or a matrix, and {type(source).__name__} is code: check it with "
            "gdlcheck.verify_callable(f, group, shape=(n, d))"
        )
    job = matrix_job("<matrix>", as_matrix(source), opts)
    return _run(job, "<matrix>", expect, method, tol, trials, seed)


def verify_input(
    path: str,
    options: GroupOptions,
    *,
    expect: str | None = None,
    method: str = "auto",
    tol: float = TOL,
    trials: int = 8,
    seed: int | None = None,
    stdin_data: bytes | None = None,
    label: str | None = None,
    allow_paths=(),
) -> Verified:
    """Verify one INPUT of ``gdlcheck verify`` (a path, or ``-`` with ``stdin_data``)."""
    label = label or path
    try:
        job = resolve(path, options, stdin_data=stdin_data, allow=allowed_folders(allow_paths))
    except GdlcheckError as err:
        if err.file == "-" and label != "-":
            err.file = label
        raise
    return _run(job, label, expect, method, tol, trials, seed)


def _run(job, label, expect, method, tol, trials, seed) -> Verified:
    options = Options(method=method, tol=float(tol), trials=trials, seed=seed_of(seed, job))
    try:
        result = verify_layer(
            job.layer,
            job.group,
            expect=expect or job.expect,
            channels=job.channels,
            options=options,
            input=label,
            kind=job.kind,
            name=job.name,
        )
    except GdlcheckError as err:
        raise err.located(file=label) from None
    # a matrix input is kept for result.plot()
    return replace(result, _matrix=job.layer.W if job.kind == "matrix" else None, _tol=options.tol)


def verify_weights(
    path,
    group=None,
    *,
    n: int | None = None,
    shape=None,
    generators=None,
    graph=None,
    tensors=(),
    expect: str | None = None,
    method: str = "auto",
    tol: float = TOL,
    trials: int = 8,
    seed: int | None = None,
) -> TensorsChecked:
    """Check the tensors of a trained weights file that act on the group's points
    (``gdlcheck verify model.safetensors``), or those ``tensors`` names (``fnmatch`` globs).

    ``path`` is a ``.pt``/``.pth`` checkpoint (read with ``torch.load(weights_only=True)``:
    no code in it runs), a ``.safetensors`` file or an ``.npz`` archive.  ``group`` and the
    other options are :func:`verify`'s (``group`` may also be the command line's
    :class:`GroupOptions`).  A tensor is judged only as what it is
    (:mod:`gdlcheck.verification.tensors`): with the group's size given (``n``, ``shape``, a graph,
    generators or a built group), a square matrix of its ``n`` as the layer ``Y = W X``, a vector
    of length ``n`` as a bias (constant on each orbit), a convolution kernel under the grid's
    rotations and mirrors; everything else is listed as not on the points.  Without a size, each
    square tensor is checked at its own n: one that commutes holds, one that does not is not judged
    (it may mix features; ``undecided``, its check kept), and kernels are checked under the group's kind.

    Returns
    -------
    TensorsChecked
        a list of :class:`TensorChecked` (shown as ``verify FILE`` prints it: ``report()``, and
        in a notebook), one per tensor, in the file's order: ``name``, ``shape``, ``role``, ``n`` (its own),
        ``result`` (a :class:`Verified`) and ``distance`` (``|W - P| / |W|`` to the nearest
        equivariant matrix or invariant vector), ``kernel`` for a kernel, ``why`` for one not
        judged, or ``error`` for one that cannot be checked (past the budget, not finite).

    Raises
    ------
    GdlcheckError
        for a file that cannot be read, a ``tensors`` glob that matches nothing, no tensor to
        judge, or a selection past the budget of one file.
    """
    from gdlcheck.inputs.weights import read_tensors, select

    check_options(method, tol, trials, seed)
    opts = group if isinstance(group, GroupOptions) else group_options(group, n, shape, generators, graph)
    label = os.fspath(path)
    if not opts.given:
        raise GroupError(f"a weights file carries no symmetry: give {param('group', 'NAME')}", file=label)
    sized = opts.group is not None or opts.n is not None or bool(opts.shape or opts.graph or opts.generators)
    try:
        fixed = opts.build() if sized else opts.build(n_default=3)  # unsized: only its generators' kinds
    except GdlcheckError as err:
        if sized:
            raise err.located(file=label) from None
        fixed = None
    listed = read_tensors(label)
    roles = {id(t): role_of(t.shape, fixed, sized) for t in listed}
    chosen = select(listed, tuple(tensors), label, judged=lambda t: roles[id(t)].role != OTHER)
    return TensorsChecked(
        _check_tensor(
            label, t, roles[id(t)], fixed if sized else None, opts, t.name in tensors, expect, method, tol, trials, seed
        )
        for t in chosen
    )


def _check_tensor(label, tensor, role, group, opts, named, expect, method, tol, trials, seed) -> TensorChecked:
    """One tensor of a weights file judged as what it is (``group``: the group when sized)."""
    from gdlcheck.inputs.arrays import check_finite
    from gdlcheck.inputs.weights import matrix_of, values_of
    from gdlcheck.layers import Linear
    from gdlcheck.sources import Job

    row = {"role": role.role, "n": role.n, "why": role.why}
    try:
        if role.role == MATRIX:
            W = check_finite(matrix_of(tensor, label), where=f"tensor {tensor.name}")
            job = matrix_job(label, W, opts) if group is None else Job(input=label, layer=Linear(W), group=group)
            result = _run(job, f"{label}:{tensor.name}", expect, method, tol, trials, seed)
            # an exactly equivariant matrix is its own projection (project keeps equal orbits bit
            # for bit): its distance is 0 without the pass
            exact = result.verdict == HOLDS and result.expect == "equivariant"
            distance = 0.0 if exact else derivation.project(W, result.group)[1]
            return TensorChecked(label, tensor.name, tensor.shape, result, distance, **row)
        if role.role == BIAS:
            b = check_finite(values_of(tensor, label), where=f"tensor {tensor.name}")
            job = Job(input=label, layer=Linear(np.zeros((group.n, group.n)), b), group=group, kind="bias")
            result = _run(job, f"{label}:{tensor.name}", "equivariant", method, tol, trials, seed)
            return TensorChecked(label, tensor.name, tensor.shape, result, bias_distance(b, group), **row)
        if role.role == KERNEL:
            K = check_finite(values_of(tensor, label), where=f"tensor {tensor.name}")
            kernel_group = group or opts.build(n_default=3)
            return TensorChecked(label, tensor.name, tensor.shape, kernel=check_kernel(K, kernel_group, tol), **row)
        if named:  # asked for by name: why it cannot be checked is an error (its values, or not a matrix)
            matrix_of(tensor, label)
        return TensorChecked(label, tensor.name, tensor.shape, **row)
    except GdlcheckError as err:
        err.located(file=label)
        return TensorChecked(label, tensor.name, tensor.shape, error=err, **row)


def _is_spec_text(source) -> bool:
    """A string that is a spec rather than a path: several lines, or one YAML line that is no file."""
    if not isinstance(source, str):
        return False
    return "\n" in source or (not os.path.exists(source) and is_spec_text(source))
