"""Permutation groups given by generators.

Conventions (DESIGN.md section 1), pinned by tests:

* points are ``0 .. n-1``; a permutation is stored in array form, ``p[i]`` is the image of ``i``;
* its matrix is ``P[p[j], j] = 1``, so ``(P x)[p[j]] = x[j]``: the entry at ``j`` moves to
  ``p[j]``.  In numpy, ``act(p, x)`` is ``y[p] = x``;
* the unit shift ``j -> j + 1 mod n`` is the seed's ``S`` with ``(S x)[i] = x[i - 1]``;
* ``then(p, q)`` applies ``p`` first, then ``q`` (sympy's ``p*q``).

A group is its name, its degree ``n`` and a tuple of generators; facts about it (order,
transitivity) are computed when asked.  This is the only module that uses
``sympy.combinatorics``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np

from gdlcheck.errors import GroupError

Perm = tuple[int, ...]

# name -> canonical name
ALIASES = {
    "trivial": "trivial",
    "cyclic": "cyclic",
    "shift": "cyclic",
    "dihedral": "dihedral",
    "symmetric": "symmetric",
    "permutation": "symmetric",
    "alternating": "alternating",
    "translations": "translations",
    "torus": "translations",
    "p4": "p4",
    "p4m": "p4m",
    "automorphisms": "automorphisms",
    "generators": "generators",
}

CATALOGUE = {
    "trivial": ("n", "no generators", "1"),
    "cyclic": ("n", "the unit shift j -> j+1 mod n", "n"),
    "dihedral": ("n", "the shift and the reflection j -> -j mod n", "2n for n >= 3"),
    "symmetric": ("n", "the n-cycle (0 1 .. n-1) and the transposition (0 1)", "n!"),
    "alternating": ("n", "the 3-cycles (i i+1 i+2)", "n!/2"),
    "translations": ("shape", "the unit shift along each axis", "product of the shape"),
    "p4": ("shape NxN", "translations and the rotation (a, b) -> (b, -a mod N)", "4N^2"),
    "p4m": ("shape NxN", "p4 and the reflection (a, b) -> (a, -b mod N)", "8N^2"),
    "automorphisms": ("graph", "generators of the graph's automorphism group", "computed"),
    "generators": ("n and permutations", "as given", "computed (Schreier-Sims)"),
}

# Beyond this degree an order is never computed by Schreier-Sims for a catalogue group.
_SMALL_DEGREE = 12


# --------------------------------------------------------------------------- permutations


def identity(n: int) -> Perm:
    return tuple(range(n))


def then(p: Perm, q: Perm) -> Perm:
    """``p`` first, then ``q``: ``then(p, q)[i] == q[p[i]]`` (sympy's ``p*q``)."""
    return tuple(q[i] for i in p)


def inverse(p: Perm) -> Perm:
    inv = [0] * len(p)
    for i, image in enumerate(p):
        inv[image] = i
    return tuple(inv)


def perm_matrix(p: Perm) -> np.ndarray:
    """The permutation matrix ``P[p[j], j] = 1``."""
    n = len(p)
    P = np.zeros((n, n), dtype=np.int64)
    P[list(p), range(n)] = 1
    return P


def act(p, x: np.ndarray) -> np.ndarray:
    """``P x`` along the first axis without building ``P``: ``y[p[j]] = x[j]``."""
    y = np.empty_like(x)
    y[np.asarray(p)] = x
    return y


def act_on_both(p, A: np.ndarray) -> np.ndarray:
    """``P A P^T``: ``B[p[i], p[j]] = A[i, j]``.

    A scipy.sparse ``A`` stays sparse, in its own format: its stored entries are moved
    (``O(nnz)``), never a dense n x n array.
    """
    import sys

    sparse = sys.modules.get("scipy.sparse")  # if scipy.sparse is not loaded, A is not sparse
    if sparse is not None and sparse.issparse(A):
        C = A.tocoo()
        idx = np.asarray(p, dtype=C.row.dtype)
        B = type(C)((C.data, (idx[C.row], idx[C.col])), shape=A.shape)
        return B.asformat(A.format)
    idx = np.asarray(p)
    B = np.empty_like(A)
    B[np.ix_(idx, idx)] = A
    return B


def cycle_string(p: Perm) -> str:
    """Disjoint-cycle notation, 0-based, fixed points left out; the identity is ``()``."""
    seen = [False] * len(p)
    cycles = []
    for start in range(len(p)):
        if seen[start] or p[start] == start:
            seen[start] = True
            continue
        cycle = []
        i = start
        while not seen[i]:
            seen[i] = True
            cycle.append(i)
            i = p[i]
        cycles.append("(" + " ".join(map(str, cycle)) + ")")
    return "".join(cycles) or "()"


# One quantifier per character class: "( 0)( 0)...(" must fail in linear time.
_CYCLES_RE = re.compile(r"^\s*(?:\([^()]*\)\s*)+$")


def parse_perm(text: str, n: int | None) -> Perm:
    """Read a permutation in cycle notation ``"(0 1 2)(3 4)"`` or array form ``"[1, 0, 2]"``.

    ``n`` is the degree; with cycle notation and ``n`` None the degree is the largest point
    named plus one.  Raises :class:`GroupError` naming the problem.
    """
    s = str(text).strip()
    if s.startswith("["):
        return _parse_array_form(s, n)
    if s == "()" or s == "":
        if n is None:
            raise GroupError(f"generator {text!r}: the identity needs an explicit -n")
        return identity(n)
    if not _CYCLES_RE.match(s):
        raise GroupError(
            f"generator {text!r} is neither cycle notation like '(0 1)(2 3)' "
            "nor array form like '[1, 0, 3, 2]'"
        )
    cycles = []
    for body in re.findall(r"\(([^()]*)\)", s):
        tokens = body.replace(",", " ").split()
        try:
            cycles.append([int(t) for t in tokens])
        except ValueError:
            raise GroupError(f"generator {text!r}: cycle ({body}) has a point that is not an integer") from None
    points = [x for c in cycles for x in c]
    if any(x < 0 for x in points):
        raise GroupError(f"generator {text!r}: points are 0-based and cannot be negative")
    degree = n if n is not None else (max(points) + 1 if points else 0)
    from gdlcheck.limits import MAX_POINTS

    if degree > MAX_POINTS:
        raise GroupError(f"generator {_short(text)!r}: point {degree - 1} makes n = {degree}, over the limit of "
                         f"{MAX_POINTS} points")
    if any(x >= degree for x in points):
        bad = max(points)
        raise GroupError(f"generator {text!r}: point {bad} is out of range 0..{degree - 1}")
    if len(set(points)) != len(points):
        dup = next(x for x in points if points.count(x) > 1)
        raise GroupError(f"generator {text!r}: point {dup} appears in more than one place; cycles must be disjoint")
    image = list(range(degree))
    for c in cycles:
        for a, b in zip(c, c[1:] + c[:1]):
            image[a] = b
    return tuple(image)


def _short(text) -> str:
    text = str(text)
    return text if len(text) <= 40 else text[:37] + "..."


def _parse_array_form(s: str, n: int | None) -> Perm:
    if not s.endswith("]"):
        raise GroupError(f"generator {s!r}: array form must look like '[1, 0, 3, 2]'")
    body = s[1:-1].replace(",", " ").split()
    try:
        arr = [int(t) for t in body]
    except ValueError:
        raise GroupError(f"generator {s!r}: array form holds a non-integer") from None
    return check_perm(arr, n, label=s)


def check_perm(arr, n: int | None, label: str | None = None) -> Perm:
    """Check that ``arr`` is a bijection of ``0..n-1`` and return it as a tuple."""
    label = label or str(list(arr))
    arr = [int(x) for x in arr]
    if n is not None and len(arr) != n:
        raise GroupError(f"generator {label} has length {len(arr)}, expected n = {n}")
    m = len(arr)
    out = [x for x in arr if not 0 <= x < m]
    if out:
        raise GroupError(f"generator {label}: point {out[0]} is out of range 0..{m - 1}")
    if len(set(arr)) != m:
        seen: set[int] = set()
        dup = next(x for x in arr if x in seen or seen.add(x))
        missing = min(set(range(m)) - set(arr))
        raise GroupError(
            f"generator {label} is not a bijection: {dup} appears twice and {missing} is missing; "
            f"list each of 0..{m - 1} once"
        )
    return tuple(arr)


def orbit_representatives(n: int, gens: list[np.ndarray]) -> np.ndarray:
    """For every point, the least point of its orbit: min-label propagation with pointer jumping.

    A label is always a point of the same orbit, so ``labels[labels]`` jumps within it; at the
    fixed point labels agree along every generator, i.e. they are constant on orbits.  Plain
    numpy, so ``gdlcheck groups`` needs no scipy.
    """
    labels = np.arange(n)
    while True:
        before = labels.copy()
        for g in gens:
            np.minimum.at(labels, g, labels)        # the image takes the smaller label ...
            labels = np.minimum(labels, labels[g])  # ... and the point its image's
        while True:
            jumped = labels[labels]
            if np.array_equal(jumped, labels):
                break
            labels = jumped
        if np.array_equal(before, labels):
            return labels


# --------------------------------------------------------------------------- groups


@dataclass(frozen=True)
class PermGroup:
    """A permutation group on ``n`` points, given by generators.

    ``order_formula`` is the catalogue's order where the formula holds; otherwise the order
    is computed with Schreier-Sims (sympy).
    """

    name: str
    n: int
    gens: tuple[Perm, ...]
    shape: tuple[int, ...] | None = None
    # an int, or a zero-argument callable for orders too big to compute eagerly (n! for n = 10^6)
    order_formula: int | Callable[[], int] | None = field(default=None, compare=False)
    graph: np.ndarray | None = field(default=None, compare=False, repr=False)

    def gen_arrays(self) -> list[np.ndarray]:
        return [np.asarray(g, dtype=np.int64) for g in self.gens]

    @property
    def generator_strings(self) -> list[str]:
        return [cycle_string(g) for g in self.gens]

    @cached_property
    def order(self) -> int:
        formula = self.order_formula
        if callable(formula):
            return int(formula())
        if formula is not None:
            return formula
        return int(self.to_sympy().order())

    @property
    def order_text(self) -> str:
        """The order for people: the digits, or ``n!`` with its size when it has too many digits.

        >>> symmetric(100).order_text
        '100! (about 9.33e157)'
        """
        big = self.name in ("symmetric", "alternating") and self.n > 25 and callable(self.order_formula)
        if not big:
            return _digits(self.order)
        log10 = math.lgamma(self.n + 1) / math.log(10) - (math.log10(2) if self.name == "alternating" else 0)
        exponent = math.floor(log10)
        mantissa = 10 ** (log10 - exponent)
        suffix = "!/2" if self.name == "alternating" else "!"
        return f"{self.n}{suffix} (about {mantissa:.3g}e{exponent})"

    @cached_property
    def is_transitive(self) -> bool:
        if self.n <= 1:
            return True
        return len(self.point_orbits()) == 1

    def point_orbits(self) -> list[list[int]]:
        """The orbits of the group on single points, each sorted, in order of least point."""
        labels = orbit_representatives(self.n, self.gen_arrays())
        orbits: dict[int, list[int]] = {}
        for i, lab in enumerate(labels.tolist()):
            orbits.setdefault(lab, []).append(i)
        return sorted(orbits.values())

    def to_sympy(self):
        """The same group as a ``sympy.combinatorics.PermutationGroup`` (same array forms)."""
        from sympy.combinatorics import Permutation, PermutationGroup

        gens = [Permutation(list(g), size=self.n) for g in self.gens]
        return PermutationGroup(gens or [Permutation(list(range(max(self.n, 1))))])

    def elements(self) -> list[Perm]:
        """Every element, by closure under the generators (for small groups and tests)."""
        ident = identity(self.n)
        seen = {ident}
        frontier = [ident]
        while frontier:
            nxt = []
            for g in frontier:
                for s in self.gens:
                    h = then(g, s)
                    if h not in seen:
                        seen.add(h)
                        nxt.append(h)
            frontier = nxt
        return sorted(seen)

    def describe(self) -> str:
        size = "x".join(map(str, self.shape)) if self.shape else f"n={self.n}"
        return f"{self.name} ({size})"


def canonical_name(name: str) -> str:
    key = str(name).strip().lower()
    if key not in ALIASES:
        from difflib import get_close_matches

        close = get_close_matches(key, list(ALIASES), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise GroupError(f"unknown group {name!r}{hint}; known: {', '.join(CATALOGUE)}")
    return ALIASES[key]


def _check_n(n, name: str) -> int:
    if n is None:
        raise GroupError(f"group {name!r} needs a size: give -n N")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise GroupError(f"group {name!r}: n must be a positive integer, got {n!r}")
    if n < 1:
        raise GroupError(f"group {name!r}: n must be a positive integer, got {n}")
    from gdlcheck.limits import MAX_POINTS

    if n > MAX_POINTS:
        raise GroupError(f"group {name!r}: n = {n} exceeds the limit of {MAX_POINTS} points")
    return int(n)


def parse_shape(shape) -> tuple[int, ...]:
    """``"8x8"``, ``"4x4x4"``, ``[8, 8]`` or ``8`` -> a tuple of positive ints."""
    if shape is None:
        raise GroupError("a grid group needs a shape: give --shape HxW")
    if isinstance(shape, str):
        parts = shape.lower().replace("×", "x").split("x")
        try:
            dims = tuple(int(p) for p in parts)
        except ValueError:
            raise GroupError(f"shape {shape!r} is not like '8x8' or '4x4x4'") from None
    elif isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims = (int(shape),)
    elif isinstance(shape, (list, tuple)):
        if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in shape):
            raise GroupError(f"shape {list(shape)!r} must be a list of positive integers")
        dims = tuple(int(d) for d in shape)
    else:
        raise GroupError(f"shape {shape!r} is not like '8x8' or '4x4x4'")
    if not dims or any(d < 1 for d in dims):
        raise GroupError(f"shape {shape!r} must have positive sides")
    return dims


def _shift(n: int) -> Perm:
    return tuple((j + 1) % n for j in range(n))


def trivial(n: int) -> PermGroup:
    return PermGroup("trivial", n, (), order_formula=1)


def cyclic(n: int) -> PermGroup:
    gens = (_shift(n),) if n > 1 else ()
    return PermGroup("cyclic", n, gens, order_formula=n)


def dihedral(n: int) -> PermGroup:
    reflection = tuple((-j) % n for j in range(n))
    gens = tuple(g for g in (_shift(n), reflection) if g != identity(n))
    return PermGroup("dihedral", n, gens, order_formula=2 * n if n >= 3 else None)


def symmetric(n: int) -> PermGroup:
    if n == 1:
        return PermGroup("symmetric", 1, (), order_formula=1)
    transposition = (1, 0) + tuple(range(2, n))
    gens = (_shift(n), transposition) if n > 2 else (transposition,)
    return PermGroup("symmetric", n, gens, order_formula=_lazy_factorial(n, 1))


def alternating(n: int) -> PermGroup:
    """Generated by the 3-cycles ``(i i+1 i+2)``: n - 2 generators of n points each."""
    from gdlcheck.limits import MAX_ALTERNATING_POINTS

    if n > MAX_ALTERNATING_POINTS:
        # any set of 3-cycles that generates A_n has about n/2 of them or more: O(n^2) in array form
        raise GroupError(f"the alternating group on n = {n} points needs {n - 2} generators of {n} points each "
                         f"(about {float(n) * (n - 2):.3g} entries); the limit is n <= {MAX_ALTERNATING_POINTS}")
    gens = []
    for i in range(n - 2):
        g = list(range(n))
        g[i], g[i + 1], g[i + 2] = i + 1, i + 2, i
        gens.append(tuple(g))
    return PermGroup("alternating", n, tuple(gens), order_formula=_lazy_factorial(n, 2) if n >= 2 else 1)


def _lazy_factorial(n: int, divisor: int):
    """``n! / divisor``, computed only when asked (``1000000!`` takes seconds and has 5.5M digits)."""
    if n <= 25:
        return math.factorial(n) // divisor
    return lambda: math.factorial(n) // divisor


def _grid_index(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(math.prod(shape)).reshape(shape)


def _grid_perm(shape: tuple[int, ...], image_of_coords) -> Perm:
    """The permutation sending point ``coords`` to ``image_of_coords(coords)`` (row-major)."""
    coords = np.indices(shape).reshape(len(shape), -1)
    new = image_of_coords(coords)
    return tuple(np.ravel_multi_index(tuple(new), shape).tolist())


def translations(shape: tuple[int, ...]) -> PermGroup:
    gens = []
    for axis, size in enumerate(shape):
        if size == 1:
            continue

        def step(c, axis=axis, size=size):
            c = c.copy()
            c[axis] = (c[axis] + 1) % size
            return c

        gens.append(_grid_perm(shape, step))
    return PermGroup("translations", math.prod(shape), tuple(gens), shape=shape, order_formula=math.prod(shape))


def _square(shape: tuple[int, ...], name: str) -> int:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise GroupError(f"group {name!r} needs a square shape NxN, got {'x'.join(map(str, shape))}")
    return shape[0]


def p4(shape: tuple[int, ...]) -> PermGroup:
    N = _square(shape, "p4")
    base = translations(shape)
    rotation = _grid_perm(shape, lambda c: np.stack([c[1], (-c[0]) % N]))
    gens = _dedupe(base.gens + (rotation,), N * N)
    return PermGroup("p4", N * N, gens, shape=shape, order_formula=4 * N * N if N >= 3 else None)


def p4m(shape: tuple[int, ...]) -> PermGroup:
    N = _square(shape, "p4m")
    base = p4(shape)
    reflection = _grid_perm(shape, lambda c: np.stack([c[0], (-c[1]) % N]))
    gens = _dedupe(base.gens + (reflection,), N * N)
    return PermGroup("p4m", N * N, gens, shape=shape, order_formula=8 * N * N if N >= 3 else None)


def _dedupe(gens: tuple[Perm, ...], n: int) -> tuple[Perm, ...]:
    out: list[Perm] = []
    for g in gens:
        if g != identity(n) and g not in out:
            out.append(g)
    return tuple(out)


def from_generators(n: int | None, generators) -> PermGroup:
    """The group generated by ``generators`` (strings or sequences) on ``n`` points.

    Without ``n`` the degree is the longest array form or the largest point named plus one.
    """
    if not generators:
        raise GroupError("group 'generators' needs at least one --generators PERM")
    if n is None:
        n = max(len(parse_perm(g, None)) if isinstance(g, str) else len(g) for g in generators)
    n = _check_n(n, "generators")
    parsed = [parse_perm(g, n) if isinstance(g, str) else check_perm(g, n) for g in generators]
    return PermGroup("generators", n, _dedupe(tuple(parsed), n))


def _grid_shape_from_n(key: str, n):
    """Without --shape, ``n`` is the number of points: ``(n,)`` for translations, N x N for p4/p4m."""
    if n is None:
        return None
    if key == "translations":
        return n
    side = math.isqrt(n) if isinstance(n, int) and n > 0 else 0
    if side * side != n:
        raise GroupError(f"group {key!r} acts on an N x N grid, and n = {n} is not a square; give --shape NxN")
    return [side, side]


def build_group(name: str, n=None, shape=None, generators=None, graph=None) -> PermGroup:
    """Build a group from the catalogue (DESIGN.md section 2).

    Raises :class:`GroupError` for an unknown name, a missing size, or a bad generator.
    """
    key = canonical_name(name)
    if key in ("translations", "p4", "p4m"):
        dims = parse_shape(shape if shape is not None else _grid_shape_from_n(key, n))
        from gdlcheck.limits import MAX_POINTS

        if math.prod(dims) > MAX_POINTS:
            raise GroupError(f"shape {'x'.join(map(str, dims))} has {math.prod(dims)} points, over the limit of {MAX_POINTS}")
        group = {"translations": translations, "p4": p4, "p4m": p4m}[key](dims)
    elif key == "generators":
        group = from_generators(n, generators)
    elif key == "automorphisms":
        if graph is None:
            raise GroupError("group 'automorphisms' needs a graph: give --graph FILE")
        from gdlcheck.graphs import automorphism_group

        group = automorphism_group(graph)
        if n is not None and n != group.n:
            raise GroupError(f"the graph has {group.n} nodes but n = {n}")
    else:
        n = _check_n(n, key)
        group = {"trivial": trivial, "cyclic": cyclic, "dihedral": dihedral,
                 "symmetric": symmetric, "alternating": alternating}[key](n)
    if group.order_formula is None and group.n <= _SMALL_DEGREE and key != "generators":
        object.__setattr__(group, "order_formula", int(group.to_sympy().order()))
    if generators and key != "generators":
        raise GroupError(f"--generators goes with --group generators, not {key!r}")
    return group


def group_order_json(group: PermGroup):
    """The group's order for JSON, refusing at once an order too long to write out exactly.

    n! is estimated with lgamma before it is computed: 1000000! alone takes seconds.
    """
    if group.name in ("symmetric", "alternating") and callable(group.order_formula):
        from gdlcheck.limits import MAX_ORDER_DIGITS

        digits = int(math.lgamma(group.n + 1) / math.log(10)) + 1
        if digits > MAX_ORDER_DIGITS:
            from gdlcheck.errors import LimitError

            raise LimitError(f"the order {group.n}! has about {digits} digits, over the limit of {MAX_ORDER_DIGITS} "
                             "digits that JSON output writes out exactly (the text format prints it approximately)")
    return order_json(group.order)


def order_json(order: int):
    """An order as JSON: an integer up to 15 digits, else the string of its digits."""
    return order if order < 10**15 else _digits(order)


def _digits(value: int) -> str:
    """``str(value)`` past Python's default limit of 4300 digits (n! for n >= 1750)."""
    import sys

    if not hasattr(sys, "get_int_max_str_digits") or value < 10**4000:
        return str(value)
    from gdlcheck.errors import LimitError
    from gdlcheck.limits import MAX_ORDER_DIGITS

    digits = int(value.bit_length() * 0.30103) + 1
    if digits > MAX_ORDER_DIGITS:
        # CPython's int -> str is quadratic: 5.5 million digits would take minutes
        raise LimitError(f"the group's order has about {digits} digits, over the limit of {MAX_ORDER_DIGITS} "
                         "digits that JSON output writes out exactly")
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(value)
    finally:
        sys.set_int_max_str_digits(old)
