"""The catalogue of groups (docs/design.md section 2): one ``Family`` record per group family.

A record (:class:`~gdlcheck.groups.family.Family`) says everything gdlcheck knows about a
family: its name and aliases, how it is sized, how to build its generators (each with its
``Role``, :mod:`~gdlcheck.groups.named`), its order where a formula gives it, and the
sentences ``derive --explain`` writes for its generators and its form.  This module also
builds a group from what the user gives (``build_group``), checking that every option given
sizes the family named.
Adding a group is adding a record to ``FAMILIES``; derive may give it a closed form
(:mod:`gdlcheck.derivation.closed_forms`), keyed by the family, or use the general method.

Nothing in gdlcheck compares ``group.name``: code asks ``group.family`` and ``group.role(k)``,
which only this module's constructors set.
"""

from __future__ import annotations

import math
import re

import numpy as np

from gdlcheck.errors import GroupError, param
from gdlcheck.groups.automorphisms import coloured_automorphisms, sparse_automorphisms
from gdlcheck.groups.colours import colour_classes
from gdlcheck.groups.components import point_orbit_labels
from gdlcheck.groups.family import Family, Role, Sizing
from gdlcheck.groups.group import NOT_COMPUTED, PermGroup
from gdlcheck.groups.named import (
    alternating_element,
    alternating_gens,
    cyclic_element,
    cyclic_gens,
    dihedral_element,
    dihedral_gens,
    distinct,
    lazy_factorial,
    p4_element,
    p4_gens,
    p4m_element,
    p4m_gens,
    symmetric_element,
    symmetric_gens,
    translation_element,
    translation_gens,
    trivial_element,
    trivial_gens,
)
from gdlcheck.groups.perm import Perm, check_perm, is_sparse, parse_perm
from gdlcheck.groups.recognise import recognise
from gdlcheck.limits import MAX_POINTS, MAX_SCHREIER_SIMS_POINTS
from gdlcheck.text import parse_shape, suggest

# --------------------------------------------------------------------------- the records

TRANSLATIONS_CONCLUSION = ("Together: W[i, j] depends only on the offset between the points i and j along every axis "
                           "(mod the shape): a multilevel block-circulant matrix -- a circular convolution on the "
                           "grid.")
GRID_CONCLUSION = ("Together: W[i, j] depends only on the offset between the points, and offsets related by the "
                   "rotations (and reflections) that fix the origin share a parameter -- a group convolution.")

FAMILIES: dict[str, Family] = {f.name: f for f in [
    Family("trivial", (), Sizing.POINTS, "n", "no generators", "1", trivial_gens, lambda n: 1, sample=trivial_element),
    Family("cyclic", ("shift",), Sizing.POINTS, "n", "the unit shift j -> j+1 mod n", "n", cyclic_gens, lambda n: n,
           sample=cyclic_element,
           conclusion="Together: W[i, j] = theta_((i - j) mod n), a circulant matrix -- a circular convolution."),
    Family("dihedral", (), Sizing.POINTS, "n", "the shift and the reflection j -> -j mod n", "2n for n >= 3",
           dihedral_gens, lambda n: 2 * n if n >= 3 else None, sample=dihedral_element,
           conclusion="Together: W is circulant and W[i, j] = W[j, i]: a symmetric circulant, theta_k = theta_(n-k)."),
    Family("symmetric", ("permutation",), Sizing.POINTS, "n", "the n-cycle (0 1 .. n-1) and the transposition (0 1)",
           "n!", symmetric_gens, lambda n: lazy_factorial(n, 1), factorial_over=1,
           sample=symmetric_element),
    Family("alternating", (), Sizing.POINTS, "n", "(0 1 2) and (0 1 .. n-1), or (1 2 .. n-1) for even n", "n!/2",
           alternating_gens, lambda n: lazy_factorial(n, 2) if n >= 2 else 1, factorial_over=2,
           sample=alternating_element),
    Family("translations", ("torus",), Sizing.SHAPE, "shape", "the unit shift along each axis", "product of the shape",
           translation_gens, math.prod, conclusion=TRANSLATIONS_CONCLUSION,
           sample=translation_element),
    Family("p4", (), Sizing.SQUARE, "shape NxN", "translations and the rotation (a, b) -> (b, -a mod N)", "4N^2",
           p4_gens, lambda shape: 4 * shape[0] ** 2 if shape[0] >= 3 else None, conclusion=GRID_CONCLUSION,
           sample=p4_element),
    Family("p4m", (), Sizing.SQUARE, "shape NxN", "p4 and the reflection (a, b) -> (a, -b mod N)", "8N^2", p4m_gens,
           lambda shape: 8 * shape[0] ** 2 if shape[0] >= 3 else None, conclusion=GRID_CONCLUSION,
           sample=p4m_element),
    Family("automorphisms", (), Sizing.GRAPH, "graph", "generators of the graph's automorphism group", "computed"),
    Family("generators", (), Sizing.GENERATORS, "n and permutations", "as given",
           "recognised S_n or A_n: n! or n!/2; else computed (Schreier-Sims, up to 64 points)"),
]}

ALIASES = {alias: f.name for f in FAMILIES.values() for alias in (f.name,) + f.aliases}


def _refuse_unused(family: Family, shape, graph) -> None:
    """A shape or a graph given to a family that is not sized by it would be ignored: an error instead."""
    if shape is not None and not family.is_grid:
        raise GroupError(f"{param('shape', 'HxW')} sizes the grid groups (translations, p4, p4m); {family.name!r} is "
                         f"sized by {family.size.option()}")
    if graph is not None and not family.of_a_graph:
        raise GroupError(f"{param('graph', 'FILE')} goes with {param('group', value='automorphisms')}, not "
                         f"{family.name!r}")


# Words people use for a group, by meaning rather than spelling: the suggestion of an unknown name.
MEANINGS = {
    **dict.fromkeys(("rotation", "rotations", "rot90", "rotate", "c4", "quarter_turns"), "p4"),
    **dict.fromkeys(("square", "d4", "rotations_and_reflections", "roto_reflections"), "p4m"),
    **dict.fromkeys(("reflection", "reflections", "mirror", "flip", "flips", "dn"), "dihedral"),
    **dict.fromkeys(("shifts", "circular", "roll", "periodic", "cn", "zn", "c_n", "z_n", "sequence"), "cyclic"),
    **dict.fromkeys(("grid", "image", "conv2d", "2d", "lattice"), "translations"),
    **dict.fromkeys(("permutations", "perm", "perms", "set", "sets", "all", "sn", "s_n", "deepsets"), "symmetric"),
    **dict.fromkeys(("even", "even_permutations", "an", "a_n"), "alternating"),
    **dict.fromkeys(("graph", "automorphism", "aut", "graph_automorphisms"), "automorphisms"),
    **dict.fromkeys(("none", "identity", "id", "nothing"), "trivial"),
    **dict.fromkeys(("custom", "permutation_group", "generated"), "generators"),
}


def find_family(name) -> Family:
    """The family named ``name`` or one of its aliases (any case); a near miss gets a suggestion."""
    key = str(name).strip().lower()
    if key not in ALIASES:
        if _CONTINUOUS.fullmatch(key):
            raise GroupError(f"{name!r} is a continuous group, and continuous groups are out of scope: gdlcheck checks "
                             f"finite permutation groups (known: {', '.join(FAMILIES)}; the rotations of a square grid "
                             "by 90 degrees are p4)")
        raise GroupError(f"unknown group {name!r}{_sized_name(key) or suggest(key, ALIASES, meanings=MEANINGS)}; "
                         f"known: {', '.join(FAMILIES)}")
    return FAMILIES[ALIASES[key]]


# The Lie groups people ask for (SO3, SO(3), O(n), E(3), SE3, U(1), SU2, GL(n), lie):
# continuous, which a permutation group cannot be
_CONTINUOUS = re.compile(r"(?:s?o|se|e|s?u|[gs]l|sp)[ _]?\(?(?:\d+|n|d)?\)?|lie|continuous|lorentz")


# A textbook name with its size, 'C16', 'Z_16', 'D8', 'S5', 'A5': the family of its letter
_SIZED = {"c": "cyclic", "z": "cyclic", "d": "dihedral", "s": "symmetric", "a": "alternating"}


def _sized_name(key: str) -> str:
    """The hint for a group written as a letter and a size, which the catalogue spells as a name
    and -n: ``C16`` is ``cyclic`` with ``n = 16``."""
    import re

    match = re.fullmatch(r"([czdsa])_?(\d{1,7})", key)
    if match is None or key in MEANINGS:   # 'c4' and 'd4' name the grid groups p4 and p4m
        return ""
    family, k = _SIZED[match.group(1)], int(match.group(2))
    text = f" ({param('group', value=family)} with {param('n', literal=k)}"
    if family == "dihedral" and k % 2 == 0:
        text += f": the symmetries of a regular {k}-gon, order {2 * k}; for the dihedral group of order {k}, " \
                f"{param('n', literal=k // 2)}"
    return text + ")"


def make(family: Family, size) -> PermGroup:
    """The group of ``family`` at ``size`` (``n``, or a shape tuple), with its roles and order."""
    if family.build is None:
        raise TypeError(f"the {family.name} family is not built from a size")
    pairs = family.build(size)
    shape = size if isinstance(size, tuple) else None
    n = math.prod(shape) if shape else size
    return PermGroup(family.name, n, tuple(g for g, _ in pairs), shape=shape, roles=tuple(r for _, r in pairs),
                     family=family, order_formula=family.order(size) if family.order else None)


def trivial(n: int) -> PermGroup:
    return make(FAMILIES["trivial"], n)


def cyclic(n: int) -> PermGroup:
    return make(FAMILIES["cyclic"], n)


def dihedral(n: int) -> PermGroup:
    return make(FAMILIES["dihedral"], n)


def symmetric(n: int) -> PermGroup:
    return make(FAMILIES["symmetric"], n)


def alternating(n: int) -> PermGroup:
    return make(FAMILIES["alternating"], n)


def translations(shape: tuple[int, ...]) -> PermGroup:
    return make(FAMILIES["translations"], tuple(shape))


def p4(shape: tuple[int, ...]) -> PermGroup:
    return make(FAMILIES["p4"], _square(tuple(shape), "p4"))


def p4m(shape: tuple[int, ...]) -> PermGroup:
    return make(FAMILIES["p4m"], _square(tuple(shape), "p4m"))


def _square(shape: tuple[int, ...], name: str) -> tuple[int, int]:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise GroupError(f"group {name!r} needs a square shape NxN, got {'x'.join(map(str, shape))}")
    return shape


def from_generators(n: int | None, generators) -> PermGroup:
    """The group generated by ``generators`` (strings or sequences) on ``n`` points.

    Without ``n`` the degree is the longest array form or the largest point named plus one.
    """
    if not generators:
        raise GroupError(f"group 'generators' needs at least one {param('generators', 'PERM')}")
    if n is None:
        n = max(len(parse_perm(g, None)) if isinstance(g, str) else len(g) for g in generators)
    n = _check_n(n, "generators")
    parsed = [parse_perm(g, n) if isinstance(g, str) else check_perm(g, n) for g in generators]
    gens = distinct(tuple((g, _structural_role(g)) for g in parsed), n)
    perms = tuple(g for g, _ in gens)
    # S_n and A_n given by generators are recognised (linear work): their closed forms and
    # order formulas apply, whatever the generators
    known = recognise(n, list(perms)) if perms else None
    family = FAMILIES[known] if known else FAMILIES["generators"]
    order = family.order(n) if known and family.order else _generated_order(n, perms)
    return PermGroup("generators", n, perms, roles=tuple(r for _, r in gens), family=family, order_formula=order)


def _generated_order(n: int, perms: tuple[Perm, ...]):
    """The order of a generated group that is not S_n or A_n: by formula for one generator (the
    lcm of its cycle lengths), by Schreier-Sims up to MAX_SCHREIER_SIMS_POINTS points, else
    not computed (None): Schreier-Sims has no bound of its own."""
    if not perms:
        return 1
    if len(perms) == 1:
        labels = point_orbit_labels(n, [np.asarray(perms[0])])
        lengths = {int(c) for c in np.bincount(labels) if c}
        return math.lcm(*lengths)
    if n <= MAX_SCHREIER_SIMS_POINTS:
        return None  # PermGroup computes it with sympy
    return NOT_COMPUTED


def _structural_role(g: Perm) -> Role:
    """A role read off the permutation itself: a transposition or a 3-cycle, else unknown."""
    moved = sum(1 for i, x in enumerate(g) if i != x)
    return Role("transposition") if moved == 2 else Role("3-cycle") if moved == 3 else Role("generator")


def automorphism_group(A: np.ndarray, tol: float = 0.0) -> PermGroup:
    """The automorphism group of the graph with adjacency matrix ``A`` (BLISS, through igraph).

    Weights and directions count: ``sigma`` is an automorphism exactly when
    ``A[sigma(i), sigma(j)] == A[i, j]`` for all ``i, j`` (within ``tol`` times the largest
    entry, if given).  The group keeps the colour matrix as ``graph``: derive computes exact
    stabilisers from it.  A scipy.sparse ``A`` is never densified (exact colours; derive then
    uses the general method).
    """
    if is_sparse(A):
        if A.shape[0] != A.shape[1]:
            raise GroupError(f"a graph's adjacency matrix must be square, got shape {A.shape[0]}x{A.shape[1]}")
        gens, order = sparse_automorphisms(A)
        return PermGroup("automorphisms", A.shape[0], tuple(gens), roles=tuple(Role("generator") for _ in gens),
                         family=FAMILIES["automorphisms"], order_formula=order, graph=None)
    try:
        A = np.asarray(A, dtype=float)
    except (TypeError, ValueError):
        raise GroupError("a graph's adjacency matrix must hold numbers") from None
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise GroupError(f"a graph's adjacency matrix must be square, got shape {'x'.join(map(str, A.shape))}")
    C = colour_classes(A, tol)
    gens, order = coloured_automorphisms(C)
    return PermGroup("automorphisms", C.shape[0], tuple(gens), roles=tuple(Role("generator") for _ in gens),
                     family=FAMILIES["automorphisms"], order_formula=order, graph=C)


def _check_n(n, name: str) -> int:
    if n is None:
        raise GroupError(f"group {name!r} needs a size: give {param('n', 'N')}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise GroupError(f"group {name!r}: n must be a positive integer, got {n!r}")
    if n < 1:
        raise GroupError(f"group {name!r}: n must be a positive integer, got {n}")
    if n > MAX_POINTS:
        raise GroupError(f"group {name!r}: n = {n} exceeds the limit of {MAX_POINTS} points")
    return int(n)


def grid_shape(family: Family, shape=None, n=None) -> tuple[int, ...]:
    """The shape of a grid family: ``shape`` as given, else from ``n`` points (a line for
    translations, an N x N square for p4/p4m)."""
    if shape is None and n is not None:
        shape = family.grid_of(n)
    if shape is None:
        raise GroupError(f"a grid group needs a shape: give {param('shape', 'HxW')}")
    dims = parse_shape(shape, error=GroupError)
    if math.prod(dims) > MAX_POINTS:
        raise GroupError(f"shape {'x'.join(map(str, dims))} has {math.prod(dims)} points, over the limit of "
                         f"{MAX_POINTS}")
    return dims if family.takes(dims) else _square(dims, family.name)  # the latter raises: not a square


def build_group(name, n=None, shape=None, generators=None, graph=None) -> PermGroup:
    """Build a group from the catalogue (docs/design.md section 2).

    Raises :class:`GroupError` for an unknown name, a missing size, or a bad generator.
    """
    family = find_family(name)
    _refuse_unused(family, shape, graph)
    if family.is_grid:
        group = make(family, grid_shape(family, shape, n))
    elif family.generated:
        group = from_generators(n, generators)
    elif family.of_a_graph:
        if graph is None:
            raise GroupError(f"group 'automorphisms' needs a graph: give {param('graph', 'FILE')}")
        group = automorphism_group(graph)
        if n is not None and n != group.n:
            raise GroupError(f"the graph has {group.n} nodes but n = {n}")
    else:
        group = make(family, _check_n(n, family.name))
    if generators and not family.generated:
        raise GroupError(f"{param('generators')} goes with {param('group')} generators, not {family.name!r}")
    return group
