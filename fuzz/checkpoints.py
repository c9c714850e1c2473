"""Cases of the red-team run (fuzz/redteam.py ``--surfaces checkpoints``) over trained weights
files: ``.pt`` checkpoints of random containers (shared, self-holding, deep) holding dense,
sparse, quantized, meta and nested tensors, numpy arrays and plain values, then perhaps
damaged byte by byte; ``.safetensors`` files with mutated headers; ``.npz`` archives with
mutated members (compression methods, flags, lying ``.npy`` headers).  Each is handed to
``verify``, ``project`` or ``symmetries`` with random ``--tensor`` globs.

``checkpoint_case(rng, folder)`` writes its file into ``folder`` and returns
``(surface, "cli", args)``; all randomness comes from ``rng``, so a case is replayed from its seed.
"""

from __future__ import annotations

import io
import json
import os
import random
import struct
import zipfile


def _tensor(rng: random.Random):
    import torch

    n = rng.choice([1, 2, 3, 4, 6])
    gen = torch.Generator().manual_seed(rng.randrange(1 << 30))
    dense = torch.randn(n, n, generator=gen, dtype=rng.choice([torch.float32, torch.float64, torch.float16]))
    kind = rng.randrange(14)
    if kind == 0:
        return dense.to_sparse()
    if kind == 1:
        return dense.float().to_sparse_csr()
    if kind == 2:
        return torch.quantize_per_tensor(dense.float(), 0.1, 0, torch.qint8)
    if kind == 3:
        return torch.empty(n, n, device="meta")
    if kind == 4:
        return torch.nested.nested_tensor([torch.ones(2, n), torch.ones(3, n)])
    if kind == 5:
        return torch.randn(n, generator=gen)  # a bias
    if kind == 6:
        return torch.randn(2, 1, 3, generator=gen)  # a conv kernel
    if kind == 7:
        return torch.tensor(rng.choice([float("nan"), float("inf"), 1e308, 0.0]))
    if kind == 8:
        return dense.to(torch.complex64)
    if kind == 9:
        return dense > 0
    if kind == 10:
        return dense.to(torch.bfloat16)
    return dense


def _structure(rng: random.Random, depth: int = 0):
    import numpy as np

    r = rng.random()
    if depth > 3 or r < 0.4:
        return _tensor(rng)
    if r < 0.5:
        return rng.choice([7, 0.5, "text", None, True, b"bytes", np.eye(2), np.float64(3.0)])
    items = [_structure(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if r < 0.75:
        return {rng.choice(["weight", "bias", "layer", "0", "encoder", "x.y"]) + str(i): v for i, v in enumerate(items)}
    return items if r < 0.9 else tuple(items)


def _hostile(rng: random.Random, value):
    """Shared, self-holding and deep containers around ``value``."""
    kind = rng.randrange(5)
    if kind == 0:
        loop = [value]
        loop.append(loop)
        return {"loop": loop, "again": loop}
    if kind == 1:
        y = [value]
        for _ in range(rng.choice([10, 40, 64])):
            y = [y, y]
        return y
    if kind == 2:
        for _ in range(rng.choice([100, 300, 900])):
            value = [value]
        return value
    return value


def _damaged(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.choice([1, 1, 4, 32])):
        choice = rng.randrange(3)
        at = rng.randrange(max(1, len(data)))
        if choice == 0 and data:
            data[at] = rng.randrange(256)
        elif choice == 1:
            del data[at : at + rng.randrange(1, 64)]
        else:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
    return bytes(data)


def _pt(rng: random.Random, path: str) -> None:
    import sys
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = _hostile(rng, _structure(rng))
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 10_000))  # torch.save pickles deep lists recursively
        try:
            buf = io.BytesIO()
            torch.save(value, buf)
        finally:
            sys.setrecursionlimit(limit)
    data = buf.getvalue()
    with open(path, "wb") as fh:
        fh.write(_damaged(rng, data) if rng.random() < 0.3 else data)


def _safetensors(rng: random.Random, path: str) -> None:
    import numpy as np

    n = rng.choice([1, 3, 4])
    tensors = {
        f"t{i}": np.random.default_rng(rng.randrange(1 << 30))
        .standard_normal((n, n))
        .astype(rng.choice(["<f4", "<f8", "<f2", "<i8"]))
        for i in range(rng.randint(1, 4))
    }
    header, data = {}, b""
    for name, a in tensors.items():
        header[name] = {
            "dtype": {"f": {2: "F16", 4: "F32", 8: "F64"}, "i": {8: "I64"}}[a.dtype.kind][a.itemsize],
            "shape": list(a.shape),
            "data_offsets": [len(data), len(data) + a.nbytes],
        }
        data += a.tobytes()
    for _ in range(rng.choice([0, 1, 2])):
        entry = header[rng.choice(sorted(header))]
        mutation = rng.randrange(6)
        if mutation == 0:
            entry["dtype"] = rng.choice(["BF16", "F8_E4M3", "C64", "BOOL", "U8", "XX"])
        elif mutation == 1:
            entry["shape"] = rng.choice([[2**40, 2**40], [-1, 3], [], [0, 0], [n, n, n]])
        elif mutation == 2:
            entry["data_offsets"] = rng.choice([[0, 2**62], [5, 1], [0, 0], [-8, 8]])
        elif mutation == 3:
            header["__metadata__"] = rng.choice([{"a": "b"}, {"a": 1}, []])
        elif mutation == 4:
            entry["extra"] = True
        else:
            data = data[: rng.randrange(len(data) + 1)]
    text = json.dumps(header).encode()
    if rng.random() < 0.1:
        text = text[: rng.randrange(len(text))]
    length = len(text) if rng.random() < 0.9 else rng.choice([0, 2**63, len(text) + 100])
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", length) + text + data)


def _npz(rng: random.Random, path: str) -> None:
    import numpy as np

    n = rng.choice([1, 3, 4])
    members = {}
    for i in range(rng.randint(1, 4)):
        buf = io.BytesIO()
        np.save(
            buf,
            np.random.default_rng(i).standard_normal((n, n)).astype(rng.choice(["<f8", "<f4", "|O", "<c16"])),
            allow_pickle=True,
        )
        members[f"w{i}.npy"] = buf.getvalue()
    if rng.random() < 0.3:
        name = rng.choice(sorted(members))
        members[name] = _damaged(rng, members[name])
    with zipfile.ZipFile(path, "w", compression=rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as z:
        for name, data in members.items():
            z.writestr(name, data)
    if rng.random() < 0.4:  # a compression method or flags zipfile cannot read (99 is AES)
        with open(path, "rb") as fh:
            raw = bytearray(fh.read())
        central = raw.find(b"PK\x01\x02")
        if rng.random() < 0.5:
            struct.pack_into("<H", raw, 8, 99)
            struct.pack_into("<H", raw, central + 10, 99)
        else:
            flags = rng.choice([1, 0x20, 0x40, 0x2000])
            struct.pack_into("<H", raw, 6, flags)
            struct.pack_into("<H", raw, central + 8, flags)
        with open(path, "wb") as fh:
            fh.write(bytes(raw))


def checkpoint_case(rng: random.Random, folder: str):
    """One weights file and one command line over it."""
    suffix = rng.choice([".pt", ".pt", ".pth", ".safetensors", ".npz"])
    path = os.path.join(folder, "model" + suffix)
    {".pt": _pt, ".pth": _pt, ".safetensors": _safetensors, ".npz": _npz}[suffix](rng, path)
    command = rng.choice(["verify", "verify", "verify", "project", "symmetries"])
    args = [command, path]
    if command != "symmetries":
        args += ["--group", rng.choice(["cyclic", "symmetric", "dihedral"])]
    if command != "symmetries" and rng.random() < 0.4:
        args += ["--tensor", rng.choice(["*", "t0", "w1", "*.weight*", "loop.0", "0", "nothing"])]
    if command == "verify" and rng.random() < 0.5:
        args += ["--format", "json"]
    if command == "verify" and rng.random() < 0.5:  # sized: a square tensor of that n is judged (can FAIL)
        args += ["-n", str(rng.choice([2, 3, 4, 6]))]
    return "checkpoints", "cli", args
