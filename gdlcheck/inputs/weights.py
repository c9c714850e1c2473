"""Trained weights files: PyTorch checkpoints (``.pt``, ``.pth``), ``.safetensors`` and numpy
archives (``.npz``), read as named tensors.

Nothing in such a file runs: a checkpoint goes through ``torch.load(weights_only=True)``,
which unpickles tensors, containers and numbers and refuses anything else (a pickle that
would call code); ``.safetensors`` is a JSON header and raw bytes, read by the safetensors
library (the ``weights`` extra); an ``.npz`` is a zip of ``.npy`` members, each header read
and checked before its data, with pickles refused.

:func:`read_tensors` lists a file's tensors (names and shapes) without building the big ones;
each :class:`Tensor` loads its values when asked.  :func:`select` picks the ones to check:
every square 2-D tensor, or those named by ``--tensor`` globs.  The budgets are per tensor
(:data:`~gdlcheck.limits.MAX_MATRIX_ENTRIES`) and per file (:data:`MAX_WEIGHTS_BYTES` on
disk, :data:`MAX_WEIGHTS_ENTRIES` selected), checked before the values are read.
"""

from __future__ import annotations

import fnmatch
import math
import os
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.limits import MAX_MATRIX_ENTRIES, MAX_NPY_HEADER
from gdlcheck.text import printable, shorten

WEIGHTS_SUFFIXES = (".pt", ".pth", ".safetensors", ".npz")
MAX_WEIGHTS_BYTES = 8 * 2**30                 # a weights file on disk (tensors are read one by one)
MAX_WEIGHTS_ENTRIES = 2 * MAX_MATRIX_ENTRIES  # entries of all the tensors checked in one file (1 GiB as float64)
# safetensors' dtypes that hold real numbers, and numpy's kinds of them
_REAL_KINDS = "biuf"


@dataclass
class Tensor:
    """One named tensor of a weights file: its shape, and ``load()`` for its values as float64."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    load: Callable[[], np.ndarray]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def is_square_matrix(self) -> bool:
        return len(self.shape) == 2 and self.shape[0] == self.shape[1] and self.shape[0] > 1

    def shape_text(self) -> str:
        return " x ".join(map(str, self.shape)) if self.shape else "a scalar"


def is_weights_file(path: str) -> bool:
    return os.path.splitext(path)[1].lower() in WEIGHTS_SUFFIXES


def read_tensors(path: str) -> list[Tensor]:
    """The tensors of the weights file ``path``, in the file's order (nested containers of a
    checkpoint give dotted names, ``model.encoder.weight``).

    Raises
    ------
    SpecError
        for a missing, unreadable or oversized file, one that is not what its suffix says, or
        a library that is not installed (the message names the extra).
    """
    _check_file(path)
    suffix = os.path.splitext(path)[1].lower()
    reader = {".npz": _npz, ".safetensors": _safetensors}.get(suffix, _torch)
    tensors = reader(path)
    if not tensors:
        raise SpecError("holds no tensors", file=path)
    return tensors


def select(tensors: list[Tensor], patterns: tuple[str, ...], path: str) -> list[Tensor]:
    """The tensors to check: those named in ``patterns`` and the square 2-D ones a glob of
    ``patterns`` matches (each pattern must match a tensor), else every square 2-D tensor.  The
    whole selection is held to the file's budget."""
    if patterns:
        for pattern in patterns:
            if not any(fnmatch.fnmatchcase(t.name, pattern) for t in tensors):
                raise SpecError(f"--tensor {printable(shorten(pattern, 60))!r} matches no tensor; the file has "
                                f"{_names(tensors)}", file=path)
        # a tensor named exactly is checked whatever its shape (an error row if it is not square);
        # a glob picks the square ones it matches (conv.* means conv.weight, not conv.bias)
        chosen = [t for t in tensors if t.name in patterns or (t.is_square_matrix and any(
            fnmatch.fnmatchcase(t.name, p) for p in patterns))]
        if not chosen:
            raise SpecError(f"--tensor {' '.join(repr(printable(shorten(p, 60))) for p in patterns)} matches no "
                            f"square 2-D tensor; the file has {_names(tensors)}", file=path)
    else:
        chosen = [t for t in tensors if t.is_square_matrix]
        if not chosen:
            raise SpecError(f"holds no square 2-D tensor to check ({_names(tensors)}); name one with --tensor NAME",
                            file=path)
    total = sum(t.size for t in chosen if t.size <= MAX_MATRIX_ENTRIES)
    if total > MAX_WEIGHTS_ENTRIES:
        raise SpecError(f"the {len(chosen)} tensors to check hold {total} entries, over the limit of "
                        f"{MAX_WEIGHTS_ENTRIES} for one file; pick some with --tensor NAME", file=path)
    return chosen


def matrix_of(tensor: Tensor, path: str) -> np.ndarray:
    """``tensor``'s values as a square float64 matrix, its budget and shape checked first."""
    if tensor.size > MAX_MATRIX_ENTRIES:
        raise SpecError(f"tensor {tensor.name} is {tensor.shape_text()}: {tensor.size} entries exceed the limit of "
                        f"{MAX_MATRIX_ENTRIES}", file=path)
    if not tensor.is_square_matrix:
        raise SpecError(f"tensor {tensor.name} is {tensor.shape_text()}, not a square matrix", file=path)
    if tensor.dtype.lstrip("<>|=")[:1] not in _REAL_KINDS:
        raise SpecError(f"tensor {tensor.name} is of dtype {tensor.dtype}, not real numbers", file=path)
    return tensor.load()


def _names(tensors: list[Tensor], shown: int = 6) -> str:
    listed = ", ".join(f"{printable(shorten(t.name, 60))} ({t.shape_text()})" for t in tensors[:shown])
    return listed + (f" and {len(tensors) - shown} more" if len(tensors) > shown else "")


def _check_file(path: str) -> None:
    try:
        info = os.stat(path)
    except (OSError, ValueError) as err:
        reason = (getattr(err, "strerror", None) or str(err)).lower()
        raise SpecError(f"cannot read: {reason}", file=path) from None
    if not stat.S_ISREG(info.st_mode):
        raise SpecError("is not a regular file (only regular files are read)", file=path)
    if info.st_size > MAX_WEIGHTS_BYTES:
        raise SpecError(f"file of {info.st_size} bytes exceeds the limit of {MAX_WEIGHTS_BYTES} for a weights file",
                        file=path)


# --------------------------------------------------------------------------- .npz


def _npz(path: str) -> list[Tensor]:
    try:
        archive = zipfile.ZipFile(path)
        members = [m for m in archive.infolist() if not m.is_dir()]
        tensors = [_npz_member(path, archive, m) for m in members]
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        raise SpecError(f"not a readable .npz file ({printable(shorten(str(err) or type(err).__name__, 100))})",
                        file=path) from None
    return tensors


def _npz_member(path: str, archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> Tensor:
    from numpy.lib import format as npy

    name = member.filename.removesuffix(".npy")
    with archive.open(member) as fh:
        try:
            version = npy.read_magic(fh)
            reader = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
            shape, fortran, dtype = reader(fh, max_header_size=MAX_NPY_HEADER)
        except (ValueError, OSError, EOFError, SyntaxError, TypeError):
            raise SpecError(f"member {printable(shorten(member.filename, 60))} is not a .npy array", file=path) \
                from None

    def load() -> np.ndarray:
        count = math.prod(shape)
        with zipfile.ZipFile(path) as again, again.open(member) as fh:
            npy.read_magic(fh)
            reader(fh, max_header_size=MAX_NPY_HEADER)
            data = fh.read(count * dtype.itemsize + 1)
        if len(data) != count * dtype.itemsize:
            raise SpecError(f"member {printable(shorten(member.filename, 60))} holds {len(data)} bytes, its header "
                            f"says {count * dtype.itemsize}", file=path)
        a = np.frombuffer(data, dtype=dtype, count=count)
        a = a.reshape(shape[::-1]).T if fortran else a.reshape(shape)
        return a.astype(np.float64)

    kind = dtype.str if dtype.fields is None and dtype.kind in _REAL_KINDS and dtype.itemsize <= 8 else "object"
    return Tensor(name, tuple(shape), kind, load)


# --------------------------------------------------------------------------- .safetensors


def _safetensors(path: str) -> list[Tensor]:
    try:
        from safetensors import SafetensorError, safe_open
    except ImportError:
        raise SpecError("reading .safetensors needs the safetensors library: pip install 'gdlcheck[weights]'",
                        file=path) from None
    try:
        with safe_open(path, framework="numpy") as f:
            listed = [(name, tuple(f.get_slice(name).get_shape()), f.get_slice(name).get_dtype()) for name in f.keys()]
    except (SafetensorError, OSError, ValueError) as err:
        raise SpecError(f"not a readable .safetensors file ({printable(shorten(str(err), 100))})", file=path) \
            from None

    def loader(name: str, shape: tuple[int, ...], dtype: str) -> Callable[[], np.ndarray]:
        def load() -> np.ndarray:
            if dtype == "BF16":  # numpy has no bfloat16: its 16 bits are the top half of a float32
                with open(path, "rb") as fh:
                    raw = np.frombuffer(_safetensors_bytes(fh, name), dtype="<u2")
                return (raw.astype(np.uint32) << 16).view("<f4").astype(np.float64).reshape(shape)
            with safe_open(path, framework="numpy") as f:
                return np.asarray(f.get_tensor(name), dtype=np.float64)
        return load

    return [Tensor(name, shape, _SAFETENSORS_KINDS.get(dtype, dtype), loader(name, shape, dtype))
            for name, shape, dtype in listed]


# safetensors' dtype names as numpy kind codes (BF16 is read by hand: numpy has no bfloat16)
_SAFETENSORS_KINDS = {"BOOL": "b1", "U8": "u1", "I8": "i1", "U16": "u2", "I16": "i2", "U32": "u4", "I32": "i4",
                      "U64": "u8", "I64": "i8", "F16": "f2", "BF16": "f2", "F32": "f4", "F64": "f8"}


def _safetensors_bytes(fh, name: str) -> bytes:
    """The raw bytes of tensor ``name`` in an open .safetensors file (8-byte header length, JSON
    header, data), for the dtype numpy cannot map."""
    import json

    length = int.from_bytes(fh.read(8), "little")
    header = json.loads(fh.read(length))
    start, end = header[name]["data_offsets"]
    fh.seek(8 + length + start)
    return fh.read(end - start)


# --------------------------------------------------------------------------- .pt / .pth


def _torch(path: str) -> list[Tensor]:
    try:
        import torch
    except ImportError:
        raise SpecError("reading a .pt/.pth checkpoint needs PyTorch: install its CPU build, 'pip install torch "
                        "--index-url https://download.pytorch.org/whl/cpu' (a plain 'pip install torch' pulls the "
                        "multi-GB CUDA build), or save the weights with numpy.savez or safetensors",
                        file=path) from None
    try:
        try:
            loaded = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except RuntimeError as err:
            if "mmap" not in str(err):
                raise
            loaded = torch.load(path, map_location="cpu", weights_only=True)  # the legacy format cannot be mapped
    except Exception as err:  # torch raises pickle, zip and runtime errors of many kinds for a bad file
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if "weights_only" in str(err) or "Unsupported global" in str(err):
            raise SpecError("holds more than tensors: torch.load(weights_only=True) refuses to run the code its "
                            "pickle names; save the state_dict (torch.save(model.state_dict(), path)) or use "
                            "safetensors", file=path) from None
        raise SpecError(f"not a checkpoint torch can read ({printable(shorten(first, 100))})", file=path) from None
    found: list[Tensor] = []
    _walk(loaded, "", found, torch)
    return found


def _walk(value, prefix: str, found: list[Tensor], torch) -> None:
    """Every tensor inside ``value`` (a tensor, or dicts, lists and tuples of them), named by its path."""
    if isinstance(value, torch.Tensor):
        tensor = value.detach()

        def load() -> np.ndarray:
            return tensor.to(dtype=torch.float64).numpy()

        kind = "f8" if tensor.is_floating_point() else ("c16" if tensor.is_complex() else "i8")
        found.append(Tensor(prefix or "tensor", tuple(tensor.shape), kind, load))
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(item, f"{prefix}.{key}" if prefix else str(key), found, torch)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _walk(item, f"{prefix}.{i}" if prefix else str(i), found, torch)


def single_matrix(path: str, pattern: str | None = None, what: str = "matrix") -> np.ndarray:
    """The one square 2-D tensor of a weights file (or the one ``pattern`` names), for the
    commands that take one matrix (``project``, ``symmetries``, ``verify --plot``, a spec's
    ``{file: ...}``); of several that ``pattern`` matches, the one square 2-D tensor."""
    tensors = read_tensors(path)
    chosen = select(tensors, (pattern,) if pattern else (), path)
    if len(chosen) > 1:  # a glob may match a weight and its bias: the square ones are the candidates
        chosen = [t for t in chosen if t.is_square_matrix] or chosen
    if len(chosen) != 1:
        raise SpecError(f"holds {len(chosen)} {'matching' if pattern else 'square 2-D'} tensors "
                        f"({_names(chosen)}); a {what} is one of them: name it with --tensor NAME", file=path)
    return matrix_of(chosen[0], path)
