"""The soundness argument as data: the walker runs exactly the guards of ``GUARDS``, in order, each
with its sentence."""

import pytest

torch = pytest.importorskip("torch")

from gdlcheck.code.prover import guards  # noqa: E402
from gdlcheck.layers.proofs import Reason  # noqa: E402


def test_the_walker_runs_the_table_in_order():
    assert guards.BEFORE + guards.AFTER == guards.GUARDS
    names = [g.name for g in guards.GUARDS]
    assert len(set(names)) == len(names)
    assert all(g.sentence.endswith(".") and len(g.sentence) > 40 for g in guards.GUARDS)
    assert names[0] == "budget" and guards.BEFORE[-1].name == "rule"  # the rule applies last, the effects after
    assert all(text.endswith(".") for _, text in guards.CALL_CHECKS)


def test_every_reason_the_walk_words_is_a_reason():
    assert {"moved", "foreign_type"} <= {r.value for r in Reason if r.is_worded_by_the_walk}
