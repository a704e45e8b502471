"""Sparse exact linear solves with symbolic entries.

Gauss-Jordan elimination on rows stored as ``{column: entry}``.  Pivots are
chosen among entries known to be nonzero: plain numbers first (the common case
of constant forms, which then never leaves exact rational arithmetic), then the
smallest symbolic entries that the zero test decides are not identically zero.
Used for ``i_X w = dH``, the contact equations and the implicit function
theorem, so that no large symbolic matrix is ever inverted.

A pivot is *decided* zero only when the zero test proves it; a pivot the test cannot
decide within its budget is *undecided*.  When no usable pivot is left,
:class:`SingularSystem` says which of the two happened (``undecided``): a decided
singularity is a fact about the equations, an undecided one only says that symbolic
elimination gave up.  Fill-in can make later pivots huge, so a ``deadline`` (a
``time.monotonic()`` value) stops the elimination early with :class:`EliminationTooCostly`.

>>> import sympy
>>> x = sympy.Symbol("x")
>>> solve_sparse([{0: 2, 1: x}, {1: 1}], [[1, 3]], 2)
[[1/2 - 3*x/2, 3]]
>>> try:
...     solve_sparse([{0: x - x}, {0: 0}], [[1, 1]], 1)
... except SingularSystem as exc:
...     print(exc.column, exc.undecided)
0 False
"""

from __future__ import annotations

import time
from typing import Sequence

import sympy

from .errors import GeomcheckError
from .latex import expression_size

__all__ = ["SingularSystem", "InconsistentSystem", "EliminationTooCostly", "solve_sparse", "solve_affine"]

#: seconds the zero test may spend on one candidate pivot
PIVOT_BUDGET = 5.0

#: candidate pivots are ranked by their tree size up to this many nodes (larger ones tie)
_PIVOT_SIZE = 10_000


class SingularSystem(GeomcheckError, ValueError):
    """No usable pivot for some unknown (internal; callers rephrase it).

    ``undecided`` is False when every candidate pivot was proved zero (the system is
    singular) and True when some candidate could not be decided within the budget.
    """

    def __init__(self, column, undecided=False):
        what = "no pivot decided nonzero" if undecided else "no nonzero pivot"
        super().__init__(f"{what} for unknown {column}")
        self.column = column
        self.undecided = undecided


class EliminationTooCostly(GeomcheckError, TimeoutError):
    """The symbolic elimination passed its deadline (internal: callers take another route)."""

    def __init__(self, column, ncols):
        super().__init__(f"symbolic elimination passed its deadline at unknown {column} of {ncols}")
        self.column = column


class InconsistentSystem(GeomcheckError, ValueError):
    """An overdetermined system has a row that reduces to 0 = nonzero (internal)."""

    def __init__(self, residual):
        super().__init__(f"inconsistent equation: 0 = {residual}")
        self.residual = residual


def _pivot_budget(deadline):
    if deadline is None:
        return PIVOT_BUDGET
    return max(0.05, min(PIVOT_BUDGET, deadline - time.monotonic()))


def _zero_status(entry, deadline=None):
    """True (proved zero), False (proved nonzero) or None (undecided)."""
    if entry.is_Number:
        return entry == 0
    from .zero import decide_zero

    return decide_zero(entry, budget=_pivot_budget(deadline)).is_zero


def _is_zero_or_unknown(entry) -> bool:
    return _zero_status(entry) is not False


def _check_deadline(deadline, col, ncols):
    if deadline is not None and time.monotonic() > deadline:
        raise EliminationTooCostly(col, ncols)


def solve_sparse(rows: Sequence[dict], rhs: Sequence[Sequence], ncols: int, deadline=None):
    """Solve ``A x = b_k`` for every right-hand side ``b_k``.

    Parameters
    ----------
    rows : list of dict {column: entry}
        The rows of A (at least ``ncols`` of them; extra rows must be consistent).
    rhs : list of right-hand sides, each a list with one entry per row.
    ncols : number of unknowns.
    deadline : float, optional
        A ``time.monotonic()`` value after which the elimination stops.

    Returns
    -------
    list of solutions, one per right-hand side, each a list of ``ncols`` expressions.

    Raises
    ------
    SingularSystem
        No pivot for some unknown (``undecided`` says whether the zero test gave up).
    InconsistentSystem
    EliminationTooCostly
        The deadline passed.
    """
    A = [{c: sympy.sympify(v) for c, v in r.items() if v != 0} for r in rows]
    B = [[sympy.sympify(b[i]) for b in rhs] for i in range(len(A))]
    free = set(range(len(A)))
    pivots = {}
    for col in range(ncols):
        _check_deadline(deadline, col, ncols)
        candidates = [r for r in free if col in A[r]]
        numeric = [r for r in candidates if A[r][col].is_Number]
        chosen = None
        undecided = False
        if numeric:
            # prefer sparse rows: less fill-in
            chosen = min(numeric, key=lambda r: len(A[r]))
        else:
            # simplest entries first (cheapest to decide); the size is bounded, so ranking
            # a huge entry costs no more than ranking a small one
            for r in sorted(candidates, key=lambda r: expression_size(A[r][col], _PIVOT_SIZE)):
                status = _zero_status(A[r][col], deadline)
                if status is False:
                    chosen = r
                    break
                if status is None:
                    undecided = True
                _check_deadline(deadline, col, ncols)
        if chosen is None:
            raise SingularSystem(col, undecided=undecided)
        free.discard(chosen)
        pivots[col] = chosen
        prow, pb, piv = A[chosen], B[chosen], A[chosen][col]
        for r in range(len(A)):
            if r == chosen or col not in A[r]:
                continue
            _check_deadline(deadline, col, ncols)
            factor = A[r][col] / piv
            row = A[r]
            for c, v in prow.items():
                # no cancel/together here: on the nested quotients of an implicit
                # scheme's Jacobian they cost seconds, and the zero test decides the
                # resulting rational expressions exactly anyway
                nv = row.get(c, 0) - factor * v
                if nv == 0:
                    row.pop(c, None)
                else:
                    row[c] = nv
            row.pop(col, None)
            B[r] = [b - factor * p for b, p in zip(B[r], pb)]
    for r in free:
        for b in B[r]:
            if b != 0 and not _is_zero_or_unknown(b):
                raise InconsistentSystem(b)
    solutions = []
    for k in range(len(rhs)):
        sol = []
        for col in range(ncols):
            r = pivots[col]
            sol.append(B[r][k] / A[r][col])
        solutions.append(sol)
    return solutions


def solve_affine(exprs: Sequence, unknowns: Sequence, targets: Sequence):
    """The ``unknowns`` solving ``exprs == targets`` when every expression is affine in them, else None.

    None also when the linear part is singular (no unique solution).  One sparse solve: this is
    how a Legendre transform affine in the velocities (or momenta) is inverted.

    >>> import sympy
    >>> v, w, p, q = sympy.symbols("v w p q")
    >>> solve_affine([2 * v + w, w], [v, w], [p, q])
    [p/2 - q/2, q]
    >>> solve_affine([v**2], [v], [p]) is None
    True
    """
    from .calculus import diff

    rows = []
    for f in exprs:
        row = {}
        for j, u in enumerate(unknowns):
            c = diff(f, u)
            if any(diff(c, x) != 0 for x in unknowns):
                return None
            if c != 0:
                row[j] = c
        rows.append(row)
    at_zero = {u: 0 for u in unknowns}
    rhs = [t - f.xreplace(at_zero) for t, f in zip(targets, exprs)]
    try:
        (sol,) = solve_sparse(rows, [rhs], len(unknowns))
    except SingularSystem:
        return None
    return sol
