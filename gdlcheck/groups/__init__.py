"""Permutation groups given by generators: the convention, the catalogue, automorphisms.

* :mod:`~gdlcheck.groups.perm`: permutations in array form and how they act (the
  convention, as doctests);
* :mod:`~gdlcheck.groups.family`: ``Family``, the record of a catalogue family, and
  ``Role``, what a generator is;
* :mod:`~gdlcheck.groups.group`: ``PermGroup``, which points to its family's record;
* :mod:`~gdlcheck.groups.names`: the records, one per catalogue group, by name and alias;
* :mod:`~gdlcheck.groups.catalogue`: the groups built from them, and ``build_group``;
* :mod:`~gdlcheck.groups.named`: the generators of each named family, with their roles;
* :mod:`~gdlcheck.groups.recognise`: S_n and A_n told from any generators;
* :mod:`~gdlcheck.groups.automorphisms`: the automorphisms of a weighted, directed graph,
  by the numpy refinement search (:mod:`~gdlcheck.groups.refinement`) or BLISS on the
  layered graph (:mod:`~gdlcheck.groups.layered`), from the entries' colour classes
  (:mod:`~gdlcheck.groups.colours`);
* :mod:`~gdlcheck.groups.components`: the connected-components kernel behind every orbit.
"""

from gdlcheck.groups.catalogue import (
    alternating,
    automorphism_group,
    build_group,
    cyclic,
    dihedral,
    from_generators,
    grid_shape,
    p4,
    p4m,
    symmetric,
    translations,
    trivial,
)
from gdlcheck.groups.family import Family, Role
from gdlcheck.groups.group import PermGroup
from gdlcheck.groups.names import FAMILIES, find_family
from gdlcheck.groups.perm import (
    Perm,
    act,
    act_rows,
    check_perm,
    conjugate,
    cycle_string,
    fixes,
    identity,
    inverse,
    is_sparse,
    is_translation,
    parse_perm,
    perm_matrix,
    shift,
    then,
)

__all__ = [
    "FAMILIES",
    "Family",
    "Perm",
    "PermGroup",
    "Role",
    "act",
    "act_rows",
    "alternating",
    "automorphism_group",
    "build_group",
    "check_perm",
    "conjugate",
    "cycle_string",
    "cyclic",
    "dihedral",
    "find_family",
    "fixes",
    "from_generators",
    "grid_shape",
    "identity",
    "inverse",
    "is_sparse",
    "is_translation",
    "p4",
    "p4m",
    "parse_perm",
    "perm_matrix",
    "shift",
    "symmetric",
    "then",
    "translations",
    "trivial",
]
