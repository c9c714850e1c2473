"""gdlcheck: verify that neural-network layers respect a symmetry group, and derive the
weight form the symmetry forces (Geometric Deep Learning, Theorems 1-4).

The command line (``gdlcheck``) is a thin layer over this package; see the README.
"""

__version__ = "0.1.0"
