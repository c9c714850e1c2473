"""A law and a witness in words: the sentence of a law (``Y(PX) = P Y(X)``), the line that shows a
witness, and the JSON ``counterexample`` object, the same for JSON, the text report, JUnit and
``assert_equivariant``'s message (:mod:`gdlcheck.output.words` builds its sentences on them).
"""

from __future__ import annotations

from gdlcheck.text import safe_str, shorten
from gdlcheck.verification.result import (
    Law,
    MovedCallWitness,
    OutputWitness,
    ShapeWitness,
    TrialWitness,
    WeightWitness,
)


def law_text(law: Law) -> str:
    """``Y(PX, P A P^T) = P Y(X, A)`` and its neighbours."""
    if law.graph is None:
        left = "Y(PX)"
        right = {"P": "P Y(X)", "PT": "P^T Y(X)", "none": "Y(X)"}[law.output]
    else:
        left = "Y(PX, " + {"both": "P A P^T", "rows": "P A", "fixed": "A"}[law.graph] + ")"
        right = {"P": "P Y(X, A)", "PT": "P^T Y(X, A)", "none": "Y(X, A)"}[law.output]
    return f"{left} = {right}"


def _value(x) -> str:
    """A weight as the witness shows it: a float with full precision, an expression as written."""
    return repr(x) if isinstance(x, float) else safe_str(x)


def _at(entry: tuple[int, ...], shape: tuple[int, ...] | None = None) -> str:
    """``W[2, 1]``; on a grid (``shape`` of 2 or more axes) each point as its coordinates,
    ``W[(0, 2), (1, 0)]`` (row-major, as the grid groups number the points)."""

    def point(k: int) -> str:
        if shape is None or len(shape) < 2:
            return str(k)
        coords = []
        for size in reversed(shape):
            k, c = divmod(k, size)
            coords.append(str(c))
        return "(" + ", ".join(reversed(coords)) + ")"

    return f"W[{point(entry[0])}, {point(entry[1])}]" if len(entry) == 2 else f"b[{point(entry[0])}]"


def counterexample(witness) -> dict | None:
    """A witness as the JSON ``counterexample`` object (key order is part of the format)."""
    if witness is None:
        return None
    if isinstance(witness, WeightWitness):
        out = {
            "entry": list(witness.entry),
            "image_entry": list(witness.image_entry),
            "value": _json_value(witness.value),
            "image_value": _json_value(witness.image_value),
            "text": witness_text(witness),
        }
        if witness.largest is not None:
            out["largest"] = counterexample(witness.largest)
        return out
    if isinstance(witness, TrialWitness):
        out = {
            "trial": witness.trial,
            "seed": witness.seed,
            "input_seed": [witness.seed, witness.trial],
            "entry": list(witness.entry),
            "expected": json_float(witness.expected),
            "got": json_float(witness.got),
        }
        if witness.output is not None:
            out["output"] = witness.output
        if isinstance(witness, MovedCallWitness):
            out.update({"moved_call": True, "element": witness.element})
        return out
    if isinstance(witness, OutputWitness):
        return {
            "entry": list(witness.entry),
            "expected": shorten(witness.expected, 160),
            "got": shorten(witness.got, 160),
            "text": witness_text(witness),
        }
    return {"text": witness_text(witness)}


def witness_text(witness, shape: tuple[int, ...] | None = None) -> str:
    """One line that shows the witness (weights on a grid of ``shape`` by their coordinates)."""
    if isinstance(witness, WeightWitness):
        text = (
            f"{_at(witness.image_entry, shape)} = {_value(witness.image_value)} but {_at(witness.entry, shape)} = "
            f"{_value(witness.value)}"
        )
        if witness.largest is not None:
            text += f" (differing most: {witness_text(witness.largest, shape)})"
        return text
    if isinstance(witness, MovedCallWitness):
        return (
            f"the proof's moved call f(g X), X from default_rng([{witness.seed}, {witness.trial}]): first "
            f"differing entry {list(witness.entry)}{' of output' + witness.output if witness.output else ''} is "
            f"{json_float(witness.got)!r}, in g f(X) {json_float(witness.expected)!r}"
        )
    if isinstance(witness, TrialWitness):
        return (
            f"trial {witness.trial} (input from default_rng([{witness.seed}, {witness.trial}])): "
            f"output{witness.output or ''} entry {list(witness.entry)} is {json_float(witness.got)!r}, expected "
            f"{json_float(witness.expected)!r}"
        )
    if isinstance(witness, OutputWitness):
        return (
            f"output entry {list(witness.entry)}: f(PX) gives {shorten(witness.got, 80)} but the law wants "
            f"{shorten(witness.expected, 80)}"
        )
    if isinstance(witness, ShapeWitness):
        return f"output shape {list(witness.got)} vs {list(witness.expected)}"
    return str(witness)


def json_float(x):
    """A float for JSON: None for inf and NaN (JSON has neither)."""
    import math

    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _json_value(x):
    return x if isinstance(x, float) else safe_str(x)
