"""Equivariance measured layer by layer on the user's data (``gdlcheck measure``).

For a torch module that is not exactly equivariant (a trained model), for each submodule ``m``
and each group element ``g`` (the generators and seeded random elements):

* its **error**: ``|m(g)(x) - g . m(x)| / |g . m(x)|``, where ``m(x)`` is ``m``'s output when the
  model runs on the batch ``x`` and ``m(g)(x)`` its output when the model runs on ``g . x``
  (Frobenius norms over the whole batch): how far from equivariant the model is by that layer;
* its **own contribution**: ``|m(g . u) - g . m(u)| / |g . m(u)|`` with ``u`` the input ``m`` got
  in the run on ``x``: the error the layer adds when its input is made exactly equivariant.
  A layer that keeps the symmetry contributes 0 however broken its input is; the layer that
  breaks it contributes its own share.

This is the layer-wise decomposition of Gruver et al. ("The Lie derivative for measuring
learned equivariance", ICLR 2023) for finite groups: they differentiate along a one-parameter
group (the Lie derivative) and the layer contributions add up to the whole by the chain rule;
here the group elements are finite permutations, nothing is differentiated, and the
contributions are the errors each layer makes on its own, which need not add up to the model's.

How ``g`` acts on a value inside the model: a tensor of the data's rank whose axis
``points_axis`` has the ``n`` points (and, past axis 0, the data's batch size) moves along that
axis; any other tensor (pooled, reshaped) is taken as invariant and compared as it is.  A graph
given with the data moves with the nodes (the model is called ``model(x, graph)``): an
``edge_index`` ``(2, E)`` is relabelled (node ``i`` becomes ``g(i)``; a sorted edge list stays
sorted, :func:`gdlcheck.code.graphs.relabel`), so an integer ``(2, E)`` value is relabelled and a
value with ``E`` rows follows its edges; a dense ``(n, n)`` adjacency becomes ``P A P^T``, and so
does every ``(n, n)`` value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.code.running import prepare_module
from gdlcheck.errors import CallableError
from gdlcheck.groups import PermGroup
from gdlcheck.shown import Shown, presenter_of

MAX_ELEMENTS = 256  # group elements one measurement may apply
MAX_SUBMODULES = 10_000  # submodules followed by hooks
# A relative error at or under this is float64 rounding, not a broken symmetry: the model runs in
# float64, and the reorderings a moved input causes (a sum over permuted rows, a BLAS kernel's
# blocking) change the last few bits of each output, about 1e-16 relative, more over long sums.
ROUNDING = 1e-12


@dataclass
class LayerMeasure:
    """One submodule: its qualified ``path`` (``""`` is the whole model), ``kind`` (its class),
    ``depth`` (dots in the path plus one; 0 for the model), ``order`` (its place in the first
    run), how its output ``moves`` (``points`` or ``invariant``), and per group element its
    ``errors`` and ``own`` contributions (None where its input could not be moved)."""

    path: str
    kind: str
    depth: int
    order: int
    moves: str
    errors: list[float] = field(default_factory=list)
    own: list[float | None] = field(default_factory=list)
    is_leaf: bool = True

    @property
    def error(self) -> float:
        return max(self.errors, default=0.0)

    @property
    def own_contribution(self) -> float | None:
        values = [v for v in self.own if v is not None]
        return max(values) if values else None


@dataclass
class Measured(Shown):
    """What :func:`gdlcheck.measure` returns: per submodule, in the order the model runs them,
    the equivariance error of its output and its own contribution, over ``elements`` (group
    elements in cycle notation, with ``kinds``: ``generator`` or ``random``).

    ``largest`` is the leaf submodule whose own contribution is largest (where the symmetry
    breaks), or None where every contribution is float64 rounding (at most ``ROUNDING``);
    ``to_json()`` is ``gdlcheck measure --format json``, ``report()`` the text table, ``plot()``
    the error by depth."""

    input: str
    data: str
    data_shape: tuple[int, ...]
    points_axis: int
    group: PermGroup
    elements: list[str]
    kinds: list[str]
    layers: list[LayerMeasure]
    graph: str | None = None  # the graph given with the data (its label), moved with the nodes

    @property
    def model(self) -> LayerMeasure:
        return next(m for m in self.layers if not m.path)  # the whole model's path is empty

    @property
    def largest(self) -> LayerMeasure | None:
        leaves = [m for m in self.layers if m.is_leaf and m.path and (m.own_contribution or 0) > ROUNDING]
        return max(leaves, key=lambda m: m.own_contribution or 0.0, default=None)  # each one's is past ROUNDING

    def plot(self):
        """The error and own contribution of each submodule by its place in the run, as a
        matplotlib ``Figure`` (``.savefig(path)`` writes it)."""
        return presenter_of(self).figure(self)

    def __repr__(self) -> str:
        largest = self.largest
        tail = f", largest own contribution {largest.path} {largest.own_contribution:.3g}" if largest else ""
        return f"<Measured {self.input}: error {self.model.error:.3g} over {len(self.elements)} elements{tail}>"


def moved(torch, value, p: np.ndarray, axis: int):
    """``value`` with the entry at ``j`` of ``axis`` moved to ``p[j]`` (the convention of
    docs/design.md section 1: ``P[p[j], j] = 1``)."""
    inverse = torch.as_tensor(np.argsort(p), dtype=torch.long, device=value.device)
    return value.index_select(axis, inverse)


class _Acting:
    """``g . value`` for one group element ``p``: the points on ``axis`` where a value has them
    (``fits``), and the graph's edges and labels where a graph is given (see the module)."""

    def __init__(self, torch, p: np.ndarray, axis: int, fits, graph=None):
        self.torch, self.p, self.axis, self.fits = torch, p, axis, fits
        self.edges, self.labels, self.order, self.dense = None, None, None, False
        if graph is not None and not graph.is_floating_point():  # an edge_index: relabelled
            from gdlcheck.code.graphs import relabel

            _, order = relabel(p, graph.numpy(), len(p))
            self.edges = int(graph.shape[1])
            self.labels = torch.as_tensor(np.asarray(p, dtype=np.int64))
            self.order = None if order is None else torch.as_tensor(order, dtype=torch.long)
        self.dense = graph is not None and graph.is_floating_point()

    def __call__(self, value):
        torch = self.torch
        if not isinstance(value, torch.Tensor):
            return value
        if (
            self.labels is not None
            and value.dim() == 2
            and tuple(value.shape) == (2, self.edges)
            and not value.is_floating_point()
            and value.dtype != torch.bool
        ):
            out = self.labels[value]
            return out if self.order is None else out[:, self.order]
        n = len(self.p)
        if self.dense and value.dim() == 2 and tuple(value.shape) == (n, n):
            return moved(torch, moved(torch, value, self.p, 0), self.p, 1)
        if self.fits(value):
            return moved(torch, value, self.p, self.axis)
        if self.order is not None and value.dim() >= 1 and value.shape[0] == self.edges:
            return value[self.order]  # an edge value: the moved run has edge order[k] in place k
        return value


def measure_layers(
    module,
    group: PermGroup,
    x,
    points_axis: int,
    elements: list[np.ndarray],
    label: str,
    data_label: str,
    names: list[str],
    kinds: list[str],
    progress=None,
    graph=None,
    graph_label: str | None = None,
) -> Measured:
    """Measure ``module`` (a torch module) on the batch ``x`` (a float64 tensor whose
    ``points_axis`` holds the group's points) under each permutation of ``elements``; with
    ``graph`` (an int64 ``edge_index`` ``(2, E)`` or a float64 ``(n, n)`` adjacency) the model is
    called ``model(x, graph)`` and the graph moves with the nodes."""
    import torch

    try:  # the copy that runs, as verify's (float64, eval mode): the user's module is unchanged
        model = prepare_module(module, "float64")
    except CallableError as err:
        raise err.located(file=label) from None
    extra = () if graph is None else (graph,)
    named = list(model.named_modules())
    if len(named) > MAX_SUBMODULES:
        raise CallableError(f"the model has {len(named)} submodules, over the limit of {MAX_SUBMODULES}")
    n = group.n
    layers: dict[str, LayerMeasure] = {}
    calls: dict[str, tuple] = {}
    recording = [True]  # off while a layer is re-run alone for its own contribution

    def fits(t) -> bool:  # the data's rank, its batch, and the n points on the points axis (channels may change)
        return (
            isinstance(t, torch.Tensor)
            and t.dim() == x.dim()
            and t.shape[points_axis] == n
            and (points_axis == 0 or t.shape[0] == x.shape[0])
        )

    def hook_for(path, sub):
        def hook(mod, args, output):
            if path in calls or not recording[0]:  # a module called twice: its first call is measured
                return
            calls[path] = (args, output)
            if path not in layers:
                out = output if isinstance(output, torch.Tensor) else None
                layers[path] = LayerMeasure(
                    path,
                    type(sub).__name__,
                    0 if not path else path.count(".") + 1,
                    len(layers),
                    "points" if out is not None and fits(out) else "invariant",
                    is_leaf=not any(True for _ in sub.children()),
                )

        return hook

    started: dict[str, int] = {}  # the order in which the submodules start in the first run

    def pre_hook_for(path):
        def pre_hook(mod, args):
            started.setdefault(path, len(started))

        return pre_hook

    handles = [sub.register_forward_hook(hook_for(path, sub)) for path, sub in named]
    handles += [sub.register_forward_pre_hook(pre_hook_for(path)) for path, sub in named]
    try:
        with torch.no_grad():
            model(x, *extra)
            first = dict(calls)
            for path, layer in layers.items():
                layer.order = started.get(path, layer.order)
            for k, p in enumerate(elements):
                if progress is not None:
                    progress(f"element {k + 1} of {len(elements)}")
                calls.clear()
                recording[0] = True
                act = _Acting(torch, p, points_axis, fits, graph)
                model(act(x), *map(act, extra))
                recording[0] = False
                for path, (args, output) in first.items():
                    layer = layers[path]
                    got = calls.get(path, (None, None))[1]
                    layer.errors.append(_relative(torch, got, act(output)))
                    layer.own.append(_own(torch, named_module(model, path), args, output, act))
    except (RuntimeError, TypeError, ValueError, IndexError) as err:
        raise CallableError(
            f"the model raised {type(err).__name__} on the data: {str(err).splitlines()[0][:200]}", file=label
        ) from err
    finally:
        for handle in handles:
            handle.remove()
    ordered = sorted(layers.values(), key=lambda m: m.order)
    return Measured(label, data_label, tuple(x.shape), points_axis, group, names, kinds, ordered, graph_label)


def named_module(model, path: str):
    return model.get_submodule(path) if path else model


def _own(torch, sub, args, output, act: _Acting) -> float | None:
    """``|m(g . u) - g . m(u)| / |g . m(u)|`` for the call ``m(*args) = output``, its tensor
    arguments moved; None where the call has no tensor argument or the layer cannot be re-run."""
    if not isinstance(output, torch.Tensor) or not any(isinstance(a, torch.Tensor) for a in args):
        return None
    try:
        again = sub(*map(act, args))
    except Exception:  # a submodule that cannot be called alone (it needs keywords or state): no own share
        return None
    return _relative(torch, again, act(output))


def _relative(torch, got, target) -> float:
    """``|got - target| / |target|`` (Frobenius); inf where the shapes differ or a value is missing."""
    if not isinstance(got, torch.Tensor) or not isinstance(target, torch.Tensor) or got.shape != target.shape:
        return math.inf if isinstance(target, torch.Tensor) else 0.0
    diff = float(torch.linalg.vector_norm((got - target).to(torch.float64)))
    scale = float(torch.linalg.vector_norm(target.to(torch.float64)))
    if diff == 0:
        return 0.0
    return diff / scale if scale > 0 else math.inf


def group_elements(group: PermGroup, count: int, seed: int) -> tuple[list[np.ndarray], list[str]]:
    """The generators, then ``count`` seeded random elements (products of random generators, of a
    random length up to 4n: every element is in the group), as array forms with their kinds."""
    gens = group.gen_arrays()
    elements, kinds = list(gens), ["generator"] * len(gens)
    if not gens:
        return elements, kinds
    rng = np.random.default_rng(seed)
    for _ in range(count):
        p = np.arange(group.n)
        for k in rng.integers(0, len(gens), size=int(rng.integers(1, min(4 * group.n, 400) + 1))):
            p = gens[k][p]
        elements.append(p)
        kinds.append("random")
    if len(elements) > MAX_ELEMENTS:
        raise CallableError(f"{len(elements)} group elements, over the limit of {MAX_ELEMENTS}")
    return elements, kinds
