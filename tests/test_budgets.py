"""Every input bounded (issue 15): each row of the red team's table, refused before the work or
done within the budgets.

Budgets are tested by what they prevent, never by a duration: the expensive step is replaced
by one that fails the test, or what was built is counted.  Rows that used to hang or exhaust
the machine run as a process under a memory cap, with a timeout as a guard only (the
assertions are the exit code and the message).
"""

import json
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT, forbid, newcomer_env


def capped(args, cwd, memory=3 << 30, input=None, timeout=600):
    """gdlcheck as a process under a memory cap (address space); the timeout only guards."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = newcomer_env(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-m", "gdlcheck"] + [str(a) for a in args],
        cwd=cwd,
        env=env,
        preexec_fn=limit,
        capture_output=True,
        text=True,
        input=input,
        timeout=timeout,
    )


def in_process(run, args):
    """``capped``'s result from click's runner in this process (``run``, the conftest fixture):
    for a refusal whose point is the message and the exit code, where no cap or hang needs a
    process of its own."""
    result = run(args)
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def one_line(result, code, fragment):
    assert result.returncode == code, (result.returncode, result.stdout[-300:], result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    if code == 2:
        assert result.stderr.startswith("gdlcheck: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert fragment in result.stderr + result.stdout


# --------------------------------------------------------------------------- expressions


@pytest.mark.slow
@pytest.mark.parametrize(
    "entry, fragment",
    [
        ("exp(exp(exp(20)))", "cannot be evaluated"),  # hung in mpmath's evalf
        ("sin(exp(exp(15)))", "cannot be evaluated"),
        ("a*sin(exp(exp(15))) - a", "cannot be evaluated"),  # hung inside sympy's own arithmetic
        ("((10**9999*a)**64)**64", "digits"),  # the power budget checked each ** alone
        ("((a+b)**64)**64", "fold into exponent 4096"),
        ("(17*a)**((17*a)**(17*a))", "tower of symbolic exponents"),
        ("10**9999*10**9999", "digits"),
    ],
)
def test_expressions_cannot_make_unbounded_work(tmp_path, entry, fragment):
    (tmp_path / "m.csv").write_text(f"{entry},1\n1,2\n")
    one_line(capped(["verify", "m.csv", "-g", "cyclic"], tmp_path), 2, fragment)


def test_one_symbolic_budget_for_the_whole_check(monkeypatch, tmp_path):
    # 16 pairs of entries that are equal only by sin^2 + cos^2 = 1: the same difference,
    # decided once (it took 5 s per pair: 83 s for a 4 x 4 matrix)
    import sympy

    calls = []
    real = sympy.trigsimp

    def counting(e, *args, **kwargs):
        calls.append(e)
        return real(e, *args, **kwargs)

    monkeypatch.setattr(sympy, "trigsimp", counting)
    e = "(a+b+c+d)**12*(sin(e)**2+cos(e)**2)"
    f = "(a+b+c+d)**12"
    import gdlcheck

    W = [[e if (4 * i + j) % 3 else f for j in range(4)] for i in range(4)]
    r = gdlcheck.verify(W, "cyclic", method="exact")
    assert r.verdict == "holds"
    assert len(calls) == 1


def test_a_symbolic_check_past_its_budget_is_undecided_not_a_verdict(monkeypatch):
    import gdlcheck
    from gdlcheck.verification import symbolic
    from gdlcheck.verification.measure import weights

    monkeypatch.setattr(weights, "Budget", lambda: symbolic.Budget(ops=0))
    r = gdlcheck.verify([["sin(a)**2 + cos(a)**2", 0], [0, 1]], "cyclic", method="exact")
    assert r.verdict == "inconclusive"
    assert r.to_json()["checks"][0]["note"].startswith("undecided: the whole check's symbolic budget")


def test_the_symbolic_budget_decides_the_same_off_the_main_thread(samples, monkeypatch):
    # the budget counts operations, not seconds: a check run in a worker thread (where the
    # wall-clock guard cannot interrupt) gets the same verdicts, undecided ones included
    import threading

    import gdlcheck
    from gdlcheck.verification import symbolic
    from gdlcheck.verification.measure import weights

    trig = [["(a+b)**12*(sin(e)**2+cos(e)**2)" if (i + j) % 2 else "(a+b)**12" for j in range(4)] for i in range(4)]

    def verdicts():
        out = [
            gdlcheck.verify(str(samples / "layer.yaml")).to_json(),
            gdlcheck.verify(trig, "cyclic", method="exact").to_json(),
        ]
        monkeypatch.setattr(weights, "Budget", lambda: symbolic.Budget(ops=0))
        out.append(gdlcheck.verify([["sin(a)**2 + cos(a)**2", 0], [0, 1]], "cyclic", method="exact").to_json())
        monkeypatch.undo()
        return out

    main = verdicts()
    worker: list = []
    thread = threading.Thread(target=lambda: worker.extend(verdicts()))
    thread.start()
    thread.join()
    assert [v["verdict"] for v in main] == ["holds", "holds", "inconclusive"]
    assert worker == main


# --------------------------------------------------------------------------- generated groups


def _cycle(points) -> str:
    return "(" + " ".join(map(str, points)) + ")"


def test_a_generated_symmetric_group_is_recognised_not_schreier_sims(run, tmp_path, monkeypatch):
    from sympy.combinatorics import PermutationGroup

    forbid(monkeypatch, PermutationGroup, "order", "Schreier-Sims")
    spec = tmp_path / "s100.yaml"  # 399 bytes: 149 s
    spec.write_text(
        'symmetry: {group: generators, n: 100, generators: ["(0 1)", "%s"]}\n'
        "layer: {kind: deepsets, alpha: 1, beta: 2}\n" % _cycle(range(100))
    )
    result = run(["verify", spec, "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["group"]["order"] == str(__import__("math").factorial(100))
    result = run(
        ["groups", "generators", "--generators", "(0 1 2)", "--generators", _cycle(range(1001)), "--format", "json"]
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["order"] == str(__import__("math").factorial(1001) // 2)  # A_1001


def test_derive_of_a_recognised_group_takes_the_closed_form(run, monkeypatch):
    from gdlcheck.derivation import basis, cells

    forbid(monkeypatch, cells, "orbit_labels", "the general orbit search")
    forbid(monkeypatch, basis, "tuple_orbits", "the general orbit search")
    result = run(
        [
            "derive",
            "-g",
            "generators",
            "--generators",
            "(0 1)",
            "--generators",
            _cycle(range(64)),
            "--in-order",
            "2",
            "--out-order",
            "2",
        ]
    )
    assert result.exit_code == 0 and "Bell(4) = 15" in result.stdout


def test_an_unrecognised_group_past_the_schreier_sims_budget_is_not_computed(run, monkeypatch):
    from sympy.combinatorics import PermutationGroup

    forbid(monkeypatch, PermutationGroup, "order", "Schreier-Sims")
    halves = "".join(_cycle([i, i + 64]) for i in range(64))  # two commuting involutions on 128 points
    swaps = "".join(_cycle([2 * i, 2 * i + 1]) for i in range(64))
    args = ["groups", "generators", "--generators", halves, "--generators", swaps]
    obj = json.loads(run(args + ["--format", "json"]).stdout)
    assert obj["order"] is None and obj["order_note"].startswith("not computed")
    assert "not computed" in run(args).stdout


@pytest.mark.slow
def test_the_general_orbits_at_the_cell_budget_fit_in_about_twice_the_pattern(tmp_path):
    # 90^4 = 65.6M cells (a 250 MiB int32 pattern) of a group that is not recognised: the
    # components over all cells held two such arrays and more (exit 70 under this cap)
    import random

    rng = random.Random(1)
    points = list(range(90))
    rng.shuffle(points)
    args = [
        "derive",
        "-g",
        "generators",
        "--generators",
        "(0 1)",
        "--generators",
        _cycle(points),
        "--in-order",
        "2",
        "--out-order",
        "2",
    ]
    result = capped(args, tmp_path, memory=640 << 20)
    assert result.returncode == 0, result.stderr
    assert "65610000 -> 1279" in result.stdout


@pytest.mark.parametrize("n", [5, 6, 7])
def test_recognition_is_sound_against_schreier_sims(n):
    import math
    import random

    from sympy.combinatorics import Permutation, PermutationGroup

    from gdlcheck.groups.recognise import recognise

    rng = random.Random(n)
    for _ in range(40):
        gens = []
        for _ in range(rng.randint(1, 3)):
            p = list(range(n))
            rng.shuffle(p)
            if rng.random() < 0.3:
                p = list(range(n))
                a, b = rng.sample(range(n), 2)
                p[a], p[b] = p[b], p[a]
            gens.append(p)
        found = recognise(n, gens)
        order = PermutationGroup([Permutation(g) for g in gens]).order()
        if found == "symmetric":
            assert order == math.factorial(n)
        elif found == "alternating":
            assert order == math.factorial(n) // 2


# --------------------------------------------------------------------------- products of budgets


def test_symbolic_entries_count_after_expanding_n_x_n_layers(run, tmp_path, monkeypatch):
    from gdlcheck.layers import linear

    forbid(monkeypatch, linear, "identity_plus_ones", "building alpha*I + beta*11^T")
    forbid(monkeypatch, linear, "circulant", "building the circulant")
    spec = tmp_path / "s.yaml"
    spec.write_text("symmetry: {group: symmetric, n: 1000}\nlayer: {kind: deepsets, alpha: a, beta: b}\n")
    result = run(["verify", spec])
    assert result.exit_code == 2 and "symbolic weights would have 1000000 entries" in result.stderr
    spec.write_text("symmetry: {group: cyclic, n: 8192}\nlayer: {kind: conv, kernel: [a, b]}\n")
    result = run(["verify", spec])
    assert result.exit_code == 2 and "symbolic weights would have" in result.stderr


def test_the_layers_of_a_spec_count_together(run, tmp_path, monkeypatch):
    from gdlcheck.layers import linear

    built = []
    real = linear.circulant

    def counting(kernel, shape):
        built.append(shape)
        return real(kernel, shape)

    monkeypatch.setattr(linear, "circulant", counting)
    spec = tmp_path / "alias.yaml"  # ten 8192^2 convolutions through one YAML alias
    spec.write_text(
        "symmetry: {group: cyclic, n: 8192}\nlayer:\n  - &c {kind: conv, kernel: [1, 2]}\n" + "  - *c\n" * 9
    )
    result = run(["verify", spec])
    assert result.exit_code == 2 and "entries together" in result.stderr
    assert len(built) <= 1  # the second is refused before it is built
    ones = tmp_path / "deepsets.yaml"
    ones.write_text(
        "symmetry: {group: symmetric, n: 4096}\nlayer:\n" + "  - {kind: deepsets, alpha: 1, beta: 2}\n" * 21
    )
    made = []
    real_ones = linear.identity_plus_ones

    def counting_ones(alpha, beta, n):
        made.append(n)
        return real_ones(alpha, beta, n)

    monkeypatch.setattr(linear, "identity_plus_ones", counting_ones)
    result = run(["verify", ones])
    assert result.exit_code == 2 and "entries together" in result.stderr
    assert len(made) == 8  # 8 x 4096^2 fit in 2^27 entries; the 9th is refused before it is built


@pytest.mark.parametrize(
    "spec, args, fragment",
    [
        # the proof needs no n x n matrix (auto proves it at once); the trials do
        (
            "symmetry: {group: symmetric, n: 20000}\nlayer: {kind: attention, wq: [[1]], wk: [[1]], wv: [[1]]}\n",
            ["--method", "numeric"],
            "n x n matrices at n = 20000",
        ),
        (
            "symmetry: {group: symmetric, n: 8}\nchannels: 100000\nlayer: {kind: mlp, weights: [{random: [100000, 100000]}]}\n",
            [],
            "exceed the limit",
        ),
        ("layer: {kind: pointwise, activation: tanh}\n", ["-n", "100000"], "inspecting at n = 100000"),
    ],
)
def test_products_of_sizes_are_refused_before_the_trials(run, tmp_path, monkeypatch, spec, args, fragment):
    from gdlcheck import inspection
    from gdlcheck.verification import pipeline

    forbid(monkeypatch, pipeline, "trial_residuals", "the numeric trials")
    forbid(monkeypatch, inspection, "_aggregating", "measuring G")
    path = tmp_path / "s.yaml"
    path.write_text(spec)
    command = ["inspect"] if "-n" in args else ["verify"]
    result = run(command + [path] + args)
    assert result.exit_code == 2 and fragment in result.stderr, result.stderr


def test_trials_times_the_forward_pass_is_one_budget(run, tmp_path, monkeypatch):
    from gdlcheck.verification import pipeline

    forbid(monkeypatch, pipeline, "trial_residuals", "the numeric trials")
    n = 4096
    theta = np.arange(n, dtype=float)
    np.save(tmp_path / "w.npy", theta[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n])
    result = run(["verify", tmp_path / "w.npy", "-g", "cyclic", "--trials", "10000"])
    assert result.exit_code == 2 and "the numeric check would take about" in result.stderr
    assert "--trials" in result.stderr


def test_a_sequence_of_symbolic_matrices_is_not_composed_past_its_budget(tmp_path):
    import gdlcheck
    from gdlcheck.errors import LimitError

    spec = {
        "symmetry": {"group": "cyclic", "n": 128},
        "layer": [{"kind": "conv", "kernel": ["a", "b"]}, {"kind": "conv", "kernel": ["c", "d"]}],
    }
    with pytest.raises(LimitError, match="composing the sequence's symbolic matrices"):
        gdlcheck.verify(spec)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (
            ["derive", "-g", "trivial", "-n", "4096", "--format", "json"],
            "json output of the pattern would have 16777216",
        ),
        (
            ["derive", "-g", "trivial", "-n", "9", "--in-order", "4", "--out-order", "4", "--format", "json"],
            "json output of the pattern would have 43046721",
        ),
        (["derive", "-g", "trivial", "-n", "8192", "--format", "csv"], "csv output of the pattern"),
    ],
)
def test_output_size_is_a_budget(run, monkeypatch, args, fragment):
    from gdlcheck.derivation import basis, cells

    forbid(monkeypatch, cells, "orbit_labels", "the orbit search")
    forbid(monkeypatch, basis, "tuple_orbits", "the orbit search")
    forbid(monkeypatch, cells, "full_labels", "writing the pattern")
    result = run(args)
    assert result.exit_code == 2 and fragment in result.stderr


def test_a_derivations_sympy_matrix_is_a_budget(monkeypatch):
    import gdlcheck
    from gdlcheck.derivation import sharing
    from gdlcheck.errors import LimitError

    forbid(monkeypatch, sharing, "parse_expr", "building the sympy entries")
    d = gdlcheck.derive(gdlcheck.group("cyclic", n=257))
    with pytest.raises(LimitError, match="a 257 x 257 sympy matrix has 66049 entries, over the limit of 65536"):
        _ = d.matrix


# --------------------------------------------------------------------------- reading


def _npy(header: str) -> bytes:
    import struct

    text = header + " " * (118 - len(header) - 10) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()


@pytest.mark.parametrize(
    "header, fragment",
    [
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", "1000000000000 entries"),
        ("{'descr': '|V2000000000', 'fortran_order': False, 'shape': (1, 1), }", "is not real numbers"),
        ("{'descr': '<f8', 'fortran_order': False, 'shape': (4, 4), }", "the header says 16 entries"),
    ],
)
def test_npy_headers_are_checked_before_any_allocation(run, tmp_path, monkeypatch, header, fragment):
    from gdlcheck.inputs import matrices

    forbid(monkeypatch, matrices.np, "frombuffer", "reading the data")
    path = tmp_path / "h.npy"
    path.write_bytes(_npy(header))
    result = run(["verify", path, "-g", "cyclic"])
    assert result.exit_code == 2 and fragment in result.stderr and result.stderr.count("\n") == 1


def test_text_entries_are_counted_before_they_are_parsed(run, tmp_path, monkeypatch):
    from gdlcheck.inputs import matrices, tables

    for module in (matrices, tables):  # the JSON reader's limit and the text tables'
        monkeypatch.setattr(module, "MAX_MATRIX_ENTRIES", 1000)
    forbid(monkeypatch, matrices.np, "loadtxt", "parsing the entries")
    forbid(monkeypatch, matrices, "to_array", "parsing the entries")
    (tmp_path / "big.csv").write_text(("1," * 39 + "1\n") * 40)
    result = run(["verify", tmp_path / "big.csv", "-g", "cyclic"])
    assert result.exit_code == 2 and "40 rows of 40 entries are 1600 entries" in result.stderr
    (tmp_path / "big.json").write_text(json.dumps([[0] * 40] * 40))
    result = run(["verify", tmp_path / "big.json", "-g", "cyclic"])
    assert result.exit_code == 2 and "1600 entries" in result.stderr
    result = run(["verify", "-", "-g", "cyclic"], input=("1," * 39 + "1\n") * 40)
    assert result.exit_code == 2 and "1600 entries" in result.stderr


def test_a_large_plain_matrix_is_read_without_an_object_per_entry(run, tmp_path, monkeypatch):
    from gdlcheck.inputs import matrices

    forbid(monkeypatch, matrices, "to_array", "entry-by-entry parsing")
    forbid(monkeypatch, matrices.json, "loads", "json.loads")
    n = 512
    theta = np.arange(n) % 7
    W = theta[(np.arange(n)[:, None] - np.arange(n)[None, :]) % n]
    (tmp_path / "w.csv").write_text("\n".join(",".join(map(str, row)) for row in W.tolist()) + "\n")
    (tmp_path / "w.json").write_text(json.dumps(W.tolist()))
    (tmp_path / "w.txt").write_text("\n".join(" ".join(map(str, row)) for row in W.tolist()) + "\n")
    for name in ("w.csv", "w.json", "w.txt"):
        assert run(["verify", tmp_path / name, "-g", "cyclic", "-q"]).exit_code == 0, name


def test_a_large_matrix_with_an_expression_is_refused_at_that_entry(run, tmp_path):
    rows = [["1"] * 300 for _ in range(300)]
    rows[7][3] = "a"
    (tmp_path / "m.csv").write_text("\n".join(",".join(r) for r in rows) + "\n")
    result = run(["verify", tmp_path / "m.csv", "-g", "cyclic"])
    assert result.exit_code == 2 and "entry [7, 3]" in result.stderr and "exceeds the limit of 65536" in result.stderr
    rows[7][3] = "nan"
    (tmp_path / "m.csv").write_text("\n".join(",".join(r) for r in rows) + "\n")
    result = run(["verify", tmp_path / "m.csv", "-g", "cyclic"])
    assert result.exit_code == 2 and "entry [7, 3]" in result.stderr and "is nan" in result.stderr


@pytest.mark.parametrize("depth", [500, 700, 990, 5000])
def test_deep_json_is_refused_without_recursion(run, tmp_path, monkeypatch, depth):
    from gdlcheck.inputs import matrices

    forbid(monkeypatch, matrices.json, "loads", "json.loads")
    (tmp_path / "deep.json").write_text("[" * depth + "1" + "]" * depth)
    result = run(["verify", tmp_path / "deep.json", "-g", "cyclic"])
    assert result.exit_code == 2 and f"JSON nested {depth} deep" in result.stderr


def test_yaml_is_refused_by_size_before_it_is_composed(run, tmp_path, monkeypatch):
    import yaml

    forbid(monkeypatch, yaml, "compose", "composing the YAML")
    spec = tmp_path / "nodes.yaml"  # 3e6 nodes in 6 MB
    spec.write_text("layer: {kind: linear, weight: [" + ",".join(["1"] * 3_000_000) + "]}\n")
    result = run(["verify", spec, "-g", "cyclic"])
    assert result.exit_code == 2 and "YAML document of about 300000" in result.stderr
    assert "nodes exceeds the limit of 250000" in result.stderr
    big = tmp_path / "binary.yaml"
    big.write_text("layer: !!binary " + "A" * (9 * 2**20) + "\n")
    result = run(["verify", big, "-g", "cyclic"])
    assert result.exit_code == 2 and "characters exceeds the limit" in result.stderr


# --------------------------------------------------------------------------- symmetries at scale


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["circulant", "ones", "random"])
def test_symmetries_at_4096_within_four_times_the_matrix(tmp_path, kind):
    n = 4096
    rng = np.random.default_rng(0)
    t = np.arange(n)
    W = {
        "circulant": lambda: rng.standard_normal(n)[(t[:, None] - t[None, :]) % n],
        "ones": lambda: np.ones((n, n)),
        "random": lambda: rng.standard_normal((n, n)),
    }[kind]()
    np.save(tmp_path / "w.npy", W)
    del W
    # the address-space cap: 4 x the matrix (512 MiB) and the interpreter with numpy, sympy and igraph
    result = capped(["symmetries", "w.npy", "--format", "json"], tmp_path, memory=(4 << 29) + (1 << 30))
    assert result.returncode == 0, result.stderr
    obj = json.loads(result.stdout)
    expected = {"circulant": 4096, "ones": None, "random": 1}[kind]
    if expected is not None:
        assert obj["group"]["order"] == expected
    else:
        assert "symmetric" in obj["contains"]


@pytest.mark.slow
def test_symmetries_past_4096_points_is_computed_not_refused(tmp_path):
    # n > 4096 was refused with a message about the alternating group's generators
    n = 4097
    np.save(tmp_path / "ones.npy", np.ones((n, n)))
    np.save(tmp_path / "random.npy", np.random.default_rng(0).standard_normal((n, n)))
    obj = json.loads(capped(["symmetries", "ones.npy", "--format", "json"], tmp_path).stdout)
    assert {"symmetric", "alternating"} <= set(obj["contains"])
    result = capped(["symmetries", "random.npy", "--format", "json"], tmp_path)
    assert result.returncode == 0 and json.loads(result.stdout)["group"]["order"] == 1


class _Terminal:
    """A standard error that says it is a terminal, and keeps what is written to it."""

    def __init__(self, tty: bool = True):
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("tty, elapsed, shown", [(True, 3.0, True), (True, 1.0, False), (False, 3.0, False)])
def test_progress_shows_on_a_terminal_after_two_seconds_only(monkeypatch, tty, elapsed, shown):
    import time

    from gdlcheck.cli.common import Progress

    terminal = _Terminal(tty)
    monkeypatch.setattr(sys, "stderr", terminal)
    progress = Progress("symmetries")
    start = progress.start
    monkeypatch.setattr(time, "monotonic", lambda: start + elapsed)
    progress("base point 1")
    progress.done()
    if shown:  # one line, overwritten and cleared at the end
        assert terminal.text == "\r\x1b[Kgdlcheck: symmetries: base point 1 (3 s)\r\x1b[K"
    else:
        assert terminal.text == ""


def test_progress_never_goes_with_json(run, samples, monkeypatch):
    from gdlcheck.cli import symmetries

    made = []

    class Recording:
        def __init__(self, what):
            made.append(what)

        def __call__(self, step):
            made.append(step)

        def done(self):
            pass

    monkeypatch.setattr(symmetries, "Progress", Recording)
    assert run(["symmetries", samples / "petersen.csv", "--format", "json"]).exit_code == 0
    assert made == []
    assert run(["symmetries", samples / "petersen.csv"]).exit_code == 0
    assert made[0] == "symmetries" and "the catalogue groups inside" in made


def test_symmetries_past_the_bliss_budget_is_refused_with_the_estimate(monkeypatch):
    import gdlcheck
    from gdlcheck.errors import LimitError
    from gdlcheck.groups import automorphisms, layered

    monkeypatch.setattr(
        automorphisms, "refinement_search", lambda C, progress=None, compacted=False, max_cells=None: None
    )
    forbid(monkeypatch, layered, "layered_graph", "building the layered graph")
    n = 1500
    t = np.arange(n)
    W = np.random.default_rng(0).standard_normal(n)[(t[:, None] - t[None, :]) % n]
    with pytest.raises(LimitError, match="layered graph of about"):
        gdlcheck.find_symmetries(W)


@pytest.mark.parametrize("n", [6, 12, 30])
def test_the_refinement_search_agrees_with_bliss(n):
    from gdlcheck.groups.colours import colour_classes
    from gdlcheck.groups.layered import count_automorphisms, layered_graph
    from gdlcheck.groups.perm import fixes
    from gdlcheck.groups.refinement import refinement_search

    rng = np.random.default_rng(n)
    t = np.arange(n)
    mats = [
        rng.standard_normal(n)[(t[:, None] - t[None, :]) % n],  # cyclic
        rng.standard_normal(n)[np.minimum((t[:, None] - t[None, :]) % n, (t[None, :] - t[:, None]) % n)],  # dihedral
        rng.integers(0, 3, size=(n, n)).astype(float),
    ]
    for W in mats:
        C = colour_classes(W)
        found = refinement_search(C)
        graph, colours = layered_graph(C)
        if found is None or graph is None:
            continue
        assert found[1] == count_automorphisms(graph, colours)
        assert all(fixes(g, C) for g in found[0])


# --------------------------------------------------------------------------- files are data


@pytest.mark.slow
def test_a_fifo_is_refused_before_open(tmp_path):
    os.mkfifo(tmp_path / "f.csv")
    (tmp_path / "s.yaml").write_text("symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: {file: f.csv}}\n")
    for args in (
        ["verify", "f.csv", "-g", "cyclic"],
        ["verify", "s.yaml"],
        ["verify", str(ROOT / "samples" / "dense.csv"), "-g", "automorphisms", "--graph", "f.csv"],
    ):
        one_line(capped(args, tmp_path), 2, "is a FIFO, not a regular file")


def test_a_spec_reads_only_files_in_its_folder(run, tmp_path, monkeypatch):
    from gdlcheck.layers import build

    (tmp_path / "secret.txt").write_text("API_KEY=sk-0123456789abcdefghijklmnop\n")
    sub = tmp_path / "spec"
    sub.mkdir()
    (sub / "link.csv").symlink_to(tmp_path / "secret.txt")
    cases = {
        "up.yaml": "../secret.txt",
        "abs.yaml": str(tmp_path / "secret.txt"),
        "link.yaml": "link.csv",
        "missing.yaml": "../no/such.csv",
    }
    real = build.load_matrix
    forbid(monkeypatch, build, "load_matrix", "reading a file outside the spec's folder")
    for name, target in cases.items():
        (sub / name).write_text(
            "symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: {file: '%s'}}\n" % target
        )
        result = run(["verify", sub / name])
        assert result.exit_code == 2 and "is outside the spec's folder" in result.stderr, name
        assert "no such file" not in result.stderr  # nothing said about what exists there
    monkeypatch.setattr(build, "load_matrix", real)
    result = run(["verify", sub / "up.yaml", "--allow-path", tmp_path])
    assert result.exit_code == 2 and "cannot parse expression" in result.stderr
    assert "0123456789" not in result.stderr  # a short token of the content at most


def test_the_api_confines_files_too(tmp_path):
    import gdlcheck
    from gdlcheck.errors import SpecError

    (tmp_path / "w.csv").write_text("1,2\n2,1\n")
    sub = tmp_path / "spec"
    sub.mkdir()
    (sub / "s.yaml").write_text("symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: {file: ../w.csv}}\n")
    with pytest.raises(SpecError, match="outside the spec's folder"):
        gdlcheck.verify(str(sub / "s.yaml"))
    assert gdlcheck.verify(str(sub / "s.yaml"), allow_paths=[tmp_path]).verdict == "holds"


def _spy_on_sympy(monkeypatch, names) -> list:
    """Record each call of ``sympy.<name>`` (a spy, not a raise: sympy_call would read a raise as
    'sympy could not decide')."""
    import sympy

    calls: list = []
    for name in names:
        real = getattr(sympy, name)
        monkeypatch.setattr(sympy, name, lambda *a, real=real, name=name, **k: calls.append(name) or real(*a, **k))
    return calls


def test_a_difference_too_large_for_simplify_is_undecided_by_its_size_before_sympy_runs(monkeypatch):
    """No clock decides a comparison: one difference past SIMPLIFY_FUNCTIONS_EACH function
    applications is undecided by size, and simplify and trigsimp are never called for it. The same
    identity with fewer functions is decided by them."""
    import sympy

    from gdlcheck.limits import SIMPLIFY_FUNCTIONS_EACH
    from gdlcheck.verification import symbolic

    a, e = sympy.symbols("a e")
    one = sympy.sin(e) ** 2 + sympy.cos(e) ** 2
    calls = _spy_on_sympy(monkeypatch, ["simplify", "trigsimp"])
    small = symbolic.Budget()
    assert symbolic.equal_exactly(a * one, a, small) is True and calls
    nested = sympy.Symbol("x")
    for _ in range(SIMPLIFY_FUNCTIONS_EACH):
        nested = sympy.tanh(nested)
    assert symbolic.function_applications(a * one * nested, 100) == SIMPLIFY_FUNCTIONS_EACH + 2
    calls.clear()
    large = symbolic.Budget()
    assert symbolic.equal_exactly(a * one * nested, a * nested, large) is None
    assert calls == [] and large.detail == "simplify_size" and not large.exhausted


def test_a_matrix_past_the_size_of_simplify_is_inconclusive_the_same_way_every_time(monkeypatch):
    """Through verify: the note says the size refused it, and two runs give the same JSON."""
    import gdlcheck

    calls = _spy_on_sympy(monkeypatch, ["simplify", "trigsimp"])
    hard = "a*(sin(e)**2 + cos(e)**2)*tanh(tanh(tanh(tanh(x))))"
    W = [[hard, 0], [0, "a*tanh(tanh(tanh(tanh(x))))"]]
    first = gdlcheck.verify(W, "cyclic", method="exact").to_json()
    assert first["verdict"] == "inconclusive"
    assert first["checks"][0]["note"].startswith("undecided by size: a difference of over")
    assert gdlcheck.verify(W, "cyclic", method="exact").to_json() == first
    assert calls == []


def test_constraints_with_huge_numbers_are_shown_unsolved_without_sympy_solve(monkeypatch):
    """(a + E)**2 = 10**5000 kept sympy.solve busy for minutes (the hang guard's clock then
    decided what was printed); a number past SOLVE_NUMBER_BITS keeps the equations as they are."""
    import sympy

    from gdlcheck.verification import symbolic

    a, b, E = sympy.symbols("a b E")
    calls = _spy_on_sympy(monkeypatch, ["solve"])
    huge = [(a + E) ** 2 - sympy.Integer(10) ** 5000, b * E - a]
    assert symbolic.number_bits(huge[0]) > 16_000
    assert symbolic.solve_constraints(huge) == ([f"{symbolic.safe_str(e)} = 0" for e in huge], False)
    assert calls == []
    assert symbolic.solve_constraints([a - b]) == (["a = b"], False) and calls == ["solve"]


def test_no_verdict_waits_on_a_clock():
    """The house's rule (same input -> same output on an idle and a loaded machine): gdlcheck sets
    no alarm and no interval timer anywhere (the boundary only reads which handlers the code set)."""
    for path in sorted((ROOT / "gdlcheck").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for word in ("signal.SIGALRM,", "setitimer(", "signal.alarm("):
            assert word not in text, f"{path.relative_to(ROOT)} uses {word}"


def test_each_layer_estimates_its_own_forward_pass():
    # the numeric check's budget asks the layer; no kind is named outside its class
    from gdlcheck.layers import Layer
    from gdlcheck.layers.base import Fact
    from gdlcheck.layers.linear import Conv, Linear
    from gdlcheck.layers.rowwise import Pointwise

    n, d = 10, 3
    assert Linear(np.eye(n)).pass_cost(n, d) == n * d + n * n * d  # W X: n x n times X
    assert Conv(np.array([1.0, 2.0]), n).pass_cost(n, d) == n * d + n * n * d
    assert Pointwise("relu").pass_cost(n, d) == n * d  # elementwise only
    assert Layer().pass_cost(n, d) is None  # not built by gdlcheck: not estimated
    assert Conv(np.array([1.0, 2.0]), n).asymmetries() == [Fact("kernel")]
