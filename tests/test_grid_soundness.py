"""Soundness of the rules for swapped axes: random chains of grid operations on ``(C, S, S)`` images,
some that commute with ``p4``/``p4m`` and many that do not (a transpose, a ``rot90`` about the
centre, a slice, a constant laid along the grid, a kernel that is not symmetric).  With the moved
call's cross-check turned off (the rules alone decide), every ``holds`` is checked against float64
trials under random elements of the group; the chains reach both verdicts."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rule_samples import GridSample, SampleModule, d4_kernel  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import prove  # noqa: E402
from gdlcheck.groups.named import p4_element, p4m_element, p4m_gens  # noqa: E402

pytestmark = pytest.mark.slow
F = torch.nn.functional
C, S = 2, 4
F64 = torch.float64


def _kernel(rng, symmetric: bool):
    k = torch.as_tensor(rng.integers(-3, 4, (C, C, 3, 3))).double()
    if symmetric:  # integers: the sums are exact in any order, so the symmetry is bit for bit
        k = sum(torch.rot90(k, r, (-2, -1)) for r in range(4))
        k = k + k.flip(-1)
    return k


def _conv(weight):
    conv = torch.nn.Conv2d(C, C, 3, padding=1, padding_mode="circular", bias=False).double()
    with torch.no_grad():
        conv.weight.copy_(weight)
    return conv


def _steps(rng):
    """The operations a chain draws from: (name, function of a (C, S, S) image)."""
    table = torch.as_tensor(rng.standard_normal((S, S)))
    symmetric, plain = _conv(_kernel(rng, True)), _conv(_kernel(rng, False))
    mix = torch.as_tensor(rng.standard_normal((C, C, 1, 1)))  # C x C: also batch norm statistics
    return [
        ("relu", lambda x: x.relu()),
        ("affine", lambda x: 2 * x + 1),
        ("transpose", lambda x: x.transpose(1, 2)),
        ("transpose added", lambda x: x + x.transpose(1, 2)),
        ("rot90", lambda x: torch.rot90(x, 1, (1, 2))),
        ("rot90 twice added", lambda x: x + torch.rot90(x, 2, (1, 2))),
        ("flip", lambda x: x.flip(2)),
        ("flip both", lambda x: x.flip(1, 2)),
        ("permute", lambda x: x.permute(0, 2, 1)),
        ("channel sum", lambda x: x.sum(0, keepdim=True).expand_as(x) * 0.5),
        ("grid mean", lambda x: x - x.mean((1, 2), keepdim=True)),
        ("row max", lambda x: x - x.amax(2, keepdim=True)),
        ("slice", lambda x: torch.cat([x[:, 1:], x[:, :1]], 1)),
        ("table", lambda x: x + table),
        ("flatten and back", lambda x: x.flatten(1).view(C, S, S)),
        ("pixel mix", lambda x: F.conv2d(x[None], mix)[0]),
        ("symmetric conv", lambda x: symmetric(x[None])[0]),
        ("plain conv", lambda x: plain(x[None])[0]),
        ("channel select", lambda x: x[1][None].expand_as(x) + x),
        ("cat and slice", lambda x: torch.cat([x.relu(), x])[1 : 1 + C]),
        ("split", lambda x: torch.cat(x.split(1)[::-1])),
        ("row split", lambda x: torch.cat(x.split(1, dim=1)[::-1], 1)),
        ("stack", lambda x: torch.stack([x, x * x], 1).sum(1)),
        ("batch norm", lambda x: F.batch_norm(x[None], mix[:, 0, 0, 0] ** 2, mix[0, :, 0, 0] ** 2 + 1)[0]),
        ("layer norm", lambda x: F.layer_norm(x.permute(1, 2, 0), (C,)).permute(2, 0, 1)),
        ("grid layer norm", lambda x: F.layer_norm(x, (S, S), table)),
        ("linear channels last", lambda x: F.linear(x.permute(1, 2, 0), mix[:, :, 0, 0]).permute(2, 0, 1)),
        ("pixels and back", lambda x: x.reshape(C, S * S).T.reshape(S, S, C).permute(2, 0, 1)),
    ]


def _padded_steps(rng):
    """Circular convolutions written by hand: ``F.pad``, then a convolution without padding of its own."""
    even, odd, wide = _kernel(rng, True), _kernel(rng, False), d4_kernel(C, C, S, S - 1, S)
    return [
        ("padded symmetric", lambda x: F.conv2d(F.pad(x[None], (1, 1, 1, 1), mode="circular"), even)[0]),
        ("padded asymmetric", lambda x: F.conv2d(F.pad(x[None], (1, 1, 1, 1), mode="circular"), odd)[0]),
        ("padded off centre", lambda x: F.conv2d(F.pad(x[None], (2, 0, 2, 0), mode="circular"), even)[0]),
        ("padded wide", lambda x: F.conv2d(F.pad(x[None], (S - 1, 0, S - 1, 0), mode="circular"), wide)[0]),
    ]


def _act(g, x):
    flat = x.reshape(x.shape[0], -1)
    moved = torch.empty_like(flat)
    moved[:, torch.as_tensor(g)] = flat
    return moved.reshape(x.shape)


def _case(seed, padded: bool = False):
    """A chain of one to three steps; with ``padded``, a circular convolution by ``F.pad`` first."""
    rng = np.random.default_rng(seed)
    steps = _steps(rng)
    chosen = [steps[i] for i in rng.integers(0, len(steps), int(rng.integers(1, 4)))]
    if padded:
        first = _padded_steps(rng)
        chosen = [first[int(rng.integers(0, len(first)))]] + chosen[:-1]
    invariant = bool(rng.integers(0, 2))

    def fn(x):
        for _, step in chosen:
            x = step(x)
        return x.sum((1, 2)) if invariant else x

    group = ["p4", "p4m", "turns", "turns and mirrors"][int(rng.integers(0, 4))]
    return fn, invariant, group, [name for name, _ in chosen]


def _turns(mirrors: bool) -> list:
    """The rotation about the grid's origin (and its mirror): the point group alone, which a
    transpose or a flip of the whole grid can keep where the translations of p4 cannot."""
    gens = p4m_gens((S, S))
    return [np.asarray(gens[2][0])] + ([np.asarray(gens[3][0])] if mirrors else [])


def _group(name):
    if name in ("p4", "p4m"):
        return name
    return gdlcheck.group("generators", n=S * S, generators=[g.tolist() for g in _turns(name != "turns")])


def _element(name, rng):
    if name in ("p4", "p4m"):
        return (p4m_element if name == "p4m" else p4_element)((S, S), rng)
    g = np.arange(S * S)
    for _ in range(5):
        gens = _turns(name != "turns")
        g = gens[int(rng.integers(0, len(gens)))][g]
    return g


def _commutes(fn, invariant, group, seed) -> bool:
    rng = np.random.default_rng([seed, 99])
    for _ in range(12):
        x = torch.as_tensor(rng.standard_normal((C, S, S)))
        g = _element(group, rng)
        with torch.no_grad():
            fx, fgx = fn(x), fn(_act(g, x))
        want = fx if invariant else _act(g, fx)
        if not torch.allclose(fgx, want, rtol=1e-9, atol=1e-9):
            return False
    return True


@pytest.mark.parametrize("padded", [False, True], ids=["chains", "padded chains"])
def test_every_holds_of_a_random_grid_chain_commutes(padded, monkeypatch):
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the rules alone
    verdicts = []
    for seed in range(120):
        fn, invariant, group, names = _case(seed, padded)
        result = gdlcheck.verify_callable(
            SampleModule(GridSample(fn)),
            _group(group),
            shape=(C, S, S),
            points_axis=(1, 2),
            expect="invariant" if invariant else "equivariant",
            method="exact",
        )
        verdicts.append(result.verdict)
        if result.verdict == "holds":
            assert _commutes(fn, invariant, group, seed), (seed, group, names, invariant)
    assert verdicts.count("holds") >= 20 and verdicts.count("inconclusive") >= 20


def _wrong_holds(monkeypatch, step: str) -> list:
    """The chains that use ``step`` and hold but do not commute."""
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    found, padded = [], step.startswith("padded")
    for seed in range(400):
        fn, invariant, group, names = _case(seed, padded)
        if not any(step in name for name in names):
            continue
        result = gdlcheck.verify_callable(
            SampleModule(GridSample(fn)),
            _group(group),
            shape=(C, S, S),
            points_axis=(1, 2),
            expect="invariant" if invariant else "equivariant",
            method="exact",
        )
        if result.verdict == "holds" and not _commutes(fn, invariant, group, seed):
            found.append(names)
    return found


@pytest.mark.parametrize("op", ["transpose", "flip"])
def test_a_turned_rule_made_wrong_is_caught(op, monkeypatch):
    """A rule for swapped axes that forgets what its operation does to them: the chains find it."""
    from gdlcheck.code.prover import table

    key = getattr(torch.ops.aten, op).int if op == "transpose" else torch.ops.aten.flip.default
    monkeypatch.setitem(table.TURNED, key, lambda call: next(m for m in call.moves.values() if m is not None))
    assert _wrong_holds(monkeypatch, op)


@pytest.mark.parametrize("step", ["plain conv", "padded asymmetric"])
def test_a_kernel_condition_that_always_passes_is_caught(step, monkeypatch):
    from gdlcheck.code.prover.rules import grid_conv

    monkeypatch.setattr(grid_conv, "channel_match", lambda w, turned, bias, groups: np.arange(w.shape[0]))
    assert _wrong_holds(monkeypatch, step)


def test_a_padded_convolution_that_takes_every_move_for_a_shift_is_caught(monkeypatch):
    """The taps' map read off each axis's move as ``j -> j + t`` (no mirror of the offsets): a
    symmetric kernel padded off centre then seems to keep the turns.  (An asymmetric kernel is
    still refused by the swap of its taps.)"""
    from gdlcheck.code.prover.rules import grid_conv

    monkeypatch.setattr(grid_conv, "affine", lambda p: (1, int(p[0])))
    assert _wrong_holds(monkeypatch, "padded off centre")
