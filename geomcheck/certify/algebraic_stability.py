"""Algebraic stability of Runge-Kutta methods, decided exactly (Burrage-Butcher).

A Runge-Kutta method ``(A, b)`` is *algebraically stable* when

    b_i >= 0 for every i   and   M = B A + A^T B - b b^T  is positive semidefinite,

``B = diag(b)``, i.e. ``m_ij = b_i a_ij + b_j a_ji - b_i b_j`` (Burrage and Butcher 1979;
Hairer, Wanner, *Solving ODEs II*, IV.12).  It implies B-stability (contractivity for every
dissipative problem) and hence A-stability.
The definition is a statement about the tableau as written; it is checked on it.

How positive semidefiniteness is decided
----------------------------------------
Not by leading principal minors: ``[[0, 0], [0, -1]]`` has leading minors 0 and 0 and is not
positive semidefinite.  :func:`is_positive_semidefinite` runs symmetric Gaussian elimination
with diagonal pivots in exact arithmetic (the number field of the entries): a positive
pivot is eliminated (``M`` is PSD iff its Schur complement is), a zero pivot must have a
zero row, a negative one refutes.  Signs of algebraic numbers are decided exactly by
:func:`geomcheck.certify.linear_stability.real_sign`.  A refutation comes with a vector
``x`` (exact) for which ``x^T M x < 0`` was verified on the original matrix.

Examples
--------
>>> from sympy import Rational as R
>>> from geomcheck.certify.tableaux import ButcherTableau
>>> radau_ia = ButcherTableau([[R(1, 4), R(-1, 4)], [R(1, 4), R(5, 12)]], [R(1, 4), R(3, 4)], name="Radau IA")
>>> is_algebraically_stable(radau_ia).holds
True
>>> trapezoidal = ButcherTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], name="Lobatto IIIA s=2")
>>> c = is_algebraically_stable(trapezoidal)
>>> c.holds, c.counterexample
(False, {'x': (1, 0), 'x^T M x': -1/4})
"""

from __future__ import annotations

from typing import Any

import sympy

from ..errors import InvalidArgumentError, ShapeError
from ..latex import Derivation, tex_text
from .certificate import Certificate
from .exact_sign import real_sign, tableau_arithmetic
from .tableau_arithmetic import ExactDomain, domain_for, gauss_jordan
from .tableaux import ButcherTableau

__all__ = ["algebraic_stability_matrix", "is_positive_semidefinite", "is_algebraically_stable"]


def algebraic_stability_matrix(T: ButcherTableau) -> sympy.ImmutableMatrix:
    """``M = B A + A^T B - b b^T`` (``m_ij = b_i a_ij + b_j a_ji - b_i b_j``), exactly.

    ``M = 0`` is the symplecticity condition of Runge-Kutta methods.

    >>> from sympy import Rational as R
    >>> algebraic_stability_matrix(ButcherTableau([[1]], [1]))              # implicit Euler
    Matrix([[1]])
    """
    ar = tableau_arithmetic(T, "algebraic_stability_matrix")
    return sympy.ImmutableMatrix([[ar.dom.to_sympy(x) for x in row] for row in _m_matrix(ar)])


def _m_matrix(ar):
    A, b, s = ar.A, ar.b, ar.s
    return [[b[i] * A[i][j] + b[j] * A[j][i] - b[i] * b[j] for j in range(s)] for i in range(s)]


def _quadratic_form(dom, M, x):
    acc = dom.zero
    for i, row in enumerate(M):
        for j, m in enumerate(row):
            if m and x[i] and x[j]:
                acc = acc + x[i] * m * x[j]
    return acc


def _solve(dom, S, rhs):
    """``S x = rhs`` for a nonsingular ``S`` (Gauss-Jordan, exact)."""
    n = len(S)
    aug = gauss_jordan([list(S[i]) + [rhs[i]] for i in range(n)], n)
    return [aug[i][n] for i in range(n)]


def _psd_decision(dom, M):
    """``(verdict, x, steps)``: whether the symmetric ``M`` is PSD; ``x`` with ``x^T M x < 0``
    when not (verified on ``M``); None when a sign could not be decided."""
    n = len(M)
    S = [list(row) for row in M]            # the current Schur complement, on the indices `rest`
    rest = list(range(n))
    pivots = []
    steps = []
    while rest:
        k = rest[0]
        sg = real_sign(dom, S[0][0])
        if sg is None:
            return None, None, steps
        y = None
        if sg < 0:
            y = {k: dom.one}
            steps.append(f"pivot {k + 1}: the diagonal entry {dom.short(S[0][0])} of the Schur complement is negative")
        elif sg == 0:
            nz = next((j for j in range(1, len(rest)) if S[0][j]), None)
            if nz is not None:
                # (t e_k + e_j)^T S (t e_k + e_j) = s_jj + 2 t s_kj = -1 for this t
                t = -(S[nz][nz] + dom.one) / (2 * S[0][nz])
                y = {k: t, rest[nz]: dom.one}
                steps.append(f"pivot {k + 1}: zero diagonal entry but nonzero entry ({k + 1}, {rest[nz] + 1}) "
                             f"in the Schur complement")
            else:
                steps.append(f"pivot {k + 1}: zero diagonal entry and zero row; dropped")
                S = [row[1:] for row in S[1:]]
                rest = rest[1:]
                continue
        if y is not None:
            # lift y (on the remaining indices) to x with x^T M x = y^T S y: x_P = -M_PP^{-1} M_PR y
            x = [dom.zero] * n
            for idx, v in y.items():
                x[idx] = v
            if pivots:
                rhs = [-sum((M[p][r] * x[r] for r in rest), dom.zero) for p in pivots]
                xp = _solve(dom, [[M[p][q] for q in pivots] for p in pivots], rhs)
                for p, v in zip(pivots, xp):
                    x[p] = v
            value = _quadratic_form(dom, M, x)
            if real_sign(dom, value) != -1:  # pragma: no cover - the algebra guarantees it
                return None, None, steps + ["the refuting vector could not be confirmed"]
            return False, (x, value), steps
        # positive pivot: eliminate it
        p0 = S[0][0]
        steps.append(f"pivot {k + 1}: {dom.short(p0)} > 0, eliminated")
        S = [[S[a][c] - S[a][0] * S[0][c] / p0 for c in range(1, len(rest))] for a in range(1, len(rest))]
        pivots.append(k)
        rest = rest[1:]
    return True, None, steps


def _check_matrix(M) -> list:
    if isinstance(M, (str, bytes)) or isinstance(M, sympy.Basic) and not isinstance(M, sympy.MatrixBase):
        raise ShapeError(f"is_positive_semidefinite needs a square matrix, not {M!r}")
    try:
        rows = [list(r) for r in (M.tolist() if hasattr(M, "tolist") else M)]
    except TypeError:
        raise ShapeError(f"is_positive_semidefinite needs a square matrix (a list of rows), not {M!r}") from None
    n = len(rows)
    if n == 0 or any(len(r) != n for r in rows):
        raise ShapeError(f"is_positive_semidefinite needs a nonempty square matrix; got rows of lengths "
                         f"{[len(r) for r in rows]}")
    out = []
    for i, r in enumerate(rows):
        row = []
        for j, v in enumerate(r):
            if isinstance(v, float):
                raise InvalidArgumentError(f"entry ({i}, {j}) = {v!r} is a float; give exact entries "
                                           f"(sympy.Rational, sympy.sqrt(...))")
            try:
                e = sympy.sympify(v, strict=True)
            except (sympy.SympifyError, TypeError, ValueError):
                raise InvalidArgumentError(f"entry ({i}, {j}) = {v!r} is not a number") from None
            if not isinstance(e, sympy.Expr) or not e.is_number or e.is_real is False or e.has(sympy.Float):
                raise InvalidArgumentError(f"entry ({i}, {j}) = {e} is not an exact real number")
            row.append(e)
        out.append(row)
    return out


def is_positive_semidefinite(M: Any) -> Certificate:
    """Whether a symmetric matrix of exact real numbers is positive semidefinite.

    Exact symmetric elimination with diagonal pivots (see the module docstring); every
    principal minor counts, not only the leading ones.  A failure has ``counterexample``
    ``{"x": x, "x^T M x": value}`` (value < 0, exact); a non-symmetric matrix gives False with
    the first asymmetric pair.  Entries that are not rational or algebraic give None.

    >>> is_positive_semidefinite([[0, 0, 0], [0, 0, 1], [0, 1, 0]]).counterexample   # leading minors 0, 0, 0
    {'x': (0, -1/2, 1), 'x^T M x': -1}
    >>> import sympy
    >>> is_positive_semidefinite([[1, sympy.sqrt(2)], [sympy.sqrt(2), 2]]).holds      # rank 1
    True

    Raises
    ------
    ShapeError
        ``M`` is not a nonempty square matrix.
    InvalidArgumentError
        An entry is not an exact real number.
    """
    rows = _check_matrix(M)
    n = len(rows)
    dom = domain_for([x for r in rows for x in r])
    claim = f"the {n} x {n} matrix is positive semidefinite"
    d = Derivation(tex_text("Positive semidefiniteness")).add("The matrix:", sympy.latex(sympy.Matrix(rows)))
    if not isinstance(dom, ExactDomain):
        return Certificate(claim=claim, holds=None, method=f"entries not rational or algebraic ({dom.describe()})",
                           stage="unknown", derivation=d.concluding("Undecided."))
    Md = [[dom.convert(x) for x in r] for r in rows]
    for i in range(n):
        for j in range(i + 1, n):
            if Md[i][j] != Md[j][i]:
                return Certificate(claim=claim, holds=False, method=f"{dom.describe()}: the matrix is not symmetric",
                                   stage="exact", counterexample={"entry": (i, j), "m_ij - m_ji":
                                                                  dom.to_sympy(Md[i][j] - Md[j][i])},
                                   derivation=d.concluding("The matrix is not symmetric."))
    return _psd_certificate(dom, Md, claim, d, "M")


def _psd_certificate(dom, Md, claim, d, name):
    verdict, found, steps = _psd_decision(dom, Md)
    d = d.add(f"Symmetric Gaussian elimination with diagonal pivots on ${name}$ ({tex_text(dom.describe())}): "
              + tex_text("; ".join(steps)) + ".")
    method = f"{dom.describe()}: exact symmetric elimination with diagonal pivots"
    if verdict is None:
        return Certificate(claim=claim, holds=None, method="a sign could not be decided", stage="unknown",
                           derivation=d.concluding("Undecided."))
    if verdict is False:
        x, value = found
        xs = tuple(dom.to_sympy(v) for v in x)
        d = d.add(f"For $x = {sympy.latex(sympy.Matrix(xs).T)}^T$, exactly, $x^T {name} x = {dom.tex(value)} < 0$.")
        return Certificate(claim=claim, holds=False, method=method, stage="exact",
                           counterexample={"x": xs, "x^T M x": dom.to_sympy(value)},
                           derivation=d.concluding(f"${name}$ is not positive semidefinite."))
    return Certificate(claim=claim, holds=True, method=method, stage="exact",
                       derivation=d.concluding(f"Every pivot is positive or has a zero row: ${name}$ is positive "
                                               f"semidefinite."))


def is_algebraically_stable(T: ButcherTableau) -> Certificate:
    """Whether ``b_i >= 0`` for all i and ``M = B A + A^T B - b b^T`` is positive semidefinite.

    ``residual`` is ``M``; a failure has ``counterexample`` ``{"b_i": value}`` (stages
    numbered from 1) for a negative weight, else ``{"x": x, "x^T M x": value}`` with the
    exact negative value.  Tableaux with floating-point or non-algebraic entries give None.

    >>> from sympy import Rational as R
    >>> is_algebraically_stable(ButcherTableau([[1]], [1])).holds             # implicit Euler
    True
    >>> is_algebraically_stable(ButcherTableau([[R(1, 2), 0], [R(1, 2), R(1, 2)]], [R(3, 2), R(-1, 2)])).counterexample
    {'b_2': -1/2}
    """
    ar = tableau_arithmetic(T, "is_algebraically_stable")
    claim = f"{T.label} is algebraically stable (b >= 0 and B A + A^T B - b b^T positive semidefinite)"
    d = Derivation(tex_text(f"Algebraic stability of {T.label}"))
    d = d.add("The tableau:", sympy.latex(T) if T.s <= 8 else r"\text{(" + str(T.s) + r" stages)}")
    d = d.add(r"Definition (Burrage, Butcher; Hairer, Wanner II, IV.12): $b_i \ge 0$ and "
              r"$M = BA + A^TB - bb^T$, $m_{ij} = b_i a_{ij} + b_j a_{ji} - b_i b_j$, positive semidefinite.")
    dom = ar.dom
    if not ar.exact:
        return Certificate(claim=claim, holds=None, method=f"entries not rational or algebraic ({dom.describe()}); "
                                                           f"signs cannot be decided exactly", stage="unknown",
                           derivation=d.concluding("Undecided."))
    M = _m_matrix(ar)
    Ms = sympy.ImmutableMatrix([[dom.to_sympy(x) for x in row] for row in M])
    signs = [real_sign(dom, x) for x in ar.b]
    neg = next((i for i, sg in enumerate(signs) if sg is not None and sg < 0), None)
    if neg is not None:
        value = dom.to_sympy(ar.b[neg])
        d = d.add(f"The weight $b_{{{neg + 1}}} = {sympy.latex(value)} < 0$.")
        return Certificate(claim=claim, holds=False, method=f"{dom.describe()}: a negative weight", stage="exact",
                           residual=Ms, counterexample={f"b_{neg + 1}": value},
                           derivation=d.concluding("A weight is negative: the method is not algebraically stable."))
    if any(sg is None for sg in signs):
        return Certificate(claim=claim, holds=None, method="the sign of a weight could not be decided",
                           stage="unknown", derivation=d.concluding("Undecided."))
    d = d.add("All weights are nonnegative. The matrix:", "M = " + sympy.latex(Ms))
    cert = _psd_certificate(dom, M, claim, d, "M")
    return Certificate(claim=claim, holds=cert.holds, method=cert.method, stage=cert.stage, residual=Ms,
                       counterexample=cert.counterexample, derivation=cert.derivation)
