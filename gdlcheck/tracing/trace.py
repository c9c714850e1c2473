"""Prove a torch module by reading its computation: trace it, then follow the group's action.

* **Trace** with ``torch.fx.symbolic_trace``: it keeps the module's own structure (the calls
  of ``torch.nn`` modules stay calls, so ``MultiheadAttention`` or ``TransformerEncoderLayer``
  are units the texts' theorems cover) and needs no example input.  ``torch.export`` would
  decompose everything into aten operations and needs inputs that run; fx is what fits rules
  written for layers.  A module fx cannot follow (data-dependent control flow) is not proven,
  with the first untraceable call in the note, and the numeric check decides.
* **Shapes** come from fake tensors (``FakeTensorProp``): no entry is computed, so the proof
  costs the same for 6 points and for 4096, apart from the side conditions on parameters
  that have a point axis, which are checked on their values.
* **Follow** each value's :class:`~gdlcheck.tracing.flow.Flow` through the graph with the
  rules of :mod:`~gdlcheck.tracing.functions` and :mod:`~gdlcheck.tracing.units`; an
  operation without a rule makes the result "not proven at <node>", never "holds".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gdlcheck.layers.rules import Condition, Proof, Step, Stop, generator_text
from gdlcheck.tracing import functions, units
from gdlcheck.tracing.flow import STATIC, UNKNOWN, Flow, normal


@dataclass
class Expected:
    """How one output of the module should move: ``points`` on ``axes``, ``pairs`` (two axes),
    ``invariant``, or ``ignored``."""

    kind: str
    axes: tuple[int, ...] = ()


def trace_proof(module, group, inputs: list[tuple[Flow, object]], outputs, kwargs: dict | None = None) -> Proof:
    """Prove ``module`` against ``group``.

    Parameters
    ----------
    module : a ``torch.nn.Module`` (in eval mode, on a float dtype).
    group : the :class:`~gdlcheck.groups.PermGroup`; its points are the points axes of the inputs.
    inputs : per positional argument, its flow and an example (a tensor, or its shape as a tuple,
        for the fake shapes).
    outputs : an :class:`Expected`, or a tuple / list / dict of them as the module returns.
    kwargs : keyword arguments passed as constants (unchanged by the group).
    """
    gens = group.gen_arrays()
    names = [generator_text(s) for s in gens]
    steps: list[Step] = []
    top = Step(type(module).__name__, type(module).__name__, "traced", None, [], 0)
    steps.append(top)
    hooked = units.global_hooks() or units.hooked(module)
    if hooked:   # code that runs around the traced forward, which the graph does not show
        return _untraceable(steps, names, hooked, "not_traced")
    try:
        gm = _graph_module(module, len(inputs), kwargs or {})
    except Exception as err:  # fx raises many kinds: every one means "cannot follow this code"
        return _untraceable(steps, names, err)
    ctx = _Context(gm, module, group, gens, names, steps)
    try:
        ctx.propagate_shapes([example for _, example in inputs])
    except Exception as err:  # the fake pass runs the module's code: anything it raises stops here
        return _untraceable(steps, names, err)
    try:
        result = ctx.walk([flow for flow, _ in inputs])
        return ctx.conclude(result, outputs)
    except Exception as err:  # a bug in a rule is never a crash of the check and never "holds"
        steps[0].rule = None
        stop = Stop(Step("walk", f"rule_error: {_first_line(err)}", None, None, [], 1), None, "no_op_rule")
        return Proof(steps + [stop.step], dict.fromkeys(names, False), dict.fromkeys(names, stop), "trace")


def _untraceable(steps: list[Step], names: list[str], err: Exception | str, reason: str = "untraceable") -> Proof:
    steps[0].rule = None
    what = err if isinstance(err, str) else _first_line(err)
    stop = Stop(Step(what, reason, None, None, [], 1), None, reason)
    return Proof(steps + [stop.step], dict.fromkeys(names, False), dict.fromkeys(names, stop), "trace")


def _graph_module(module, count: int, kwargs: dict):
    """The module as an fx graph: traced, or, for a ``torch.nn`` module itself, one call of it
    (a unit the rules know, which fx would otherwise trace into)."""
    import torch.fx

    if torch.fx.Tracer().is_leaf_module(module, ""):
        graph = torch.fx.Graph()
        name = type(module).__name__
        args = tuple(graph.placeholder(f"input_{k}") for k in range(count))
        graph.output(graph.call_module(name, args, dict(kwargs)))
        root = torch.nn.Module()
        root.add_module(name, module)
        return torch.fx.GraphModule(root, graph)
    tracer = _tracer()
    with _no_random_draws():
        graph = tracer.trace(module, concrete_args=kwargs or None)
    return torch.fx.GraphModule(tracer.root, graph, type(module).__name__)


def _no_random_draws():
    """A dispatch mode that refuses random draws while fx traces: a value computed from no traced
    input (``F.gumbel_softmax(self.buffer)``, ``torch.randn(3)``) runs during the trace, and fx
    keeps its one draw as a constant of the graph, although every call of the module draws anew."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if torch.Tag.nondeterministic_seeded in func.tags:
                raise RuntimeError(f"a random draw ({func}) while tracing: the graph would keep one draw as a constant")
            return func(*args, **(kwargs or {}))

    return Mode()


def _tracer():
    """fx's tracer, with two changes: ``x += y`` on a traced tensor is recorded as ``operator.iadd``,
    and ``y.data = v`` on one raises (the trace stops: not proven).

    fx's proxies have no ``__iadd__``, so Python falls back to ``x = x + y``: the graph then says
    a new value while the module writes into ``x`` (and every alias of it sees the write).  A
    recorded in-place operation is one the walk refuses, so the proof stops instead of following
    a graph that is not what the module computes.
    """
    import operator

    import torch.fx

    class Guarded:
        own = ("tracer", "node")   # what fx sets on its own proxies

        def __setattr__(self, name, value):
            # y.data = v would only set an attribute of the proxy: the graph would not see the write
            if name not in self.own and not name.startswith("_"):
                raise RuntimeError(f"a write of the attribute {name!r} of a traced value: the graph cannot show it")
            super().__setattr__(name, value)

    class InplaceProxy(Guarded, torch.fx.Proxy):
        def __getattr__(self, name):
            return InplaceAttribute(self, name)   # y.T, y.data: guarded alike (t = y.T; t += 1 writes y)

    class InplaceAttribute(Guarded, torch.fx.proxy.Attribute):
        own = ("tracer", "root", "attr")

    def augmented(op):
        def method(self, other):
            return self.tracer.create_proxy("call_function", op, (self, other), {})
        return method

    for name in functions.INPLACE_OPERATORS:
        setattr(Guarded, f"__{name}__", augmented(getattr(operator, name)))

    class Tracer(torch.fx.Tracer):
        def proxy(self, node):
            return InplaceProxy(node, self)

    return Tracer()


def _number(entry) -> str:
    value = entry.item()
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:160]}" if text else type(err).__name__


class _Context:
    """The state of one walk: the graph, the flows found so far, and the proof being written."""

    def __init__(self, gm, module, group, gens, names, steps):
        self.gm, self.module, self.group = gm, module, group
        self.gens, self.names, self.steps = gens, names, steps
        self.flows: dict = {}
        self.stops: dict[str, Stop] = {}
        self._constants: dict = {}
        self._checked: dict = {}
        self.everywhere: set[str] = set()   # generators stopped wherever their output comes from

    # ----------------------------------------------------------------- shapes and values

    def propagate_shapes(self, examples) -> None:
        import torch
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.passes.fake_tensor_prop import FakeTensorProp

        mode = FakeTensorMode(allow_non_fake_inputs=True)
        fakes = []
        placeholders = [node for node in self.gm.graph.nodes if node.op == "placeholder"]
        for k, example in enumerate(examples):
            if isinstance(example, np.ndarray):
                example = torch.as_tensor(example)   # a stored unchanged value: the module gets a tensor
            if isinstance(example, tuple):
                fakes.append(mode.from_tensor(torch.empty(example, dtype=self._dtype())))
            elif isinstance(example, torch.Tensor):
                fakes.append(mode.from_tensor(example))
                if k < len(placeholders):
                    self._constants[placeholders[k]] = example   # its value, for a rule that checks it
            else:
                fakes.append(example)
        with torch.no_grad():
            FakeTensorProp(self.gm, mode).propagate(*fakes)

    def _dtype(self):
        import torch

        for p in self.module.parameters():
            return p.dtype
        return torch.float64

    def value_meta(self, node):
        return node.meta.get("val") if hasattr(node, "meta") else node

    def is_tensor(self, arg) -> bool:
        import torch

        return isinstance(self.value_meta(arg), torch.Tensor)

    def shape(self, arg) -> tuple[int, ...]:
        value = self.value_meta(arg)
        return tuple(int(d) for d in value.shape)

    def flow_of(self, arg):
        import torch.fx

        if isinstance(arg, torch.fx.Node):
            return self.flows.get(arg, UNKNOWN)
        if isinstance(arg, (list, tuple)):
            flows = [self.flow_of(a) for a in arg]
            return STATIC if all(_constant(f) for f in flows) else tuple(flows)
        if isinstance(arg, dict):
            return self.flow_of(tuple(arg.values()))
        if isinstance(arg, slice):
            return self.flow_of((arg.start, arg.stop, arg.step))
        return STATIC

    def concrete(self, arg):
        """The value of a constant node (parameters, buffers, masks built from shapes)."""
        import torch
        import torch.fx

        if isinstance(arg, (list, tuple)):
            return type(arg)(self.concrete(a) for a in arg)
        if isinstance(arg, dict):
            return {k: self.concrete(v) for k, v in arg.items()}
        if isinstance(arg, slice):
            return slice(self.concrete(arg.start), self.concrete(arg.stop), self.concrete(arg.step))
        if not isinstance(arg, torch.fx.Node):
            return arg
        if arg in self._constants:
            return self._constants[arg]
        meta = self.value_meta(arg)
        if not isinstance(meta, torch.Tensor) and arg.op != "get_attr":
            value = meta          # a size, a shape, a dtype: known from the fake pass
        elif arg.op == "get_attr":
            value = _attribute(self.gm, arg.target)
        else:
            args, kwargs = self.concrete(arg.args), self.concrete(arg.kwargs)
            with torch.no_grad():
                if arg.op == "call_function":
                    value = arg.target(*args, **kwargs)
                elif arg.op == "call_method":
                    value = getattr(args[0], arg.target)(*args[1:], **kwargs)
                else:
                    value = self.gm.get_submodule(arg.target)(*args, **kwargs)
        self._constants[arg] = value
        return value

    # ----------------------------------------------------------------- what rules ask for

    def fixed_constant(self, node, const, axes: tuple[int, ...], what: str | None = None) -> frozenset:
        """Check that the constant ``const`` is fixed by every generator moving its ``axes``
        together (``P E = E`` along one axis, ``P M P^T = M`` along two), bit for bit; returns
        the generators that break it, and writes the step."""
        import torch

        key = (const, axes)
        if key in self._checked:
            return self._checked[key]
        source, label = self._source(const)
        what = what or ("constant_rows" if len(axes) == 1 else "constant_pairs")
        try:
            value = torch.as_tensor(self.concrete(const))
        except Exception:  # the constant's own code raised on its values: its value is not known
            self.no_rule(const, "the value of this constant")
            self._checked[key] = frozenset(self.names)
            return self._checked[key]
        # a size-1 axis broadcasts: every permutation fixes it; any other size must be one per point
        if any(not -value.dim() <= a < value.dim() for a in axes) or len({a % value.dim() for a in axes}) != len(axes):
            self.no_rule(const, "a constant whose point axes are not distinct axes of it")
            self._checked[key] = frozenset(self.names)
            return self._checked[key]
        axes = tuple(a % value.dim() for a in axes if value.shape[a] != 1)
        if any(value.shape[a] != self.group.n for a in axes):
            self.no_rule(const, "a constant laid along the points with another size")
            self._checked[key] = frozenset(self.names)
            return self._checked[key]
        if not axes:
            self._checked[key] = frozenset()
            return self._checked[key]
        if len(axes) == 1 and what in ("mask", "constant_pairs"):
            what = "constant_rows"   # a mask broadcast along one of its two axes: P m = m on the other
        conditions = []
        for g, s in zip(self.names, self.gens):
            index = torch.as_tensor(np.asarray(s), dtype=torch.long)
            moved = value
            for a in axes:
                moved = moved.index_select(a, index)
            differs = moved != value
            entry = image = values = ()
            if bool(differs.any()):
                where = [int(i) for i in torch.nonzero(differs)[0]]
                entry = tuple(where[a] for a in axes)
                image = tuple(int(s[k]) for k in entry)
                at = list(where)
                for a, k in zip(axes, image):
                    at[a] = k
                values = (_number(value[tuple(where)]), _number(value[tuple(at)]))
            conditions.append(Condition(what, g, not entry, str(label), entry, image, values))
        step = Step(node.name, source, "constant", None, conditions, 1)
        self.steps.append(step)
        broken = frozenset(c.generator for c in conditions if not c.holds)
        for c in conditions:
            if not c.holds:
                self.stops.setdefault(c.generator, Stop(step, c))
        self._checked[key] = broken
        return broken

    def _source(self, const) -> tuple[str, str]:
        """What a constant is and its name: a parameter or buffer by its qualified name, a value
        computed from one (``self.table[: x.shape[1]]``) by that one's name, else its node."""
        import torch

        roots, seen, todo = [], set(), [const]
        while todo:
            node = todo.pop()
            if node in seen or not hasattr(node, "op"):
                continue
            seen.add(node)
            if node.op == "get_attr":
                roots.append(node)
            else:
                todo.extend(n for n in node.all_input_nodes if self.flows.get(n, STATIC).const)
        if len(roots) != 1:
            return "constant", getattr(const, "name", "constant")
        value = _attribute(self.gm, roots[0].target)
        parameters = dict(self.gm.named_parameters())
        kind = "parameter" if roots[0].target in parameters else (
            "buffer" if isinstance(value, torch.Tensor) else "constant")
        return kind, roots[0].target

    def aligned(self, node, arg, axes: tuple[int, ...], what: str) -> frozenset | None:
        """An operand that must move on exactly ``axes`` (a mask beside the scores): a value that
        does is fine, a constant must be fixed there; None when neither (no rule)."""
        flow = self.flow_of(arg)
        if not isinstance(flow, Flow) or not flow.known:
            return None
        if flow.const:
            return self.fixed_constant(node, arg, axes, what) if axes else flow.broken
        return flow.broken if set(flow.axes) == set(axes) else None

    def causal(self, node) -> list[Condition]:
        return units.causal_condition(self.names, self.gens)

    def unit(self, node, module, rule: str, conditions=()) -> None:
        theorem = {"theorem4": "Theorem 4", "encoder": "Theorem 4", "theorem1": "Theorem 1"}.get(rule)
        step = Step(str(node.target), type(module).__name__, rule, theorem, list(conditions), 1)
        self.steps.append(step)
        for c in conditions:
            if not c.holds:
                self.stops.setdefault(c.generator, Stop(step, c))

    def pooling(self, node, name: str) -> None:
        self.steps.append(Step(node.name, name, "pooling", None, [], 1))

    def contraction(self, node) -> None:
        self.steps.append(Step(node.name, "matmul", "contraction", "Theorem 4", [], 1))

    def no_rule(self, node, what: str) -> None:
        step = Step(node.name, what, None, None, [], 1)
        self.steps.append(step)
        for g in self.names:
            self.stops.setdefault(g, Stop(step, None, "no_op_rule"))

    def einsum(self, node, args):
        """``einsum``: a letter that moves in one operand moves in every operand that has it (a
        constant there must be fixed); the result moves on its moving letters."""
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
        if "->" not in equation or "." in equation:
            return UNKNOWN
        ins, out = equation.replace(" ", "").split("->")
        ins = ins.split(",")
        flows = [self.flow_of(o) for o in operands]
        if any(not f.known for f in flows):
            return UNKNOWN
        moving = {spec[a] for spec, f in zip(ins, flows) for a in f.axes}
        broken = frozenset().union(*(f.broken for f in flows))
        for spec, f, operand in zip(ins, flows, operands):
            missing = tuple(i for i, letter in enumerate(spec) if letter in moving and i not in f.axes)
            if missing:
                if not f.const:
                    return UNKNOWN
                broken |= self.fixed_constant(node, operand, missing)
        if moving - set(out):
            self.contraction(node)
        return Flow(tuple(i for i, letter in enumerate(out) if letter in moving), broken=broken)

    def attention_function(self, node, args, kwargs):
        """``scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)``: Theorem 4 on
        the axis of the tokens (the second from the end); keys and values move together."""
        names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal")
        given = dict(zip(names, args)) | kwargs
        q, k, v = (self.flow_of(given[x]) for x in names[:3])
        if any(not f.known for f in (q, k, v)) or given.get("dropout_p", 0.0):
            return None
        seq = {name: normal(-2, len(self.shape(given[name]))) for name in names[:3]}
        if any(set(f.axes) - {seq[x]} for f, x in zip((q, k, v), names)) or bool(k.axes) != bool(v.axes):
            return None
        broken = q.broken | k.broken | v.broken
        mask = given.get("attn_mask")
        if mask is not None and self.is_tensor(mask):
            ndim = len(self.shape(mask))
            # the mask broadcasts against (..., L, S) from the right: a 1-D mask lies on the keys only
            axes = tuple(a for a, m in ((ndim - 2, bool(q.axes)), (ndim - 1, bool(k.axes))) if m and a >= 0)
            fixed = self.aligned(node, mask, axes, "mask")
            if fixed is None:
                return None
            broken |= fixed
        conditions = self.causal(node) if given.get("is_causal") else []
        self.steps.append(Step(node.name, "scaled_dot_product_attention", "theorem4", "Theorem 4", conditions, 1))
        # the queries' axis as the result's (batch axes broadcast: the result may have more)
        axes = (len(self.shape(node)) - 2,) if q.axes else ()
        return Flow(axes, broken=broken | {c.generator for c in conditions if not c.holds})

    # ----------------------------------------------------------------- the walk

    def walk(self, input_flows: list[Flow]):
        self._writes()
        placeholders = iter(input_flows)
        result = None
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.flows[node] = next(placeholders, STATIC)
            elif node.op == "get_attr":
                self.flows[node] = Flow((), const=True)
            elif node.op == "output":
                result = self.flow_of(node.args[0])
                self.output = self._values(node.args[0])
            else:
                self.flows[node] = self._call(node)
        return result

    def _writes(self) -> None:
        """Every in-place write anywhere in the graph, used or not, stops every generator: the
        walk follows values, and a write changes a value (and its aliases) after the fact.  So does
        a call of a hooked module: its hooks run code the graph does not show."""
        for node in self.gm.graph.nodes:
            if node.op not in ("call_function", "call_method", "call_module"):
                continue
            try:
                module = self.gm.get_submodule(node.target) if node.op == "call_module" else None
                hooked = module is not None and units.hooked(module, inside=True)
                what = hooked or functions.writes(self, node, module)
            except Exception as err:  # a call it cannot read may write: as if it did
                what = f"rule_error: {_first_line(err)}"
            if what is not None:
                self.no_rule(node, what)
                self.everywhere |= set(self.names)

    def _call(self, node):
        args, kwargs = list(node.args), dict(node.kwargs)
        inputs = [self.flow_of(a) for a in args] + [self.flow_of(v) for v in kwargs.values()]
        known = all(not isinstance(f, Flow) or f.known for f in inputs)
        what = node.name
        try:
            if node.op == "call_module":
                module = self.gm.get_submodule(node.target)
                what = type(module).__name__
                flow = units.apply(self, node, module, args, kwargs) if known else UNKNOWN
            else:
                name = functions.name_of(node)
                what = name
                flow = functions.apply(self, node, name, args, kwargs) if known else UNKNOWN
            fits = flow is not None and self._fits(node, flow)
        except Exception as err:  # a rule that fails on a call it did not foresee: no rule there
            self.no_rule(node, f"{what} (rule_error: {_first_line(err)})")
            return UNKNOWN
        if not fits:
            self.no_rule(node, what)
            return UNKNOWN
        if known and isinstance(flow, Flow) and not flow.known:
            self.no_rule(node, what)
        return flow

    def _fits(self, node, flow) -> bool:
        """A guard on every rule: each point axis a rule names is an axis of the value with one
        entry per point.  A rule that names another is wrong there, so the value is not known."""
        value = self.value_meta(node)
        if isinstance(flow, tuple):
            values = value if isinstance(value, (tuple, list)) and len(value) == len(flow) else None
            # a None in the tuple (attention weights with need_weights=False) has no entries to move
            return values is not None and all(
                not isinstance(f, Flow) or v is None or self._fits_value(v, f) for v, f in zip(values, flow))
        return self._fits_value(value, flow)

    def _fits_value(self, value, flow: Flow) -> bool:
        import torch

        if not flow.known or not flow.axes:
            return True
        if not isinstance(value, torch.Tensor):
            return False
        shape = value.shape
        return all(0 <= a < len(shape) and int(shape[a]) == self.group.n for a in flow.axes)

    def _values(self, arg):
        """The fake values of the output's structure (a node may itself hold a tuple)."""
        import torch.fx

        if isinstance(arg, torch.fx.Node):
            return self.value_meta(arg)
        if isinstance(arg, (tuple, list)):
            return type(arg)(self._values(a) for a in arg)
        if isinstance(arg, dict):
            return {k: self._values(v) for k, v in arg.items()}
        return arg

    def _axes_of(self, value, axes) -> tuple[int, ...] | None:
        """The expected point axes, non-negative against the output's number of axes (None when
        the output is not a tensor: it cannot move as asked)."""
        import torch

        if not isinstance(value, torch.Tensor):
            return None
        ndim = value.dim()
        if any(not -ndim <= a < ndim for a in axes):
            return None
        return tuple(sorted(a % ndim for a in axes))

    def conclude(self, result, outputs) -> Proof:
        """Each compared output's flow against how it should move."""
        ok = {g: g not in self.everywhere for g in self.names}
        for flow, expected, arg in _pairs(result, outputs, getattr(self, "output", None)):
            if expected.kind == "ignored":
                continue
            want = () if expected.kind == "invariant" else self._axes_of(arg, expected.axes)
            if not isinstance(flow, Flow) or not flow.known or flow.axes != want:
                if isinstance(flow, Flow) and flow.known:
                    moves = f"point axes {list(flow.axes)}" if flow.axes else "no point axis"
                    asked = f"{expected.kind} on axes {list(want)}" if want else expected.kind
                    step = Step(f"the output has {moves}, the check expects {asked}",
                                "output", None, None, [], 0)
                    for g in self.names:
                        self.stops.setdefault(g, Stop(step, None, "output_moves_otherwise"))
                for g in self.names:
                    ok[g] = False
                continue
            for g in flow.broken:
                ok[g] = False
        self.steps[0].rule = "traced" if all(ok.values()) else self.steps[0].rule
        return Proof(self.steps, ok, {g: s for g, s in self.stops.items() if not ok[g]}, "trace")


def _pairs(result, outputs, arg):
    """(flow, expected, output value) for each compared output, walking tuples, lists and dicts
    alike (the value is the output's fake tensor: its shape)."""
    if isinstance(outputs, Expected):
        yield result, outputs, arg
        return
    if isinstance(outputs, dict):
        for key, expected in outputs.items():
            flow = result.get(key, UNKNOWN) if isinstance(result, dict) else UNKNOWN
            yield from _pairs(flow, expected, arg.get(key) if isinstance(arg, dict) else None)
        return
    flows = result if isinstance(result, (tuple, list)) else ()
    args = arg if isinstance(arg, (tuple, list)) else ()
    for k, expected in enumerate(outputs):
        yield from _pairs(flows[k] if k < len(flows) else UNKNOWN, expected, args[k] if k < len(args) else None)


def _constant(flow) -> bool:
    """A flow, or a tuple of them at any depth (a split node's pieces), that is constant throughout."""
    if isinstance(flow, Flow):
        return flow.const
    return isinstance(flow, tuple) and all(_constant(f) for f in flow)


def _attribute(gm, target: str):
    obj = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj.detach() if hasattr(obj, "detach") else obj
