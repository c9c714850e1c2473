"""``derive``: the parameter form a symmetry forces on a linear map.

A closed form where the group's family has one (:mod:`~gdlcheck.derivation.closed_forms`);
otherwise the orbits on index tuples through point stabilisers (any order,
:mod:`~gdlcheck.derivation.orbitals`), which equal the reference method's connected
components over all cells (:mod:`~gdlcheck.derivation.cells`).
"""

from __future__ import annotations

from gdlcheck.derivation.cells import check_cells
from gdlcheck.derivation.closed_forms import _tensor_formula, closed_form
from gdlcheck.derivation.orbitals import tuple_orbits
from gdlcheck.derivation.sharing import Derived
from gdlcheck.errors import LimitError, param
from gdlcheck.groups import PermGroup


def derive(
    group: PermGroup, in_order: int = 1, out_order: int = 1, channels_in: int = 1, channels_out: int = 1
) -> Derived:
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
    for label, value in (("in_order", in_order), ("out_order", out_order)):
        if not 0 <= value <= 4:
            raise LimitError(f"{param(label)} must be between 0 and 4, got {value}")
    for label, value in (("channels_in", channels_in), ("channels_out", channels_out)):
        if value < 1:
            raise LimitError(f"{param(label)} must be a positive integer, got {value}")
    # A closed form is named without its pattern (the pattern is checked against the budget
    # when something needs it: json, csv, npy); the general method always builds it.
    d = closed_form(group, in_order, out_order)
    if d is None:
        m = in_order + out_order
        check_cells(group.n, m)
        pattern = tuple_orbits(group, m)
        dim = int(pattern.max()) + 1 if pattern.size else 1
        if (in_order, out_order) == (1, 1):
            form, formula = "orbit basis", "W[i, j] = w_k for (i, j) in orbit k (numbered by first appearance)"
        elif m == 1:
            form = "constant on point orbits"
            formula = (
                "T_out[i1] = w_k for i1 in point orbit k"
                if out_order
                else "y = sum over point orbits k of w_k * sum of x[j1] over j1 in orbit k"
            )
        else:
            form, formula = "orbit basis", _tensor_formula(in_order, out_order)
        d = Derived(
            group=group,
            in_order=in_order,
            out_order=out_order,
            dimension=dim,
            form=form,
            formula=formula,
            name_of=lambda k: f"w_{k}",
            _pattern=pattern,
        )
    d.channels_in, d.channels_out = channels_in, channels_out
    return d


def burnside_dimension(group: PermGroup, order: int = 2) -> int:
    """(1/|G|) sum_g fix(g)^order, by enumerating the group (small groups, for tests)."""
    elements = group.elements()
    total = sum(sum(1 for i, x in enumerate(g) if i == x) ** order for g in elements)
    return total // len(elements)
