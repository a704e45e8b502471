"""Tableau properties are decided on the reduced (irreducible) method; trigonometric algebraic entries.

The truths come from theory, checked here without geomcheck: a tableau whose stages solve the
same equation is the method with those stages merged (so ``[[1/4, 1/4], [1/4, 1/4]]``,
``b = (1/4, 3/4)`` *is* the implicit midpoint rule, symplectic and symmetric); an unused stage
changes nothing; and one step of each tableau is compared with the reference method by a plain
mpmath fixed-point iteration.
"""

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

import integrators as ig
from geomcheck.certify.tableaux import (
    ButcherTableau,
    PartitionedTableau,
    Reduction,
    is_symmetric,
    is_symplectic,
    order,
    reduce_tableau,
)

MIDPOINT_TWICE = dict(A=[[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], b=[R(1, 4), R(3, 4)])


def _rk_step(A, b, f, y0, h, iterations=80):
    """One Runge-Kutta step by fixed-point iteration on the stages (plain mpmath, no geomcheck)."""
    s = len(b)
    Y = [y0] * s
    for _ in range(iterations):
        K = [f(y) for y in Y]
        Y = [y0 + h * sum(mpmath.mpf(sp.Rational(A[i][j])) * K[j] for j in range(s)) for i in range(s)]
    K = [f(y) for y in Y]
    return y0 + h * sum(mpmath.mpf(sp.Rational(b[i])) * K[i] for i in range(s))


def test_the_issue_example_is_the_implicit_midpoint_rule():
    # independent: one step on y' = -y^3 + sin(y) equals the implicit midpoint step
    f = lambda y: -y ** 3 + mpmath.sin(y)
    with mpmath.workdps(40):
        y0, h = mpmath.mpf("0.7"), mpmath.mpf("0.1")
        two = _rk_step(MIDPOINT_TWICE["A"], MIDPOINT_TWICE["b"], f, y0, h)
        one = _rk_step([[R(1, 2)]], [1], f, y0, h)
        assert abs(two - one) < mpmath.mpf(10) ** -35
    T = ButcherTableau(MIDPOINT_TWICE["A"], MIDPOINT_TWICE["b"], name="midpoint twice")
    red = reduce_tableau(T)
    assert isinstance(red, Reduction) and red.reduced and red.decided and not red.numeric
    assert red.tableau.A == ((R(1, 2),),) and red.tableau.b == (1,) and red.classes == ((0, 1),)
    assert red.removed == ()
    sym = is_symplectic(T)
    assert sym.holds is True and sym.stage == "exact"
    assert sym.method.startswith("decided on the reduced method (stages 1 and 2 coincide")
    assert "Reduction: stages 1 and 2 coincide" in sym.latex() and sym.claim.startswith("midpoint twice")
    assert is_symmetric(T).holds is True
    c = order(T)
    assert (c.order, c.holds, str(c.failing_tree)) == (2, True, "[τ²]") and "reduced method" in c.method


def test_integrators_compute_the_properties_of_the_reduced_method():
    rk = ig.RungeKutta(MIDPOINT_TWICE["A"], MIDPOINT_TWICE["b"])
    assert rk.order == 2 and rk.properties == frozenset({"symplectic", "symmetric"})
    prk = ig.PartitionedRungeKutta(MIDPOINT_TWICE["A"], MIDPOINT_TWICE["b"], MIDPOINT_TWICE["A"], MIDPOINT_TWICE["b"])
    assert prk.order == 2 and prk.properties == frozenset({"symplectic", "symmetric"})


def test_an_unused_stage_is_removed_dahlquist_jeltsch():
    # midpoint plus a stage with zero weight that no needed stage uses: still the midpoint rule,
    # but the padded tableau is not its own adjoint under any stage permutation
    T = ButcherTableau([[R(1, 2), 0], [R(1, 4), R(1, 4)]], [1, 0])
    red = reduce_tableau(T)
    assert red.removed == (1,) and red.classes == ((0,),) and red.tableau.A == ((R(1, 2),),)
    assert "stage 2 is not needed by the output" in red.describe()
    assert is_symmetric(T).holds is True and is_symplectic(T).holds is True
    # explicit Euler padded the same way stays explicit Euler: a genuine refutation
    E = ButcherTableau([[0, 0], [1, 0]], [1, 0])
    assert reduce_tableau(E).tableau.A == ((0,),)
    c = is_symplectic(E)
    assert c.holds is False and "reduced method" in c.method
    assert order(E).order == 1


def test_merging_then_removing_weights_that_cancel():
    # stages 2 and 3 coincide (same row), their weights 1/2 and -1/2 cancel: once merged the
    # stage is unneeded and goes, leaving the midpoint rule; the unreduced M is not zero
    A = [[R(1, 2), 0, 0], [0, 1, 0], [0, 1, 0]]
    b = [1, R(1, 2), R(-1, 2)]
    f = lambda y: mpmath.cos(y) - y
    with mpmath.workdps(40):
        y0, h = mpmath.mpf("0.3"), mpmath.mpf("0.05")
        assert abs(_rk_step(A, b, f, y0, h) - _rk_step([[R(1, 2)]], [1], f, y0, h)) < mpmath.mpf(10) ** -35
    T = ButcherTableau(A, b)
    s = len(b)
    M = [[b[i] * A[i][j] + b[j] * A[j][i] - b[i] * b[j] for j in range(s)] for i in range(s)]
    assert any(x != 0 for row in M for x in row)
    red = reduce_tableau(T)
    assert red.tableau.A == ((R(1, 2),),) and red.removed == (1, 2) and red.classes == ((0,),)
    assert is_symplectic(T).holds is True and is_symmetric(T).holds is True


def test_equal_row_sums_alone_do_not_merge_stages():
    # c = (0, 1/2, 1/2) but stage 2 uses stage 1 and stage 3 uses stage 2: they differ on y' = y^2
    A = [[0, 0, 0], [R(1, 2), 0, 0], [0, R(1, 2), 0]]
    b = [R(1, 6), R(1, 3), R(1, 2)]
    T = ButcherTableau(A, b)
    red = reduce_tableau(T)
    assert not red.reduced and red.tableau is T and red.classes == ((0,), (1,), (2,))
    assert "irreducible" in red.describe()
    c = is_symplectic(T)
    assert c.holds is False and "irreducible, so the condition is also necessary" in c.method


def test_a_tableau_that_reduces_to_explicit_euler_is_not_explicit_as_written():
    T = ButcherTableau([[R(1, 2), R(-1, 2)], [R(1, 2), R(-1, 2)]], [R(1, 2), R(1, 2)])
    red = reduce_tableau(T)
    assert red.tableau.A == ((0,),) and red.tableau.b == (1,)
    assert order(T).order == 1 and is_symplectic(T).holds is False


def test_lobatto_iiib_with_two_stages_is_the_midpoint_rule():
    # A = [[1/2, 0], [1/2, 0]]: both stages are y0 + h/2 f(Y1) (for autonomous problems)
    T = ButcherTableau([[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)], c=[0, 1], allow_inconsistent_c=True)
    assert reduce_tableau(T).tableau.A == ((R(1, 2),),)
    assert is_symplectic(T).holds is True and is_symmetric(T).holds is True


def test_a_pair_merges_a_stage_only_if_both_parts_coincide():
    q_dup = [[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]]
    p_not = [[0, 0], [R(1, 2), R(1, 2)]]
    P = PartitionedTableau(q_dup, [R(1, 2), R(1, 2)], p_not, [R(1, 2), R(1, 2)])
    assert not reduce_tableau(P).reduced
    both = PartitionedTableau(q_dup, MIDPOINT_TWICE["b"], q_dup, MIDPOINT_TWICE["b"], name="pair")
    red = reduce_tableau(both)
    assert red.reduced and red.tableau.q.A == ((R(1, 2),),) and red.tableau.p.b == (1,)
    assert is_symplectic(both).holds is True and is_symmetric(both).holds is True
    assert order(both).order == 2


def _step_pair(A1, b1, A2, b2, q0, p0, h, dV):
    """One step of a partitioned RK method on H = p^2/2 + V(q) (plain mpmath fixed point)."""
    s = len(b1)
    Q, P = [q0] * s, [p0] * s
    for _ in range(100):
        Q = [q0 + h * sum(mpmath.mpf(sp.Rational(A1[i][j])) * P[j] for j in range(s)) for i in range(s)]
        P = [p0 - h * sum(mpmath.mpf(sp.Rational(A2[i][j])) * dV(Q[j]) for j in range(s)) for i in range(s)]
    q1 = q0 + h * sum(mpmath.mpf(sp.Rational(b1[j])) * P[j] for j in range(s))
    p1 = p0 - h * sum(mpmath.mpf(sp.Rational(b2[j])) * dV(Q[j]) for j in range(s))
    return q1, p1


def test_separable_problems_reduce_q_and_p_stages_separately():
    # on H = T(p) + V(q) both P stages are p0 - h/2 V'(Q1), and the pair is Stormer-Verlet
    A1, b1 = [[0, 0], [R(1, 3), R(2, 3)]], [R(1, 4), R(3, 4)]
    A2, b2 = [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)]
    dV = lambda q: q ** 3 - q
    with mpmath.workdps(40):
        q0, p0, h = mpmath.mpf("0.4"), mpmath.mpf("-0.2"), mpmath.mpf("0.1")
        got = _step_pair(A1, b1, A2, b2, q0, p0, h, dV)
        pm = p0 - h / 2 * dV(q0)
        q1 = q0 + h * pm
        verlet = (q1, pm - h / 2 * dV(q1))
        assert max(abs(x - y) for x, y in zip(got, verlet)) < mpmath.mpf(10) ** -35
    P = PartitionedTableau(A1, b1, A2, b2)
    sep = is_symplectic(P, separable=True)
    assert sep.holds is True and "P stages 1 and 2 coincide" in sep.method
    assert is_symplectic(P).holds is False       # b1 != b2 on an irreducible pair: not for every H


def test_separable_failure_needs_a_counterexample():
    pair = PartitionedTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], [[R(1, 2), 0], [R(1, 2), 0]], [1, 0])
    c = is_symplectic(pair, separable=True)
    # independent: on H = p^2/2 + q^2/2 the step is p1 = p0 - h q0, q1 = (1 - h^2/2) q0 + h p0
    h = sp.Rational(1, 3)
    J = sp.Matrix([[1 - h ** 2 / 2, h], [-h, 1]])
    assert J.det() == R(19, 18)
    assert c.holds is False and c.counterexample["det"] == R(19, 18) and c.counterexample["h"] == h


# --------------------------------------------------------------------------- trigonometric algebraic entries

GAMMA = R(1, 2) + sp.cos(sp.pi / 18) / sp.sqrt(3)
DELTA = 1 / (6 * (2 * GAMMA - 1) ** 2)
SDIRK4_A = [[GAMMA, 0, 0], [R(1, 2) - GAMMA, GAMMA, 0], [2 * GAMMA, 1 - 4 * GAMMA, GAMMA]]
SDIRK4_B = [DELTA, 1 - 2 * DELTA, DELTA]


def test_sdirk4_with_cos_pi_over_18_is_decided_exactly():
    """Crouzeix's 3-stage SDIRK of order 4 (Crouzeix 1975; Hairer-Wanner II, Sect. IV.6)."""
    T = ButcherTableau(SDIRK4_A, SDIRK4_B, name="SDIRK3(4)")
    c = order(T)
    assert (c.order, c.holds, c.stage) == (4, True, "exact")
    assert "cos(pi/18)" in c.method and "number field" in c.method
    # independent, plain mpmath at 50 digits: b.c^4 - 1/5 (the bushy tree of order 5) is not 0
    with mpmath.workdps(50):
        g = mpmath.mpf(1) / 2 + mpmath.cos(mpmath.pi / 18) / mpmath.sqrt(3)
        d = 1 / (6 * (2 * g - 1) ** 2)
        cs, bs = [g, mpmath.mpf(1) / 2, 1 - g], [d, 1 - 2 * d, d]
        for k in range(1, 5):        # B(4): the quadrature conditions up to order 4
            assert abs(mpmath.fsum(bi * ci ** (k - 1) for bi, ci in zip(bs, cs)) - mpmath.mpf(1) / k) < 1e-45
        bushy5 = mpmath.fsum(bi * ci ** 4 for bi, ci in zip(bs, cs)) - mpmath.mpf(1) / 5
    assert str(c.failing_tree) == "[τ⁴]" and abs(float(sp.N(c.residual, 30)) - float(bushy5)) < 1e-12


def test_sdirk4_is_not_symplectic_a_genuine_refutation():
    T = ButcherTableau(SDIRK4_A, SDIRK4_B)
    assert not reduce_tableau(T).reduced           # distinct nodes: irreducible
    c = is_symplectic(T)
    assert c.holds is False and c.stage == "exact"
    # independent: M_11 = b_1 (2 gamma - b_1) is a nonzero algebraic number (its minimal polynomial is not x)
    x = sp.Symbol("x")
    m11 = DELTA * (2 * GAMMA - DELTA)
    assert sp.minimal_polynomial(m11, x) != x
    assert c.counterexample["entry"] == "M[0][0]"
    assert abs(sp.N(c.counterexample["residual"] - m11, 50)) < 1e-45


@pytest.mark.parametrize("entry", [sp.cos(sp.pi / 18), sp.sin(sp.pi / 18), sp.tan(sp.pi / 9), sp.cos(2 * sp.pi / 7)])
def test_trig_values_live_in_a_number_field(entry):
    T = ButcherTableau([[entry, 0], [0, 1 - entry]], [R(1, 2), R(1, 2)])
    c = order(T, max_order=3)
    x = sp.Symbol("x")
    degree = sp.degree(sp.minimal_polynomial(entry, x))
    assert c.stage == "exact" and f"number field Q({entry}) of degree {degree}" in c.method
    # b.c = 1/2 always; b.c^2 = 1/3 only at the Gauss nodes 1/2 +- sqrt(3)/6
    assert c.order == 2 and str(c.failing_tree) == "[τ²]"
    expected = (entry ** 2 + (1 - entry) ** 2) / 2 - R(1, 3)
    assert sp.minimal_polynomial(c.residual - expected, x) == x


def test_a_failure_on_a_tableau_whose_reduction_is_undecided_is_not_false(monkeypatch):
    # cos(1)^2 + sin(1)^2 - 3/4 = 1/4 is not recognizably algebraic: comparisons go to the zero
    # test; make every single comparison undecided, as for entries it cannot resolve
    from geomcheck import zero

    class Unknown:
        is_zero = None

    monkeypatch.setattr(zero, "decide_zero", lambda *a, **k: Unknown())
    quarter = sp.cos(1) ** 2 + sp.sin(1) ** 2 - R(3, 4)
    T = ButcherTableau(MIDPOINT_TWICE["A"], [quarter, R(3, 4)])
    red = reduce_tableau(T)
    assert not red.reduced and not red.decided
    c = is_symplectic(T)                 # M_11 = 1/16 on the unreduced tableau, yet it is the midpoint rule
    assert c.holds is None and "irreducib" in c.method
    assert is_symmetric(T).holds is not False
