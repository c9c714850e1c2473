"""The cross-check inside every proof (issue 28, item 4): the proof's second call is the moved call,
on g X for a uniformly random element g of the group, and its output is compared with g f(X).  A
disagreement is ``fails`` with its counterexample (the element, the first differing entry), with
``exact`` and with ``auto``, at n = 8 and at n x d > 4096, where ``auto`` runs no trials after a
proof that holds.  What the walk cannot see (a write under disabled dispatch, a write from another
thread, a rule made wrong) is caught so."""

import json
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils._python_dispatch import _disable_current_modes  # noqa: E402

import gdlcheck  # noqa: E402
import gdlcheck.code.prover.rules  # noqa: E402,F401  (fills the table)
from gdlcheck.code.prover import prove, table  # noqa: E402
from gdlcheck.groups import cyclic, parse_perm  # noqa: E402

# n x d = 16, and 4200 > 4096 (auto: no trials after a proof that holds); the small size in the fast loop
SIZES = [(8, 2), pytest.param(2100, 2, marks=pytest.mark.slow)]


class Hidden(torch.nn.Module):
    """Reverses its rows under disabled dispatch: the walk sees ``x * 1`` and nothing else."""

    def forward(self, x):
        y = x * 1.0
        with _disable_current_modes():
            y.copy_(y.flip(0))
        return y


class Threaded(torch.nn.Module):
    """Reverses its rows from another thread: the walk's dispatch mode is this thread's."""

    def forward(self, x):
        y = x * 1.0
        worker = threading.Thread(target=lambda: y.copy_(y.flip(0)))
        worker.start()
        worker.join()
        return y


class Flip(torch.nn.Module):
    def forward(self, x):
        return x.flip(0) * 2.0


def _moved(result):
    checks = [c for c in result.to_json()["checks"] if c["counterexample"] and c["counterexample"].get("moved_call")]
    assert len(checks) == 1, result.to_json()["checks"]
    return checks[0]


def _check_counterexample(module, check, n, d):
    """The counterexample is one the user can run: X from its seed, g its element, and the entry it
    names is the first that differs past the tolerance, with the values it gives."""
    ce = check["counterexample"]
    assert ce["element"] == check["generator"]
    g = np.asarray(parse_perm(ce["element"], n))
    assert not np.array_equal(g, np.arange(n))
    assert check["passed"] is False
    X = np.random.default_rng(ce["input_seed"]).standard_normal((n, d))
    gX = np.empty_like(X)
    gX[g] = X  # (P x)[g[j]] = x[j]
    with torch.no_grad():
        fx = module.double()(torch.as_tensor(X)).numpy()
        fgx = module.double()(torch.as_tensor(gX)).numpy()
    target = np.empty_like(fx)
    target[g] = fx
    differs = np.abs(fgx - target) > 1e-6 * np.abs(target).max()
    first = tuple(int(v) for v in np.argwhere(differs)[0])
    assert tuple(ce["entry"]) == first
    assert ce["got"] == pytest.approx(fgx[first]) and ce["expected"] == pytest.approx(target[first])


@pytest.mark.parametrize("method", ["exact", "auto"])
@pytest.mark.parametrize("n,d", SIZES)
@pytest.mark.parametrize("make", [Hidden, Threaded], ids=["disabled_dispatch", "thread"])
def test_a_write_the_walk_does_not_see_fails_with_the_moved_calls_counterexample(make, n, d, method):
    result = gdlcheck.verify_callable(make(), "symmetric", shape=(n, d), method=method)
    assert result.verdict == "fails"
    _check_counterexample(make(), _moved(result), n, d)


def test_the_cross_check_and_the_version_counter_each_catch_them(monkeypatch):
    """Without the cross-check, the write is still seen by the version it bumped (sight.py): the
    proof stops; the cross-check turns that stop into a counterexample."""
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)
    result = gdlcheck.verify_callable(Threaded(), "symmetric", shape=(8, 2), method="exact")
    assert result.verdict == "inconclusive"
    assert "a tensor written out of the walk's sight" in str(result.proof.stops)


@pytest.mark.parametrize("n,d", SIZES)
def test_a_wrong_rule_is_a_failure_not_a_proof(n, d, monkeypatch):
    monkeypatch.setitem(table.RULES, torch.ops.aten.flip.default, table.RULES[table.POINTWISE])  # the mutant
    for method in ("exact", "auto"):
        result = gdlcheck.verify_callable(Flip(), "symmetric", shape=(n, d), method=method)
        assert result.verdict == "fails"
        _check_counterexample(Flip(), _moved(result), n, d)


@pytest.mark.slow
def test_an_equivariant_module_keeps_its_proof_and_no_check_of_the_moved_call():
    layer = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    result = gdlcheck.verify_callable(layer, "symmetric", shape=(2100, 2), method="exact")
    assert result.verdict == "holds"
    assert all(c.method == "exact" for c in result.checks)


def test_the_command_line_exits_1_and_prints_the_counterexample(tmp_path, run, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "ul_hidden28.py").write_text(
        "import torch\n"
        "from torch.utils._python_dispatch import _disable_current_modes\n"
        "class Hidden(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        y = x * 1.0\n"
        "        with _disable_current_modes():\n"
        "            y.copy_(y.flip(0))\n"
        "        return y\n"
        "model = Hidden()\n"
    )
    out = run(
        [
            "verify",
            "--callable",
            "ul_hidden28:model",
            "--input-shape",
            "8x2",
            "--group",
            "symmetric",
            "--method",
            "exact",
            "--format",
            "json",
        ]
    )
    assert out.exit_code == 1, out.stderr
    check = _moved(_Result(json.loads(out.stdout)))
    assert check["counterexample"]["input_seed"] == [0, prove.PROOF_TRIAL]


class _Result:
    def __init__(self, data):
        self.data = data

    def to_json(self):
        return self.data


class InfAtRow0(torch.nn.Module):
    """Writes inf at entry [0, 0] where the walk does not see it: the same in every call on an input."""

    def forward(self, x):
        y = x * 1.0
        with _disable_current_modes():
            y[0, 0] = float("inf")
        return y


def test_an_inf_in_both_calls_is_not_randomness():
    result = gdlcheck.verify_callable(InfAtRow0(), "symmetric", shape=(6, 2), method="exact")
    assert result.verdict == "fails", result.to_json()["notes"]
    assert _moved(result)["counterexample"]["got"] is None  # inf: JSON has none


@pytest.mark.parametrize("n", [2, 3])
def test_the_moved_calls_element_is_not_the_identity(n):
    group = cyclic(n)
    for seed in range(20):
        assert not np.array_equal(prove._element(group, seed), np.arange(n))


def test_the_moved_call_draws_from_the_users_seed():
    """``seed`` reaches the proof: the moved call's element is drawn from it, so another seed
    cross-checks with another element, and each seed's counterexample names its own."""
    from gdlcheck.layers.proofs import generator_text

    group = cyclic(8)
    elements = set()
    for seed in range(4):
        result = gdlcheck.verify_callable(Hidden(), group, shape=(8, 2), method="exact", seed=seed)
        drawn = generator_text(prove._element(group, seed))
        if drawn == "(0 4)(1 5)(2 6)(3 7)":  # the half turn commutes with the flip: nothing to show
            assert result.verdict == "inconclusive"
            continue
        element = _moved(result)["counterexample"]["element"]
        assert element == drawn
        elements.add(element)
    assert len(elements) > 1, elements
