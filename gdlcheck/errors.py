"""The exceptions gdlcheck raises for a user's mistake.

Every one carries *where* the problem is (a file, a key path) and *what* is wrong, and
renders as the one line the command line prints: ``FILE: WHERE: WHAT``. Exit codes are
the command line's business, not this module's.
"""

from __future__ import annotations


class GdlcheckError(Exception):
    """A problem with the user's input (a file, a spec, an option)."""

    def __init__(self, what: str, *, file: str | None = None, where: str | None = None):
        super().__init__(what)
        self.what = what
        self.file = file
        self.where = where

    def located(self, file: str | None = None, prefix: str | None = None) -> "GdlcheckError":
        """Fill in the file if it is not known yet and put ``prefix`` before the key path."""
        if self.file is None:
            self.file = file
        if prefix:
            self.where = join_path(prefix, self.where)
        return self

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.where, self.what) if p]
        return ": ".join(parts)


class SpecError(GdlcheckError):
    """A layer spec or matrix file is malformed."""


class ExprError(SpecError):
    """An expression string is not in the allowed language."""


class GroupError(GdlcheckError):
    """A group cannot be built: unknown name, bad generator, missing size."""


class LimitError(GdlcheckError):
    """The request exceeds a size budget."""


class LayerError(GdlcheckError):
    """A layer cannot be evaluated on the inputs it is checked with (e.g. float64 overflow)."""


def join_path(prefix: str, rest: str | None) -> str:
    """``join_path("layer", "weight") == "layer.weight"``; indices attach directly: ``layer[2]``."""
    if not rest:
        return prefix
    return prefix + rest if rest.startswith("[") else f"{prefix}.{rest}"
