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

# The public names: this list is the only one. At run time each is looked up on first use
# (__getattr__ below): a submodule of the package by that name, else the name in gdlcheck.api,
# else in gdlcheck.testing. tests/test_public_names.py checks that each imports, that the API
# reference documents it, that the block for type checkers below names exactly these, and that
# nothing else is exported.
__all__ = [
    "__version__",
    # the calls (gdlcheck.api)
    "group",
    "derive",
    "verify",
    "verify_callable",
    "verify_weights",
    "project",
    "inspect",
    "find_symmetries",
    "measure",
    # how the inputs of code move (verify_callable's inputs=)
    "points",
    "graph",
    "fixed",
    "edges",
    "unchanged",
    # a result's verdict and a check's method (string enums: Verdict.HOLDS == "holds")
    "Verdict",
    "Method",
    # in tests
    "assert_equivariant",
    "testing",
    # what the calls raise
    "errors",
]

# not typing.TYPE_CHECKING: importing typing would double the cost of `import gdlcheck`
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gdlcheck import errors, testing
    from gdlcheck.api import (
        Method,
        Verdict,
        derive,
        edges,
        find_symmetries,
        fixed,
        graph,
        group,
        inspect,
        measure,
        points,
        project,
        unchanged,
        verify,
        verify_callable,
        verify_weights,
    )
    from gdlcheck.testing import assert_equivariant

# where the names that are not submodules are defined, in the order they are looked up
_HOMES = ("gdlcheck.api", "gdlcheck.testing")


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module 'gdlcheck' has no attribute {name!r}")
    try:
        value = importlib.import_module(f"gdlcheck.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"gdlcheck.{name}":
            raise
        for home in _HOMES:
            module = importlib.import_module(home)
            if hasattr(module, name):
                value = getattr(module, name)
                break
        else:
            raise AttributeError(f"gdlcheck.__all__ names {name!r}, which no module of {_HOMES} defines") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
