"""The colours of ``--plot`` pictures: one per orbit (Kelly's colours of maximum contrast, then
hues stepped by the golden angle) and the rings that mark cells.

Plain numpy, with no matplotlib in sight: :mod:`~gdlcheck.output.plot_pictures` decides with
these what a picture holds and :mod:`~gdlcheck.output.plot` draws it in them, so both agree and
a test can compare the colours exactly.
"""

from __future__ import annotations

import math

import numpy as np

# Kelly's 20 colours of maximum contrast (white and black left out), in his order: each one
# stands out against the one before it, and the orbits numbered k and k + 1 are the ones that
# touch in a circulant or a group convolution.  Past them, hues step by the golden angle (so
# consecutive orbits are about 222 degrees apart) with lightness and saturation cycling.
KELLY = (
    "#F3C300",
    "#875692",
    "#F38400",
    "#A1CAF1",
    "#BE0032",
    "#C2B280",
    "#848482",
    "#008856",
    "#E68FAC",
    "#0067A5",
    "#F99379",
    "#604E97",
    "#F6A600",
    "#B3446C",
    "#DCD300",
    "#882D17",
    "#8DB600",
    "#654522",
    "#E25822",
    "#2B3D26",
)
_KELLY_RGB = np.array([[int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)] for c in KELLY])
_GOLDEN = (math.sqrt(5) - 1) / 2
_SATURATION = np.array([0.9, 0.55, 0.75])
_VALUE = np.array([0.95, 0.75, 0.55])

# orbits past which distinct colours run out: a continuous map, with a colour bar, replaces them
MAX_DISTINCT = len(KELLY)

# rings on the difference panel; the panel's x label says which is which (a legend would hide cells)
MARK_COLOURS = {"largest": "tab:green", "counterexample": "tab:blue"}


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
