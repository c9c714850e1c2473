"""An assertion for your own test suite: ``assert_equivariant(f, group, shape)``.

    from gdlcheck.testing import assert_equivariant

    def test_my_layer_is_permutation_equivariant():
        assert_equivariant(my_layer, "symmetric", (6, 3))

On failure it raises ``AssertionError`` whose message names each failing generator (in
cycle notation), its relative error, and the trial and seed of the input that shows it, so
the failure can be reproduced.  Its own frame is hidden from pytest's traceback
(``__tracebackhide__``), so the report points at the test.
"""

from __future__ import annotations

from gdlcheck.verification import VerifyResult

__all__ = ["assert_equivariant", "failure_lines"]


def assert_equivariant(f, group, shape=None, expect: str = "equivariant", trials: int = 8, tol: float | None = None,
                       seed: int = 0, **options) -> VerifyResult:
    """Assert that ``f(P X) == P f(X)`` (``f(P X) == f(X)`` for ``expect="invariant"``).

    Parameters
    ----------
    f : a function, callable object, class or ``torch.nn.Module``; ``X : shape``, first axis
        the group's points (see :func:`gdlcheck.verify_callable`).
    group : a group from :func:`gdlcheck.group`, or a name (``n = shape[0]``).
    shape : ``(n, d)`` or any ``(n, ...)``.
    expect, trials, tol, seed, **options : as :func:`gdlcheck.verify_callable` (``dtype``,
        ``adjacency``).

    Returns
    -------
    VerifyResult
        when the law holds.

    Raises
    ------
    AssertionError
        when it does not: one line per failing generator with the error and the seed.
    GdlcheckError
        when ``f`` cannot be run (it raises, or returns the wrong shape): a broken test
        setup rather than a broken symmetry.
    """
    __tracebackhide__ = True
    from gdlcheck.api import verify_callable

    result = verify_callable(f, group, shape=shape, expect=expect, trials=trials, tol=tol, seed=seed, **options)
    if not result.passed:
        raise AssertionError("\n".join(failure_lines(result)))
    return result


def failure_lines(result: VerifyResult) -> list[str]:
    """The report's failure lines: what was expected, then generator, error and seed per failure."""
    g = result.group
    lines = [f"{result.input} is not {result.expect} under {g.describe()} "
             f"(verdict {result.verdict}):"]
    for c in result.checks:
        if c.passed is not False:
            continue
        line = f"  generator {c.generator}: "
        if c.relative_error is not None:
            line += f"relative error {c.relative_error:.3g}"
            if c.max_abs_error is not None:
                line += f" (max abs {c.max_abs_error:.3g})"
        else:
            line += "fails"
        counter = c.counterexample or {}
        if "trial" in counter:
            line += (f", trial {counter['trial']} with seed {counter['seed']} "
                     f"(input numpy.random.default_rng([{counter['seed']}, {counter['trial']}]))")
            if counter.get("entry") is not None:
                line += (f": output entry {counter['entry']} is {counter.get('got')!r}, "
                         f"expected {counter.get('expected')!r}")
        elif "text" in counter:
            line += f": {counter['text']}"
        lines.append(line)
    for note in result.notes:
        lines.append(f"  note: {note}")
    return lines
