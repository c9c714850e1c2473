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

The manual's "Architecture" page (docs/architecture.md) maps every command to the module
that does its work.

Type checkers and editors see the real names: the ``TYPE_CHECKING`` block below imports them
for the checker only (``TYPE_CHECKING`` is a plain ``False`` at run time, which mypy and
pyright read as true), so ``import gdlcheck`` loads nothing more than this file.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

# not typing.TYPE_CHECKING: importing typing would double the cost of `import gdlcheck`
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gdlcheck import testing as testing
    from gdlcheck.api import derive as derive
    from gdlcheck.api import find_symmetries as find_symmetries
    from gdlcheck.api import group as group
    from gdlcheck.api import inspect as inspect
    from gdlcheck.api import measure as measure
    from gdlcheck.api import project as project
    from gdlcheck.api import verify as verify
    from gdlcheck.api import verify_callable as verify_callable
    from gdlcheck.api import verify_weights as verify_weights
    from gdlcheck.code.actions import edges as edges
    from gdlcheck.code.actions import fixed as fixed
    from gdlcheck.code.actions import graph as graph
    from gdlcheck.code.actions import points as points
    from gdlcheck.code.actions import unchanged as unchanged
    from gdlcheck.testing import assert_equivariant as assert_equivariant

# name -> the module that defines it, imported on first attribute access.
_LAZY = {
    "group": "gdlcheck.api",
    "derive": "gdlcheck.api",
    "verify": "gdlcheck.api",
    "verify_callable": "gdlcheck.api",
    "verify_weights": "gdlcheck.api",
    "project": "gdlcheck.api",
    "inspect": "gdlcheck.api",
    "find_symmetries": "gdlcheck.api",
    "measure": "gdlcheck.api",
    "assert_equivariant": "gdlcheck.testing",
    # how the inputs of code move (verify_callable's inputs=)
    "points": "gdlcheck.code.actions",
    "graph": "gdlcheck.code.actions",
    "fixed": "gdlcheck.code.actions",
    "edges": "gdlcheck.code.actions",
    "unchanged": "gdlcheck.code.actions",
}
# submodules reachable as attributes, as the manual writes them (gdlcheck.testing.assert_equivariant)
_SUBMODULES = ("testing", "errors")

__all__ = ["__version__", "group", "derive", "verify", "verify_callable", "verify_weights", "project", "inspect",
           "find_symmetries", "measure",
           "assert_equivariant", "points", "graph", "fixed", "edges", "unchanged", "testing", "errors"]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"gdlcheck.{name}")
    raise AttributeError(f"module 'gdlcheck' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
