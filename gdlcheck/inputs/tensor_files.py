"""The readers of trained weights files: each file is opened once and listed as named
:class:`Tensor` records whose values load when asked.

Nothing in such a file runs: a checkpoint goes through ``torch.load(weights_only=True)``,
which unpickles tensors, containers and numbers and refuses anything else (a pickle that
would call code); ``.safetensors`` is a JSON header and raw bytes, listed by the safetensors
library (the ``weights`` extra) and read at the header's offsets; an ``.npz`` is a zip of
``.npy`` members, each header read and checked before its data, with pickles refused.

A file's work is linear in what it holds: the archive or header is opened once for the whole
file, a checkpoint's containers are walked once each (a visited set: a list that holds itself,
or ``y = [y, y]`` sixty times over, costs one visit per container), and the number of
containers, tensors and nesting levels has a budget.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.limits import MAX_NPY_HEADER
from gdlcheck.text import printable, shorten

MAX_WEIGHTS_TENSORS = 1 << 16  # tensors one weights file may list
MAX_CHECKPOINT_ENTRIES = 1 << 20  # entries of a checkpoint's containers walked (dict items, list items)
MAX_CHECKPOINT_DEPTH = 256  # nesting of a checkpoint's containers (a state_dict is one to three deep)
# numpy's kinds of real numbers
REAL_KINDS = "biuf"


@dataclass
class Tensor:
    """One named tensor of a weights file: its shape, and ``load()`` for its values as float64.

    ``problem`` says why its values cannot be read (a meta tensor, a nested tensor), if so."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    load: Callable[[], np.ndarray]
    problem: str | None = None

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def is_square_matrix(self) -> bool:
        return len(self.shape) == 2 and self.shape[0] == self.shape[1] and self.shape[0] > 1

    def shape_text(self) -> str:
        if self.dtype == "nested":
            return "nested"
        return " x ".join(map(str, self.shape)) if self.shape else "a scalar"


def _too_many(count: int, path: str) -> None:
    if count > MAX_WEIGHTS_TENSORS:
        raise SpecError(
            f"holds {count} tensors or more, over the limit of {MAX_WEIGHTS_TENSORS} for a weights file", file=path
        )


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    if isinstance(err, RuntimeError) and "is encrypted" in text:  # zipfile's message quotes the member's repr
        return "it is encrypted"
    return printable(shorten(text.splitlines()[0] if text else type(err).__name__, 100))


# --------------------------------------------------------------------------- .npz

# what zipfile raises for a member it cannot decompress: an unknown method (99 is AES), the
# encrypted flag, patched data (flag bit 5), a corrupt stream
_MEMBER_ERRORS = (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError, zlib.error, ValueError)


def read_npz(path: str) -> list[Tensor]:
    """The ``.npy`` members of the archive ``path``, read through one open archive."""
    try:
        archive = zipfile.ZipFile(path)
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
        raise SpecError(f"not a readable .npz file ({_first_line(err)})", file=path) from None
    _too_many(len(members), path)
    return [_npz_member(path, archive, m) for m in members]


def _member_error(path: str, member: zipfile.ZipInfo, err: BaseException) -> SpecError:
    return SpecError(
        f"member {printable(shorten(member.filename, 60))} cannot be read ({_first_line(err)}); "
        "save the archive with numpy.savez",
        file=path,
    )


def _npz_member(path: str, archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> Tensor:
    from numpy.lib import format as npy

    name = member.filename.removesuffix(".npy")
    try:
        with archive.open(member) as fh:
            try:
                version = npy.read_magic(fh)
                reader = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
                shape, fortran, dtype = reader(fh, max_header_size=MAX_NPY_HEADER)
                header_end = fh.tell()
            except (ValueError, OSError, EOFError, SyntaxError, TypeError):
                raise SpecError(
                    f"member {printable(shorten(member.filename, 60))} is not a .npy array", file=path
                ) from None
    except _MEMBER_ERRORS as err:
        raise _member_error(path, member, err) from None

    def load() -> np.ndarray:
        count = math.prod(shape)
        try:
            with archive.open(member) as fh:
                fh.read(header_end)  # the header, read and checked when the archive was listed
                data = fh.read(count * dtype.itemsize + 1)
        except _MEMBER_ERRORS as err:
            raise _member_error(path, member, err) from None
        if len(data) != count * dtype.itemsize:
            raise SpecError(
                f"member {printable(shorten(member.filename, 60))} holds {len(data)} bytes, its header "
                f"says {count * dtype.itemsize}",
                file=path,
            )
        a = np.frombuffer(data, dtype=dtype, count=count)
        a = a.reshape(shape[::-1]).T if fortran else a.reshape(shape)
        return a.astype(np.float64)

    kind = dtype.str if dtype.fields is None and dtype.kind in REAL_KINDS and dtype.itemsize <= 8 else "object"
    return Tensor(name, tuple(shape), kind, load)


# --------------------------------------------------------------------------- .safetensors

# safetensors' dtype names as numpy dtypes (BF16 is read by hand: numpy has no bfloat16)
_SAFETENSORS_DTYPES = {
    "BOOL": "|b1",
    "U8": "|u1",
    "I8": "|i1",
    "U16": "<u2",
    "I16": "<i2",
    "U32": "<u4",
    "I32": "<i4",
    "U64": "<u8",
    "I64": "<i8",
    "F16": "<f2",
    "BF16": "<u2",
    "F32": "<f4",
    "F64": "<f8",
}


def read_safetensors(path: str) -> list[Tensor]:
    """The tensors of the ``.safetensors`` file ``path``: its header checked by the safetensors
    library once, each tensor read at its offsets (no header parsed again per tensor)."""
    try:
        from safetensors import SafetensorError, safe_open
    except ImportError:
        raise SpecError(
            "reading .safetensors needs the safetensors library: pip install 'gdlcheck[weights]'", file=path
        ) from None
    try:
        with safe_open(path, framework="numpy") as f:
            names = list(f.keys())
            _too_many(len(names), path)
            listed = []
            for name in names:
                part = f.get_slice(name)
                listed.append((name, tuple(part.get_shape()), part.get_dtype()))
        offsets, start = _safetensors_offsets(path)
    except (SafetensorError, OSError, ValueError, KeyError, TypeError) as err:
        raise SpecError(f"not a readable .safetensors file ({_first_line(err)})", file=path) from None

    def loader(name: str, shape: tuple[int, ...], dtype: str) -> Callable[[], np.ndarray]:
        def load() -> np.ndarray:
            begin, end = offsets[name]
            # read straight into the array (no bytes object, no copy for float64: each tensor's
            # values are read once)
            a = np.empty(math.prod(shape), dtype=_SAFETENSORS_DTYPES[dtype])
            with open(path, "rb") as fh:
                fh.seek(start + begin)
                got = fh.readinto(a.data.cast("B"))
            if got != a.nbytes or end - begin != a.nbytes:
                raise SpecError(
                    f"tensor {printable(shorten(name, 60))}: the file holds {min(got, end - begin)} "
                    f"bytes of its data, its shape and dtype need {a.nbytes}",
                    file=path,
                )
            if dtype == "BF16":  # the 16 bits of a bfloat16 are the top half of a float32
                a = (a.astype(np.uint32) << 16).view("<f4")
            return a.astype(np.float64, copy=False).reshape(shape)

        return load

    return [
        Tensor(
            name,
            shape,
            np.dtype(_SAFETENSORS_DTYPES[dtype]).str if dtype in _SAFETENSORS_DTYPES else dtype,
            loader(name, shape, dtype),
        )
        for name, shape, dtype in listed
    ]


def _safetensors_offsets(path: str) -> tuple[dict[str, tuple[int, int]], int]:
    """Each tensor's ``data_offsets`` and where the data starts (8-byte header length, JSON
    header), from a header the safetensors library has already checked."""
    import json

    with open(path, "rb") as fh:
        length = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(length))
    return {name: tuple(entry["data_offsets"]) for name, entry in header.items() if name != "__metadata__"}, 8 + length


# --------------------------------------------------------------------------- .pt / .pth


def read_checkpoint(path: str) -> list[Tensor]:
    """The tensors of a PyTorch checkpoint, read with ``torch.load(weights_only=True)``, named
    by their path in its containers (``model.encoder.weight``)."""
    try:
        import torch
    except ImportError:
        raise SpecError(
            "reading a .pt/.pth checkpoint needs PyTorch: install its CPU build, 'pip install torch "
            "--index-url https://download.pytorch.org/whl/cpu' (a plain 'pip install torch' pulls the "
            "multi-GB CUDA build), or save the weights with numpy.savez or safetensors",
            file=path,
        ) from None
    try:
        try:
            loaded = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as err:
            if "mmap" not in str(err):
                raise
            loaded = torch.load(path, map_location="cpu", weights_only=True)  # the legacy format cannot be mapped
    except Exception as err:  # torch raises pickle, zip and runtime errors of many kinds for a bad file
        text = str(err)
        if "GLOBAL numpy." in text:
            raise SpecError(
                "holds numpy arrays, which torch.load(weights_only=True) does not read: save tensors "
                "(torch.from_numpy(a)) or the arrays with numpy.savez",
                file=path,
            ) from None
        if "weights_only" in text or "Unsupported global" in text:
            raise SpecError(
                "holds more than tensors: torch.load(weights_only=True) refuses to run the code its "
                "pickle names; save the state_dict (torch.save(model.state_dict(), path)) or use "
                "safetensors",
                file=path,
            ) from None
        raise SpecError(f"not a checkpoint torch can read ({_first_line(err)})", file=path) from None
    return walk_checkpoint(loaded, path, torch)


def walk_checkpoint(loaded, path: str, torch) -> list[Tensor]:
    """Every tensor inside ``loaded`` (a tensor, or dicts, lists and tuples of them), named by
    its path, depth first in the containers' order.  Each container is entered once: one that
    holds itself, or one shared by many (``y = [y, y]``), is listed under its first path only."""
    found: list[Tensor] = []
    entered: set[int] = set()
    walked = 0
    stack = [(loaded, "", 0)]
    while stack:
        value, prefix, depth = stack.pop()
        if isinstance(value, torch.Tensor):
            _too_many(len(found) + 1, path)
            found.append(_torch_tensor(value, prefix or "tensor", torch))
            continue
        if isinstance(value, dict):
            items = [(str(key), item) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            items = [(str(i), item) for i, item in enumerate(value)]
        else:
            continue
        if id(value) in entered:
            continue
        entered.add(id(value))
        if depth >= MAX_CHECKPOINT_DEPTH:
            raise SpecError(
                f"nests its containers more than {MAX_CHECKPOINT_DEPTH} levels deep; save a flat state_dict", file=path
            )
        walked += len(items)
        if walked > MAX_CHECKPOINT_ENTRIES:
            raise SpecError(
                f"holds more than {MAX_CHECKPOINT_ENTRIES} entries in its containers, over the limit "
                "for a checkpoint; save a state_dict",
                file=path,
            )
        stack.extend((item, f"{prefix}.{key}" if prefix else key, depth + 1) for key, item in reversed(items))
    return found


def _torch_tensor(value, name: str, torch) -> Tensor:
    """A torch tensor as a :class:`Tensor`: a sparse one read as its dense values, a quantized
    one as the numbers it stands for; a meta or nested tensor has none to read."""
    tensor = value.detach()

    def load() -> np.ndarray:
        t = tensor.dequantize() if tensor.is_quantized else tensor
        t = t.to_dense() if t.layout != torch.strided else t
        return t.to(dtype=torch.float64).numpy()

    def unreadable() -> np.ndarray:
        raise SpecError(f"tensor {name} {problem}")

    if tensor.is_nested:
        problem = "is a nested tensor, which has no single shape: save its parts (tensor.unbind()) as tensors"
        return Tensor(name, (), "nested", unreadable, problem)
    shape = tuple(tensor.shape)
    if tensor.is_meta:
        problem = "is a meta tensor, which holds no values: save the tensor after it has been given values"
        return Tensor(name, shape, "meta", unreadable, problem)
    kind = "f8" if tensor.is_floating_point() or tensor.is_quantized else ("c16" if tensor.is_complex() else "i8")
    return Tensor(name, shape, kind, load)
