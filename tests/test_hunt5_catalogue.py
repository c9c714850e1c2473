"""Fifth soundness hunt, the modules that did not find a wrong ``holds``, kept as a net.  Each is
not equivariant (a test checks it on random inputs and on inputs with ties): custom autograd
functions, positions of ties (``argmax``, ``sort``, ``topk``, ``kthvalue``), cumulative and
strided views along the points, in-place writes into the input and into a broadcast block,
masked and indexed writes at constant places, linear algebra whose signs move, forward hooks,
parametrizations, ``torch.jit``, random draws made inside ``forward``, and message passings that
read node labels as numbers.  None may be proved, with ``exact`` or ``auto``, at n = 8 or past
``auto``'s trial threshold."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from hunt3_check import METHODS, SIZES, verdict  # noqa: E402

pytestmark = pytest.mark.slow


class NumpyFlip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.from_numpy(x.detach().numpy()[::-1].copy())

    @staticmethod
    def backward(ctx, g):
        return g


class TorchFlip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.flip(0) * 2

    @staticmethod
    def backward(ctx, g):
        return g


def _rows(x):
    return torch.arange(x.shape[0], dtype=x.dtype)[:, None]


def _repeated_then_written(x):
    r = x.mean(0, keepdim=True).repeat(x.shape[0], 1)
    r[0] += 1.0
    return x + r


def _expanded_then_written(x):
    r = x.mean(0, keepdim=True).expand(x.shape[0], -1).contiguous()
    r[0].zero_()
    return x + r


def _row_written_in_place(x):
    x[0] += 1
    return x


def _blocks_overlapped(x):
    out = torch.empty_like(x)
    out[:, :2] = x[:, :2]
    out[:, 2:] = 1.0
    out.view(-1)[:1] = 9.0
    return out


POINTS = {
    "autograd.Function in numpy": lambda x: x + NumpyFlip.apply(x),
    "autograd.Function in torch": lambda x: x + TorchFlip.apply(x),
    "max's index with ties": lambda x: x + x[x[:, 0].round().max(0).indices],
    "argmax with ties": lambda x: x + x[x[:, 0].round().argmax()],
    "a stable sort's first index": lambda x: x + x[torch.sort(x[:, 0].round(), stable=True).indices[0]],
    "topk's index": lambda x: x + x[x[:, 0].round().topk(1).indices[0]],
    "kthvalue's index": lambda x: x + x[x[:, 0].round().kthvalue(1).indices],
    "cummax along the points": lambda x: x.cummax(0).values,
    "logcumsumexp along the points": lambda x: torch.logcumsumexp(x, 0),
    "as_strided shifted by a row": lambda x: (
        x + x.as_strided((x.shape[0] - 1, x.shape[1]), x.stride(), x.shape[1]).sum(0)
    ),
    "unfold along the points": lambda x: x.unfold(0, 2, 1).sum(-1).sum(0) + x,
    "expand of row 0, added in place": lambda x: x.clone().add_(x[:1].expand_as(x).clone()),
    "the input's row 0 written in place": _row_written_in_place,
    "narrow to the first half": lambda x: x + x.narrow(0, 0, x.shape[0] // 2).sum(0),
    "where on a NaN of a rounding": lambda x: torch.where(torch.isnan(x / x.round()), x, x.flip(0)),
    "index_put_ accumulate at row 0": lambda x: x.clone().index_put_(
        (torch.zeros(x.shape[0], dtype=torch.long),), x, accumulate=True
    ),
    "index_add at row 0": lambda x: x.index_add(0, torch.zeros(x.shape[0], dtype=torch.long), x),
    "masked_scatter of the reversed points": lambda x: x.masked_scatter(x > 0, x.flip(0)),
    "svd's U": lambda x: torch.linalg.svd(x, full_matrices=False).U,
    "fft along the points": lambda x: torch.fft.fft(x, dim=0).real,
    "diff along the points": lambda x: torch.diff(x, dim=0, prepend=x[-1:]),
    "tril of the Gram matrix": lambda x: torch.tril(x @ x.T) @ x,
    "an offset diagonal": lambda x: x + torch.diagonal(x @ x.T, 1).sum(),
    "cdist to the first two points": lambda x: torch.cdist(x, x[:2]),
    "gather of column 0": lambda x: (x @ x.T).gather(1, torch.zeros(x.shape[0], 1, dtype=torch.long)),
    "take of entry 0": lambda x: x + torch.take(x, torch.tensor([0])),
    "repeat_interleave then a slice": lambda x: x.repeat_interleave(2, 0)[: x.shape[0]],
    "chunks swapped": lambda x: torch.cat(x.chunk(2, 0)[::-1]),
    "a zero-padded conv1d over the points": lambda x: (
        F.conv1d(x.T[None], torch.ones(3, x.shape[1], 3, dtype=x.dtype), padding=1)[0].T
    ),
    "max_pool1d over the points": lambda x: F.max_pool1d(x.T[None], 2, 1, padding=1)[0].T[: x.shape[0]],
    "cosine similarity to the next point": lambda x: F.cosine_similarity(x, x.roll(1, 0)).unsqueeze(1),
    "unique_consecutive of the rounded points": lambda x: x + torch.unique_consecutive(x.round()).sum(),
    "a repeated mean, row 0 written": _repeated_then_written,
    "an expanded mean made contiguous, row 0 zeroed": _expanded_then_written,
    "blocks, then one entry through view(-1)": _blocks_overlapped,
    "clamp at the first entry": lambda x: x + x.clamp(max=x[0, 0]),
    "times the row number": lambda x: x * _rows(x),
}


class Module(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


class Hooked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.lin.register_forward_hook(lambda m, i, o: o + o[:1])

    def forward(self, x):
        return self.lin(x[:, :3])


class PreHooked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.lin.register_forward_pre_hook(lambda m, i: (i[0].flip(0),))

    def forward(self, x):
        return self.lin(x[:, :3]) + x[:, :3]


class Roll(torch.nn.Module):
    def forward(self, w):
        return w.roll(1, 0)


class Parametrized(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.pos = torch.nn.Parameter(torch.zeros(n, 1))
        self.pos.data[0] = 1
        torch.nn.utils.parametrize.register_parametrization(self, "pos", Roll())

    def forward(self, x):
        return x + self.pos


class AddsRowZero(torch.nn.Module):
    def forward(self, x):
        return x + x[0]


class Scripted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.jit.script(AddsRowZero())

    def forward(self, x):
        return self.inner(x)


class Traced(torch.nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.inner = torch.jit.trace(AddsRowZero(), torch.randn(n, d))

    def forward(self, x):
        return self.inner(x.float()).double()


class SeededNoise(torch.nn.Module):
    def forward(self, x):
        return x + torch.randn(x.shape, dtype=x.dtype, generator=torch.Generator().manual_seed(3))


class NumpyCumsum(torch.nn.Module):
    def forward(self, x):
        return torch.from_numpy(np.cumsum(x.numpy(), 0))


MODULES = {
    **{name: (lambda n, d, f=f: Module(f)) for name, f in POINTS.items()},
    "a forward hook adding row 0": lambda n, d: Hooked(),
    "a pre-hook reversing the input": lambda n, d: PreHooked(),
    "a parametrization rolling a position table": lambda n, d: Parametrized(n),
    "torch.jit.script": lambda n, d: Scripted(),
    "torch.jit.trace": lambda n, d: Traced(n, d),
    "noise from a seeded generator": lambda n, d: SeededNoise(),
    "numpy's cumsum": lambda n, d: NumpyCumsum(),
}


def _gather_add(x, src, dst, w=None):
    msg = x[src] if w is None else x[src] * w[:, None]
    return torch.zeros_like(x).index_add(0, dst, msg)


LABELS = {
    "edges with source < target": lambda x, e: _gather_add(x, e[0], e[1], (e[0] < e[1]).to(x.dtype)),
    "labels summed": lambda x, e: _gather_add(x, e[0], e[1], e.sum(0).to(x.dtype)),
    "the larger label": lambda x, e: _gather_add(x, e[0], e[1], e.amax(0).to(x.dtype)),
    "label differences": lambda x, e: _gather_add(x, e[0], e[1], (e[0] - e[1]).abs().to(x.dtype)),
    "labels mod 2": lambda x, e: _gather_add(x, e[0], e[1], (e[0] % 2).to(x.dtype)),
    "label == 0": lambda x, e: _gather_add(x, e[0], e[1], (e[0] == 0).to(x.dtype)),
    "argsort of the labels": lambda x, e: _gather_add(x, e[0], e[1], e[0].argsort().to(x.dtype)),
    "cumsum of the labels": lambda x, e: _gather_add(x, e[0], e[1], e[0].cumsum(0).to(x.dtype)),
    "labels & 1": lambda x, e: _gather_add(x, e[0], e[1], (e[0] & 1).to(x.dtype)),
    "labels as floats": lambda x, e: _gather_add(x, e[0], e[1], e[0].double()),
    "labels viewed as int32": lambda x, e: _gather_add(x, e[0], e[1], e[0].view(torch.int32)[::2].to(x.dtype)),
    "labels clamped": lambda x, e: _gather_add(x, e[0].clamp(max=5), e[1]),
    "a table read at the labels": lambda x, e: _gather_add(
        x, e[0], e[1], torch.arange(x.shape[0], dtype=x.dtype)[e[0]]
    ),
    "one_hot of the labels": lambda x, e: _gather_add(x, e[0], e[1], F.one_hot(e[0], x.shape[0]).to(x.dtype)[:, 0]),
    "the adjacency's upper triangle": lambda x, e: (
        torch.zeros(x.shape[0], x.shape[0], dtype=x.dtype)
        .index_put((e[1], e[0]), torch.ones(e.shape[1], dtype=x.dtype), accumulate=True)
        .triu()
        @ x
    ),
    "label pairs as one number": lambda x, e: _gather_add(x, e[0], e[1], (e[0] * x.shape[0] + e[1]).to(x.dtype)),
}


class Passing(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x, edge_index):
        return self.f(x, edge_index)


def ring_with_chords(n: int):
    i = torch.arange(n)
    chords = torch.randint(0, n, (2, n), generator=torch.Generator().manual_seed(5))
    return torch.cat([torch.stack([i, (i + 1) % n]), torch.stack([(i + 1) % n, i]), chords], 1)


def _moves(module, x, perm, edge_index=None) -> bool:
    """``f(P X) != P f(X)`` in float64, for the points (and the edge list relabelled) moved by ``perm``."""
    with torch.no_grad():
        if edge_index is None:
            return not torch.allclose(module(x[perm]), module(x.clone())[perm])
        inv = torch.argsort(perm)
        return not torch.allclose(module(x[perm], inv[edge_index]), module(x, edge_index)[perm])


@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_each_module_is_not_equivariant(make):
    rng = np.random.default_rng(1)
    x = torch.randn(8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    perms = [torch.as_tensor(rng.permutation(8)) for _ in range(8)]
    module = make(8, 3).double()
    assert any(_moves(module, inputs, p) for inputs in (x, x.round(), x.round().clamp(0, 1)) for p in perms)


@pytest.mark.parametrize("f", LABELS.values(), ids=LABELS.keys())
def test_each_passing_is_not_equivariant(f):
    rng = np.random.default_rng(1)
    x = torch.randn(8, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    perms = [torch.as_tensor(rng.permutation(8)) for _ in range(8)]
    assert any(_moves(Passing(f), x, p, ring_with_chords(8)) for p in perms)


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("make", MODULES.values(), ids=MODULES.keys())
def test_no_module_is_proved(make, method, size):
    assert verdict(make(*size), size, method) != "holds"


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("f", LABELS.values(), ids=LABELS.keys())
def test_no_passing_is_proved(f, method, size):
    n, d = size
    assert verdict(Passing(f), size, method, graph=ring_with_chords(n)) != "holds"
