"""Graphs from files: a scipy.sparse ``.npz`` archive, or a matrix file holding a square adjacency or a
2 x E edge list.

A graph file is read with the care a ``.npy`` matrix gets, because scipy trusts what it is given: a
CSR whose row pointers are not monotone crashed the process (SIGSEGV) inside scipy's C code.
So nothing of an ``.npz`` reaches scipy before it is checked here:

* the archive is a regular file within ``MAX_FILE_BYTES`` (read by :func:`read_bytes`: a FIFO is
  refused, never opened);
* each member's size is taken from the zip central directory before it is read, the members
  together within ``MAX_GRAPH_BYTES`` decompressed, and each is read in blocks that stop past
  its budget (a zip bomb that lies in its directory stops there too);
* each member's ``.npy`` header is read with ``MAX_NPY_HEADER`` and its dtype and entry count
  checked before its data is read;
* the structure is checked entry by entry (row pointers from 0, non-decreasing, ending at the
  number of entries; indices in range) and the matrix is built from (row, column, value)
  triples, which scipy cannot mistake.

Node labels of an edge list are read as integers, never through float64, where ``2**63 - 1``
rounds to a number past int64.
"""

from __future__ import annotations

import importlib
import io
import math
import os
import zipfile
import zlib
from types import ModuleType

import numpy as np

from gdlcheck.errors import SpecError
from gdlcheck.inputs.files import read_bytes
from gdlcheck.inputs.matrices import load_matrix, read_npy_header
from gdlcheck.limits import MAX_GRAPH_BYTES, MAX_MATRIX_ENTRIES, MAX_POINTS

lzma: ModuleType | None
try:
    lzma = importlib.import_module("lzma")
except ImportError:  # a Python built without it reads no LZMA member either
    lzma = None

# the members scipy.sparse.save_npz writes, per format (bsr and dia are not read)
_MEMBERS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"), "coo": ("data", "row", "col")}
_BLOCK = 1 << 20
# What reading a damaged member raises: zipfile's own errors, and the decompressors' (zlib.error
# for a deflate stream that is not one is not an OSError)
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    zlib.error,
) + ((lzma.LZMAError,) if lzma is not None else ())


def load_graph_file(path: str, n: int | None = None):
    """A graph from a file, checked (see the module), in one of the forms of :mod:`gdlcheck.code.graphs`:
    a scipy.sparse CSR matrix (``.npz``), an int64 ``(2, E)`` edge list (a 2 x E matrix of whole
    numbers, E != 2) or a float64 ``(n, n)`` adjacency.  ``n`` is the group's number of points,
    when known.

    Raises SpecError, located at ``path``, for anything malformed or past a budget.
    """
    if os.path.splitext(path)[1].lower() == ".npz":
        A = read_sparse_npz(read_bytes(path), path)
        nodes = A.shape[0]
        if A.shape[0] != A.shape[1]:
            raise SpecError(f"a sparse adjacency must be square, got {A.shape[0]} x {A.shape[1]}", file=path)
    else:
        A = load_matrix(path, what="graph", integers=True)
        if A.dtype == object:
            raise SpecError("a graph's adjacency matrix must hold numbers", file=path)
        if A.shape[0] == 2 and A.shape[1] != 2 and (A.dtype.kind in "iu" or _whole(A)):
            return _edge_list(A, n, path)
        A = A.astype(np.float64, copy=False)
        nodes = A.shape[0]
        if A.shape[0] != A.shape[1]:
            raise SpecError(
                f"graph is {A.shape[0]} x {A.shape[1]}: an adjacency is square (n x n) and an edge list "
                "is 2 x E integers",
                file=path,
            )
    if n is not None and nodes != n:
        raise SpecError(f"graph has {nodes} nodes but the group acts on n = {n}", file=path)
    return A


def _whole(A: np.ndarray) -> bool:
    return A.size > 0 and bool(np.all(np.isfinite(A))) and bool(np.all(A == np.round(A)))


def _edge_list(A: np.ndarray, n: int | None, path: str) -> np.ndarray:
    """A 2 x E matrix of whole numbers as an int64 edge list, its labels checked as integers: a label
    past int64 (read as float64: it did not fit) is refused by its value, never wrapped around."""
    if A.dtype.kind == "f" and np.abs(A).max() >= 2.0**63:
        raise SpecError(
            f"an edge list names node {A.flat[np.argmax(np.abs(A))]:.0f}, past the largest int64 (node "
            "labels are 0..n-1)",
            file=path,
        )
    ei = A.astype(np.int64, copy=False)
    if ei.size and ei.min() < 0:
        raise SpecError(f"an edge list holds node labels 0..n-1, found {int(ei.min())}", file=path)
    if n is not None and ei.size and ei.max() >= n:
        raise SpecError(f"an edge list names node {int(ei.max())}, but there are n = {n} nodes (0..{n - 1})", file=path)
    if ei.size and ei.max() >= MAX_POINTS:
        raise SpecError(
            f"an edge list names node {int(ei.max())}: a graph has at most {MAX_POINTS} nodes (0..{MAX_POINTS - 1})",
            file=path,
        )
    return ei


def read_sparse_npz(data: bytes, path: str):
    """A scipy.sparse CSR matrix from the bytes of a ``save_npz`` archive, every part checked first."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = {info.filename: info for info in archive.infolist()}
    except _ARCHIVE_ERRORS as err:
        raise SpecError(
            f"not a scipy.sparse .npz file (not a readable zip archive: {str(err)[:120]})", file=path
        ) from None
    total = sum(info.file_size for info in infos.values())
    if total > MAX_GRAPH_BYTES:
        raise SpecError(
            f"the archive's members hold {total} bytes decompressed, over the limit of {MAX_GRAPH_BYTES}", file=path
        )
    budget = [MAX_GRAPH_BYTES]

    def member(name: str, kinds: str, ndim: int | None) -> np.ndarray:
        info = infos.get(f"{name}.npy")
        if info is None:
            raise SpecError(f"not a scipy.sparse .npz file (no member {name}.npy)", file=path)
        return _read_member(archive, info, kinds, ndim, budget, path)

    stored = member("format", "SU", 0)
    fmt = stored.item().decode("ascii", "replace") if stored.dtype.kind == "S" else str(stored.item())
    if fmt not in _MEMBERS:
        raise SpecError(f"a sparse graph in format {fmt[:20]!r} is not read; save it as csr, csc or coo", file=path)
    shape = member("shape", "iu", 1)
    if shape.size != 2:
        raise SpecError(f"the shape member holds {shape.size} numbers, expected 2 (rows, columns)", file=path)
    rows, cols = (int(v) for v in shape)
    if min(rows, cols) < 0 or max(rows, cols) > MAX_POINTS:
        raise SpecError(f"a sparse graph of shape {rows} x {cols}: each side is 0..{MAX_POINTS}", file=path)
    data_name, first, second = _MEMBERS[fmt]
    values = member(data_name, "biuf", 1)
    a = member(first, "iu", 1)
    b = member(second, "iu", 1)
    if fmt == "coo":
        row, col = a, b
    else:
        major, minor = (rows, cols) if fmt == "csr" else (cols, rows)
        count = _check_pointers(b, major, len(a), path)
        _check_labels(a, minor, "column" if fmt == "csr" else "row", path)
        lead = np.repeat(np.arange(major, dtype=np.int64), count)
        row, col = (lead, a) if fmt == "csr" else (a, lead)
    if not (len(row) == len(col) == len(values)):
        raise SpecError(
            f"the {fmt} arrays differ in length ({len(values)} values, {len(row)} and {len(col)} indices)", file=path
        )
    _check_labels(row, rows, "row", path)
    _check_labels(col, cols, "column", path)
    values = values.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise SpecError("the sparse adjacency holds NaN or infinite entries", file=path)
    import scipy.sparse as sp

    return sp.coo_matrix((values, (row.astype(np.int64), col.astype(np.int64))), shape=(rows, cols)).tocsr()


def _check_pointers(indptr: np.ndarray, major: int, entries: int, path: str) -> np.ndarray:
    """The number of entries of each row (column), from pointers checked to run from 0 up to ``entries``."""
    if len(indptr) != major + 1:
        raise SpecError(f"indptr has {len(indptr)} entries, expected {major + 1} (one per row and one more)", file=path)
    ptr = indptr.astype(np.int64) if indptr.dtype != np.uint64 else indptr
    if int(ptr[0]) != 0 or int(ptr[-1]) != entries:
        raise SpecError(
            f"indptr runs from {int(ptr[0])} to {int(ptr[-1])}, expected 0 to {entries} (the number of stored entries)",
            file=path,
        )
    steps = np.diff(ptr.astype(np.int64))
    if steps.size and steps.min() < 0:
        at = int(np.argmax(steps < 0))
        raise SpecError(
            f"indptr decreases at {at + 1} ({int(ptr[at])} then {int(ptr[at + 1])}): row pointers are non-decreasing",
            file=path,
        )
    return steps


def _check_labels(index: np.ndarray, size: int, what: str, path: str) -> None:
    if index.size == 0:
        return
    low, high = int(index.min()), int(index.max())
    if low < 0 or high >= size:
        bad = low if low < 0 else high
        raise SpecError(f"a {what} index of {bad} is outside 0..{size - 1}", file=path)


def _read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, kinds: str, ndim: int | None, budget: list, path: str
) -> np.ndarray:
    """One ``.npy`` member: its header checked, then at most its declared bytes read, in blocks that stop
    past the archive's remaining budget (whatever the central directory said)."""
    where = info.filename
    try:
        with archive.open(info) as fh:
            shape, fortran, dtype = read_npy_header(fh)
            if dtype.kind not in kinds or dtype.fields is not None or (dtype.kind in "biuf" and dtype.itemsize > 8):
                raise SpecError(
                    f"holds {str(dtype)[:40]} values, expected {_kind_words(kinds)}", file=path, where=where
                )
            if ndim is not None and len(shape) != ndim:
                raise SpecError(f"is {len(shape)}-D, expected {ndim}-D", file=path, where=where)
            size = math.prod(shape)
            if size > MAX_MATRIX_ENTRIES:
                raise SpecError(
                    f"the header says {size} entries, over the limit of {MAX_MATRIX_ENTRIES}", file=path, where=where
                )
            want = size * dtype.itemsize
            if want > budget[0]:
                raise SpecError(
                    f"the header says {want} bytes, over the archive's limit of {MAX_GRAPH_BYTES} decompressed",
                    file=path,
                    where=where,
                )
            raw = _read_exactly(fh, want)
    except SpecError:
        raise
    except _ARCHIVE_ERRORS as err:
        raise SpecError(f"cannot be read ({str(err)[:120]})", file=path, where=where) from None
    if len(raw) < want:
        raise SpecError(
            f"the header says {size} entries, the member holds {len(raw) // max(dtype.itemsize, 1)}",
            file=path,
            where=where,
        )
    budget[0] -= want
    a = np.frombuffer(raw, dtype=dtype, count=size)
    return a.reshape(shape[::-1]).T if fortran else a.reshape(shape)


def _read_exactly(fh, want: int) -> bytes:
    parts, got = [], 0
    while got < want:
        block = fh.read(min(_BLOCK, want - got))
        if not block:
            break
        parts.append(block)
        got += len(block)
    return b"".join(parts)


def _kind_words(kinds: str) -> str:
    return {"SU": "a format name (text)", "iu": "integers", "biuf": "real numbers"}[kinds]
