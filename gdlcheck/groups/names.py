"""The catalogue's families by name (docs/design.md section 2): ``FAMILIES``, one
:class:`~gdlcheck.groups.family.Family` record per group family, their aliases, and
:func:`find_family`, which reads a name as people write it (any case, an alias, a textbook
name with its size such as ``C16``, a word for what the group does) or says what is known.

Adding a group is adding a record to ``FAMILIES``; :mod:`gdlcheck.groups.catalogue` builds the
groups from them.
"""

from __future__ import annotations

import math
import re

from gdlcheck.errors import GroupError, param
from gdlcheck.groups.family import Family, Sizing
from gdlcheck.groups.named import (
    alternating_element,
    alternating_gens,
    cyclic_element,
    cyclic_gens,
    dihedral_element,
    dihedral_gens,
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
from gdlcheck.text import suggest

TRANSLATIONS_CONCLUSION = (
    "Together: W[i, j] depends only on the offset between the points i and j along every axis "
    "(mod the shape): a multilevel block-circulant matrix -- a circular convolution on the "
    "grid."
)
GRID_CONCLUSION = (
    "Together: W[i, j] depends only on the offset between the points, and offsets related by the "
    "rotations (and reflections) that fix the origin share a parameter -- a group convolution."
)

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family(
            "trivial", (), Sizing.POINTS, "n", "no generators", "1", trivial_gens, lambda n: 1, sample=trivial_element
        ),
        Family(
            "cyclic",
            ("shift",),
            Sizing.POINTS,
            "n",
            "the unit shift j -> j+1 mod n",
            "n",
            cyclic_gens,
            lambda n: n,
            sample=cyclic_element,
            conclusion="Together: W[i, j] = theta_((i - j) mod n), a circulant matrix -- a circular convolution.",
        ),
        Family(
            "dihedral",
            (),
            Sizing.POINTS,
            "n",
            "the shift and the reflection j -> -j mod n",
            "2n for n >= 3",
            dihedral_gens,
            lambda n: 2 * n if n >= 3 else None,
            sample=dihedral_element,
            conclusion="Together: W is circulant and W[i, j] = W[j, i]: a symmetric circulant, theta_k = theta_(n-k).",
        ),
        Family(
            "symmetric",
            ("permutation",),
            Sizing.POINTS,
            "n",
            "the n-cycle (0 1 .. n-1) and the transposition (0 1)",
            "n!",
            symmetric_gens,
            lambda n: lazy_factorial(n, 1),
            factorial_over=1,
            sample=symmetric_element,
        ),
        Family(
            "alternating",
            (),
            Sizing.POINTS,
            "n",
            "(0 1 2) and (0 1 .. n-1), or (1 2 .. n-1) for even n",
            "n!/2",
            alternating_gens,
            lambda n: lazy_factorial(n, 2) if n >= 2 else 1,
            factorial_over=2,
            sample=alternating_element,
        ),
        Family(
            "translations",
            ("torus",),
            Sizing.SHAPE,
            "shape",
            "the unit shift along each axis",
            "product of the shape",
            translation_gens,
            math.prod,
            conclusion=TRANSLATIONS_CONCLUSION,
            sample=translation_element,
        ),
        Family(
            "p4",
            (),
            Sizing.SQUARE,
            "shape NxN",
            "translations and the rotation (a, b) -> (b, -a mod N)",
            "4N^2",
            p4_gens,
            lambda shape: 4 * shape[0] ** 2 if shape[0] >= 3 else None,
            conclusion=GRID_CONCLUSION,
            sample=p4_element,
        ),
        Family(
            "p4m",
            (),
            Sizing.SQUARE,
            "shape NxN",
            "p4 and the reflection (a, b) -> (a, -b mod N)",
            "8N^2",
            p4m_gens,
            lambda shape: 8 * shape[0] ** 2 if shape[0] >= 3 else None,
            conclusion=GRID_CONCLUSION,
            sample=p4m_element,
        ),
        Family("automorphisms", (), Sizing.GRAPH, "graph", "generators of the graph's automorphism group", "computed"),
        Family(
            "generators",
            (),
            Sizing.GENERATORS,
            "n and permutations",
            "as given",
            "recognised S_n or A_n: n! or n!/2; else computed (Schreier-Sims, up to 64 points)",
        ),
    ]
}

ALIASES = {alias: f.name for f in FAMILIES.values() for alias in (f.name,) + f.aliases}


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
            raise GroupError(
                f"{name!r} is a continuous group, and continuous groups are out of scope: gdlcheck checks "
                f"finite permutation groups (known: {', '.join(FAMILIES)}; the rotations of a square grid "
                "by 90 degrees are p4)"
            )
        raise GroupError(
            f"unknown group {name!r}{_sized_name(key) or suggest(key, ALIASES, meanings=MEANINGS)}; "
            f"known: {', '.join(FAMILIES)}"
        )
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
    if match is None or key in MEANINGS:  # 'c4' and 'd4' name the grid groups p4 and p4m
        return ""
    family, k = _SIZED[match.group(1)], int(match.group(2))
    text = f" ({param('group', value=family)} with {param('n', literal=k)}"
    if family == "dihedral" and k % 2 == 0:
        text += (
            f": the symmetries of a regular {k}-gon, order {2 * k}; for the dihedral group of order {k}, "
            f"{param('n', literal=k // 2)}"
        )
    return text + ")"
