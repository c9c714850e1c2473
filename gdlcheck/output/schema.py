"""The spec format as a JSON Schema (draft 2020-12), from the spec reference.

Editors validate and complete spec files with it: the YAML language server reads a first line
``# yaml-language-server: $schema=PATH``.  ``gdlcheck schema`` prints it; the repository
keeps a copy in ``docs/gdlcheck-spec.schema.json`` (a test keeps the two equal).

Each layer kind is a ``$defs`` entry with its own keys and ``additionalProperties: false``;
a layer mapping picks its entry by ``kind`` (``if``/``then``), so an editor completes the keys
of the kind written.  Group names are listed in lower case (the parser accepts any case).
"""

from __future__ import annotations

from gdlcheck.groups import FAMILIES
from gdlcheck.layers.reference import KIND_REFERENCE, SPEC_KEYS, SYMMETRY_KEYS, Key

_REF = "#/$defs/"


def _ref(name: str) -> dict:
    return {"$ref": _REF + name}


def _any_of(*names: str) -> dict:
    return {"anyOf": [_ref(n) for n in names]}


def _definitions() -> dict:
    positive = {"type": "integer", "minimum": 1}
    group_names = [name for family in FAMILIES.values() for name in (family.name, *family.aliases)]
    return {
        "expression": {
            "type": ["number", "string"],
            "description": "a number, or an expression string: numbers, symbols, + - * / **, "
            "parentheses, sqrt exp log sin cos tanh Abs",
        },
        "vector": {"type": "array", "minItems": 1, "items": _ref("expression")},
        "matrix": {"type": "array", "minItems": 1, "items": _ref("vector")},
        "tensor": {"anyOf": [_ref("expression"), {"type": "array", "minItems": 1, "items": _ref("tensor")}]},
        "file": {
            "type": "object",
            "properties": {
                "file": {
                    "type": "string",
                    "description": "a .npy .csv .tsv .txt or .json matrix, relative to the spec's folder",
                }
            },
            "required": ["file"],
            "additionalProperties": False,
        },
        "random": {
            "type": "object",
            "properties": {
                "random": {
                    "anyOf": [positive, {"type": "array", "minItems": 1, "items": positive}],
                    "description": (
                        "the shape; standard normal / sqrt(rows), seeded by the spec's seed and the key path"
                    ),
                }
            },
            "required": ["random"],
            "additionalProperties": False,
        },
        "weight_vector": _any_of("vector", "file", "random"),
        "weight_matrix": _any_of("matrix", "file", "random"),
        "weight_tensor": _any_of("tensor", "file", "random"),
        "bias": _any_of("expression", "vector", "file", "random"),
        "matrices": {"type": "array", "minItems": 1, "items": _ref("weight_matrix")},
        "biases": {"type": "array", "minItems": 1, "items": {"anyOf": [{"type": "null"}, _ref("weight_vector")]}},
        "positional": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": False,
            "properties": {"absolute": _ref("weight_matrix"), "relative": _ref("weight_vector")},
        },
        "positive_integer": positive,
        "positive_number": {
            "anyOf": [
                {"type": "number", "exclusiveMinimum": 0},
                {"type": "string", "pattern": r"^\s*[0-9.]+([eE][-+]?[0-9]+)?\s*$"},
            ]
        },
        "boolean": {"type": "boolean"},
        "name": {"type": ["string", "number"]},
        "any": {},
        "seed": {"type": "integer", "minimum": 0},
        "shape": {
            "anyOf": [
                positive,
                {"type": "array", "minItems": 1, "items": positive},
                {"type": "string", "pattern": r"^\s*[0-9]+(\s*[xX]\s*[0-9]+)*\s*$"},
            ]
        },
        "group": {"enum": group_names},
        "graph": {"anyOf": [{"enum": ["layer", "adjacency-of-layer"]}, _ref("weight_matrix")]},
        "generators": {
            "anyOf": [
                {"type": "string"},
                {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "integer", "minimum": 0}}]
                    },
                },
            ]
        },
        "symmetry": {"anyOf": [_ref("group"), _mapping(SYMMETRY_KEYS)]},
        "layer": {"anyOf": [_ref("layer_mapping"), _ref("layers")]},
        "layers": {"type": "array", "minItems": 1, "items": _ref("layer")},
        "layer_mapping": {
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"enum": list(KIND_REFERENCE), "description": "the layer kind (gdlcheck kinds)"}},
            "allOf": [
                {"if": {"properties": {"kind": {"const": name}}, "required": ["kind"]}, "then": _ref(f"kind_{name}")}
                for name in KIND_REFERENCE
            ],
        },
        **{f"kind_{name}": _kind(kind) for name, kind in KIND_REFERENCE.items()},
    }


def _value(key: Key) -> dict:
    out = {"enum": list(key.value)} if isinstance(key.value, tuple) else _ref(key.value)
    described: dict[str, object] = {"description": f"{key.meaning} ({key.type})"}
    if key.default is not None:
        described["default"] = key.default
    return {**out, **described}


def _mapping(keys, extra: dict | None = None) -> dict:
    out = {
        "type": "object",
        "properties": {**(extra or {}), **{k.name: _value(k) for k in keys}},
        "additionalProperties": False,
    }
    required = [k.name for k in keys if k.required]
    if required:
        out["required"] = required
    return out


def _kind(kind) -> dict:
    out = _mapping(kind.keys, {"kind": {"const": kind.name, "description": kind.summary}})
    out["description"] = f"{kind.summary}: {kind.computes}"
    out["required"] = ["kind", *out.get("required", [])]
    if kind.one_of:
        out["oneOf"] = [{"required": list(group)} for group in kind.one_of]
    return out


def spec_schema() -> dict:
    """The JSON Schema of a spec file (deterministic: the same dict, key order included, every call)."""
    top = _mapping(SPEC_KEYS)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "gdlcheck layer spec",
        "description": "A layer and the symmetry group it is checked against (gdlcheck verify SPEC). "
        "'gdlcheck kinds NAME' prints each layer kind's keys.",
        "type": "object",
        "properties": top["properties"],
        "additionalProperties": False,
        "oneOf": [{"required": ["layer"]}, {"required": ["layers"]}],
        "$defs": _definitions(),
    }
