"""Every JSON object gdlcheck prints (docs/design.md section 6), built from the library's results.

Pure data with a deterministic key order; floats keep full round-trip precision (``repr``).
Every object carries ``schema_version``; keys are added, never renamed.
"""

from __future__ import annotations

import json

import numpy as np

from gdlcheck.derivation.cells import MAX_BASIS_ENTRIES
from gdlcheck.errors import LimitError
from gdlcheck.groups import PermGroup
from gdlcheck.limits import MAX_CELLS, MAX_CSV_CELLS, MAX_JSON_CELLS
from gdlcheck.output.proof import culprit_json, proof_json
from gdlcheck.output.tensor_words import tensor_note
from gdlcheck.output.witnesses import counterexample, json_float
from gdlcheck.output.words import (
    DETAILS,
    RELATIVE_TO,
    code_culprit_json,
    constraint_lines,
    fact_text,
    undecided_lines,
)
from gdlcheck.verdicts import Method, Verdict
from gdlcheck.verification.result import Check, TensorChecked, Verified

SCHEMA_VERSION = 1


def dumps(obj: dict) -> str:
    """One line of JSON; floats keep full round-trip precision (``repr``)."""
    return json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))


def group_json(group: PermGroup) -> dict:
    out = {"name": group.name, "n": group.n, "order": group.order_json(), "generators": group.generator_strings}
    if out["order"] is None:  # a generated group past the Schreier-Sims budget
        out["order_note"] = group.order_text
    if group.shape is not None:
        out["shape"] = list(group.shape)
    return out


def groups_json(group: PermGroup) -> dict:
    """``gdlcheck groups NAME --format json``."""
    out = {"schema_version": SCHEMA_VERSION}
    out.update(group_json(group))
    out["transitive"] = group.is_transitive
    return out


def catalogue_json(family) -> dict:
    """One line of ``gdlcheck groups --format json``: a family of the catalogue."""
    return {
        "schema_version": SCHEMA_VERSION,
        "name": family.name,
        "needs": family.needs,
        "generators": family.generators,
        "order": family.order_text,
    }


def check_json(c: Check) -> dict:
    out = {
        "generator": c.generator,
        "method": Method(c.method).value,
        "passed": c.passed,
        "max_abs_error": json_float(c.max_abs_error),
        "relative_error": json_float(c.relative_error),
        "counterexample": counterexample(c.witness),
    }
    if c.relative_error is not None:  # the two relative errors are of different things: name which
        out["relative_to"] = RELATIVE_TO[c.method == Method.NUMERIC]
    if c.exact is not None:
        out["exact"] = c.exact
    if c.trials is not None:
        out["trials"] = c.trials
    if c.detail:
        out["note"] = DETAILS[c.detail]
    return out


def verify_json(result: Verified, hints=()) -> dict:
    """``gdlcheck verify --format json``: one object per input (``hints``: sentences that save a round
    trip, e.g. a near miss; the key is there only when there are some)."""
    out = {
        "schema_version": SCHEMA_VERSION,
        "input": result.input,
        "kind": result.kind,
        "group": group_json(result.group),
        "expect": result.expect,
        "passed": result.passed,
        "verdict": Verdict(result.verdict).value,
        "checks": [check_json(c) for c in result.checks],
        "constraints": constraint_lines(result),
    }
    if result.name:
        out["name"] = result.name
    if result.notes:
        out["notes"] = [fact_text(note) for note in result.notes]
    if result.diagnosis is not None:
        out["diagnosis"] = [fact_text(f) for f in result.diagnosis]
    undecided = undecided_lines(result)
    if undecided:
        out["undecided"] = undecided
    if hints:
        out["hints"] = list(hints)
    if result.proof is not None:
        out["proof"] = proof_json(result.proof)
    if result.culprit is not None:
        out["culprit"] = (
            culprit_json(result.culprit, result.proof)
            if "condition" in result.culprit and result.proof is not None
            else code_culprit_json(result.culprit)
        )
    return out


def error_json(input_name: str, message: str) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        "input": input_name,
        "passed": False,
        "verdict": Verdict.ERROR.value,
        "error": message,
    }


def tensor_json(checked: TensorChecked, message: str | None = None) -> dict:
    """``verify FILE --format json`` for one tensor of a weights file: ``verify``'s object with
    ``"input"`` the file, ``"tensor"`` its name, ``"shape"``, ``"role"`` (matrix, bias, kernel,
    other), ``"n"`` (its own) and ``"relative_distance"``; a kernel's object with its conditions as
    ``"checks"``; ``"verdict": "not_judged"`` and a ``"note"`` for a tensor not on the points (and for
    one checked at its own n that does not commute: it may mix features); an
    error's object for one that could not be checked (``message``: the error as the caller words it)."""
    head = {
        "schema_version": SCHEMA_VERSION,
        "input": checked.input,
        "tensor": checked.name,
        "shape": list(checked.shape),
        "role": checked.role,
        "n": checked.n,
    }
    if checked.error is not None:
        return {
            **head,
            **{k: v for k, v in error_json(checked.input, message or str(checked.error)).items() if k not in head},
        }
    note = tensor_note(checked)
    if checked.result is not None:
        out = verify_json(checked.result)
        out = {**head, **{k: v for k, v in out.items() if k not in head}}
        out["relative_distance"] = json_float(checked.distance)  # project's key
        if checked.undecided:  # checked at its own n, it may mix features: not judged, its checks kept
            out.update(passed=None, verdict=Verdict(checked.verdict).value)
    elif checked.kernel is not None:
        kernel = checked.kernel
        out = {
            **head,
            "passed": kernel.passed,
            "verdict": Verdict(kernel.verdict).value,
            "checks": [
                {
                    "generator": c.role,
                    "method": Method.EXACT.value,
                    "passed": c.passed,
                    "max_abs_error": json_float(c.max_abs_error),
                    "relative_error": json_float(c.relative_error),
                    "counterexample": None if c.index is None else {"index": list(c.index)},
                }
                for c in kernel.checks
            ],
        }
    else:
        out = {**head, "passed": None, "verdict": Verdict(checked.verdict).value}
    if note is not None:
        out["note"] = note
    return out


# the cells a text format may write, by format (npy, binary, has its own budget)
CELL_LIMITS = {"json": MAX_JSON_CELLS, "csv": MAX_CSV_CELLS}


def check_output_cells(cells: int, fmt: str, what: str) -> None:
    """Refuse text output of more cells than its budget before any of it is built (the JSON of
    a 4096 x 4096 pattern took 3.6 GB of Python lists)."""
    limit = CELL_LIMITS[fmt]
    if cells > limit:
        raise LimitError(
            f"{fmt} output of the {what} would have {cells} cells, over the limit of {limit}; "
            "use --format npy (binary) or the text report"
        )


def derive_json(d, pattern: bool = True) -> dict:
    """``derive --format json`` as a dict (``pattern=False``: without its last key, the pattern)."""
    limit = d.json_cells()
    if MAX_JSON_CELLS < d.cells <= MAX_CELLS and d.cells > limit:  # past MAX_CELLS the pattern's own budget refuses
        # the refusal names only what works: npy when the basis fits its budget
        other = "--format npy (binary) or " if d.dimension * d.cells <= MAX_BASIS_ENTRIES else ""
        raise LimitError(
            f"json output of the pattern would have {d.cells} cells, over the limit of {limit}; "
            f"use {other}the text report"
        )
    patterned = d.pattern  # first: a pattern over the size budget is refused before anything else is built
    out = {
        "schema_version": SCHEMA_VERSION,
        "group": group_json(d.group),
        "in_order": d.in_order,
        "out_order": d.out_order,
        "dimension": d.dimension,
        "free_parameters": d.free_parameters,
        "unconstrained_parameters": d.unconstrained_parameters,
        "form": d.form,
        "formula": d.formula,
        "parameters": d.parameters,
    }
    if d.channels_in != 1 or d.channels_out != 1:
        out["channels_in"] = d.channels_in
        out["channels_out"] = d.channels_out
    if d.partitions is not None:
        out["partitions"] = d.partitions
    matrix = d.matrix_strings()
    if matrix is not None:
        out["matrix"] = matrix
    if pattern:
        out["pattern"] = patterned.tolist()
    return out


def derive_json_text(d) -> str:
    """``dumps(derive_json(d))``, with the pattern written from the array row by row: no Python
    int per cell (the pattern of 2 -> 2 on 64 points has 16.8M)."""
    head = dumps(derive_json(d, pattern=False))
    return head[:-1] + ', "pattern": ' + int_array_json(d.pattern) + "}"


def int_array_json(a: np.ndarray) -> str:
    """The JSON of ``a.tolist()`` for an integer array, as :func:`dumps` writes it, built from
    one string per row of the last axis."""
    if a.ndim == 0:
        return str(int(a))
    if a.size == 0:
        return json.dumps(a.tolist(), separators=(", ", ": "))
    low = int(a.min())
    words = np.array([str(v) for v in range(low, int(a.max()) + 1)], dtype=object)
    parts = ["[" + ", ".join(words[row - low]) + "]" for row in a.reshape(-1, a.shape[-1])]
    for size in reversed(a.shape[:-1]):
        parts = ["[" + ", ".join(parts[k : k + size]) + "]" for k in range(0, len(parts), size)]
    return parts[0]


def project_json(input_name: str, group: PermGroup, P, distance: float) -> dict:
    """``gdlcheck project --format json``: the nearest equivariant matrix and the distance."""
    check_output_cells(int(P.size), "json", "matrix")
    return {
        "schema_version": SCHEMA_VERSION,
        "input": input_name,
        "group": group_json(group),
        "relative_distance": distance,
        "matrix": [[float(x) for x in row] for row in P.tolist()],
    }


def symmetries_json(input_name: str, found) -> dict:
    """``gdlcheck symmetries --format json``."""
    g = found.group
    return {
        "schema_version": SCHEMA_VERSION,
        "input": input_name,
        "n": g.n,
        "group": {"order": g.order_json(), "generators": g.generator_strings, "transitive": g.is_transitive},
        "contains": list(found.contains),
        "colours": found.colours,
        "tol": found.tol,
        "near_ties": found.near_ties,
    }


def inspect_json(inspection) -> dict:
    """``gdlcheck inspect --format json``."""
    from gdlcheck.inspection import PROPERTIES

    return {
        "schema_version": SCHEMA_VERSION,
        "input": inspection.input,
        "kind": inspection.kind,
        "depends_on": inspection.depends_on,
        "properties": {k: bool(inspection.properties[k]) for k in PROPERTIES},
        "aggregation": {
            "layer": inspection.measured,
            "shape": list(inspection.shape),
            "matrices": inspection.heads,
            "samples": inspection.samples,
        },
        "notes": [fact_text(note) for note in inspection.notes],
    }


def kind_json(kind) -> dict:
    """One line of ``gdlcheck kinds --format json``: a layer kind's reference."""
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": kind.name,
        "summary": kind.summary,
        "computes": kind.computes,
        "rule": kind.rule,
        "keys": [
            {"name": k.name, "type": k.type, "required": k.required, "default": k.default, "meaning": k.meaning}
            for k in kind.keys
        ],
        "one_of": [list(group) for group in kind.one_of],
        "example": kind.example,
    }


def measure_json(measured) -> dict:
    """``gdlcheck measure --format json``: the model, the group, the data, the group elements, and
    per submodule (in the order the model runs them) its error and own contribution, worst over
    the elements and per element."""
    largest = measured.largest
    return {
        "schema_version": SCHEMA_VERSION,
        "input": measured.input,
        "group": group_json(measured.group),
        "data": {"input": measured.data, "shape": list(measured.data_shape), "points_axis": measured.points_axis},
        "graph": measured.graph,
        "elements": [{"element": e, "kind": k} for e, k in zip(measured.elements, measured.kinds)],
        "error": json_float(measured.model.error),
        "largest_contributor": None if largest is None else largest.path,
        "layers": [
            {
                "path": m.path,
                "kind": m.kind,
                "depth": m.depth,
                "leaf": m.is_leaf,
                "moves": m.moves,
                "error": json_float(m.error),
                "own_contribution": json_float(m.own_contribution),
                "errors": [json_float(v) for v in m.errors],
                "own": [json_float(v) for v in m.own],
            }
            for m in measured.layers
        ],
    }
