"""What every text report is made of: user text that cannot drive the terminal, renderables
laid out for the width they get, and generators and groups in one line.

The reports of each command (``render_verify``, ``render_derive``, ...) are built from these,
so a group or a long generator reads the same in all of them.  Nothing here prints
or creates a Console.
"""

from __future__ import annotations

from rich.text import Text as _RichText

from gdlcheck.groups import PermGroup
from gdlcheck.text import printable, shorten


class Text(_RichText):
    """rich's ``Text`` with control characters and terminal escapes in its strings escaped
    (``\x1b`` printed as the four characters), so no input can drive the terminal."""

    def __init__(self, text: str = "", *args, **kwargs):
        super().__init__(printable(text, keep="\n"), *args, **kwargs)

    def append(self, text, style=None):
        return super().append(printable(text, keep="\n") if isinstance(text, str) else text, style)


# Generators wider than this are shortened in the verify table (the full cycle string is in
# the JSON output and in the counterexample line), so the verdict columns always fit.
GENERATOR_WIDTH = 20
# Where generators have a line of their own (groups, symmetries): a 10^6-cycle is 6.9 MB of text.
LONG_GENERATOR_WIDTH = 200


def short_generator(text: str, width: int = GENERATOR_WIDTH) -> str:
    """``text`` if it fits in ``width`` characters, else its start and an ellipsis."""
    return text if len(text) <= width else shorten(text, width - 1, "").rstrip() + "\u2026"


def group_line(group: PermGroup) -> Text:
    """A group in one line: its name, size, order and how many generators it has."""
    size = "x".join(map(str, group.shape)) if group.shape else f"n={group.n}"
    return Text(f"{group.name} ({size}), order {group.order_text}, {len(group.gens)} generator(s)")


class ByWidth:
    """A renderable built for the width it is given: reports that fit 40 columns as well as 200.

    ``build(width)`` returns the renderable to print at ``width`` columns.
    """

    def __init__(self, build):
        self.build = build

    def __rich_console__(self, console, options):
        yield self.build(options.max_width)
