"""Tensor orders 0..4, the set-partition (Bell) basis, channels, formats and explanations."""

import io
import json

import numpy as np
import pytest

from gdlcheck import groups
from gdlcheck.derivation import derive, orbit_labels, orbitals
from gdlcheck.output.explain import explain


def commutes(basis_element, s, out_order):
    """T[s(i1), .., s(jk)] == T[i1, .., jk] for one basis element (output indices first)."""
    s = np.asarray(s)
    moved = np.empty_like(basis_element)
    moved[np.ix_(*([s] * basis_element.ndim))] = basis_element
    return np.array_equal(moved, basis_element)


@pytest.mark.parametrize(
    "n, in_order, out_order, dimension",
    [
        (4, 2, 2, 15),
        (5, 2, 2, 15),
        (6, 2, 2, 15),
        (3, 2, 2, 14),
        (2, 2, 2, 8),
        (4, 2, 1, 5),
        (4, 1, 2, 5),
        (3, 2, 1, 5),
        (2, 2, 1, 4),
        (4, 2, 0, 2),
        (4, 0, 2, 2),
        (4, 1, 0, 1),
        (4, 0, 0, 1),
        (5, 3, 1, 15),
        (6, 3, 3, 203),
    ],
)
def test_symmetric_basis_counts_are_bell_numbers(n, in_order, out_order, dimension):
    g = groups.symmetric(n)
    d = derive(g, in_order, out_order)
    assert d.dimension == dimension
    if n ** (in_order + out_order) <= 5000:
        assert np.array_equal(d.pattern, orbit_labels(g, in_order + out_order))


def test_partitions_name_the_basis_elements():
    d = derive(groups.symmetric(5), 2, 2)
    assert d.partitions[0] == "{0,1,2,3}" and d.partitions[-1] == "{0}{1}{2}{3}"
    assert "{0,2}{1,3}" in d.partitions
    k = d.partitions.index("{0,2}{1,3}")  # i1 = j1, i2 = j2, i1 != i2: the identity map off the diagonal
    assert d.pattern[1, 2, 1, 2] == k and d.pattern[1, 1, 1, 1] != k
    assert derive(groups.symmetric(3), 1, 1).partitions == ["{0,1}", "{0}{1}"]


@pytest.mark.parametrize(
    "g, in_order, out_order",
    [
        (groups.symmetric(4), 2, 2),
        (groups.symmetric(3), 1, 2),
        (groups.cyclic(4), 2, 2),
        (groups.dihedral(4), 2, 1),
        (groups.build_group("p4", shape="2x2"), 2, 2),
        (groups.alternating(4), 2, 1),
        (groups.trivial(2), 2, 2),
    ],
)
def test_every_basis_element_commutes_with_the_generators(g, in_order, out_order):
    d = derive(g, in_order, out_order)
    B = d.basis
    assert B.shape == (d.dimension,) + (g.n,) * (in_order + out_order)
    assert np.array_equal(B.sum(axis=0), np.ones(B.shape[1:], dtype=B.dtype))  # a partition of the cells
    for element in B:
        assert all(commutes(element, s, out_order) for s in g.gens)


def test_alternating_higher_orders_agree_with_the_reference():
    for n, (k, l) in [(5, (2, 1)), (4, (2, 1)), (5, (1, 1)), (6, (2, 2))]:
        g = groups.alternating(n)
        assert np.array_equal(derive(g, k, l).pattern, orbit_labels(g, k + l))


def test_cyclic_orders_count_by_burnside():
    g = groups.cyclic(5)
    for m in range(0, 5):
        k = m // 2
        d = derive(g, k, m - k)
        elements = g.elements()
        burnside = sum(sum(1 for i, x in enumerate(e) if i == x) ** m for e in elements) // len(elements)
        assert d.dimension == burnside


def test_closed_forms_give_the_reference_partition():
    for g in (groups.cyclic(7), groups.dihedral(7), groups.symmetric(5), groups.trivial(3), groups.alternating(5)):
        fast, slow = derive(g).pattern, orbit_labels(g, 2)
        # same partition (cyclic/dihedral number by offset, the others by first appearance)
        pairs = set(zip(fast.ravel().tolist(), slow.ravel().tolist()))
        assert len(pairs) == fast.max() + 1 == slow.max() + 1
    i, j = np.indices((7, 7))
    assert np.array_equal(derive(groups.cyclic(7)).pattern, (i - j) % 7)
    assert np.array_equal(derive(groups.symmetric(5)).pattern, 1 - np.eye(5, dtype=int))


def test_general_fast_path_equals_reference_on_intransitive_groups():
    g = groups.from_generators(7, ["(0 1 2)", "(3 4)(5 6)", "(3 5)"])
    assert np.array_equal(orbitals(g), orbit_labels(g, 2))
    assert np.array_equal(derive(g).pattern, orbit_labels(g, 2))


def test_channels_count_parameters_and_show_the_block_form(run):
    d = derive(groups.symmetric(4), 2, 2, channels_in=3, channels_out=2)
    assert d.free_parameters == 15 * 3 * 2
    assert d.unconstrained_parameters == (16 * 2) * (16 * 3)
    result = run(["derive", "-g", "cyclic", "-n", "6", "--channels-in", "3", "--channels-out", "4"])
    assert result.exit_code == 0 and "B_o (x) Theta_o" in result.stdout and "36 x 24" not in result.stdout
    obj = json.loads(
        run(
            ["derive", "-g", "cyclic", "-n", "6", "--channels-in", "3", "--channels-out", "4", "--format", "json"]
        ).stdout
    )
    assert obj["free_parameters"] == 6 * 3 * 4 and obj["unconstrained_parameters"] == (6 * 4) * (6 * 3)


def test_json_pattern_has_the_tensor_shape(run):
    obj = json.loads(
        run(["derive", "-g", "symmetric", "-n", "3", "--in-order", "2", "--out-order", "1", "--format", "json"]).stdout
    )
    assert obj["dimension"] == 5 and np.array(obj["pattern"]).shape == (3, 3, 3)
    assert len(obj["partitions"]) == 5 and "matrix" not in obj


def test_npy_basis_is_independent_and_equivariant(run, tmp_path):
    out = tmp_path / "basis.npy"
    result = run(["derive", "-g", "p4", "--shape", "3x3", "--format", "npy", "-o", out])
    assert result.exit_code == 0, result.stderr
    B = np.load(out)
    g = groups.build_group("p4", shape="3x3")
    assert B.shape[1:] == (9, 9)
    assert np.linalg.matrix_rank(B.reshape(len(B), -1).astype(float)) == len(B)
    for element in B:
        assert all(commutes(element, s, 1) for s in g.gens)
    result = run(["derive", "-g", "symmetric", "-n", "3", "--in-order", "2", "--out-order", "2", "--format", "npy"])
    B = np.load(io.BytesIO(result.stdout_bytes))
    assert B.shape == (14, 3, 3, 3, 3)
    assert np.linalg.matrix_rank(B.reshape(14, -1).astype(float)) == 14


def test_csv_pattern_verifies_under_the_group(run):
    for args in (
        ["-g", "translations", "--shape", "3x4"],
        ["-g", "p4m", "--shape", "4x4"],
        ["-g", "dihedral", "-n", "7"],
    ):
        csv = run(["derive", *args, "--format", "csv"]).stdout
        assert run(["verify", "-", *args], input=csv).exit_code == 0


def test_latex_is_a_bmatrix_of_parameter_names(run):
    out = run(["derive", "-g", "cyclic", "-n", "3", "--format", "latex"]).stdout
    assert out.startswith("\\begin{bmatrix}") and "\\theta_{0} & \\theta_{2} & \\theta_{1}" in out
    out = run(["derive", "-g", "translations", "--shape", "2x3", "--format", "latex"]).stdout
    assert "\\theta_{0,0}" in out and "\\theta_{1,2}" in out
    big = run(["derive", "-g", "cyclic", "-n", "100", "--format", "latex"]).stdout
    assert "\\ddots" in big and big.count("\\\\") < 40
    assert run(["derive", "-g", "cyclic", "-n", "3", "--in-order", "2", "--format", "latex"]).exit_code == 2


def test_explain_writes_the_proofs_constraints():
    lines = "\n".join(explain(derive(groups.cyclic(6))))
    assert "W[i+1, j+1] = W[i, j]" in lines and "cyclic diagonals" in lines
    lines = "\n".join(explain(derive(groups.symmetric(4))))
    assert "W[0, 0] = W[1, 1]" in lines and "W[0, k] = W[1, k]" in lines and "alpha*I + beta*11^T" in lines
    lines = "\n".join(explain(derive(groups.build_group("p4", shape="3x3"))))
    assert "rotating every point by 90 degrees" in lines and "The orbits:" in lines
    lines = "\n".join(explain(derive(groups.symmetric(4), 2, 2)))
    assert "{0,2}{1,3}" in lines and "i1 = j1 != i2 = j2" in lines


def test_text_of_a_huge_symmetric_group_needs_no_pattern(run):
    result = run(["derive", "-g", "symmetric", "-n", "1000000"])
    assert result.exit_code == 0 and "alpha*I + beta*11^T" in result.stdout and "1000000!" in result.stdout


def test_size_budget_states_the_estimate(run):
    result = run(["derive", "-g", "cyclic", "-n", "20000", "--format", "json"])
    assert result.exit_code == 2 and "index cells" in result.stderr and "GiB" in result.stderr
    result = run(["derive", "-g", "cyclic", "-n", "2048", "--format", "npy", "-o", "/dev/null"])
    assert result.exit_code == 2 and "basis array" in result.stderr


def test_export_svg_saves_the_report(run, tmp_path):
    svg = tmp_path / "pattern.svg"
    result = run(["derive", "-g", "p4", "--shape", "4x4", "--export-svg", svg])
    assert result.exit_code == 0 and svg.read_text().lstrip().startswith("<svg")
    assert run(["derive", "-g", "cyclic", "-n", "3", "--format", "json", "--export-svg", svg]).exit_code == 2


@pytest.mark.parametrize(
    "name, n, in_order, out_order",
    [
        ("symmetric", 3, 2, 2),
        ("symmetric", 4, 0, 2),
        ("symmetric", 3, 2, 0),
        ("cyclic", 5, 1, 1),
        ("trivial", 2, 0, 0),
        ("dihedral", 4, 2, 1),
        ("cyclic", 3, 3, 1),
    ],
)
def test_the_json_text_is_the_json_of_the_dict(name, n, in_order, out_order):
    """derive --format json writes the pattern row by row; the text is what json.dumps writes."""
    from gdlcheck.output.report import derive_json, derive_json_text, dumps

    d = derive(groups.build_group(name, n=n), in_order=in_order, out_order=out_order)
    assert derive_json_text(d) == dumps(derive_json(d))


@pytest.mark.slow
def test_json_of_2_to_2_at_48_and_64_points(run, tmp_path):
    """The README's claim: symmetric 2 -> 2 at n = 48 and 64 has machine-readable JSON."""
    obj = json.loads(
        run(["derive", "-g", "symmetric", "-n", "48", "--in-order", "2", "--out-order", "2", "--format", "json"]).stdout
    )
    assert obj["dimension"] == 15 and np.array(obj["pattern"], dtype=np.int8).shape == (48,) * 4
    out = tmp_path / "s64.json"
    result = run(["derive", "-g", "symmetric", "-n", "64", "--in-order", "2", "--out-order", "2", "-o", out])
    assert result.exit_code == 0 and result.stderr == ""
    with open(out, encoding="ascii") as fh:
        head = fh.read(200)
        fh.seek(0, 2)
        size = fh.tell()
    assert head.startswith('{"schema_version": 1') and size > 64**4 * 3  # every cell, ", " apart


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["-g", "cyclic", "-n", "48", "--in-order", "2", "--out-order", "2"],  # basis too big, JSON fits
        ["-g", "trivial", "-n", "70", "--in-order", "2", "--out-order", "2"],  # neither
    ],
)
def test_a_refusal_names_only_a_format_that_works(run, args, tmp_path):
    """No loop of refusals: what the JSON or npy refusal suggests is accepted."""
    for fmt, other in (("json", "npy"), ("npy", "json")):
        refused = run(["derive", *args, "--format", fmt, "-o", tmp_path / f"out.{fmt}"])
        if refused.exit_code == 0:
            continue
        assert refused.exit_code == 2
        if f"--format {other}" in refused.stderr:
            assert run(["derive", *args, "--format", other, "-o", tmp_path / f"out.{other}"]).exit_code == 0
