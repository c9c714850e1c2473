"""Exact comparison of sympy expressions, and solving for the symbols that make a layer hold."""

from __future__ import annotations

import numpy as np

from gdlcheck.inputs.evaluate import evaluate
from gdlcheck.inputs.matrices import exact_number
from gdlcheck.limits import SYMBOLIC_SECONDS
from gdlcheck.text import safe_str
from gdlcheck.tolerances import POINT_DIFFERENCE


def equal_exactly(a, b) -> bool | None:
    """Whether two sympy expressions are identical: True, False, or None if undecided in time.

    Different at a random rational point proves different; simplifying the difference to 0
    proves equal; neither within the time budget leaves it undecided.
    """
    import sympy

    # a numeric weight beside symbolic ones (a float bias after a symbolic layer) as an exact number
    a, b = (exact_number(x) if isinstance(x, (int, float, np.number)) else x for x in (a, b))
    if a == b:
        return True
    diff = a - b
    if diff.is_number and diff.is_zero is not None:
        return bool(diff.is_zero)
    if differ_at_a_point(a, b, np.random.default_rng(0)):
        return False
    done, simplified = run_with_time_limit(lambda: sympy_call(sympy.simplify, diff), SYMBOLIC_SECONDS)
    if done and simplified is not None and simplified == 0:
        return True
    return None


def sympy_call(fn, *args, **kwargs):
    """``fn(*args)``, or None where sympy itself raises (it does, on some inputs, with
    NotImplementedError, TypeError, RecursionError ...): undecided, never a crash."""
    try:
        return fn(*args, **kwargs)
    except Exception:  # sympy's own failures; a time-out is not an Exception subclass here
        return None


def differ_at_a_point(left, right, rng, tries: int = 3) -> bool:
    """True when ``left`` and ``right`` clearly differ at a random rational point.

    Both sides are evaluated to 30 digits and compared relative to their size, so weights of
    1e-30 are told apart as well as weights of 1e30.
    """
    import sympy

    syms = sorted((getattr(left, "free_symbols", set()) | getattr(right, "free_symbols", set())), key=str)
    for _ in range(tries):
        point = {x: sympy.Rational(int(rng.integers(-40, 41)), int(rng.integers(7, 23))) for x in syms}
        # bounded: fixed precision, magnitudes capped (None past a bound or outside a domain)
        lv, rv = evaluate(left, point), evaluate(right, point)
        if lv is None or rv is None:
            continue
        gap, size = abs(lv - rv), max(abs(lv), abs(rv))
        if gap > POINT_DIFFERENCE * size:
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
    done, solutions = run_with_time_limit(lambda: sympy_call(sympy.solve, unique, syms, dict=True), SYMBOLIC_SECONDS)
    if not done or solutions is None:
        # not solved in time, or sympy raised: the equations themselves, unsolved
        return [f"{safe_str(e)} = 0" for e in unique[:20]], False
    if not solutions:
        return [], True
    texts = []
    for sol in solutions:
        texts.append(", ".join(f"{k} = {safe_str(v)}" for k, v in sorted(sol.items(), key=lambda kv: str(kv[0]))))
    if len(texts) == 1:
        return texts[0].split(", "), False
    return [" or ".join(f"({t})" for t in texts)], False
