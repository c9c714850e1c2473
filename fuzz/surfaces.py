"""Cases of the red-team run (fuzz/redteam.py) for the surfaces of issue 23: graph files (``.npz``
archives and edge lists, their headers, indices and archives mutated), nested combinators and
specs at huge n, file names with mathtext and control characters into ``--plot`` and
``--format junit``, and specs whose numbers are expressions with free symbols.

Each ``*_case(rng, folder)`` writes its files into ``folder`` and returns ``(surface, how, args)``:
``how`` is ``"cli"`` (``args`` is a command line) or ``"graph"`` (``args`` is a graph file, read by
``gdlcheck.group("automorphisms", graph=...)``).  All randomness comes from ``rng``: a case is
replayed from its seed.
"""

from __future__ import annotations

import io
import os
import random
import zipfile

# --------------------------------------------------------------------------- graph files


def _npy(a) -> bytes:
    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.asarray(a))
    return buf.getvalue()


def _header(descr: str, shape: str) -> bytes:
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    text += " " * max(0, 118 - len(text) - 10) + "\n"
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode()


def _members(rng: random.Random) -> tuple[dict, int]:
    """The members of a scipy.sparse ``save_npz`` archive of a random graph, then mutated."""
    import numpy as np

    n = rng.choice([1, 3, 5, 8, 50])
    fmt = rng.choice(["csr", "csr", "csc", "coo", "bsr", "dia", "xyz"])
    gen = np.random.default_rng(rng.randrange(1 << 30))
    nnz = rng.choice([0, 1, n, 3 * n])
    rows, cols = gen.integers(0, n, nnz), gen.integers(0, n, nnz)
    data = gen.standard_normal(nnz)
    members: dict = {"format": np.array(fmt.encode()), "shape": np.array([n, n]), "data": data}
    if fmt == "coo":
        members.update(row=rows.astype(np.int32), col=cols.astype(np.int32))
    else:
        counts = np.bincount(rows, minlength=n)
        members.update(indices=cols.astype(np.int32), indptr=np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        name = rng.choice(sorted(members))
        members[name] = _mutated(rng, members[name], n)
    return members, n


def _mutated(rng: random.Random, value, n: int):
    import numpy as np

    choice = rng.randrange(12)
    if choice == 0:
        head = _header(
            rng.choice(["<f8", "<i4", "|O", "|V2000000000", "<U3"]),
            rng.choice(["(1000000000000,)", "(3,)", "(2, 2)", "()", "(-1,)"]),
        )
        return head + bytes(rng.choice([0, 8, 64]))
    if choice == 1:
        return np.array(["3", "3"])  # a shape as text
    if choice == 2:
        return np.array([2**62, 2**62])  # a shape past any budget
    if isinstance(value, bytes) or not isinstance(value, np.ndarray) or value.ndim != 1 or value.size == 0:
        return np.array([-1, n, 2**31 - 1], dtype=np.int64)
    out = value.copy()
    k = rng.randrange(out.size)
    if choice < 6 and out.dtype.kind in "iu":
        out[k] = rng.choice([-1, n, n + 1, 2**31 - 1, out[k] + 7, 0])  # an index or pointer out of place
    elif choice < 8:
        out = out[::-1].copy()  # pointers that decrease
    elif choice < 10:
        out = out[: rng.randrange(out.size)]  # a member of the wrong length
    else:
        out = out.astype(rng.choice([np.float64, np.uint64, np.int8, np.bool_]))
    return out


def npz_bytes(rng: random.Random) -> bytes:
    members, _ = _members(rng)
    drop = rng.random() < 0.1
    buf = io.BytesIO()
    compression = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
    with zipfile.ZipFile(buf, "w", compression=compression) as z:
        for name, value in members.items():
            if drop and name == "indptr":
                continue
            z.writestr(f"{name}.npy", value if isinstance(value, bytes) else _npy(value))
    data = bytearray(buf.getvalue())
    choice = rng.random()
    if choice < 0.1:  # sizes in the central directory that lie
        at = data.find(b"PK\x01\x02")
        while at >= 0:
            data[at + 24 : at + 28] = rng.choice([0, 1, 100, 2**32 - 1]).to_bytes(4, "little")
            at = data.find(b"PK\x01\x02", at + 4)
    elif choice < 0.2 and data:  # a flipped byte anywhere
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif choice < 0.25:
        data = data[: rng.randrange(len(data) + 1)]  # a truncated archive
    return bytes(data)


LABELS = [
    "0",
    "1",
    "2",
    "3",
    "-1",
    "-5",
    "9223372036854775807",
    "9223372036854775808",
    "1e18",
    "1.5",
    "2.0",
    "nan",
    "inf",
    "1e400",
    "0x10",
    "a",
]


def edge_list_text(rng: random.Random) -> str:
    width = rng.choice([1, 2, 3, 5, 8])
    rows = [
        [rng.choice(LABELS[:4]) if rng.random() < 0.8 else rng.choice(LABELS) for _ in range(width)]
        for _ in range(rng.choice([2, 2, 2, 1, 3]))
    ]
    sep = rng.choice([",", " ", "\t"])
    return "\n".join(sep.join(r) for r in rows) + "\n"


def graph_case(rng: random.Random, folder: str):
    kind = rng.choice(["npz", "npz", "npz", "csv", "txt", "npy", "fifo"])
    path = os.path.join(folder, f"graph.{'npz' if kind == 'fifo' else kind}")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "npz":
        with open(path, "wb") as fh:
            fh.write(npz_bytes(rng))
    elif kind == "npy":
        import numpy as np

        labels = [[rng.choice([0, 1, 2, -1, 2**63 - 1]) for _ in range(5)] for _ in range(2)]
        with open(path, "wb") as fh:
            fh.write(
                _npy(
                    np.array(
                        labels,
                        dtype=rng.choice([np.int64, np.uint64 if min(map(min, labels)) >= 0 else np.int64, np.float64]),
                    )
                )
            )
    else:
        with open(path, "w") as fh:
            fh.write(edge_list_text(rng))
    if rng.random() < 0.5:
        return "graph files", "graph", path
    module = os.path.join(folder, "graphmods.py")
    with open(module, "w") as fh:
        fh.write("def f(X, A):\n    return X\n")
    n = rng.choice(["3", "5", "8", "50"])
    return (
        "graph files",
        "cli",
        [
            "verify",
            "--callable",
            f"{module}:f",
            "--input-shape",
            f"{n}x1",
            "--graph",
            path,
            "--group",
            rng.choice(["symmetric", "automorphisms"]),
            "--trials",
            "1",
        ],
    )


# --------------------------------------------------------------------------- nested combinators, huge n


LEAVES = [
    "{kind: pointwise, activation: tanh}",
    "{kind: linear, weight: [[a, b, c], [c, a, b], [b, c, a]]}",
    "{kind: deepsets, alpha: 1, beta: 2}",
    "{kind: deepsets, lambda: [[1.0]], gamma: [[2.0]]}",
    "{kind: layernorm}",
    "{kind: mlp, weights: [[[1.0]]]}",
    "{kind: conv, kernel: [1, 2]}",
    "{kind: attention, wq: [[1.0]], wk: [[1.0]], wv: [[1.0]]}",
    "{kind: attention, mask: causal, wq: [[1.0]], wk: [[1.0]], wv: [[1.0]]}",
    "{kind: attention, wq: [[1.0]], wk: [[1.0]], wv: [[1.0]], positional: {absolute: [[0.0], ['10**20'], [1.0]]}}",
]


def nested_text(rng: random.Random, depth: int, leaf: str) -> str:
    text = leaf
    for _ in range(depth):
        if rng.random() < 0.5:
            text = f"{{kind: residual, layer: {text}}}"
        else:
            more = ", " + LEAVES[0] if rng.random() < 0.3 else ""
            text = f"{{kind: sequential, layers: [{text}{more}]}}"
    return text


def nested_case(rng: random.Random, folder: str):
    depth = rng.choice([1, 5, 15, 25, 30, 31, 32, 40])
    leaf = rng.choice(LEAVES)
    n = 3
    with open(os.path.join(folder, "nested.yaml"), "w") as fh:
        fh.write(
            f"symmetry: {{group: {rng.choice(['cyclic', 'symmetric'])}, n: {n}}}\nlayer: "
            f"{nested_text(rng, depth, leaf)}\n"
        )
    args = [rng.choice(["verify", "verify", "inspect"]), os.path.join(folder, "nested.yaml")]
    if args[0] == "verify":
        args += ["--method", rng.choice(["auto", "exact", "numeric", "both"]), "--trials", "2"]
    return "nested combinators", "cli", args + ["--format", "json"]


HUGE = ["100000", "1000000", "1000001", "10000000000", "99999999999999999999"]
HUGE_LEAVES = [
    "kind: deepsets\n  lambda: [[1.0, 2.0]]\n  gamma: [[0.5, 1.0]]",
    "kind: deepsets\n  lambda: [[1.0]]\n  gamma: [[2.0]]",
    "kind: deepsets\n  alpha: 1\n  beta: 2",
    "kind: attention\n  wq: [[1.0]]\n  wk: [[1.0]]\n  wv: [[1.0]]\n  positional: {relative: {random: [N]}}",
    "kind: attention\n  mask: causal\n  wq: [[1.0]]\n  wk: [[1.0]]\n  wv: [[1.0]]",
    "kind: transformer_encoder\n  layers: 1\n  d_model: 2\n  mask: causal",
    "kind: pointwise\n  activation: relu",
    "kind: conv\n  kernel: [1, 2, 3]",
    "kind: gcn\n  adjacency: {random: [N, N]}\n  weight: [[1.0]]",
]


def huge_case(rng: random.Random, folder: str):
    n = rng.choice(HUGE)
    leaf = rng.choice(HUGE_LEAVES).replace("N", n if int(n) <= 10**6 else "1000000")
    in_spec = rng.random() < 0.5
    group = rng.choice(["cyclic", "symmetric", "dihedral", "trivial"])
    head = f"symmetry: {{group: {group}, n: {n}}}\n" if in_spec else ""
    with open(os.path.join(folder, "huge.yaml"), "w") as fh:
        fh.write(f"{head}layer:\n  {leaf}\n")
    command = rng.choice(["verify", "verify", "inspect"])
    args = [command, os.path.join(folder, "huge.yaml")]
    if not in_spec:
        args += ["-n", n] + (["-g", group] if command == "verify" else [])
    if command == "verify":
        args += ["--method", rng.choice(["auto", "exact", "numeric"])]
    return "huge n", "cli", args + ["--format", rng.choice(["text", "json"])]


# --------------------------------------------------------------------------- names into pictures and JUnit


NAME_PARTS = [
    "$x^2$",
    "$",
    "$$",
    "\\sqrt{",
    "$" + "\\sqrt{" * 25 + "x" + "}" * 25 + "$",
    "\\",
    "$\\frac{a}{$",
    "\x01",
    "\x1b[31m",
    "\x7f",
    "\t",
    "\u2028",
    "\ufffe",
    "_^{}",
    "%",
    "&<>\"'",
    "]]>",
    "<!--",
    "m",
]


def hostile_name(rng: random.Random) -> str:
    name = "".join(rng.choice(NAME_PARTS) for _ in range(rng.choice([1, 2, 3])))
    return name.replace("/", "_") or "m"


def names_case(rng: random.Random, folder: str):
    name = hostile_name(rng)
    kind = rng.choice(["csv", "csv", "yaml"])
    path = os.path.join(folder, f"{name}.{kind}")
    if kind == "csv":
        rows = rng.choice(["1,2\n2,1\n", "1,2\n3,4\n", "1e308,-1e308\n-1e308,1e308\n", "a,b\nb,a\n", "1,2\n"])
        content = rows
    else:
        key = hostile_name(rng).replace("\n", " ").replace('"', "'")
        content = (
            f'name: "{key.encode("unicode_escape").decode("ascii")}"\nsymmetry: {{group: cyclic, n: 2}}\n'
            f"layer: {{kind: linear, weight: [[1, 2], [2, 1]]}}\n"
        )
        if rng.random() < 0.3:
            content += f'"{key.encode("unicode_escape").decode("ascii")}": 1\n'  # an unknown key
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(content)
    if rng.random() < 0.5:
        ext = rng.choice(["png", "svg", "pdf"])
        command = rng.choice(["verify", "project"])
        return (
            "names",
            "cli",
            [
                command,
                path,
                "-g",
                "cyclic",
                "--plot",
                os.path.join(folder, f"{hostile_name(rng)}.{ext}"),
                "--format",
                "json",
            ],
        )
    return "names", "cli", ["verify", path, os.path.join(SAMPLES_LAYER), "-g", "cyclic", "--format", "junit"]


# --------------------------------------------------------------------------- symbols in every kind's numbers

MILD = [
    "a",
    "b",
    "c",
    "x",
    "a*x",
    "2*a",
    "a+b",
    "a-b",
    "a/2",
    "-a",
    "-b",
    "a*b",
    "sqrt(2)*a",
    "a**2",
    "exp(a)",
    "tanh(a)",
    "sin(a)",
    "Abs(a)",
    "sqrt(a)",
    "log(a)",
    "1/a",
    "E",
    "pi",
    "pi*a",
    "a*x**2",
]
WILD = [
    "x*y",
    "sqrt(-a)",
    "1/(a-b)",
    "a**b",
    "2**a",
    "a**(1/2)",
    "exp(-a**2)",
    "a**0",
    "0**a",
    "E**pi",
    "exp(a)*exp(-a)",
    "sin(a)**2+cos(a)**2",
    "a*10**20",
    "10**20",
    "(a+b)**8",
    "sqrt(a**2)",
    "Abs(a)-a",
    "1e-300*a",
    "a*1e308",
    "tanh(exp(a))",
    "log(exp(a))",
    "exp(log(a))",
    "a-a",
    "0*a",
    "x**-1",
    "sqrt(x)*sqrt(x)",
    "(-1)**a",
    "(-a)**(1/3)",
    "exp(exp(a))",
    "log(log(a))",
    "a**1.5",
    "1/3*a",
    "a**100",
    "cos(a)/sin(a)",
    "a + 1e-20",
    "tanh(10**20*a)",
    "exp(x)**2 - exp(2*x)",
    "sqrt(a)**2 - a",
    "log(a*b) - log(a) - log(b)",
    "1e308",
    "-1e308",
]
PLAIN = ["0", "1", "-1", "0.5", "2", "1e-3", "10**20", "1/3"]


def _value(rng: random.Random, p: float = 0.6) -> str:
    if rng.random() >= p:
        return rng.choice(PLAIN)
    text = rng.choice(WILD) if rng.random() < 0.3 else rng.choice(MILD)
    return text if text.replace(".", "").replace("-", "").isalnum() else f"'{text}'"


def _matrix(rng: random.Random, rows: int, cols: int, circulant: bool = False) -> str:
    if circulant and rng.random() < 0.5:  # mostly symmetric, then one entry spoiled: the proof has work
        first = [_value(rng) for _ in range(cols)]
        table = [[first[(j - i) % cols] for j in range(cols)] for i in range(rows)]
        if rng.random() < 0.5:
            table[rng.randrange(rows)][rng.randrange(cols)] = _value(rng)
    else:
        table = [[_value(rng) for _ in range(cols)] for _ in range(rows)]
    return "[" + ", ".join("[" + ", ".join(row) + "]" for row in table) + "]"


def _symbolic_leaf(rng: random.Random, n: int, d: int) -> str:
    kind = rng.choice(
        ["linear", "conv", "deepsets", "channels", "attention", "mlp", "layernorm", "pointwise", "gcn", "pool"]
    )
    vector = "[" + ", ".join(_value(rng) for _ in range(n)) + "]"
    if kind == "linear":
        bias = rng.choice(["", f", bias: {_value(rng)}", f", bias: {vector}"])
        return f"{{kind: linear, weight: {_matrix(rng, n, n, circulant=True)}{bias}}}"
    if kind == "conv":
        return "{kind: conv, kernel: [" + ", ".join(_value(rng) for _ in range(rng.randint(1, n))) + "]}"
    if kind == "deepsets":
        return f"{{kind: deepsets, alpha: {_value(rng)}, beta: {_value(rng)}}}"
    if kind == "channels":
        return f"{{kind: deepsets, lambda: {_matrix(rng, d, d)}, gamma: {_matrix(rng, d, d)}}}"
    if kind == "attention":
        extra = rng.choice(
            ["", f", positional: {{relative: {vector}}}", f", positional: {{absolute: {_matrix(rng, n, d)}}}"]
        )
        extra += rng.choice(
            ["", "", f", scale: {_value(rng)}", ", mask: causal", ", weights: tanh", ", weights: square"]
        )
        weights = ", ".join(f"{w}: {_matrix(rng, d, d)}" for w in ("wq", "wk", "wv"))
        return f"{{kind: attention, {weights}{extra}}}"
    if kind == "mlp":
        biases = rng.choice(["", f", biases: [[{_value(rng)}] , null]" if d == 1 else ""])
        return (
            f"{{kind: mlp, weights: [{_matrix(rng, d, d)}, {_matrix(rng, d, d)}]{biases}, "
            f"activation: {rng.choice(['tanh', 'relu', 'square', 'gelu'])}}}"
        )
    if kind == "layernorm":
        return f"{{kind: layernorm, eps: {_value(rng, 0.3)}}}"
    if kind == "pointwise":
        activation = rng.choice(["tanh", "relu", "square", "gelu", "sigmoid", "softplus"])
        return f"{{kind: pointwise, activation: {activation}}}"
    if kind == "gcn":
        ring = [["1" if (i - j) % n in (1, n - 1) else "0" for j in range(n)] for i in range(n)]
        return (
            f"{{kind: gcn, adjacency: [{', '.join('[' + ', '.join(r) + ']' for r in ring)}], "
            f"weight: {_matrix(rng, d, d)}}}"
        )
    return f"{{kind: pool, op: {rng.choice(['sum', 'mean', 'max'])}}}"


def _symbolic_layer(rng: random.Random, n: int, d: int, depth: int = 0) -> str:
    r = rng.random()
    if depth < 3 and r < 0.2:
        return f"{{kind: residual, layer: {_symbolic_layer(rng, n, d, depth + 1)}}}"
    if depth < 3 and r < 0.4:
        parts = [_symbolic_layer(rng, n, d, depth + 1) for _ in range(rng.randint(1, 3))]
        return "{kind: sequential, layers: [" + ", ".join(parts) + "]}"
    return _symbolic_leaf(rng, n, d)


def symbolic_case(rng: random.Random, folder: str):
    """A spec whose numbers are expressions with free symbols (in weights, biases, kernels, attention
    tables, scales and exponents, inside combinators), checked exactly, numerically or both:
    where the exact passes meet a symbol they cannot evaluate, or a float past float64."""
    n, d = rng.choice([1, 2, 3, 3, 4, 5]), rng.choice([1, 2])
    text = f"symmetry: {{group: {rng.choice(['cyclic', 'symmetric', 'dihedral'])}, n: {n}}}\n"
    text += f"channels: {d}\n" if rng.random() < 0.3 else ""
    text += "expect: invariant\n" if rng.random() < 0.2 else ""
    path = os.path.join(folder, "symbolic.yaml")
    with open(path, "w") as fh:
        fh.write(text + "layer: " + _symbolic_layer(rng, n, d) + "\n")
    command = rng.choice(["verify", "verify", "verify", "verify", "inspect", "project"])
    args = [command, path]
    if command == "verify":
        method = rng.choice(["exact", "numeric", "auto", "both"])
        args += ["--method", method] + ([] if method == "exact" else ["--trials", "2"])
    elif command == "project":
        args += ["-g", rng.choice(["cyclic", "symmetric"])]
    return "symbolic specs", "cli", args + rng.choice([[], ["--format", "json"]])


SAMPLES_LAYER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples", "conv.yaml")

SURFACES = (graph_case, nested_case, huge_case, names_case, symbolic_case)


def surface_case(rng: random.Random, folder: str):
    """One case of a new surface, drawn with the weights that keep the run cheap (huge n the rarest)."""
    return rng.choices(SURFACES, weights=(4, 3, 1, 3, 3))[0](rng, folder)
