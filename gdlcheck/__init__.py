"""gdlcheck: verify that neural-network layers respect a symmetry group, and derive the
weight form the symmetry forces (Geometric Deep Learning, Theorems 1-4).

The command line (``gdlcheck``) is a thin layer over this package; see the README.

The Python API (defined in :mod:`gdlcheck.api`, loaded on first use so that
``import gdlcheck`` stays cheap)::

    import gdlcheck
    g = gdlcheck.group("cyclic", n=6)
    gdlcheck.derive(g).dimension                                  # 6: a circulant
    gdlcheck.verify_callable(lambda X: X - X.mean(axis=0), "symmetric", shape=(6, 2)).passed
    gdlcheck.verify("samples/conv.yaml").verdict

``gdlcheck.derive`` and ``gdlcheck.verify`` are also the names of the modules
:mod:`gdlcheck.derive` and :mod:`gdlcheck.verify`.  Both stay modules (``from gdlcheck
import derive as derive_mod`` keeps working) and are made callable: calling the module
calls :func:`gdlcheck.api.derive` / :func:`gdlcheck.api.verify`.
"""

from __future__ import annotations

import importlib
import sys
import types

__version__ = "0.1.0"

# name -> the module that defines it, imported on first attribute access.
_LAZY = {
    "group": "gdlcheck.api",
    "verify_callable": "gdlcheck.api",
    "assert_equivariant": "gdlcheck.testing",
}
# Submodules whose name is also an API function: the module itself becomes callable.
_CALLABLE_SUBMODULES = ("derive", "verify")

__all__ = ["__version__", "group", "derive", "verify", "verify_callable", "assert_equivariant", "testing"]


class _CallableModule(types.ModuleType):
    """A submodule that is also the API function of the same name (``gdlcheck.derive(...)``)."""

    def __call__(self, *args, **kwargs):
        api = importlib.import_module("gdlcheck.api")
        return getattr(api, self.__name__.rpartition(".")[2])(*args, **kwargs)


class _Package(types.ModuleType):
    # The import system sets ``gdlcheck.derive = <module>`` after importing the submodule;
    # that is the moment to make the module callable, whoever imports it first.
    def __setattr__(self, name, value):
        if name in _CALLABLE_SUBMODULES and isinstance(value, types.ModuleType):
            if type(value) is types.ModuleType:
                value.__class__ = _CallableModule
        super().__setattr__(name, value)


def __getattr__(name: str):
    if name in _CALLABLE_SUBMODULES or name == "testing" or name == "api":
        return importlib.import_module(f"gdlcheck.{name}")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gdlcheck' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


sys.modules[__name__].__class__ = _Package
