"""gdlcheck/code/ compares no word of its own as a string: a closed set of words is a member or a
named constant in one place (a graph's form and law in ``code/graphs.py``, a tensor's layout in
``code/torch_bridge.py``, a constant's role in ``layers/proofs.py``, a check's method in
``verdicts.py``).  The strings it may compare are the outside world's, each listed here with where
it comes from; a new word compared in code/ fails until it is named (or listed, if it is external)."""

import pathlib

import gdlcheck
from tests.test_verdicts import _literals_compared

CODE = pathlib.Path(gdlcheck.__file__).parent / "code"

# Strings code/ may compare, by where they come from.
EXTERNAL = {
    # numpy's dtype kind codes
    "b",
    "f",
    "i",
    "iu",
    "biuf",
    "fiub",
    # torch: device types, dtype and layout names, padding modes, schema argument names, attributes
    # of nn.Module and of tensor subclasses, module names, the words of its error messages
    "cpu",
    "meta",
    "torch.bool",
    "circular",
    "zeros",
    "mask",
    "src",
    "dropout_p",
    "train",
    "_parameters",
    "_buffers",
    "_modules",
    "__torch_dispatch__",
    "__torch_function__",
    "torch._dynamo",
    "Tensor",
    "argument",
    "dtype",
    # scipy.sparse's format, Python's own names (slots, a lambda's name, the script run as main,
    # the typing module),
    # our package's module name
    "coo",
    "__dict__",
    "__weakref__",
    "__init__",
    "<lambda>",
    "__main__",
    "typing",
    "gdlcheck",
    "_target",
    # what users type: a dtype (--dtype), the x of a shape (points:6x3)
    "float64",
    "x",
}


def _unnamed_words(folder: pathlib.Path) -> list[str]:
    """``file:line: word`` of each string compared in ``folder`` that is not an external one."""
    return [
        f"{path.relative_to(folder)}:{line}: {word!r}"
        for path in sorted(folder.rglob("*.py"))
        for line, word in _literals_compared(path)
        if word not in EXTERNAL
    ]


def test_code_compares_no_word_of_its_own():
    assert _unnamed_words(CODE) == []


def test_every_external_word_is_still_compared_somewhere():
    """The list stays short: a word code/ no longer compares leaves it."""
    compared = {word for path in CODE.rglob("*.py") for _, word in _literals_compared(path)}
    assert EXTERNAL - compared == set()


def test_the_scan_finds_a_word_of_its_own(tmp_path):
    """The old forms (a graph's form, its law, a tensor's layout, a constant's role) are found."""
    (tmp_path / "broken.py").write_text(
        "def f(A, sig, i, step):\n"
        '    if graphs.form(A) == "edge_index" or sig.graph_law == "both":\n'
        '        return i.torch not in (None, "dense")\n'
        '    return step.kind in ("parameter", "buffer") or A.device.type == "meta"\n'
    )
    assert _unnamed_words(tmp_path) == [
        "broken.py:2: 'edge_index'",
        "broken.py:2: 'both'",
        "broken.py:3: 'dense'",
        "broken.py:4: 'parameter'",
        "broken.py:4: 'buffer'",
    ]
