"""Permutations in array form, and how they act (docs/design.md section 1).

The convention, as runnable examples (pytest runs them with ``--doctest-modules``):

* A permutation is a tuple ``p`` with ``p[i]`` the image of point ``i`` (0-based).  Its
  matrix is ``P[p[j], j] = 1``:

  >>> p = (1, 2, 0)
  >>> perm_matrix(p)
  array([[0, 0, 1],
         [1, 0, 0],
         [0, 1, 0]])

* so ``(P x)[p[j]] = x[j]``: the entry at ``j`` moves to ``p[j]``, and :func:`act` is ``P x``
  without the matrix:

  >>> x = np.array([10, 20, 30])
  >>> act(p, x)
  array([30, 10, 20])
  >>> bool(np.array_equal(act(p, x), perm_matrix(p) @ x))
  True

* the unit shift ``j -> j + 1 mod n`` is the seed's ``S``, ``(S x)[i] = x[i - 1]``, which is
  ``np.roll(x, 1)``:

  >>> S = perm_matrix(shift(4))
  >>> y = np.array([1, 2, 3, 4])
  >>> (S @ y).tolist(), np.roll(y, 1).tolist()
  ([4, 1, 2, 3], [4, 1, 2, 3])

* ``then(p, q)`` applies ``p`` first, then ``q`` (sympy's ``p*q``), and its matrix is ``Q P``:

  >>> p, q = (1, 0, 2, 3), (0, 2, 1, 3)
  >>> then(p, q)
  (2, 0, 1, 3)
  >>> bool(np.array_equal(perm_matrix(then(p, q)), perm_matrix(q) @ perm_matrix(p)))
  True

* conjugation moves both indices, ``P A P^T``: ``B[p[i], p[j]] = A[i, j]``:

  >>> A = np.arange(9).reshape(3, 3)
  >>> P = perm_matrix((1, 2, 0))
  >>> bool(np.array_equal(conjugate((1, 2, 0), A), P @ A @ P.T))
  True
  >>> fixes((1, 2, 0), np.ones((3, 3)))
  True

* cycle notation is 0-based with disjoint cycles; fixed points are left out:

  >>> cycle_string((1, 2, 0, 4, 3))
  '(0 1 2)(3 4)'
  >>> parse_perm("(0 1 2)(3 4)", None)
  (1, 2, 0, 4, 3)
"""

from __future__ import annotations

import functools
import re
import sys

import numpy as np

from gdlcheck.errors import GroupError, param
from gdlcheck.limits import MAX_POINTS
from gdlcheck.text import shorten

Perm = tuple[int, ...]


def identity(n: int) -> Perm:
    return tuple(range(n))


def shift(n: int) -> Perm:
    """The unit shift ``j -> j + 1 mod n``.

    >>> shift(4)
    (1, 2, 3, 0)
    """
    return (*range(1, n), 0) if n else ()


def then(p: Perm, q: Perm) -> Perm:
    """``p`` first, then ``q``: ``then(p, q)[i] == q[p[i]]`` (sympy's ``p*q``)."""
    return tuple(q[i] for i in p)


def inverse(p: Perm) -> Perm:
    """``inverse(p)[p[i]] == i``.

    >>> inverse((1, 2, 0))
    (2, 0, 1)
    """
    inv = [0] * len(p)
    for i, image in enumerate(p):
        inv[image] = i
    return tuple(inv)


def match(have, want):
    """The positions ``r`` with ``have[r[k]] == want[k]``, equal values matched in their order
    (the ``j``-th ``v`` of ``want`` to the ``j``-th ``v`` of ``have``); None when the two arrays
    do not hold the same values as often.  Where the indices a permutation moves go, and where
    the edges an automorphism moves go, are both this match.

    >>> match(np.array([5, 7, 5]), np.array([7, 5, 5]))
    array([1, 0, 2])
    >>> match(np.array([1, 2]), np.array([2, 2])) is None
    True
    """
    have, want = np.asarray(have), np.asarray(want)
    by_have, by_want = np.argsort(have, kind="stable"), np.argsort(want, kind="stable")
    if not np.array_equal(have[by_have], want[by_want]):
        return None
    r = np.empty(len(have), dtype=np.int64)
    r[by_want] = by_have
    return r


def is_translation(p, shape: tuple[int, ...]) -> bool:
    """Whether ``p`` moves every point of the grid ``shape`` (flattened row-major) by one offset
    ``c -> c + t mod shape``: exactly what a circulant of that grid commutes with (Theorem 1).

    Read from the permutation itself, never from a name or a role, so a group built by hand
    cannot claim a shift it does not have.

    >>> is_translation((1, 2, 3, 0), (4,)), is_translation((1, 0, 2, 3), (4,))
    (True, False)
    >>> is_translation((3, 4, 5, 0, 1, 2), (2, 3)), is_translation((1, 2, 0, 4, 5, 3), (2, 3))
    (True, True)
    """
    p = np.asarray(p, dtype=np.int64)
    shape = tuple(int(a) for a in shape)
    if len(p) != int(np.prod(shape)):
        return False
    coords = np.array(np.unravel_index(np.arange(len(p)), shape))
    images = np.array(np.unravel_index(p, shape))
    offsets = (images - coords) % np.array(shape)[:, None]
    return bool((offsets == offsets[:, :1]).all())


def perm_matrix(p: Perm) -> np.ndarray:
    """The permutation matrix ``P[p[j], j] = 1``."""
    n = len(p)
    P = np.zeros((n, n), dtype=np.int64)
    P[list(p), range(n)] = 1
    return P


def act(p, x: np.ndarray) -> np.ndarray:
    """``P x`` along the first axis without building ``P``: ``y[p[j]] = x[j]``."""
    y = np.empty_like(x)
    y[np.asarray(p)] = x
    return y


def act_rows(p, A):
    """``P A``: the rows moved, the columns left alone (dense or scipy.sparse)."""
    if is_sparse(A):
        return A[np.argsort(np.asarray(p))]  # row i of P A is row p^-1(i) of A
    return act(p, A)


def conjugate(p, A):
    """``P A P^T``: ``B[p[i], p[j]] = A[i, j]``.

    A scipy.sparse ``A`` stays sparse, in its own format: its stored entries are moved
    (``O(nnz)``), never a dense n x n array.
    """
    if is_sparse(A):
        C = A.tocoo()
        idx = np.asarray(p, dtype=C.row.dtype)
        B = type(C)((C.data, (idx[C.row], idx[C.col])), shape=A.shape)
        return B.asformat(A.format)
    idx = np.asarray(p)
    B = np.empty_like(A)
    B[np.ix_(idx, idx)] = A
    return B


def fixes(p, A) -> bool:
    """Whether ``P A P^T == A`` exactly (dense or scipy.sparse; sparse is never densified).

    ``A[p[i], p[j]] == A[i, j]`` for all ``i, j`` is the same statement; this is the one test
    of "p is an automorphism of A" in gdlcheck.
    """
    if is_sparse(A):
        return (conjugate(p, A) != A).nnz == 0
    # A[p[i], p[j]] == A[i, j], compared a block of rows at a time: no n x n copy. The rows are
    # gathered whole (contiguous copies) and then their columns taken, twice as fast at
    # n = 4096 as one np.ix_ gather.
    p = np.asarray(p)
    step = max(1, (1 << 16) // max(len(p), 1))
    return all(
        np.array_equal(A[p[start : start + step]].take(p, axis=1), A[start : start + step])
        for start in range(0, len(p), step)
    )


def is_sparse(A) -> bool:
    """A scipy.sparse matrix or array (scipy is not imported to answer no)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(A)


# Past this many points a permutation's cycle string is remembered: a check names each generator
# in its residuals, its conditions and its report (seven times a tensor in a checkpoint scan, 0.3 ms
# each at 512 points), and a 10^6-cycle took 0.5 s each.  Strings of up to LONG_PERM points are
# kept by the dozens, longer ones (megabytes) the last few.
SHORT_PERM = 64
LONG_PERM = 10_000


def cycle_string(p: Perm) -> str:
    """Disjoint-cycle notation, 0-based, fixed points left out; the identity is ``()``."""
    if len(p) > LONG_PERM:
        return _long_cycle_string(np.asarray(p, dtype=np.int64).tobytes())
    if len(p) > SHORT_PERM:
        return _mid_cycle_string(np.asarray(p, dtype=np.int64).tobytes())
    return _cycles(p)


@functools.lru_cache(maxsize=4)
def _long_cycle_string(array_bytes: bytes) -> str:
    return _cycles(np.frombuffer(array_bytes, dtype=np.int64).tolist())


@functools.lru_cache(maxsize=64)
def _mid_cycle_string(array_bytes: bytes) -> str:
    return _cycles(np.frombuffer(array_bytes, dtype=np.int64).tolist())


def _cycles(p) -> str:
    seen = [False] * len(p)
    cycles = []
    for start in range(len(p)):
        if seen[start] or p[start] == start:
            seen[start] = True
            continue
        cycle = []
        i = start
        while not seen[i]:
            seen[i] = True
            cycle.append(i)
            i = p[i]
        cycles.append("(" + " ".join(map(str, cycle)) + ")")
    return "".join(cycles) or "()"


# One quantifier per character class: "( 0)( 0)...(" must fail in linear time.
_CYCLES_RE = re.compile(r"^\s*(?:\([^()]*\)\s*)+$")


def parse_perm(text: str, n: int | None) -> Perm:
    """Read a permutation in cycle notation ``"(0 1 2)(3 4)"`` or array form ``"[1, 0, 2]"``.

    ``n`` is the degree; with cycle notation and ``n`` None the degree is the largest point
    named plus one.  Raises :class:`GroupError` naming the problem.
    """
    s = str(text).strip()
    if s.startswith("["):
        return _parse_array_form(s, n)
    if s == "()" or s == "":
        if n is None:
            raise GroupError(f"generator {text!r}: the identity needs an explicit {param('n')}")
        return identity(n)
    if not _CYCLES_RE.match(s):
        raise GroupError(
            f"generator {text!r} is neither cycle notation like '(0 1)(2 3)' nor array form like '[1, 0, 3, 2]'"
        )
    cycles = []
    for body in re.findall(r"\(([^()]*)\)", s):
        tokens = body.replace(",", " ").split()
        try:
            cycles.append([int(t) for t in tokens])
        except ValueError:
            raise GroupError(f"generator {text!r}: cycle ({body}) has a point that is not an integer") from None
    points = [x for c in cycles for x in c]
    if any(x < 0 for x in points):
        raise GroupError(f"generator {text!r}: points are 0-based and cannot be negative")
    degree = n if n is not None else (max(points) + 1 if points else 0)
    if degree > MAX_POINTS:
        raise GroupError(
            f"generator {shorten(text, 40)!r}: point {degree - 1} makes n = {degree}, over the limit of "
            f"{MAX_POINTS} points"
        )
    if any(x >= degree for x in points):
        bad = max(points)
        raise GroupError(f"generator {text!r}: point {bad} is out of range 0..{degree - 1}")
    if len(set(points)) != len(points):
        dup = next(x for x in points if points.count(x) > 1)
        raise GroupError(f"generator {text!r}: point {dup} appears in more than one place; cycles must be disjoint")
    image = list(range(degree))
    for c in cycles:
        for a, b in zip(c, c[1:] + c[:1]):
            image[a] = b
    return tuple(image)


def _parse_array_form(s: str, n: int | None) -> Perm:
    if not s.endswith("]"):
        raise GroupError(f"generator {s!r}: array form must look like '[1, 0, 3, 2]'")
    body = s[1:-1].replace(",", " ").split()
    try:
        arr = [int(t) for t in body]
    except ValueError:
        raise GroupError(f"generator {s!r}: array form holds a non-integer") from None
    return check_perm(arr, n, label=s)


def check_perm(arr, n: int | None, label: str | None = None) -> Perm:
    """Check that ``arr`` is a bijection of ``0..n-1`` and return it as a tuple."""
    label = label or str(list(arr))
    arr = [int(x) for x in arr]
    if n is not None and len(arr) != n:
        raise GroupError(f"generator {label} has length {len(arr)}, expected n = {n}")
    m = len(arr)
    out = [x for x in arr if not 0 <= x < m]
    if out:
        raise GroupError(f"generator {label}: point {out[0]} is out of range 0..{m - 1}")
    if len(set(arr)) != m:
        seen: set[int] = set()
        for dup in arr:  # the first point seen twice
            if dup in seen:
                break
            seen.add(dup)
        missing = min(set(range(m)) - set(arr))
        raise GroupError(
            f"generator {label} is not a bijection: {dup} appears twice and {missing} is missing; "
            f"list each of 0..{m - 1} once"
        )
    return tuple(arr)
