"""An action's kind is a :class:`Motion`: the words are read into it at the boundary, and what
the checks ask of a kind is asked of the member, never by comparing its word."""

import pathlib
import re

import pytest

import gdlcheck
from gdlcheck.code.actions import INPUT_KINDS, OUTPUT_KINDS, Action, Motion, parse_action, parse_input
from gdlcheck.errors import CallableError

WORDS = "|".join(m.value for m in Motion)
# ``kind == "points"``, ``kind.value != "fixed"``, ``kind in ("graph", "fixed")``, ``kind not in [...]``
_COMPARED = re.compile(rf"""kind(?:\.value)?\s*(?:==|!=|\bnot\s+in\b|\bin\b)\s*[(\[{{]?\s*["'](?:{WORDS})["']""")
# ``"graph" in kinds``, ``"points" == action.kind``
_REVERSED = re.compile(rf"""["'](?:{WORDS})["']\s*(?:==|!=|\bnot\s+in\b|\bin\b)\s*[\w.]*kind""")


def _string_comparisons(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if _COMPARED.search(line) or _REVERSED.search(line)]


def test_the_search_finds_the_comparisons_it_forbids():
    """The forms the code used before the kind was a Motion are found (else the next test means nothing)."""
    old = """
        if action.kind == "points":
        if inp.action.kind != "unchanged":
        return all(a.kind in ("invariant", "ignored") for a in leaves(self.outputs))
        return "both" if "graph" in kinds else ("fixed" if "fixed" in kinds else None)
        if spec.kind != 'ignored' and isinstance(out, dict):
        if kind not in ["graph", "fixed"]:
    """
    assert len(_string_comparisons(old)) == 6
    assert not _string_comparisons(
        'if p.kind in (p.POSITIONAL_ONLY,) or value.dtype.kind == "f" or step.kind != "output":'
    )


def test_no_action_kind_is_compared_as_a_string():
    """Adding a kind is one place (the Motion); no module of the package asks its word."""
    root = pathlib.Path(gdlcheck.__file__).parent
    found = {
        str(path.relative_to(root)): hits
        for path in sorted(root.rglob("*.py"))
        if (hits := _string_comparisons(path.read_text()))
    }
    assert found == {}


@pytest.mark.parametrize("motion", list(Motion))
def test_each_word_is_read_into_its_member_and_written_back(motion):
    assert Motion(motion.value) is motion and str(motion) == motion.value and f"{motion}" == motion.value
    assert Action(motion.value) == Action(motion) and Action(motion).kind is motion
    side = [outputs for outputs in (False, True) if (motion.on_outputs if outputs else motion.on_inputs)]
    for outputs in side:
        assert parse_action(motion.value, outputs=outputs) == Action(motion)


def test_the_sides_list_their_words_in_the_table_order():
    """The lists the error messages give, unchanged."""
    assert INPUT_KINDS == ("points", "pairs", "graph", "fixed", "edges", "unchanged")
    assert OUTPUT_KINDS == ("points", "pairs", "edges", "invariant", "ignored")
    with pytest.raises(CallableError, match="one of points, pairs, edges, invariant, ignored"):
        parse_action("graph", outputs=True)


def test_the_constructors_and_the_words_give_members():
    assert gdlcheck.points().kind is Motion.POINTS and gdlcheck.graph(None).kind is Motion.GRAPH
    assert gdlcheck.fixed(None).kind is Motion.FIXED and gdlcheck.edges(None).kind is Motion.EDGES
    assert gdlcheck.unchanged(1).kind is Motion.UNCHANGED
    assert parse_input("points:6x3").kind is Motion.POINTS and parse_input("invariant").kind is Motion.UNCHANGED
    assert str(Action(Motion.PAIRS, (1, 2))) == "pairs:1,2" and Action("pairs", (1, 2)).text() == "pairs on axes (1, 2)"
    with pytest.raises(ValueError):
        Action("pair")


def test_what_each_kind_answers():
    """The kinds of docs/architecture.md ("An action's kind is one record"), as the members' properties."""
    table = {
        m: (
            m.takes_axes,
            m.moves_each_axis,
            m.may_be_drawn,
            m.is_graph,
            m.is_held,
            m.follows_edges,
            m.is_constant,
            m.is_invariant,
            m.is_compared,
        )
        for m in Motion
    }
    assert table == {
        Motion.POINTS: (True, False, True, False, False, False, False, False, True),
        Motion.PAIRS: (True, True, True, False, False, False, False, False, True),
        Motion.GRAPH: (False, False, False, True, False, False, False, False, True),
        Motion.FIXED: (False, False, False, True, True, False, False, False, True),
        Motion.EDGES: (False, False, False, False, False, True, False, False, True),
        Motion.UNCHANGED: (False, False, False, False, False, False, True, False, True),
        Motion.INVARIANT: (False, False, False, False, False, False, True, True, True),
        Motion.IGNORED: (False, False, False, False, False, False, False, False, False),
    }
    assert Motion.PAIRS.axis_count == 2 and all(m.axis_count is None for m in Motion if m is not Motion.PAIRS)
    assert Motion.PAIRS.default_axes((0,)) == (-2, -1) and Motion.POINTS.default_axes((1, 2)) == (1, 2)
