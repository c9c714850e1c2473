"""numpy <-> PyTorch for verifying ``torch.nn.Module`` objects and functions on tensors.

gdlcheck never imports torch by itself: every check here looks at ``sys.modules`` first.
If the user's object is a torch object, torch is already imported (the user's code did it).

The copy of a module that runs is made by :mod:`gdlcheck.code.running`; it is called here
under ``torch.no_grad()``, with the recursion room its nesting needs (:func:`room_for`).  Outputs
come back as numpy arrays (floats as float64), so the comparison is always done in float64,
whatever dtype the layer ran in.

Given values (a graph, a batch vector) are moved in numpy (:mod:`gdlcheck.code.graphs`,
:mod:`gdlcheck.code.actions`); this module turns them into tensors again at the call: numpy
arrays with :func:`to_tensor`, scipy.sparse matrices as torch sparse tensors in the layout
they came in (:func:`sparse_to_torch`).  :func:`record_calls` runs a module with forward
hooks on every submodule, for finding the one that breaks the symmetry.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import types
import warnings
import weakref

import numpy as np

from gdlcheck.errors import CallableError
from gdlcheck.verdicts import Word


def _torch():
    return sys.modules.get("torch")


def torch_loaded() -> bool:
    """Whether the user's code has imported torch (gdlcheck does not import it)."""
    return _torch() is not None


def is_torch_module(obj) -> bool:
    torch = _torch()
    return torch is not None and isinstance(obj, torch.nn.Module)


def is_tensor(obj) -> bool:
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor)


def is_sparse_tensor(obj) -> bool:
    """A torch sparse tensor (COO, CSR, CSC, BSR, BSC)."""
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor) and obj.layout != torch.strided


def _dtype(name: str):
    torch = _torch()
    return {"float64": torch.float64, "float32": torch.float32}[name]


# Python frames a call spends per level of submodules, with room to spare: four through
# ``Module.__call__`` and ``forward``, more for a forward that reaches its children through helpers
CALL_FRAMES_PER_LEVEL = 20

# the nesting of each prepared copy, for its calls (weak: a copy is dropped with its check)
_NESTING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

_ROOM_LOCK = threading.Lock()
_ROOM: list[int] = []  # the room each open block needs
_ROOM_BASE = [1000]  # the limit before the first open block


@contextlib.contextmanager
def room_for(depth: int, frames_per_level: int = CALL_FRAMES_PER_LEVEL):
    """Python's recursion limit raised for the block only, so that a module tree within the
    nesting budget can be copied and called: at the default limit of 1,000 frames a copy failed
    past 160 levels and a traced call past 150, although the budget allows 200."""
    frames = 0
    f: types.FrameType | None = sys._getframe()
    while f is not None:
        frames, f = frames + 1, f.f_back
    need = frames + frames_per_level * depth + 200
    # the limit is the process's: blocks open at once (nested, or checks in other threads) each
    # keep their room, and the limit found before the first goes back when the last ends
    with _ROOM_LOCK:
        if not _ROOM:
            _ROOM_BASE[0] = sys.getrecursionlimit()
        _ROOM.append(need)
        sys.setrecursionlimit(max([_ROOM_BASE[0], *_ROOM]))
    try:
        yield
    finally:
        with _ROOM_LOCK:
            _ROOM.remove(need)
            sys.setrecursionlimit(max([_ROOM_BASE[0], *_ROOM]))


def remember_nesting(module, depth: int) -> None:
    """Keep the nesting of a prepared copy (:func:`gdlcheck.code.running.prepare_module`), for the
    room its calls need."""
    _NESTING[module] = depth


def calls_of(module):
    """The room the calls of a prepared copy need (``room_for`` its nesting); none for other code."""
    try:
        depth = _NESTING.get(module, 0)
    except TypeError:  # not weakly referable: not a prepared copy
        depth = 0
    return room_for(depth) if depth else contextlib.nullcontext()


def to_tensor(x: np.ndarray, device=None):
    """A numpy array as a tensor of the same dtype (float64 stays float64)."""
    tensor = _torch().from_numpy(np.ascontiguousarray(x))
    # from_numpy's tensor is on the CPU already (a trial's pass makes one per input: no call to move it)
    return tensor if device is None or getattr(device, "type", device) == "cpu" else tensor.to(device=device)


def to_numpy(t) -> np.ndarray:
    """A tensor as a float64 numpy array (detached, on the CPU)."""
    torch = _torch()
    if t.is_meta:
        raise CallableError(
            "returned a tensor on the meta device (shapes, no values): the module or its inputs are on the meta device"
        )
    if t.layout != torch.strided:
        t = t.to_dense()
    return t.detach().to(device="cpu", dtype=torch.float64).numpy()


def as_numpy(t):
    """A tensor as numpy, keeping what it holds: integers and booleans as they are, floats as float64;
    a sparse tensor as a scipy.sparse matrix (COO, or CSR for a CSR tensor)."""
    torch = _torch()
    t = t.detach()
    if t.layout != torch.strided:
        return sparse_to_scipy(t)
    if t.is_floating_point():
        return t.to(device="cpu", dtype=torch.float64).numpy()
    if t.is_complex():
        raise CallableError("a complex tensor cannot be moved as points or a graph")
    return t.cpu().numpy()


def sparse_to_scipy(t):
    """A torch sparse tensor as a scipy.sparse matrix in the same layout family (never dense)."""
    import scipy.sparse as sp

    torch = _torch()
    layout = t.layout
    if t.dim() != 2:
        raise CallableError(f"a sparse graph must be 2-D, got {t.dim()}-D")
    if layout in (torch.sparse_csr, torch.sparse_csc, torch.sparse_bsr, torch.sparse_bsc):
        t = t.to_sparse_coo()
    t = t.coalesce()
    idx = t.indices().cpu().numpy()
    values = t.values().detach().to(device="cpu", dtype=torch.float64).numpy()
    A = sp.coo_matrix((values, (idx[0], idx[1])), shape=tuple(t.shape))
    return A.tocsr() if layout == torch.sparse_csr else A.tocsc() if layout == torch.sparse_csc else A


class Layout(Word):
    """How a tensor the user gave is laid out: dense, or a sparse layout (torch's ``sparse_coo``,
    ``sparse_csr``, ``sparse_csc``); the call gives it back in the same."""

    DENSE = "dense"
    COO = "coo"
    CSR = "csr"
    CSC = "csc"


def sparse_layout(t) -> Layout:
    """How a sparse tensor given by the user is laid out (coo, csr or csc)."""
    torch = _torch()
    return {torch.sparse_csr: Layout.CSR, torch.sparse_csc: Layout.CSC}.get(t.layout, Layout.COO)


def sparse_to_torch(A, layout: Layout | str = Layout.COO, dtype=None, device=None):
    """A scipy.sparse matrix as a torch sparse tensor (``layout`` coo, csr or csc): O(nnz), never dense."""
    torch = _torch()
    C = A.tocoo()
    idx = torch.from_numpy(np.vstack([C.row, C.col]).astype(np.int64))
    values = torch.from_numpy(np.ascontiguousarray(C.data))
    if dtype is not None:
        values = values.to(dtype=_dtype(dtype) if isinstance(dtype, str) else dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch's notes that sparse support is beta
        T = torch.sparse_coo_tensor(idx, values, C.shape).coalesce()
        if layout == Layout.CSR:
            T = T.to_sparse_csr()
        elif layout == Layout.CSC:
            T = T.to_sparse_csc()
    return T.to(device=device) if device is not None else T


def parts(module) -> list:
    """``(qualified name, submodule)`` of the module and each submodule, once each, in the order of
    ``named_modules``, read from torch's own table (``_modules``): a class that redefines
    ``named_modules`` or ``parameters`` hides no part from the copy's checks."""
    out, todo, seen = [], [("", module)], set()
    while todo:
        name, m = todo.pop()
        if id(m) in seen:
            continue
        seen.add(id(m))
        out.append((name, m))
        children = vars(m).get("_modules") or getattr(m, "_modules", None) or {}
        todo.extend(reversed([(f"{name}.{k}" if name else k, c) for k, c in children.items() if c is not None]))
    return out


def tensors_of(module) -> list:
    """``(qualified name, owner, name, tensor)`` of each parameter and buffer, by :func:`parts`."""
    out = []
    for key, m in parts(module):
        for table in ("_parameters", "_buffers"):
            for name, t in (vars(m).get(table) or getattr(m, table, None) or {}).items():
                if t is not None:
                    out.append((f"{key}.{name}" if key else name, m, table, name, t))
    return out


def in_dtype(module, dtype: str):
    """``module.to(dtype)`` (``module`` is gdlcheck's own copy) with its complex parameters and
    buffers kept complex, in the complex type of the same precision: torch's ``Module.to`` with a
    real dtype drops their imaginary parts, and the copy would compute something else."""
    torch = _torch()
    complex_ = {"float64": torch.complex128, "float32": torch.complex64}[dtype]
    found = [(t, owner, table, name, t.detach().clone()) for _, owner, table, name, t in tensors_of(module)]
    found = [item for item in found if item[0].is_complex()]
    with warnings.catch_warnings():  # the parts dropped here are put back below
        warnings.filterwarnings("ignore", message="Casting complex values to real")
        module = module.to(dtype=_dtype(dtype))
    for p, owner, table, name, value in found:
        if table == "_parameters":
            with torch.no_grad():
                p.data = value.to(complex_)
        else:
            getattr(owner, table)[name] = value.to(complex_)
    return module


def largest_entry(module) -> float:
    """The largest finite ``|entry|`` of a torch module's floating parameters and buffers: the
    magnitude rounding is measured against."""
    largest = 0.0
    for tensor in (*module.parameters(), *module.buffers()):
        if tensor.is_floating_point() and tensor.numel() and tensor.device.type != "meta":
            values = tensor.detach()
            if values.layout != _torch().strided:  # a sparse buffer (a stored adjacency): its stored entries
                values = values.to_dense()
            top = float(values.abs().max())  # finite unless an entry is inf or NaN (max keeps a NaN)
            if top != top or top == float("inf"):  # then the finite ones, picked out
                finite = values.abs()[values.isfinite()]
                top = float(finite.max()) if finite.numel() else 0.0
            largest = max(largest, top)
    return largest


def call(f, args: list, kwargs: dict | None = None):
    """``f(*args, **kwargs)`` under ``torch.no_grad()`` (the arguments already converted)."""
    torch = _torch()
    with torch.no_grad(), calls_of(f):
        return f(*args, **(kwargs or {}))


def preserved_rng():
    """A context that restores torch's global random state afterwards (the code under test may draw
    from it: checking it must not change what the user's next draw gives); a no-op without torch."""
    import contextlib

    torch = _torch()
    return torch.random.fork_rng(devices=[]) if torch is not None else contextlib.nullcontext()


# --------------------------------------------------------------------------- hooks


def batch_first_paths(module) -> list[str]:
    """Qualified names of the submodules that say ``batch_first=True`` (their axis 0 is the batch)."""
    return [
        name or type(module).__name__ for name, m in module.named_modules() if getattr(m, "batch_first", False) is True
    ]


def first_conv(module):
    """``(name, class name, spatial dims, in_channels)`` of the module itself or its first submodule
    that is a ``Conv1d``/``Conv2d``/``Conv3d`` (or a transposed one); None if there is none."""
    torch = _torch()
    conv = torch.nn.modules.conv._ConvNd
    for name, m in module.named_modules():
        if isinstance(m, conv):
            return name, type(m).__name__, len(m.kernel_size), int(m.in_channels)
    return None


def zero_padded_convs(module) -> list[str]:
    """Qualified names of the convolutions that pad with zeros (``padding_mode='zeros'`` and some
    padding): at the boundary they see zeros, not the other end's values, so a shift that wraps
    around breaks them."""
    torch = _torch()
    conv = torch.nn.modules.conv._ConvNd
    return [
        name or type(module).__name__
        for name, m in module.named_modules()
        if isinstance(m, conv)
        and m.padding_mode == "zeros"
        and (isinstance(m.padding, str) or any(int(k) > 0 for k in m.padding))
    ]


def record_calls(module, args: list, kwargs: dict, max_bytes: int = 1 << 30) -> list[dict]:
    """Run ``module(*args, **kwargs)`` with forward hooks on every submodule and record each call.

    Returns one record per submodule call, in the order the calls *finish* (children before
    their parent): ``path`` (qualified name, ``""`` for the module itself), ``module`` (class
    name), ``index`` (the order the calls *start*), ``parent`` (the start index of the
    enclosing call, None for the top), ``inputs`` and ``outputs`` (the tensors among the
    arguments and results, as numpy copies taken at the call: an in-place operation later
    does not change them).  Past ``max_bytes`` of copies, calls are recorded with ``inputs`` and
    ``outputs`` None (not kept: a large model's later calls are not compared).
    """
    torch = _torch()
    names = {id(m): name for name, m in module.named_modules()}
    stack: list[int] = []
    started: list[dict] = []
    finished: list[dict] = []
    kept = [0]

    def copies(obj):
        if kept[0] > max_bytes:
            return None
        out = _tensors(obj)
        kept[0] += sum(getattr(x, "nbytes", 0) or getattr(getattr(x, "data", None), "nbytes", 0) for x in out)
        return out

    def pre(m, a, kw):
        record = {
            "path": names.get(id(m), "?"),
            "module": type(m).__name__,
            "index": len(started),
            "parent": stack[-1] if stack else None,
            "inputs": copies((a, kw)),
            "outputs": [],
        }
        started.append(record)
        stack.append(record["index"])

    def post(m, a, kw, out):
        if not stack:
            return
        record = started[stack.pop()]
        record["outputs"] = copies(out) if record["inputs"] is not None else None
        finished.append(record)

    handles = []
    try:
        for m in module.modules():
            handles.append(m.register_forward_pre_hook(pre, with_kwargs=True))
            handles.append(m.register_forward_hook(post, with_kwargs=True))
        with torch.no_grad(), calls_of(module):
            module(*args, **kwargs)
    finally:
        for h in handles:
            h.remove()
    return finished


def _tensors(obj, out=None, depth=0) -> list:
    """The tensors inside ``obj`` (tuples, lists, dicts), as numpy copies, in order."""
    torch = _torch()
    out = [] if out is None else out
    if depth > 4:
        return out
    if isinstance(obj, torch.Tensor):
        if obj.is_meta or obj.is_complex():
            return out
        out.append(as_numpy(obj).copy())
    elif isinstance(obj, (tuple, list)):
        for x in obj:
            _tensors(x, out, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors(x, out, depth + 1)
    return out
