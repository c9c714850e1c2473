"""What each command's ``--plot`` shows, as data: ``derive`` (the sharing pattern, and a grid
group's kernel offsets), ``verify``/``project`` of a matrix (the matrix, its projection and
where they differ) and ``symmetries`` (the matrix and its orbits).

The ``*_picture`` functions turn a result into a :class:`Picture`: plain numpy arrays (the
orbit index or the value of every drawn cell) and the words around them, with no matplotlib in
sight, so a test can compare what is drawn exactly; :mod:`~gdlcheck.output.plot` draws it.

Large matrices are sampled, never drawn cell by cell: past :data:`MAX_SIDE` rows or columns
every k-th row and column is kept, and the panel's title says so; the difference of two
matrices is pooled by the maximum over blocks instead, so no entry is lost.  Only small orbit
maps (at most :data:`MAX_LABELLED` cells) get a name written in each cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gdlcheck.output.plot_colours import MARK_COLOURS, MAX_DISTINCT

MAX_SIDE = 1024  # rows or columns of cells drawn; past it, every k-th one
MAX_LABELLED = 144  # an orbit map with at most this many cells has a name in each cell
MAX_LEGEND = 24  # orbits listed in the legend, one colour each
_BLOCK_ROWS = 256  # rows of a pattern computed at a time


@dataclass
class Panel:
    """One image of a picture.

    ``kind`` is ``"orbits"`` (``data`` holds orbit indices, drawn in
    :func:`~gdlcheck.output.plot_colours.colours`, or on the continuous map ``cmap`` when there
    are too many orbits for distinct colours),
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
            out[start : start + _BLOCK_ROWS] = d.pattern_block(rows[start : start + _BLOCK_ROWS], cols)
        return out, step_r, step_c
    matrix = d.pattern.reshape(n**d.out_order, n**d.in_order)
    step_r = _sample(matrix.shape[0])[1]
    step_c = _sample(matrix.shape[1])[1]
    return np.asarray(matrix[::step_r, ::step_c], dtype=np.int64), step_r, step_c


def offset_map(d) -> np.ndarray | None:
    """For a 2-D grid group at order 1 -> 1: the ``H x W`` orbit of each kernel offset.

    ``W[i, j]`` of a translation-invariant layer depends on the offset ``(a_i - a_j, b_i - b_j)``
    only, so column ``j = 0`` (the point ``(0, 0)``) holds every offset once: entry ``(a, b)`` of
    the map is the orbit of offset ``(a, b)`` (mod the shape).  None for other groups and orders.
    """
    kernel = d.convolution_kernel()
    return None if kernel is None or kernel.ndim != 2 else np.asarray(kernel, dtype=np.int64)


def derive_picture(d) -> Picture:
    """``derive --plot``: the whole sharing pattern, one colour per orbit, and for 2-D grid groups
    the map of kernel offsets coloured by orbit (centred on offset 0)."""
    cells, step_r, step_c = pattern_cells(d)
    n = d.n
    if (d.in_order, d.out_order) == (1, 1):
        what = f"W[i, j] of the {n} x {n} matrix, coloured by orbit"
        xlabel, ylabel = "j (input point)", "i (output point)"
    else:
        what = (
            f"the n^{d.out_order} x n^{d.in_order} matrix of the map ({n**d.out_order} x {n**d.in_order}), "
            "coloured by orbit"
        )
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
        panels.append(
            Panel(
                f"kernel offsets, coloured by orbit ({H} x {W})" + _every(max(step_r, step_c)),
                "orbits",
                centred,
                "b_i - b_j",
                "a_i - a_j",
                step=max(step_r, step_c),
                origin=(-(H // 2), -(W // 2)),
                labels=labels,
            )
        )
    legend = [(k, _legend_name(d, k)) for k in range(d.dimension)] if d.dimension <= MAX_LEGEND else []
    title = (
        f"{_group_text(d.group)}, {d.in_order} -> {d.out_order}: {d.unconstrained_parameters} weights, "
        f"{d.dimension} orbits ({d.form})"
    )
    note = "" if legend else f"{d.dimension} orbits: too many to list; the colour bar gives each colour's orbit"
    return Picture(title, panels, legend, note)


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
        every = max(1, math.ceil(n / 8))  # at most 8 labelled blocks per axis
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


def matrix_picture(
    input_name: str,
    W: np.ndarray,
    P: np.ndarray,
    group,
    distance: float,
    verdict: str | None = None,
    tol: float | None = None,
    cells: tuple[tuple[int, int], ...] = (),
) -> Picture:
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
    panels = [
        Panel("W, the input" + every, "values", Ws, "j", "i", step=step, vmax=scale),
        Panel("P, the nearest equivariant matrix" + every, "values", Ps, "j", "i", step=step, vmax=scale),
        difference_panel(W, P, max(1, math.ceil(W.shape[0] / DIFF_SIDE)), tol, cells),
    ]
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
            (i, j), (gi, gj) = entry, image
            return ((int(i), int(j)), (int(gi), int(gj)))
    return ()


# the largest deviations ringed on the difference panel (those at least half the largest)
MARKED = 3
# blocks per side of the difference panel: about a screen pixel each in a PNG, so that drawing
# (which resamples an image to the pixels it has) cannot drop a block either
DIFF_SIDE = 256


def difference_panel(
    W: np.ndarray, P: np.ndarray, step: int, tol: float | None = None, cells: tuple[tuple[int, int], ...] = ()
) -> Panel:
    """``|W - P|`` pooled by the maximum over ``step x step`` blocks, computed band by band (never
    the whole difference at once), with its :data:`MARKED` largest entries and ``cells`` ringed
    and the tolerance level ``tol * max|W|`` on its colour bar."""
    n = W.shape[0]
    side = math.ceil(n / step)
    pooled = np.zeros((side, side))
    top: list[tuple[float, int, int]] = []
    band = max(step, (_BLOCK_ROWS // step) * step)
    for start in range(0, n, band):
        D = np.abs(np.asarray(W[start : start + band], dtype=float) - np.asarray(P[start : start + band], dtype=float))
        h = D.shape[0]
        padded = np.zeros((math.ceil(h / step) * step, side * step))
        padded[:h, :n] = D
        pooled[start // step : start // step + padded.shape[0] // step] = padded.reshape(
            padded.shape[0] // step, step, side, step
        ).max(axis=(1, 3))
        flat = D.ravel()
        best = np.argpartition(flat, -min(MARKED, flat.size))[-MARKED:] if flat.size else np.zeros(0, dtype=np.intp)
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
    title = (
        f"|W - P|: where they differ (largest {largest:.3g} at W[{top[0][1]}, {top[0][2]}])"
        if top
        else "|W - P|: no difference (W is equivariant)"
    )
    rings = [
        f"{MARK_COLOURS[what][4:]}: {what}"
        for what in ("largest", "counterexample")
        if any(m[2] == what for m in marks)
    ]
    xlabel = "j" + (f"   (rings, {'; '.join(rings)})" if rings else "")
    return Panel(
        title + _pooled(step),
        "magnitude",
        pooled,
        xlabel,
        "i",
        step=step,
        vmax=vmax,
        cmap="Reds",
        colorbar=label,
        marks=marks,
        levels=levels,
    )


def symmetries_picture(input_name: str, W: np.ndarray, found, orbits) -> Picture:
    """``symmetries --plot``: the matrix, and its entries coloured by orbit of the group found
    (``orbits``: the order 1 -> 1 derivation of that group)."""
    rows, step = _sample(W.shape[0])
    Ws = np.asarray(W, dtype=float)[np.ix_(rows, rows)]
    scale = float(np.max(np.abs(Ws), initial=0.0)) or 1.0
    cells, step_r, _ = pattern_cells(orbits)
    g = found.group
    panels = [
        Panel("W, the input" + _every(step), "values", Ws, "j", "i", step=step, vmax=scale),
        _pattern_panel(
            orbits, f"the {orbits.dimension} orbits of the entries" + _every(step_r), cells, "j", "i", step_r
        ),
    ]
    legend = [(k, orbits.name_of(k)) for k in range(orbits.dimension)] if orbits.dimension <= MAX_LEGEND else []
    contains = ", ".join(found.contains) or "none of the catalogue groups"
    title = f"{input_name}: commutes with a group of order {g.order_text}; contains {contains}"
    return Picture(title, panels, legend)


@dataclass
class Curves:
    """A chart of values along the layers of a model (``measure --plot``): one point per layer,
    ``series`` as (name, values) drawn on a logarithmic scale (a value of 0 is drawn at ``floor``,
    None not at all), ``labels`` the layers' names under the x axis."""

    title: str
    labels: list[str]
    series: list[tuple[str, list[float | None]]]
    ylabel: str = ""
    floor: float = 1e-17
    note: str = ""


def measure_picture(measured) -> Curves:
    """The error of each submodule's output and its own contribution, in the order the model runs
    them (indented by depth), worst over the group elements."""
    labels = ["  " * max(0, m.depth - 1) + (m.path or "(model)") for m in measured.layers]
    largest = measured.largest
    note = f"largest own contribution: {largest.path} ({largest.kind})" if largest is not None else ""
    return Curves(
        f"{measured.input}: equivariance error by layer ({len(measured.elements)} group elements, "
        f"{measured.group.describe()})",
        labels,
        [
            ("error of the output", [m.error for m in measured.layers]),
            ("own contribution", [m.own_contribution for m in measured.layers]),
        ],
        ylabel="|f(gx) - g f(x)| / |g f(x)|",
        note=note,
    )
