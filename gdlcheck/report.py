"""Results as plain JSON-ready data (DESIGN.md section 6). No printing here."""

from __future__ import annotations

import json

from gdlcheck.groups import PermGroup, group_order_json

SCHEMA_VERSION = 1


def group_json(group: PermGroup) -> dict:
    out = {
        "name": group.name,
        "n": group.n,
        "order": group_order_json(group),
        "generators": group.generator_strings,
    }
    if group.shape is not None:
        out["shape"] = list(group.shape)
    return out


def groups_json(group: PermGroup) -> dict:
    """``gdlcheck groups NAME --format json``."""
    out = {"schema_version": SCHEMA_VERSION}
    out.update(group_json(group))
    out["transitive"] = group.is_transitive
    return out


def derive_json(d) -> dict:
    pattern = d.pattern  # first: a pattern over the size budget is refused before anything else is built
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
    if getattr(d, "partitions", None) is not None:
        out["partitions"] = d.partitions
    matrix = d.matrix_strings()
    if matrix is not None:
        out["matrix"] = matrix
    out["pattern"] = pattern.tolist()
    return out


def error_json(input_name: str, message: str) -> dict:
    return {"schema_version": SCHEMA_VERSION, "input": input_name, "passed": False, "verdict": "error",
            "error": message}


def dumps(obj: dict) -> str:
    """One line of JSON; floats keep full round-trip precision (``repr``)."""
    return json.dumps(obj, ensure_ascii=True, allow_nan=False, separators=(", ", ": "))


def project_json(input_name: str, group: PermGroup, P, distance: float) -> dict:
    """``gdlcheck project --format json``: the nearest equivariant matrix and the distance."""
    return {"schema_version": SCHEMA_VERSION, "input": input_name, "group": group_json(group),
            "relative_distance": distance, "matrix": [[float(x) for x in row] for row in P.tolist()]}


def symmetries_json(input_name: str, found) -> dict:
    """``gdlcheck symmetries --format json``."""
    g = found.group
    return {"schema_version": SCHEMA_VERSION, "input": input_name, "n": g.n,
            "group": {"order": group_order_json(g), "generators": g.generator_strings,
                      "transitive": g.is_transitive},
            "contains": list(found.contains), "colours": found.colours, "tol": found.tol}
