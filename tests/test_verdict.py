"""The verdict is a pure function of judged checks: one test per row of its table, no layer in sight."""

import math

import pytest

from gdlcheck.verification.result import Check, Residual
from gdlcheck.verification.verdict import decide, judge


def exact(passed, is_exact=True):
    return Check("(0 1)", "exact", max_abs_error=0.0, relative_error=0.0, exact=is_exact, passed=passed)


def numeric(passed, error=0.0, magnitude=1.0):
    return Check(
        "(0 1)",
        "numeric",
        max_abs_error=error,
        relative_error=1.0 if error else 0.0,
        trials=8,
        passed=passed,
        magnitude=magnitude,
    )


def verdict(checks, method="auto", has_generators=True, exact_applies=True, why_not=None, **rounding):
    return decide(
        checks, method=method, has_generators=has_generators, exact_applies=exact_applies, why_not=why_not, **rounding
    )


EPS64, EPS32 = 2.0**-52, 2.0**-23  # float64's and float32's eps, written out


def test_no_generators_holds():
    v, passed, notes = verdict([], has_generators=False)
    assert (v, passed) == ("holds", True) and [n.what for n in notes] == ["no_generators"]


def test_exact_demanded_and_none_applies_is_inconclusive():
    from gdlcheck.layers import Fact

    why = Fact("symbolic_points", {"n": 9, "limit": 6})
    v, passed, notes = verdict([], method="exact", exact_applies=False, why_not=why)
    assert (v, passed) == ("inconclusive", False) and notes[0].args["why"] is why


def test_a_failing_check_fails_whatever_else_holds():
    assert verdict([exact(True, is_exact=False), numeric(False)])[:2] == ("fails", False)
    assert verdict([exact(False), numeric(True)])[:2] == ("fails", False)
    other = Check("(0 1 2)", "numeric", max_abs_error=1.0, relative_error=1.0, trials=8, passed=False)
    assert verdict([exact(True), numeric(True), other])[:2] == ("fails", False)


# magnitude 1: rounding is at most 64 ulps of 1 (64 * 2^-52 = 1.42e-14)
@pytest.mark.parametrize("error", [0.0, 3e-16, 64 * EPS64])
def test_trials_that_fail_a_generator_proved_exactly_by_rounding_measured_rounding(error):
    v, passed, notes = verdict([exact(True), numeric(False, error)])
    assert (v, passed) == ("holds", True)
    assert [(n.what, n.args["generator"]) for n in notes] == [("trials_rounding", "(0 1)")]


@pytest.mark.parametrize("error", [64.5 * EPS64, 1e-9, 1e-3, 0.7, math.inf])
def test_a_counterexample_past_rounding_wins_over_a_proof(error):
    """A wrong rule must not hide what the trials found: the counterexample decides, and says so."""
    v, passed, notes = verdict([exact(True), numeric(False, error)])
    assert (v, passed) == ("fails", False)
    assert [(n.what, n.args["generator"]) for n in notes] == [("proof_contradicted", "(0 1)")]


@pytest.mark.parametrize("seen, parameters", [(1e7, 0.0), (1.0, 1e7)])
def test_rounding_is_read_against_the_largest_magnitude_on_the_way(seen, parameters):
    """2 ulps of 1e7 (2 * 2^-52 * 2^23 = 3.7e-9 for 1e7 < 2^24) is rounding when 1e7 is in the
    trials' values or in the module's parameters; on values of order 1 it is a counterexample."""
    two_ulps = 2 * EPS64 * 2.0**23
    v, _, notes = verdict([exact(True), numeric(False, two_ulps, magnitude=seen)], magnitude=parameters)
    assert v == "holds" and [n.what for n in notes] == ["trials_rounding"]
    v, _, notes = verdict([exact(True), numeric(False, two_ulps, magnitude=1.0)])
    assert v == "fails" and [n.what for n in notes] == ["proof_contradicted"]


def test_float32_rounding_inside_a_float64_check_fails_without_blaming_a_rule():
    """1e-7 on values of order 1 is past float64 rounding but within 64 ulps of float32 (7.6e-6):
    the check fails (the caller notes float32), and no rule is said to be wrong."""
    v, _, notes = verdict([exact(True), numeric(False, 1e-7)], lower_rounding=64 * EPS32)
    assert v == "fails" and notes == []
    v, _, notes = verdict([exact(True), numeric(False, 1e-3)], lower_rounding=64 * EPS32)
    assert v == "fails" and [n.what for n in notes] == ["proof_contradicted"]


def test_every_exact_check_exactly_is_holds():
    assert verdict([exact(True), numeric(True)])[:2] == ("holds", True)


def test_exact_checks_within_tolerance_is_holds_within_tolerance():
    assert verdict([exact(True), exact(True, is_exact=False), numeric(True)])[:2] == ("holds_within_tolerance", True)


def test_an_undecided_exact_check_with_exact_demanded_is_inconclusive():
    assert verdict([exact(None, None)], method="exact")[:2] == ("inconclusive", False)


def test_an_undecided_exact_check_rests_on_the_trials():
    v, passed, notes = verdict([exact(None, None), numeric(True)])
    assert (v, passed) == ("holds_numerically", True) and [n.what for n in notes] == ["exact_undecided"]


def test_trials_alone_hold_numerically_and_say_why_nothing_exact_ran():
    from gdlcheck.layers import Fact

    why = Fact("no_symbolic_pass", {"kind": "callable"})
    v, passed, notes = verdict([numeric(True)], exact_applies=False, why_not=why)
    assert (v, passed) == ("holds_numerically", True) and notes[0].what == "numeric_only"
    # --method numeric asked for trials only: nothing to explain
    assert verdict([numeric(True)], method="numeric", exact_applies=False, why_not=why)[2] == []


def test_no_check_at_all_is_inconclusive():
    assert verdict([], exact_applies=False)[:2] == ("inconclusive", False)


def test_random_code_that_fails_is_inconclusive_with_the_randomness_as_its_note():
    from gdlcheck.groups import cyclic
    from gdlcheck.layers import Fact
    from gdlcheck.verification.result import Verified
    from gdlcheck.verification.verdict import random_code

    checks = [numeric(False, error=0.5)]
    v, passed, notes = verdict(checks, exact_applies=False)
    failed = Verified(
        input="f",
        kind="callable",
        group=cyclic(3),
        expect="equivariant",
        passed=passed,
        verdict=v,
        checks=checks,
        notes=notes,
        diagnosis=[Fact("law_holds")],
    )
    randomness = Fact("random", {"relative": 0.3})
    judged = random_code(failed, randomness)
    assert (judged.verdict, judged.passed, judged.notes, judged.diagnosis) == (
        "inconclusive",
        False,
        [randomness],
        None,
    )
    assert judged.checks == checks and failed.verdict == "fails"  # the checks stand; a new result
    # a verdict that is not a failure is the code's own: randomness does not overrule it
    held = Verified(
        input="f",
        kind="callable",
        group=cyclic(3),
        expect="equivariant",
        passed=True,
        verdict="holds_numerically",
        checks=[numeric(True)],
    )
    assert random_code(held, randomness) is held


# --------------------------------------------------------------------------- judging one residual


@pytest.mark.parametrize(
    "relative, tol, passed",
    [(0.0, 1e-9, True), (1e-9, 1e-9, True), (2e-9, 1e-9, False), (0.0, 0.0, True), (math.inf, 1e-9, False)],
)
def test_a_measured_deviation_passes_within_the_tolerance(relative, tol, passed):
    r = Residual("(0 1)", "exact", max_abs_error=relative, relative_error=relative, exact=relative == 0)
    assert judge(r, tol).passed is passed


def test_a_comparison_of_expressions_ignores_the_tolerance():
    for decided in (True, False, None):
        r = Residual("(0 1)", "exact", exact=decided, symbolic=True)
        assert judge(r, 1e300).passed is decided and judge(r, 0.0).passed is decided


def test_exact_method_refuses_a_deviation_within_tolerance():
    r = Residual("(0 1)", "exact", max_abs_error=1e-13, relative_error=1e-13, exact=False)
    assert judge(r, 1e-9).passed
    c = judge(r, 1e-9, method="exact")
    assert c.passed is False and c.detail == "within_tolerance_only"


def test_a_passing_numeric_check_keeps_no_witness():
    from gdlcheck.verification.result import TrialWitness

    w = TrialWitness(3, 0, (0, 0), 1.0, 1.0 + 1e-12)
    r = Residual("(0 1)", "numeric", max_abs_error=1e-12, relative_error=1e-12, witness=w, trials=8)
    assert judge(r, 1e-9).witness is None and judge(r, 1e-15).witness is w
