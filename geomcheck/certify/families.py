"""Collocation-type Runge-Kutta families generated from their polynomials, and classics.

Every tableau is *computed*, never typed in: the nodes are the zeros of the family's
polynomial and A, b solve the family's defining linear conditions (Hairer & Wanner II,
IV.5; Hairer, Lubich, Wanner II.1, VI.4):

============================  ===========================================  =====================
family                        nodes (zeros on [0, 1])                      A defined by
============================  ===========================================  =====================
:func:`gauss_legendre`        ``P_s(2x - 1)``                              C(s) (collocation)
:func:`radau_iia`             ``P_s(2x - 1) - P_{s-1}(2x - 1)`` (c_s = 1)  C(s) (collocation)
:func:`lobatto_iiia`          ``x (1 - x) P'_{s-1}(2x - 1)``               C(s) (collocation)
:func:`lobatto_iiib`          Lobatto                                      D(s)
:func:`lobatto_iiic`          Lobatto                                      a_i1 = b_1 and C(s-1)
:func:`lobatto_iiic_star`     Lobatto                                      a_is = 0 and C(s-1)
============================  ===========================================  =====================

and b from B(s) (the interpolatory quadrature on the nodes).  ``P_n`` is the Legendre
polynomial.

Exact or numeric
----------------
With ``exact=None`` (default) the entries are exact when the nodes generate a small
number field: every irreducible factor of the node polynomial is linear, quadratic, a
quartic symmetric about 1/2 (solved by radicals: ``1/2 +- sqrt(y)``), or a single cubic
(``CRootOf``).  That covers Gauss-Legendre s <= 5, Radau IIA s <= 4 and Lobatto s <= 7.
Beyond, the nodes are isolated exactly (``CRootOf``) and evaluated to ``digits + 20 + 2s``
digits, A and b are solved in mpmath at that precision and rounded to ``digits``-digit
sympy Floats; the tableau is then built with ``exact=False`` and its ``provenance`` says
how.  ``exact=True`` / ``exact=False`` force either path.

>>> from geomcheck.certify.families import gauss_legendre
>>> from geomcheck.certify.tableaux import order, is_symplectic
>>> g2 = gauss_legendre(2)
>>> g2.c
(1/2 - sqrt(3)/6, sqrt(3)/6 + 1/2)
>>> order(g2).order, is_symplectic(g2).holds
(4, True)
"""

from __future__ import annotations

import sympy

from ..errors import InvalidArgumentError
from .tableau_arithmetic import MAX_FIELD_DEGREE, NumericDomain, domain_for, gauss_jordan
from .tableaux import ButcherTableau, PartitionedTableau

__all__ = [
    "gauss_legendre",
    "radau_iia",
    "lobatto_iiia",
    "lobatto_iiib",
    "lobatto_iiic",
    "lobatto_iiic_star",
    "lobatto_iiia_iiib",
    "lobatto_iiic_iiic_star",
    "explicit_euler",
    "implicit_euler",
    "implicit_midpoint",
    "classical_rk4",
    "symplectic_euler",
    "stormer_verlet",
]

_x = sympy.Symbol("x")
R = sympy.Rational


# ------------------------------------------------------------------ node polynomials


def _shifted_legendre(n):
    return sympy.expand(sympy.legendre(n, 2 * _x - 1))


def _node_polynomial(kind, s):
    if kind == "gauss":
        return _shifted_legendre(s)
    if kind == "radau":
        return sympy.expand(_shifted_legendre(s) - _shifted_legendre(s - 1))
    if kind == "lobatto":
        return sympy.expand(_x * (1 - _x) * sympy.diff(_shifted_legendre(s - 1), _x))
    raise AssertionError(kind)  # pragma: no cover


_DESCRIPTION = {
    "gauss": "the zeros of the shifted Legendre polynomial P_{s}(2x - 1)",
    "radau": "the zeros of P_{s}(2x - 1) - P_{s1}(2x - 1) (P_n Legendre)",
    "lobatto": "the zeros of x (1 - x) P'_{s1}(2x - 1) (P_n Legendre)",
}


def _symmetric_quartic_roots(f):
    """Roots 1/2 +- sqrt(y) of an irreducible quartic symmetric about x = 1/2, or None."""
    u = sympy.Symbol("u")
    g = sympy.Poly(sympy.expand(f.as_expr().subs(_x, u + R(1, 2))), u)
    cs = g.all_coeffs()
    if len(cs) != 5 or cs[1] != 0 or cs[3] != 0:
        return None
    a, b, c = cs[0], cs[2], cs[4]
    disc = b * b - 4 * a * c
    out = []
    for sign in (-1, 1):
        y = sympy.expand((-b + sign * sympy.sqrt(disc)) / (2 * a))
        r = sympy.sqrt(y)
        out += [R(1, 2) - r, R(1, 2) + r]
    return out


def _exact_nodes(poly):
    """The zeros as exact numbers (radicals or CRootOf) and whether the field stays small."""
    _, factors = sympy.factor_list(sympy.Poly(poly, _x))
    roots, small, cubics = [], True, 0
    for f, _mult in factors:
        deg = f.degree()
        if deg <= 2:
            roots += sympy.roots(f, _x, multiple=True)
            continue
        quartic = _symmetric_quartic_roots(f) if deg == 4 else None
        if quartic is not None:
            roots += quartic
            continue
        roots += [sympy.CRootOf(f.as_expr(), k) for k in range(deg)]
        if deg == 3:
            cubics += 1
        else:
            small = False
    if cubics > 1:
        small = False
    roots.sort(key=lambda r: float(sympy.N(r, 30)))
    return roots, small


def _numeric_nodes(poly, dps):
    _, factors = sympy.factor_list(sympy.Poly(poly, _x))
    roots = []
    for f, _mult in factors:
        roots += [sympy.CRootOf(f.as_expr(), k).evalf(dps) for k in range(f.degree())]
    roots.sort()
    return roots


# ------------------------------------------------------------------ linear algebra in any arithmetic


def _solve(dom, M, rhs):
    """Solve ``M X = rhs`` (rhs a list of columns) by Gauss-Jordan elimination in ``dom``."""
    n = len(M)
    aug = [list(M[i]) + [col[i] for col in rhs] for i in range(n)]
    gauss_jordan(aug, n, numeric=dom.kind == "numeric")
    return [[aug[i][n + k] for i in range(n)] for k in range(len(rhs))]


def _pw(dom, x, k):
    return dom.one if k == 0 else x ** k


def _coefficients(dom, c, variant):
    """(A, b) in ``dom`` from the nodes ``c`` (domain elements) for a family variant."""
    s = len(c)
    V = [[_pw(dom, cj, k) for cj in c] for k in range(s)]          # V[k][j] = c_j^k
    (b,) = _solve(dom, V, [[dom.one / (k + 1) for k in range(s)]])
    if variant == "collocation":
        rhs = [[_pw(dom, ci, k + 1) / (k + 1) for k in range(s)] for ci in c]
        A = _solve(dom, V, rhs)                                     # row i solves V a_i = rhs_i
    elif variant == "D":
        W = [[b[i] * _pw(dom, c[i], k) for i in range(s)] for k in range(s)]
        rhs = [[b[j] * (dom.one - _pw(dom, c[j], k + 1)) / (k + 1) for k in range(s)] for j in range(s)]
        cols = _solve(dom, W, rhs)                                  # column j of A
        A = [[cols[j][i] for j in range(s)] for i in range(s)]
    elif variant in ("IIIC", "IIIC*"):
        fixed = 0 if variant == "IIIC" else s - 1
        free = [j for j in range(s) if j != fixed]
        Vf = [[_pw(dom, c[j], k) for j in free] for k in range(s - 1)]
        A = []
        for ci in c:
            fixed_value = b[0] if variant == "IIIC" else dom.zero
            rhs = [_pw(dom, ci, k + 1) / (k + 1) - fixed_value * _pw(dom, c[fixed], k) for k in range(s - 1)]
            (sol,) = _solve(dom, Vf, [rhs])
            row = [None] * s
            row[fixed] = fixed_value
            for j, v in zip(free, sol):
                row[j] = v
            A.append(row)
    else:  # pragma: no cover
        raise AssertionError(variant)
    return A, b


# ------------------------------------------------------------------ the generator


_CONDITIONS = {
    "collocation": "the collocation conditions C(s)",
    "D": "the conditions D(s)",
    "IIIC": "a_i1 = b_1 and C(s-1)",
    "IIIC*": "a_is = 0 and C(s-1)",
}


def _check_args(name, s, lo, exact, digits):
    if isinstance(s, bool) or not isinstance(s, int) or s < lo:
        raise InvalidArgumentError(f"{name}: the number of stages s must be an integer >= {lo}, not {s!r}")
    if exact not in (None, True, False):
        raise InvalidArgumentError(f"{name}: exact must be None, True or False, not {exact!r}")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 15:
        raise InvalidArgumentError(f"{name}: digits must be an integer >= 15, not {digits!r}")


def _family(kind, variant, title, s, exact, digits):
    poly = _node_polynomial(kind, s)
    where = _DESCRIPTION[kind].replace("{s}", str(s)).replace("{s1}", str(s - 1))
    name = f"{title} s={s}"
    if exact is not False:
        nodes, small = _exact_nodes(poly)
        if exact or small:
            dom = domain_for(nodes)
            if dom.kind != "exact":
                raise InvalidArgumentError(
                    f"{name}: exact entries would need a number field of degree above "
                    f"{MAX_FIELD_DEGREE} (the nodes are {where}); use exact=None or exact=False "
                    f"for high-precision numeric entries")
            c = [dom.convert(x) for x in nodes]
            A, b = _coefficients(dom, c, variant)
            field = dom.describe() if dom.kind == "exact" else "sympy arithmetic"
            how = "as CRootOf" if any(n.has(sympy.CRootOf) for n in nodes) else "by radicals"
            prov = (f"{title}, s={s}: nodes {where}, exactly ({how}); A and b solved "
                    f"from {_CONDITIONS[variant]} and B(s) in {field}")
            to = dom.to_sympy
            return dict(A=[[to(x) for x in row] for row in A], b=[to(x) for x in b], c=list(nodes),
                        name=name, provenance=prov, exact=True)
    work = digits + 20 + 2 * s
    nodes = _numeric_nodes(poly, work)
    dom = NumericDomain(int(work * 3.33) + 8)
    c = [dom.convert(x) for x in nodes]
    A, b = _coefficients(dom, c, variant)

    def rnd(v):
        return sympy.Float(dom.ctx.nstr(v, digits + 5, min_fixed=0, max_fixed=0), digits)

    prov = (f"{title}, s={s}: nodes {where}, isolated exactly (sympy CRootOf) and evaluated to {work} digits; "
            f"A and b solved from {_CONDITIONS[variant]} and B(s) in {work}-digit mpmath arithmetic and "
            f"rounded to {digits}-digit sympy Floats (numeric: decisions about this tableau are numeric)")
    return dict(A=[[rnd(x) for x in row] for row in A], b=[rnd(x) for x in b], c=[rnd(x) for x in c],
                name=name, provenance=prov, exact=False)


def _tableau(spec, inconsistent_c=False):
    prov = spec["provenance"]
    if inconsistent_c:
        prov += ("; c are the Lobatto nodes, which differ from the row sums of A (a property of "
                 "Lobatto IIIB: the tree conditions use the row sums, B, C, D use c)")
    return ButcherTableau(spec["A"], spec["b"], spec["c"], exact=spec["exact"], name=spec["name"],
                          provenance=prov, allow_inconsistent_c=inconsistent_c)


def gauss_legendre(s: int, *, exact: bool | None = None, digits: int = 60) -> ButcherTableau:
    """The s-stage Gauss-Legendre collocation method (order 2s, symplectic, symmetric).

    Parameters
    ----------
    s : int
        Number of stages (>= 1).
    exact : bool or None
        None: exact when the nodes generate a small number field (s <= 5), else numeric;
        True / False: force exact (possibly slow for large s) / numeric.
    digits : int
        Significant digits of the numeric entries (>= 15).

    >>> gauss_legendre(1).A
    ((1/2,),)
    >>> g6 = gauss_legendre(6)
    >>> g6.exact, g6.provenance.split(":")[0]
    (False, 'Gauss-Legendre, s=6')
    """
    _check_args("gauss_legendre", s, 1, exact, digits)
    return _tableau(_family("gauss", "collocation", "Gauss-Legendre", s, exact, digits))


def radau_iia(s: int, *, exact: bool | None = None, digits: int = 60) -> ButcherTableau:
    """The s-stage Radau IIA collocation method (order 2s - 1, stiffly accurate, not symplectic).

    >>> radau_iia(2).A
    ((5/12, -1/12), (3/4, 1/4))
    """
    _check_args("radau_iia", s, 1, exact, digits)
    return _tableau(_family("radau", "collocation", "Radau IIA", s, exact, digits))


def lobatto_iiia(s: int, *, exact: bool | None = None, digits: int = 60) -> ButcherTableau:
    """The s-stage Lobatto IIIA collocation method (order 2s - 2; s = 2 is the trapezoidal rule).

    >>> lobatto_iiia(2).A
    ((0, 0), (1/2, 1/2))
    """
    _check_args("lobatto_iiia", s, 2, exact, digits)
    return _tableau(_family("lobatto", "collocation", "Lobatto IIIA", s, exact, digits))


def lobatto_iiib(s: int, *, exact: bool | None = None, digits: int = 60) -> ButcherTableau:
    """The s-stage Lobatto IIIB method, defined by D(s) (order 2s - 2).

    Its nodes ``c`` (the Lobatto points) are *not* the row sums of A, so the tableau is
    built with ``allow_inconsistent_c=True`` (and the provenance says so).

    >>> T = lobatto_iiib(2)
    >>> T.A, T.c
    (((1/2, 0), (1/2, 0)), (0, 1))
    """
    _check_args("lobatto_iiib", s, 2, exact, digits)
    return _tableau(_family("lobatto", "D", "Lobatto IIIB", s, exact, digits), inconsistent_c=True)


def lobatto_iiic(s: int, *, exact: bool | None = None, digits: int = 60) -> ButcherTableau:
    """The s-stage Lobatto IIIC method: ``a_i1 = b_1`` and C(s-1) (order 2s - 2).

    >>> lobatto_iiic(2).A
    ((1/2, -1/2), (1/2, 1/2))
    """
    _check_args("lobatto_iiic", s, 2, exact, digits)
    return _tableau(_family("lobatto", "IIIC", "Lobatto IIIC", s, exact, digits))


def lobatto_iiic_star(s: int, *, exact: bool | None = None, digits: int = 60) -> ButcherTableau:
    """The s-stage Lobatto IIIC* method: ``a_is = 0`` and C(s-1) (order 2s - 2).

    >>> lobatto_iiic_star(3).A
    ((0, 0, 0), (1/4, 1/4, 0), (0, 1, 0))
    """
    _check_args("lobatto_iiic_star", s, 2, exact, digits)
    return _tableau(_family("lobatto", "IIIC*", "Lobatto IIIC*", s, exact, digits))


def lobatto_iiia_iiib(s: int, *, exact: bool | None = None, digits: int = 60) -> PartitionedTableau:
    """The Lobatto IIIA-IIIB pair: IIIA on q, IIIB on p (symplectic, order 2s - 2).

    For s = 2 this is the Stormer-Verlet method.

    >>> from geomcheck.certify.tableaux import is_symplectic
    >>> is_symplectic(lobatto_iiia_iiib(3)).holds
    True
    """
    q = lobatto_iiia(s, exact=exact, digits=digits)
    p = lobatto_iiib(s, exact=exact, digits=digits)
    return PartitionedTableau.from_parts(q, p, name=f"Lobatto IIIA-IIIB s={s}",
                                         provenance=f"q part: {q.provenance}; p part: {p.provenance}")


def lobatto_iiic_iiic_star(s: int, *, exact: bool | None = None, digits: int = 60) -> PartitionedTableau:
    """The Lobatto IIIC-IIIC* pair: IIIC on q, IIIC* on p (symplectic, order 2s - 2).

    >>> from geomcheck.certify.tableaux import is_symplectic
    >>> is_symplectic(lobatto_iiic_iiic_star(3)).holds
    True
    """
    q = lobatto_iiic(s, exact=exact, digits=digits)
    p = lobatto_iiic_star(s, exact=exact, digits=digits)
    return PartitionedTableau.from_parts(q, p, name=f"Lobatto IIIC-IIIC* s={s}",
                                         provenance=f"q part: {q.provenance}; p part: {p.provenance}")


# ------------------------------------------------------------------ classics


def explicit_euler() -> ButcherTableau:
    """Explicit Euler: ``A = [[0]], b = [1]`` (order 1).

    >>> explicit_euler().A
    ((0,),)
    """
    return ButcherTableau([[0]], [1], name="explicit Euler", provenance="y1 = y0 + h f(y0)")


def implicit_euler() -> ButcherTableau:
    """Implicit Euler (= Radau IIA s=1): ``A = [[1]], b = [1]`` (order 1)."""
    return ButcherTableau([[1]], [1], name="implicit Euler", provenance="y1 = y0 + h f(y1)")


def implicit_midpoint() -> ButcherTableau:
    """The implicit midpoint rule (= Gauss-Legendre s=1; order 2, symplectic)."""
    return ButcherTableau([[R(1, 2)]], [1], name="implicit midpoint", provenance="y1 = y0 + h f((y0 + y1)/2)")


def classical_rk4() -> ButcherTableau:
    """Kutta's classical fourth-order method (order 4, explicit, not symplectic).

    >>> classical_rk4().c
    (0, 1/2, 1/2, 1)
    """
    return ButcherTableau([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
                          [R(1, 6), R(1, 3), R(1, 3), R(1, 6)], name="classical RK4",
                          provenance="Kutta (1901)")


def symplectic_euler() -> PartitionedTableau:
    """Symplectic Euler: ``p1 = p0 - h H_q(q0, p1)``, ``q1 = q0 + h H_p(q0, p1)``.

    As a pair (q part, p part) = ``([[0]], [1])``, ``([[1]], [1])`` (explicit in q, implicit
    in p): order 1, symplectic.

    >>> from geomcheck.certify.tableaux import is_symplectic
    >>> is_symplectic(symplectic_euler()).holds
    True
    """
    return PartitionedTableau([[0]], [1], [[1]], [1], name="symplectic Euler",
                              provenance="q part explicit Euler, p part implicit Euler")


def stormer_verlet() -> PartitionedTableau:
    """Stormer-Verlet as the Lobatto IIIA-IIIB pair with s = 2 (order 2, symplectic, symmetric)."""
    q = lobatto_iiia(2)
    p = lobatto_iiib(2)
    return PartitionedTableau.from_parts(q, p, name="Stormer-Verlet",
                                         provenance="the Lobatto IIIA-IIIB pair with s = 2")
