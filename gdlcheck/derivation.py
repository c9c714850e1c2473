"""The parameter form a symmetry forces on a linear map.

A linear map from order-``k`` tensors to order-``l`` tensors on ``n`` points commutes with a
permutation group exactly when it is constant on each orbit of the group acting on the
index tuples ``[n]^(l+k)`` (output indices first).  The reference method computes the
orbits as connected components of the graph ``cell -> generator(cell)``, vectorised:
``O(generators x n^(l+k))`` work, never a null space of an ``n^2 x n^2`` system.

Faster paths give exactly the same pattern (tests compare them with the reference):

* closed forms, evaluated lazily, cell by cell, so a form is printed without building the
  pattern (``symmetric`` with ``n = 10^6``): cyclic (the offset ``(i - j) mod n``), dihedral
  (``min(k, n - k)``), symmetric and large alternating (the set partition of the index
  slots by equality), trivial, translations (the grid offset), p4/p4m (the offset up to the
  rotations/reflections that fix the origin);
* order 1 -> 1 for any other group: orbitals from a transversal and the orbits of point
  stabilisers (Schreier generators), ``O(n^2)`` array work.

Pattern numbering: cyclic, dihedral and translations use the offset (translations: the
offset vector ``(coord(i) - coord(j)) mod shape`` flattened row-major, so ``translations``
on shape ``n`` equals ``cyclic`` on ``n``); every other group numbers orbits by the row-major
order of their first cell (symmetric 1 -> 1: diagonal 0, off-diagonal 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np

from gdlcheck.errors import GroupError, LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.limits import MAX_CELLS

# The basis array (int8) may hold this many entries: dimension x n^(l+k).
MAX_BASIS_ENTRIES = 4 * MAX_CELLS
# Orbits listed one by one in --explain only below this many cells.
_EXPLAIN_CELLS = 1 << 20


@dataclass
class Derivation:
    """The equivariant maps of one group between two tensor orders.

    ``pattern`` (int32, shape ``(n,) * (out_order + in_order)``, output indices first) holds
    the orbit index of each cell.  It is built on first use: closed forms give ``label`` (a
    function of broadcastable index arrays), so a form can be shown without it.
    """

    group: PermGroup
    in_order: int
    out_order: int
    dimension: int
    form: str                     # the form's name, e.g. "circulant"
    formula: str                  # e.g. "W[i, j] = theta_((i - j) mod n)"
    name_of: Callable[[int], str]  # parameter name of orbit k
    entry_of: Callable[[int], str] | None = None  # the matrix entry of orbit k (order 1 -> 1)
    label: Callable[..., np.ndarray] | None = None  # closed form: index arrays -> orbit index
    partitions: list[str] | None = None  # symmetric group: the set partition of each orbit
    channels_in: int = 1
    channels_out: int = 1
    notes: list[str] = field(default_factory=list)
    _pattern: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.group.n

    @property
    def order(self) -> int:
        return self.in_order + self.out_order

    @property
    def cells(self) -> int:
        return self.n ** self.order

    @property
    def free_parameters(self) -> int:
        return self.dimension * self.channels_in * self.channels_out

    @property
    def unconstrained_parameters(self) -> int:
        n = self.n
        return (n**self.out_order * self.channels_out) * (n**self.in_order * self.channels_in)

    @property
    def pattern(self) -> np.ndarray:
        if self._pattern is None:
            check_cells(self.n, self.order)
            if self.label is not None:
                self._pattern = _full_labels(self.label, self.n, self.order)
            else:
                self._pattern = orbit_labels(self.group, self.order)
        return self._pattern

    def pattern_block(self, rows, cols) -> np.ndarray:
        """``pattern[np.ix_(rows, cols)]`` for order 1 -> 1, without building the whole pattern."""
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if self._pattern is None and self.label is not None:
            return np.broadcast_to(self.label(rows[:, None], cols[None, :]), (len(rows), len(cols)))
        return self.pattern[np.ix_(rows, cols)]

    @property
    def parameters(self) -> list[str]:
        _check_count(self.dimension, "parameter names")
        return [self.name_of(k) for k in range(self.dimension)]

    def entry_names(self) -> list[str]:
        fn = self.entry_of or self.name_of
        return [fn(k) for k in range(self.dimension)]

    def entry(self, k: int) -> str:
        return (self.entry_of or self.name_of)(k)

    def matrix_strings(self) -> list[list[str]] | None:
        """``matrix[i][j]``: the entry as a string, for order 1 -> 1."""
        if (self.out_order, self.in_order) != (1, 1):
            return None
        names = np.asarray(self.entry_names(), dtype=object)
        return names[self.pattern].tolist()

    def orbit_sizes(self) -> np.ndarray:
        return np.bincount(self.pattern.ravel(), minlength=self.dimension)

    def basis(self) -> np.ndarray:
        """The basis array: ``dimension x (out shape) x (in shape)``, 0/1 entries (int8)."""
        total = self.dimension * self.cells
        if total > MAX_BASIS_ENTRIES:
            raise LimitError(
                f"the basis array would have {self.dimension} x {self.cells} = {total:.3g} entries "
                f"({total / 2**30:.3g} GiB as int8), over the limit of {MAX_BASIS_ENTRIES} entries; "
                "use --format json for the pattern"
            )
        flat = self.pattern.ravel()
        out = np.zeros((self.dimension, flat.size), dtype=np.int8)
        out[flat, np.arange(flat.size)] = 1
        return out.reshape((self.dimension,) + self.pattern.shape)


# --------------------------------------------------------------------------- budget


def check_cells(n: int, order: int, what: str = "derivation") -> int:
    """Refuse a pattern of more than MAX_CELLS index tuples, stating the estimate."""
    cells = n**order
    if cells > MAX_CELLS:
        raise LimitError(
            f"the {what} has n^{order} = {n}^{order} = {cells:.3g} index cells "
            f"(the pattern alone needs {cells * 4 / 2**30:.3g} GiB as int32, the orbit search about 4x that), "
            f"over the limit of {MAX_CELLS} cells; the text report of a closed form (cyclic, dihedral, "
            "symmetric, translations, p4, p4m) needs no pattern"
        )
    return cells


def _check_count(count: int, what: str) -> None:
    if count > MAX_CELLS:
        raise LimitError(f"{count:.3g} {what} are over the limit of {MAX_CELLS}; "
                         "the text report prints the form without them")


def _full_labels(label, n: int, order: int) -> np.ndarray:
    """The whole pattern of a closed form, written block by block of the first index.

    Index arrays are int32 and each block's temporaries stay near ``_BLOCK_CELLS`` cells, so
    the peak stays close to the int32 pattern itself (DESIGN.md section 7: within 4x).
    """
    if order == 0:
        return np.asarray(label(), dtype=np.int32).reshape(())
    itype = np.int32 if n < 2**31 else np.int64
    idx = [np.arange(n, dtype=itype).reshape([n if a == b else 1 for b in range(order)]) for a in range(order)]
    out = np.empty((n,) * order, dtype=np.int32)
    step = max(1, _BLOCK_CELLS // max(1, n ** (order - 1)))
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = label(idx[0][start:stop], *idx[1:])
        out[start:stop] = np.broadcast_to(block, (stop - start,) + (n,) * (order - 1))
    return out


# Cells per block when a pattern is written in pieces: small temporaries, few Python steps.
_BLOCK_CELLS = 1 << 16


# --------------------------------------------------------------------------- reference method


def orbit_labels(group: PermGroup, order: int) -> np.ndarray:
    """Orbits of ``group`` on ``[n]^order`` as connected components, numbered by first appearance.

    The reference method.  Returns an int32 array of shape ``(n,) * order``; cell
    ``(i1, .., im)`` holds its orbit's index, and orbits are numbered in the row-major order of
    their first cell.

    The components of the graph ``cell -> generator(cell)`` are found by min-label
    propagation: every cell holds the least cell reached so far, takes the least label of its
    images and preimages under each generator, then jumps to its label's label; at the fixed
    point each cell holds its orbit's first cell.  All in place on one int32 array, in blocks
    of the first index, so the peak stays within a few times the pattern (no edge list).
    """
    n = group.n
    cells = check_cells(n, order)
    if order == 0:
        return np.zeros((), dtype=np.int32)
    gens = group.gen_arrays()
    if not gens:
        return np.arange(cells, dtype=np.int32).reshape((n,) * order)
    itype = np.int32 if cells < 2**31 else np.int64
    label = np.arange(cells, dtype=itype)
    rest = n ** (order - 1)
    step = max(1, _BLOCK_CELLS // rest)
    maps = []
    for s in gens:
        s = np.asarray(s, dtype=np.int64)
        inv = np.empty_like(s)
        inv[s] = np.arange(n)
        for p in (s, inv):  # images, then preimages
            maps.append(((p * rest).astype(itype), _moved_cells(p, order - 1, itype)))
    while True:
        changed = False
        for head, tail in maps:
            for start in range(0, n, step):
                stop = min(start + step, n)
                block = label[start * rest:stop * rest]
                moved = (head[start:stop, None] + tail[None, :]).ravel()
                other = label[moved]
                if (other < block).any():
                    np.minimum(block, other, out=block)
                    changed = True
        # pointer jumping: label[c] is a cell of c's orbit, and label[label[c]] <= label[c]
        jumping = True
        while jumping:
            jumping = False
            for start in range(0, cells, _BLOCK_CELLS):
                block = label[start:start + _BLOCK_CELLS]
                jumped = label[block]
                if not np.array_equal(jumped, block):
                    block[...] = jumped
                    jumping = changed = True
        if not changed:
            break
    # the roots (cells that are their own label) are the orbits' first cells, in row-major
    # order: an orbit's number is the count of roots before it
    rank = np.empty(cells, dtype=np.int32)
    total = 0
    for start in range(0, cells, _BLOCK_CELLS):
        block = label[start:start + _BLOCK_CELLS]
        is_root = block == np.arange(start, start + block.size, dtype=itype)
        np.cumsum(is_root, dtype=np.int32, out=rank[start:start + block.size])
        rank[start:start + block.size] += np.int32(total - 1)
        total += int(is_root.sum())
    for start in range(0, cells, _BLOCK_CELLS):
        block = label[start:start + _BLOCK_CELLS]
        block[...] = rank[block]
    return label.astype(np.int32, copy=False).reshape((n,) * order)


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
    """Renumber non-negative labels ``0, 1, ..`` in the order of their first occurrence."""
    labels = np.asarray(labels).ravel()
    if labels.size == 0:
        return labels.astype(np.int32)
    size = int(labels.max()) + 1
    first = np.full(size, labels.size, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(labels.size, dtype=np.int64))
    present = np.nonzero(first < labels.size)[0]
    remap = np.full(size, -1, dtype=np.int32)
    remap[present[np.argsort(first[present], kind="stable")]] = np.arange(len(present), dtype=np.int32)
    return remap[labels]


# --------------------------------------------------------------------------- order 1 -> 1, any group


def _transversal(group: PermGroup):
    """Point orbits and a transversal: ``T[i]`` maps the orbit's least point ``r`` to ``i``.

    Returns ``(orbit_of, reps, T)``: ``orbit_of[i]`` the orbit's number, ``reps`` the least
    points (increasing), ``T`` an ``n x n`` int32 array, ``T[r] = identity``.  Breadth-first,
    one array step per level for all generators at once.
    """
    n = group.n
    G = np.stack([g.astype(np.int32) for g in group.gen_arrays()])
    orbit_of = np.full(n, -1, dtype=np.int64)
    T = np.empty((n, n), dtype=np.int32)
    ident = np.arange(n, dtype=np.int32)
    reps: list[int] = []
    for start in range(n):
        if orbit_of[start] >= 0:
            continue
        a = len(reps)
        reps.append(start)
        orbit_of[start] = a
        T[start] = ident
        frontier = np.array([start])
        while frontier.size:
            img = G[:, frontier].ravel()                     # generator-major
            which = np.repeat(np.arange(len(G)), frontier.size)
            src = np.tile(frontier, len(G))
            fresh = orbit_of[img] < 0
            img, which, src = img[fresh], which[fresh], src[fresh]
            img, first = np.unique(img, return_index=True)
            which, src = which[first], src[first]
            orbit_of[img] = a
            T[img] = G[which[:, None], T[src]]               # then(t_src, s): t_src first, then s
            frontier = img
    return orbit_of, np.array(reps), T


def orbitals(group: PermGroup, seed: int = 0) -> np.ndarray:
    """The 1 -> 1 pattern of any group in ``O(n^2)`` array work; equal to ``orbit_labels(group, 2)``.

    Cell ``(i, j)`` lies in the orbit of ``(r, t_i^-1(j))``, ``r`` the least point of ``i``'s
    orbit and ``t_i`` a transversal element; two such cells ``(r, x)``, ``(r, y)`` are in one
    orbit exactly when ``x, y`` are in one orbit of the stabiliser ``G_r``.

    For a graph's automorphism group the stabilisers come exactly from BLISS (the point
    ``r`` coloured apart).  Otherwise ``G_r`` is generated by the Schreier generators
    ``t_(s(i))^-1 s t_i``; a seeded sample of them gives a pattern that is never coarser than
    the true one, and it is the true one exactly when every generator maps it to itself,
    which is checked; the sample doubles until it is (with all of them it always is).
    """
    n = group.n
    check_cells(n, 2)
    if not group.gens:
        return np.arange(n * n, dtype=np.int32).reshape(n, n)
    G = np.stack([g.astype(np.int32) for g in group.gen_arrays()])
    orbit_of, reps, T = _transversal(group)
    k = len(reps)
    Tinv = np.empty_like(T)
    ident = np.arange(n, dtype=np.int32)
    for start in range(0, n, 256):  # in row blocks: the index arrays stay small
        rows = np.arange(start, min(start + 256, n))
        Tinv[rows[:, None], T[rows]] = ident[None, :]
    # Only T^-1 is kept (the rows of T a Schreier sample needs are inverted back from it):
    # T, T^-1 and the pattern are n x n each, and never more than two live at once.
    del T
    exact = _exact_stabilisers(group, reps)
    if exact is not None:
        return _orbitals_from([_merge_components(np.arange(n, dtype=np.int32), sigma) for sigma in exact],
                              orbit_of, Tinv, n)
    rng = np.random.default_rng(seed)
    members = [np.nonzero(orbit_of == a)[0] for a in range(k)]
    pairs_all = [rng.permutation(np.stack(np.meshgrid(m, np.arange(len(G)), indexing="ij"), -1).reshape(-1, 2))
                 for m in members]
    # the stabiliser orbits of each representative, grown as the sample doubles: Schreier
    # generators are made and merged _SCHREIER_CHUNK at a time, never all held at once
    comps = [np.arange(n, dtype=np.int32) for _ in range(k)]
    done = 0
    budget = 8 + 4 * len(G)
    while True:
        exhaustive = True
        for a, pairs in enumerate(pairs_all):
            exhaustive &= len(pairs) <= budget
            for start in range(done, min(budget, len(pairs)), _SCHREIER_CHUNK):
                chunk = pairs[start:min(start + _SCHREIER_CHUNK, budget)]
                pts, which = chunk[:, 0], chunk[:, 1]
                T_pts = np.empty((len(pts), n), dtype=np.int32)
                T_pts[np.arange(len(pts))[:, None], Tinv[pts]] = ident[None, :]
                # Schreier generator for (i, s): t_(s(i))^-1 after s after t_i; it fixes r
                comps[a] = _merge_components(comps[a], Tinv[G[which, pts][:, None], G[which[:, None], T_pts]])
        pattern = _orbitals_from(comps, orbit_of, Tinv, n)
        if exhaustive or all(_maps_to_itself(pattern, s) for s in G):
            return pattern
        del pattern
        done = budget
        budget *= 2


# Schreier generators (rows of n points) made and merged at once.
_SCHREIER_CHUNK = 32


def _merge_components(comp: np.ndarray, sigma) -> np.ndarray:
    """Point components ``comp`` (labels ``0..n-1``) joined along the permutations ``sigma`` (rows)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(comp)
    sigma = np.asarray(sigma).reshape(-1, n)
    if not sigma.size:
        return comp
    src = np.broadcast_to(comp, sigma.shape).ravel()
    dst = comp[sigma].ravel()
    graph = coo_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    _, joined = connected_components(graph, directed=True, connection="weak")
    return joined.astype(np.int32)[comp]


def _maps_to_itself(pattern: np.ndarray, s: np.ndarray) -> bool:
    """``pattern[np.ix_(s, s)] == pattern``, compared in row blocks (no n x n copy)."""
    n = len(s)
    for start in range(0, n, 256):
        stop = min(start + 256, n)
        if not np.array_equal(pattern[np.ix_(s[start:stop], s)], pattern[start:stop]):
            return False
    return True


def _orbitals_from(comps, orbit_of, Tinv, n: int) -> np.ndarray:
    """The 1 -> 1 pattern from the stabiliser orbits of each representative (``comps[a][x]``)."""
    k = len(comps)
    comp = np.concatenate([np.asarray(c, dtype=np.int64) + a * n for a, c in enumerate(comps)]) if k else \
        np.zeros(0, dtype=np.int64)
    # node (a, x) is cell (reps[a], x) (T[r] is the identity): node order is the row-major
    # order of the rows holding every orbit's first cell, so first appearance over the nodes
    # numbers the orbits as the reference method does
    remap = first_appearance(comp).astype(np.int32)
    offset = (orbit_of * n).astype(np.int32)
    pattern = np.empty(Tinv.shape, dtype=np.int32)
    for start in range(0, n, 256):  # in row blocks: no n x n int64 temporary
        stop = min(start + 256, n)
        pattern[start:stop] = remap[Tinv[start:stop] + offset[start:stop, None]]
    return pattern


# Individualising a point costs one BLISS run per point orbit; past this many orbits the
# Schreier sample is cheaper.
_MAX_BLISS_ORBITS = 64


def _exact_stabilisers(group: PermGroup, reps) -> list[np.ndarray] | None:
    if group.name != "automorphisms" or group.graph is None or len(reps) > _MAX_BLISS_ORBITS:
        return None
    from gdlcheck.graphs import stabiliser_generators

    return [np.array(stabiliser_generators(group.graph, int(r)), dtype=np.int32).reshape(-1, group.n)
            for r in reps]


# --------------------------------------------------------------------------- closed forms


def _offsets(i, j, n: int) -> np.ndarray:
    return ((i - j) % n).astype(np.int32)


@lru_cache(maxsize=None)
def set_partitions(m: int) -> tuple[tuple[int, ...], ...]:
    """Restricted growth strings of length ``m`` in lexicographic order (Bell(m) of them)."""
    out = [()]
    for _ in range(m):
        out = [s + (v,) for s in out for v in range((max(s) + 2) if s else 1)]
    return tuple(out)


def partition_name(rgs: tuple[int, ...]) -> str:
    """``(0, 1, 0, 1)`` -> ``{0,2}{1,3}``: the blocks of index slots, by least slot."""
    blocks: dict[int, list[int]] = {}
    for slot, b in enumerate(rgs):
        blocks.setdefault(b, []).append(slot)
    return "".join("{" + ",".join(map(str, blocks[b])) + "}" for b in sorted(blocks))


def partition_meaning(rgs: tuple[int, ...], out_order: int) -> str:
    """``(0, 1, 0, 1)`` with 2 output slots -> ``i1 = j1, i2 = j2`` (blocks pairwise distinct)."""
    names = [f"i{t + 1}" for t in range(out_order)] + [f"j{t + 1}" for t in range(len(rgs) - out_order)]
    blocks: dict[int, list[str]] = {}
    for slot, b in enumerate(rgs):
        blocks.setdefault(b, []).append(names[slot])
    parts = [" = ".join(blocks[b]) for b in sorted(blocks)]
    if len(parts) == 1:
        return parts[0] if len(rgs) > 1 else "every " + parts[0]
    return ", ".join(p for p in parts) + " (blocks pairwise distinct)" if len(parts) > 2 else " != ".join(parts)


def _first_equal_code(r) -> int:
    """The code of a tuple's equality pattern: ``sum_a f(a) * a!``, ``f(a)`` the first slot equal to slot ``a``."""
    code = 0
    for a in range(len(r)):
        f = next(b for b in range(a + 1) if r[b] == r[a])
        code += f * math.factorial(a)
    return code


def _symmetric_form(n: int, m: int):
    """Labels of the symmetric group on ``[n]^m``: the set partition of slots by equality.

    Each cell's pattern is coded by the first slot equal to each slot (factorial number
    system, at most ``m! <= 40320`` codes) and looked up in a table; numbering is by first
    appearance, which is the lexicographic order of restricted growth strings.
    """
    rgs_all = [r for r in set_partitions(m) if (max(r) + 1 if r else 0) <= n]
    table = np.full(max(math.factorial(m), 1), -1, dtype=np.int32)
    for index, r in enumerate(rgs_all):
        table[_first_equal_code(r)] = index
    is_identity = bool(np.array_equal(table, np.arange(table.size)))

    def label(*idx):
        if m <= 1:
            return np.zeros(np.shape(idx[0]) if idx else (), dtype=np.int32)
        code = np.zeros((), dtype=np.uint16)
        for a in range(1, m):
            f = np.int8(a)
            for b in range(a - 1, -1, -1):
                f = np.where(idx[b] == idx[a], np.int8(b), f)
            code = code + f.astype(np.uint16) * np.uint16(math.factorial(a))
        if is_identity:  # order 2: the code is the label; no int64 index temporary
            return code.astype(np.int32)
        return table[code]

    return rgs_all, label


def _grid_coords(shape: tuple[int, ...]) -> list[np.ndarray]:
    return [c.ravel().astype(np.int32) for c in np.indices(shape)]


def _grid_offset_label(shape: tuple[int, ...]):
    """``(i, j) -> flat((coord(i) - coord(j)) mod shape)``, vectorised.

    The sign is the circulant's, ``theta_((i - j) mod n)``: on a 1-D shape orbit ``k`` is
    offset ``k``, as for ``cyclic``.
    """
    coords = _grid_coords(shape)

    def offset(i, j):
        flat = None
        for axis, size in enumerate(shape):
            c = coords[axis]
            d = c[i] - c[j]
            d %= np.int32(size)
            if flat is None:
                flat = d
            else:
                flat *= np.int32(size)
                flat += d
        return flat

    return offset


def _grid_form(group: PermGroup):
    """Translations, p4, p4m: the offset ``coord(i) - coord(j)``, up to the stabiliser of point 0.

    The translations are a normal subgroup acting regularly, so the stabiliser of point 0 is
    generated by the remaining generators (rotation, reflection), which fix the origin.
    """
    shape = group.shape
    offset = _grid_offset_label(shape)
    translations = _translation_gens(shape)
    fixing = tuple(g for g in group.gens if g not in translations)
    if fixing:
        sub_orbits = PermGroup("stabiliser", group.n, fixing).point_orbits()
        sub = np.empty(group.n, dtype=np.int32)
        for index, orbit in enumerate(sub_orbits):
            sub[orbit] = index
        dimension = len(sub_orbits)
    else:
        sub = None
        dimension = group.n

    def label(i, j):
        flat = offset(i, j)
        return (flat if sub is None else sub[flat]).astype(np.int32)

    return dimension, label, sub


@lru_cache(maxsize=8)
def _translation_gens(shape: tuple[int, ...]):
    from gdlcheck.groups import translations

    return set(translations(shape).gens)


def closed_form_pattern(group: PermGroup) -> np.ndarray | None:
    """The 1 -> 1 pattern of a catalogue group whose orbitals are a formula, else None."""
    d = _closed_form(group, 1, 1)
    return None if d is None else d.pattern


def _closed_form(group: PermGroup, in_order: int, out_order: int) -> Derivation | None:
    n, m = group.n, in_order + out_order
    name = group.name
    common = dict(group=group, in_order=in_order, out_order=out_order)
    theta = (lambda k: f"theta_{k}")
    if (in_order, out_order) == (1, 1):
        if name == "cyclic":
            return Derivation(dimension=n, form="circulant", formula="W[i, j] = theta_((i - j) mod n)",
                              name_of=theta, label=lambda i, j: _offsets(i, j, n), **common)
        if name == "dihedral":
            def label(i, j):
                k = _offsets(i, j, n)
                return np.minimum(k, (n - k) % n).astype(np.int32)
            return Derivation(dimension=n // 2 + 1, form="symmetric circulant",
                              formula="W[i, j] = theta_(min(k, n - k)), k = (i - j) mod n",
                              name_of=theta, label=label, **common)
    if name == "trivial":
        def label(*idx):
            flat = np.zeros((), dtype=np.int64)
            for x in idx:
                flat = flat * n + x
            return flat.astype(np.int32)
        sub = ", ".join(f"i{t + 1}" for t in range(out_order)) + (", " if out_order and in_order else "") + \
            ", ".join(f"j{t + 1}" for t in range(in_order))
        return Derivation(dimension=n**m, form="unconstrained",
                          formula=f"every entry T[{sub}] is its own parameter" if m != 2 else "W[i, j] = w_(i*n + j)",
                          name_of=lambda k: f"w_{k}", label=label, **common)
    if name == "symmetric" or (name == "alternating" and n >= m + 2):
        # A_n is (n-2)-transitive, so for n >= m + 2 its orbits on m-tuples are S_n's.
        rgs_all, label = _symmetric_form(n, m)
        names = [partition_name(r) for r in rgs_all]
        if (in_order, out_order) == (1, 1) and n > 1:
            return Derivation(dimension=2, form="alpha*I + beta*11^T", formula="W = alpha*I + beta*11^T",
                              name_of=lambda k: ("alpha", "beta")[k],
                              entry_of=lambda k: ("alpha + beta", "beta")[k], label=label, partitions=names,
                              **common)
        form = f"set-partition basis (Bell({m}) = {len(set_partitions(m))})" if len(rgs_all) == len(
            set_partitions(m)) else f"set-partition basis (partitions of {m} slots into at most {n} blocks)"
        return Derivation(dimension=len(rgs_all), form=form, formula=_tensor_formula(in_order, out_order, True),
                          name_of=lambda k: f"w_{k}", label=label, partitions=names, **common)
    if name in ("translations", "p4", "p4m") and group.shape and (in_order, out_order) == (1, 1):
        dimension, label, sub = _grid_form(group)
        shape = group.shape
        if name == "translations":
            def name_of(k):
                # orbit k is the offset vector (coord(i) - coord(j)) mod shape, flattened
                # row-major: theta_k on a 1-D shape (as cyclic), theta_da_db on 2-D
                return "theta_" + "_".join(map(str, np.unravel_index(k, shape)))
            axes = ", ".join(f"{c}_i - {c}_j mod {s}" for c, s in zip("abcdefgh", shape))
            form = "block circulant" if len(shape) == 2 else ("circulant" if len(shape) == 1 else
                                                              "multilevel block circulant")
            if len(shape) == 2:
                form = "doubly block circulant (2-D circular convolution)"
            return Derivation(dimension=dimension, form=form,
                              formula=f"W[i, j] = theta_({axes}), point ({', '.join('abcdefgh'[:len(shape)])}) "
                                      f"= row-major index",
                              name_of=name_of, label=label, **common)
        what = "rotations by multiples of 90 degrees" + (" and reflections" if name == "p4m" else "")
        return Derivation(dimension=dimension, form=f"{name} group convolution",
                          formula=f"W[i, j] = w_k, k the orbit of the offset (a_i - a_j, b_i - b_j) under the {what}",
                          name_of=lambda k: f"w_{k}", label=label, **common)
    return None


def _tensor_formula(in_order: int, out_order: int, symmetric: bool = False) -> str:
    outs = ", ".join(f"i{t + 1}" for t in range(out_order))
    ins = ", ".join(f"j{t + 1}" for t in range(in_order))
    both = ", ".join(x for x in (outs, ins) if x)
    lhs = f"T_out[{outs}]" if out_order else "y"
    rhs = f"T_in[{ins}]" if in_order else "x"
    which = "set partition p of the slots" if symmetric else "orbit o"
    return f"{lhs} = sum over each {which} of w * sum of {rhs} over ({both}) in it"


# --------------------------------------------------------------------------- derive


def derive(group: PermGroup, in_order: int = 1, out_order: int = 1, channels_in: int = 1,
           channels_out: int = 1) -> Derivation:
    """Derive the equivariant linear maps of ``group`` from order ``in_order`` to ``out_order``.

    Parameters
    ----------
    group : the permutation group acting on every index.
    in_order, out_order : tensor orders, 0 to 4 (``W : (n,)*out_order x (n,)*in_order``).
    channels_in, channels_out : ``D`` and ``D2``; the map is ``sum_o B_o (x) Theta_o``.

    Raises
    ------
    LimitError
        for orders outside 0..4, channels below 1, or a pattern over the size budget.
    """
    for label, value in (("in-order", in_order), ("out-order", out_order)):
        if not 0 <= value <= 4:
            raise LimitError(f"--{label} must be between 0 and 4, got {value}")
    for label, value in (("channels-in", channels_in), ("channels-out", channels_out)):
        if value < 1:
            raise LimitError(f"--{label} must be a positive integer, got {value}")
    # A closed form is named without its pattern (the pattern is checked against the budget
    # when something needs it: json, csv, npy); the general method always builds it.
    d = _closed_form(group, in_order, out_order)
    if d is None:
        m = in_order + out_order
        check_cells(group.n, m)
        if (in_order, out_order) == (1, 1):
            pattern = orbitals(group)
        else:
            pattern = orbit_labels(group, m)
        dim = int(pattern.max()) + 1 if pattern.size else 1
        if (in_order, out_order) == (1, 1):
            form, formula = "orbit basis", "W[i, j] = w_k for (i, j) in orbit k (numbered by first appearance)"
        elif m == 1:
            form = "constant on point orbits"
            formula = ("T_out[i1] = w_k for i1 in point orbit k" if out_order else
                       "y = sum over point orbits k of w_k * sum of x[j1] over j1 in orbit k")
        else:
            form, formula = "orbit basis", _tensor_formula(in_order, out_order)
        d = Derivation(group=group, in_order=in_order, out_order=out_order, dimension=dim, form=form,
                       formula=formula, name_of=lambda k: f"w_{k}", _pattern=pattern)
    d.channels_in, d.channels_out = channels_in, channels_out
    return d


# --------------------------------------------------------------------------- projection


def project(W: np.ndarray, group: PermGroup) -> tuple[np.ndarray, float]:
    """The nearest equivariant matrix and the relative Frobenius distance ``|W - P| / |W|``.

    Replacing every entry by the mean of its orbit is the orthogonal projection onto the
    equivariant matrices (the orbit indicators are an orthogonal basis of that space).

    Parameters
    ----------
    W : (n, n) numbers.
    """
    W = np.asarray(W, dtype=float)
    if W.shape != (group.n, group.n):
        raise GroupError(f"matrix is {'x'.join(map(str, W.shape))} but the group acts on n = {group.n} points")
    d = derive(group)
    labels = d.pattern.ravel()
    flat = W.ravel()
    sums = np.bincount(labels, weights=flat, minlength=d.dimension)
    counts = np.bincount(labels, minlength=d.dimension)
    means = sums / counts
    # An orbit whose entries are all equal keeps that value bit for bit (a float mean can
    # move the last bit), so projecting an equivariant matrix returns it unchanged.
    low = np.full(d.dimension, np.inf)
    high = np.full(d.dimension, -np.inf)
    np.minimum.at(low, labels, flat)
    np.maximum.at(high, labels, flat)
    means = np.where(low == high, low, means)
    P = means[labels].reshape(W.shape)
    norm = float(np.linalg.norm(W))
    dist = float(np.linalg.norm(W - P)) / norm if norm > 0 else 0.0
    return P, dist


def burnside_dimension(group: PermGroup, order: int = 2) -> int:
    """(1/|G|) sum_g fix(g)^order, by enumerating the group (small groups, for tests)."""
    elements = group.elements()
    total = sum(sum(1 for i, x in enumerate(g) if i == x) ** order for g in elements)
    return total // len(elements)


# --------------------------------------------------------------------------- output forms


def pattern_csv(pattern: np.ndarray) -> str:
    """The 1 -> 1 pattern as CSV, entry = parameter index (itself an equivariant matrix)."""
    return "".join(",".join(map(str, row)) + "\n" for row in pattern.tolist())


def latex_name(name: str) -> str:
    """``theta_3`` -> ``\\theta_{3}``; ``theta_1_0`` -> ``\\theta_{1,0}``; ``alpha + beta`` -> ``\\alpha + \\beta``."""
    import re

    greek = {"theta", "alpha", "beta", "gamma", "lambda"}

    def one(m):
        base, sub = m.group(1), m.group(2)
        base = "\\" + base if base in greek else base
        return f"{base}_{{{sub.replace('_', ',')}}}" if sub is not None else base

    return re.sub(r"([A-Za-z]+)(?:_(\d+(?:_\d+)*|\w+))?", one, name)


def latex_matrix(matrix: list[list[str]]) -> str:
    rows = [" & ".join(latex_name(x) for x in row) + r" \\" for row in matrix]
    return "\\begin{bmatrix}\n" + "\n".join(rows) + "\n\\end{bmatrix}\n"


def latex_form(d: Derivation, limit: int = 32) -> str:
    """A ``bmatrix`` of the 1 -> 1 form; past ``limit`` rows the middle is elided with dots."""
    n = d.n
    if n <= limit:
        return latex_matrix(d.matrix_strings())
    half = limit // 4
    idx = list(range(half)) + list(range(n - half, n))
    block = d.pattern_block(idx, idx)
    rows = []
    for a, _ in enumerate(idx):
        cells = [latex_name(d.entry(int(k))) for k in block[a]]
        cells.insert(half, r"\cdots")
        rows.append(" & ".join(cells) + r" \\")
        if a == half - 1:
            dots = [r"\vdots"] * half + [r"\ddots"] + [r"\vdots"] * half
            rows.append(" & ".join(dots) + r" \\")
    return "\\begin{bmatrix}\n" + "\n".join(rows) + "\n\\end{bmatrix}\n"


# --------------------------------------------------------------------------- explanation


def explain(d: Derivation) -> list[str]:
    """The derivation as the texts' proofs write it: each generator's constraint, then the orbits."""
    from gdlcheck.groups import cycle_string

    n, m = d.n, d.order
    tensor = "W" if (d.in_order, d.out_order) == (1, 1) else "T"
    slots = _slot_names(d)
    lines = []
    if m == 0:
        return ["A map from scalars to scalars is a single number w_0: every permutation leaves it alone."]
    if tensor == "W":
        lines.append("W commutes with a permutation s (P[s(j), j] = 1) exactly when W[s(i), s(j)] = W[i, j] for all "
                     "i, j; it commutes with the whole group exactly when it does so for each generator:")
    else:
        lines.append(f"A map from order-{d.in_order} to order-{d.out_order} tensors is an array "
                     f"T[{', '.join(slots)}] (output indices first); it commutes with s exactly when "
                     f"T[{', '.join(f's({x})' for x in slots)}] = T[{', '.join(slots)}], so for each generator:")
    if not d.group.gens:
        lines.append("- (no generators): nothing ties entries together.")
    shown = d.group.gens[:8]
    for g in shown:
        text = _constraint_text(d, g, slots)
        label = cycle_string(g) if n <= 40 else f"(a permutation of {n} points)"
        lines.append(f"- s = {label}: {text}")
    if len(d.group.gens) > len(shown):
        lines.append(f"- ... and {len(d.group.gens) - len(shown)} more generators of the same kind.")
    lines.extend(_conclusion(d))
    lines.extend(_orbit_lines(d))
    extra = (f" With {d.channels_in} input and {d.channels_out} output channels each basis element B_o gets a "
             f"{d.channels_out} x {d.channels_in} block Theta_o: W = sum_o B_o (x) Theta_o, "
             f"{d.free_parameters} free parameters.") if (d.channels_in, d.channels_out) != (1, 1) else ""
    lines.append(f"The constraints tie the {d.cells} entries into {d.dimension} orbits, one free parameter each: "
                 f"{d.form}.{extra}")
    return lines


def _slot_names(d: Derivation) -> list[str]:
    if (d.in_order, d.out_order) == (1, 1):
        return ["i", "j"]
    return [f"i{t + 1}" for t in range(d.out_order)] + [f"j{t + 1}" for t in range(d.in_order)]


def _constraint_text(d: Derivation, g: tuple, slots: list[str]) -> str:
    n = d.n
    T = "W" if slots == ["i", "j"] else "T"
    moved = [i for i in range(n) if g[i] != i]
    shape = d.group.shape
    if shape and len(shape) >= 1:
        kind = _grid_generator_kind(g, shape)
        if kind is not None:
            return kind(T, slots)
    if n > 1 and g == tuple((j + 1) % n for j in range(n)):
        shifted = ", ".join(f"{x}+1" for x in slots)
        if T == "W":
            return ("W[i+1, j+1] = W[i, j] (indices mod n): moving both indices down by one changes nothing, "
                    "so W is constant on cyclic diagonals, W[i, j] depends only on (i - j) mod n.")
        return f"T[{shifted}] = T[{', '.join(slots)}] (indices mod n): the entry depends only on the index differences."
    if n > 2 and g == tuple((-j) % n for j in range(n)):
        if T == "W":
            return "W[-i, -j] = W[i, j] (mod n): the diagonal of offset k and the one of offset n - k carry the same value."
        return f"T[{', '.join('-' + x for x in slots)}] = T[{', '.join(slots)}] (mod n)."
    if len(moved) == 2:
        a, b = moved
        if T == "W":
            return (f"W[{a}, {a}] = W[{b}, {b}], W[{a}, {b}] = W[{b}, {a}], and W[{a}, k] = W[{b}, k], "
                    f"W[k, {a}] = W[k, {b}] for every other k: points {a} and {b} are interchangeable.")
        return f"swapping {a} and {b} in every index leaves T unchanged: points {a} and {b} are interchangeable."
    if len(moved) == 3:
        return (f"{T} is unchanged when the points {moved[0]} -> {g[moved[0]]} -> {g[g[moved[0]]]} -> {moved[0]} "
                f"are rotated in every index at once.")
    if T == "W":
        return "W[s(i), s(j)] = W[i, j]: W is constant along the cycles of s acting on the pairs (i, j)."
    return f"T[{', '.join(f's({x})' for x in slots)}] = T[{', '.join(slots)}]: T is constant along the cycles of s on index tuples."


def _grid_generator_kind(g: tuple, shape: tuple[int, ...]):
    from gdlcheck.groups import _grid_perm

    letters = "abcdefgh"
    pts = [letters[a] for a in range(len(shape))]
    for axis, size in enumerate(shape):
        def step(c, axis=axis, size=size):
            c = c.copy()
            c[axis] = (c[axis] + 1) % size
            return c
        if size > 1 and g == _grid_perm(shape, step):
            def text(T, slots, axis=axis, size=size):
                def pt(x, plus):
                    return "(" + ", ".join(f"{p}_{x}{'+1' if q == axis and plus else ''}" for q, p in enumerate(pts)) + ")"
                lhs = ", ".join(pt(x, True) for x in slots)
                rhs = ", ".join(pt(x, False) for x in slots)
                return (f"{T}[{lhs}] = {T}[{rhs}] (mod {size}): shifting every point one step along axis {axis} "
                        f"changes nothing, so the entry depends only on the offsets along that axis.")
            return text
    if len(shape) == 2 and shape[0] == shape[1]:
        N = shape[0]
        rotation = _grid_perm(shape, lambda c: np.stack([c[1], (-c[0]) % N]))
        reflection = _grid_perm(shape, lambda c: np.stack([c[0], (-c[1]) % N]))
        if g == rotation:
            return lambda T, slots: (f"{T}[{', '.join(f'(b_{x}, -a_{x})' for x in slots)}] = "
                                     f"{T}[{', '.join(f'(a_{x}, b_{x})' for x in slots)}] (mod {N}): rotating every "
                                     "point by 90 degrees about the origin changes nothing.")
        if g == reflection:
            return lambda T, slots: (f"{T}[{', '.join(f'(a_{x}, -b_{x})' for x in slots)}] = "
                                     f"{T}[{', '.join(f'(a_{x}, b_{x})' for x in slots)}] (mod {N}): reflecting every "
                                     "point in the axis b = 0 changes nothing.")
    return None


def _conclusion(d: Derivation) -> list[str]:
    name, n = d.group.name, d.n
    one = (d.in_order, d.out_order) == (1, 1)
    if d.partitions is not None and n > 1:
        if one:
            return ["Together the generators give every permutation (2-transitive), so W[i, i] = W[j, j] for all "
                    "i, j (alpha + beta) and W[i, k] = W[j, l] for all i != k, j != l (beta): W = alpha*I + beta*11^T."]
        return ["Together the generators give every permutation, which moves an index tuple to any other tuple "
                "with the same pattern of equal indices: the orbits are the set partitions of the index slots "
                "(slot 0 is the first output index; blocks hold equal indices)."]
    if one and name == "cyclic":
        return ["Together: W[i, j] = theta_((i - j) mod n), a circulant matrix -- a circular convolution."]
    if one and name == "dihedral":
        return ["Together: W is circulant and W[i, j] = W[j, i]: a symmetric circulant, theta_k = theta_(n-k)."]
    if one and name == "translations":
        return ["Together: W[i, j] depends only on the offset between the points i and j along every axis "
                "(mod the shape): a multilevel block-circulant matrix -- a circular convolution on the grid."]
    if one and name in ("p4", "p4m"):
        return ["Together: W[i, j] depends only on the offset between the points, and offsets related by the "
                "rotations (and reflections) that fix the origin share a parameter -- a group convolution."]
    return []


def _orbit_lines(d: Derivation, shown: int = 6, per_orbit: int = 6) -> list[str]:
    if d.partitions is not None and d.order > 2:
        lines = ["The orbits (basis elements):"]
        rgs_all = [r for r in set_partitions(d.order) if (max(r) + 1 if r else 0) <= d.n]
        for k, r in enumerate(rgs_all[:16]):
            lines.append(f"  w_{k}: {partition_name(r)}  {partition_meaning(r, d.out_order)}")
        if len(rgs_all) > 16:
            lines.append(f"  ... {len(rgs_all) - 16} more")
        return lines
    if d.cells > _EXPLAIN_CELLS:
        return []
    pattern = d.pattern.reshape(-1)
    sizes = np.bincount(pattern, minlength=d.dimension)
    order = np.argsort(pattern, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    lines = ["The orbits:"]
    for k in range(min(d.dimension, shown)):
        flat = order[starts[k]:min(starts[k + 1], starts[k] + per_orbit)]
        cells = [np.unravel_index(int(f), (d.n,) * d.order) for f in flat]
        text = ", ".join("(" + ", ".join(str(int(x)) for x in c) + ")" for c in cells)
        more = ", ..." if sizes[k] > per_orbit else ""
        lines.append(f"  {d.entry(k)} ({sizes[k]} entries): {text}{more}")
    if d.dimension > shown:
        lines.append(f"  ... {d.dimension - shown} more orbits")
    return lines


__all__ = ["Derivation", "derive", "orbit_labels", "orbitals", "closed_form_pattern", "project", "first_appearance",
           "burnside_dimension", "set_partitions", "partition_name", "explain", "pattern_csv", "latex_form",
           "latex_matrix"]
