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

import io
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

    ``kind`` is ``"orbits"`` (``data`` holds orbit indices, drawn in :func:`colours`, or on the
    continuous map ``cmap`` when there are too many orbits for distinct colours),
    ``"values"`` (``data`` holds numbers, drawn on a diverging scale from ``-vmax`` to ``vmax``)
    or ``"magnitude"`` (``data`` holds sizes >= 0, drawn from 0 to ``vmax``).
    ``step`` is the stride of the rows and columns drawn (1: every cell); a magnitude panel
    holds the maximum over each ``step x step`` block, so no entry is lost.  ``origin`` is the
    coordinate of the top-left cell, so an offset map can be centred on offset 0.
    ``labels`` (small orbit maps) is the text written in each cell.  ``marks`` are cells
    (row, column, what) in the matrix's own indices, ringed on the panel; ``levels`` are values
    (value, what) drawn as lines on the colour bar.  ``ticks`` (row and column positions with
    their labels) and ``grid`` (a block size: lines between blocks) are for tuple indices.
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
    cmap: str | None = None
    colorbar: str = ""
    marks: list[tuple[int, int, str]] = field(default_factory=list)
    levels: list[tuple[float, str]] = field(default_factory=list)
    ticks: list[tuple[int, str]] | None = None
    grid: int | None = None


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
    return "" if step == 1 else f" (every {_ordinal(step)} row and column)"


def _ordinal(k: int) -> str:
    """``2nd``, ``3rd``, ``11th``, ``21st``.

    >>> [_ordinal(k) for k in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 112)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st', '112th']
    """
    suffix = "th" if k % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def _pooled(size: int) -> str:
    return "" if size == 1 else f" (largest of each {size} x {size} block)"


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
    panels = [_pattern_panel(d, what + _every(max(step_r, step_c)), cells, xlabel, ylabel, max(step_r, step_c))]
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
    legend = [(k, _legend_name(d, k)) for k in range(d.dimension)] if d.dimension <= MAX_LEGEND else []
    title = (f"{_group_text(d.group)}, {d.in_order} -> {d.out_order}: {d.unconstrained_parameters} weights, "
             f"{d.dimension} orbits ({d.form})")
    note = "" if legend else f"{d.dimension} orbits: too many to list; the colour bar gives each colour's orbit"
    return Picture(title, panels, legend, note)


# orbits past which distinct colours run out: a continuous map, with a colour bar, replaces them
MAX_DISTINCT = len(KELLY)


def _pattern_panel(d, title: str, cells: np.ndarray, xlabel: str, ylabel: str, step: int) -> Panel:
    """The sharing pattern's panel.  Up to :data:`MAX_DISTINCT` orbits get Kelly's colours; past
    them hues would repeat (moire at large n), so a circulant is drawn on a cyclic map over its
    offset ``(i - j) mod n`` (offsets n - 1 and 0 touch, and so do their colours) and any other
    pattern on a map that runs through each hue once, both with a colour bar.  A map between
    tuples (2 -> 2) gets ``(i1, i2)`` ticks at each block and lines between the blocks."""
    panel = Panel(title, "orbits", cells, xlabel, ylabel, step=step)
    if d.dimension > MAX_DISTINCT:
        cyclic = d.form == "circulant" and (d.in_order, d.out_order) == (1, 1)
        panel.cmap = "twilight" if cyclic else "turbo"
        panel.vmax = float(d.dimension - 1)
        panel.colorbar = "offset (i - j) mod n" if cyclic else "orbit"
    n = d.n
    if (d.in_order, d.out_order) == (2, 2) and step == 1 and n > 1:
        panel.grid = n
        every = max(1, math.ceil(n / 8))   # at most 8 labelled blocks per axis
        panel.ticks = [(a * n, f"({a}, 0)") for a in range(0, n, every)]
        panel.xlabel, panel.ylabel = "(j1, j2), row-major", "(i1, i2), row-major"
    return panel


def _legend_name(d, k: int) -> str:
    """An orbit in the legend: its entry, and for a set-partition basis the partition it is."""
    name = d.entry(k)
    if d.blocks is not None and (d.in_order, d.out_order) != (1, 1):
        from gdlcheck.output.explain import partition_meaning

        name = f"{name}: {partition_meaning(d.blocks[k], d.out_order)}"
    return name


def matrix_picture(input_name: str, W: np.ndarray, P: np.ndarray, group, distance: float,
                   verdict: str | None = None, tol: float | None = None,
                   cells: tuple[tuple[int, int], ...] = ()) -> Picture:
    """``verify``/``project --plot`` of a matrix: the matrix and its projection (the nearest
    equivariant matrix) on one diverging scale centred on 0, and ``|W - P|``, where they differ.

    The difference is pooled by the maximum over blocks (never sampled), so one bad entry shows
    at any n; its largest entries and ``cells`` (a counterexample's pair of entries) are ringed,
    and its colour bar marks ``tol`` times the largest ``|W|``, the deviation verify allows.
    """
    rows, step = _sample(W.shape[0])
    pick = np.ix_(rows, rows)
    Ws, Ps = np.asarray(W, dtype=float)[pick], np.asarray(P, dtype=float)[pick]
    scale = float(max(np.max(np.abs(Ws), initial=0.0), np.max(np.abs(Ps), initial=0.0))) or 1.0
    every = _every(step)
    panels = [Panel("W, the input" + every, "values", Ws, "j", "i", step=step, vmax=scale),
              Panel("P, the nearest equivariant matrix" + every, "values", Ps, "j", "i", step=step, vmax=scale),
              difference_panel(W, P, max(1, math.ceil(W.shape[0] / DIFF_SIDE)), tol, cells)]
    head = f"{verdict}: " if verdict else ""
    title = f"{head}{input_name} against {_group_text(group)}; relative distance |W - P| / |W| = {distance:.3g}"
    return Picture(title, panels)


def counterexample_cells(result) -> tuple[tuple[int, int], ...]:
    """The pair of weights ``W[g i, g j] != W[i, j]`` of a verification's first counterexample
    that names matrix entries (``verify --plot`` rings them), or ``()``."""
    for check in result.checks:
        witness = check.witness
        entry, image = getattr(witness, "entry", None), getattr(witness, "image_entry", None)
        if check.passed is False and entry is not None and image is not None and len(entry) == len(image) == 2:
            return (tuple(map(int, entry)), tuple(map(int, image)))
    return ()


# the largest deviations ringed on the difference panel (those at least half the largest)
MARKED = 3
# blocks per side of the difference panel: about a screen pixel each in a PNG, so that drawing
# (which resamples an image to the pixels it has) cannot drop a block either
DIFF_SIDE = 256


def difference_panel(W: np.ndarray, P: np.ndarray, step: int, tol: float | None = None,
                     cells: tuple[tuple[int, int], ...] = ()) -> Panel:
    """``|W - P|`` pooled by the maximum over ``step x step`` blocks, computed band by band (never
    the whole difference at once), with its :data:`MARKED` largest entries and ``cells`` ringed
    and the tolerance level ``tol * max|W|`` on its colour bar."""
    n = W.shape[0]
    side = math.ceil(n / step)
    pooled = np.zeros((side, side))
    top: list[tuple[float, int, int]] = []
    band = max(step, (_BLOCK_ROWS // step) * step)
    for start in range(0, n, band):
        D = np.abs(np.asarray(W[start:start + band], dtype=float) - np.asarray(P[start:start + band], dtype=float))
        h = D.shape[0]
        padded = np.zeros((math.ceil(h / step) * step, side * step))
        padded[:h, :n] = D
        pooled[start // step:start // step + padded.shape[0] // step] = \
            padded.reshape(padded.shape[0] // step, step, side, step).max(axis=(1, 3))
        flat = D.ravel()
        best = np.argpartition(flat, -min(MARKED, flat.size))[-MARKED:] if flat.size else []
        top += [(float(flat[k]), start + int(k) // n, int(k) % n) for k in best if flat[k] > 0]
    top = sorted(top, key=lambda x: (-x[0], x[1], x[2]))[:MARKED]
    largest = top[0][0] if top else 0.0
    marks = [(i, j, "largest") for size, i, j in top if size >= largest / 2]
    marks += [(int(i), int(j), "counterexample") for i, j in cells if (i, j) not in {(a, b) for a, b, _ in marks}]
    levels, label = [], "|W - P|"
    if tol is not None and tol > 0:
        level = tol * float(np.max(np.abs(np.asarray(W, dtype=float)), initial=0.0))
        if level > 0:
            levels.append((level, f"--tol {tol:g} x max|W|"))
            label += f"; line: --tol {tol:g} x max|W| = {level:.2g}"
    vmax = max([largest] + [v for v, _ in levels]) or 1.0
    title = (f"|W - P|: where they differ (largest {largest:.3g} at W[{top[0][1]}, {top[0][2]}])" if top
             else "|W - P|: no difference (W is equivariant)")
    rings = [f"{MARK_COLOURS[what][4:]}: {what}" for what in ("largest", "counterexample")
             if any(m[2] == what for m in marks)]
    xlabel = "j" + (f"   (rings, {'; '.join(rings)})" if rings else "")
    return Panel(title + _pooled(step), "magnitude", pooled, xlabel, "i", step=step, vmax=vmax, cmap="Reds",
                 colorbar=label, marks=marks, levels=levels)


def symmetries_picture(input_name: str, W: np.ndarray, found, orbits) -> Picture:
    """``symmetries --plot``: the matrix, and its entries coloured by orbit of the group found
    (``orbits``: the order 1 -> 1 derivation of that group)."""
    rows, step = _sample(W.shape[0])
    Ws = np.asarray(W, dtype=float)[np.ix_(rows, rows)]
    scale = float(np.max(np.abs(Ws), initial=0.0)) or 1.0
    cells, step_r, _ = pattern_cells(orbits)
    g = found.group
    panels = [Panel("W, the input" + _every(step), "values", Ws, "j", "i", step=step, vmax=scale),
              _pattern_panel(orbits, f"the {orbits.dimension} orbits of the entries" + _every(step_r), cells, "j", "i",
                             step_r)]
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


def figure(picture: Picture):
    """``picture`` as a matplotlib ``Figure`` (for Python and notebooks: ``result.plot()``), drawn
    with the same fixed style as :func:`save`; not attached to pyplot, so nothing pops up."""
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


def _figure(picture: Picture, cls=None):
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

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
        legend = fig.legend(handles=handles, loc="outside right center", title="orbit", frameon=False,
                            fontsize=9 if len(handles) <= 12 else 7)
        for text in legend.get_texts():
            literal(text)
    if picture.note:  # a figure-level x label: the layout makes room for it below the axes' labels
        literal(fig.supxlabel(_wrap(picture.note, int(width * 15)), fontsize=8, color="0.3"))
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
                literal(ax.text(left + c * s, top + r * s, panel.labels[r, c], ha="center", va="center",
                                fontsize=size, color="black" if light[r, c] else "white"))
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
        ax.plot([x], [y], marker="o", markersize=11, markerfacecolor="none", markeredgecolor=MARK_COLOURS[what],
                markeredgewidth=1.5, linestyle="none")


# rings on the difference panel; the panel's x label says which is which (a legend would hide cells)
MARK_COLOURS = {"largest": "tab:green", "counterexample": "tab:blue"}


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
