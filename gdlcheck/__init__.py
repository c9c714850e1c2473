"""gdlcheck: verify that neural-network layers respect a symmetry group, and derive the
weight form the symmetry forces (Geometric Deep Learning, Theorems 1-4).

The command line (``gdlcheck``) is a thin layer over this package; see the README.

The Python API (defined in :mod:`gdlcheck.api` and :mod:`gdlcheck.testing`, loaded on first
use so that ``import gdlcheck`` stays cheap)::

    import gdlcheck
    g = gdlcheck.group("cyclic", n=6)
    gdlcheck.derive(g).dimension                                  # 6: a circulant
    gdlcheck.verify_callable(lambda X: X - X.mean(axis=0), "symmetric", shape=(6, 2)).passed
    gdlcheck.verify("samples/conv.yaml").verdict

The README's "Architecture" section maps every command to the module that does its work.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# name -> the module that defines it, imported on first attribute access.
_LAZY = {
    "group": "gdlcheck.api",
    "derive": "gdlcheck.api",
    "verify": "gdlcheck.api",
    "verify_callable": "gdlcheck.api",
    "project": "gdlcheck.api",
    "inspect": "gdlcheck.api",
    "find_symmetries": "gdlcheck.api",
    "assert_equivariant": "gdlcheck.testing",
    # how the inputs of code move (verify_callable's inputs=)
    "points": "gdlcheck.actions",
    "graph": "gdlcheck.actions",
    "fixed": "gdlcheck.actions",
    "edges": "gdlcheck.actions",
    "unchanged": "gdlcheck.actions",
}

__all__ = ["__version__", "group", "derive", "verify", "verify_callable", "project", "inspect", "find_symmetries",
           "assert_equivariant", "points", "graph", "fixed", "edges", "unchanged"]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gdlcheck' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
