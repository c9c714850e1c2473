"""Nothing a spec contains is executed, and no input can make gdlcheck work without bound."""

import time

import pytest

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


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system ['touch {target}']",
    "!!python/object/new:os.system ['touch {target}']",
    "!!python/name:os.system",
    "!!python/module:os",
    "!custom 3",
])
def test_yaml_python_tags_are_rejected(run, tmp_path, tag):
    target = tmp_path / "pwned"
    spec = tmp_path / "tag.yaml"
    spec.write_text("symmetry: {group: cyclic, n: 2}\nlayer: " + tag.replace("{target}", str(target)) + "\n")
    result = run(["verify", spec])
    assert result.exit_code == 2
    assert "is not allowed" in result.stderr and "tag" in result.stderr
    assert not target.exists()


def test_billion_laughs_is_refused_at_once(run, tmp_path):
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for c in "bcdefghij":
        lines.append(f"{c}: &{c} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = c
    lines.append(f"layer: {{kind: linear, weight: *{prev}}}")
    spec = tmp_path / "laughs.yaml"
    spec.write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    result = run(["verify", spec, "-g", "cyclic"])
    assert time.perf_counter() - start < 1.0
    assert result.exit_code == 2 and "expands to" in result.stderr and "over the limit" in result.stderr


def test_deep_yaml_is_refused(run, tmp_path):
    spec = tmp_path / "deep.yaml"
    spec.write_text("layer: " + "[" * 5000 + "]" * 5000 + "\n")
    result = run(["verify", spec])
    assert result.exit_code == 2 and "nested deeper" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["derive", "-g", "symmetric", "-n", "1000", "--in-order", "2", "--out-order", "2", "--format", "json"],
     "index cells"),
    (["derive", "-g", "cyclic", "-n", "1000", "--in-order", "2", "--out-order", "2"], "index cells"),
    (["derive", "-g", "cyclic", "-n", "2000000"], "exceeds the limit"),
    (["groups", "alternating", "-n", "100000", "--format", "json"], "the order 100000!/2 has about 456574 digits"),
    (["verify", "{spec}"], "over the limit"),
])
def test_size_budgets_refuse_fast_and_state_the_estimate(run, tmp_path, args, message):
    spec = tmp_path / "big.yaml"
    spec.write_text("symmetry: {group: cyclic, n: 500000}\nlayer: {kind: conv, kernel: [1, 2]}\n")
    start = time.perf_counter()
    result = run([a.replace("{spec}", str(spec)) for a in args])
    assert time.perf_counter() - start < 1.0
    assert result.exit_code == 2
    assert message in result.stderr


def test_a_closed_form_is_named_at_any_size_without_its_pattern(run):
    start = time.perf_counter()
    result = run(["derive", "-g", "symmetric", "-n", "1000", "--in-order", "2", "--out-order", "2"])
    assert time.perf_counter() - start < 2.0
    assert result.exit_code == 0 and "Bell(4) = 15" in result.stdout and "w_14" in result.stdout


@pytest.mark.parametrize("spec, message, seconds", [
    ('symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [["9**9**9**9", 1], [1, 1]]}\n', "digits", 1.0),
    ("symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: {random: [100000, 100000]}}\n",
     "exceed the limit", None),
    ("symmetry: {group: symmetric, n: 4}\nchannels: 8\n"
     "layer: {kind: transformer_encoder, layers: 100000, d_model: 8, heads: 2, d_ff: 16}\n",
     "encoder blocks exceed the limit of 64", 2.0),
    ("symmetry: {group: symmetric, n: 4}\nlayer:\n" + "  - {kind: pointwise, activation: tanh}\n" * 5000,
     "more than 1000 layers", 2.0),
], ids=["huge power", "large random weight", "encoder depth", "layer count"])
def test_spec_budgets_refuse_fast(run, tmp_path, spec, message, seconds):
    path = tmp_path / "budget.yaml"
    path.write_text(spec)
    start = time.perf_counter()
    result = run(["verify", path])
    if seconds is not None:
        assert time.perf_counter() - start < seconds
    assert result.exit_code == 2 and message in result.stderr

