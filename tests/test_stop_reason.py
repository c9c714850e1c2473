"""Why a proof stopped is a :class:`Reason`: the prover and the tracer write its word, the stop
reads it into a member (a misspelt word fails where it is written), and the conclusion and the
wording dispatch on members, never on the word."""

import ast
import pathlib
import re

import pytest

import gdlcheck
from gdlcheck.code.prover.table import Halt
from gdlcheck.layers.proofs import Halted, LayerStep, Reason, Stop
from gdlcheck.output.proof import stop_text

ROOT = pathlib.Path(gdlcheck.__file__).parent
# the argument that is the reason, by the call that takes it
_REASON_ARGUMENT = {"Halt": 2, "Stop": 2, "stop_everywhere": 1}


def _written_reasons():
    """``(file:line, word)`` of every reason the package writes, as a literal word or as a member
    (``Reason.NO_RULE``, whose word is its value)."""
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            k = _REASON_ARGUMENT.get(name)
            if k is None or len(node.args) <= k:
                continue
            arg = node.args[k]
            if isinstance(arg, ast.Constant):
                yield f"{path.relative_to(ROOT)}:{node.lineno}", arg.value
            elif isinstance(arg, ast.Attribute) and getattr(arg.value, "id", None) == "Reason":
                yield f"{path.relative_to(ROOT)}:{node.lineno}", Reason[arg.attr].value


def test_every_reason_written_is_a_member():
    written = list(_written_reasons())
    assert len(written) > 40  # the tracer's halts and the prover's stops are all found
    assert [(where, word) for where, word in written if word not in {r.value for r in Reason}] == []


def test_every_member_is_written_somewhere():
    """No reason is left that nothing produces (CONDITION is also the stop's default)."""
    used = {word for _, word in _written_reasons()} | {Reason.CONDITION.value}
    assert {r.value for r in Reason} == used


def test_no_reason_is_compared_as_a_string():
    compared = re.compile(r"""reason\s*(?:==|!=|\bnot\s+in\b|\bin\b)\s*[(\[{]?\s*["']""")
    found = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in sorted(ROOT.rglob("*.py"))
        for line in path.read_text().splitlines()
        if compared.search(line)
    ]
    assert found == []
    assert compared.search('if stop.reason in ("asks_value", "state"):')  # the search finds the old form


def test_a_word_is_read_into_its_member_and_a_misspelt_one_fails():
    step = Halted("sort", "the code reads the values of a tensor")
    assert Stop(step, None, "asks_value").reason is Reason.ASKS_VALUE
    assert Halt("call", "x", "not_traced").reason is Reason.NOT_TRACED
    assert Halt("call", "x", Reason.PATH).reason is Reason.PATH
    with pytest.raises(ValueError):
        Halt("call", "x", "not_tracde")
    with pytest.raises(ValueError):
        Stop(step, None, "no_rules")


@pytest.mark.parametrize("reason", list(Reason))
def test_each_reason_is_worded(reason):
    step = LayerStep("mlp.0", "linear", None, None, [], 1)
    text = stop_text("(0 1)", Stop(step, None, reason))
    assert text.startswith("not proven for (0 1)")
    if reason.is_worded_by_the_walk:
        assert text == "not proven for (0 1): linear"
