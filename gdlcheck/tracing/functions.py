"""Rules for the functions and tensor methods a traced module calls.

Each rule maps the flows of the arguments (:class:`~gdlcheck.tracing.flow.Flow`) to the flow
of the result, from the texts' laws: elementwise maps keep the action; a sum, mean or max
over a point axis removes it (pooling: invariant); softmax over any axis and a contraction
of a point axis with a point axis (``Q K^T``, ``G V``) keep ``P . P^T``; reshapes and
transposes that keep the point axes whole move them; a constant (a parameter, a mask, a
table) that meets a point axis must be fixed by the generator (``P E = E``), checked exactly
on its values.  Anything else is "not proven at <node>", never "holds".
"""

from __future__ import annotations

import operator

from gdlcheck.tracing.flow import STATIC, UNKNOWN, Flow, broadcast, merge_broken, normal, reshape_axes

UNARY = {
    "relu", "relu6", "tanh", "sigmoid", "gelu", "silu", "softplus", "elu", "selu", "celu", "leaky_relu",
    "hardtanh", "mish", "softsign", "logsigmoid", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "abs", "neg",
    "square", "sin", "cos", "erf", "sign", "clamp", "clip", "reciprocal", "contiguous", "clone", "detach", "float",
    "double", "half", "cpu", "positive", "nan_to_num", "round", "floor", "ceil", "trunc",
    "frac", "exp2", "log2", "log10", "sinh", "cosh", "atan", "asin", "acos", "sgn", "logit", "hardswish",
    "hardsigmoid", "threshold", "requires_grad_", "zeros_like", "ones_like", "full_like",
}
# casts whose other arguments give only a dtype or a device: the result moves as the first
CASTS = {"to", "type", "type_as"}
DROPOUT = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"}
# random: never a rule, even on constants (two calls differ); unknown calls on constants are not
# evaluated either (only FOLDABLE ones are), so this list is a second guard, not the only one
RANDOM = {"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "bernoulli",
          "multinomial", "normal", "poisson", "binomial", "empty", "empty_like", "empty_strided", "new_empty",
          "new_empty_strided", "uniform_", "normal_", "bernoulli_", "exponential_", "random_", "cauchy_",
          "log_normal_", "geometric_", "native_dropout", "rrelu", "rrelu_", "gumbel_softmax", "standard_gamma",
          "sample_dirichlet", "fractional_max_pool2d", "fractional_max_pool3d"}
BINARY = {"add", "sub", "mul", "truediv", "div", "floordiv", "pow", "maximum", "minimum", "eq", "ne", "lt", "le",
          "gt", "ge", "and_", "or_", "xor", "iadd", "isub", "imul", "itruediv", "rsub", "remainder", "fmod", "atan2",
          "logical_and", "logical_or", "true_divide", "multiply", "subtract", "type_as", "masked_fill",
          "where"}
REDUCE = {"sum", "mean", "amax", "amin", "max", "min", "logsumexp", "prod", "std", "var", "norm", "all", "any",
          "nansum", "nanmean", "median"}
SOFTMAX = {"softmax", "log_softmax", "softmin"}
MATMUL = {"matmul", "mm", "bmm", "einsum", "linear"}
LAYOUT = {"transpose", "swapaxes", "swapdims", "permute", "t", "unsqueeze", "squeeze", "view", "reshape", "flatten",
          "unflatten", "expand", "expand_as", "view_as", "reshape_as", "movedim", "moveaxis"}
STATIC_CALLS = {"size", "dim", "numel", "len"}
SPLITS = {"chunk", "split", "unbind", "tensor_split"}
CONCATS = {"cat", "concat", "concatenate", "stack"}
# deterministic calls with no rule of their own, evaluated when every argument is a constant
CONSTANT = {"ones", "zeros", "full", "arange", "eye", "linspace", "logspace", "tensor", "as_tensor", "triu", "tril",
            "logical_not", "invert", "inv", "not_", "isfinite", "isinf", "isnan", "bool", "int", "long", "new_ones",
            "new_zeros", "new_full", "new_tensor", "outer", "cumsum", "cumprod", "flip", "roll", "repeat", "tile",
            "repeat_interleave", "diag", "diagonal", "diag_embed", "index_select", "gather", "triu_indices",
            "tril_indices", "sort", "argsort", "topk", "argmax", "argmin", "narrow", "select", "mod", "item", "pad",
            "one_hot", "bitwise_not", "kron", "cdist"}
NAMED = (UNARY | CASTS | DROPOUT | RANDOM | BINARY | REDUCE | SOFTMAX | MATMUL | LAYOUT | STATIC_CALLS | SPLITS
         | CONCATS | CONSTANT | {"getitem", "getattr", "layer_norm", "scaled_dot_product_attention"})
FOLDABLE = {name for name in NAMED - RANDOM if not name.endswith("_")}
# attributes of a tensor that say nothing about its entries
STATIC_ATTRIBUTES = {"shape", "ndim", "device", "dtype", "is_cuda", "requires_grad", "layout", "is_sparse"}


def name_of(node) -> str:
    """A canonical name for a call_function / call_method target (``torch.relu``, ``F.relu`` and
    ``x.relu()`` are all ``relu``; ``operator.add`` is ``add``).

    A method is named by itself (it dispatches on the tensor).  A function is named only when it
    *is* torch's, ``torch.nn.functional``'s, ``operator``'s or a tensor method (the object, not
    its name): a function of the user's that fx keeps as a call (``torch.fx.wrap``) and calls
    itself ``relu`` gets its module and name, which no rule has.
    """
    target = node.target
    if isinstance(target, str):
        return target
    known = _known_functions()
    try:
        if target in known:
            return known[target]
    except TypeError:   # an unhashable callable: not one of torch's
        pass
    module = getattr(target, "__module__", None) or "?"
    return f"{module}.{getattr(target, '__qualname__', getattr(target, '__name__', str(target)))}"


_KNOWN: dict = {}


def _known_functions() -> dict:
    """torch's functions under the names the rules use: each object found under a rule's name in
    ``torch``, ``torch.nn.functional``, ``torch.Tensor`` or ``operator`` (and ``getattr``, ``len``)."""
    if not _KNOWN:
        import builtins

        import torch
        import torch.nn.functional

        spaces = (torch, torch.nn.functional, torch.Tensor)
        for name in sorted(NAMED):
            found = [getattr(space, name, None) for space in spaces]
            if name in UNARY | BINARY | {"getitem", "matmul"} or name in INPLACE_OPERATORS:
                found.append(getattr(operator, name, None))
            if name in ("getattr", "len"):
                found.append(getattr(builtins, name))
            for obj in found:
                if callable(obj):
                    try:
                        _KNOWN.setdefault(obj, name)
                    except TypeError:
                        pass
    return _KNOWN


# in-place methods that change no entry
SAFE_INPLACE = {"requires_grad_"}
INPLACE_OPERATORS = ("iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "imatmul", "iand", "ior",
                     "ixor", "ilshift", "irshift")


def writes(ctx, node, module=None) -> str | None:
    """What in-place write ``node`` makes (``y.add_(p)``, ``x += w``, ``out=``, ``inplace=True``,
    an ``nn`` module built with ``inplace=True``), or None when it writes nothing."""
    import inspect

    target = node.target
    if module is not None:
        return f"in-place {type(module).__name__}" if getattr(module, "inplace", False) else None
    if _mutable_op(target, node.kwargs):
        return f"in-place {target} (its schema writes an argument)"
    if node.kwargs.get("out") is not None:
        return f"in-place {name_of(node)} (out=)"
    if node.op == "call_method":
        return f"in-place {target}" if target.endswith("_") and target not in SAFE_INPLACE else None
    name = getattr(target, "__name__", "")
    if getattr(operator, name, None) is target:
        inplace = name in INPLACE_OPERATORS or name in ("setitem", "delitem")
        return f"in-place {name}" if inplace and node.args and ctx.is_tensor(node.args[0]) else None
    if name.endswith("_") and not name.startswith("__") and name not in SAFE_INPLACE:
        return f"in-place {name}"
    try:
        bound = inspect.signature(target).bind(*node.args, **node.kwargs).arguments
    except (TypeError, ValueError):   # a builtin without a signature, or a call that does not bind
        bound = dict(node.kwargs)
    return f"in-place {name} (inplace=True)" if bool(bound.get("inplace", False)) else None


def _overloads(target) -> list:
    """The schemas' overloads of an aten operation (``torch.ops.aten.add_.Tensor`` is one, the packet
    ``torch.ops.aten.add_`` all of its own), or [] for anything else."""
    import torch._ops

    if isinstance(target, torch._ops.OpOverload):
        return [target]
    if isinstance(target, torch._ops.OpOverloadPacket):
        return [getattr(target, name) for name in target.overloads()]
    return []


def _mutable_op(target, kwargs) -> bool:
    """An aten operation whose schema writes an argument (``Tensor(a!)``); a name without a trailing
    ``_`` may write too (``add_.Tensor``'s name is ``add_.Tensor``).  For a packet (``torch.ops.aten.add``)
    an overload that writes a keyword-only argument (``out``) counts only when the call gives it."""
    import torch._ops

    if isinstance(target, torch._ops.OpOverload):
        return bool(target._schema.is_mutable)
    for op in _overloads(target):
        for argument in op._schema.arguments:
            info = argument.alias_info
            if info is not None and info.is_write and (not argument.kwarg_only or
                                                       kwargs.get(argument.name) is not None):
                return True
    return False


def random_op(target) -> bool:
    """An aten operation tagged as a random draw (``aten.bernoulli.p``, ``aten.native_dropout``)."""
    import torch

    return any(torch.Tag.nondeterministic_seeded in op.tags for op in _overloads(target))


def _arg(args, kwargs, position: int, *names, default=None):
    """An argument given by position or by one of its keyword names."""
    for name in names:
        if name in kwargs:
            return kwargs[name]
    return args[position] if len(args) > position else default


def _dims(value, ndim: int) -> tuple[int, ...] | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return tuple(normal(int(v), ndim) for v in value)
    return (normal(int(value), ndim),)


def apply(ctx, node, name: str, args: list, kwargs: dict) -> Flow | tuple | None:
    """The flow of ``node``'s result, or None when no rule here applies (the walk says why)."""
    if name in RANDOM or (name in DROPOUT and _dropout_active(args, kwargs)) or random_op(node.target):
        return None
    if name.endswith("_") and args and getattr(args[0], "op", None) == "get_attr":
        return None   # writes into a parameter or buffer: the module's next call differs
    flows = [ctx.flow_of(a) for a in args]
    extra = {k: v for k, v in kwargs.items() if ctx.is_tensor(v)}
    tensors = [(a, f) for a, f in zip(args, flows) if ctx.is_tensor(a)]
    # every keyword counts, not only the tensors: torch.cat(tensors=[x, y]) holds its values in a list
    every = flows + [ctx.flow_of(v) for v in kwargs.values()]
    broken = merge_broken(f for f in every if isinstance(f, Flow))
    if all(isinstance(f, Flow) and f.const for f in every):
        # a constant's value is computed when a rule needs it: only for calls known to be deterministic
        return Flow((), const=True, broken=broken) if name in FOLDABLE else None
    if name in STATIC_CALLS:
        return STATIC
    if name == "getattr":
        return _attribute(ctx, args, flows[0])
    if all(isinstance(f, Flow) and f.known and not f.moves for f in every):
        # a deterministic map of values g leaves alone leaves its result alone: only for calls known
        # to be deterministic (a sampler or a stateful function of the user's gives a new value each call)
        return Flow((), broken=broken) if name in FOLDABLE else None
    if name in DROPOUT or name in CASTS:
        return flows[0]
    if name in ("linear", "layer_norm", "scaled_dot_product_attention"):
        pass                             # these read their tensor keywords themselves
    elif extra:
        if name not in BINARY and name not in UNARY:
            return None
        tensors += [(v, ctx.flow_of(v)) for v in extra.values()]
    if name in UNARY or name in BINARY:
        if len(tensors) == 1 and name not in ("where", "masked_fill"):
            return tensors[0][1]
        return _elementwise(ctx, node, tensors, broken)
    if name in REDUCE:
        return _reduce(ctx, node, name, args, kwargs, flows[0], broken)
    if name in SOFTMAX:
        return flows[0]
    if name in LAYOUT:
        return _layout(ctx, node, name, args, kwargs, flows[0])
    if name == "getitem":
        return _getitem(ctx, node, args, flows[0])
    if name in CONCATS:
        return _concat(ctx, node, name, args, kwargs)
    if name in SPLITS:
        return _split(ctx, node, name, args, kwargs, flows[0])
    if name in MATMUL:
        return _matmul(ctx, node, name, args, kwargs, broken)
    if name == "layer_norm":
        return _layer_norm(ctx, args, kwargs)
    if name == "scaled_dot_product_attention":
        return ctx.attention_function(node, args, kwargs)
    return None


def _attribute(ctx, args, flow):
    """``x.shape`` (static), ``x.T`` / ``x.mT`` (transposes), ``torch.max(x, 0).values``."""
    base, attribute = args[0], args[1]
    if isinstance(flow, tuple):
        index = {"values": 0, "indices": 1}.get(attribute)
        return flow[index] if index is not None and index < len(flow) else None
    if attribute in STATIC_ATTRIBUTES:
        return STATIC
    if not ctx.is_tensor(base) or not flow.known:
        return None
    ndim = len(ctx.shape(base))
    if attribute == "T" or (attribute == "mT" and ndim >= 2):
        order = list(range(ndim))[::-1] if attribute == "T" else list(range(ndim - 2)) + [ndim - 1, ndim - 2]
        return flow.with_axes(tuple(sorted(order.index(a) for a in flow.axes)))
    return None


def _dropout_active(args, kwargs) -> bool:
    """``F.dropout(x, p=0.5, training=True)``: random unless ``training`` is False or ``p`` is 0
    (the functional form's default is training=True, whatever mode the module is in)."""
    p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
    training = kwargs.get("training", args[2] if len(args) > 2 else True)
    return bool(training) and not (isinstance(p, (int, float)) and p == 0)


def _layer_norm(ctx, args, kwargs):
    """``layer_norm`` over free axes only; its weight and bias lie on those axes."""
    x = _arg(args, kwargs, 0, "input")
    flow = ctx.flow_of(x)
    ndim = len(ctx.shape(x))
    shape = _arg(args, kwargs, 1, "normalized_shape")
    if not isinstance(shape, (list, tuple)) or not isinstance(flow, Flow) or not flow.known:
        return None
    for extra in list(args[2:]) + [kwargs.get("weight"), kwargs.get("bias")]:
        if extra is not None and ctx.is_tensor(extra) and not ctx.flow_of(extra).const:
            return None
    return flow if not set(flow.axes) & set(range(ndim - len(shape), ndim)) else None


def _elementwise(ctx, node, tensors, broken) -> Flow:
    """Broadcast operands: their point axes must line up; a constant that meets a point axis is
    fixed by g (checked); anything else that meets one without moving is not proven."""
    if any(not f.known for _, f in tensors):
        return UNKNOWN
    shapes = [ctx.shape(a) for a, _ in tensors]
    out_ndim = max(len(s) for s in shapes)
    axes, conflicts = broadcast(shapes, [f.axes for _, f in tensors], out_ndim)
    for (arg, f), shape, clash in zip(tensors, shapes, conflicts):
        if not clash:
            continue
        if not f.const:
            return UNKNOWN
        # a constant laid along a point axis: it must be the same at every point's image
        shift = out_ndim - len(shape)
        broken = broken | ctx.fixed_constant(node, arg, tuple(a - shift for a in clash))
    return Flow(axes, broken=broken)


def _reduce(ctx, node, name, args, kwargs, flow, broken):
    """``sum``/``mean``/``max``/... over ``dim``: pooling where it meets a point axis.  The dims
    read from the call are checked against the result's shape (signatures differ: ``norm``'s
    second argument is ``p``), and a reduction whose shape does not match has no rule."""
    if name in ("max", "min") and len(args) > 1 and ctx.is_tensor(args[1]):
        return _elementwise(ctx, node, [(a, ctx.flow_of(a)) for a in args[:2]], broken)
    if not flow.known:
        return UNKNOWN
    shape = ctx.shape(args[0])
    ndim = len(shape)
    rest = list(args[2:] if name == "norm" else args[1:])
    dim = kwargs.get("dim", kwargs.get("axis", rest[0] if rest and not isinstance(rest[0], bool) else None))
    flags = [a for a in rest if isinstance(a, bool)]
    keepdim = bool(kwargs.get("keepdim", flags[-1] if flags else False))
    if dim is not None and not (isinstance(dim, int) or (isinstance(dim, (list, tuple))
                                                        and all(isinstance(d, int) for d in dim))):
        return None
    dims = tuple(range(ndim)) if dim is None or dim == () else _dims(dim, ndim)
    expected = tuple(1 if a in dims else d for a, d in enumerate(shape)) if keepdim else \
        tuple(d for a, d in enumerate(shape) if a not in dims)
    result = ctx.value_meta(node)
    first = result[0] if isinstance(result, (tuple, list)) else result
    if tuple(int(d) for d in getattr(first, "shape", (None,))) != expected:
        return None
    pooled = set(dims) & set(flow.axes)
    if pooled:
        ctx.pooling(node, name)
    if keepdim:
        axes = tuple(a for a in flow.axes if a not in dims)
    else:
        axes = tuple(a - sum(1 for d in dims if d < a) for a in flow.axes if a not in dims)
    out = Flow(axes, broken=broken)
    if isinstance(result, (tuple, list)):
        # (values, indices): the indices name points, which the permutation renames
        return (out, UNKNOWN if pooled else out)
    return out


def _layout(ctx, node, name, args, kwargs, flow):
    if not flow.known:
        return UNKNOWN
    old = tuple(ctx.shape(args[0]))
    new = tuple(ctx.shape(node))
    ndim = len(old)
    if name in ("transpose", "swapaxes", "swapdims"):
        d0, d1 = (normal(int(a), ndim) for a in (_arg(args, kwargs, 1, "dim0", "axis0"),
                                                  _arg(args, kwargs, 2, "dim1", "axis1")))
        swap = {d0: d1, d1: d0}
        return flow.with_axes(tuple(sorted(swap.get(a, a) for a in flow.axes)))
    if name == "t":
        return flow.with_axes(tuple(sorted({0: 1, 1: 0}.get(a, a) for a in flow.axes)) if ndim == 2 else flow.axes)
    if name == "permute":
        order = args[1] if len(args) == 2 and isinstance(args[1], (list, tuple)) else args[1:]
        order = [normal(int(d), ndim) for d in (order or kwargs.get("dims", ()))]
        return flow.with_axes(tuple(sorted(order.index(a) for a in flow.axes)))
    if name in ("movedim", "moveaxis"):
        src = _dims(args[1] if len(args) > 1 else kwargs["source"], ndim)
        dst = _dims(args[2] if len(args) > 2 else kwargs["destination"], ndim)
        rest = [d for d in range(ndim) if d not in src]
        order = [None] * ndim
        for s, d in zip(src, dst):
            order[d] = s
        it = iter(rest)
        order = [o if o is not None else next(it) for o in order]
        return flow.with_axes(tuple(sorted(order.index(a) for a in flow.axes)))
    if name in ("expand", "expand_as"):
        # broadcasting aligns the input's axes with the result's last ones (new axes lead)
        shift = len(new) - ndim
        if shift < 0 or any(old[a] != new[a + shift] for a in flow.axes):
            return UNKNOWN
        return flow.with_axes(tuple(a + shift for a in flow.axes))
    return flow.with_axes(reshape_axes(old, new, flow.axes))


def _getitem(ctx, node, args, flow):
    base, index = args[0], args[1]
    if isinstance(flow, tuple):
        return flow[index] if isinstance(index, int) else UNKNOWN
    if not ctx.is_tensor(base):
        return STATIC if isinstance(flow, Flow) and flow.known and not flow.moves else UNKNOWN
    if not flow.known:
        return UNKNOWN
    index = index if isinstance(index, tuple) else (index,)
    shape = ctx.shape(base)
    axis, out_axis, axes = 0, 0, []
    moving = set(flow.axes)
    for item in index:
        if item is Ellipsis:
            # None and a bool each add an axis and index none
            skip = len(shape) - sum(1 for i in index if i is not None and i is not Ellipsis and not isinstance(i, bool))
            for _ in range(skip):
                if axis in moving:
                    axes.append(out_axis)
                axis, out_axis = axis + 1, out_axis + 1
            continue
        if item is None or isinstance(item, bool):   # x[True] is x[None]; x[False] an empty new axis
            out_axis += 1
            continue
        if isinstance(item, slice):
            stop = ctx.value_meta(item.stop) if hasattr(item.stop, "meta") else item.stop
            whole = item.start in (None, 0) and item.step in (None, 1) and (
                stop is None or (type(stop) is int and stop >= shape[axis]))
            if axis in moving and not whole:
                return UNKNOWN
            if axis in moving:
                axes.append(out_axis)
            axis, out_axis = axis + 1, out_axis + 1
            continue
        if isinstance(item, int) and axis not in moving:
            axis += 1
            continue
        return UNKNOWN   # an index along a point axis, or a tensor index
    for rest in range(axis, len(shape)):
        if rest in moving:
            axes.append(out_axis + rest - axis)
    return flow.with_axes(tuple(axes))


def _concat(ctx, node, name, args, kwargs):
    """``cat``/``stack`` of pieces that move alike, along a free axis (``cat``) or a new one
    (``stack``).  The pieces are a list, or one node holding a tuple (``torch.cat(x.chunk(2))``)."""
    pieces = kwargs.get("tensors", args[0] if args else None)
    if isinstance(pieces, (list, tuple)):
        flows = [ctx.flow_of(t) for t in pieces]
        values = [ctx.value_meta(t) for t in pieces]
    else:
        flows, values = ctx.flow_of(pieces), ctx.value_meta(pieces)
        if not isinstance(flows, tuple) or not isinstance(values, (tuple, list)) or len(flows) != len(values):
            return None
    if not flows or any(not isinstance(f, Flow) or not f.known for f in flows) or len({f.axes for f in flows}) != 1:
        return UNKNOWN
    ndims = {len(getattr(v, "shape", ())) for v in values}
    dim = _arg(args, kwargs, 1, "dim", "axis", default=0)   # torch takes numpy's axis= too
    if len(ndims) != 1 or type(dim) is not int or set(kwargs) - {"tensors", "dim", "axis"}:
        return None
    dim = normal(dim, ndims.pop() + (name == "stack"))
    axes = flows[0].axes
    if name == "stack":
        return Flow(tuple(a + (a >= dim) for a in axes), broken=merge_broken(flows))
    if dim in axes:
        return UNKNOWN
    return Flow(axes, broken=merge_broken(flows))


SPLIT_KEYWORDS = {"dim", "axis", "split_size_or_sections", "split_size", "chunks", "sections", "indices",
                  "tensor_indices_or_sections"}


def _split(ctx, node, name, args, kwargs, flow):
    """``chunk``/``split``/``tensor_split`` (dim third) and ``unbind`` (dim second): pieces along a
    free axis keep the points.  The pieces' shapes are checked against the dim read."""
    if not flow.known:
        return UNKNOWN
    shape = tuple(ctx.shape(args[0]))
    ndim = len(shape)
    position = 1 if name == "unbind" else 2
    dim = _arg(args, kwargs, position, "dim", "axis", default=0)
    if type(dim) is not int or set(kwargs) - SPLIT_KEYWORDS:
        return None
    dim = normal(dim, ndim)
    pieces = ctx.value_meta(node)
    if not isinstance(pieces, (tuple, list)):
        return None
    for piece in pieces:
        got = tuple(int(d) for d in getattr(piece, "shape", (None,)))
        want = shape[:dim] + shape[dim + 1:] if name == "unbind" else None
        if (want is not None and got != want) or (want is None and (len(got) != ndim or any(
                got[a] != shape[a] for a in range(ndim) if a != dim))):
            return None
    if dim in flow.axes and name != "unbind" and len(pieces) == 1 and \
            int(getattr(pieces[0], "shape", (None,) * ndim)[dim]) == shape[dim]:
        return (flow,)   # one piece, the whole: x.chunk(1, dim)
    if dim in flow.axes:
        return tuple(UNKNOWN for _ in pieces)
    part = flow if name != "unbind" else flow.with_axes(tuple(a - (a > dim) for a in flow.axes))
    return tuple(part for _ in pieces)


def _matmul(ctx, node, name, args, kwargs, broken):
    """``a @ b``: a contracted axis must be a point axis on both sides (``P A P^T P B = P A B``) or
    on neither; the result's axes are ``a``'s rows and ``b``'s columns."""
    if name == "einsum":
        return ctx.einsum(node, args)
    if name == "linear":
        x, w, bias = _arg(args, kwargs, 0, "input"), _arg(args, kwargs, 1, "weight"), _arg(args, kwargs, 2, "bias")
        fx_ = ctx.flow_of(x)
        if not ctx.is_tensor(x) or not ctx.is_tensor(w) or not fx_.known or (len(ctx.shape(x)) - 1) in fx_.axes:
            return UNKNOWN
        if not ctx.flow_of(w).const or (bias is not None and not ctx.flow_of(bias).const):
            return UNKNOWN
        return fx_
    a, b = args[0], args[1]
    fa, fb = ctx.flow_of(a), ctx.flow_of(b)
    if not fa.known or not fb.known:
        return UNKNOWN
    sa, sb = tuple(ctx.shape(a)), tuple(ctx.shape(b))
    if len(sa) < 2 or len(sb) < 2:
        return UNKNOWN   # vector products: rare in layers; no rule
    ka, kb = len(sa) - 1, len(sb) - 2          # the contracted axes
    rows_too = cols_too = False   # a constant factor fixed as P M P^T = M: its other axis moves too
    if (ka in fa.axes) != (kb in fb.axes):
        # one side moves the contracted axis and the other does not: a constant there must be
        # fixed, as M P = M (the result does not move there) or, when its other axis also has
        # one entry per point, as P M P^T = M (the result moves there: a fixed graph's A X)
        const, axis, other = (b, kb, len(sb) - 1) if ka in fa.axes else (a, ka, len(sa) - 2)
        if not ctx.flow_of(const).const:
            return UNKNOWN
        if ctx.shape(const)[other] == ctx.group.n:
            broken = broken | ctx.fixed_constant(node, const, tuple(sorted((axis, other))))
            rows_too, cols_too = const is a, const is b
        else:
            broken = broken | ctx.fixed_constant(node, const, (axis,))
    elif ka in fa.axes:
        ctx.contraction(node)
    out_ndim = max(len(sa), len(sb))
    rows = [a for a in fa.axes if a != ka] + ([len(sa) - 2] if rows_too else [])
    cols = [a for a in fb.axes if a != kb] + ([len(sb) - 1] if cols_too else [])
    batch_a = [a for a in rows if a < len(sa) - 2]
    batch_b = [a for a in cols if a < len(sb) - 2]
    if batch_a or batch_b:
        return UNKNOWN   # points along a batch axis of a product: no rule
    axes = [out_ndim - 2 for a in rows if a == len(sa) - 2] + [out_ndim - 1 for a in cols if a == len(sb) - 1]
    return Flow(tuple(sorted(axes)), broken=broken)
