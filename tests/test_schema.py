"""The spec reference (gdlcheck kinds), the JSON Schema (gdlcheck schema) and the parser agree."""

import json

import jsonschema
import numpy as np
import pytest
import yaml

from gdlcheck import sources
from gdlcheck.inputs import spec as spec_module
from gdlcheck.layers import KINDS
from gdlcheck.layers.reference import KIND_REFERENCE, SPEC_KEYS, SYMMETRY_KEYS
from gdlcheck.output.schema import spec_schema
from tests.conftest import ROOT, SAMPLES

SCHEMA_FILE = ROOT / "docs" / "gdlcheck-spec.schema.json"


@pytest.fixture(scope="module")
def validator():
    schema = spec_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def example_spec(kind: str, layer_yaml: str | None = None) -> str:
    ref = KIND_REFERENCE[kind]
    body = layer_yaml if layer_yaml is not None else ref.example
    indented = "\n".join("  " + line for line in body.splitlines())
    return f"symmetry: {{group: cyclic, n: 4}}\nexpect: {ref.expect}\nlayer:\n{indented}\n"


def parse(text: str):
    return yaml.safe_load(text)


def build(tmp_path, text: str, name: str = "s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return sources.resolve(str(path), sources.GroupOptions())


# --------------------------------------------------------------------------- the file and the command


def test_the_committed_schema_is_what_gdlcheck_schema_prints(run):
    result = run(["schema"])
    assert result.exit_code == 0
    assert result.stdout == SCHEMA_FILE.read_text(), "refresh it: gdlcheck schema > docs/gdlcheck-spec.schema.json"
    assert json.loads(result.stdout) == spec_schema()
    assert run(["schema"]).stdout == result.stdout  # deterministic


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.yaml")))
def test_every_sample_validates(validator, sample):
    errors = [e.message for e in validator.iter_errors(parse((SAMPLES / sample).read_text()))]
    assert errors == []


# --------------------------------------------------------------------------- schema and parser agree


def test_every_kind_of_the_parser_has_a_reference_and_no_more():
    assert set(KIND_REFERENCE) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_reference_schema_and_parser_agree_on_the_keys(kind):
    _, keys, required = KINDS[kind]
    ref = KIND_REFERENCE[kind]
    assert {k.name for k in ref.keys} == set(keys) | {"name"}
    assert set(ref.required) == set(required)
    definition = spec_schema()["$defs"][f"kind_{kind}"]
    assert set(definition["properties"]) == set(keys) | {"kind", "name"}
    assert definition["additionalProperties"] is False
    assert set(definition["required"]) == set(required) | {"kind"}


def test_top_level_and_symmetry_keys_agree():
    assert [k.name for k in SPEC_KEYS] == list(spec_module.TOP_KEYS)
    assert [k.name for k in SYMMETRY_KEYS] == list(spec_module.SYMMETRY_KEYS)
    schema = spec_schema()
    assert list(schema["properties"]) == list(spec_module.TOP_KEYS)
    symmetry = schema["$defs"]["symmetry"]["anyOf"][1]
    assert list(symmetry["properties"]) == list(spec_module.SYMMETRY_KEYS)


def test_every_value_names_a_definition():
    defs = spec_schema()["$defs"]
    for key in [k for ref in KIND_REFERENCE.values() for k in ref.keys] + list(SPEC_KEYS) + list(SYMMETRY_KEYS):
        assert isinstance(key.value, tuple) or key.value in defs, key


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_example_validates_and_verifies(run, validator, tmp_path, kind):
    text = example_spec(kind)
    assert list(validator.iter_errors(parse(text))) == []
    path = tmp_path / "example.yaml"
    path.write_text(text)
    result = run(["verify", path, "-q"])
    assert result.exit_code == 0, (text, result.stderr)


def choice_cases():
    for kind, ref in sorted(KIND_REFERENCE.items()):
        for key in ref.keys:
            if isinstance(key.value, tuple):
                for choice in key.value:
                    yield kind, key.name, choice


@pytest.mark.parametrize("kind, key, choice", list(choice_cases()))
def test_the_parser_accepts_every_choice_the_schema_lists(validator, tmp_path, kind, key, choice):
    ref = KIND_REFERENCE[kind]
    layer = {**parse(ref.example), key: choice}
    text = example_spec(kind, yaml.safe_dump(layer, default_flow_style=True).strip())
    assert list(validator.iter_errors(parse(text))) == []
    build(tmp_path, text)  # raises on a choice the parser refuses


@pytest.mark.parametrize("kind, key", sorted({(k, key) for k, key, _ in choice_cases()}))
def test_a_choice_outside_the_list_is_refused_by_both(validator, tmp_path, kind, key):
    layer = {**parse(KIND_REFERENCE[kind].example), key: "bogus_choice"}
    text = example_spec(kind, yaml.safe_dump(layer, default_flow_style=True).strip())
    assert list(validator.iter_errors(parse(text)))
    with pytest.raises(spec_module.SpecError, match="bogus_choice"):
        build(tmp_path, text)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_an_unknown_key_is_refused_by_both(validator, tmp_path, kind):
    layer = {**parse(KIND_REFERENCE[kind].example), "colour": 1}
    text = example_spec(kind, yaml.safe_dump(layer, default_flow_style=True).strip())
    assert list(validator.iter_errors(parse(text)))
    with pytest.raises(spec_module.SpecError, match="unknown key 'colour'"):
        build(tmp_path, text)


@pytest.mark.parametrize("kind, key", [(k, key) for k, ref in sorted(KIND_REFERENCE.items()) for key in ref.required])
def test_a_missing_required_key_is_refused_by_both(validator, tmp_path, kind, key):
    layer = parse(KIND_REFERENCE[kind].example)
    del layer[key]
    text = example_spec(kind, yaml.safe_dump(layer, default_flow_style=True).strip())
    assert list(validator.iter_errors(parse(text)))
    with pytest.raises(spec_module.SpecError, match=key):
        build(tmp_path, text)


def test_deepsets_takes_alpha_and_beta_or_lambda_and_gamma(validator):
    both = "symmetry: {group: cyclic, n: 4}\nlayer: {kind: deepsets, alpha: 1, beta: 2, lambda: [[1]], gamma: [[1]]}"
    assert list(validator.iter_errors(parse(both)))
    channels = "symmetry: {group: cyclic, n: 4}\nlayer: {kind: deepsets, lambda: [[1]], gamma: [[1]]}"
    assert list(validator.iter_errors(parse(channels))) == []


def default_cases():
    for kind, ref in sorted(KIND_REFERENCE.items()):
        for key in ref.keys:
            if key.default is not None and key.name not in parse(ref.example):
                yield kind, key.name, key.default


@pytest.mark.parametrize("kind, key, default", list(default_cases()))
def test_each_default_is_what_the_parser_uses_without_the_key(tmp_path, kind, key, default):
    layer = parse(KIND_REFERENCE[kind].example)
    without = build(tmp_path, example_spec(kind), "without.yaml")
    explicit = build(
        tmp_path,
        example_spec(kind, yaml.safe_dump({**layer, key: default}, default_flow_style=True).strip()),
        "with.yaml",
    )
    X = np.random.default_rng(0).standard_normal((4, without.channels))
    np.testing.assert_array_equal(explicit.layer.forward(X), without.layer.forward(X))


# --------------------------------------------------------------------------- gdlcheck kinds


def test_kinds_lists_every_kind(run):
    result = run(["kinds"])
    assert result.exit_code == 0
    for kind in KINDS:
        assert kind in result.stdout


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_kinds_name_prints_every_key_with_type_default_and_meaning(run, kind):
    (obj,) = [json.loads(line) for line in run(["kinds", kind, "--format", "json"]).stdout.splitlines()]
    assert obj["kind"] == kind and [k["name"] for k in obj["keys"]] == [k.name for k in KIND_REFERENCE[kind].keys]
    assert all(k["type"] and k["meaning"] for k in obj["keys"])
    text = run(["kinds", kind]).stdout
    for key in KIND_REFERENCE[kind].keys:
        assert key.name in text


def test_kinds_of_an_unknown_name_suggests_one(run):
    result = run(["kinds", "gcm"])
    assert result.exit_code == 2 and "unknown layer kind 'gcm' (did you mean 'gcn'?)" in result.stderr
