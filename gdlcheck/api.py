"""The Python API: the same catalogue, checks and errors as the command line.

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
user's mistake and never prints or exits.  A layer that does not hold the symmetry is a
result (``passed`` is False), not an exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from gdlcheck.callable import (EXPECT, DTYPES, CallableError, CallableLayer, build_callable, callable_name,
                               default_tol, parse_input_shape)
from gdlcheck.errors import GdlcheckError, GroupError, LimitError, SpecError
from gdlcheck.groups import PermGroup, build_group
from gdlcheck.sources import GroupOptions, load_graph
from gdlcheck.verification import METHODS, Options, VerifyResult, verify_layer

__all__ = ["group", "derive", "verify", "verify_callable", "Derived", "VerifyResult", "PermGroup",
           "GdlcheckError", "CallableError"]

# The sympy matrix of a derivation is built entry by entry: keep it for readable sizes.
MAX_SYMPY_MATRIX_ENTRIES = 1 << 16


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
        graph = _graph_array(graph)
    if name is None:
        name = "generators" if generators else ("automorphisms" if graph is not None else None)
    if name is None:
        raise GroupError("no group: give a name, e.g. gdlcheck.group('cyclic', n=6)")
    if not isinstance(name, str):
        raise GroupError(f"a group name is a string like 'cyclic', got {type(name).__name__}")
    if generators is not None and isinstance(generators, str):
        generators = [generators]
    return build_group(name, n=n, shape=shape, generators=list(generators) if generators else None, graph=graph)


def _graph_array(graph) -> np.ndarray:
    if isinstance(graph, (str, os.PathLike)):
        return load_graph(os.fspath(graph))
    from gdlcheck.matrices import check_finite, check_square

    try:
        A = np.asarray(graph, dtype=np.float64)
    except (TypeError, ValueError):
        raise GroupError("a graph is an adjacency matrix of numbers (or the path of a matrix file)") from None
    return check_finite(check_square(A, where="graph"), where="graph")


def _as_group(g, n: int | None = None) -> PermGroup:
    if isinstance(g, PermGroup):
        return g
    if isinstance(g, str):
        return group(g, n=n)
    raise GroupError(f"expected a group (gdlcheck.group(...)) or a group name, got {type(g).__name__}")


# --------------------------------------------------------------------------- derive


class Derived:
    """The equivariant linear maps of a group between two tensor orders (:func:`derive`).

    Attributes
    ----------
    dimension : int
        the number of orbits: basis elements of the one-channel map.
    form : str
        the form's name (``"circulant"``, ``"alpha*I + beta*11^T"``, ``"orbit basis"`` ...).
    formula : str
        e.g. ``"W[i, j] = theta_((i - j) mod n)"``.
    parameters : list[str]
        the parameter of each orbit, ``parameters[k]`` for orbit ``k``.
    pattern : numpy.ndarray
        int, shape ``(n,) * (out_order + in_order)`` (output indices first): the orbit of each entry.
    basis : numpy.ndarray
        int8 0/1, shape ``(dimension,) + pattern.shape``.
    matrix : sympy.Matrix
        ``n x n`` symbolic matrix (order 1 -> 1 only), ``matrix[i, j]`` is orbit ``pattern[i, j]``'s entry.
    free_parameters : int
        ``dimension * channels_in * channels_out``.

    Other attributes of :class:`gdlcheck.derivation.Derivation` are passed through.
    """

    def __init__(self, derivation):
        self.derivation = derivation

    def __getattr__(self, name):
        if name == "derivation":
            raise AttributeError(name)
        return getattr(self.derivation, name)

    @property
    def dimension(self) -> int:
        return self.derivation.dimension

    @property
    def form(self) -> str:
        return self.derivation.form

    @property
    def parameters(self) -> list[str]:
        return self.derivation.parameters

    @property
    def pattern(self) -> np.ndarray:
        return self.derivation.pattern

    @property
    def basis(self) -> np.ndarray:
        return self.derivation.basis()

    @property
    def matrix(self):
        """The ``n x n`` sympy Matrix of the form (order 1 -> 1), e.g. ``theta_((i - j) mod n)``.

        Raises
        ------
        GdlcheckError
            for other orders; LimitError past 65536 entries (use ``pattern``).
        """
        d = self.derivation
        if (d.out_order, d.in_order) != (1, 1):
            raise GdlcheckError(f"matrix is the order 1 -> 1 form; this derivation is order {d.in_order} -> "
                                f"{d.out_order}: use pattern or basis")
        if d.n * d.n > MAX_SYMPY_MATRIX_ENTRIES:
            raise LimitError(f"a {d.n} x {d.n} sympy matrix has {d.n * d.n} entries, over the limit of "
                             f"{MAX_SYMPY_MATRIX_ENTRIES}; use pattern and parameters")
        import sympy

        from gdlcheck.expr import parse_expr

        # The entry names are gdlcheck's own ("theta_3", "alpha + beta"), parsed by the
        # whitelisting parser rather than sympify.
        entries = [parse_expr(e) for e in d.entry_names()]
        pattern = d.pattern
        return sympy.Matrix(d.n, d.n, lambda i, j: entries[int(pattern[i, j])])

    def to_json(self) -> dict:
        """The ``derive --format json`` object (DESIGN.md section 6)."""
        from gdlcheck.report import derive_json

        return derive_json(self.derivation)

    def __repr__(self) -> str:
        d = self.derivation
        return (f"<Derived {d.group.describe()} order {d.in_order} -> {d.out_order}: {d.form}, "
                f"dimension {d.dimension}>")


def derive(group: PermGroup, in_order: int = 1, out_order: int = 1, channels_in: int = 1,
           channels_out: int = 1) -> Derived:
    """The parameter form a symmetry forces on a linear map (``gdlcheck derive``).

    Parameters
    ----------
    group : a :class:`PermGroup` from :func:`group`; it acts on every index.
    in_order, out_order : tensor orders 0..4 (``W : (n,)*out_order x (n,)*in_order``;
        1 -> 1 is an ``n x n`` matrix, 2 -> 2 maps edge features).
    channels_in, channels_out : ``D`` and ``D2``; ``free_parameters = dimension * D * D2``.

    Returns
    -------
    Derived

    Raises
    ------
    GroupError
        if ``group`` is not a group; LimitError for orders or sizes over the budget.
    """
    from gdlcheck import derivation

    if not isinstance(group, PermGroup):
        raise GroupError(f"derive needs a group, e.g. gdlcheck.derive(gdlcheck.group('cyclic', n=6)); "
                         f"got {type(group).__name__}")
    for label, value in (("in_order", in_order), ("out_order", out_order), ("channels_in", channels_in),
                         ("channels_out", channels_out)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise LimitError(f"{label} must be an integer, got {value!r}")
    return Derived(derivation.derive(group, in_order=int(in_order), out_order=int(out_order),
                                     channels_in=int(channels_in), channels_out=int(channels_out)))


# --------------------------------------------------------------------------- verify


@dataclass
class _GivenGroup(GroupOptions):
    """Group options that are an already built group (for :func:`verify` with a PermGroup)."""

    fixed: PermGroup | None = None

    def build(self, n_default: int | None = None) -> PermGroup:
        return self.fixed


def _group_options(g, n, shape, generators, graph) -> GroupOptions:
    if isinstance(g, PermGroup):
        return _GivenGroup(name=g.name, n=g.n, fixed=g)
    if graph is not None and not isinstance(graph, (str, os.PathLike)):
        built = group(g, n=n, shape=shape, generators=generators, graph=graph)
        return _GivenGroup(name=built.name, n=built.n, fixed=built)
    if g is not None and not isinstance(g, str):
        raise GroupError(f"group is a PermGroup or a name like 'cyclic', got {type(g).__name__}")
    if isinstance(generators, str):
        generators = [generators]
    return GroupOptions(name=g, n=n, shape=shape, generators=tuple(generators or ()),
                        graph=os.fspath(graph) if graph is not None else None)


def _check_options(method: str, tol, trials, seed) -> None:
    if method not in METHODS:
        raise GdlcheckError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0:
        raise GdlcheckError(f"tol must be a non-negative number, got {tol!r}")
    if isinstance(trials, bool) or not isinstance(trials, int) or not 1 <= trials <= 10_000:
        raise GdlcheckError(f"trials must be an integer from 1 to 10000, got {trials!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise GdlcheckError(f"seed must be a non-negative integer, got {seed!r}")


def verify(spec_or_path_or_matrix, group=None, *, n: int | None = None, shape=None, generators=None,
           graph=None, expect: str | None = None, method: str = "auto", tol: float = 1e-9, trials: int = 8,
           seed: int | None = None) -> VerifyResult:
    """Check that a layer commutes with a group (``gdlcheck verify``).

    Parameters
    ----------
    spec_or_path_or_matrix :
        the path of a spec (``.yaml``) or matrix file (``.npy .csv .tsv .txt .json``); a spec
        as a dict (the YAML's mapping) or as YAML text; or a square matrix ``W : (n, n)``
        (numpy array, nested list of numbers or expression strings, or a sympy Matrix),
        verified as the linear layer ``Y = W X``.
    group : a :class:`PermGroup`, or a name with ``n``/``shape``/``generators``/``graph``
        as in :func:`group` (``n`` defaults to the input's size).  Default: the spec's
        ``symmetry``; a matrix needs one.
    expect : ``"equivariant"`` or ``"invariant"``: overrides the spec's (matrices default
        to equivariant).
    method, tol, trials, seed : as the command line's ``--method`` (auto, exact, numeric,
        both), ``--tol``, ``--trials``, ``--seed`` (default: the spec's seed, else 0).

    Returns
    -------
    VerifyResult
        ``passed``, ``verdict`` (``holds``, ``holds_within_tolerance``,
        ``holds_numerically``, ``fails``, ``inconclusive``), ``checks`` (one per generator
        and method, with counterexamples) and ``to_json()``.

    Raises
    ------
    GdlcheckError
        (SpecError, GroupError, ...) for a missing or malformed input or group.
    """
    from gdlcheck.sources import matrix_job, resolve

    _check_options(method, tol, trials, seed)
    if expect is not None and expect not in EXPECT:
        raise SpecError(f"expect must be equivariant or invariant, got {expect!r}")
    opts = _group_options(group, n, shape, generators, graph)
    source = spec_or_path_or_matrix
    if isinstance(source, (str, os.PathLike)) and not _is_yaml_text(source):
        label = os.fspath(source)
        job = resolve(label, opts)
    elif isinstance(source, (str, dict)):
        label = "<spec>"
        text = source if isinstance(source, str) else _dump_yaml(source)
        try:
            job = resolve("-", opts, stdin_data=text.encode("utf-8"))
        except GdlcheckError as err:
            if err.file == "-":
                err.file = label
            raise
    else:
        label = "<matrix>"
        job = matrix_job(label, _matrix(source), opts, how="group=, e.g. group='cyclic'")
    options = Options(method=method, tol=float(tol), trials=trials,
                      seed=seed if seed is not None else (job.seed or 0))
    try:
        return verify_layer(job.layer, job.group, expect=expect or job.expect, channels=job.channels,
                            options=options, input=label, kind=job.kind, name=job.name)
    except GdlcheckError as err:
        raise err.located(file=label) from None


def _is_yaml_text(source) -> bool:
    return isinstance(source, str) and "\n" in source


def _dump_yaml(value: dict) -> str:
    import yaml

    try:
        return yaml.safe_dump(value, sort_keys=False)
    except yaml.YAMLError as err:
        raise SpecError(f"the spec holds a value YAML cannot represent ({err})", file="<spec>") from None


def _matrix(source) -> np.ndarray:
    from gdlcheck.matrices import check_finite, check_square, to_array

    if hasattr(source, "tolist") and type(source).__module__.startswith("sympy"):
        source = source.tolist()
    if isinstance(source, np.ndarray) and source.dtype != object:
        if not np.issubdtype(source.dtype, np.number) or np.iscomplexobj(source):
            raise SpecError(f"a matrix of {source.dtype} values; expected real numbers", file="<matrix>")
        W = source.astype(np.float64)
    else:
        if isinstance(source, np.ndarray):
            source = source.tolist()
        if not isinstance(source, (list, tuple)):
            raise SpecError(f"expected a path, a spec or a matrix, got {type(source).__name__}", file="<matrix>")
        try:
            W = to_array(_plain(source), "matrix", ndim=2)
        except GdlcheckError as err:
            raise err.located(file="<matrix>") from None
    return check_square(check_finite(W, where="matrix"), file="<matrix>")


def _plain(rows):
    """Nested lists with sympy numbers and numpy scalars as Python numbers or strings."""
    out = []
    for row in rows:
        if isinstance(row, (list, tuple)):
            out.append(_plain(row))
        elif isinstance(row, (int, float, str)) and not isinstance(row, bool):
            out.append(row)
        elif isinstance(row, np.generic):
            out.append(row.item())
        else:  # a sympy expression: its text goes through the whitelisting parser
            out.append(str(row))
    return out


# --------------------------------------------------------------------------- callables


def verify_callable(f, group, shape=None, expect: str = "equivariant", trials: int = 8, tol: float | None = None,
                    seed: int = 0, *, dtype: str = "float64", adjacency=None, method: str = "auto",
                    name: str | None = None) -> VerifyResult:
    """Check that a Python callable commutes with a group: ``f(P X) == P f(X)``.

    Parameters
    ----------
    f : a function, a callable object, a class with no required arguments (instantiated
        once), or a ``torch.nn.Module`` (run on a copy in ``dtype``, eval mode, no gradients).
        It takes ``X : shape`` whose first axis is the group's ``n`` points and returns an
        array (numpy, torch, anything ``numpy.asarray`` reads) with the same first axis
        (``expect="equivariant"``) or without it (``expect="invariant"``: ``f(P X) == f(X)``).
        With ``adjacency`` it is called as ``f(X, A)``.
    group : a :class:`PermGroup`, or a group name (built with ``n = shape[0]``).
    shape : the input's shape ``(n, d)`` or any ``(n, ...)``; default ``(group.n, 1)``.
    trials : seeded random inputs per generator (standard normal, trial ``t`` seeded by
        ``(seed, t)``).
    tol : the largest allowed relative error ``max|f(gX) - g f(X)| / max|f(X)|``;
        default 1e-9, or 1e-5 with ``dtype="float32"``.
    dtype : ``"float64"`` (default) or ``"float32"``: what ``f`` is run in; the comparison
        is always done in float64.
    adjacency : ``A : (n, n)``; the law becomes ``f(PX, P A P^T) == P f(X, A)`` (Theorem 3).
    method : ``"auto"``/``"numeric"`` (random trials) or ``"exact"`` (always inconclusive:
        no exact check applies to code).

    Returns
    -------
    VerifyResult
        ``passed``, ``verdict`` (``holds_numerically`` or ``fails``), ``checks`` (one per
        generator: error, and for a failure the trial, seed and output entry), ``to_json()``.

    Raises
    ------
    CallableError
        if ``f`` raises (the message names the exception), returns no array, or returns an
        output whose first axis is not the points for ``expect="equivariant"``.
    GdlcheckError
        for a bad group, shape or option.
    """
    if dtype not in DTYPES:
        raise CallableError(f"dtype must be float64 or float32, got {dtype!r}")
    if tol is None:
        tol = default_tol(dtype)
    _check_options(method, tol, trials, seed)
    if expect not in EXPECT:
        raise CallableError(f"expect must be equivariant or invariant, got {expect!r}")
    dims = parse_input_shape(shape) if shape is not None else None
    g = _as_group(group, n=dims[0] if dims else None)
    if dims is None:
        dims = (g.n, 1)
    if dims[0] != g.n:
        raise CallableError(f"the input's first axis (shape, --input-shape) has {dims[0]} points but the group "
                            f"acts on n = {g.n}")
    A = None
    if adjacency is not None:
        A = _graph_array(adjacency)
        if A.shape[0] != g.n:
            raise CallableError(f"adjacency is {A.shape[0]} x {A.shape[0]} but the group acts on n = {g.n}")
    label = name or callable_name(f)
    f = build_callable(f, label)
    layer = CallableLayer(f, dims, expect=expect, dtype=dtype, adjacency=A, label=label)
    options = Options(method=method, tol=float(tol), trials=trials, seed=seed)
    return verify_layer(layer, g, expect=expect, channels=layer.in_channels, options=options, input=label,
                        kind="torch.nn.Module" if layer.is_torch else "callable", name=None)


def verify_target(target: str, group_options: GroupOptions, input_shape, *, expect: str | None = None,
                  dtype: str | None = None, method: str = "auto", tol: float | None = None, trials: int = 8,
                  seed: int | None = None, folder: str | None = None) -> VerifyResult:
    """``gdlcheck verify --callable module:attr --input-shape NxD``: import, build and verify.

    ``module`` is imported from ``folder`` (default: the current folder) or the installed
    packages; ``n`` of the group defaults to the input's first axis.

    Raises
    ------
    CallableError
        for a missing ``--input-shape``, a module or attribute that is not there, or user code
        that raises (the message names the exception); GroupError for the group.
    """
    from gdlcheck.callable import load_callable

    if input_shape is None:
        raise CallableError("--callable needs --input-shape NxD (N points by D channels, e.g. 6x2)", file=target)
    dims = parse_input_shape(input_shape)
    if not group_options.given:
        raise GroupError("--callable needs a group: give --group NAME (e.g. --group symmetric)", file=target)
    g = group_options.build(n_default=dims[0])
    f = load_callable(target, folder)
    return verify_callable(f, g, shape=dims, expect=expect or "equivariant", trials=trials, tol=tol,
                           seed=seed or 0, dtype=dtype or "float64", method=method, name=target)
