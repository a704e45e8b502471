"""Dense LU factorization with partial pivoting in a multiprecision context.

The one LU of the multiprecision Newton solvers: the zero test's implicit relations
(:mod:`geomcheck.zero.implicit`) and the stage equations of implicit steps run in mpmath
(:mod:`integrators.newton`).  ``ctx`` is an mpmath context (``mpmath.mp`` or one of the zero
test's); matrices are lists of rows.  Entries that are exactly zero are skipped in the
eliminations and substitutions (no multiprecision product by an exact zero), which is most of
the work on the sparse Jacobians of stage equations and relations.

A pivot at or below ``singular * scale`` (``scale`` the largest entry of the matrix) counts as
zero: the matrix is refused as singular to working precision (:class:`SingularMatrixError`),
rather than solved with a quotient by rounding noise.

>>> import mpmath
>>> A = [[mpmath.mpf(0), mpmath.mpf(2)], [mpmath.mpf(1), mpmath.mpf(1)]]
>>> LU, perm = lu_factor(mpmath.mp, A)
>>> [float(x) for x in lu_solve(LU, perm, [mpmath.mpf(4), mpmath.mpf(3)])]
[1.0, 2.0]
>>> float(lu_determinant(mpmath.mp, A))
-2.0
"""

from __future__ import annotations

from .errors import SingularMatrixError

__all__ = ["lu_factor", "lu_solve", "lu_determinant", "default_singular", "solve_equilibrated"]


def default_singular(ctx):
    """The relative pivot size below which a matrix is singular: ``10**(-0.7 dps)``."""
    return ctx.mpf(10) ** (-(ctx.dps * 7) // 10)


def lu_factor(ctx, A, singular=None) -> tuple[list, list]:
    """``(LU, perm)`` of the square matrix ``A`` (rows of numbers of ``ctx``), L unit lower, U upper.

    Raises
    ------
    SingularMatrixError
        A zero matrix, or a pivot at or below ``singular`` (default :func:`default_singular`) times
        the largest entry.
    """
    n = len(A)
    LU = [list(row) for row in A]
    perm = list(range(n))
    scale = max((abs(x) for row in A for x in row), default=ctx.zero)
    if not scale:
        raise SingularMatrixError("a zero matrix")
    tiny = scale * (default_singular(ctx) if singular is None else singular)
    for k in range(n):
        piv = max(range(k, n), key=lambda r: abs(LU[r][k]))
        if abs(LU[piv][k]) <= tiny:
            raise SingularMatrixError(f"a pivot below {ctx.nstr(tiny, 3)} in column {k}: singular to working"
                                      " precision")
        if piv != k:
            LU[k], LU[piv] = LU[piv], LU[k]
            perm[k], perm[piv] = perm[piv], perm[k]
        pk = LU[k][k]
        rowk = LU[k]
        for r in range(k + 1, n):
            row = LU[r]
            if not row[k]:
                continue
            f = row[k] / pk
            row[k] = f
            for c in range(k + 1, n):
                if rowk[c]:
                    row[c] -= f * rowk[c]
    return LU, perm


def lu_solve(LU, perm, b) -> list:
    """The solution ``x`` of ``A x = b`` from :func:`lu_factor`'s ``(LU, perm)``."""
    n = len(LU)
    y = [b[p] for p in perm]
    for r in range(n):
        row = LU[r]
        acc = y[r]
        for c in range(r):
            if row[c]:
                acc -= row[c] * y[c]
        y[r] = acc
    for r in range(n - 1, -1, -1):
        row = LU[r]
        acc = y[r]
        for c in range(r + 1, n):
            if row[c]:
                acc -= row[c] * y[c]
        y[r] = acc / row[r]
    return y


def lu_determinant(ctx, A):
    """The determinant of a square matrix by :func:`lu_factor` (0 when singular to working precision)."""
    try:
        LU, perm = lu_factor(ctx, A)
    except SingularMatrixError:
        return ctx.zero
    det = ctx.one
    for k in range(len(LU)):
        det *= LU[k][k]
    # the sign of the permutation, from its cycles
    seen, sign = set(), 1
    for k in range(len(perm)):
        if k in seen:
            continue
        length, j = 0, k
        while j not in seen:
            seen.add(j)
            j = perm[j]
            length += 1
        if length % 2 == 0:
            sign = -sign
    return det * sign


def solve_equilibrated(ctx, A, b, singular=None) -> list:
    """``x`` with ``A x = b``, the rows and then the columns of ``A`` scaled to largest entry 1 first.

    The pivot threshold of :func:`lu_factor` is relative to the largest entry; scaling makes the
    answer independent of the scale of an equation or of an unknown (an equation multiplied by
    ``1e-40`` is the same equation).

    >>> import mpmath
    >>> tiny = mpmath.mpf(10) ** -40
    >>> A = [[tiny, tiny], [mpmath.mpf(1), mpmath.mpf(-1)]]
    >>> [mpmath.nstr(x, 5) for x in solve_equilibrated(mpmath.mp, A, [2 * tiny, mpmath.mpf(0)])]
    ['1.0', '1.0']

    Raises
    ------
    SingularMatrixError
        A zero row or column, or a pivot of the scaled matrix at or below ``singular``.
    """
    rows, rhs = [], []
    for row, value in zip(A, b):
        m = max((abs(x) for x in row), default=ctx.zero)
        if not m:
            raise SingularMatrixError("a zero row")
        rows.append([x / m for x in row])
        rhs.append(value / m)
    cols = []
    for k in range(len(rows)):
        m = max(abs(row[k]) for row in rows)
        if not m:
            raise SingularMatrixError(f"a zero column ({k})")
        cols.append(m)
        for row in rows:
            row[k] /= m
    LU, perm = lu_factor(ctx, rows, singular)
    return [y / m for y, m in zip(lu_solve(LU, perm, rhs), cols)]
