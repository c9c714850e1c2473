"""Numeric honesty and bounded work: overflow, tiny and huge symbolic weights, exactness rules."""

import numpy as np
import pytest

from gdlcheck import groups
from gdlcheck.errors import GroupError, LayerError
from gdlcheck.inputs.arrays import to_array
from gdlcheck.layers import Linear
from gdlcheck.verification import Options, verify_layer


def test_a_huge_linear_layer_is_checked_scale_free_not_refused_or_passed():
    # W X overflows float64, but the check runs W scaled by a power of two: a real verdict
    W = np.random.default_rng(0).standard_normal((40, 40))
    W[0] = 1.7e308
    r = verify_layer(Linear(W), groups.cyclic(40), options=Options(method="numeric"))
    assert r.verdict == "fails" and 0 < r.checks[0].relative_error <= 2


def test_a_nonlinear_layer_that_overflows_is_an_error_not_a_silent_pass():
    from gdlcheck.layers import Pointwise, Sequential

    W = np.random.default_rng(0).standard_normal((8, 8))
    W[0] = 1.7e308
    layer = Sequential([Linear(W), Pointwise("square")])
    with pytest.raises(LayerError, match="not finite"):
        verify_layer(layer, groups.cyclic(8), options=Options(method="numeric"))


def test_an_exact_verdict_and_the_numeric_check_agree_at_the_top_of_float64():
    n = 6
    theta = np.full(n, 1e308)
    theta[1] = -1e308
    W = theta[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]
    r = verify_layer(Linear(W), groups.cyclic(n))
    assert r.passed and r.verdict == "holds"
    # proved by the rules (commutation, the weights equal bit for bit), and the trials agree at that scale
    assert r.checks[0].exact is True and r.checks[0].detail == "proved"
    assert r.checks[1].method == "numeric" and r.checks[1].relative_error < 1e-15 and not r.notes


def test_overflow_prints_no_numpy_warnings(run, tmp_path):
    W = np.random.default_rng(0).standard_normal((8, 8))
    W[0] = 1.7e308
    np.save(tmp_path / "w.npy", W)
    result = run(["verify", tmp_path / "w.npy", "-g", "cyclic", "-q"])
    assert result.exit_code == 1 and result.stderr == ""


@pytest.mark.parametrize("scale", ["10**30", "10**-30"])
def test_symbolic_weights_at_any_scale_fail_with_the_constraint(scale):
    W = to_array([[f"a/{scale}", f"b/{scale}"], [f"c/{scale}", f"a/{scale}"]])
    r = verify_layer(Linear(W), groups.cyclic(2), options=Options(method="exact"))
    assert r.verdict == "fails" and r.constraints == ["b = c"]


def test_numbers_compare_the_same_beside_symbols_as_alone():
    alone = to_array([["1/3", 1], [1, "0.3333333333333333"]])
    beside = to_array([["1/3", "a"], ["a", "0.3333333333333333"]])
    assert verify_layer(Linear(alone), groups.cyclic(2)).verdict == "holds"
    assert verify_layer(Linear(beside), groups.cyclic(2)).verdict == "holds"
    r = verify_layer(Linear(to_array([["1/2", "a"], ["a", "0.3"]])), groups.cyclic(2))
    assert r.constraints == [] and r.unsatisfiable


def test_cycle_notation_is_read_in_linear_time():
    # a regex with nested quantifiers backtracks exponentially on this input (the check would
    # never return); the one gdlcheck uses has one quantifier per character class
    with pytest.raises(GroupError, match="neither cycle notation"):
        groups.parse_perm("( 0)" * 20000 + "(", None)


def test_a_far_point_is_refused_before_allocating():
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(GroupError, match="over the limit"):
            groups.build_group("generators", generators=["(0 300000000)"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20  # the image list of 3e8 points would be gigabytes


def test_p4_takes_n_as_the_number_of_points():
    assert groups.build_group("p4", n=16).shape == (4, 4)
    assert groups.build_group("p4m", n=9).order == 72
    with pytest.raises(GroupError, match="not a square"):
        groups.build_group("p4", n=10)


def test_p4_group_from_a_matrix_size(run, tmp_path):
    from gdlcheck.derivation import derive

    d = derive(groups.build_group("p4", shape="4x4"))
    np.save(tmp_path / "w.npy", np.arange(d.dimension, dtype=float)[d.pattern])
    assert run(["verify", tmp_path / "w.npy", "-g", "p4"]).exit_code == 0


def test_huge_order_in_json_is_refused_before_it_is_computed(run, monkeypatch):
    import math

    def never(n):
        raise AssertionError("1000000! was computed before its size was estimated")

    monkeypatch.setattr(math, "factorial", never)
    result = run(["groups", "symmetric", "-n", "1000000", "--format", "json"])
    assert result.exit_code == 2 and "digits" in result.stderr


def test_stdin_yaml_with_a_document_marker(run, samples):
    text = (samples / "conv.yaml").read_text()
    assert run(["verify", "-"], input="---\n" + text).exit_code == 0
    assert run(["verify", "-"], input="%YAML 1.1\n---\n" + text).exit_code == 0


def test_symbolic_matrix_size_is_bounded(run, tmp_path, monkeypatch):
    n = 300
    path = tmp_path / "sym.csv"
    path.write_text("\n".join(",".join(f"t_{(i - j) % n}" for j in range(n)) for i in range(n)))
    from gdlcheck.inputs import arrays

    parsed = []
    real = arrays.parse_expr

    def counting(text):
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(arrays, "parse_expr", counting)
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 2 and "exceeds the limit of 65536" in result.stderr
    assert parsed == ["t_0"]  # refused at the first symbol, not after parsing 90000 of them
