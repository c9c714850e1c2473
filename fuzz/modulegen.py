"""Random torch modules as code text, for the module run (fuzz/modules.py).

Each ``*_module(rng)`` returns a :class:`Module`: the text of a ``.py`` file, the name of the class
or factory in it that builds the module, the input's shape and layout, and the group and
expectation to check it against.  All randomness comes from ``rng`` (a case is replayed from its
seed); the text seeds torch itself, so the module built from it is the same in every process.

The input is ``(n, d)`` or, batched, ``(B, n, d)`` (``--batch-axes 0``); every block below keeps
the points on axis -2 and the features on axis -1, so blocks compose in any order.  The blocks
mix what keeps a permutation symmetry (``Linear`` over the features, ``LayerNorm``, softmax,
attention, pooling broadcast back, residuals) with what breaks it (``roll``, a positional
parameter, an index by a constant, a sort along the points added back, writes into a row), and
the Python around a call that a symbolic tracer misreads (a ``None`` default, ``isinstance``,
``*args``, counters, hooks, ``try``/``except``).  The structural cases go up to and past the
tracer's budgets: 200 levels of nesting, 20,000 submodules, 50,000 operations per call
(gdlcheck/code/torch_bridge.py, prove.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

HEAD = "import torch\nimport torch.nn.functional as F\n\n_CALLS = [0]\n\n"


@dataclass
class Module:
    text: str
    name: str  # the class or factory to load: --callable file.py:NAME
    shape: tuple[int, ...]
    batched: bool  # the input is (B, n, d), axis 0 never permuted
    group: str
    expect: str = "equivariant"
    surface: str = "modules: mixed"
    stateful: bool = False  # it counts its calls: each call of the numeric check needs a fresh build

    @property
    def points_axis(self) -> int:
        return 1 if self.batched else 0


class Body:
    """The lines of ``__init__`` and ``forward`` of one generated class, with fresh names."""

    def __init__(self, rng: random.Random, n: int, d: int):
        self.rng, self.n, self.d = rng, n, d
        self.init: list[str] = []
        self.forward: list[str] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"


# --------------------------------------------------------------------------- blocks that keep the symmetry


def linear(b: Body):
    name, out = b.fresh("lin"), b.rng.choice([1, 2, 3, 4, 8, b.d])
    b.init.append(f"self.{name} = torch.nn.Linear({b.d}, {out}, bias={b.rng.random() < 0.7})")
    b.forward.append(f"h = self.{name}(h)")
    b.d = out


def activation(b: Body):
    b.forward.append(f"h = {b.rng.choice(['torch.tanh', 'torch.relu', 'torch.sigmoid', 'F.gelu', 'F.silu'])}(h)")


def layernorm(b: Body):
    name = b.fresh("ln")
    b.init.append(f"self.{name} = torch.nn.LayerNorm({b.d})")
    b.forward.append(f"h = self.{name}(h)")


def softmax(b: Body):
    b.forward.append(f"h = torch.{b.rng.choice(['softmax', 'log_softmax'])}(h, {b.rng.choice([-1, -2])})")


def attention(b: Body):
    scale = b.rng.choice(["1.0", "2.0", f"{b.d} ** 0.5"])
    b.forward.append(f"h = torch.softmax(h @ h.transpose(-1, -2) / ({scale}), -1) @ h")


def multihead(b: Body):
    heads = b.rng.choice([h for h in (1, 2, 4) if b.d % h == 0])
    name = b.fresh("mha")
    b.init.append(f"self.{name} = torch.nn.MultiheadAttention({b.d}, {heads}, batch_first=True)")
    b.forward.append(f"h = self.{name}(h, h, h, need_weights={b.rng.random() < 0.5})[0]")


def sdpa(b: Body):
    b.forward.append("h = F.scaled_dot_product_attention(h, h, h)")


def pooled(b: Body):
    how = b.rng.choice(
        [
            "h.mean(-2, keepdim=True)",
            "h.sum(-2, keepdim=True)",
            "h.amax(-2, keepdim=True)",
            "h.max(-2, keepdim=True).values",
            "h.var(-2, keepdim=True)",
            "h.norm(dim=-2, keepdim=True)",
            "torch.sort(h, -2).values[..., :1, :]",
            "torch.logsumexp(h, -2, keepdim=True)",
        ]
    )
    b.forward.append(f"h = h {b.rng.choice(['+', '-', '*'])} {how}")


def _owned(b: Body, stem: str, value: str, use: str):
    """An attribute ``self.NAME = value`` made in ``__init__`` and used in ``forward`` (``use``
    with ``{}`` for ``self.NAME``)."""
    name = b.fresh(stem)
    b.init.append(f"self.{name} = {value}")
    b.forward.append(use.format(f"self.{name}"))


def residual(b: Body):
    _owned(b, "res", f"torch.nn.Sequential(torch.nn.Linear({b.d}, {b.d}), torch.nn.Tanh())", "h = h + {}(h)")


def scalar(b: Body):
    _owned(b, "s", f"torch.nn.Parameter(torch.tensor({b.rng.choice(['0.5', '-1.25', '2.0'])}))", "h = h * {}")


def feature_bias(b: Body):
    _owned(b, "bias", f"torch.nn.Parameter(torch.randn({b.d}))", "h = h + {}")


def constant_rows(b: Body):
    """A buffer that every permutation fixes (equal rows, or a I + b 11^T): ``P E = E``."""
    name = b.fresh("c")
    if b.rng.random() < 0.5:
        b.init.append(f"self.register_buffer('{name}', torch.full(({b.n}, 1), 0.5))")
        b.forward.append(f"h = h * self.{name}")
    else:
        b.init.append(f"self.register_buffer('{name}', 2.0 * torch.eye({b.n}) + 0.25)")
        b.forward.append(f"h = self.{name} @ h")


def feature_sort(b: Body):
    b.forward.append("h = torch.sort(h, -1).values")


def pair_sums(b: Body):
    b.forward.append(f"h = h * (h @ h.transpose(-1, -2)).{b.rng.choice(['sum', 'mean', 'amax'])}(-1, keepdim=True)")


def feature_layout(b: Body):
    if b.d % 2 == 0 and b.rng.random() < 0.5:
        b.forward.append(f"h = h.reshape(*h.shape[:-1], {b.d // 2}, 2).flip(-1).flatten(-2)")
    else:
        b.forward.append("h = h.transpose(-1, -2).contiguous().transpose(-1, -2)")


def where(b: Body):
    b.forward.append("h = torch.where(h > 0, h, 0.1 * h)")


def in_place(b: Body):
    b.forward.append(f"h = h.clone()\nh.{b.rng.choice(['relu_()', 'mul_(2.0)', 'add_(1.0)', 'tanh_()'])}")


def concat_features(b: Body):
    b.forward.append("h = torch.cat([h, h.mean(-2, keepdim=True).expand_as(h)], -1)")
    b.d *= 2


def dropout(b: Body):
    b.forward.append("h = F.dropout(h, 0.5, self.training)")


def circulant(b: Body):
    """Equivariant under the shifts only: ``M[i, j] = v[(i - j) mod n]``."""
    name = b.fresh("circ")
    b.init.append(
        f"v = torch.randn({b.n})\n"
        f"self.register_buffer('{name}', torch.stack([torch.roll(v, k) for k in range({b.n})], 1))"
    )
    b.forward.append(f"h = self.{name} @ h")


KEEP = (
    linear,
    linear,
    activation,
    activation,
    layernorm,
    softmax,
    attention,
    multihead,
    sdpa,
    pooled,
    pooled,
    residual,
    scalar,
    feature_bias,
    constant_rows,
    feature_sort,
    pair_sums,
    feature_layout,
    where,
    in_place,
    concat_features,
    dropout,
    circulant,
)


# --------------------------------------------------------------------------- blocks that break it


def roll(b: Body):
    b.forward.append(f"h = torch.roll(h, {b.rng.choice([1, -1, 2])}, dims=-2)")


def positional(b: Body):
    scale = b.rng.choice(["1.0", "0.1", "0.01"])
    _owned(b, "pos", f"torch.nn.Parameter({scale} * torch.randn({b.n}, {b.d}))", "h = h + {}")


def constant_index(b: Body):
    k = b.rng.randrange(b.n)
    b.forward.append(
        b.rng.choice(
            [
                f"h = h - h[..., {k}:{k + 1}, :]",
                f"h = h + h[..., [{k}], :]",
                f"h = h * h.select(-2, {k}).unsqueeze(-2)",
                f"h = h.index_select(-2, torch.arange({b.n}).flip(0))",
                f"h = h - h.narrow(-2, {k}, 1)",
            ]
        )
    )


def sort_slice(b: Body):
    b.forward.append(
        b.rng.choice(
            [
                "h = h + torch.sort(h, -2).values",
                f"h = h + torch.sort(h, -2).values[..., {b.n - 1}:, :].expand_as(h) "
                "- torch.sort(h, -2, descending=True).values",
                "h = h + torch.topk(h, 1, -2).values - torch.sort(h, -2).values",
            ]
        )
    )


def positions(b: Body):
    b.forward.append(
        b.rng.choice(
            [
                "h = h + torch.arange(h.shape[-2], dtype=h.dtype).unsqueeze(-1)",
                "h = h + h.argmax(-2, keepdim=True).to(h.dtype)",
                "h = h.cumsum(-2)",
                "h = h.flip(-2)",
                "h = h * torch.linspace(0.5, 1.5, h.shape[-2], dtype=h.dtype).unsqueeze(-1)",
            ]
        )
    )


def triangle(b: Body):
    b.forward.append(
        b.rng.choice(
            [
                "h = torch.softmax(torch.triu(h @ h.transpose(-1, -2)), -1) @ h",
                "h = F.scaled_dot_product_attention(h, h, h, is_causal=True)",
            ]
        )
    )


def row_write(b: Body):
    k = b.rng.randrange(b.n)
    b.forward.append(
        b.rng.choice(
            [
                f"buf = torch.zeros_like(h)\nbuf[..., {k}, :] = h.mean(-2)\nh = h + buf",
                f"h = h.clone()\nh[..., {k}, :] = 0.0",
                f"h = h.clone()\nh[..., {k}:{k + 1}, :].mul_(3.0)",
                "h = h.clone()\nflat = h.view(-1)\nflat[:1].zero_()",
                f"buf = torch.zeros_like(h)\nbuf[..., {k}:, :].copy_(h[..., {k}:, :])\nh = buf",
            ]
        )
    )


def scramble(b: Body):
    """The same entries in other places: a reshape across the points, a strided view."""
    b.forward.append(
        b.rng.choice(
            [
                "h = h.transpose(-1, -2).reshape(h.shape)",
                "h = torch.cat([h, h], -2).reshape(*h.shape[:-2], 2, h.shape[-2], h.shape[-1]).transpose(-3, -2)"
                ".reshape(*h.shape[:-2], 2 * h.shape[-2], h.shape[-1])[..., ::2, :]",
                "h = torch.cat([h[..., 1:, :], h[..., :1, :]], -2)",
                "h = torch.stack(h.unbind(-2)[::-1], -2)",
                "c = h.contiguous()\nh = c.as_strided(c.shape[:-2] + (c.shape[-1], c.shape[-2]), "
                "c.stride()[:-2] + (c.shape[-2], 1)).transpose(-1, -2)",
            ]
        )
    )


def constant_scatter(b: Body):
    k = b.rng.randrange(b.n)
    b.forward.append(
        b.rng.choice(
            [
                f"h = torch.zeros_like(h).index_add(-2, torch.full(({b.n},), {k}), h)",
                f"h = h.masked_fill(torch.arange({b.n}).unsqueeze(-1) == {k}, 0.0)",
                f"h = torch.where(torch.arange({b.n}).unsqueeze(-1) < {k}, h, -h)",
            ]
        )
    )


def sneaky(b: Body):
    """Breaks a tracer could miss: values read back into Python, data written outside torch's
    operations, a duplicate-then-slice reshape, a circular difference, an index put."""
    k = b.rng.randrange(b.n)
    b.forward.append(
        b.rng.choice(
            [
                f"h = h + torch.tensor([float(v) for v in h[..., {k}, :].reshape(-1)[:1]], dtype=h.dtype)",
                "h = h + torch.from_numpy(h.detach().numpy()[..., :1, :].copy())",
                f"h = h.clone()\nh.data[..., {k}, :] = 0.0",
                f"h = h + h.new_tensor(list(range({b.n}))).unsqueeze(-1)",
                "h = h.unsqueeze(-2).expand(*h.shape[:-1], 2, h.shape[-1]).reshape(*h.shape[:-2], 2 * h.shape[-2], "
                "h.shape[-1])[..., :h.shape[-2], :]",
                "h = torch.diff(h, dim=-2, prepend=h[..., -1:, :])",
                f"h = h.transpose(0, -2).index_put((torch.tensor([{k}]),), torch.zeros(h.shape[-1], dtype=h.dtype))"
                ".transpose(0, -2)",
                "h = torch.gather(h, -2, torch.zeros_like(h, dtype=torch.long))",
                "h = torch.take_along_dim(h, torch.argsort(h, -2), -2) + h",
                "h = F.pad(h, (0, 0, 1, 0))[..., :-1, :]",
                f"h = torch.cat([h[..., {k}:, :], h[..., :{k}, :]], -2)",
                "h = h + (h.detach().numpy().sum() * 0 + torch.arange(h.shape[-2], dtype=h.dtype)).unsqueeze(-1)",
            ]
        )
    )


BREAK = (
    roll,
    positional,
    positional,
    constant_index,
    sort_slice,
    positions,
    triangle,
    row_write,
    scramble,
    constant_scatter,
    sneaky,
    sneaky,
)


# --------------------------------------------------------------------------- the Python around the call


SIGNATURES = ("x", "x, mask=None", "*args, **kwargs")


def tricked(rng: random.Random, lines: list[str], signature: str) -> tuple[list[str], list[str]]:
    """Wrap a block's lines in Python that a symbolic tracer follows otherwise than the real call
    (``forward`` takes ``signature``): extra ``__init__`` lines, and the new lines."""
    inner = [line for text in lines for line in text.split("\n")]
    tricks = ["isinstance", "counter", "global counter", "training", "try", "type", "grad", "shape"]
    tricks += ["default"] * 3 if "mask" in signature else ["args"] * 3 if "args" in signature else []
    trick = rng.choice(tricks)
    init = []
    if trick == "default":
        head = "if mask is None:"
    elif trick == "isinstance":
        head = "if isinstance(h, torch.Tensor) and h.dim() >= 2:"
    elif trick == "args":
        head = "if len(args) == 1 and not kwargs:"
    elif trick == "counter":
        init = ["self.calls = 0"]
        inner = ["self.calls += 1"] + [f"if self.calls % {rng.choice([1, 2])} == 0:"] + ["    " + t for t in inner]
        head = "if True:"
    elif trick == "global counter":
        inner = ["_CALLS[0] += 1"] + [f"if _CALLS[0] % {rng.choice([1, 2, 3])} == 0:"] + ["    " + t for t in inner]
        head = "if True:"
    elif trick == "training":
        head = f"if {rng.choice(['not self.training', 'self.training'])}:"
    elif trick == "try":
        return init, ["try:"] + ["    " + t for t in inner] + ["except (RuntimeError, IndexError):", "    pass"]
    elif trick == "type":
        head = "if type(h) is torch.Tensor:"
    elif trick == "grad":
        head = f"if {rng.choice(['not ', ''])}torch.is_grad_enabled():"
    else:
        head = f"if h.shape[-2] == {rng.choice([2, 3, 5, 8])}:"
    return init, [head] + ["    " + t for t in inner]


def _indent(lines: list[str], depth: int) -> str:
    pad = " " * depth
    return "".join(pad + line + "\n" for text in lines for line in text.split("\n"))


def mixed_module(rng: random.Random, tricks: bool = False) -> Module:
    """A few to a few tens of blocks, most keeping the symmetry, some breaking it."""
    n = rng.choice([2, 3, 4, 5, 6, 8, 12])
    d = rng.choice([1, 2, 3, 4, 8])
    batched = rng.random() < 0.3
    body = Body(rng, n, d)
    p_break = rng.choice([0.0, 0.0, 0.1, 0.3])
    signature, init = rng.choice(SIGNATURES) if tricks else "x", []
    for _ in range(rng.choice([1, 2, 3, 5, 8, 20])):
        before, width = len(body.forward), body.d
        (rng.choice(BREAK) if rng.random() < p_break else rng.choice(KEEP))(body)
        if tricks and body.d == width and rng.random() < 0.4:  # a block that may not run keeps the width
            block = body.forward[before:]
            del body.forward[before:]
            more, wrapped = tricked(rng, block, signature)
            init += more
            body.forward += wrapped
    expect = "equivariant"
    if rng.random() < 0.25:
        body.forward.append(f"h = h.{rng.choice(['sum', 'mean', 'amax'])}(-2)")
        expect = "invariant"
    first = "h = args[0]" if signature.startswith("*") else "h = x"
    seed = rng.randrange(1 << 20)
    text = (
        HEAD + "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"        torch.manual_seed({seed})\n"
        + _indent(init + body.init, 8)
        + f"\n    def forward(self, {signature}):\n        {first}\n"
        + _indent(body.forward, 8)
        + "        return h\n"
    )
    group = rng.choice(["symmetric", "symmetric", "cyclic", "dihedral", "alternating" if n >= 3 else "cyclic"])
    shape = ((rng.choice([1, 2, 3]),) if batched else ()) + (n, d)
    return Module(
        text,
        "Model",
        shape,
        batched,
        group,
        expect,
        "modules: tricks" if tricks else "modules: mixed",
        stateful="calls" in text.split("def forward")[1].lower(),
    )


# --------------------------------------------------------------------------- past the tracer's budgets

LEAVES = """
class Roll(torch.nn.Module):
    def forward(self, x):
        return torch.roll(x, 1, dims=-2)


class Pos(torch.nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(n, d))

    def forward(self, x):
        return x + self.table


class Pool(torch.nn.Module):
    def forward(self, x):
        return x - x.mean(-2, keepdim=True)

"""


def _leaf(rng: random.Random, n: int, d: int, breaking: bool) -> str:
    if breaking:
        return rng.choice(["Roll()", f"Pos({n}, {d})"])
    return rng.choice(
        [
            "torch.nn.ReLU()",
            "torch.nn.Tanh()",
            f"torch.nn.Linear({d}, {d})",
            f"torch.nn.LayerNorm({d})",
            "Pool()",
            "torch.nn.Identity()",
        ]
    )


def _factory(seed: int, lines: list[str]) -> str:
    return HEAD + LEAVES + f"def build():\n    torch.manual_seed({seed})\n" + _indent(lines, 4)


def deep_module(rng: random.Random, quick: bool = False) -> Module:
    """``Sequential`` in ``Sequential``, around the budget of 200 levels."""
    n, d = rng.choice([3, 5, 8]), rng.choice([1, 2, 4])
    depth = rng.choice([10, 150, 198, 199, 200, 201, 250, 1000, 3000][: 6 if quick else None])
    breaking = rng.random() < 0.4
    leaf = _leaf(rng, n, d, breaking)
    wrap = rng.choice(
        [
            "torch.nn.Sequential(m)",
            f"torch.nn.Sequential(m, {_leaf(rng, n, d, False)})",
            "torch.nn.ModuleList([m])[0]",
            "torch.nn.Sequential(torch.nn.Sequential(m))",
        ]
    )
    lines = [f"m = {leaf}", f"for _ in range({depth}):", f"    m = {wrap}", "return m"]
    return Module(
        _factory(rng.randrange(1 << 20), lines),
        "build",
        (n, d),
        False,
        rng.choice(["symmetric", "cyclic"]),
        surface="modules: deep",
    )


def long_module(rng: random.Random, quick: bool = False) -> Module:
    """A flat ``Sequential`` around the budget of 20,000 submodules (or one module called that often)."""
    n, d = rng.choice([3, 5]), rng.choice([1, 2])
    length = rng.choice([100, 1000] if quick else [100, 5000, 19998, 19999, 20000, 20001, 30000])
    breaking = rng.random() < 0.4
    at = rng.randrange(length)
    shared = rng.random() < 0.3
    if shared:  # one submodule in every place: two modules in the tree, `length` calls
        lines = [f"m = {_leaf(rng, n, d, False)}", f"layers = [m] * {length}"]
    else:
        lines = [f"layers = [{_leaf(rng, n, d, False)} for _ in range({length})]"]
    if breaking:
        lines.append(f"layers[{at}] = {_leaf(rng, n, d, True)}")
    lines.append("return torch.nn.Sequential(*layers)")
    return Module(
        _factory(rng.randrange(1 << 20), lines),
        "build",
        (n, d),
        False,
        rng.choice(["symmetric", "cyclic"]),
        surface="modules: long",
    )


def operations_module(rng: random.Random, quick: bool = False) -> Module:
    """A loop in ``forward`` around the budget of 50,000 operations per call."""
    n, d = rng.choice([3, 5]), rng.choice([1, 2])
    count = rng.choice([100, 1000] if quick else [1000, 24999, 25000, 49999, 50000, 50001, 70000])
    op = rng.choice(["h = h + 0.0", "h = h * 1.0", "h = torch.relu(h)", "h = h - h.mean(-2, keepdim=True)"])
    tail = rng.choice(["", "h = torch.roll(h, 1, dims=-2)", "h = h + self.pos", "h = torch.tanh(h)"])
    seed = rng.randrange(1 << 20)
    text = (
        HEAD + "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"        torch.manual_seed({seed})\n        self.pos = torch.nn.Parameter(torch.randn({n}, {d}))\n\n"
        f"    def forward(self, x):\n        h = x\n        for _ in range({count}):\n            {op}\n"
        f"        {tail or 'pass'}\n        return h\n"
    )
    return Module(
        text, "Model", (n, d), False, rng.choice(["symmetric", "cyclic", "dihedral"]), surface="modules: operations"
    )


def parameters_module(rng: random.Random, quick: bool = False) -> Module:
    """Thousands of scalar parameters in a ``ParameterList``, used in a Python loop."""
    n, d = rng.choice([3, 5]), rng.choice([1, 2])
    count = rng.choice([100, 300] if quick else [100, 1000, 5000, 20000])
    use = rng.choice(["h = h * p", "h = h + p", "h = torch.tanh(h * p)"])
    breaking = rng.random() < 0.3
    make = "torch.nn.Parameter(torch.tensor(0.999))" if "*" in use else "torch.nn.Parameter(torch.tensor(1e-3))"
    extra = f"        self.ps.append(torch.nn.Parameter(torch.randn({n}, 1)))\n" if breaking else ""
    text = (
        HEAD + "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"        self.ps = torch.nn.ParameterList([{make} for _ in range({count})])\n"
        + extra
        + f"\n    def forward(self, x):\n        h = x\n        for p in self.ps:\n            {use}\n"
        "        return h\n"
    )
    return Module(text, "Model", (n, d), False, rng.choice(["symmetric", "cyclic"]), surface="modules: parameters")


def wide_module(rng: random.Random, quick: bool = False) -> Module:
    """Wide layers (thousands of features) or many points (attention over them)."""
    if rng.random() < 0.5:
        n, d, width = rng.choice([3, 4]), rng.choice([16, 256]), rng.choice([1024] if quick else [1024, 2048, 4096])
    else:
        n, d, width = rng.choice([256] if quick else [256, 1000, 2000]), rng.choice([1, 4]), rng.choice([8, 64])
    body = Body(rng, n, d)
    body.init.append(f"self.up = torch.nn.Linear({d}, {width})\nself.down = torch.nn.Linear({width}, {d})")
    body.forward.append("h = self.down(torch.relu(self.up(h)))")
    body.d = d
    for _ in range(rng.choice([0, 1, 2])):
        rng.choice((attention, layernorm, pooled, softmax, positional, roll, sdpa))(body)
    text = (
        HEAD + "class Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        f"        torch.manual_seed({rng.randrange(1 << 20)})\n"
        + _indent(body.init, 8)
        + "\n    def forward(self, x):\n        h = x\n"
        + _indent(body.forward, 8)
        + "        return h\n"
    )
    return Module(text, "Model", (n, d), False, rng.choice(["symmetric", "cyclic"]), surface="modules: wide")


KINDS = ("mixed", "tricks", "deep", "long", "operations", "parameters", "wide")


def random_module(rng: random.Random, quick: bool = False, kinds=KINDS) -> Module:
    """One module of ``kinds``, the costly structural kinds the rarest; ``quick`` keeps every
    structural case to the cheap end of its sizes (a second or two), as CI runs them."""
    weights = dict(zip(KINDS, (10, 6, 1.5, 1, 1, 1, 1)))
    kind = rng.choices(list(kinds), weights=[weights[k] for k in kinds])[0]
    if kind in ("mixed", "tricks"):
        return mixed_module(rng, tricks=kind == "tricks")
    return {
        "deep": deep_module,
        "long": long_module,
        "operations": operations_module,
        "parameters": parameters_module,
        "wide": wide_module,
    }[kind](rng, quick)
