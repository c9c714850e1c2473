"""Mutated and random inputs: every case ends in a verdict or an input error, never a crash.

A crash shows as exit code 70 (gdlcheck's internal-error handler) or a traceback; both fail.
"""

import re

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gdlcheck.cli import cli
from tests.conftest import SAMPLES

RUNNER = CliRunner()


def run(args, input):
    return RUNNER.invoke(cli, args, input=input, catch_exceptions=False)


SEEDS = [(SAMPLES / name).read_text() for name in ("layer.yaml", "conv.yaml", "deepsets.yaml", "symbolic-broken.yaml")]
SEEDS += ["1,2,3\n3,1,2\n2,3,1\n", "[[1, 2], [2, 1]]", "0.5 1\n1 0.5\n"]

TOKENS = [
    "-",
    ":",
    ",",
    "[",
    "]",
    "{",
    "}",
    "\n",
    "  ",
    "*a",
    "&a",
    "!!python/object/apply:os.system",
    "!!int",
    "kind",
    "layer",
    "symmetry",
    "group",
    "n",
    "kernel",
    "weight",
    "bias",
    "alpha",
    "beta",
    "expect",
    "invariant",
    "seed",
    "channels",
    "conv",
    "linear",
    "deepsets",
    "cyclic",
    "symmetric",
    "dihedral",
    "generators",
    "(0 1)",
    "[1, 0]",
    "0",
    "1",
    "-1",
    "3",
    "8",
    "1e308",
    "1e-320",
    "nan",
    ".inf",
    "1/0",
    "a",
    "b*c",
    "sqrt(2)",
    "log(0)",
    "2**2**2**2",
    "__import__",
    "'x'",
    '"',
    "#",
    "null",
    "~",
    "{file: x.npy}",
    "{random: [2, 2]}",
    "999999",
    "0.1",
    "( 0)( 0)( 0)( 0)(",
    "sqrt(-1)",
    "log(-1)",
    "1e200",
    "---",
    "%YAML 1.1",
    "(a+b)**3000",
    "tanh(exp(exp(100)))",
    "(0 300000000)",
    "p4",
    "attention",
    "causal",
]

_SPLIT = re.compile(r"(\s+|[\[\]{}:,\n])")


def mutate(text: str, edits) -> str:
    parts = [p for p in _SPLIT.split(text) if p]
    for op, pos, token in edits:
        if not parts:
            parts = [token]
            continue
        i = pos % len(parts)
        if op == "insert":
            parts.insert(i, token)
        elif op == "delete":
            del parts[i]
        else:
            parts[i] = token
    return "".join(parts)


edits = st.lists(
    st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 10_000), st.sampled_from(TOKENS)),
    min_size=1,
    max_size=6,
)


def check(result):
    assert result.exit_code in (0, 1, 2, 3), (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    if result.exit_code == 2:
        assert result.stderr.startswith("gdlcheck: error: ")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), edits)
def test_mutated_inputs(seed, ops):
    text = mutate(seed, ops)
    check(run(["verify", "-", "--trials", "2"], input=text))


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=True) | st.sampled_from(TOKENS),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(TOKENS), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(["symmetry", "layer", "expect", "seed", "channels", "name", "layers"]),
        yaml_values,
        min_size=1,
        max_size=5,
    )
)
def test_random_yaml_structures(doc):
    text = yaml.safe_dump(doc)
    check(run(["verify", "-", "--trials", "2"], input=text))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4), min_size=1, max_size=4),
    st.sampled_from(["cyclic", "symmetric", "dihedral", "trivial"]),
)
def test_random_matrices_on_stdin(rows, group):
    text = "\n".join(",".join(r) for r in rows) + "\n"
    check(run(["verify", "-", "-g", group, "--trials", "2"], input=text))
