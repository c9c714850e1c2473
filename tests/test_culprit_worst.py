"""Culprits that name the right thing (issue 29, item 6): the worst failing generator, not the first
(periodic position code under the dihedral group fails the shift by rounding and the reflection
for real), and long permutations abbreviated in cycle notation in sentences, whole in the JSON."""

import warnings

import pytest

torch = pytest.importorskip("torch")

import gdlcheck  # noqa: E402
from gdlcheck.text import short_cycles  # noqa: E402

N, D = 8, 3
SHIFT, REFLECTION = "(0 1 2 3 4 5 6 7)", "(1 7)(2 6)(3 5)"


class Mixing(torch.nn.Module):
    """``B @ x`` with ``B`` circulant but not symmetric (the reflections break it), one entry off
    by a rounding-sized amount (the shift breaks it, barely)."""

    def __init__(self):
        super().__init__()
        theta = torch.linspace(0.5, 2.0, N, dtype=torch.float64)
        B = torch.stack([torch.stack([theta[(i - j) % N] for j in range(N)]) for i in range(N)])
        B[2, 5] += 1e-8
        self.register_buffer("B", B)

    def forward(self, x):
        return self.B @ x


def test_the_culprit_is_the_worst_failing_generator():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(Mixing(), "dihedral", shape=(N, D)).to_json()
    assert obj["verdict"] == "fails"
    errors = {c["generator"]: c["relative_error"] for c in obj["checks"] if c["method"] == "numeric"}
    assert errors[SHIFT] < 1e-6 < errors[REFLECTION]
    assert obj["culprit"]["generator"] == REFLECTION and obj["culprit"]["path"] == "B"


class Table(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("pos", torch.randn(n, D, dtype=torch.float64))

    def forward(self, x):
        return x + self.pos


def test_a_long_permutation_is_abbreviated_in_sentences_and_whole_in_json():
    n = 512
    whole = "(" + " ".join(map(str, range(n))) + ")"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(Table(n), "cyclic", shape=(n, D)).to_json()
    assert obj["verdict"] == "fails" and obj["culprit"]["generator"] == whole
    sentences = " ".join(obj["notes"]) + obj["culprit"]["text"]
    assert "(0 1 2 \u2026 510 511)" in sentences and whole not in sentences


def test_short_cycles_keeps_cycle_notation():
    assert short_cycles("(0 1)(2 3)") == "(0 1)(2 3)"
    assert short_cycles("(" + " ".join(map(str, range(300))) + ")") == "(0 1 2 \u2026 298 299)"
    many = "".join(f"({2 * i} {2 * i + 1})" for i in range(100))
    short = short_cycles(many, 40)
    assert short.startswith("(0 1)(2 3)") and short.endswith("more cycles") and len(short) < 70
    assert short_cycles("a sentence that is long " * 10) == "a sentence that is long " * 10


class Alibi(torch.nn.Module):
    """Attention with a linear ALiBi bias, after an operation without a rule (``median``): the proof
    stops before it reaches the bias."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(D, 3 * D)
        self.register_buffer(
            "alibi", -torch.tensor([[abs(i - j) for j in range(N)] for i in range(N)], dtype=torch.float64)
        )

    def forward(self, x):
        x = x - x.median(-1, keepdim=True).values
        q, k, v = self.qkv(x).chunk(3, -1)
        return torch.softmax(q @ k.T + self.alibi, -1) @ v


class WithAlibi(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.inp, self.attn = torch.nn.Linear(D, D), Alibi()

    def forward(self, x):
        return self.attn(self.inp(x))


def test_a_buffer_past_the_proofs_stop_is_named():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(WithAlibi().double(), "cyclic", shape=(N, D)).to_json()
    assert obj["verdict"] == "fails"
    assert obj["culprit"]["path"] == "attn" and obj["culprit"]["suspects"] == ["attn.alibi"]
    assert "not kept by" in obj["culprit"]["text"] and "attn.alibi" in obj["culprit"]["text"]


def test_a_kept_buffer_is_not_a_suspect():
    """Under reversal the linear ALiBi bias is kept: the culprit is the rest (a first-row read)."""

    class Reads(WithAlibi):
        def forward(self, x):
            return self.attn(self.inp(x)) + x[0]

    reversal = gdlcheck.group(generators=["[" + ", ".join(str(N - 1 - i) for i in range(N)) + "]"], n=N)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(Reads().double(), reversal, shape=(N, D)).to_json()
    assert obj["verdict"] == "fails" and "attn.alibi" not in str(obj["culprit"].get("suspects", []))


class Waves(torch.nn.Module):
    """A sinusoidal position code made inside forward from nothing named."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.inp = torch.nn.Linear(D, D)

    def forward(self, x):
        t = torch.arange(x.shape[0], dtype=x.dtype)[:, None] * torch.arange(D, dtype=x.dtype)
        return self.inp(x) + torch.sin(t)


def test_a_constant_made_inside_forward_is_named_by_its_line():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        obj = gdlcheck.verify_callable(Waves().double(), "symmetric", shape=(N, D)).to_json()
    notes = " ".join(obj["notes"])
    assert obj["verdict"] == "fails"
    assert "rows 0 and 1 of the constant made at test_culprit_worst.py:" in notes
    assert "rows 0 and 1 of Waves differ" not in notes
