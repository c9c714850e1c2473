"""``gdlcheck verify --format junit``: one JUnit XML report, a test case per input, for CI.

The layout is the one JUnit's Ant task writes and CI systems read (GitLab, Jenkins, GitHub
actions that publish test results): ``<testsuites>`` holding one ``<testsuite>`` with the
counts, and a ``<testcase>`` per input, named by the input.  An input that

* holds has no child;
* fails has a ``<failure type="fails">``: the message says what does not hold, the text gives
  each counterexample, the constraints that would make it hold and the diagnosis;
* is inconclusive (``--method exact`` could not decide) has an ``<error type="inconclusive">``;
* could not be read has an ``<error type="error">`` with the one-line message.

No timings, timestamps or host names: the same inputs give the same bytes.

XML 1.0 cannot hold most control characters (nor lone surrogates, which a file name that is
not UTF-8 brings), escaped or not; a file name, spec key or message may have them, so each
one is written as its escape text (``\\x01``, ``\\udcff``) and the report stays well-formed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gdlcheck.output.witnesses import witness_text
from gdlcheck.output.words import constraint_lines, fact_text, undecided_lines
from gdlcheck.verdicts import Verdict

SUITE = "gdlcheck verify"
# What XML 1.0 cannot hold: its Char production is tab, newline, carriage return and
# U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    r"""``text`` with every character XML 1.0 cannot hold written as its escape text.

    >>> xml_text("a\x01b\udcff")
    'a\\x01b\\udcff'
    """
    return _NOT_XML.sub(
        lambda m: f"\\x{ord(m.group(0)):02x}" if ord(m.group(0)) < 0x100 else f"\\u{ord(m.group(0)):04x}", text
    )


def junit_xml(entries) -> str:
    """The report for ``entries``: ``(input, result, hints)`` per input, or ``(input, None, message)``
    for an input that could not be read."""
    cases, failures, errors = [], 0, 0
    for name, result, extra in entries:
        case = ET.Element("testcase", {"name": name, "classname": "gdlcheck.verify", "file": name})
        verdict = Verdict.ERROR if result is None else Verdict(result.verdict)
        if result is None:
            ET.SubElement(case, "error", {"type": verdict, "message": extra}).text = extra
            errors += 1
        elif verdict is Verdict.FAILS:
            failing = ", ".join(c.generator for c in result.failing) or "-"
            message = f"{result.kind} is not {result.expect} under {result.group.describe()} (generator(s) {failing})"
            ET.SubElement(case, "failure", {"type": verdict, "message": message}).text = "\n".join(
                [message] + _details(result) + [f"hint: {h}" for h in extra]
            )
            failures += 1
        elif verdict is Verdict.INCONCLUSIVE:
            lines = undecided_lines(result) + [fact_text(note) for note in result.notes]
            ET.SubElement(case, "error", {"type": verdict, "message": lines[0] if lines else verdict}).text = "\n".join(
                lines
            )
            errors += 1
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{verdict}: {result.kind} is {result.expect} under {result.group.describe()}"
        cases.append(case)
    counts = {"name": SUITE, "tests": str(len(cases)), "failures": str(failures), "errors": str(errors), "skipped": "0"}
    root = ET.Element("testsuites", counts)
    suite = ET.SubElement(root, "testsuite", counts)
    suite.extend(cases)
    ET.indent(root)
    # markup is plain ASCII: what the pattern replaces can only be inside names, values and text
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml_text(ET.tostring(root, encoding="unicode")) + "\n"


def _details(result) -> list[str]:
    lines = [f"counterexample for {c.generator} ({c.method}): {witness_text(c.witness)}" for c in result.failing]
    constraints = constraint_lines(result)
    if constraints:
        lines.append("would hold if: " + "; ".join(constraints))
    lines += ["diagnosis: " + fact_text(f) for f in result.diagnosis or []]
    return lines
