"""Sparse exact linear solves with symbolic entries.

Gauss-Jordan elimination on rows stored as ``{column: entry}``.  Pivots are
chosen among entries known to be nonzero: plain numbers first (the common case
of constant forms, which then never leaves exact rational arithmetic), then the
smallest symbolic entries that the zero test decides are not identically zero.
Used for ``i_X w = dH``, the contact equations and the implicit function
theorem, so that no large symbolic matrix is ever inverted.
"""

from __future__ import annotations

from typing import Sequence

import sympy

from .errors import GeomcheckError

__all__ = ["SingularSystem", "InconsistentSystem", "solve_sparse"]


class SingularSystem(GeomcheckError, ValueError):
    """No nonzero pivot exists for some unknown (internal; callers rephrase it)."""

    def __init__(self, column):
        super().__init__(f"no nonzero pivot for unknown {column}")
        self.column = column


class InconsistentSystem(GeomcheckError, ValueError):
    """An overdetermined system has a row that reduces to 0 = nonzero (internal)."""

    def __init__(self, residual):
        super().__init__(f"inconsistent equation: 0 = {residual}")
        self.residual = residual


def _is_nonzero(entry) -> bool:
    if entry.is_Number:
        return entry != 0
    from .zero import decide_zero

    return decide_zero(entry, budget=5.0).is_zero is False


def _is_zero_or_unknown(entry) -> bool:
    if entry.is_Number:
        return entry == 0
    from .zero import decide_zero

    return decide_zero(entry, budget=5.0).is_zero is not False


def solve_sparse(rows: Sequence[dict], rhs: Sequence[Sequence], ncols: int):
    """Solve ``A x = b_k`` for every right-hand side ``b_k``.

    Parameters
    ----------
    rows : list of dict {column: entry}
        The rows of A (at least ``ncols`` of them; extra rows must be consistent).
    rhs : list of right-hand sides, each a list with one entry per row.
    ncols : number of unknowns.

    Returns
    -------
    list of solutions, one per right-hand side, each a list of ``ncols`` expressions.

    Raises
    ------
    SingularSystem, InconsistentSystem
    """
    A = [{c: sympy.sympify(v) for c, v in r.items() if v != 0} for r in rows]
    B = [[sympy.sympify(b[i]) for b in rhs] for i in range(len(A))]
    free = set(range(len(A)))
    pivots = {}
    for col in range(ncols):
        candidates = [r for r in free if col in A[r]]
        numeric = [r for r in candidates if A[r][col].is_Number]
        chosen = None
        if numeric:
            # prefer sparse rows: less fill-in
            chosen = min(numeric, key=lambda r: len(A[r]))
        else:
            for r in sorted(candidates, key=lambda r: sympy.count_ops(A[r][col])):
                if _is_nonzero(A[r][col]):
                    chosen = r
                    break
        if chosen is None:
            raise SingularSystem(col)
        free.discard(chosen)
        pivots[col] = chosen
        prow, pb, piv = A[chosen], B[chosen], A[chosen][col]
        for r in range(len(A)):
            if r == chosen or col not in A[r]:
                continue
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
