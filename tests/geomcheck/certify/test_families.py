"""Known facts about the collocation families, the classics and false claims from the literature.

Independent cross-checks: entries against published tables; symplecticity against the
Jacobian determinant of one step on a nonlinear, non-separable Hamiltonian (mpmath).
"""

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

from geomcheck import errors
from geomcheck.certify.families import (
    classical_rk4,
    explicit_euler,
    gauss_legendre,
    implicit_euler,
    implicit_midpoint,
    lobatto_iiia,
    lobatto_iiia_iiib,
    lobatto_iiib,
    lobatto_iiic,
    lobatto_iiic_iiic_star,
    lobatto_iiic_star,
    radau_iia,
    stormer_verlet,
    symplectic_euler,
)
from geomcheck.certify.tableaux import (
    ButcherTableau,
    PartitionedTableau,
    condition_B,
    condition_C,
    condition_D,
    is_explicit,
    is_symmetric,
    is_symplectic,
    order,
    stability_function,
    stage_order,
)

z = sp.Symbol("z")
s6, s15 = sp.sqrt(6), sp.sqrt(15)


def same(a, b):
    return all(sp.radsimp(sp.expand(x - y)) == 0 for x, y in zip(sp.flatten(a), sp.flatten(b)))


# --------------------------------------------------------------------------- entries vs published tables


def test_gauss_entries():
    g2 = gauss_legendre(2)
    assert same(g2.A, [[R(1, 4), R(1, 4) - sp.sqrt(3) / 6], [R(1, 4) + sp.sqrt(3) / 6, R(1, 4)]])
    g3 = gauss_legendre(3)
    assert same(g3.c, [R(1, 2) - s15 / 10, R(1, 2), R(1, 2) + s15 / 10])
    assert same(g3.A, [[R(5, 36), R(2, 9) - s15 / 15, R(5, 36) - s15 / 30],
                       [R(5, 36) + s15 / 24, R(2, 9), R(5, 36) - s15 / 24],
                       [R(5, 36) + s15 / 30, R(2, 9) + s15 / 15, R(5, 36)]])
    assert same(g3.b, [R(5, 18), R(4, 9), R(5, 18)])


def test_radau_iia_3_entries():
    T = radau_iia(3)
    assert same(T.c, [(4 - s6) / 10, (4 + s6) / 10, 1])
    assert same(T.A, [[(88 - 7 * s6) / 360, (296 - 169 * s6) / 1800, (-2 + 3 * s6) / 225],
                      [(296 + 169 * s6) / 1800, (88 + 7 * s6) / 360, (-2 - 3 * s6) / 225],
                      [(16 - s6) / 36, (16 + s6) / 36, R(1, 9)]])


def test_lobatto_entries_s3():
    assert lobatto_iiia(3).A == ((0, 0, 0), (R(5, 24), R(1, 3), R(-1, 24)), (R(1, 6), R(2, 3), R(1, 6)))
    assert lobatto_iiib(3).A == ((R(1, 6), R(-1, 6), 0), (R(1, 6), R(1, 3), 0), (R(1, 6), R(5, 6), 0))
    assert lobatto_iiic(3).A == ((R(1, 6), R(-1, 3), R(1, 6)), (R(1, 6), R(5, 12), R(-1, 12)),
                                 (R(1, 6), R(2, 3), R(1, 6)))
    assert lobatto_iiic_star(3).A == ((0, 0, 0), (R(1, 4), R(1, 4), 0), (0, 1, 0))
    assert lobatto_iiia(3).b == (R(1, 6), R(2, 3), R(1, 6))


def test_lobatto_iiib_nodes_are_not_row_sums():
    T = lobatto_iiib(2)
    with pytest.raises(errors.InconsistentNodesError):
        ButcherTableau(T.A, T.b, T.c)
    assert "differ from the row sums" in T.provenance


# --------------------------------------------------------------------------- orders and properties


@pytest.mark.parametrize("s", [1, 2, 3, 4])
def test_gauss_order_2s_symplectic_symmetric(s):
    T = gauss_legendre(s)
    c = order(T, max_order=2 * s + 1)
    assert (c.order, c.holds, c.stage) == (2 * s, True, "exact")
    assert str(c.failing_tree) == f"[τ{'⁰¹²³⁴⁵⁶⁷⁸⁹'[2 * s] if s < 5 else ''}]"
    assert is_symplectic(T).holds is True and is_symmetric(T).holds is True
    assert condition_B(T, 2 * s).holds and condition_C(T, s).holds and condition_D(T, s).holds
    assert stage_order(T).order == s


def test_gauss_5_is_exact_with_order_at_least_10():
    T = gauss_legendre(5)
    assert T.exact and "degree 8" in order(T, max_order=3).method
    c = order(T, max_order=10)
    assert c.order == 10 and c.holds is True and c.stage == "exact" and c.failing_tree is None


def test_gauss_beyond_exact_range_is_numeric_with_provenance():
    T = gauss_legendre(6)
    assert not T.exact
    assert all(isinstance(x, sp.Float) for row in T.A for x in row)
    assert "CRootOf" in T.provenance and "60-digit" in T.provenance
    c = order(T, max_order=10)
    assert (c.order, c.holds, c.stage) == (10, True, "numeric")
    assert is_symplectic(T).holds is True and is_symplectic(T).stage == "numeric"
    assert condition_B(T, 12).holds is True and condition_B(T, 13).holds is False


def test_numeric_path_agrees_with_the_exact_one():
    ex, nu = gauss_legendre(4), gauss_legendre(4, exact=False, digits=40)
    for x, y in zip(sp.flatten(ex.A) + list(ex.b), sp.flatten(nu.A) + list(nu.b)):
        assert abs(sp.N(x, 50) - y) < sp.Float("1e-38")


@pytest.mark.parametrize("s", [1, 2, 3, 4])
def test_radau_iia_order_2s_minus_1_not_symplectic(s):
    T = radau_iia(s)
    assert order(T, max_order=2 * s).order == 2 * s - 1
    assert is_symplectic(T).holds is False and is_symmetric(T).holds is False
    assert T.c[-1] == 1


@pytest.mark.parametrize("s", [2, 3, 4, 5])
def test_lobatto_orders_and_symplecticity(s):
    for fam in (lobatto_iiia, lobatto_iiib, lobatto_iiic, lobatto_iiic_star):
        T = fam(s)
        assert order(T, max_order=2 * s - 1).order == 2 * s - 2, T.name
        # Lobatto IIIB s=2 has A = [[1/2, 0], [1/2, 0]]: on autonomous problems stage 2 repeats
        # stage 1 and the method IS the implicit midpoint rule, which is symplectic
        degenerate = fam is lobatto_iiib and s == 2
        assert is_symplectic(T).holds is degenerate, T.name
    assert is_symmetric(lobatto_iiia(s)).holds is True and is_symmetric(lobatto_iiib(s)).holds is True
    assert stage_order(lobatto_iiia(s)).order == s


@pytest.mark.parametrize("s", [2, 3])
def test_lobatto_pairs_symplectic_with_order_2s_minus_2_by_p_trees(s):
    for P in (lobatto_iiia_iiib(s), lobatto_iiic_iiic_star(s)):
        assert is_symplectic(P).holds is True, P.name
        c = order(P, max_order=2 * s - 1)
        assert c.order == 2 * s - 2 and c.failing_tree is not None and c.failing_tree.colours == 2


def test_lobatto_iiia_iiib_4_has_order_6_by_p_trees():
    c = order(lobatto_iiia_iiib(4), max_order=6)
    assert c.order == 6 and c.holds is True and len(c.residuals) == 1202


def test_classics():
    assert order(classical_rk4()).order == 4 and is_symplectic(classical_rk4()).holds is False
    assert is_explicit(classical_rk4()).holds is True
    assert order(explicit_euler()).order == 1 and is_symplectic(explicit_euler()).holds is False
    assert order(implicit_euler()).order == 1 and implicit_euler() == radau_iia(1)
    assert implicit_midpoint() == gauss_legendre(1) and is_symplectic(implicit_midpoint()).holds is True
    sv = stormer_verlet()
    assert order(sv).order == 2 and is_symplectic(sv).holds and is_symmetric(sv).holds
    se = symplectic_euler()
    assert order(se).order == 1 and is_symplectic(se).holds is True and is_symmetric(se).holds is False


def test_stability_functions_are_pade_approximants():
    for s, (P, Q) in {1: (1 + z / 2, 1 - z / 2),
                      2: (1 + z / 2 + z**2 / 12, 1 - z / 2 + z**2 / 12),
                      3: (1 + z / 2 + z**2 / 10 + z**3 / 120, 1 - z / 2 + z**2 / 10 - z**3 / 120)}.items():
        st = stability_function(gauss_legendre(s))
        assert sp.expand(st.numerator - P) == 0 and sp.expand(st.denominator - Q) == 0
    st = stability_function(radau_iia(2))                          # the (1, 2) Pade approximant
    assert sp.expand(st.numerator - (1 + z / 3)) == 0
    assert sp.expand(st.denominator - (1 - 2 * z / 3 + z**2 / 6)) == 0


# --------------------------------------------------------------------------- false claims


def test_false_claim_fourth_order_method_with_a_typo_in_b():
    rk4 = classical_rk4()
    typo = ButcherTableau(rk4.A, [R(1, 6), R(1, 3), R(1, 6), R(1, 3)], name="RK4, b3 and b4 swapped")
    c = order(typo)
    assert c.order == 1 and str(c.failing_tree) == "[τ]" and c.residual == R(1, 12)


def test_false_claim_partitioned_gauss_pair_is_not_symplectic():
    g = gauss_legendre(2)
    reversed_p = [list(row[::-1]) for row in g.A[::-1]]       # Gauss with its stages listed backwards
    pair = PartitionedTableau(g.A, g.b, reversed_p, g.b[::-1], name="'partitioned Gauss'")
    assert is_symplectic(ButcherTableau(reversed_p, g.b[::-1])).holds is True   # each part is Gauss
    c = is_symplectic(pair)
    assert c.holds is False and c.stage == "exact"
    assert sp.simplify(c.counterexample["residual"] - sp.sqrt(3) / 6) == 0
    assert order(pair).order == 2                            # and its order drops from 4 to 2


def test_false_claim_symplectic_euler_that_is_explicit_euler():
    fake = PartitionedTableau([[0]], [1], [[0]], [1], name="'symplectic Euler'")
    assert is_symplectic(fake).holds is False
    assert is_symplectic(lobatto_iiia(2)).holds is False     # trapezoidal rule alone


# --------------------------------------------------------------------------- independent check of symplecticity

def _step(T, q0, p0, h):
    """One step of a (partitioned) RK method on H = p^2/2 + q^4/4 + q^2 p^2/2 by fixed-point iteration."""
    if isinstance(T, PartitionedTableau):
        A1, A2, b1, b2 = T.q.A, T.p.A, T.q.b, T.p.b
    else:
        A1 = A2 = T.A
        b1 = b2 = T.b
    A1 = [[mpmath.mpf(sp.N(x, 45)) for x in row] for row in A1]
    A2 = [[mpmath.mpf(sp.N(x, 45)) for x in row] for row in A2]
    b1 = [mpmath.mpf(sp.N(x, 45)) for x in b1]
    b2 = [mpmath.mpf(sp.N(x, 45)) for x in b2]
    s = len(b1)

    def Hp(q, p):
        return p + q * q * p

    def Hq(q, p):
        return q ** 3 + q * p * p

    Q, P = [q0] * s, [p0] * s
    for _ in range(200):
        fq = [Hp(Q[j], P[j]) for j in range(s)]
        fp = [Hq(Q[j], P[j]) for j in range(s)]
        Qn = [q0 + h * sum(A1[i][j] * fq[j] for j in range(s)) for i in range(s)]
        Pn = [p0 - h * sum(A2[i][j] * fp[j] for j in range(s)) for i in range(s)]
        done = max(abs(a - b) for a, b in zip(Qn + Pn, Q + P)) < mpmath.mpf(10) ** -38
        Q, P = Qn, Pn
        if done:
            break
    fq = [Hp(Q[j], P[j]) for j in range(s)]
    fp = [Hq(Q[j], P[j]) for j in range(s)]
    return q0 + h * sum(b1[i] * fq[i] for i in range(s)), p0 - h * sum(b2[i] * fp[i] for i in range(s))


def _jacobian_det(T):
    with mpmath.workdps(40):
        q, p, h = mpmath.mpf("0.3"), mpmath.mpf("0.7"), mpmath.mpf("0.1")
        e = mpmath.mpf(10) ** -15
        a = [(x - y) / (2 * e) for x, y in zip(_step(T, q + e, p, h), _step(T, q - e, p, h))]
        b = [(x - y) / (2 * e) for x, y in zip(_step(T, q, p + e, h), _step(T, q, p - e, h))]
        return a[0] * b[1] - a[1] * b[0]


@pytest.mark.parametrize("make,symplectic", [
    (lambda: gauss_legendre(2), True),
    (lambda: lobatto_iiia_iiib(2), True),
    (lambda: lobatto_iiic_iiic_star(2), True),
    (symplectic_euler, True),
    (classical_rk4, False),
    (lambda: lobatto_iiia(2), False),
    (lambda: radau_iia(2), False),
    (lambda: PartitionedTableau([[0]], [1], [[0]], [1]), False),
])
def test_certificate_agrees_with_the_jacobian_of_one_step(make, symplectic):
    T = make()
    assert is_symplectic(T).holds is symplectic
    deviation = abs(_jacobian_det(T) - 1)
    if symplectic:
        assert deviation < mpmath.mpf(10) ** -20
    else:
        assert deviation > mpmath.mpf(10) ** -8


# --------------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize("call", [
    lambda: gauss_legendre(0),
    lambda: gauss_legendre("2"),
    lambda: gauss_legendre(True),
    lambda: lobatto_iiia(1),
    lambda: radau_iia(2, digits=5),
    lambda: radau_iia(2, exact="yes"),
    lambda: gauss_legendre(6, exact=True),
])
def test_bad_family_arguments(call):
    with pytest.raises(errors.InvalidArgumentError):
        call()
