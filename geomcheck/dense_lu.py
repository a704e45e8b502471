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

import math

from mpmath.libmp import from_man_exp

from .errors import SingularMatrixError

__all__ = ["lu_factor", "lu_solve", "lu_determinant", "default_singular", "solve_equilibrated", "FloatFactor",
           "float_factor", "FLOAT_MAX_CONDITION", "ExactMatrix", "refine_solve"]

#: a float64 factorization is used only when the dimension times the 2-norm condition number of the
#: equilibrated matrix is at most this: each solve is then accurate to about 1e-8 relative (an iteration
#: that corrects with it gains about 8 digits a step), and every pivot of the multiprecision LU of the
#: same matrix lies far above :func:`default_singular` (see :func:`float_factor`)
FLOAT_MAX_CONDITION = 1e8


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


def _float_of(value, shift):
    """``value * 2**-shift`` as a float (None for a non-finite or complex number)."""
    mpf = getattr(value, "_mpf_", None)
    if mpf is None:
        return None
    sign, man, exp, bc = mpf
    if not man:
        return None if exp else 0.0  # exp != 0 with a zero mantissa: inf or nan
    drop = bc - 60 if bc > 60 else 0
    f = math.ldexp(man >> drop, exp + drop - shift)
    return -f if sign else f


def _mag_of(value):
    """The binary exponent of ``value`` (|value| < 2**mag), None for 0 or a non-finite/complex number."""
    mpf = getattr(value, "_mpf_", None)
    if mpf is None or not mpf[1]:
        return None
    return mpf[2] + mpf[3]


class FloatFactor:
    """A float64 LU of a multiprecision matrix, its rows and columns scaled by powers of two.

    Made by :func:`float_factor`.  :meth:`solve` returns an approximate solution in the
    multiprecision context (relative error about ``condition * 1e-16``): a correction for an
    iteration whose residual is computed at full precision (a simplified Newton's method,
    iterative refinement), never a final answer by itself.
    """

    __slots__ = ("row_shift", "col_shift", "lu", "condition")

    def __init__(self, row_shift, col_shift, lu, condition):
        self.row_shift, self.col_shift, self.lu, self.condition = row_shift, col_shift, lu, condition

    def solve(self, ctx, b):
        """``x`` (numbers of ``ctx``) with ``A x`` close to ``b``; None when ``b`` is complex or not finite."""
        import numpy
        from scipy.linalg import lu_solve as float_lu_solve

        mags = []
        for value, r in zip(b, self.row_shift):
            if value:
                m = _mag_of(value)
                if m is None:
                    return None
                mags.append(m - r)
        if not mags:
            return [ctx.zero] * len(b)
        s = max(mags)
        rhs = numpy.array([_float_of(value, r + s) if value else 0.0 for value, r in zip(b, self.row_shift)])
        y = float_lu_solve(self.lu, rhs, check_finite=False)
        if not numpy.all(numpy.isfinite(y)):
            return None
        out = []
        prec, rnd = ctx._prec_rounding
        for v, c in zip(y.tolist(), self.col_shift):
            if v:
                mantissa, exponent = math.frexp(v)  # v = mantissa 2**exponent exactly, 53 bits
                out.append(ctx.make_mpf(from_man_exp(int(mantissa * 9007199254740992), exponent - 53 + s - c,
                                                     prec, rnd)))
            else:
                out.append(ctx.zero)
        return out

    def solve_parts(self, b):
        """``(y, s)`` with ``x_k = y[k] * 2**(s - col_shift[k])`` solving ``A x`` close to ``b``, given as
        ``(m_i, e_i)`` pairs (``b_i = m_i 2**e_i``, integers); None when the solution is not finite."""
        import numpy
        from scipy.linalg import lu_solve as float_lu_solve

        mags = [m.bit_length() + e - r for (m, e), r in zip(b, self.row_shift) if m]
        if not mags:
            return [0.0] * len(b), 0
        s = max(mags)
        rhs = []
        for (m, e), r in zip(b, self.row_shift):
            if not m:
                rhs.append(0.0)
                continue
            drop = m.bit_length() - 60 if m.bit_length() > 60 else 0
            rhs.append(math.ldexp(m >> drop if m > 0 else -((-m) >> drop), e + drop - r - s))
        y = float_lu_solve(self.lu, numpy.array(rhs), check_finite=False)
        if not numpy.all(numpy.isfinite(y)):
            return None
        return y.tolist(), s


def float_factor(ctx, A, max_condition=FLOAT_MAX_CONDITION) -> FloatFactor | None:
    """A :class:`FloatFactor` of the square matrix ``A`` (rows of numbers of ``ctx``), or None.

    The rows and then the columns are scaled by powers of two to largest entry in ``[1/2, 1)``
    (as in :func:`solve_equilibrated`), the scaled matrix is rounded to float64 and factored by
    LAPACK.  None -- the caller then uses the multiprecision LU -- when an entry is complex or
    not finite, a row or column is zero, or ``n * cond(scaled)`` exceeds ``max_condition`` or
    ``10**(0.7 dps) / 100``.  Then every pivot of :func:`lu_factor` on the same scaled matrix
    is at least ``1 / (n cond)`` (``|1/u_kk| <= ||U^-1|| <= ||A^-1|| ||L||`` and
    ``||L|| <= n``), far above its singularity threshold ``10**(-0.7 dps)``: the float path is
    taken only where the multiprecision path would not refuse the matrix as singular.

    >>> import mpmath
    >>> A = [[mpmath.mpf(2), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(3)]]
    >>> f = float_factor(mpmath.mp, A)
    >>> [mpmath.nstr(x, 10) for x in f.solve(mpmath.mp, [mpmath.mpf(3), mpmath.mpf(4)])]
    ['1.0', '1.0']
    >>> float_factor(mpmath.mp, [[mpmath.mpf(1), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(1)]]) is None
    True
    """
    import numpy
    from scipy.linalg import lu_factor as float_lu_factor

    n = len(A)
    if not n:
        return None
    # the nonzero entries once, as (row, column, sign, mantissa, exponent, magnitude)
    entries = []
    row_shift = []
    for i, row in enumerate(A):
        top = None
        for k, x in enumerate(row):
            if x:
                mpf = getattr(x, "_mpf_", None)
                if mpf is None or not mpf[1]:
                    return None  # complex, inf or nan
                m = mpf[2] + mpf[3]
                entries.append((i, k, mpf[0], mpf[1], mpf[2], m))
                if top is None or m > top:
                    top = m
        if top is None:
            return None
        row_shift.append(top)
    col_shift = [None] * n
    for i, k, _s, _man, _e, m in entries:
        m -= row_shift[i]
        if col_shift[k] is None or m > col_shift[k]:
            col_shift[k] = m
    if None in col_shift:
        return None
    S = numpy.zeros((n, n))
    for i, k, sign, man, exp, _m in entries:
        drop = man.bit_length() - 60
        f = math.ldexp(man >> drop, exp + drop - row_shift[i] - col_shift[k]) if drop > 0 else \
            math.ldexp(man, exp - row_shift[i] - col_shift[k])
        S[i, k] = -f if sign else f
    with numpy.errstate(all="ignore"):
        condition = float(numpy.linalg.cond(S))
    limit = min(max_condition, 10 ** (0.7 * ctx.dps) / 100)
    if not math.isfinite(condition) or n * condition > limit:
        return None
    return FloatFactor(row_shift, col_shift, float_lu_factor(S, check_finite=False), condition)


def _exact_parts(value):
    """``(m, e)`` with ``value == m * 2**e`` exactly (``m`` a signed int); None for complex or non-finite."""
    mpf = getattr(value, "_mpf_", None)
    if mpf is None:
        return None
    sign, man, exp, _bc = mpf
    if not man:
        return None if exp else (0, 0)
    return (-man if sign else man), exp


class ExactMatrix:
    """A matrix of multiprecision numbers as integers, row by row: residuals computed exactly.

    Row ``i`` is ``[(k, m_ik)]`` (nonzero entries only) with ``A[i][k] = m_ik * 2**E_i``.
    """

    __slots__ = ("rows", "exps")

    def __init__(self, A):
        self.rows, self.exps = [], []
        for row in A:
            parts = []
            for k, x in enumerate(row):
                if x:
                    pe = _exact_parts(x)
                    if pe is None:
                        raise ValueError("a complex or non-finite entry")
                    parts.append((k, pe[0], pe[1]))
            E = min((e for _k, _m, e in parts), default=0)
            self.rows.append([(k, m << (e - E)) for k, m, e in parts])
            self.exps.append(E)

    def residual(self, ctx, x, b, bits=64):
        """``b - A x`` computed exactly, each entry rounded to ``bits`` bits (numbers of ``ctx``)."""
        xs = [_exact_parts(v) for v in x]
        if any(p is None for p in xs):
            raise ValueError("a complex or non-finite entry")
        F = min((e for m, e in xs if m), default=0)
        X = [m << (e - F) if m else 0 for m, e in xs]
        out = []
        for row, E, bi in zip(self.rows, self.exps, b):
            s = sum(m * X[k] for k, m in row)  # A x row i, times 2**-(E + F)
            pb = _exact_parts(bi)
            if pb is None:
                raise ValueError("a complex or non-finite entry")
            e = E + F
            if pb[0]:
                if pb[1] >= e:
                    s = (pb[0] << (pb[1] - e)) - s
                else:
                    s = pb[0] - (s << (e - pb[1]))
                    e = pb[1]
            else:
                s = -s
            out.append(ctx.make_mpf(from_man_exp(s, e, bits, "n")) if s else ctx.zero)
        return out


def refine_solve(ctx, exact, factor, b, max_steps=None):
    """``x`` with ``A x = b`` to the working precision of ``ctx``, or None when the iteration stalls.

    Iterative refinement in fixed point: ``x`` is kept as integers times ``2**-F`` (``F`` bits
    below its largest entry beyond the precision), its residual ``b - A x`` is computed exactly
    (``exact``, an :class:`ExactMatrix` of ``A``) and the corrections come from the float64
    ``factor`` of ``A`` (:func:`float_factor`), until a correction is below ``2**-(prec - 4)``
    of the solution's largest entry: rounding noise, the iteration contracting by about
    ``n cond(A) 2**-53`` a step (at most ``1e-8``: :data:`FLOAT_MAX_CONDITION`).

    >>> import mpmath
    >>> A = [[mpmath.mpf(2), mpmath.mpf(1)], [mpmath.mpf(1), mpmath.mpf(3)]]
    >>> x = refine_solve(mpmath.mp, ExactMatrix(A), float_factor(mpmath.mp, A), [mpmath.mpf(1), mpmath.mpf(0)])
    >>> max(abs(x[0] - mpmath.mpf(3) / 5), abs(x[1] + mpmath.mpf(1) / 5)) < mpmath.mpf(2) ** (4 - mpmath.mp.prec)
    True
    """
    n = len(b)
    bs = [_exact_parts(v) for v in b]
    if any(p is None for p in bs):
        raise ValueError("a complex or non-finite entry")
    if not any(m for m, _e in bs):
        return [ctx.zero] * n
    first = factor.solve(ctx, b)
    if first is None:
        return None
    top = max((ctx.mag(v) for v in first if v), default=None)
    if top is None:
        return None
    prec = ctx.prec
    F = prec + 16 - top          # x_k = X_k 2**-F
    X = []
    for v in first:
        m, e = _exact_parts(v)
        X.append(m << (e + F) if e + F >= 0 else m >> -(e + F))
    if max_steps is None:
        max_steps = 4 + prec // 16
    rows, exps = exact.rows, exact.exps
    noise = F - prec + 4 + top   # a correction below 2**(top - prec + 4), in units 2**-F
    col_shift = factor.col_shift
    for _ in range(max_steps):
        # r_i = b_i - (A x)_i, exactly, as (integer, exponent)
        r = []
        for row, E, (mb, eb) in zip(rows, exps, bs):
            s = sum(m * X[k] for k, m in row)
            e = E - F
            if mb:
                if eb >= e:
                    s = (mb << (eb - e)) - s
                else:
                    s = mb - (s << (e - eb))
                    e = eb
            else:
                s = -s
            r.append((s, e))
        if not any(m for m, _e in r):
            break
        solved = factor.solve_parts(r)
        if solved is None:
            return None
        y, shift = solved
        largest = 0
        for k, v in enumerate(y):
            if v:
                mantissa, exponent = math.frexp(v)  # v = mantissa 2**exponent, 53 bits
                d = int(mantissa * 9007199254740992)
                e = exponent - 53 + shift - col_shift[k] + F
                d = d << e if e >= 0 else (d >> -e if d > 0 else -((-d) >> -e))
                X[k] += d
                if abs(d) > largest:
                    largest = abs(d)
        if largest.bit_length() <= noise:
            break
    else:
        return None
    prec_rnd = ctx._prec_rounding
    return [ctx.make_mpf(from_man_exp(v, -F, *prec_rnd)) if v else ctx.zero for v in X]
