"""Cases of the red-team run (fuzz/redteam.py) for the surfaces of issue 23: graph files (``.npz``
archives and edge lists, their headers, indices and archives mutated), nested combinators and
specs at huge n, and file names with mathtext and control characters into ``--plot`` and
``--format junit``.

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
        head = _header(rng.choice(["<f8", "<i4", "|O", "|V2000000000", "<U3"]),
                       rng.choice(["(1000000000000,)", "(3,)", "(2, 2)", "()", "(-1,)"]))
        return head + bytes(rng.choice([0, 8, 64]))
    if choice == 1:
        return np.array(["3", "3"])                             # a shape as text
    if choice == 2:
        return np.array([2**62, 2**62])                         # a shape past any budget
    if isinstance(value, bytes) or not isinstance(value, np.ndarray) or value.ndim != 1 or value.size == 0:
        return np.array([-1, n, 2**31 - 1], dtype=np.int64)
    out = value.copy()
    k = rng.randrange(out.size)
    if choice < 6 and out.dtype.kind in "iu":
        out[k] = rng.choice([-1, n, n + 1, 2**31 - 1, out[k] + 7, 0])     # an index or pointer out of place
    elif choice < 8:
        out = out[::-1].copy()                                  # pointers that decrease
    elif choice < 10:
        out = out[: rng.randrange(out.size)]                    # a member of the wrong length
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
    if choice < 0.1:                                            # sizes in the central directory that lie
        at = data.find(b"PK\x01\x02")
        while at >= 0:
            data[at + 24:at + 28] = rng.choice([0, 1, 100, 2**32 - 1]).to_bytes(4, "little")
            at = data.find(b"PK\x01\x02", at + 4)
    elif choice < 0.2 and data:                                 # a flipped byte anywhere
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif choice < 0.25:
        data = data[: rng.randrange(len(data) + 1)]             # a truncated archive
    return bytes(data)


LABELS = ["0", "1", "2", "3", "-1", "-5", "9223372036854775807", "9223372036854775808", "1e18", "1.5", "2.0",
          "nan", "inf", "1e400", "0x10", "a"]


def edge_list_text(rng: random.Random) -> str:
    width = rng.choice([1, 2, 3, 5, 8])
    rows = [[rng.choice(LABELS[:4]) if rng.random() < 0.8 else rng.choice(LABELS) for _ in range(width)]
            for _ in range(rng.choice([2, 2, 2, 1, 3]))]
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
            fh.write(_npy(np.array(labels, dtype=rng.choice([np.int64, np.uint64 if min(map(min, labels)) >= 0
                                                             else np.int64, np.float64]))))
    else:
        with open(path, "w") as fh:
            fh.write(edge_list_text(rng))
    if rng.random() < 0.5:
        return "graph files", "graph", path
    module = os.path.join(folder, "graphmods.py")
    with open(module, "w") as fh:
        fh.write("def f(X, A):\n    return X\n")
    n = rng.choice(["3", "5", "8", "50"])
    return "graph files", "cli", ["verify", "--callable", f"{module}:f", "--input-shape", f"{n}x1", "--graph", path,
                                  "--group", rng.choice(["symmetric", "automorphisms"]), "--trials", "1"]


# --------------------------------------------------------------------------- nested combinators, huge n


LEAVES = ["{kind: pointwise, activation: tanh}", "{kind: linear, weight: [[a, b, c], [c, a, b], [b, c, a]]}",
          "{kind: deepsets, alpha: 1, beta: 2}", "{kind: deepsets, lambda: [[1.0]], gamma: [[2.0]]}",
          "{kind: layernorm}", "{kind: mlp, weights: [[[1.0]]]}", "{kind: conv, kernel: [1, 2]}",
          "{kind: attention, wq: [[1.0]], wk: [[1.0]], wv: [[1.0]]}",
          "{kind: attention, mask: causal, wq: [[1.0]], wk: [[1.0]], wv: [[1.0]]}",
          "{kind: attention, wq: [[1.0]], wk: [[1.0]], wv: [[1.0]], "
          "positional: {absolute: [[0.0], ['10**20'], [1.0]]}}"]


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
        fh.write(f"symmetry: {{group: {rng.choice(['cyclic', 'symmetric'])}, n: {n}}}\nlayer: "
                 f"{nested_text(rng, depth, leaf)}\n")
    args = [rng.choice(["verify", "verify", "inspect"]), os.path.join(folder, "nested.yaml")]
    if args[0] == "verify":
        args += ["--method", rng.choice(["auto", "exact", "numeric", "both"]), "--trials", "2"]
    return "nested combinators", "cli", args + ["--format", "json"]


HUGE = ["100000", "1000000", "1000001", "10000000000", "99999999999999999999"]
HUGE_LEAVES = ["kind: deepsets\n  lambda: [[1.0, 2.0]]\n  gamma: [[0.5, 1.0]]",
               "kind: deepsets\n  lambda: [[1.0]]\n  gamma: [[2.0]]",
               "kind: deepsets\n  alpha: 1\n  beta: 2",
               "kind: attention\n  wq: [[1.0]]\n  wk: [[1.0]]\n  wv: [[1.0]]\n  positional: {relative: {random: [N]}}",
               "kind: attention\n  mask: causal\n  wq: [[1.0]]\n  wk: [[1.0]]\n  wv: [[1.0]]",
               "kind: transformer_encoder\n  layers: 1\n  d_model: 2\n  mask: causal",
               "kind: pointwise\n  activation: relu", "kind: conv\n  kernel: [1, 2, 3]",
               "kind: gcn\n  adjacency: {random: [N, N]}\n  weight: [[1.0]]"]


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


NAME_PARTS = ["$x^2$", "$", "$$", "\\sqrt{", "$" + "\\sqrt{" * 25 + "x" + "}" * 25 + "$", "\\", "$\\frac{a}{$",
              "\x01", "\x1b[31m", "\x7f", "\t", "\u2028", "\ufffe", "_^{}", "%", "&<>\"'", "]]>", "<!--", "m"]


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
        content = (f'name: "{key.encode("unicode_escape").decode("ascii")}"\nsymmetry: {{group: cyclic, n: 2}}\n'
                   f'layer: {{kind: linear, weight: [[1, 2], [2, 1]]}}\n')
        if rng.random() < 0.3:
            content += f'"{key.encode("unicode_escape").decode("ascii")}": 1\n'          # an unknown key
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
        fh.write(content)
    if rng.random() < 0.5:
        ext = rng.choice(["png", "svg", "pdf"])
        command = rng.choice(["verify", "project"])
        return "names", "cli", [command, path, "-g", "cyclic", "--plot",
                                os.path.join(folder, f"{hostile_name(rng)}.{ext}"), "--format", "json"]
    return "names", "cli", ["verify", path, os.path.join(SAMPLES_LAYER), "-g", "cyclic", "--format", "junit"]


SAMPLES_LAYER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples", "conv.yaml")

SURFACES = (graph_case, nested_case, huge_case, names_case)


def surface_case(rng: random.Random, folder: str):
    """One case of a new surface, drawn with the weights that keep the run cheap (huge n the rarest)."""
    return rng.choices(SURFACES, weights=(4, 3, 1, 3))[0](rng, folder)
