"""A permutation group: its generators, what each of them is, and the facts derived from them.

A group is its name, its degree ``n`` and a tuple of generators (array forms, see
:mod:`gdlcheck.groups.perm`).  The catalogue's constructors also set ``family`` (the record
that knows the group's order, closed forms and prose) and each generator's ``Role`` (the
shift, a reflection, a rotation, ...), as sympy's named groups mark themselves.  A group built
by hand has no family: nothing then assumes anything about it, and every fact is computed
from its generators.

This is the only module that uses ``sympy.combinatorics``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from gdlcheck.errors import LimitError
from gdlcheck.groups.components import point_orbit_labels
from gdlcheck.groups.family import UNKNOWN, Family, Role
from gdlcheck.groups.perm import Perm, cycle_string, identity, then
from gdlcheck.limits import MAX_ORDER_DIGITS, MAX_SCHREIER_SIMS_POINTS


class _NotComputed:
    """``order_formula`` of a group whose order is not computed (Schreier-Sims past its budget)."""

    def __repr__(self) -> str:
        return "NOT_COMPUTED"


NOT_COMPUTED = _NotComputed()
NOT_COMPUTED_TEXT = "not computed (Schreier-Sims past its budget of 64 points; the group is not S_n or A_n)"


@dataclass(frozen=True)
class PermGroup:
    """A permutation group on ``n`` points, given by generators.

    ``order_formula`` is the order where a formula gives it (an int, or a zero-argument
    callable for orders too big to compute eagerly, ``n!`` for ``n = 10^6``); otherwise the
    order is computed with Schreier-Sims (sympy).  ``roles[k]`` says what ``gens[k]`` is
    (empty: nothing is known).
    """

    name: str
    n: int
    gens: tuple[Perm, ...]
    shape: tuple[int, ...] | None = None
    roles: tuple[Role, ...] = ()
    family: Family | None = field(default=None, compare=False, repr=False)
    order_formula: int | Callable[[], int] | _NotComputed | None = field(default=None, compare=False)
    graph: np.ndarray | None = field(default=None, compare=False, repr=False)

    def role(self, k: int) -> Role:
        return self.roles[k] if k < len(self.roles) else UNKNOWN

    def gen_arrays(self) -> list[np.ndarray]:
        return [np.asarray(g, dtype=np.int64) for g in self.gens]

    @property
    def generator_strings(self) -> list[str]:
        """The generators in cycle notation, written once per group: a report asks for them
        on each row of its table (20,000 generators took 10 s that way)."""
        return list(self._cycle_strings)

    @cached_property
    def _cycle_strings(self) -> tuple[str, ...]:
        return tuple(cycle_string(g) for g in self.gens)

    @cached_property
    def order(self) -> int | None:
        """The order; None where it is not computed (a group given by generators past the
        Schreier-Sims budget: see :data:`NOT_COMPUTED`)."""
        formula = self.order_formula
        if isinstance(formula, _NotComputed):
            return None
        if callable(formula):
            return int(formula())
        if formula is not None:
            return formula
        return int(self.to_sympy().order())

    @property
    def _factorial_over(self) -> int | None:
        """``d`` when the order is ``n!/d`` by the family's formula (symmetric 1, alternating 2)."""
        if self.family is None or self.family.factorial_over is None or not callable(self.order_formula):
            return None
        return self.family.factorial_over

    @property
    def order_text(self) -> str:
        """The order for people: the digits, or ``n!`` with its size when it has too many digits.

        >>> from gdlcheck.groups import symmetric
        >>> symmetric(100).order_text
        '100! (about 9.33e157)'
        """
        d = self._factorial_over
        order = self.order
        if order is None:
            return NOT_COMPUTED_TEXT
        if d is None or self.n <= 25:
            return digits(order)
        log10 = math.lgamma(self.n + 1) / math.log(10) - math.log10(d)
        exponent = math.floor(log10)
        mantissa = 10 ** (log10 - exponent)
        suffix = "!" if d == 1 else f"!/{d}"
        return f"{self.n}{suffix} (about {mantissa:.3g}e{exponent})"

    def order_json(self):
        """The order for JSON: an integer up to 15 digits, else the string of its digits.

        An ``n!`` order is estimated with lgamma before it is computed (1000000! alone takes
        seconds), and refused past the digit budget.
        """
        d = self._factorial_over
        if d is not None:
            count = int(math.lgamma(self.n + 1) / math.log(10)) + 1
            if count > MAX_ORDER_DIGITS:
                formula = f"{self.n}!" + ("" if d == 1 else f"/{d}")
                raise LimitError(
                    f"the order {formula} has about {count} digits, over the limit of "
                    f"{MAX_ORDER_DIGITS} digits that JSON output writes out exactly (the text format "
                    "prints it approximately)"
                )
        order = self.order
        if order is None:
            return None
        return order if order < 10**15 else digits(order)

    @cached_property
    def is_transitive(self) -> bool:
        if self.n <= 1:
            return True
        return len(self.point_orbits()) == 1

    def point_orbits(self) -> list[list[int]]:
        """The orbits of the group on single points, each sorted, in order of least point."""
        labels = point_orbit_labels(self.n, self.gen_arrays())
        orbits: dict[int, list[int]] = {}
        for i, lab in enumerate(labels.tolist()):
            orbits.setdefault(lab, []).append(i)
        return sorted(orbits.values())

    def to_sympy(self):
        """The same group as a ``sympy.combinatorics.PermutationGroup`` (same array forms)."""
        from sympy.combinatorics import Permutation, PermutationGroup

        gens = [Permutation(list(g), size=self.n) for g in self.gens]
        return PermutationGroup(gens or [Permutation(list(range(max(self.n, 1))))])

    def random_element(self, rng) -> np.ndarray:
        """A uniformly random element (array form), drawn from the numpy generator ``rng``: by the
        family's own sampler; else, up to the Schreier-Sims budget, a uniform rank of sympy's
        stabiliser chain; else a product-replacement walk over the generators (close to uniform
        after its warm-up, not exactly)."""
        if self.family is not None and self.family.sample is not None:
            return self.family.sample(self.shape if self.family.is_grid else self.n, rng)
        gens = self.gen_arrays()
        if not gens:
            return np.arange(self.n, dtype=np.int64)
        if self.n <= MAX_SCHREIER_SIMS_POINTS:
            G = self.to_sympy()
            rank = _uniform_below(int(G.order()), rng)
            return np.asarray(G.coset_unrank(rank, af=True), dtype=np.int64)
        return _product_replacement(gens, rng)

    def subgroup(self, kept: list[int]) -> PermGroup:
        """The subgroup generated by the generators at the positions ``kept`` (the family's sampler,
        roles and order formula no longer apply)."""
        return replace(self, gens=tuple(self.gens[k] for k in kept), roles=(), family=None, order_formula=None)

    def elements(self) -> list[Perm]:
        """Every element, by closure under the generators (for small groups and tests)."""
        ident = identity(self.n)
        seen = {ident}
        frontier = [ident]
        while frontier:
            nxt = []
            for g in frontier:
                for s in self.gens:
                    h = then(g, s)
                    if h not in seen:
                        seen.add(h)
                        nxt.append(h)
            frontier = nxt
        return sorted(seen)

    def describe(self) -> str:
        size = "x".join(map(str, self.shape)) if self.shape else f"n={self.n}"
        return f"{self.name} ({size})"


def _uniform_below(bound: int, rng) -> int:
    """A uniform integer in ``[0, bound)`` for a bound of any size (64! has 90 digits)."""
    words = bound.bit_length() // 62 + 2
    value = 0
    for w in rng.integers(0, 1 << 62, size=words).tolist():
        value = (value << 62) | int(w)
    return value % bound  # the bias is below 2^-62


def _product_replacement(gens: list[np.ndarray], rng, slots: int = 10, warm_up: int = 60) -> np.ndarray:
    """Celler et al.'s product replacement: a walk on tuples of elements whose entries become
    close to uniform random elements after a warm-up (each step ``s_i <- s_i s_j^(+-1)``)."""
    state = [gens[k % len(gens)] for k in range(slots)]
    acc = np.arange(len(gens[0]), dtype=np.int64)
    for _ in range(warm_up):
        i, j = rng.choice(slots, size=2, replace=False)
        other = state[j] if rng.integers(2) else np.argsort(state[j])
        state[i] = other[state[i]]  # state[i] first, then other
        acc = state[i][acc]
    return acc


def digits(value: int) -> str:
    """``str(value)`` past Python's default limit of 4300 digits (n! for n >= 1750)."""
    if not hasattr(sys, "get_int_max_str_digits") or value < 10**4000:
        return str(value)
    count = int(value.bit_length() * 0.30103) + 1
    if count > MAX_ORDER_DIGITS:
        # CPython's int -> str is quadratic: 5.5 million digits would take minutes
        raise LimitError(
            f"the group's order has about {count} digits, over the limit of {MAX_ORDER_DIGITS} "
            "digits that JSON output writes out exactly"
        )
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(value)
    finally:
        sys.set_int_max_str_digits(old)
