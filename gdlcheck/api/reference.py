"""What the catalogues hold: every group name (for shell completion), every layer kind's
reference (``gdlcheck kinds``), and the spec format as a JSON Schema (``gdlcheck schema``).
"""

from __future__ import annotations

from gdlcheck.errors import SpecError
from gdlcheck.groups import FAMILIES


def group_names() -> list[str]:
    """Every name and alias of the catalogue (for shell completion)."""
    return [name for family in FAMILIES.values() for name in (family.name, *family.aliases)]


def kinds() -> list:
    """Every layer kind's reference (``gdlcheck kinds``): name, summary, keys, example."""
    from gdlcheck.layers.reference import KIND_REFERENCE

    return list(KIND_REFERENCE.values())


def kind(name: str):
    """One layer kind's reference (``gdlcheck kinds NAME``).

    Raises
    ------
    SpecError
        for an unknown kind, with a suggestion.
    """
    from gdlcheck.layers.reference import KIND_REFERENCE
    from gdlcheck.text import suggest

    if name not in KIND_REFERENCE:
        raise SpecError(
            f"unknown layer kind {name!r}{suggest(name, KIND_REFERENCE)}; known: {', '.join(sorted(KIND_REFERENCE))}"
        )
    return KIND_REFERENCE[name]


def spec_schema() -> dict:
    """The spec format as a JSON Schema (``gdlcheck schema``)."""
    from gdlcheck.output.schema import spec_schema as build

    return build()
