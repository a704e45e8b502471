"""Adversarial soundness suite of the Runge-Kutta tableau certificates (issue 13, classes 2 and 6).

Truths come from theorems (Lasagni / Sanz-Serna / Suris for symplecticity of irreducible
methods; Hairer-Lubich-Wanner V.2 for symmetry; Butcher's tree conditions for the order;
reducible methods -- equal stages, unused stages -- are the same map as the reduced
method) and are re-checked here with an independent implementation: the symplecticity
matrix ``M = diag(b) A + A^T diag(b) - b b^T``, Butcher's elementary weights of all rooted
trees up to order 7 (own code, exact sympy or 120-digit mpmath), and the stability function
``R(z) = 1 + z b^T (I - z A)^{-1} 1`` of a reducible method compared with its reduced one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

from geomcheck.certify import tableaux as tb
from geomcheck.errors import GeomcheckError

from .judge import fail, short_trace

S3 = sp.sqrt(3)
S15 = sp.sqrt(15)


# ----------------------------------------------------------------------------- independent order theory


@cache
def trees(n):
    """Rooted trees with n vertices, as sorted tuples of child trees (own enumeration)."""
    if n == 1:
        return ((),)
    return tuple(sorted(set(forests(n - 1))))


@cache
def forests(m):
    if m == 0:
        return ((),)
    out = set()
    for k in range(1, m + 1):
        for t in trees(k):
            for f in forests(m - k):
                out.add(tuple(sorted((t,) + f)))
    return tuple(out)


def order_of_tree(t):
    return 1 + sum(order_of_tree(c) for c in t)


def density(t):
    out = order_of_tree(t)
    for c in t:
        out *= density(c)
    return out


def elementary_weight(t, A, b, mul, add, one):
    s = len(b)

    def g(tree):
        vec = [one] * s
        for child in tree:
            gc = g(child)
            Ag = [add([mul(A[i][j], gc[j]) for j in range(s)]) for i in range(s)]
            vec = [mul(vec[i], Ag[i]) for i in range(s)]
        return vec

    gv = g(t)
    return add([mul(b[i], gv[i]) for i in range(s)])


def independent_order(A, b, max_order, digits=1000):
    """The order from Butcher's tree conditions, evaluated with mpmath at ``digits`` digits.

    Entries are converted from their exact sympy form at that precision, so a 1e-100 or
    exp(-400) (~1e-174) defect is 700+ digits above the rounding level; a residual counts as
    zero below 10**-(digits - 100).  Returns ``(p, residual)``: every condition up to p holds
    and ``residual`` is the size of a failing one of order p + 1 (None if none up to max_order).
    """
    with mpmath.workdps(digits):
        Am = [[mpmath.mpf(str(sp.N(x_, digits + 20))) for x_ in row] for row in A]
        bm = [mpmath.mpf(str(sp.N(x_, digits + 20))) for x_ in b]
        tol = mpmath.mpf(10) ** (-(digits - 100))
        for n in range(1, max_order + 1):
            for t in trees(n):
                r = elementary_weight(t, Am, bm, lambda u, v: u * v, mpmath.fsum, mpmath.mpf(1)) \
                    - mpmath.mpf(1) / density(t)
                if abs(r) > tol:
                    return n - 1, abs(r)
        return max_order, None


def symplecticity_matrix(A, b):
    s = len(b)
    return [[b[i] * A[i][j] + b[j] * A[j][i] - b[i] * b[j] for j in range(s)] for i in range(s)]


def exact_zero(e) -> bool:
    from .independent import value_at

    verdict, detail = value_at(e, {})
    assert verdict in ("zero", "nonzero"), f"{e}: {verdict} ({detail})"
    return verdict == "zero"


def stability_at(A, b, z):
    """R(z) = 1 + z b^T (I - z A)^{-1} 1 at a rational z (exact linear algebra)."""
    s = len(b)
    Am = sp.Matrix(A)
    return 1 + z * (sp.Matrix([b]) * (sp.eye(s) - z * Am).LUsolve(sp.ones(s, 1)))[0]


# ----------------------------------------------------------------------------- the tableaux


GAUSS2_A = [[R(1, 4), R(1, 4) - S3 / 6], [R(1, 4) + S3 / 6, R(1, 4)]]
GAUSS2_b = [R(1, 2), R(1, 2)]
EPS100 = R(1, 10**100)


def gauss2_perturbed(eps, keep_row_sum=False):
    A = [list(r) for r in GAUSS2_A]
    A[0][0] = A[0][0] + eps
    if keep_row_sum:
        A[0][1] = A[0][1] - eps
    return A, list(GAUSS2_b)


def gauss2_unused_stage():
    A = [[GAUSS2_A[0][0], GAUSS2_A[0][1], 0], [GAUSS2_A[1][0], GAUSS2_A[1][1], 0], [R(1, 5), R(1, 7), R(1, 3)]]
    return A, [R(1, 2), R(1, 2), 0]


def gauss2_split_stage():
    """Stage 1 of Gauss-2 split into two stages with identical rows (weights split 1:2, column 3:1)."""
    a11, a12 = GAUSS2_A[0]
    a21, a22 = GAUSS2_A[1]
    row1 = [a11 * R(3, 4), a11 * R(1, 4), a12]
    row2 = [R(1, 5), a21 - R(1, 5), a22]
    return [row1, list(row1), row2], [R(1, 6), R(1, 3), R(1, 2)]


def gauss2_reversed():
    A = [[GAUSS2_A[1][1], GAUSS2_A[1][0]], [GAUSS2_A[0][1], GAUSS2_A[0][0]]]
    return A, list(GAUSS2_b)


def gauss3():
    A = [[R(5, 36), R(2, 9) - S15 / 15, R(5, 36) - S15 / 30],
         [R(5, 36) + S15 / 24, R(2, 9), R(5, 36) - S15 / 24],
         [R(5, 36) + S15 / 30, R(2, 9) + S15 / 15, R(5, 36)]]
    return A, [R(5, 18), R(4, 9), R(5, 18)]


def crouzeix_sdirk3():
    g = R(1, 2) + sp.cos(sp.pi / 18) / sp.sqrt(3)
    d = 1 / (6 * (2 * g - 1)**2)
    A = [[g, 0, 0], [R(1, 2) - g, g, 0], [2 * g, 1 - 4 * g, g]]
    return A, [d, 1 - 2 * d, d]


@dataclass(frozen=True)
class TabCase:
    id: str
    build: object
    symplectic: object  # True / False
    symmetric: object
    order: int
    why: str
    must: tuple = ()  # which of "symplectic", "symmetric", "order" must be decided
    reduced: object = None  # (A, b) of the reduced method, for reducible cases
    exact: bool = True
    note: str = ""


TAB_CASES = [
    TabCase("gauss2", lambda: (GAUSS2_A, GAUSS2_b), True, True, 4, "Gauss-Legendre, s = 2",
            must=("symplectic", "symmetric", "order")),
    TabCase("gauss2_a11_plus_1e_100", lambda: gauss2_perturbed(EPS100), False, False, 1,
            "M_11 = 2 b_1 eps != 0 (irreducible); c_1 moves so b.c = 1/2 + eps/2", must=("symplectic", "order")),
    TabCase("gauss2_row_preserving_1e_100", lambda: gauss2_perturbed(EPS100, True), False, False, 2,
            "a11 + eps, a12 - eps: M_11 = eps != 0; c unchanged, b A c = 1/6 + eps (c1 - c2)/2 fails",
            must=("symplectic", "order")),
    TabCase("gauss2_a11_plus_exp_m400", lambda: gauss2_perturbed(sp.exp(-400)), False, False, 1,
            "as above with eps = exp(-400)"),
    TabCase("gauss2_row_preserving_exp_m400", lambda: gauss2_perturbed(sp.exp(-400), True), False, False, 2,
            "as above with eps = exp(-400)"),
    TabCase("reducible_midpoint_quarters", lambda: ([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 4), R(3, 4)]),
            True, True, 2, "equal rows: Y1 = Y2 = y + h/2 f(Y), y1 = y + h f(Y): the implicit midpoint rule",
            must=("symplectic", "symmetric", "order"), reduced=([[R(1, 2)]], [1])),
    TabCase("reducible_midpoint_halves", lambda: ([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 2), R(1, 2)]),
            True, True, 2, "the implicit midpoint rule split into two equal stages",
            must=("symplectic", "symmetric", "order"), reduced=([[R(1, 2)]], [1])),
    TabCase("gauss2_with_unused_stage", gauss2_unused_stage, True, True, 4,
            "stage 3 has weight 0 and is used by no other stage: the map is Gauss-2", must=("symplectic", "order"),
            reduced=(GAUSS2_A, GAUSS2_b)),
    TabCase("gauss2_with_split_stage", gauss2_split_stage, True, True, 4,
            "stages 1 and 2 have identical rows, so Y1 = Y2 in every solution: the map is Gauss-2",
            must=("order",), reduced=(GAUSS2_A, GAUSS2_b)),
    TabCase("gauss2_reversed_stages", gauss2_reversed, True, True, 4, "Gauss-2 with its stages renumbered",
            must=("symplectic", "symmetric", "order")),
    TabCase("gauss3", gauss3, True, True, 6, "Gauss-Legendre, s = 3", must=("symplectic", "symmetric", "order")),
    TabCase("rk4", lambda: ([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
                            [R(1, 6), R(1, 3), R(1, 3), R(1, 6)]), False, False, 4,
            "explicit, irreducible: M_11 = -b_1^2 != 0; an explicit method is never symmetric",
            must=("symplectic", "symmetric", "order")),
    TabCase("radau_iia_2", lambda: ([[R(5, 12), -R(1, 12)], [R(3, 4), R(1, 4)]], [R(3, 4), R(1, 4)]), False, False, 3,
            "Radau IIA: M_11 = 2 (3/4)(5/12) - 9/16 = 1/16 != 0; not symmetric: R(z) R(-z) != 1",
            must=("symplectic", "symmetric", "order")),
    TabCase("trapezoidal_lobatto_iiia_2", lambda: ([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)]), False, True, 2,
            "the trapezoidal rule: irreducible, M_11 = -1/4 != 0 (not symplectic); symmetric (sigma = (1 2))",
            must=("symplectic", "symmetric", "order")),
    TabCase("crouzeix_sdirk3", crouzeix_sdirk3, False, False, 4,
            "Crouzeix's 3-stage SDIRK of order 4 (gamma = 1/2 + cos(pi/18)/sqrt3); M_11 = delta(2 gamma - delta) != 0",
            note="entries algebraic of degree 3 written trigonometrically"),
]
TAB_BY_ID = {c.id: c for c in TAB_CASES}


def build_tableau(case):
    A, b = case.build()
    try:
        return tb.ButcherTableau(A, b)
    except GeomcheckError as exc:
        fail(f"{case.id}: a valid tableau was refused: {short_trace(exc)}")
    except Exception as exc:  # noqa: BLE001
        fail(f"{case.id}: raw exception {short_trace(exc)}")


@pytest.mark.parametrize("case", TAB_CASES, ids=[c.id for c in TAB_CASES])
def test_tableau_truth(case):
    """Independent check of each stated truth."""
    A, b = case.build()
    reduced_A, reduced_b = case.reduced if case.reduced else (A, b)
    # symplecticity: the LSS matrix of the (reduced) method
    M = symplecticity_matrix(reduced_A, reduced_b)
    all_zero = all(exact_zero(e) for row in M for e in row)
    assert all_zero == case.symplectic, f"{case.id}: LSS matrix zero = {all_zero}, truth {case.symplectic}"
    # order: own elementary weights (of the given tableau: reducible methods have the reduced weights)
    p, residual = independent_order(A, b, max_order=case.order + 1)
    assert p == case.order, f"{case.id}: independent order {p} (failing residual {residual}), truth {case.order}"
    # symmetry: a symmetric map has R(z) R(-z) = 1 on y' = z y; checked at z = 1/2
    from .independent import value_at

    z = R(1, 2)
    rr = value_at(stability_at(reduced_A, reduced_b, z) * stability_at(reduced_A, reduced_b, -z) - 1, {})[0]
    assert rr == ("zero" if case.symmetric else "nonzero"), f"{case.id}: R(1/2) R(-1/2) - 1 is {rr}"
    if case.reduced:
        pr, _ = independent_order(reduced_A, reduced_b, max_order=case.order + 1)
        assert pr == case.order
        for zz in (R(1, 3), -R(2, 7)):
            diff = stability_at(A, b, zz) - stability_at(reduced_A, reduced_b, zz)
            assert value_at(diff, {})[0] == "zero", f"{case.id}: R({zz}) differs from the reduced method's"


def _check_order(case, cert, problems, where=""):
    got = getattr(cert, "order", None)
    exact = cert.holds is True and getattr(cert, "failing_tree", None) is not None
    if got is not None and got > case.order:
        problems.append(f"{where}order {got} claimed, the truth is {case.order}")
    if exact and got != case.order:
        problems.append(f"{where}order exactly {got} certified, the truth is {case.order}")
    if "order" in case.must and not (cert.holds is True and got == case.order):
        problems.append(f"{where}order undecided or wrong ({got}, holds={cert.holds}); it must be {case.order}")


@pytest.mark.parametrize("case", TAB_CASES, ids=[c.id for c in TAB_CASES])
def test_tableau_certificates(case):
    T = build_tableau(case)
    problems = []
    for prop, fn in (("symplectic", tb.is_symplectic), ("symmetric", tb.is_symmetric)):
        try:
            c = fn(T)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{prop}: raised {short_trace(exc)}")
            continue
        truth = getattr(case, prop)
        if c.holds is (not truth):
            problems.append(f"{prop}: WRONG {c.holds} (truth {truth}: {case.why})")
        if prop in case.must and c.holds is None:
            problems.append(f"{prop}: undecided")
    try:
        _check_order(case, tb.order(T, 7), problems)
    except Exception as exc:  # noqa: BLE001
        problems.append(f"order: raised {short_trace(exc)}")
    if problems:
        fail(f"{case.id}: " + "; ".join(problems))


@pytest.mark.parametrize("case_id", ["reducible_midpoint_quarters", "gauss2_row_preserving_1e_100", "gauss2",
                                     "gauss2_with_unused_stage", "gauss2_a11_plus_exp_m400", "rk4"])
def test_runge_kutta_scheme_properties(case_id):
    """``ig.RungeKutta(A, b).properties`` and ``.order`` are computed, and never claim a false property."""
    import integrators as ig

    case = TAB_BY_ID[case_id]
    A, b = case.build()
    try:
        s = ig.RungeKutta(A, b)
        props, order = s.properties, s.order
    except Exception as exc:  # noqa: BLE001
        fail(f"{case_id}: raised {short_trace(exc)}")
    problems = []
    for prop in ("symplectic", "symmetric"):
        truth = getattr(case, prop)
        if prop in props and not truth:
            problems.append(f"claims {prop}, which is false")
        if truth and prop in case.must and prop not in props:
            problems.append(f"does not establish {prop}, which holds ({case.why})")
    if order > case.order or ("order" in case.must and order != case.order):
        problems.append(f"order {order}, the truth is {case.order}")
    if problems:
        fail(f"{case_id}: " + "; ".join(problems))


def test_float_tableau_is_not_proved_exactly():
    """Gauss-2 given as doubles: the LSS condition holds only to rounding, never 'exactly'."""
    A = [[float(sp.N(x)) for x in row] for row in GAUSS2_A]
    b = [0.5, 0.5]
    exact = [[sp.Rational(x) for x in row] for row in A]
    M = symplecticity_matrix(exact, [sp.Rational(x) for x in b])
    truly_zero = all(e == 0 for row in M for e in row)
    try:
        T = tb.ButcherTableau(A, b, exact=False)
        c = tb.is_symplectic(T)
    except Exception as exc:  # noqa: BLE001
        fail(f"raised {short_trace(exc)}")
    if c.holds is True and not truly_zero:
        assert c.stage == "numeric", (f"the doubles do not satisfy the condition exactly (M = {M}); a True must be "
                                      f"marked numeric evidence, got stage {c.stage!r}")


# ----------------------------------------------------------------------------- partitioned pairs


VERLET_PAIR = ([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)])


def prk_condition(A1, b1, A2, b2):
    s = len(b1)
    return [[b1[i] * A2[i][j] + b2[j] * A1[j][i] - b1[i] * b2[j] for j in range(s)] for i in range(s)]


@pytest.mark.parametrize("name, pair, truth, must", [
    ("lobatto_iiia_iiib_verlet", VERLET_PAIR, True, True),
    ("lobatto_pair_perturbed_1e_100",
     (VERLET_PAIR[0], VERLET_PAIR[1], [[R(1, 2) + EPS100, -EPS100], [R(1, 2), 0]], VERLET_PAIR[3]), False, True),
    ("lobatto_pair_weights_differ_1e_100",
     (VERLET_PAIR[0], [R(1, 2) + EPS100, R(1, 2) - EPS100], VERLET_PAIR[2], VERLET_PAIR[3]), False, False),
])
def test_partitioned_symplecticity(name, pair, truth, must):
    """Hairer-Lubich-Wanner Thm VI.4.6: b1_i A2_ij + b2_j A1_ji - b1_i b2_j = 0 and b1 = b2."""
    A1, b1, A2, b2 = pair
    M = prk_condition(A1, b1, A2, b2)
    independent = all(e == 0 for row in M for e in row) and list(b1) == list(b2)
    assert independent == truth, f"{name}: the independent condition gives {independent}"
    try:
        c = tb.is_symplectic(tb.PartitionedTableau(A1, b1, A2, b2))
    except Exception as exc:  # noqa: BLE001
        fail(f"{name}: raised {short_trace(exc)}")
    assert c.holds is not (not truth), f"{name}: WRONG {c.holds}"
    if must:
        assert c.holds is truth, f"{name}: undecided"
