"""Equivariant layers for torch, built from the derived form (``pip install gdlcheck[torch]``).

:class:`EquivariantLinear` has exactly the parameters that ``gdlcheck.derive`` finds for a
group, and computes ``W x`` by the structure of the form (:mod:`gdlcheck.nn.paths`).  This
package imports torch; nothing else in gdlcheck imports it, so ``import gdlcheck`` stays
torch-free.
"""

from gdlcheck.nn.linear import EquivariantLinear

__all__ = ["EquivariantLinear"]
