"""The parameter form a symmetry forces on a linear map, found as orbits (never a null space).

* :mod:`~gdlcheck.derivation.basis`: ``derive``, the entry point;
* :mod:`~gdlcheck.derivation.sharing`: ``Derived``, the result as data;
* :mod:`~gdlcheck.derivation.closed_forms`: the catalogue families' forms, cell by cell;
* :mod:`~gdlcheck.derivation.orbitals`: any order for any group, by point stabilisers;
* :mod:`~gdlcheck.derivation.cells`: the cell budget and the reference method;
* :mod:`~gdlcheck.derivation.project`: the nearest equivariant matrix (``Projected``).
"""

from gdlcheck.derivation.basis import burnside_dimension, derive
from gdlcheck.derivation.cells import first_appearance, orbit_labels
from gdlcheck.derivation.closed_forms import closed_form_pattern, partition_name, set_partitions
from gdlcheck.derivation.orbitals import orbitals, tuple_orbits
from gdlcheck.derivation.project import Projected, project
from gdlcheck.derivation.sharing import Derived

__all__ = [
    "Derived",
    "Projected",
    "burnside_dimension",
    "closed_form_pattern",
    "derive",
    "first_appearance",
    "orbit_labels",
    "orbitals",
    "partition_name",
    "project",
    "set_partitions",
    "tuple_orbits",
]
