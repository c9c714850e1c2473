"""Nothing a spec contains is executed, and no input can make gdlcheck work without bound.

Budgets are tested by what they prevent, never by a duration: the expensive step is
replaced by one that fails the test, or what was built is counted.
"""

import math

import pytest

from tests.conftest import forbid

PAYLOADS = [
    "__import__('os').system('touch {target}')",
    "().__class__.__base__.__subclasses__()",
    "exec(\"open('{target}', 'w')\")",
    "eval(\"open('{target}', 'w')\")",
    "(lambda: open('{target}', 'w'))()",
    "open('{target}', 'w')",
    "a.__globals__",
    "sqrt.__call__(1)",
    "[x for x in ().__class__.__mro__]",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_hostile_expression_in_a_weight(run, tmp_path, payload):
    target = tmp_path / "pwned"
    expr = payload.replace("{target}", str(target)).replace('"', '\\"')
    spec = tmp_path / "hostile.yaml"
    spec.write_text(f'symmetry: {{group: cyclic, n: 2}}\nlayer:\n  kind: linear\n  weight: [["{expr}", 1], [1, 1]]\n')
    result = run(["verify", spec])
    assert result.exit_code == 2
    assert result.stderr.startswith("gdlcheck: error: ") and result.stderr.count("\n") == 1
    assert "layer.weight[0][0]" in result.stderr
    assert not target.exists()


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system ['touch {target}']",
        "!!python/object/new:os.system ['touch {target}']",
        "!!python/name:os.system",
        "!!python/module:os",
        "!custom 3",
    ],
)
def test_yaml_python_tags_are_rejected(run, tmp_path, tag):
    target = tmp_path / "pwned"
    spec = tmp_path / "tag.yaml"
    spec.write_text("symmetry: {group: cyclic, n: 2}\nlayer: " + tag.replace("{target}", str(target)) + "\n")
    result = run(["verify", spec])
    assert result.exit_code == 2
    assert "is not allowed" in result.stderr and "tag" in result.stderr
    assert not target.exists()


def test_billion_laughs_is_refused_before_it_is_expanded(run, tmp_path, monkeypatch):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for c in "bcdefghij":
        lines.append(f"{c}: &{c} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = c
    lines.append(f"layer: {{kind: linear, weight: *{prev}}}")
    spec = tmp_path / "laughs.yaml"
    spec.write_text("\n".join(lines) + "\n")
    from gdlcheck.inputs import spec as spec_module

    def never(*args, **kwargs):
        raise AssertionError("the document was expanded before its size was counted")

    monkeypatch.setattr(spec_module, "_to_python", never)
    result = run(["verify", spec, "-g", "cyclic"])
    assert result.exit_code == 2 and "expands to" in result.stderr and "over the limit" in result.stderr


def test_deep_yaml_is_refused(run, tmp_path):
    spec = tmp_path / "deep.yaml"
    spec.write_text("layer: " + "[" * 5000 + "]" * 5000 + "\n")
    result = run(["verify", spec])
    assert result.exit_code == 2 and "nested deeper" in result.stderr


@pytest.mark.parametrize(
    "args, message, forbidden",
    [
        (
            ["derive", "-g", "symmetric", "-n", "1000", "--in-order", "2", "--out-order", "2", "--format", "json"],
            "index cells",
            "pattern",
        ),
        (["derive", "-g", "cyclic", "-n", "1000", "--in-order", "2", "--out-order", "2"], "index cells", "pattern"),
        (["derive", "-g", "cyclic", "-n", "2000000"], "exceeds the limit", "generators"),
        (
            ["groups", "alternating", "-n", "100000", "--format", "json"],
            "the order 100000!/2 has about 456574 digits",
            "factorial",
        ),
        (["verify", "{spec}"], "over the limit", "circulant"),
    ],
)
def test_size_budgets_refuse_before_the_work_and_state_the_estimate(
    run, tmp_path, monkeypatch, args, message, forbidden
):
    from gdlcheck.derivation import basis, cells
    from gdlcheck.groups import named
    from gdlcheck.layers import linear

    if forbidden == "pattern":
        forbid(monkeypatch, cells, "orbit_labels", "the orbit search")
        forbid(monkeypatch, basis, "tuple_orbits", "the orbit search")
        forbid(monkeypatch, cells, "full_labels", "writing the pattern")
    elif forbidden == "generators":
        forbid(monkeypatch, named, "shift", "building the shift")
    elif forbidden == "factorial":
        forbid(monkeypatch, math, "factorial", "computing n!")
    else:
        forbid(monkeypatch, linear, "circulant", "building the n x n circulant")
    spec = tmp_path / "big.yaml"
    spec.write_text("symmetry: {group: cyclic, n: 500000}\nlayer: {kind: conv, kernel: [1, 2]}\n")
    result = run([a.replace("{spec}", str(spec)) for a in args])
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_closed_form_is_named_at_any_size_without_its_pattern(run, monkeypatch):
    from gdlcheck.derivation import basis, cells

    forbid(monkeypatch, cells, "orbit_labels", "the orbit search")
    forbid(monkeypatch, basis, "tuple_orbits", "the orbit search")
    forbid(monkeypatch, cells, "full_labels", "writing the pattern")
    result = run(["derive", "-g", "symmetric", "-n", "1000", "--in-order", "2", "--out-order", "2"])
    assert result.exit_code == 0 and "Bell(4) = 15" in result.stdout and "w_14" in result.stdout


def test_a_power_is_refused_before_it_is_computed(run, tmp_path, monkeypatch):
    from gdlcheck.inputs import expr

    checked = []
    real = expr._check_power

    def spy(base, exponent):
        checked.append((int(base), int(exponent)))
        real(base, exponent)

    monkeypatch.setattr(expr, "_check_power", spy)
    path = tmp_path / "budget.yaml"
    path.write_text('symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [["9**9**9**9", 1], [1, 1]]}\n')
    result = run(["verify", path])
    assert result.exit_code == 2 and "digits" in result.stderr
    # 9**(9**9) is the first power past the budget: it is refused, and nothing after it is built
    assert checked == [(9, 9), (9, 9**9)]


def test_a_large_random_weight_is_refused(run, tmp_path):
    path = tmp_path / "budget.yaml"
    path.write_text("symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: {random: [100000, 100000]}}\n")
    result = run(["verify", path])
    assert result.exit_code == 2 and "exceed the limit" in result.stderr


def test_encoder_depth_is_refused_before_any_block_is_built(run, tmp_path, monkeypatch):
    from gdlcheck.layers import compose

    forbid(monkeypatch, compose, "Attention", "building an encoder block")
    path = tmp_path / "budget.yaml"
    path.write_text(
        "symmetry: {group: symmetric, n: 4}\nchannels: 8\n"
        "layer: {kind: transformer_encoder, layers: 100000, d_model: 8, heads: 2, d_ff: 16}\n"
    )
    result = run(["verify", path])
    assert result.exit_code == 2 and "encoder blocks exceed the limit of 64" in result.stderr


def test_the_layer_count_is_refused_at_the_first_layer_past_the_budget(run, tmp_path, monkeypatch):
    from gdlcheck.layers import build

    built = []
    builder, keys, required = build.KINDS["pointwise"]

    def counting(raw, ctx, where):
        built.append(where)
        return builder(raw, ctx, where)

    monkeypatch.setitem(build.KINDS, "pointwise", (counting, keys, required))
    path = tmp_path / "budget.yaml"
    path.write_text("symmetry: {group: symmetric, n: 4}\nlayer:\n" + "  - {kind: pointwise, activation: tanh}\n" * 5000)
    result = run(["verify", path])
    assert result.exit_code == 2 and "more than 1000 layers" in result.stderr
    assert len(built) == 1000  # the 1001st is refused before it is built
