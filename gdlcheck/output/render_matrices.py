"""Matrices as rich tables: a sharing pattern (a parameter name per entry, each in its own
colour) and a matrix of numbers, both elided in the middle past what fits, so the corners stay
visible and a closed form at ``n = 10^6`` prints at once.
"""

from __future__ import annotations

import numpy as np
from rich.table import Table

from gdlcheck.output.render_parts import Text

# A cycle of distinguishable styles for parameters in a sharing pattern.
_PALETTE = [
    "red",
    "green",
    "blue",
    "magenta",
    "cyan",
    "yellow",
    "bright_red",
    "bright_green",
    "bright_blue",
    "bright_magenta",
    "bright_cyan",
    "orange3",
    "purple",
    "dark_green",
    "deep_pink3",
    "gold3",
]
MAX_SHOWN = 12  # rows and columns of a matrix shown before an ellipsis


class PatternView:
    """The matrix of parameter names, each parameter in its own colour.

    Rows and columns past what fits (at most MAX_SHOWN) are elided with an ellipsis in the
    middle, so the corners of the pattern stay visible.  ``d`` is a Derived result of order
    1 -> 1; only the shown corner is computed (``pattern_block``), so a closed form with
    ``n = 10^6`` prints at once.
    """

    def __init__(self, d):
        self.d = d

    def __rich_console__(self, console, options):
        d = self.d
        n = d.n
        rows = _shown(n, MAX_SHOWN)
        probe_rows = [i for i in rows if i is not None]
        block = d.pattern_block(probe_rows, probe_rows)
        names = {int(k): d.entry(int(k)) for k in np.unique(block)}
        cell = max(len(x) for x in names.values()) + 1
        fits = max(3, (options.max_width - 2) // cell - 1)
        cols = _shown(n, min(MAX_SHOWN, fits))
        col_index = [j for j in cols if j is not None]
        block = d.pattern_block(probe_rows, col_index)
        table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1, 0, 0))
        for _ in cols:
            table.add_column(justify="center", no_wrap=True, min_width=cell - 1)
        for i in rows:
            cells = []
            for j in cols:
                if i is None or j is None:
                    cells.append(Text("..." if (i is None) != (j is None) else "", style="dim"))
                    continue
                k = int(block[probe_rows.index(i), col_index.index(j)])
                name = names.get(k) or d.entry(k)
                cells.append(Text(name, style=_PALETTE[k % len(_PALETTE)]))
            table.add_row(*cells)
        yield table


def _shown(size: int, limit: int) -> list:
    if size <= limit:
        return list(range(size))
    half = max(1, (limit - 1) // 2)
    return list(range(half)) + [None] + list(range(size - half, size))


def number_text(x: float) -> str:
    """A matrix entry for people: 4 significant digits, ``0`` for an exact zero.

    >>> [number_text(x) for x in (0.0, -0.36372, 1234567.0, 1e-7)]
    ['0', '-0.3637', '1.235e+06', '1e-07']
    """
    return "0" if x == 0 else f"{x:.4g}"


class NumberView:
    """A numeric matrix as a table with its row and column indices; rows and columns past what
    fits (at most MAX_SHOWN) are elided in the middle, so the corners stay visible."""

    def __init__(self, M: np.ndarray):
        self.M = np.asarray(M, dtype=float)

    def __rich_console__(self, console, options):
        M = self.M
        rows = _shown(M.shape[0], MAX_SHOWN)
        probe = [i for i in rows if i is not None]
        cell = (
            max(
                max((len(number_text(x)) for x in M[np.ix_(probe, probe)].ravel()), default=1), len(str(M.shape[1] - 1))
            )
            + 1
        )
        index = len(str(M.shape[0] - 1)) + 1
        fits = max(3, (options.max_width - index - 1) // cell - 1)
        cols = _shown(M.shape[1], min(MAX_SHOWN, fits))
        table = Table(box=None, show_header=True, pad_edge=False, padding=(0, 1, 0, 0), header_style="dim")
        table.add_column("", justify="right", no_wrap=True, style="dim")
        for j in cols:
            table.add_column("..." if j is None else str(j), justify="right", no_wrap=True, min_width=cell - 1)
        for i in rows:
            if i is None:
                table.add_row("...", *["" for _ in cols])
                continue
            table.add_row(
                str(i), *[Text("...", style="dim") if j is None else Text(number_text(M[i, j])) for j in cols]
            )
        yield table
