"""From an INPUT argument and the group options to a layer, a group and what to expect.

An input is a spec file (``.yaml``/``.yml``), a matrix file (``.npy .csv .tsv .txt .json``),
or ``-`` for standard input, told apart by content.  The group comes from the command line,
else from the spec's ``symmetry``; ``n`` is taken from the input where it can be.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from gdlcheck.code import graphs
from gdlcheck.errors import GdlcheckError, GroupError, SpecError, param, spell
from gdlcheck.groups import PermGroup, build_group, find_family
from gdlcheck.inputs.arrays import check_square
from gdlcheck.inputs.files import decode_text, read_bytes
from gdlcheck.inputs.graph_files import load_graph_file
from gdlcheck.inputs.matrices import SPEC_SUFFIXES, load_matrix
from gdlcheck.inputs.spec import Spec, is_spec_text, load_spec
from gdlcheck.layers import BuildContext, Layer, Linear, build_layer
from gdlcheck.layers.base import points_of
from gdlcheck.text import parse_shape


@dataclass
class GroupOptions:
    """The group as the command line gives it (all optional)."""

    name: str | None = None
    n: int | None = None
    shape: str | None = None
    generators: tuple[str, ...] = ()
    graph: str | None = None
    group: PermGroup | None = None  # a group already built (the Python API's group=)

    @property
    def given(self) -> bool:
        """Whether any group option was given (a name, generators, a graph or a group)."""
        return self.name is not None or bool(self.generators) or bool(self.graph) or self.group is not None

    def build(self, n_default: int | None = None) -> PermGroup:
        if self.group is not None:
            return self.group
        graph = group_graph(self.graph, self.n) if self.graph else None
        name = self.name
        if name is None and self.generators:
            name = "generators"
        if name is None and graph is not None:
            name = "automorphisms"
        if name is None:
            raise GroupError(f"no group: give {param('group', 'NAME')}")
        n = self.n if self.n is not None else (n_default if not self.shape and graph is None else None)
        return build_group(name, n=n, shape=self.shape, generators=list(self.generators) or None, graph=graph)


def group_graph(path: str, n: int | None = None):
    """``--graph FILE`` for a group: a dense adjacency as it is (its automorphisms keep the colour
    matrix that derive reads); a scipy.sparse ``.npz`` or a 2 x E edge list as scipy.sparse, never
    densified (``A[target, source]``, as the Python API takes them)."""
    A = load_graph_file(path)  # its size is checked against n by the group, after what it goes with
    if isinstance(A, np.ndarray) and A.dtype.kind == "f":
        return A
    # an edge list has n nodes when its labels fit (the last ones may have no edge), else as many as it names
    return graphs.to_sparse(A, n if n is not None and n >= graphs.nodes(A) else None)


@dataclass
class Job:
    """One input, ready to verify."""

    input: str
    layer: Layer
    group: PermGroup | None  # None: inspect of a layer whose spec names no group
    expect: str = "equivariant"
    channels: int = 1
    kind: str = "matrix"
    name: str | None = None
    seed: int | None = None
    spec: Spec | None = None


def read_input(path: str, stdin_data: bytes | None = None) -> Spec | np.ndarray:
    """What ``path`` holds: a ``Spec``, or a matrix (not yet checked to be square).

    ``-`` is standard input (``stdin_data`` if given), told apart by content: ``.npy``
    bytes, a YAML spec, or JSON/CSV/whitespace text.  Files go by their suffix.
    """
    if path == "-":
        data = stdin_data if stdin_data is not None else read_bytes("-")
        text = None if data.startswith(b"\x93NUMPY") else decode_text(data, "-")
        if text is not None and is_spec_text(text):
            return load_spec("-", text)
        return load_matrix("-", data)
    if os.path.splitext(path)[1].lower() in SPEC_SUFFIXES:
        return load_spec(path)
    return load_matrix(path)


def resolve(path: str, options: GroupOptions, stdin_data: bytes | None = None, allow: tuple[str, ...] = ()) -> Job:
    """Read ``path`` and decide the layer and the group.  Raises GdlcheckError with the file set.

    ``allow``: folders besides the spec's own that its ``{file: ...}`` weights may read.
    """
    try:
        source = read_input(path, stdin_data)
        if isinstance(source, Spec):
            source.allowed = tuple(allow)
            return _with_line(source, _from_spec, source, options)
        return matrix_job(path, source, options)
    except GdlcheckError as err:
        raise err.located(file=path) from None


def _with_line(spec: Spec, step, *args):
    """``step(*args)``, its error in ``spec`` given the YAML line of its key path."""
    try:
        return step(*args)
    except GdlcheckError as err:
        raise spec.locate(err) from None


def matrix_job(path: str, W: np.ndarray, options: GroupOptions) -> Job:
    """A bare matrix as the linear layer ``Y = W X``; it carries no symmetry, so ``options`` must name one."""
    check_square(W, file=path)
    if not options.given:
        raise SpecError(
            f"a bare matrix carries no symmetry: give {param('group', 'NAME')} (e.g. {param('group', value='cyclic')})",
            file=path,
        )
    group = options.build(n_default=W.shape[0])
    if group.n != W.shape[0]:
        raise SpecError(f"matrix is {W.shape[0]} x {W.shape[0]} but the group acts on n = {group.n} points", file=path)
    return Job(input=path, layer=Linear(W), group=group)


def _spec_group_options(spec: Spec, layer_graph: np.ndarray | None) -> tuple[dict, np.ndarray | None]:
    sym = dict(spec.symmetry or {})
    graph = sym.pop("graph", None)
    if graph is None:
        return sym, None
    if isinstance(graph, str) and graph in ("layer", "adjacency-of-layer"):
        if layer_graph is None:
            raise spec.error("graph: layer needs a layer with an adjacency matrix", "symmetry.graph")
        return sym, layer_graph
    ctx = BuildContext(spec=spec, n=None, path=spec.path)
    A = ctx.value(graph, "symmetry.graph")
    if A.dtype == object:
        raise spec.error("a graph's adjacency matrix must hold numbers", "symmetry.graph")
    check_square(A, file=spec.path, where="symmetry.graph")
    return sym, A


def _refuse_unused_size(spec: Spec, options: GroupOptions) -> None:
    """-n and --shape without a group size the spec's symmetry; where it is sized already, they would do nothing."""
    sym = spec.symmetry or {}
    if options.shape:
        raise SpecError(
            f"{param('shape', 'HxW')} sizes the group named with {param('group', 'NAME')}, and none was "
            "given; the spec's group takes its shape from symmetry: {shape: ...}",
            file=spec.path,
        )
    if options.n is None:
        return
    fixed = [key for key in ("n", "shape", "graph", "generators") if sym.get(key) is not None]
    if fixed and not (fixed == ["n"] and sym["n"] == options.n):
        value = sym["n"] if fixed[0] == "n" else "..."
        raise spec.error(
            f"{param('n', 'N')} does not apply: the spec's symmetry fixes the size ({fixed[0]}: {value}); "
            f"to check another size give {param('group', 'NAME')} as well",
            f"symmetry.{fixed[0]}",
        )


def _from_spec(spec: Spec, options: GroupOptions) -> Job:
    sym = spec.symmetry or {}
    cli_group = options.given
    if not cli_group:
        _refuse_unused_size(spec, options)
    if not cli_group and not sym:
        raise SpecError(f"no group: the spec has no 'symmetry' and no {param('group')} was given", file=spec.path)
    n_hint = options.n if options.n is not None else sym.get("n")
    if n_hint is None and not options.shape:
        if sym.get("shape") is not None:
            try:
                n_hint = int(np.prod(parse_shape(sym["shape"], error=GroupError)))
            except GroupError as err:
                raise spec.error(err.what, "symmetry.shape") from None
    if n_hint is not None and (isinstance(n_hint, bool) or not isinstance(n_hint, int) or n_hint < 1):
        raise spec.error(f"n must be a positive integer, got {n_hint!r}", "symmetry.n")
    channels = spec.channels or 1
    ctx = BuildContext(spec=spec, n=n_hint, channels=channels, seed=spec.seed, path=spec.path)
    layer = build_layer(spec.layer, ctx, spec.layer_key)
    n_layer = layer_points(layer)
    if cli_group:
        if (
            options.shape is None
            and options.n is None
            and sym.get("shape") is not None
            and options.name
            and find_family(options.name).is_grid
        ):
            # a grid group named on the command line takes the spec's grid, not a line of n points
            from dataclasses import replace

            options = replace(options, shape="x".join(map(str, parse_shape(sym["shape"], error=GroupError))))
        group = options.build(n_default=n_hint or n_layer)
    else:
        args, graph = _spec_group_options(spec, layer.graph())
        try:
            group = build_group(
                args.get("group"),
                n=args.get("n", None if graph is not None or args.get("shape") else n_layer),
                shape=args.get("shape"),
                generators=args.get("generators"),
                graph=graph,
            )
        except GroupError as err:
            # the spec's keys are spelled as the Python parameters (n, shape, graph), not as flags
            raise spec.error(spell(err.what), "symmetry") from None
    if n_layer is not None and n_layer != group.n:
        raise SpecError(f"the layer acts on {n_layer} points but the group on n = {group.n}", file=spec.path)
    if n_hint is None and n_layer is None:
        # the layer needed no size to be built; build it again now that n is known
        ctx.n = group.n
        ctx.restart()
        layer = build_layer(spec.layer, ctx, spec.layer_key)
    return _spec_job(spec, layer, group)


def _spec_job(spec: Spec, layer: Layer, group: PermGroup | None) -> Job:
    """The job of a spec's layer: its kind, and its channels (the spec's, else the layer's, else 1)."""
    in_channels = getattr(layer, "in_channels", None)
    if spec.channels is not None and in_channels is not None and in_channels != spec.channels:
        raise spec.error(f"channels is {spec.channels} but the layer reads {in_channels} channels", "channels")
    channels = spec.channels or in_channels or 1
    kind = spec.layer.get("kind", "sequential") if isinstance(spec.layer, dict) else "sequential"
    return Job(
        input=spec.path,
        layer=layer,
        group=group,
        expect=spec.expect,
        channels=channels,
        kind=str(kind),
        name=spec.name,
        seed=spec.seed,
        spec=spec,
    )


def layer_points(layer: Layer) -> int | None:
    """The number of points the layer is tied to (the columns of its linear form), if any."""
    points = points_of(layer)  # without composing a sequence's matrices (n^3 work)
    if points is not None:
        return points
    form = layer.linear_form()
    if form is not None:
        return int(form[0].shape[1])
    return None


def resolve_layer(path: str, n: int | None = None, stdin_data: bytes | None = None, allow: tuple[str, ...] = ()) -> Job:
    """Read ``path`` for ``inspect``: the layer and its size; the group is built only if the spec has one.

    ``n`` comes from ``n`` (the command line), the spec's symmetry, or the layer's weights.
    """
    try:
        source = read_input(path, stdin_data)
        if isinstance(source, Spec):
            source.allowed = tuple(allow)
            return _with_line(source, _layer_from_spec, source, n)
        check_square(source, file=path)
        return Job(input=path, layer=Linear(source), group=None)
    except GdlcheckError as err:
        raise err.located(file=path) from None


def _layer_from_spec(spec: Spec, n: int | None) -> Job:
    if spec.symmetry:
        return _from_spec(spec, GroupOptions(n=n))
    ctx = BuildContext(spec=spec, n=n, channels=spec.channels or 1, seed=spec.seed, path=spec.path)
    layer = build_layer(spec.layer, ctx, spec.layer_key)
    n_layer = layer_points(layer)
    if n is None and n_layer is None:
        raise SpecError("the number of points is not known: give symmetry: {group: ..., n: N} or -n N", file=spec.path)
    if n is not None and n_layer is not None and n != n_layer:
        raise SpecError(f"the layer acts on {n_layer} points, not n = {n}", file=spec.path)
    return _spec_job(spec, layer, None)
