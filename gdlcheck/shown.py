"""How a result shows itself -- ``to_json()``, ``report()``, Jupyter's ``_repr_html_``, ``plot()``
-- although its JSON, report and picture are made in :mod:`gdlcheck.output`, a layer above it.

Each result the API returns is one type: the library's own record (``Verified``, ``Derived``,
``Inspected``, ``Found``, ``Projected``, ``TensorChecked``, and ``Check`` inside ``Verified``),
defined beside the code that computes it, below ``output``.  ``output`` imports the records to
word them, so a record may not import ``output`` (the import contracts count every import, also
inside a function).  The dependency is inverted here instead: a record inherits
:class:`Serialised` or :class:`Shown`, whose methods look up the record's class in a registry,
and :func:`gdlcheck.output.present.register_presenters` fills the registry with a
:class:`Presenter` per class (the functions of ``output`` that make its JSON, text, HTML and
picture).  :mod:`gdlcheck.api` calls it on import, so every result the API returns shows
itself; a record made by a layer directly (a test's ``verify_layer``) does once the API is
imported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# The width of report() and of the notebook's HTML: rich lays the reports out for it.
REPORT_WIDTH = 100


@dataclass(frozen=True)
class Presenter:
    """How :mod:`gdlcheck.output` shows one record class: ``json(record, *args)`` is its JSON
    object; ``text(record, width)`` and ``html(record)`` its report; ``figure(record)`` its
    picture (None where the class has none)."""

    json: Callable[..., dict]
    text: Callable[[Any, int], str] | None = None
    html: Callable[[Any], str] | None = None
    figure: Callable[[Any], Any] | None = None


_PRESENTERS: dict[type, Presenter] = {}


def register(cls: type, presenter: Presenter) -> None:
    """Show the records of ``cls`` (and its subclasses) by ``presenter``; :mod:`gdlcheck.output.present` calls it."""
    _PRESENTERS[cls] = presenter


def presenter_of(record) -> Presenter:
    """The presenter registered for ``record``'s class or its nearest base that has one."""
    for cls in type(record).__mro__:
        if cls in _PRESENTERS:
            return _PRESENTERS[cls]
    raise RuntimeError(
        f"{type(record).__name__} is shown by gdlcheck.output, whose presenters are not "
        "registered yet: import gdlcheck.api first"
    )


def figure_of(record):
    """``record``'s picture as a matplotlib ``Figure``, drawn by its presenter."""
    figure = presenter_of(record).figure
    if figure is None:
        raise RuntimeError(f"the presenter of {type(record).__name__} draws no picture")
    return figure(record)


class Serialised:
    """A record whose JSON object (docs/design.md section 6: keys added, never renamed) :mod:`gdlcheck.output`
    makes."""

    def to_json(self) -> dict:
        """The object ``--format json`` prints for this result."""
        return presenter_of(self).json(self)


class Shown(Serialised):
    """A result that also shows itself as the text report its command prints, and in Jupyter."""

    def report(self, width: int = REPORT_WIDTH) -> str:
        """The text report ``gdlcheck`` prints for this result, laid out for ``width`` columns."""
        text = presenter_of(self).text
        if text is None:
            raise RuntimeError(f"the presenter of {type(self).__name__} has no text report")
        return text(self, width)

    def _repr_html_(self) -> str:
        html = presenter_of(self).html
        if html is None:
            raise RuntimeError(f"the presenter of {type(self).__name__} has no HTML report")
        return html(self)
