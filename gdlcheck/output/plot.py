"""Drawing a :class:`~gdlcheck.output.plot_pictures.Picture` for ``--plot FILE``: the figure's
layout (panels side by side, titles, legend, colour bars, rings, tuple ticks) with matplotlib,
written as PNG, SVG or PDF by the file's extension.

What is drawn is decided before, as data, in :mod:`~gdlcheck.output.plot_pictures`; here it is
only laid out.  matplotlib is an optional extra (``pip install 'gdlcheck[plot]'``), imported only
by :func:`require`, :func:`render` and :func:`figure`, so that ``gdlcheck --help`` and every
command without ``--plot`` never load it.  A missing matplotlib is one line naming the extra.

Every panel is one image (``imshow`` of an array), not a Python object per cell, and the same
picture gives the same bytes: fixed fonts and style, no dates or version strings.
"""

from __future__ import annotations

import io
import math
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from gdlcheck.errors import GdlcheckError, param
from gdlcheck.output.plot_colours import MARK_COLOURS, colours
from gdlcheck.output.plot_pictures import Curves, Panel, Picture

if TYPE_CHECKING:  # matplotlib is an extra, imported when a picture is drawn
    from matplotlib.typing import RcKeyType

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}

# Fixed settings, so that the same input gives the same file whatever the user's matplotlibrc:
# fonts (DejaVu Sans ships with matplotlib; SVG text is drawn as paths, never a web font), and
# the salt of SVG ids.
_RC: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "svg.fonttype": "path",
    "svg.hashsalt": "gdlcheck",
    "image.interpolation": "nearest",
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "text.usetex": False,
}
# Metadata that would make two runs differ (dates, version strings), left out.
_METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
}


def plot_format(path: str) -> str:
    """``png``, ``svg`` or ``pdf``, from the extension of ``path``; anything else is an input error."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise GdlcheckError(
            f"{param('plot', 'FILE')} writes .png, .svg or .pdf (told by the extension), "
            f"got {os.path.basename(str(path))!r}"
        )
    return FORMATS[ext]


def require() -> None:
    """Raise a one-line error naming the extra when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise GdlcheckError(
            f"{param('plot')} draws with matplotlib, which is not installed: pip install 'gdlcheck[plot]'"
        ) from None


def render(picture: Picture, path: str) -> bytes:
    """Draw ``picture`` with matplotlib: the bytes of the PNG, SVG or PDF file ``path`` names by its
    extension.  Drawn in memory, so that writing the file is the caller's one step (a full disk
    is then one OSError there, not matplotlib's PDF writer failing half-way).

    The same picture gives the same bytes: fixed fonts and style, no dates or version strings
    in the file's metadata.
    """
    fmt = plot_format(path)
    require()
    import matplotlib
    import matplotlib.style

    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        fig = _figure(picture)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata=_METADATA[fmt])
    return buf.getvalue()


def figure(picture: Picture | Curves):
    """``picture`` as a matplotlib ``Figure`` (for Python and notebooks: ``result.plot()``), drawn
    with the same fixed style as :func:`render`; not attached to pyplot, so nothing pops up."""
    require()
    import matplotlib
    import matplotlib.style
    from matplotlib.figure import Figure

    class ShownFigure(Figure):
        """A figure that Jupyter shows as a PNG (a bare ``Figure``, with no pyplot behind it,
        would show as its repr)."""

        def _repr_png_(self) -> bytes:
            buffer = io.BytesIO()
            with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
                self.savefig(buffer, format="png", metadata=_METADATA["png"])
            return buffer.getvalue()

    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        return _figure(picture, ShownFigure)


def _figure(picture: Picture | Curves, cls=None):
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    if isinstance(picture, Curves):
        return _curves(picture, cls or Figure)

    count = len(picture.panels)
    width = 4.6 * count + (1.6 if picture.legend else 0.4)
    fig = (cls or Figure)(figsize=(width, 5.0), layout="constrained")
    axes = fig.subplots(1, count, squeeze=False)[0]
    for ax, panel in zip(axes, picture.panels):
        _draw_panel(fig, ax, panel)
    # wrapped to about 9 characters an inch at 11 pt (matplotlib's own wrap=True measures the text
    # as mathtext whatever parse_math says, so a user's "$" in a file name would crash it)
    literal(fig.suptitle(_wrap(picture.title, int(width * 9)), fontsize=11))
    if picture.legend:
        handles = [Patch(facecolor=tuple(colours([k])[0]), edgecolor="0.3", label=name) for k, name in picture.legend]
        legend = fig.legend(
            handles=handles,
            loc="outside right center",
            title="orbit",
            frameon=False,
            fontsize=9 if len(handles) <= 12 else 7,
        )
        for text in legend.get_texts():
            literal(text)
    if picture.note:  # a figure-level x label: the layout makes room for it below the axes' labels
        literal(fig.supxlabel(_wrap(picture.note, int(width * 15)), fontsize=8, color="0.3"))
    return fig


def _curves(curves: Curves, cls):
    """A chart of values by layer: one marked line per series on a log scale, the layers' names
    under the x axis."""
    count = len(curves.labels)
    width = min(24.0, max(6.0, 0.35 * count + 2.0))
    fig = cls(figsize=(width, 5.0), layout="constrained")
    ax = fig.subplots()
    x = np.arange(count)
    for (name, values), marker in zip(curves.series, "os^v"):
        shown = [(k, max(v, curves.floor)) for k, v in enumerate(values) if v is not None and math.isfinite(v)]
        if shown:
            ax.plot([k for k, _ in shown], [v for _, v in shown], marker=marker, label=name)
    ax.set_yscale("log")
    ax.set_xticks(x)
    for label in ax.set_xticklabels(curves.labels, rotation=60, ha="right", fontsize=7):
        literal(label)
    literal(ax.set_ylabel(curves.ylabel))
    ax.grid(True, which="major", alpha=0.3)
    for text in ax.legend(fontsize=8).get_texts():
        literal(text)
    literal(fig.suptitle(_wrap(curves.title, int(width * 9)), fontsize=11))
    if curves.note:
        literal(fig.supxlabel(_wrap(curves.note, int(width * 15)), fontsize=8, color="0.3"))
    return fig


def literal(text):
    """A matplotlib Text that shows its string as it is: file names and spec keys are the user's,
    and ``$...$`` in them was read as mathtext (a parse error, or RecursionError for 25 nested
    ``\\sqrt{``).  Returns the Text."""
    text.set_usetex(False)
    text.set_parse_math(False)
    return text


def _draw_panel(fig, ax, panel: Panel) -> None:
    h, w = panel.data.shape
    top, left = panel.origin
    s = panel.step
    # cell (r, c) covers [left + c*s - 0.5*s, left + (c+1)*s - 0.5*s]: axes count cells, not pixels
    extent = (left - 0.5 * s, left + (w - 0.5) * s, top + (h - 0.5) * s, top - 0.5 * s)
    if panel.kind == "orbits" and panel.cmap is None:
        ax.imshow(colours(panel.data), extent=extent, interpolation="nearest", aspect="equal")
    else:
        _draw_scale(fig, ax, panel, extent)
    _draw_marks(ax, panel)
    _draw_blocks(ax, panel)
    if panel.labels is not None:
        rgb = colours(panel.data)
        light = rgb @ np.array([0.299, 0.587, 0.114]) > 0.55
        size = 9 if max(h, w) <= 7 else 6
        for r in range(h):
            for c in range(w):
                literal(
                    ax.text(
                        left + c * s,
                        top + r * s,
                        panel.labels[r, c],
                        ha="center",
                        va="center",
                        fontsize=size,
                        color="black" if light[r, c] else "white",
                    )
                )
    if max(h, w) <= 16 and panel.ticks is None:
        ax.set_xticks(left + np.arange(w) * s)
        ax.set_yticks(top + np.arange(h) * s)
        ax.tick_params(labelsize=7)
    literal(ax.set_title(_wrap(panel.title, 48), fontsize=9))
    literal(ax.set_xlabel(panel.xlabel))
    literal(ax.set_ylabel(panel.ylabel))


def unit_scale(data: np.ndarray, vmax: float | None) -> tuple[np.ndarray, float]:
    """``data / vmax`` in [-1, 1] and the finite ``vmax`` it was divided by.  matplotlib's colour
    scale computes ``vmax - vmin``, which is infinite for entries of +-1e308, so the image is
    drawn on [-1, 1] and the colour bar's ticks are labelled in the data's units.

    >>> unit_scale(np.array([-1e308, 1e308]), 1e308)[0].tolist()
    [-1.0, 1.0]
    """
    top = float(np.finfo(np.float64).max)
    vmax = min(float(vmax), top) if vmax is not None and vmax > 0 and not math.isnan(vmax) else 1.0
    with np.errstate(all="ignore"):
        unit = np.clip(np.nan_to_num(np.asarray(data, dtype=np.float64), posinf=top, neginf=-top) / vmax, -1.0, 1.0)
    return unit, vmax


def _draw_scale(fig, ax, panel: Panel, extent) -> None:
    """A panel of numbers on its colour map, with a colour bar (its label, and a line per level)."""
    from matplotlib.ticker import FuncFormatter

    if panel.kind == "values":
        cmap, vmin = panel.cmap or "RdBu_r", -1.0
    else:  # magnitudes and orbit indices run from 0
        cmap, vmin = panel.cmap or "Reds", 0.0
    # drawn on [-1, 1] (or [0, 1]) with the ticks in the data's units: matplotlib's scale takes
    # vmax - vmin, which is infinite for entries of +-1e308
    unit, top = unit_scale(panel.data, panel.vmax)
    image = ax.imshow(unit, extent=extent, interpolation="nearest", aspect="equal", cmap=cmap, vmin=vmin, vmax=1.0)
    bar = fig.colorbar(image, ax=ax, shrink=0.75)
    bar.formatter = FuncFormatter(lambda v, _pos, top=top: f"{v * top:.3g}")
    bar.update_ticks()
    if panel.colorbar:
        literal(bar.set_label(panel.colorbar, fontsize=8) or bar.ax.yaxis.label)
    for value, _ in panel.levels:  # the colour bar's label says what each line is
        bar.ax.axhline(value / top, color="tab:cyan", linewidth=2)


def _draw_marks(ax, panel: Panel) -> None:
    """Rings around the marked cells (at their block, when the panel is pooled)."""
    s = panel.step
    for i, j, what in panel.marks:
        x = panel.origin[1] + (j // s) * s
        y = panel.origin[0] + (i // s) * s
        ax.plot(
            [x],
            [y],
            marker="o",
            markersize=11,
            markerfacecolor="none",
            markeredgecolor=MARK_COLOURS[what],
            markeredgewidth=1.5,
            linestyle="none",
        )


def _draw_blocks(ax, panel: Panel) -> None:
    """Tuple ticks ``(i1, i2)`` at the start of each block, and lines between the blocks."""
    if panel.ticks is not None:
        positions = [p for p, _ in panel.ticks]
        names = [name for _, name in panel.ticks]
        ax.set_xticks(positions, names, rotation=90, fontsize=6)
        ax.set_yticks(positions, names, fontsize=6)
    if panel.grid:
        h, w = panel.data.shape
        for k in range(panel.grid, max(h, w), panel.grid):
            if k < w:
                ax.axvline(k - 0.5, color="white", linewidth=0.8)
            if k < h:
                ax.axhline(k - 0.5, color="white", linewidth=0.8)


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text
