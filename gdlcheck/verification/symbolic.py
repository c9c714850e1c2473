"""Exact comparison of sympy expressions, and solving for the symbols that make a layer hold.

Deterministic: what is tried depends on the size of the expressions (``limits``), never on
the clock, so the same input gives the same answer on an idle and on a loaded machine.  Each
call into sympy is sized before it is made (operations, terms, exponent degree, function
applications, degree of the equations); past a bound sympy is not called and the comparison is
undecided by size, which the note says.  There is no time limit: a verdict never depends on how
fast the machine is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gdlcheck.inputs.arrays import exact_number
from gdlcheck.inputs.evaluate import evaluate
from gdlcheck.limits import (
    MAX_EXP_DEGREE,
    MAX_EXPANSION_TERMS,
    MAX_SIMPLIFY_OPS,
    SIMPLIFY_FUNCTIONS_EACH,
    SIMPLIFY_OPS_EACH,
    SOLVE_DEGREE,
    SOLVE_NUMBER_BITS,
    SOLVE_OPS,
    SOLVE_QUADRATIC_SYMBOLS,
    SYMBOLIC_EXPAND_OPS,
)
from gdlcheck.text import safe_str
from gdlcheck.tolerances import POINT_DIFFERENCE


@dataclass
class Budget:
    """The work one exact check may spend on expressions that differ in form, for the whole
    check (every pair of entries and every generator together), counted in operations -- the
    same input gets the same verdict on an idle and on a loaded machine:

    * ``ops``: operations (sympy's ``count_ops``) of the differences handed to ``simplify``;
    * ``terms``: terms one polynomial expansion may have (estimated before expanding).

    One difference goes to ``trigsimp`` and ``simplify`` only when it is small on its own too:
    at most ``SIMPLIFY_OPS_EACH`` operations and ``SIMPLIFY_FUNCTIONS_EACH`` function
    applications (their cost grows fast with both: a difference of 50 operations with a dozen
    nested functions kept simplify busy for minutes); a larger one is undecided by size
    (``too_large``).  Equal differences are decided once (``memo``).
    """

    ops: int = MAX_SIMPLIFY_OPS
    terms: int = MAX_EXPANSION_TERMS
    exhausted: bool = False
    too_large: bool = False
    memo: dict = field(default_factory=dict)

    @property
    def detail(self) -> str:
        """Why a comparison is undecided: the whole check's budget, one difference's size, or sympy itself."""
        if self.exhausted:
            return "symbolic_budget"
        return "simplify_size" if self.too_large else "sympy_undecided"


def equal_exactly(a, b, budget: Budget | None = None) -> bool | None:
    """Whether two sympy expressions are identical: True, False, or None if undecided.

    Different at a random rational point proves different; the difference expanding to 0
    proves equal (a non-zero polynomial in the symbols proves different); simplifying the
    difference to 0, within ``budget``, proves equal; otherwise it is undecided.
    """
    import sympy

    budget = budget if budget is not None else Budget()
    # a numeric weight beside symbolic ones (a float bias after a symbolic layer) as an exact number
    a, b = (exact_number(x) if isinstance(x, (int, float, np.number)) else x for x in (a, b))
    if a == b:
        return True
    diff = a - b
    if diff.is_Rational:
        return bool(diff == 0)
    if diff in budget.memo:
        return budget.memo[diff]
    if -diff in budget.memo:  # b - a, decided already as a - b
        return budget.memo[-diff]
    if differ_at_a_point(a, b, np.random.default_rng(0)):
        budget.memo[diff] = False
        return False
    result = _by_expansion(diff, budget)
    if result is None:
        result = _by_simplification(diff, budget, sympy)
    budget.memo[diff] = result
    return result


def why_not_zero(diff) -> str | None:
    """None when ``diff`` expands (and cancels) to 0; else why it is undecided, a
    ``Residual.detail``: ``symbolic_size`` when it is past the size budget and sympy is not
    given it at all (``SYMBOLIC_EXPAND_OPS`` operations, ``MAX_EXPANSION_TERMS`` terms,
    exponent degree ``MAX_EXP_DEGREE``), ``sympy_undecided`` when sympy ran and did not reach 0.

    Polynomial identities like ``b*(c + 1) - (b*c + b)`` are decided; not every identity
    (``sin(x)**2 + cos(x)**2 - 1`` stays undecided).
    """
    import sympy

    ops = sympy_call(sympy.count_ops, diff)
    if (
        ops is None
        or ops > SYMBOLIC_EXPAND_OPS
        or expansion_terms(diff, MAX_EXPANSION_TERMS) > MAX_EXPANSION_TERMS
        or exponent_degree(diff, MAX_EXP_DEGREE) > MAX_EXP_DEGREE
    ):
        return "symbolic_size"
    value = sympy_call(lambda: sympy.cancel(sympy.expand(diff)))
    return None if value is not None and value == 0 else "sympy_undecided"


def _by_expansion(diff, budget: Budget) -> bool | None:
    """Expanded to 0: equal.  A non-zero polynomial in plain symbols: different.  Else None."""
    import sympy

    if expansion_terms(diff, budget.terms) > budget.terms:
        return None
    expanded = sympy_call(sympy.expand, diff)
    if expanded is None:
        return None
    if expanded == 0:
        return True
    syms = sorted(expanded.free_symbols, key=str)
    if (
        syms
        and sympy_call(expanded.is_polynomial, *syms)
        and all(t.is_Symbol or t.is_Number for t in expanded.atoms() if not t.is_Atom or t.is_Symbol)
    ):
        return False  # a polynomial that is not 0 is not 0 everywhere
    return None


def _by_simplification(diff, budget: Budget, sympy) -> bool | None:
    ops = sympy_call(sympy.count_ops, diff)
    if ops is None or ops > budget.ops or exponent_degree(diff, MAX_EXP_DEGREE) > MAX_EXP_DEGREE:
        budget.exhausted = True
        return None
    if ops > SIMPLIFY_OPS_EACH or function_applications(diff, SIMPLIFY_FUNCTIONS_EACH) > SIMPLIFY_FUNCTIONS_EACH:
        budget.too_large = True
        return None
    budget.ops -= int(ops)
    # common factors pulled out first, then the trigonometric identities: cheap, and they settle
    # (a + b)**12 * (sin(e)**2 + cos(e)**2) against (a + b)**12 without expanding; then simplify
    for step in (lambda: sympy.trigsimp(sympy.factor_terms(diff)), lambda: sympy.simplify(diff)):
        simplified = sympy_call(step)
        if simplified is not None and simplified == 0:
            return True
    return None


def function_applications(e, cap: int) -> int:
    """How many function applications (``sin``, ``exp``, ``Abs``, ...) and non-integer powers
    ``e`` holds, counted in its tree with repeats (stops counting past ``cap``): what makes
    ``trigsimp`` and ``simplify`` slow, far more than the operations around them."""
    count, stack = 0, [e]
    while stack:
        node = stack.pop()
        if node.is_Atom:
            continue
        if node.is_Function or (node.is_Pow and not node.exp.is_Integer):
            count += 1
            if count > cap:
                return count
        stack.extend(node.args)
    return count


def expansion_terms(e, cap: int) -> int:
    """An upper estimate of the terms ``sympy.expand(e)`` builds, computed without expanding
    (a power of a sum by the multinomial count); stops counting past ``cap``."""
    import math

    if e.is_Add:
        total = 0
        for a in e.args:
            total += expansion_terms(a, cap)
            if total > cap:
                return cap + 1
        return total
    if e.is_Mul:
        total = 1
        for a in e.args:
            total *= expansion_terms(a, cap)
            if total > cap:
                return cap + 1
        return total
    if e.is_Pow and e.exp.is_Integer and e.exp > 1:
        t = expansion_terms(e.base, cap)
        if t > cap:
            return cap + 1
        k = int(e.exp)
        return min(math.comb(t + k - 1, k), cap + 1) if t > 1 else 1
    return 1


def exponent_degree(e, cap: int) -> int:
    """The degree sympy's polynomial code gives the symbolic powers in ``e`` (stops past ``cap``).

    ``cancel`` and ``simplify`` read ``exp(k*t)`` (and ``b**(k*t)``) as ``exp(t)**k``: a rational
    ``k = p/q`` becomes degree ``|p|`` in ``exp(t/q)``, so one given weight of ``10**6``
    inside a softmax made a polynomial of degree 10^11, which sympy worked on for minutes.  An
    expression past ``cap`` is not handed to them (undecided, by its size, not by the clock).
    The exponent is multiplied out as ``expand`` does it first: a weight of ``10**20`` inside
    a product of sums, ``(x - 10**20)*(y + 1)``, is a coefficient only after that.
    """
    import math

    import sympy

    top, denominators = 1, 1
    for atom in e.atoms(sympy.Pow, sympy.exp):
        exponent = atom.as_base_exp()[1]
        if exponent.is_Number:
            continue
        if expansion_terms(exponent, MAX_EXPANSION_TERMS) > MAX_EXPANSION_TERMS:
            return cap + 1
        for term in sympy.Add.make_args(sympy.expand(_functions_held(exponent, {}))):
            coeff = term.as_coeff_Mul(rational=True)[0]
            if coeff.is_Rational:
                top = max(top, abs(int(coeff.p)))
                denominators = math.lcm(denominators, int(coeff.q))
            if top * denominators > cap:
                return cap + 1
    return top * denominators


def _functions_held(e, held: dict):
    """``e`` with each function application and each non-integer power replaced by a symbol of
    its own (the same one for equal subexpressions): what is left is the sums, products and
    integer powers that ``expand`` multiplies out, so its coefficients are those the expansion
    gives, and no function's argument is expanded (a tanh around a sum stays one symbol)."""
    import sympy

    if e.is_Atom:
        return e
    if e.is_Add or e.is_Mul or (e.is_Pow and e.exp.is_Integer):
        return e.func(*(_functions_held(a, held) for a in e.args))
    if e not in held:
        held[e] = sympy.Dummy()
    return held[e]


def sympy_call(fn, *args, **kwargs):
    """``fn(*args)``, or None where sympy itself raises (it does, on some inputs, with
    NotImplementedError, TypeError, RecursionError ...): undecided, never a crash."""
    try:
        return fn(*args, **kwargs)
    except Exception:  # sympy's own failures
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


def number_bits(e) -> int:
    """The most bits of a number in ``e``: a rational's numerator or denominator, a float's as the
    exact rational it is (``10**5000`` has 16,610)."""
    import sympy

    bits = 0
    for x in e.atoms(sympy.Number):
        r = x if x.is_Rational else sympy.Rational(x)
        bits = max(bits, abs(int(r.p)).bit_length(), int(r.q).bit_length())
    return bits


def _degree(e, syms) -> int:
    """The total degree of ``e`` as a polynomial in the symbols, past ``SOLVE_DEGREE`` when it
    is none (the weight tyings sympy.solve settles at once: ``b - c`` of degree 1, ``a*b - 1``
    of degree 2)."""
    import sympy

    if not e.is_polynomial(*syms):
        return SOLVE_DEGREE + 1
    return int(sympy.Poly(e, *syms).total_degree())


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
    if not syms or any(e.is_Rational and e != 0 for e in unique):
        # two different numbers (an equation 10**150 = 0 beside the others): no tying of the
        # symbols mends that, so sympy.solve is not asked (it spent seconds on the others first)
        return [], True
    unsolved = [f"{safe_str(e)} = 0" for e in unique[:20]]
    ops = sympy_call(lambda: sum(sympy.count_ops(e) for e in unique))
    if len(unique) > 20 or ops is None or ops > SOLVE_OPS:
        return unsolved, False  # too large to hand to sympy.solve: the equations as they are
    degree = sympy_call(lambda: max(_degree(e, syms) for e in unique))
    bits = sympy_call(lambda: max(number_bits(e) for e in unique))
    if (
        degree is None
        or degree > SOLVE_DEGREE
        or (degree > 1 and len(syms) > SOLVE_QUADRATIC_SYMBOLS)
        or bits is None
        or bits > SOLVE_NUMBER_BITS
    ):
        # sqrt(-a), pi*a*(a + b) beside 10**20, a tower of powers, a quadratic system in many
        # symbols, (a + b)**2 = 10**5000: sympy.solve can spend minutes on them; the equations as
        # they are, decided by their form alone
        return unsolved, False
    solutions = sympy_call(sympy.solve, unique, syms, dict=True)
    if solutions is None:
        # sympy raised: the equations themselves, unsolved
        return unsolved, False
    if not solutions:
        return [], True
    texts = []
    for sol in solutions:
        texts.append(", ".join(f"{k} = {safe_str(v)}" for k, v in sorted(sol.items(), key=lambda kv: str(kv[0]))))
    if len(texts) == 1:
        return texts[0].split(", "), False
    return [" or ".join(f"({t})" for t in texts)], False
