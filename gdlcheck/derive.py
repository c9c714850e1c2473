"""The parameter form a symmetry forces on a linear map.

A linear map from order-``k`` tensors to order-``l`` tensors on ``n`` points commutes with a
permutation group exactly when it is constant on each orbit of the group acting on the
index tuples ``[n]^(l+k)`` (output indices first).  The orbits are computed as connected
components of the graph ``cell -> generator(cell)``, vectorised: ``O(generators x n^(l+k))``
work, never a null space of an ``n^2 x n^2`` system.

For the catalogue groups whose orbits are a formula (cyclic: the offset ``(i - j) mod n``;
dihedral: ``min(k, n - k)``; symmetric: diagonal or not) the pattern is written down
directly; a test checks it against the component method.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.limits import MAX_CELLS


@dataclass
class Derivation:
    """The equivariant maps of one group between two tensor orders."""

    group: PermGroup
    in_order: int
    out_order: int
    pattern: np.ndarray           # int32, shape (n,)*(out_order + in_order): orbit index of each cell
    parameters: list[str]         # one name per orbit
    form: str                     # the form's name, e.g. "circulant"
    formula: str                  # e.g. "W[i, j] = theta_((i - j) mod n)"
    entries: list[str] | None = None  # the entry of each orbit in the matrix (order 1 -> 1)
    channels_in: int = 1
    channels_out: int = 1
    notes: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.group.n

    @property
    def dimension(self) -> int:
        return len(self.parameters)

    @property
    def free_parameters(self) -> int:
        return self.dimension * self.channels_in * self.channels_out

    @property
    def unconstrained_parameters(self) -> int:
        n = self.n
        return (n**self.out_order * self.channels_out) * (n**self.in_order * self.channels_in)

    def matrix_strings(self) -> list[list[str]] | None:
        """``matrix[i][j]``: the entry as a string, for order 1 -> 1."""
        if (self.out_order, self.in_order) != (1, 1):
            return None
        names = np.asarray(self.entries or self.parameters, dtype=object)
        return names[self.pattern].tolist()

    def basis(self) -> np.ndarray:
        """The basis array: ``dimension x (out shape) x (in shape)``, 0/1 entries."""
        flat = self.pattern.ravel()
        out = np.zeros((self.dimension, flat.size), dtype=np.int8)
        out[flat, np.arange(flat.size)] = 1
        return out.reshape((self.dimension,) + self.pattern.shape)


# --------------------------------------------------------------------------- orbits


def check_cells(n: int, order: int, what: str = "derivation") -> int:
    cells = n**order
    if cells > MAX_CELLS:
        raise LimitError(
            f"the {what} has n^{order} = {cells:.3g} index cells ({cells * 4 / 2**30:.3g} GiB as int32), "
            f"over the limit of {MAX_CELLS} cells"
        )
    return cells


def orbit_labels(group: PermGroup, order: int) -> np.ndarray:
    """Orbits of ``group`` on ``[n]^order`` as connected components, numbered by first appearance.

    Returns an int32 array of shape ``(n,) * order``; cell ``(i1, .., im)`` holds its orbit's
    index, and orbits are numbered in the row-major order of their first cell.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = group.n
    cells = check_cells(n, order)
    if order == 0:
        return np.zeros((), dtype=np.int32)
    gens = group.gen_arrays()
    if not gens:
        return np.arange(cells, dtype=np.int32).reshape((n,) * order)
    index_dtype = np.int32 if cells < 2**31 else np.int64
    src = np.arange(cells, dtype=index_dtype)
    targets = [_moved_cells(s, order, index_dtype) for s in gens]
    graph = coo_matrix(
        (np.ones(cells * len(gens), dtype=np.int8), (np.tile(src, len(gens)), np.concatenate(targets))),
        shape=(cells, cells),
    )
    del targets
    _, labels = connected_components(graph, directed=True, connection="weak")
    return first_appearance(labels).reshape((n,) * order)


def _moved_cells(s: np.ndarray, order: int, dtype) -> np.ndarray:
    """Flat index of ``(s[i1], .., s[im])`` for every cell ``(i1, .., im)``, row-major."""
    n = len(s)
    out = np.zeros((n,) * order, dtype=dtype)
    for axis in range(order):
        shape = [1] * order
        shape[axis] = n
        out += (s.astype(dtype) * dtype(n ** (order - 1 - axis))).reshape(shape)
    return out.ravel()


def first_appearance(labels: np.ndarray) -> np.ndarray:
    """Renumber labels ``0, 1, ..`` in the order of their first occurrence."""
    labels = np.asarray(labels).ravel()
    uniq, first = np.unique(labels, return_index=True)
    rank = np.empty(len(uniq), dtype=np.int32)
    rank[np.argsort(first, kind="stable")] = np.arange(len(uniq), dtype=np.int32)
    remap = np.empty(int(uniq.max()) + 1 if len(uniq) else 0, dtype=np.int32)
    remap[uniq] = rank
    return remap[labels]


# --------------------------------------------------------------------------- named forms (order 1 -> 1)


def _offsets(n: int) -> np.ndarray:
    return ((np.arange(n, dtype=np.int64)[:, None] - np.arange(n, dtype=np.int64)[None, :]) % n).astype(np.int32)


def closed_form_pattern(group: PermGroup) -> np.ndarray | None:
    """The 1 -> 1 pattern of a catalogue group whose orbitals are a formula, else None."""
    n = group.n
    if group.name == "cyclic":
        return _offsets(n)
    if group.name == "dihedral":
        k = _offsets(n)
        return np.minimum(k, (n - k) % n).astype(np.int32)
    if group.name == "symmetric" or (group.name == "alternating" and n >= 4):
        return (1 - np.eye(n, dtype=np.int32)) if n > 1 else np.zeros((1, 1), dtype=np.int32)
    if group.name == "trivial":
        return np.arange(n * n, dtype=np.int32).reshape(n, n)
    return None


def derive(group: PermGroup, in_order: int = 1, out_order: int = 1, channels_in: int = 1,
           channels_out: int = 1) -> Derivation:
    """Derive the equivariant linear maps of ``group`` from order ``in_order`` to ``out_order``."""
    for label, value in (("in-order", in_order), ("out-order", out_order)):
        if not 0 <= value <= 4:
            raise LimitError(f"--{label} must be between 0 and 4, got {value}")
    for label, value in (("channels-in", channels_in), ("channels-out", channels_out)):
        if value < 1:
            raise LimitError(f"--{label} must be a positive integer, got {value}")
    order = in_order + out_order
    n = group.n
    if (in_order, out_order) == (1, 1):
        check_cells(n, 2)
        pattern = closed_form_pattern(group)
        if pattern is None:
            pattern = orbit_labels(group, 2)
        params, form, formula, entries = _name_1to1(group, pattern)
    else:
        pattern = orbit_labels(group, order)
        dim = int(pattern.max()) + 1 if pattern.size else 1
        params = [f"w_{k}" for k in range(dim)]
        form = "orbit basis"
        formula = (f"T_out[{_idx('i', out_order)}] = sum over orbits o of w_o * "
                   f"sum of T_in[{_idx('j', in_order)}] with ({_idx('i', out_order)}{', ' if out_order and in_order else ''}"
                   f"{_idx('j', in_order)}) in o")
        entries = None
    return Derivation(group=group, in_order=in_order, out_order=out_order, pattern=pattern, parameters=params,
                      form=form, formula=formula, entries=entries, channels_in=channels_in,
                      channels_out=channels_out)


def _idx(letter: str, k: int) -> str:
    return ", ".join(f"{letter}{t}" for t in range(1, k + 1))


def _name_1to1(group: PermGroup, pattern: np.ndarray):
    n = group.n
    dim = int(pattern.max()) + 1
    if group.name == "cyclic":
        params = [f"theta_{k}" for k in range(dim)]
        return params, "circulant", "W[i, j] = theta_((i - j) mod n)", None
    if group.name == "dihedral":
        params = [f"theta_{k}" for k in range(dim)]
        return params, "symmetric circulant", "W[i, j] = theta_(min(k, n - k)), k = (i - j) mod n", None
    if group.name == "symmetric" and n > 1:
        return ["alpha", "beta"], "alpha*I + beta*11^T", "W = alpha*I + beta*11^T", ["alpha + beta", "beta"]
    params = [f"w_{k}" for k in range(dim)]
    if group.name == "trivial":
        return params, "unconstrained", "W[i, j] = w_(i*n + j)", None
    return params, "orbit basis", "W[i, j] = w_k for (i, j) in orbit k (numbered by first appearance)", None


# --------------------------------------------------------------------------- projection


def project(W: np.ndarray, group: PermGroup) -> tuple[np.ndarray, float]:
    """The nearest equivariant matrix (orbit averages) and the relative Frobenius distance."""
    d = derive(group)
    labels = d.pattern.ravel()
    sums = np.bincount(labels, weights=W.ravel(), minlength=d.dimension)
    counts = np.bincount(labels, minlength=d.dimension)
    P = (sums / counts)[labels].reshape(W.shape)
    norm = float(np.linalg.norm(W))
    dist = float(np.linalg.norm(W - P)) / norm if norm > 0 else 0.0
    return P, dist


def burnside_dimension(group: PermGroup, order: int = 2) -> int:
    """(1/|G|) sum_g fix(g)^order, by enumerating the group (small groups, for tests)."""
    elements = group.elements()
    total = sum(sum(1 for i, x in enumerate(g) if i == x) ** order for g in elements)
    return total // len(elements)


__all__ = ["Derivation", "derive", "orbit_labels", "closed_form_pattern", "project", "first_appearance",
           "burnside_dimension"]


# --------------------------------------------------------------------------- output forms


def pattern_csv(pattern: np.ndarray) -> str:
    """The 1 -> 1 pattern as CSV, entry = parameter index (itself an equivariant matrix)."""
    return "".join(",".join(map(str, row)) + "\n" for row in pattern.tolist())


def latex_name(name: str) -> str:
    """``theta_3`` -> ``\\theta_{3}``; ``alpha + beta`` -> ``\\alpha + \\beta``."""
    import re

    greek = {"theta", "alpha", "beta", "gamma", "lambda"}

    def one(m):
        base, sub = m.group(1), m.group(2)
        base = "\\" + base if base in greek else base
        return f"{base}_{{{sub}}}" if sub is not None else base

    return re.sub(r"([A-Za-z]+)(?:_(\w+))?", one, name)


def latex_matrix(matrix: list[list[str]]) -> str:
    rows = [" & ".join(latex_name(x) for x in row) + r" \\" for row in matrix]
    return "\\begin{bmatrix}\n" + "\n".join(rows) + "\n\\end{bmatrix}\n"


def explain(d: Derivation) -> list[str]:
    """The constraints each generator imposes, as the texts' proofs write them, then the orbits."""
    from gdlcheck.groups import cycle_string

    n = d.n
    lines = [f"W commutes with every element of the group exactly when it commutes with each generator s, "
             f"i.e. W[s(i), s(j)] = W[i, j] for all i, j (P[s(j), j] = 1)."]
    for g in d.group.gens:
        lines.append(f"- s = {cycle_string(g)}: " + _constraint_text(g, n))
    if (d.in_order, d.out_order) != (1, 1):
        lines[0] = ("A map from order-k to order-l tensors commutes with the group exactly when it is constant "
                    "on the orbits of the index tuples (output indices first) under each generator.")
    lines.append(f"The constraints tie the {d.n ** (d.in_order + d.out_order)} entries into {d.dimension} orbits, "
                 f"one free parameter each: {d.form}.")
    return lines


def _constraint_text(g: tuple, n: int) -> str:
    moved = [i for i in range(n) if g[i] != i]
    if g == tuple((j + 1) % n for j in range(n)):
        return "W[i+1, j+1] = W[i, j] (indices mod n), so W is constant on cyclic diagonals: W[i, j] depends on (i - j) mod n."
    if g == tuple((-j) % n for j in range(n)):
        return "W[-i, -j] = W[i, j] (mod n): offset k and offset n - k carry the same value."
    if len(moved) == 2:
        a, b = moved
        return (f"W[{a}, {a}] = W[{b}, {b}] and W[{a}, k] = W[{b}, k], W[k, {a}] = W[k, {b}] for every other k: "
                f"points {a} and {b} are interchangeable.")
    return "W[s(i), s(j)] = W[i, j]: W is constant along the cycles of s acting on pairs (i, j)."
