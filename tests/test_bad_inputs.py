"""Every kind of malformed input gets exit 2 and one line naming the file, the place and the problem.

The README's table "Bad input" lists the same cases; ``test_readme_table_matches`` keeps
the two in step.
"""

import pytest

SQUARE = "symmetry: {group: cyclic, n: 3}\n"

# (what, file name, content (None: file absent), extra args, message fragment)
CASES = [
    ("empty file", "empty.yaml", "", [], "empty spec file"),
    ("empty matrix", "empty.csv", "\n", ["-g", "cyclic"], "no matrix rows"),
    ("binary garbage", "garbage.csv", "\x00\x01\x02binary", ["-g", "cyclic"], "binary data where text was expected"),
    ("invalid YAML", "invalid.yaml", "layer: [unclosed\n", [], "invalid YAML"),
    (
        "unknown key",
        "key.yaml",
        SQUARE + "layr: {kind: linear, weight: [[1]]}\n",
        [],
        "unknown key 'layr' (did you mean 'layer'?)",
    ),
    (
        "unknown layer kind",
        "kind.yaml",
        SQUARE + "layer: {kind: convolution, kernel: [1]}\n",
        [],
        "unknown layer kind 'convolution' (did you mean 'conv'?)",
    ),
    ("ragged matrix", "ragged.csv", "1,2,3\n4,5\n6,7,8\n", ["-g", "cyclic"], "row 1 has 2 entries, expected 3"),
    ("non-square matrix", "wide.csv", "1,2,3\n4,5,6\n", ["-g", "cyclic"], "matrix is 2 x 3, expected a square"),
    ("non-numeric entry", "word.csv", "1,2\n3,x y\n", ["-g", "cyclic"], "entry [1, 1]: cannot parse expression"),
    ("NaN entry", "nan.csv", "1,2\n3,nan\n", ["-g", "cyclic"], "is nan, not a finite number"),
    (
        "infinite entry",
        "inf.yaml",
        "symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [[1, .inf], [1, 1]]}\n",
        [],
        "is not finite",
    ),
    (
        "1/0",
        "div.yaml",
        'symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [[1, "1/0"], [1, 1]]}\n',
        [],
        "expression '1/0' is not finite",
    ),
    (
        "zero n",
        "n0.yaml",
        "symmetry: {group: cyclic, n: 0}\nlayer: {kind: conv, kernel: [1]}\n",
        [],
        "n must be a positive integer, got 0",
    ),
    (
        "negative n",
        "nneg.yaml",
        "symmetry: {group: cyclic, n: -3}\nlayer: {kind: conv, kernel: [1]}\n",
        [],
        "n must be a positive integer, got -3",
    ),
    (
        "kernel longer than n",
        "kernel.yaml",
        "symmetry: {group: cyclic, n: 2}\nlayer: {kind: conv, kernel: [1, 2, 3]}\n",
        [],
        "kernel has 3 entries, more than n = 2",
    ),
    (
        "weight of the wrong size",
        "size.yaml",
        SQUARE + "layer: {kind: linear, weight: [[1, 2], [2, 1]]}\n",
        [],
        "weight is 2 x 2 but the group acts on n = 3 points",
    ),
    (
        "missing {file: ...}",
        "file.yaml",
        SQUARE + "layer: {kind: linear, weight: {file: nothere.npy}}\n",
        [],
        "cannot read: no such file or directory (nothere.npy)",
    ),
    ("missing input file", "absent.csv", None, ["-g", "cyclic"], "cannot read: no such file or directory"),
    (
        "generator not a bijection",
        "bij.csv",
        "1,2,3\n3,1,2\n2,3,1\n",
        ["-g", "generators", "--generators", "[0, 0, 1]"],
        "is not a bijection: 0 appears twice and 2 is missing",
    ),
    (
        "overlapping cycles",
        "overlap.yaml",
        'symmetry: {group: generators, n: 3, generators: ["(0 1)(1 2)"]}\nlayer: {kind: linear, weight: [[1,2,3],[3,1,2],[2,3,1]]}\n',
        [],
        "point 1 appears in more than one place; cycles must be disjoint",
    ),
    (
        "generator out of range",
        "range.csv",
        "1,2\n2,1\n",
        ["-g", "generators", "--generators", "(0 5)"],
        "point 5 is out of range 0..1",
    ),
    ("unknown group", "group.csv", "1,2\n2,1\n", ["-g", "cyclc"], "unknown group 'cyclc' (did you mean 'cyclic'?)"),
    ("bare matrix, no group", "bare.csv", "1,2\n2,1\n", [], "a bare matrix carries no symmetry"),
    (
        "bad expect",
        "expect.yaml",
        SQUARE + "expect: invarient\nlayer: {kind: linear, weight: [[1,2,3],[3,1,2],[2,3,1]]}\n",
        [],
        "expect must be one of equivariant, invariant, got 'invarient' (did you mean 'invariant'?)",
    ),
    ("missing layer", "nolayer.yaml", SQUARE, [], "missing key 'layer'"),
    (
        "complex value",
        "complex.yaml",
        'symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [["sqrt(-1)", 1], [1, 1]]}\n',
        [],
        "is not a real number (it is I)",
    ),
    (
        "value beyond float64",
        "huge.yaml",
        'symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [["exp(1000)", 1], [1, 1]]}\n',
        [],
        "is not a finite real number in float64",
    ),
    (
        "value past the evaluation bounds",
        "bounds.yaml",
        'symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [["tanh(exp(exp(100)))", 1], [1, 1]]}\n',
        [],
        "cannot be evaluated: a value on the way is past 2^65536",
    ),
    (
        "high power of a symbol",
        "power.yaml",
        'symmetry: {group: cyclic, n: 2}\nlayer: {kind: linear, weight: [["(a+b+c)**3000", 1], [1, 1]]}\n',
        [],
        "exponent 3000 of a symbolic base exceeds the limit of 64",
    ),
    (
        "output overflows float64",
        "overflow.yaml",
        "symmetry: {group: symmetric, n: 8}\nlayer: {kind: attention, wq: [[1e200]], wk: [[1e200]], wv: [[1]], mask: causal}\n",
        [],
        "the layer's output is not finite (inf or NaN)",
    ),
    (
        "graph not square",
        "graph.csv",
        "1,2\n2,1\n",
        ["-g", "automorphisms", "--graph", "{tmp}/tall.csv"],
        "graph is 3 x 2: an adjacency is square (n x n) and an edge list is 2 x E integers",
    ),
    (
        "CSV header row",
        "header.csv",
        "w0,w1,w2\n1,2,3\n3,1,2\n",
        ["-g", "cyclic"],
        "row 0 (w0, w1, w2) looks like a header over rows of numbers",
    ),
    (
        "product without *",
        "product.yaml",
        SQUARE + "layer: {kind: conv, kernel: [a, 2b]}\n",
        [],
        "cannot parse expression '2b' (a product needs '*': write '2*b')",
    ),
    (
        "key by another name",
        "type.yaml",
        SQUARE + "layer: {type: conv, kernel: [a, b]}\n",
        [],
        "unknown key 'type' (did you mean 'kind'?)",
    ),
    (
        "group by another name",
        "rot.csv",
        "1,2\n2,1\n",
        ["-g", "rotations"],
        "unknown group 'rotations' (did you mean 'p4'?)",
    ),
    (
        "shape for a group sized by n",
        "shape.csv",
        "1,2\n2,1\n",
        ["-g", "cyclic", "--shape", "2x1"],
        "--shape HxW sizes the grid groups (translations, p4, p4m); 'cyclic' is sized by -n N",
    ),
]


@pytest.mark.parametrize("what, name, content, args, message", CASES, ids=[c[0] for c in CASES])
def test_bad_input(run, tmp_path, what, name, content, args, message):
    (tmp_path / "wide.csv").write_text("1,2,3\n4,5,6\n")
    (tmp_path / "tall.csv").write_text("1,2\n3,4\n5,6\n")  # a 2 x E file of whole numbers is an edge list
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content.encode())
    result = run(["verify", path] + [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("gdlcheck: error: ")
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert message in result.stderr
    assert name in result.stderr or "wide.csv" in result.stderr or "tall.csv" in result.stderr


def test_the_manuals_table_matches():
    from tests import manual

    table = manual.section("## Bad input")
    for what, _, _, _, message in CASES:
        assert f"| {what} |" in table, what
        assert message in table, message


def test_empty_tagged_scalar_is_an_input_error(run, tmp_path):
    # found by the fuzzer: PyYAML's int constructor raises IndexError on an empty !!int
    path = tmp_path / "tag.yaml"
    path.write_text("symmetry: {group: symmetric, n: 3}\nlayer: {kind: deepsets, alpha: 1, beta: !!int }\n")
    result = run(["verify", path])
    assert result.exit_code == 2 and "number '' is not in a form gdlcheck reads" in result.stderr
