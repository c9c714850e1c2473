"""Exact comparison of sympy expressions, and solving for the symbols that make a layer hold.

Deterministic: what is tried depends on the size of the expressions (``limits``), never on
the clock, so the same input gives the same answer on an idle and on a loaded machine.  A
time limit is kept only as a last guard against a hang inside sympy; when it fires, the
comparison is undecided and says so.
"""

from __future__ import annotations

import math

import numpy as np

from gdlcheck.limits import SOLVE_OPS, SYMBOLIC_EXPAND_OPS, SYMBOLIC_GUARD_SECONDS
from gdlcheck.tolerances import POINT_DIFFERENCE


def equal_exactly(a, b) -> bool | None:
    """Whether two sympy expressions are identical: True, False, or None if undecided.

    Different at a random rational point proves different; expanding the difference to 0
    proves equal; neither leaves it undecided.
    """
    if a == b:
        return True
    diff = a - b
    if diff.is_number and diff.is_zero is not None:
        return bool(diff.is_zero)
    if differ_at_a_point(a, b, np.random.default_rng(0)):
        return False
    return True if is_zero(diff) else None


def is_zero(diff) -> bool:
    """Whether ``diff`` expands (and cancels) to 0, tried only within ``SYMBOLIC_EXPAND_OPS``
    operations: polynomial identities like ``b*(c + 1) - (b*c + b)``; not every identity
    (``sin(x)**2 + cos(x)**2 - 1`` stays undecided)."""
    import sympy

    if sympy.count_ops(diff) > SYMBOLIC_EXPAND_OPS:
        return False
    done, value = run_with_time_limit(lambda: sympy.cancel(sympy.expand(diff)), SYMBOLIC_GUARD_SECONDS)
    return bool(done and value == 0)


def differ_at_a_point(left, right, rng, tries: int = 3) -> bool:
    """True when ``left`` and ``right`` clearly differ at a random rational point.

    Both sides are evaluated to 30 digits and compared relative to their size, so weights of
    1e-30 are told apart as well as weights of 1e30.
    """
    import sympy

    syms = sorted((getattr(left, "free_symbols", set()) | getattr(right, "free_symbols", set())), key=str)
    for _ in range(tries):
        point = {x: sympy.Rational(int(rng.integers(-40, 41)), int(rng.integers(7, 23))) for x in syms}
        try:
            lv, rv = (complex(x.xreplace(point).evalf(30)) if isinstance(x, sympy.Basic) else complex(x)
                      for x in (left, right))
        except (TypeError, ValueError, ZeroDivisionError, ArithmeticError):
            continue
        gap, size = abs(lv - rv), max(abs(lv), abs(rv))
        if math.isfinite(gap) and math.isfinite(size) and gap > POINT_DIFFERENCE * size:
            return True
    return False


def run_with_time_limit(fn, seconds: float):
    """Run ``fn()``; give up after ``seconds`` (main thread only).  Returns (done, value)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return True, fn()

    class _Timeout(Exception):
        pass

    def _raise(signum, frame):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return True, fn()
    except _Timeout:
        return False, None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def solve_constraints(equations: list) -> tuple[list[str], bool]:
    """Solve ``expr = 0`` for the symbols: the weight tying that would make the layer hold.

    Returns the solved equations (``["b = c"]``) and whether no values of the symbols make it
    hold.
    """
    import sympy

    unique = list(dict.fromkeys(equations))
    if not unique:
        return [], False
    syms = sorted(set().union(*(e.free_symbols for e in unique)), key=str)
    if not syms:  # two different numbers: no tying of the symbols mends that
        return [], True
    unsolved = [f"{e} = 0" for e in unique[:20]]
    if len(unique) > 20 or sum(sympy.count_ops(e) for e in unique) > SOLVE_OPS:
        return unsolved, False   # too large to hand to sympy.solve: the equations as they are
    done, solutions = run_with_time_limit(lambda: sympy.solve(unique, syms, dict=True), SYMBOLIC_GUARD_SECONDS)
    if not done:
        return unsolved, False
    if not solutions:
        return [], True
    texts = []
    for sol in solutions:
        texts.append(", ".join(f"{k} = {v}" for k, v in sorted(sol.items(), key=lambda kv: str(kv[0]))))
    if len(texts) == 1:
        return texts[0].split(", "), False
    return [" or ".join(f"({t})" for t in texts)], False
