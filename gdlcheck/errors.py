"""The exceptions gdlcheck raises for a user's mistake.

Every one carries *where* the problem is (a file, a key path) and *what* is wrong, and
renders as the one line the command line prints: ``FILE: WHERE: WHAT``.  Exit codes are
the command line's business, not this module's.

A message names the parameters of the call that went wrong with :func:`param`: the library
spells them as Python does (``n``, ``in_order``), and the command line as its flags
(``-n N``, ``--in-order``), through :meth:`GdlcheckError.message`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# A parameter between two NUL characters, "name", "name:METAVAR" or "name=value": no message
# text holds a NUL otherwise (user values are quoted with repr, which escapes it).
_MARK = "\x00"
_PARAM_RE = re.compile(_MARK + r"([a-z_]+)(?:/([a-z_]+))?(?:([:=~])([^\x00]*))?" + _MARK)


def param(
    name: str, metavar: str | None = None, value: str | None = None, python: str | None = None, literal=None
) -> str:
    """A parameter of the call inside a message: ``n`` in Python, ``-n N`` on the command line.

    ``metavar`` is what the flag takes (shown on the command line only); ``value`` an example
    value, shown both ways (``group='cyclic'``, ``--group cyclic``); ``python`` the Python
    name where it differs from the command line's (``--input-shape`` is ``shape=``).

    >>> str(GdlcheckError(f"give {param('n', 'N')}"))
    'give n'
    >>> GdlcheckError(f"give {param('n', 'N')}").message({"n": "-n"}.get)
    'give -n N'
    >>> str(GdlcheckError(f"e.g. {param('group', value='cyclic')}"))
    "e.g. group='cyclic'"

    ``literal`` is an example value that is a number or a tuple of numbers: written as Python
    writes it (``points_axis=(1, 2)``) and, on the command line, without brackets or spaces
    (``--points-axis 1,2``).

    >>> GdlcheckError(f"give {param('points_axis', literal=(1, 2))}").message({"points_axis": "--points-axis"}.get)
    'give --points-axis 1,2'
    >>> str(GdlcheckError(f"give {param('points_axis', literal=1)}"))
    'give points_axis=1'
    """
    alias = f"/{python}" if python else ""
    if literal is not None:
        return f"{_MARK}{name}{alias}~{literal!r}{_MARK}"
    if value is not None:
        return f"{_MARK}{name}{alias}={value}{_MARK}"
    return f"{_MARK}{name}{alias}{':' + metavar if metavar else ''}{_MARK}"


def spell(text: str, flag_of: Callable[[str], str | None] | None = None) -> str:
    """``text`` with its parameters spelled as Python names, or as ``flag_of(name)`` flags."""

    def one(m: re.Match) -> str:
        name, python, sep, extra = m.groups()
        flag = flag_of(name) if flag_of is not None else None
        if flag is None:
            name = python or name
            if sep == "~":
                return f"{name}={extra}"
            return f"{name}={extra!r}" if sep == "=" else name
        if sep == "~":
            return f"{flag} {extra.strip('()[]').replace(' ', '').rstrip(',')}"
        return f"{flag} {extra}" if extra else flag

    return _PARAM_RE.sub(one, text) if _MARK in text else text


class GdlcheckError(Exception):
    """A problem with the user's input (a file, a spec, an option)."""

    def __init__(self, what: str, *, file: str | None = None, where: str | None = None):
        super().__init__(what)
        self.what = what
        self.file = file
        self.where = where

    def located(self, file: str | None = None, prefix: str | None = None) -> GdlcheckError:
        """Fill in the file if it is not known yet and put ``prefix`` before the key path."""
        if self.file is None:
            self.file = file
        if prefix:
            self.where = join_path(prefix, self.where)
        return self

    def message(self, flag_of: Callable[[str], str | None] | None = None) -> str:
        """``FILE: WHERE: WHAT``, the parameters spelled by ``flag_of`` (default: Python names)."""
        parts = [p for p in (self.file, self.where, spell(self.what, flag_of)) if p]
        return ": ".join(parts)

    def __str__(self) -> str:
        return self.message()


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


class CallableError(GdlcheckError):
    """A user's callable could not be imported, built or run (the user's error: exit 2)."""


def join_path(prefix: str, rest: str | None) -> str:
    """``join_path("layer", "weight") == "layer.weight"``; indices attach directly: ``layer[2]``."""
    if not rest:
        return prefix
    return prefix + rest if rest.startswith("[") else f"{prefix}.{rest}"
