"""The rules for moves that swap axes (``table.TURNED``: a grid's rotations and mirrors), each over
its sample (``tests/rule_samples.py``, ``GRID_SAMPLES``: images ``(C, S, S)`` under ``p4m``):

* the rule proves its sample, it was handed a move that swaps axes, and a float64 trial of the
  sample under a random element of ``p4m`` agrees;
* the rule says the same on two independent draws of the images (it cannot see their values);
* a key without a sample fails.

Then the circular convolution units under turns: a C4- or D4-symmetric kernel and a lifting
layer's rotated channels are proved, a kernel that is neither is not, and the moves themselves
(``moves.turn``) are those of the grid."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rule_samples import GRID_SAMPLES, C, GridSample, S, SampleModule  # noqa: E402

import gdlcheck  # noqa: E402
import gdlcheck.code.prover.rules  # noqa: E402,F401  (fills the table)
from gdlcheck.code.prover import moves as mv  # noqa: E402
from gdlcheck.code.prover import prove, table, walk  # noqa: E402
from gdlcheck.groups.named import p4_gens, p4m_element  # noqa: E402

KEYS = list(GRID_SAMPLES)
GRID = {"shape": (C, S, S), "points_axis": (1, 2)}


def _name(key) -> str:
    return "pointwise" if key is table.POINTWISE else str(key)


def _is(key, func) -> bool:
    return func is key or (
        key is table.POINTWISE
        and table.TURNED.get(func) is None
        and table.lookup_turned(func) is table.TURNED[table.POINTWISE]
    )


def _plain(m):
    if isinstance(m, table.Halt):
        return ("halt", m.reason.value)
    if m is None:
        return None
    if isinstance(m, (list, tuple)):
        return tuple(_plain(x) for x in m)
    return (tuple(None if p is None else tuple(int(v) for v in p) for p in m.axes), m.order)


def _prove(key, seed, monkeypatch):
    """The sample's proof from the draw ``seed`` (the moved call's cross-check off), what the rule
    of ``key`` said at each call, and whether it was handed a move that swaps axes."""
    said, turned = [], []
    one = walk.Walk._one

    def spy(self, found, func, bound, moves, out, k, count):
        result = one(self, found, func, bound, moves, out, k, count)
        if _is(key, func):
            said.append((str(func), k, _plain(result)))
            turned.append(any(mv.turned(m) for v in moves.values() for m in (v if isinstance(v, list) else [v])))
        return result

    monkeypatch.setattr(walk.Walk, "_one", spy)
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    sample = GRID_SAMPLES[key]
    kw = dict(GRID, expect=sample.expect)
    if sample.outputs is not None:
        kw["outputs"] = sample.outputs
    result = gdlcheck.verify_callable(SampleModule(sample), "p4m", method="exact", seed=seed, **kw)
    monkeypatch.undo()
    return result, said, any(turned)


def _act(g, x, axes_from: int):
    """``g . x``: the grid's points, flattened from axis ``axes_from`` on, moved by ``g``."""
    flat = x.reshape(*x.shape[:axes_from], -1)
    moved = torch.empty_like(flat)
    moved[..., torch.as_tensor(g)] = flat
    return moved.reshape(x.shape)


def test_every_turned_rule_key_has_a_sample():
    assert set(table.TURNED) == set(GRID_SAMPLES)


@pytest.mark.parametrize("key", KEYS, ids=_name)
def test_the_turned_rule_proves_its_sample_and_a_float64_trial_agrees(key, monkeypatch):
    result, _, turned = _prove(key, 0, monkeypatch)
    assert result.verdict == "holds", [str(s.step.label) for s in result.proof.stops.values()]
    assert turned  # the rotation's move reached this rule, not only moves along each axis
    sample = GRID_SAMPLES[key]
    rng = np.random.default_rng(7)
    for _ in range(4):
        x = torch.as_tensor(rng.standard_normal((C, S, S)))
        g = p4m_element((S, S), rng)
        with torch.no_grad():
            fx, fgx = sample.fn(x), sample.fn(_act(g, x, 1))
        want = fx if sample.expect == "invariant" else _act(g, fx, 1)
        assert torch.allclose(fgx.double(), want.double(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("key", KEYS, ids=_name)
def test_the_turned_rule_says_the_same_on_two_draws(key, monkeypatch):
    assert _prove(key, 1, monkeypatch)[1] == _prove(key, 2, monkeypatch)[1]


def test_a_rotation_is_an_order_of_the_axes_and_a_permutation_along_each():
    rotation = p4_gens((5, 5))[-1][0]
    order, perms = mv.turn(rotation, [5, 5])
    a, b = np.divmod(np.arange(25), 5)
    assert order == (1, 0)  # (a, b) -> (b, -a): the new first coordinate is the old second
    assert np.array_equal(perms[0][b] * 5 + perms[1][a], rotation)
    assert mv.turn(np.roll(np.arange(25), 3), [5, 5]) is None  # a shift of the flat index: neither


def _conv(weight, bias=None):
    conv = torch.nn.Conv2d(
        weight.shape[1],
        weight.shape[0],
        weight.shape[-1],
        padding=weight.shape[-1] // 2,
        padding_mode="circular",
        bias=bias is not None,
    ).double()
    with torch.no_grad():
        conv.weight.copy_(weight)
        if bias is not None:
            conv.bias.copy_(bias)
    return conv


def _verdict(module, group, **kw):
    return gdlcheck.verify_callable(module, group, shape=(2, 5, 5), points_axis=(1, 2), method="exact", **kw).verdict


def test_a_circular_convolution_under_turns_is_proved_exactly_where_its_kernel_keeps_them():
    torch.manual_seed(0)
    k = torch.randint(-4, 5, (3, 2, 5, 5)).double()  # integers: the sums of rotations are exact in any order
    c4 = sum(torch.rot90(k, r, (-2, -1)) for r in range(4))
    d4 = c4 + c4.flip(-1)
    assert _verdict(_conv(c4), "p4") == "holds"
    assert _verdict(_conv(c4), "p4m") == "inconclusive"  # 5 x 5 and C4: not mirror symmetric
    assert _verdict(_conv(d4), "p4m") == "holds"
    assert _verdict(_conv(k + k.flip(-1)), "p4m") == "inconclusive"  # a mirror, but no quarter turn
    lifted = torch.cat([torch.rot90(k[:1], r, (-2, -1)) for r in range(4)])

    def pooled(bias):  # the lifting layer's channels are its kernel's rotations: their maximum is equivariant
        conv = _conv(lifted, bias)
        return SampleModule(GridSample(lambda x: conv(x).amax(0, keepdim=True)))

    assert _verdict(_conv(lifted), "p4") == "inconclusive"  # its channels move: the output is not an image
    assert _verdict(pooled(torch.full((4,), 0.5, dtype=torch.float64)), "p4") == "holds"
    biased = torch.tensor([0.5, 0.5, 0.5, 0.7], dtype=torch.float64)  # one rotated copy's bias differs
    assert _verdict(pooled(biased), "p4") == "inconclusive"


def test_a_turned_move_reaches_no_rule_that_follows_axes_one_by_one(monkeypatch):
    """A per-axis rule handed a rotation's move would drop its order: the walker hands it none."""
    seen = []

    def spy(call):
        seen.append(any(mv.turned(m) for m in call.moves.values()))
        raise table.NoRule("spy")

    monkeypatch.setitem(table.RULES, torch.ops.aten.cumsum.default, spy)
    module = SampleModule(GridSample(lambda x: x.cumsum(0)))
    result = gdlcheck.verify_callable(module, "p4", shape=(2, 4, 4), points_axis=(1, 2), method="exact")
    assert result.verdict == "inconclusive" and seen and not any(seen)
    assert "the generator swaps axes here" in " ".join(result.to_json()["notes"])


def test_an_off_centre_kernel_is_not_proved_under_turns():
    """An even kernel with padding="same" pads one more on one side: its offsets are not centred,
    so a C4-symmetric kernel does not make it commute with the rotation."""
    k = torch.randint(-4, 5, (2, 2, 4, 4)).double()
    conv = torch.nn.Conv2d(2, 2, 4, padding="same", padding_mode="circular").double()
    with torch.no_grad():
        conv.weight.copy_(sum(torch.rot90(k, r, (-2, -1)) for r in range(4)))
    result = gdlcheck.verify_callable(conv, "p4", shape=(2, 5, 5), points_axis=(1, 2))
    assert result.verdict == "fails"
    assert "a convolution whose offsets are not centred" in " ".join(result.to_json()["notes"])


def test_a_group_convolution_is_proved_with_the_channels_it_reads_moving():
    """A P4 G-CNN's group convolution reads the lifting layer's rotations, which the rotation
    moves: its kernel condition moves its input channels alike (``W[pi(o), rho(c), A d] = W[o, c, d]``)."""
    import coverage_models

    torch.manual_seed(0)
    net = coverage_models.GCNN()
    grid = {"shape": (3, 6, 6), "points_axis": (1, 2), "method": "exact"}
    assert gdlcheck.verify_callable(net, "p4", **grid).verdict == "holds"
    with torch.no_grad():
        net.group.weight[0, 1, 0, 0] += 0.5
    result = gdlcheck.verify_callable(net, "p4", **grid)
    assert result.verdict == "inconclusive"
    assert (
        "at node group: no rule for 'Conv2d (the kernel turned as the grid turns is none of its output channels)'"
        in " ".join(result.to_json()["notes"])
    )
