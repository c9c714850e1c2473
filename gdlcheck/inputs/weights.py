"""Trained weights files: PyTorch checkpoints (``.pt``, ``.pth``), ``.safetensors`` and numpy
archives (``.npz``), read as named tensors (the readers are in :mod:`gdlcheck.inputs.tensor_files`:
nothing in such a file runs, and each file is opened once).

:func:`read_tensors` lists a file's tensors (names and shapes) without building the big ones;
each :class:`Tensor` loads its values when asked.  :func:`select` picks the ones to check:
every square 2-D tensor, or those named by ``--tensor`` globs.  The budgets are per tensor
(:data:`~gdlcheck.limits.MAX_MATRIX_ENTRIES`) and per file (:data:`MAX_WEIGHTS_BYTES` on
disk, :data:`MAX_WEIGHTS_ENTRIES` selected), checked before the values are read.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.inputs.tensor_files import REAL_KINDS, Tensor, read_checkpoint, read_npz, read_safetensors
from gdlcheck.limits import MAX_MATRIX_ENTRIES
from gdlcheck.text import printable, shorten

WEIGHTS_SUFFIXES = (".pt", ".pth", ".safetensors", ".npz")
MAX_WEIGHTS_BYTES = 8 * 2**30  # a weights file on disk (tensors are read one by one)
MAX_WEIGHTS_ENTRIES = 2 * MAX_MATRIX_ENTRIES  # entries of all the tensors checked in one file (1 GiB as float64)


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
    reader = {".npz": read_npz, ".safetensors": read_safetensors}.get(suffix, read_checkpoint)
    tensors = reader(path)
    if not tensors:
        raise SpecError("holds no tensors", file=path)
    return tensors


def select(
    tensors: list[Tensor], patterns: tuple[str, ...], path: str, judged: Callable[[Tensor], bool] | None = None
) -> list[Tensor]:
    """The tensors to check: those named in ``patterns`` and the ones to judge (``judged``, by
    default the square 2-D ones) that a glob of ``patterns`` matches (each pattern must match a
    tensor); else every tensor with ``judged`` given (one at least to judge), every square 2-D one
    without.  The tensors to judge are held to the file's budget."""
    given = judged
    what = "square 2-D tensor" if given is None else "tensor on the points"
    judged = judged or (lambda t: t.is_square_matrix)
    if patterns:
        for pattern in patterns:
            if not any(fnmatch.fnmatchcase(t.name, pattern) for t in tensors):
                raise SpecError(
                    f"--tensor {printable(shorten(pattern, 60))!r} matches no tensor; the file has {_names(tensors)}",
                    file=path,
                )
        # a tensor named exactly is checked whatever its shape (an error row if it cannot be);
        # a glob picks the ones to judge that it matches (conv.* means conv.weight, not conv.bias)
        chosen = [
            t
            for t in tensors
            if t.name in patterns or (judged(t) and any(fnmatch.fnmatchcase(t.name, p) for p in patterns))
        ]
        if not chosen:
            raise SpecError(
                f"--tensor {' '.join(repr(printable(shorten(p, 60))) for p in patterns)} matches no "
                f"{what}; the file has {_names(tensors)}",
                file=path,
            )
    else:
        if not any(judged(t) for t in tensors):
            raise SpecError(
                f"holds no {what} to check ({_names(tensors)}); "
                + (
                    "name one with --tensor NAME"
                    if given is None
                    else "check the model with --callable MODULE:ATTR --weights FILE"
                ),
                file=path,
            )
        chosen = [t for t in tensors if judged(t)] if given is None else list(tensors)
    to_judge = [t for t in chosen if judged(t)]
    total = sum(t.size for t in to_judge if t.size <= MAX_MATRIX_ENTRIES)
    if total > MAX_WEIGHTS_ENTRIES:
        raise SpecError(
            f"the {len(to_judge)} tensors to check hold {total} entries, over the limit of "
            f"{MAX_WEIGHTS_ENTRIES} for one file; pick some with --tensor NAME",
            file=path,
        )
    return chosen


def values_of(tensor: Tensor, path: str) -> np.ndarray:
    """``tensor``'s values as float64, its budget and dtype checked first."""
    if tensor.problem is not None:
        raise SpecError(f"tensor {tensor.name} {tensor.problem}", file=path)
    if tensor.size > MAX_MATRIX_ENTRIES:
        raise SpecError(
            f"tensor {tensor.name} is {tensor.shape_text()}: {tensor.size} entries exceed the limit of "
            f"{MAX_MATRIX_ENTRIES}",
            file=path,
        )
    if tensor.dtype.lstrip("<>|=")[:1] not in REAL_KINDS:
        raise SpecError(f"tensor {tensor.name} is of dtype {tensor.dtype}, not real numbers", file=path)
    return tensor.load()


def matrix_of(tensor: Tensor, path: str) -> np.ndarray:
    """``tensor``'s values as a square float64 matrix, its budget and shape checked first."""
    if tensor.problem is None and tensor.size <= MAX_MATRIX_ENTRIES and not tensor.is_square_matrix:
        raise SpecError(f"tensor {tensor.name} is {tensor.shape_text()}, not a square matrix", file=path)
    return values_of(tensor, path)


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
        raise SpecError(
            f"file of {info.st_size} bytes exceeds the limit of {MAX_WEIGHTS_BYTES} for a weights file", file=path
        )


def single_matrix(path: str, pattern: str | None = None, what: str = "matrix") -> np.ndarray:
    """The one square 2-D tensor of a weights file (or the one ``pattern`` names), for the
    commands that take one matrix (``project``, ``symmetries``, ``verify --plot``, a spec's
    ``{file: ...}``); of several that ``pattern`` matches, the one square 2-D tensor."""
    tensors = read_tensors(path)
    chosen = select(tensors, (pattern,) if pattern else (), path)
    if len(chosen) > 1:  # a glob may match a weight and its bias: the square ones are the candidates
        chosen = [t for t in chosen if t.is_square_matrix] or chosen
    if len(chosen) != 1:
        raise SpecError(
            f"holds {len(chosen)} {'matching' if pattern else 'square 2-D'} tensors "
            f"({_names(chosen)}); a {what} is one of them: name it with --tensor NAME",
            file=path,
        )
    return matrix_of(chosen[0], path)
