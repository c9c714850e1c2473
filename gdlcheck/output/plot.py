"""Pictures for ``--plot FILE``: a sharing pattern, a matrix beside its projection, an orbit colouring.

Drawing has two steps.  The ``*_picture`` functions turn a result into a :class:`Picture`:
plain numpy arrays (the orbit index or the value of every drawn cell) and the words around
them, with no matplotlib in sight, so a test can compare what is drawn exactly.
:func:`save` draws a picture with matplotlib and writes it as PNG, SVG or PDF, by the file's
extension.

matplotlib is an optional extra (``pip install 'gdlcheck[plot]'``), imported only by
:func:`require` and :func:`save`, so that ``gdlcheck --help`` and every command without
``--plot`` never load it.  A missing matplotlib is one line naming the extra.

Large matrices are drawn without a Python object per cell: every panel is one image
(``imshow`` of an array), filled block by block; past :data:`MAX_SIDE` rows or columns
every k-th row and column is drawn, and the panel's title says so.  Only small orbit maps
(at most :data:`MAX_LABELLED` cells) get a name written in each cell.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.errors import GdlcheckError, param

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
MAX_SIDE = 1024      # rows or columns of cells drawn; past it, every k-th one
MAX_LABELLED = 144   # an orbit map with at most this many cells has a name in each cell
MAX_LEGEND = 24      # orbits listed in the legend, one colour each
_BLOCK_ROWS = 256    # rows of a pattern computed at a time

# Kelly's 20 colours of maximum contrast (white and black left out), in his order: each one
# stands out against the one before it, and the orbits numbered k and k + 1 are the ones that
# touch in a circulant or a group convolution.  Past them, hues step by the golden angle (so
# consecutive orbits are about 222 degrees apart) with lightness and saturation cycling.
KELLY = ("#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032", "#C2B280", "#848482", "#008856", "#E68FAC",
         "#0067A5", "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300", "#882D17", "#8DB600", "#654522",
         "#E25822", "#2B3D26")
_KELLY_RGB = np.array([[int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)] for c in KELLY])
_GOLDEN = (math.sqrt(5) - 1) / 2
_SATURATION = np.array([0.9, 0.55, 0.75])
_VALUE = np.array([0.95, 0.75, 0.55])

# Fixed settings, so that the same input gives the same file whatever the user's matplotlibrc:
# fonts (DejaVu Sans ships with matplotlib; SVG text is drawn as paths, never a web font), and
# the salt of SVG ids.
_RC = {"font.family": "DejaVu Sans", "font.size": 10, "svg.fonttype": "path", "svg.hashsalt": "gdlcheck",
       "image.interpolation": "nearest", "figure.dpi": 100, "savefig.dpi": 100, "text.usetex": False}
# Metadata that would make two runs differ (dates, version strings), left out.
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
             "pdf": {"Creator": None, "Producer": None, "CreationDate": None}}


def plot_format(path: str) -> str:
    """``png``, ``svg`` or ``pdf``, from the extension of ``path``; anything else is an input error."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise GdlcheckError(f"{param('plot', 'FILE')} writes .png, .svg or .pdf (told by the extension), "
                            f"got {os.path.basename(str(path))!r}")
    return FORMATS[ext]


def require() -> None:
    """Raise a one-line error naming the extra when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise GdlcheckError(f"{param('plot')} draws with matplotlib, which is not installed: "
                            "pip install 'gdlcheck[plot]'") from None


# --------------------------------------------------------------------------- colours


def colours(labels) -> np.ndarray:
    """The RGB colour (floats in [0, 1]) of each orbit index in ``labels``, shape ``labels.shape + (3,)``.

    >>> colours([0, 1]).round(3).tolist()
    [[0.953, 0.765, 0.0], [0.529, 0.337, 0.573]]
    """
    k = np.asarray(labels, dtype=np.int64)
    out = np.empty(k.shape + (3,))
    base = k < len(KELLY)
    out[base] = _KELLY_RGB[k[base]]
    rest = k[~base]
    out[~base] = _hsv_to_rgb((rest * _GOLDEN) % 1.0, _SATURATION[rest % 3], _VALUE[(rest // 3) % 3])
    return out


def _hsv_to_rgb(h, s, v) -> np.ndarray:
    """Vectorised HSV -> RGB (the standard sextant formula)."""
    i = np.floor(h * 6).astype(np.int64) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    rgb = np.empty(np.shape(h) + (3,))
    for sextant, (r, g, b) in enumerate(choices):
        sel = i == sextant
        rgb[sel] = np.stack([r[sel], g[sel], b[sel]], axis=-1)
    return rgb


# --------------------------------------------------------------------------- what is drawn


@dataclass
class Panel:
    """One image of a picture.

    ``kind`` is ``"orbits"`` (``data`` holds orbit indices, drawn in :func:`colours`) or
    ``"values"`` (``data`` holds numbers, drawn on a diverging scale from ``-vmax`` to ``vmax``).
    ``step`` is the stride of the rows and columns drawn (1: every cell).  ``origin`` is the
    coordinate of the top-left cell, so an offset map can be centred on offset 0.
    ``labels`` (small orbit maps) is the text written in each cell.
    """

    title: str
    kind: str
    data: np.ndarray
    xlabel: str = ""
    ylabel: str = ""
    step: int = 1
    origin: tuple[int, int] = (0, 0)
    vmax: float | None = None
    labels: np.ndarray | None = None


@dataclass
class Picture:
    """What a ``--plot`` file shows: a title, panels side by side, and a legend of orbits."""

    title: str
    panels: list[Panel]
    legend: list[tuple[int, str]] = field(default_factory=list)  # (orbit, name) of each colour
    note: str = ""


def _sample(size: int) -> tuple[np.ndarray, int]:
    """The indices drawn along an axis of ``size`` cells, and their stride."""
    step = max(1, math.ceil(size / MAX_SIDE))
    return np.arange(0, size, step, dtype=np.int64), step


def _every(step: int) -> str:
    return "" if step == 1 else f" (every {step}th row and column)"


def _group_text(group) -> str:
    return f"{group.describe()}, order {group.order_text}"


def pattern_cells(d) -> tuple[np.ndarray, int, int]:
    """The orbit of every drawn cell of ``d`` as the matrix of the map (output index tuples by
    input index tuples, row-major), and the strides of its rows and columns.

    Order 1 -> 1 is computed block by block through ``pattern_block``, so a closed form at any
    ``n`` is drawn without building the whole pattern; other orders reshape the pattern (a view)
    and take every k-th row and column.
    """
    n = d.n
    if (d.in_order, d.out_order) == (1, 1):
        rows, step_r = _sample(n)
        cols, step_c = rows, step_r
        out = np.empty((len(rows), len(cols)), dtype=np.int64)
        for start in range(0, len(rows), _BLOCK_ROWS):
            out[start:start + _BLOCK_ROWS] = d.pattern_block(rows[start:start + _BLOCK_ROWS], cols)
        return out, step_r, step_c
    matrix = d.pattern.reshape(n ** d.out_order, n ** d.in_order)
    step_r = _sample(matrix.shape[0])[1]
    step_c = _sample(matrix.shape[1])[1]
    return np.asarray(matrix[::step_r, ::step_c], dtype=np.int64), step_r, step_c


def offset_map(d) -> np.ndarray | None:
    """For a 2-D grid group at order 1 -> 1: the ``H x W`` orbit of each kernel offset.

    ``W[i, j]`` of a translation-invariant layer depends on the offset ``(a_i - a_j, b_i - b_j)``
    only, so column ``j = 0`` (the point ``(0, 0)``) holds every offset once: entry ``(a, b)`` of
    the map is the orbit of offset ``(a, b)`` (mod the shape).  None for other groups and orders.
    """
    shape = d.group.shape
    if shape is None or len(shape) != 2 or (d.in_order, d.out_order) != (1, 1):
        return None
    column = d.pattern_block(np.arange(d.n, dtype=np.int64), np.zeros(1, dtype=np.int64))
    return np.asarray(column, dtype=np.int64).reshape(shape)


def derive_picture(d) -> Picture:
    """``derive --plot``: the whole sharing pattern, one colour per orbit, and for 2-D grid groups
    the map of kernel offsets coloured by orbit (centred on offset 0)."""
    cells, step_r, step_c = pattern_cells(d)
    n = d.n
    if (d.in_order, d.out_order) == (1, 1):
        what = f"W[i, j] of the {n} x {n} matrix, coloured by orbit"
        xlabel, ylabel = "j (input point)", "i (output point)"
    else:
        what = (f"the n^{d.out_order} x n^{d.in_order} matrix of the map ({n ** d.out_order} x {n ** d.in_order}), "
                "coloured by orbit")
        xlabel, ylabel = "input index tuple (row-major)", "output index tuple (row-major)"
    panels = [Panel(what + _every(max(step_r, step_c)), "orbits", cells, xlabel, ylabel, step=max(step_r, step_c))]
    offsets = offset_map(d)
    if offsets is not None:
        H, W = offsets.shape
        centred = np.roll(offsets, (H // 2, W // 2), axis=(0, 1))
        (rows, step_r), (cols, step_c) = _sample(H), _sample(W)
        centred = centred[np.ix_(rows, cols)]
        labels = None
        if centred.size <= MAX_LABELLED:
            names = {int(k): d.name_of(int(k)) for k in np.unique(centred)}
            labels = np.vectorize(names.__getitem__, otypes=[object])(centred)
        panels.append(Panel(f"kernel offsets, coloured by orbit ({H} x {W})" + _every(max(step_r, step_c)),
                            "orbits", centred, "b_i - b_j", "a_i - a_j", step=max(step_r, step_c),
                            origin=(-(H // 2), -(W // 2)), labels=labels))
    legend = [(k, d.entry(k)) for k in range(d.dimension)] if d.dimension <= MAX_LEGEND else []
    title = (f"{_group_text(d.group)}, {d.in_order} -> {d.out_order}: {d.unconstrained_parameters} weights, "
             f"{d.dimension} orbits ({d.form})")
    note = "" if legend else f"{d.dimension} orbits: too many to list; colours repeat their hues"
    return Picture(title, panels, legend, note)


def matrix_picture(input_name: str, W: np.ndarray, P: np.ndarray, group, distance: float,
                   verdict: str | None = None) -> Picture:
    """``verify``/``project --plot`` of a matrix: the matrix, its projection (the nearest
    equivariant matrix) and where they differ, on diverging scales centred on 0."""
    rows, step = _sample(W.shape[0])
    pick = np.ix_(rows, rows)
    Ws, Ps = np.asarray(W, dtype=float)[pick], np.asarray(P, dtype=float)[pick]
    D = Ws - Ps
    scale = float(max(np.max(np.abs(Ws), initial=0.0), np.max(np.abs(Ps), initial=0.0))) or 1.0
    largest = float(np.max(np.abs(np.asarray(W, dtype=float) - np.asarray(P, dtype=float)), initial=0.0))
    every = _every(step)
    diff_title = (f"W - P: where they differ (largest {largest:.3g})" if largest
                  else "W - P: no difference (W is equivariant)")
    panels = [Panel("W, the input" + every, "values", Ws, "j", "i", step=step, vmax=scale),
              Panel("P, the nearest equivariant matrix" + every, "values", Ps, "j", "i", step=step, vmax=scale),
              Panel(diff_title + every, "values", D, "j", "i", step=step, vmax=largest or 1.0)]
    head = f"{verdict}: " if verdict else ""
    title = f"{head}{input_name} against {_group_text(group)}; relative distance |W - P| / |W| = {distance:.3g}"
    return Picture(title, panels)


def symmetries_picture(input_name: str, W: np.ndarray, found, orbits) -> Picture:
    """``symmetries --plot``: the matrix, and its entries coloured by orbit of the group found
    (``orbits``: the order 1 -> 1 derivation of that group)."""
    rows, step = _sample(W.shape[0])
    Ws = np.asarray(W, dtype=float)[np.ix_(rows, rows)]
    scale = float(np.max(np.abs(Ws), initial=0.0)) or 1.0
    cells, step_r, _ = pattern_cells(orbits)
    g = found.group
    panels = [Panel("W, the input" + _every(step), "values", Ws, "j", "i", step=step, vmax=scale),
              Panel(f"the {orbits.dimension} orbits of the entries" + _every(step_r), "orbits", cells, "j", "i",
                    step=step_r)]
    legend = [(k, orbits.name_of(k)) for k in range(orbits.dimension)] if orbits.dimension <= MAX_LEGEND else []
    contains = ", ".join(found.contains) or "none of the catalogue groups"
    title = f"{input_name}: commutes with a group of order {g.order_text}; contains {contains}"
    return Picture(title, panels, legend)


# --------------------------------------------------------------------------- drawing


def render(picture: Picture, path: str) -> bytes:
    """Draw ``picture`` with matplotlib: the bytes of the PNG, SVG or PDF file ``path`` names by its
    extension.  Drawn in memory, so that writing the file is the caller's one step (a full disk
    is then one OSError there, not matplotlib's PDF writer failing half-way).

    The same picture gives the same bytes: fixed fonts and style, no dates or version strings
    in the file's metadata.
    """
    import io

    fmt = plot_format(path)
    require()
    import matplotlib
    import matplotlib.style

    with matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        fig = _figure(picture)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata=_METADATA[fmt])
    return buf.getvalue()


def _figure(picture: Picture):
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    count = len(picture.panels)
    width = 4.6 * count + (1.6 if picture.legend else 0.4)
    fig = Figure(figsize=(width, 5.0), layout="constrained")
    axes = fig.subplots(1, count, squeeze=False)[0]
    for ax, panel in zip(axes, picture.panels):
        _draw_panel(fig, ax, panel)
    literal(fig.suptitle(_wrap(picture.title, int(width * 13)), fontsize=11))
    if picture.legend:
        handles = [Patch(facecolor=tuple(colours([k])[0]), edgecolor="0.3", label=name) for k, name in picture.legend]
        legend = fig.legend(handles=handles, loc="outside right center", title="orbit", frameon=False,
                            fontsize=9 if len(handles) <= 12 else 7)
        for text in legend.get_texts():
            literal(text)
    if picture.note:
        literal(fig.text(0.5, 0.005, picture.note, ha="center", va="bottom", fontsize=8, color="0.3"))
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
    if panel.kind == "orbits":
        ax.imshow(colours(panel.data), extent=extent, interpolation="nearest", aspect="equal")
    else:
        unit, vmax = unit_scale(panel.data, panel.vmax)
        image = ax.imshow(unit, extent=extent, interpolation="nearest", aspect="equal", cmap="RdBu_r", vmin=-1.0,
                          vmax=1.0)
        bar = fig.colorbar(image, ax=ax, shrink=0.75)
        from matplotlib.ticker import FuncFormatter

        bar.formatter = FuncFormatter(lambda v, _pos, top=vmax: f"{v * top:.3g}")
        bar.update_ticks()
    if panel.labels is not None:
        rgb = colours(panel.data)
        light = rgb @ np.array([0.299, 0.587, 0.114]) > 0.55
        size = 9 if max(h, w) <= 7 else 6
        for r in range(h):
            for c in range(w):
                literal(ax.text(left + c * s, top + r * s, panel.labels[r, c], ha="center", va="center",
                                fontsize=size, color="black" if light[r, c] else "white"))
    if max(h, w) <= 16:
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


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text
