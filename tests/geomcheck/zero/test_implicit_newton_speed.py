"""The fast linear algebra of the zero test's implicit relations, held to the old path's answers.

Newton's method on the relations factors its Jacobian in float64 and reuses it (a simplified
Newton's method, residuals at full precision); the derived unknowns (implicit-function-theorem
derivatives) are solved by iterative refinement with exact integer residuals; the random
polynomials standing for undefined functions are summed in fixed point with a proved error bound
(or exactly).  Each is checked here against an independent computation: plain Newton's method
with mpmath's own ``lu_solve``, mpmath's LU solutions, exact rational polynomial values.  The
verdicts that must not move (singular Jacobians, no solution, non-symplectic implicit maps) are
checked end to end.
"""

import random
from fractions import Fraction

import mpmath
import pytest
import sympy
from mpmath.libmp import from_int, mpf_div

import geomcheck as gc
from geomcheck.dense_lu import ExactMatrix, float_factor, lu_factor, lu_solve, refine_solve
from geomcheck.zero import Relation, decide_jacobian_singular, decide_zero
from geomcheck.zero import implicit
from geomcheck.zero.implicit import NumericProblem, prepare_relations
from geomcheck.zero.numeric import BadPoint, PolyModel, context
from geomcheck.zero.program import Program

h, x1, x2 = sympy.symbols("h x1 x2")
U = sympy.symbols("u1:11")


def _chain_relation():
    """10 unknowns coupled in a ring, nonlinear: u_i = x_(i%2) + h sin(u_(i+1)) + h u_(i-1)**2 / 4."""
    xs = [x1, x2]
    eqs = [U[i] - xs[i % 2] - h * sympy.sin(U[(i + 1) % 10]) - h * U[i - 1] ** 2 / 4 for i in range(10)]
    return Relation(eqs, list(U), guess={u: xs[i % 2] for i, u in enumerate(U)}, small=[h]), eqs


def _problem(relation):
    prog = Program()
    rel = prepare_relations((relation,), prog.jet_memo, None)
    return NumericProblem(prog, [], rel, 0, None)


BASE = {h: (Fraction(3, 10), Fraction(0)), x1: (Fraction(2, 7), Fraction(0)), x2: (Fraction(-5, 9), Fraction(0))}


def _plain_newton(eqs, dps):
    """Newton's method in mpmath alone (sympy lambdify, mpmath.lu_solve), from the guess."""
    with mpmath.workdps(dps):
        subs = {s: sympy.Rational(v[0].numerator, v[0].denominator) for s, v in BASE.items()}
        F = [e.subs(subs) for e in eqs]
        J = sympy.Matrix([[sympy.diff(f, u) for u in U] for f in F])
        f_num = sympy.lambdify([U], F, "mpmath")
        j_num = sympy.lambdify([U], J, "mpmath")
        u = mpmath.matrix([mpmath.mpf(2) / 7 if i % 2 == 0 else mpmath.mpf(-5) / 9 for i in range(10)])
        for _ in range(40):
            du = mpmath.lu_solve(mpmath.matrix(j_num(list(u))), -mpmath.matrix(f_num(list(u))))
            u += du
            if mpmath.norm(du, mpmath.inf) < mpmath.mpf(10) ** (-dps + 2):
                return [u[i] for i in range(10)]
    raise AssertionError("the reference Newton did not converge")


@pytest.mark.parametrize("dps", [50, 100])
def test_newton_agrees_with_plain_mpmath_newton_and_with_the_multiprecision_path(dps, monkeypatch):
    relation, eqs = _chain_relation()
    reference = _plain_newton(eqs, dps)
    fast = _problem(relation).evaluate(BASE, dps, 0, order=[]).state
    tol = mpmath.mpf(10) ** (-dps + 5)
    assert max(abs(a - b) for a, b in zip(fast, reference)) < tol
    # the old path: every step a multiprecision LU of a freshly evaluated Jacobian
    monkeypatch.setattr(implicit, "float_factor", lambda *a, **k: None)
    old = _problem(relation).evaluate(BASE, dps, 0, order=[]).state
    assert max(abs(a - b) for a, b in zip(fast, old)) < tol


def test_the_continuation_ends_on_the_full_precision_solution():
    relation, eqs = _chain_relation()
    problem = _problem(relation)
    end = problem.continued_solution(BASE, 50)
    reference = _plain_newton(eqs, 50)
    assert max(abs(a - b) for a, b in zip(end, reference)) < mpmath.mpf(10) ** -45


def test_derived_unknowns_agree_with_the_multiprecision_lu():
    relation, eqs = _chain_relation()
    D = sympy.symbols("D1:11")
    derived = Relation(relation.equations, relation.unknowns, guess=relation.guess, small=[h],
                       derived=[(list(D), [sympy.diff(e, x1) for e in eqs])])
    problem = _problem(derived)
    pv = problem.evaluate(BASE, 50, 0, order=[])
    ctx = context(50)
    nodes = [problem.prog.symbols[d] for d in D]
    symv = problem.symvals(ctx, BASE)
    symv.update(zip(problem.unknown_nodes, pv.state))
    errs = {}
    problem._solve_derived(ctx, symv, errs)
    # independently: du/dx1 = -J^-1 dF/dx1 in mpmath at the solution
    with mpmath.workdps(50):
        subs = {s: sympy.Rational(v[0].numerator, v[0].denominator) for s, v in BASE.items()}
        at = dict(zip(U, [sympy.Float(x, 60) for x in pv.state]))
        J = mpmath.matrix([[sympy.N(sympy.diff(e, u).subs(subs).subs(at), 60) for u in U] for e in eqs])
        rhs = mpmath.matrix([-sympy.N(sympy.diff(e, x1).subs(subs).subs(at), 60) for e in eqs])
        reference = mpmath.lu_solve(J, rhs)
    assert max(abs(symv[n] - reference[i]) for i, n in enumerate(nodes)) < mpmath.mpf(10) ** -45


def test_float_factor_declines_what_float64_cannot_tell():
    mp = context(50)
    one = mp.mpf(1)
    assert float_factor(mp, [[one, one], [one, one]]) is None                       # singular
    eps = mp.mpf(10) ** -12
    assert float_factor(mp, [[one, one], [one, one + eps]]) is None                 # condition 4e12
    assert float_factor(mp, [[one, mp.zero], [mp.zero, mp.zero]]) is None           # a zero row
    assert float_factor(mp, [[mp.mpc(1, 1), one], [one, one * 3]]) is None          # complex
    tiny = mp.mpf(10) ** -300                                                        # scale is not conditioning
    f = float_factor(mp, [[tiny, tiny], [one, -one]])
    assert f is not None and f.condition < 10


def test_a_matrix_the_float_path_accepts_is_never_refused_by_the_multiprecision_lu():
    rng = random.Random(5)
    accepted = declined = 0
    for trial in range(60):
        n = rng.randint(2, 12)
        with mpmath.workdps(15):
            ctx = context(15)
            A = [[ctx.mpf(rng.uniform(-1, 1)) * 10 ** rng.randint(-30, 30) if rng.random() < 0.6 else ctx.zero
                  for _ in range(n)] for _ in range(n)]
            if trial % 3 == 0:   # nearly dependent rows
                A[-1] = [a + ctx.mpf(10) ** -rng.randint(3, 9) * b for a, b in zip(A[0], A[1])]
            if float_factor(ctx, A) is None:
                declined += 1
                continue
            accepted += 1
            rows = []
            for row in A:        # equilibrated as solve_equilibrated does it: rows, then columns
                m = max(abs(v) for v in row)
                rows.append([v / m for v in row])
            for k in range(n):
                m = max(abs(row[k]) for row in rows)
                for row in rows:
                    row[k] /= m
            lu_factor(ctx, rows)  # raises SingularMatrixError if the float path was wrong to accept
    assert accepted >= 10 and declined >= 5


def test_refinement_reaches_the_working_precision():
    rng = random.Random(2)
    for dps in (30, 120):
        ctx = context(dps)
        n = 9
        A = [[ctx.mpf(rng.randint(-9, 9)) / rng.randint(1, 9) + (3 if i == j else 0) for j in range(n)]
             for i in range(n)]
        b = [ctx.mpf(rng.randint(-50, 50)) / 7 for _ in range(n)]
        x = refine_solve(ctx, ExactMatrix(A), float_factor(ctx, A), b)
        reference = lu_solve(*lu_factor(ctx, A), b)
        with mpmath.workdps(dps):
            exact = mpmath.lu_solve(mpmath.matrix(A), mpmath.matrix(b))
        for v, r, e in zip(x, reference, exact):
            assert abs(v - e) <= max(abs(e) for e in exact) * ctx.mpf(2) ** (10 - ctx.prec)
            assert abs(v - r) <= max(abs(e) for e in exact) * ctx.mpf(2) ** (10 - ctx.prec)


def _exact_jet(pm, name, index, args):
    L, groups = pm._exact_terms(name, index)
    monos, _, _ = pm._monomials(len(args), pm.degrees[(name, len(args))])
    fr = [(-1 if a._mpf_[0] else 1) * Fraction(a._mpf_[1]) * Fraction(2) ** a._mpf_[2] if a else Fraction(0)
          for a in args]
    total = Fraction(0)
    for group in groups:
        for t, N in group:
            term = Fraction(N, L)
            for xv, e in zip(fr, monos[t]):
                term *= xv**e
            total += term
    return total


@pytest.mark.parametrize("fixed", [True, False])
def test_polynomial_jets_are_within_one_unit_of_the_exact_value(fixed, monkeypatch):
    # without the fixed-point sums (as when their error bound is too large): the exact integer
    # path, correctly rounded
    if not fixed:
        monkeypatch.setattr(PolyModel, "_fixed_value", lambda *a: None)
    rng = random.Random(11)
    pm = PolyModel(3, {("V", 3): 5})
    for dps in (20, 50):
        ctx = context(dps)
        for trial in range(12):
            args = [ctx.mpf(rng.randint(-10**40, 10**40)) / 10**rng.randint(30, 60) for _ in range(3)]
            if trial == 0:
                args[2] = ctx.zero
            if trial == 1:
                args[0] = ctx.mpf(10) ** 30 / 7        # a huge argument
            for index in [(0, 0, 0), (1, 0, 0), (0, 2, 1), (5, 0, 0)]:
                v = pm.value(ctx, "V", index, args)
                exact = _exact_jet(pm, "V", index, args)
                rounded = ctx.make_mpf(mpf_div(from_int(exact.numerator), from_int(exact.denominator),
                                               ctx.prec, "n")) if exact else ctx.zero
                if not fixed:
                    assert v == rounded
                else:
                    assert abs(v - rounded) <= abs(rounded) * ctx.mpf(2) ** (1 - ctx.prec)


def test_a_singular_jacobian_still_makes_the_point_bad_and_the_check_says_singular():
    a = sympy.symbols("a1:10")
    # 9 unknowns (the float path's size), the last equation twice the first: singular everywhere
    eqs = [a[i] - x1 * (i + 1) - h * a[(i + 1) % 9] ** 2 for i in range(8)]
    eqs.append(2 * eqs[0])
    rel = Relation(eqs, list(a), guess={v: x1 for v in a}, small=[h])
    problem = _problem(rel)
    with pytest.raises(BadPoint, match="singular"):
        problem.evaluate(BASE, 50, 0, order=[])
    assert decide_jacobian_singular(rel).is_zero is True
    assert decide_zero(a[0] - a[0] ** 2, relations=[rel]).is_zero is None


def test_no_solution_near_the_guess_is_still_refused():
    u = sympy.Symbol("u")
    d = decide_zero(u - x1, relations=[Relation([u**2 + 1 + x1**2], [u], guess={u: x1})])
    assert d.is_zero is None and "Newton" in d.method


def test_the_trapezoidal_rule_is_still_not_symplectic_on_the_pendulum():
    M = gc.Chart("q p")
    q, p = M.coords
    Q, P = sympy.symbols("Q P")
    trapezoidal = [Q - q - h * (p + P) / 2, P - p + h * (sympy.sin(q) + sympy.sin(Q)) / 2]
    cert = gc.certify_symplectic(gc.ImplicitMap(M, M, trapezoidal, new=[Q, P]), M.d(q) ^ M.d(p))
    assert cert.holds is False and cert.stage == "counterexample"


def test_a_perturbed_gauss_tableau_on_ten_unknowns_is_still_refuted():
    """Gauss-Legendre 4 with a_21 moved by 1/100 on two degrees of freedom (12 unknowns: the float path)."""
    q = sympy.symbols("q1:3")
    p = sympy.symbols("p1:3")
    r3 = sympy.sqrt(3)
    A = [[sympy.Rational(1, 4), sympy.Rational(1, 4) - r3 / 6],
         [sympy.Rational(1, 4) + r3 / 6 + sympy.Rational(1, 100), sympy.Rational(1, 4)]]
    H = (p[0] ** 2 + p[1] ** 2) / 2 - sympy.cos(q[0]) + q[0] * q[1] ** 2 / 5
    M = gc.Chart("q1 q2 p1 p2")
    c = M.coords
    new = sympy.symbols("Q1 Q2 P1 P2")
    K = [[sympy.Symbol(f"k{i}{j}") for j in range(4)] for i in range(2)]
    grad = [sympy.diff(H, v) for v in q + p]
    f = [grad[2], grad[3], -grad[0], -grad[1]]
    subs_c = dict(zip(q + p, c))
    eqs = []
    for i in range(2):
        Y = [c[m] + h * sum(A[i][j] * K[j][m] for j in range(2)) for m in range(4)]
        eqs += [K[i][m] - f[m].subs(subs_c).subs(dict(zip(c, Y)), simultaneous=True) for m in range(4)]
    eqs += [new[m] - c[m] - h * (K[0][m] + K[1][m]) / 2 for m in range(4)]
    guess = {K[i][m]: f[m].subs(subs_c) for i in range(2) for m in range(4)}
    omega = M.d(c[0]) ^ M.d(c[2])
    omega = omega + (M.d(c[1]) ^ M.d(c[3]))
    phi = gc.ImplicitMap(M, M, eqs, new=list(new), auxiliary=[k for row in K for k in row], guess=guess,
                         derivatives="implicit")
    assert phi.derivative_mode == "implicit"
    cert = gc.certify_symplectic(phi, omega)
    assert cert.holds is False and cert.stage == "counterexample", cert.method
