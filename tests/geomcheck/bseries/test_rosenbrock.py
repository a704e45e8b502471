"""B-series of Rosenbrock methods: published orders, a direct symbolic step, linear stability, structure.

Truth comes from outside the recursion of :mod:`geomcheck.bseries.rosenbrock`:

* published methods and their published classical orders, in the form the papers print them
  (converted to Hairer-Wanner (7.4) by the formulas below, and the conversion itself checked by
  applying the published form literally to a concrete field):
  ROS2 (Verwer, Spee, Blom, Hundsdorfer 1999, ``gamma = 1 +- 1/sqrt(2)``, order 2);
  ``ode23s`` (Shampine and Reichelt 1997, "The MATLAB ODE suite", Sec. 4.1, ``d = 1/(2 + sqrt(2))``,
  order 2); ROS3P (Lang and Verwer 2001, ``gamma = 1/2 + sqrt(3)/6``, order 3, coefficients in closed
  form); Shampine's fourth-order method (Shampine 1982; HW II Table 7.2 "Shampine", the rational
  coefficients ``gamma = 1/2, a21 = 2, ..., m4 = 125/108`` of the transformed form, order 4);
* one step of the method computed with plain sympy on concrete nonlinear fields at exact points (the
  linear stage systems solved power by power in ``h``, ``f`` evaluated on truncated power series),
  compared with ``evaluate(series, f)`` power by power of ``h``;
* the stability function ``R(z) = 1 + z b^T (I - z (alpha + gamma))^(-1) 1`` computed with sympy;
* hand computations of the first symplecticity residuals, and ``Phi_{-h} o Phi_h - id`` computed
  with the direct step for the symmetry verdicts.
"""

from __future__ import annotations

import math

import pytest
import sympy
from sympy import Rational as R
from sympy import sqrt

import geomcheck.bseries as bs
from geomcheck.bseries.rosenbrock import rosenbrock
from geomcheck.certify.tableau_arithmetic import RationalFunctionDomain
from geomcheck.certify.trees import trees_of_order
from geomcheck.errors import BSeriesError

h = sympy.Symbol("h")
y1, y2 = sympy.symbols("y1 y2")
tau, = trees_of_order(1)
bush3, chain3 = trees_of_order(3)          # [τ²], [[τ]]


# ============================================================================ the published methods
def from_transformed(gam, a, c, m):
    """HW (7.4') -> (7.4): ``(1/(h gam) - J) u_i = f(y0 + sum a_ij u_j) + sum c_ij u_j / h``,
    ``y1 = y0 + sum m_i u_i`` with ``u = Gamma k``: ``Gamma = (diag(1/gam) - C)^(-1)``,
    ``alpha = a Gamma``, ``b^T = m^T Gamma``."""
    s = len(m)
    Gam = (sympy.eye(s) / gam - sympy.Matrix(c)).inv().applyfunc(sympy.radsimp)
    alpha = (sympy.Matrix(a) * Gam).applyfunc(sympy.radsimp)
    b = (sympy.Matrix([m]) * Gam).applyfunc(sympy.radsimp)
    return alpha.tolist(), Gam.tolist(), list(b)


def ros3p_transformed():
    """Lang and Verwer 2001, in closed form (their decimals: a21 = 1.267949192431123 = 1/gamma,
    c21 = -1.607695154586736 = -1/gamma^2, c31 = -3.464101615137755, c32 = -1.732050807568877,
    m = (2, 0.5773502691896258, 0.4226497308103742))."""
    g = R(1, 2) + sqrt(3) / 6
    ig = 1 / g
    c32 = -ig * (2 - ig / 2)
    m2 = ig * (R(2, 3) - ig / 6)
    a = [[0, 0, 0], [ig, 0, 0], [ig, 0, 0]]
    c = [[0, 0, 0], [-ig ** 2, 0, 0], [-ig * (1 - c32), c32, 0]]
    m = [ig * (1 + m2), m2, ig / 3]
    simple = lambda x: sympy.expand(sympy.radsimp(sympy.S(x)))
    assert [float(simple(x)) for x in (a[1][0], c[1][0], c[2][0], c[2][1], m[0], m[1], m[2])] == pytest.approx(
        [1.267949192431123, -1.607695154586736, -3.464101615137755, -1.732050807568877, 2, 0.5773502691896258,
         0.4226497308103742], rel=1e-14)                     # the decimals Lang and Verwer print
    return (simple(g), [[simple(x) for x in r] for r in a], [[simple(x) for x in r] for r in c], [simple(x) for x in m])


def shampine_transformed():
    """Shampine 1982 (HW II Table 7.2): stage 4 evaluates f where stage 3 does (a4j = a3j)."""
    a = [[0, 0, 0, 0], [2, 0, 0, 0], [R(48, 25), R(6, 25), 0, 0], [R(48, 25), R(6, 25), 0, 0]]
    c = [[0, 0, 0, 0], [-8, 0, 0, 0], [R(372, 25), R(12, 5), 0, 0], [R(-112, 125), R(-54, 125), R(-2, 5), 0]]
    return R(1, 2), a, c, [R(19, 9), R(1, 2), R(25, 108), R(125, 108)]


def ros2(sign=1):
    """Verwer et al. 1999: ``(I - g h J) k1 = f(y0)``, ``(I - g h J) k2 = f(y0 + h k1) - 2 k1``,
    ``y1 = y0 + 3/2 h k1 + 1/2 h k2``.  In (7.4), by hand, with ``K1 = h k1`` and ``K2 = h k2 + 2 K1``:
    ``(I - g h J) K2 = h f(y0 + K1) - 2 K1 + 2 (I - g h J) K1 = h f(y0 + K1) - 2 g h J K1``, so
    ``alpha21 = 1``, ``gamma21 = -2 g``, ``b = (1/2, 1/2)``;
    :func:`test_the_conversion_of_the_published_forms_is_the_method_itself` checks it."""
    g = 1 + sign / sqrt(2)
    return [[0, 0], [1, 0]], [[g, 0], [-2 * g, g]], [R(1, 2), R(1, 2)], g


def ode23s():
    """Shampine and Reichelt 1997: ``W = I - h d J``, ``k1 = W^-1 f(y0)``, ``k2 = W^-1 (f(y0 + h k1/2) - k1)
    + k1``, ``y1 = y0 + h k2``; in (7.4): ``K2 = h f(y0 + K1/2) + h J (d K2 - d K1)``."""
    d = 1 - sqrt(2) / 2                       # = 1/(2 + sqrt(2)), without a radical in a denominator
    assert sympy.radsimp(d - 1 / (2 + sqrt(2))) == 0
    return [[0, 0], [R(1, 2), 0]], [[d, 0], [-d, d]], [0, 1], d


# ============================================================================ a direct step with sympy
class Series:
    """A power series in h truncated after h^N; coefficients are sympy expressions in the coordinates."""

    def __init__(self, coeffs, N):
        self.c = [sympy.expand(x) for x in coeffs] + [sympy.S.Zero] * (N + 1 - len(coeffs))
        self.N = N

    @classmethod
    def lift(cls, x, N):
        return x if isinstance(x, Series) else cls([sympy.sympify(x)], N)

    def __add__(self, o):
        o = Series.lift(o, self.N)
        return Series([x + y for x, y in zip(self.c, o.c)], self.N)

    __radd__ = __add__

    def __neg__(self):
        return Series([-x for x in self.c], self.N)

    def __sub__(self, o):
        return self + (-Series.lift(o, self.N))

    def __mul__(self, o):
        if not isinstance(o, Series):
            return Series([o * x for x in self.c], self.N)
        return Series([sum((self.c[i] * o.c[n - i] for i in range(n + 1)), sympy.S.Zero)
                       for n in range(self.N + 1)], self.N)

    __rmul__ = __mul__

    def times_h(self, factor=1):
        return Series([sympy.S.Zero] + [factor * x for x in self.c[:-1]], self.N)

    def expr(self):
        return sum((x * h ** n for n, x in enumerate(self.c)), sympy.S.Zero)


def of_small(fn, x):
    """``fn(x)`` for sin/cos: Taylor's formula at the constant term (the rest is O(h))."""
    X = sympy.Dummy("X")
    x0, d = x.c[0], x - x.c[0]
    out, power = Series([fn(x0)], x.N), Series([1], x.N)
    for m in range(1, x.N + 1):
        power = power * d
        out = out + power * (sympy.diff(fn(X), X, m).subs(X, x0) / math.factorial(m))
    return out


def at(expr, values, N):
    """The sympy expression ``expr`` of the coordinates, evaluated on truncated series ``values``."""
    if expr in values:
        return values[expr]
    if expr.is_Number or not (expr.free_symbols & set(values)):
        return Series([expr], N)
    if expr.is_Add:
        return sum((at(a, values, N) for a in expr.args), Series([0], N))
    if expr.is_Mul:
        out = Series([1], N)
        for a in expr.args:
            out = out * at(a, values, N)
        return out
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        base, out = at(expr.base, values, N), Series([1], N)
        for _ in range(int(expr.exp)):
            out = out * base
        return out
    if isinstance(expr, (sympy.sin, sympy.cos)):
        return of_small(type(expr), at(expr.args[0], values, N))
    raise NotImplementedError(expr)


def solve(G, rhs, N):
    """The power series u with ``(I - h G) u = rhs`` (G a matrix of series): ``u = rhs + h G u``, solved
    for one power of h after the other, ``u_n = rhs_n + sum_m G_m u_(n-1-m)``."""
    d = len(rhs)
    u = [[None] * (N + 1) for _ in range(d)]
    for n in range(N + 1):
        for k in range(d):
            acc = rhs[k].c[n] + sum((G[k][l].c[m] * u[l][n - 1 - m] for l in range(d) for m in range(n)),
                                    sympy.S.Zero)
            u[k][n] = sympy.expand(acc)
    return [Series(row, N) for row in u]


def field_at(f, y, point, N):
    values = dict(zip(y, point))
    F = [at(e, values, N) for e in f]
    J = [[at(sympy.diff(e, v), values, N) for v in y] for e in f]
    return F, J


def step_transformed(gam, a, c, m, f, y, N, point):
    """One step of the published transformed form (HW (7.4'), Lang-Verwer, Shampine), literally:
    ``(I - h gam J) u_i = h gam f(y0 + sum a_ij u_j) + gam sum c_ij u_j``, ``y1 = y0 + sum m_i u_i``."""
    y0 = [Series([point[v]], N) for v in y]
    _, J = field_at(f, y, y0, N)
    us = []
    for i in range(len(m)):
        g = [y0[k] + sum((a[i][j] * us[j][k] for j in range(i)), Series([0], N)) for k in range(len(y))]
        fg, _ = field_at(f, y, g, N)
        rhs = [(gam * fg[k]).times_h() + sum((gam * c[i][j] * us[j][k] for j in range(i)), Series([0], N))
               for k in range(len(y))]
        us.append(solve([[gam * x for x in row] for row in J], rhs, N))
    return [(y0[k] + sum((m[i] * us[i][k] for i in range(len(m))), Series([0], N))).expr() for k in range(len(y))]


def step_hw(alpha, gamma, b, f, y, N, point, start=None, sign=1):
    """One step (of size ``sign * h``) of (7.4) itself from ``start`` (default: the point):
    ``(I - h gamma_ii J) k_i = h f(y0 + sum alpha_ij k_j) + h J sum_{j<i} gamma_ij k_j``."""
    y0 = start or [Series([point[v]], N) for v in y]
    _, J = field_at(f, y, y0, N)
    ks = []
    for i in range(len(b)):
        g = [y0[k] + sum((alpha[i][j] * ks[j][k] for j in range(i)), Series([0], N)) for k in range(len(y))]
        fg, _ = field_at(f, y, g, N)
        lower = [sum((gamma[i][j] * ks[j][k] for j in range(i)), Series([0], N)) for k in range(len(y))]
        rhs = [(fg[k] + sum((J[k][l] * lower[l] for l in range(len(y))), Series([0], N))).times_h(sign)
               for k in range(len(y))]
        ks.append(solve([[sign * gamma[i][i] * x for x in row] for row in J], rhs, N))
    return [y0[k] + sum((b[i] * ks[i][k] for i in range(len(b))), Series([0], N)) for k in range(len(y))]


def assert_same_powers(step, series, f, y, N, point):
    got = [e.subs(point) for e in bs.evaluate(series, f, h, y).exprs]
    for k in range(len(y)):
        diff = sympy.expand(step[k] - got[k])
        assert all(sympy.radsimp(sympy.expand(diff.coeff(h, n))) == 0 for n in range(N + 1)), (k, diff)


PENDULUM = [y2, -sympy.sin(y1)]
POLY = [y2 + y1 ** 2, -y1 + y1 * y2 - y2 ** 3 + y1 ** 4 / 3]  # 4th derivative != 0: every tree up to order 4 counts
QUAD = [y2 + y1 ** 2, -y1 + y1 * y2]                          # cheaper, where f''' = 0 does no harm
#: the steps are compared at points (exact numbers): symbolic coordinates make sympy's expansions too slow
POINTS = [{y1: R(1, 3), y2: R(-2, 5)}, {y1: R(3, 2), y2: R(5, 7)}]


# ============================================================================ tests
def test_published_orders_exactly_and_not_one_more():
    # ROS2, both gamma = 1 +- 1/sqrt(2): order 2, and the [τ²] condition b2 alpha21^2 = 1/2 != 1/3 fails
    for sign in (1, -1):
        al, ga, b, _ = ros2(sign)
        c = bs.order_of(rosenbrock(al, ga, b, order=4, name="ROS2"))
        assert (c.order, c.failing_tree, c.residual) == (2, bush3, R(1, 2) - R(1, 3))
    c = bs.order_of(rosenbrock(*ode23s()[:3], order=4))
    assert (c.order, c.failing_tree, c.residual) == (2, bush3, R(1, 4) - R(1, 3))
    ros3p = rosenbrock(*from_transformed(*ros3p_transformed()), order=5, name="ROS3P")
    assert ros3p.domain.K.degree == 2                       # exact in Q(sqrt(3))
    assert bs.order_of(ros3p).order == 3
    sh = rosenbrock(*from_transformed(*shampine_transformed()), order=5, name="Shampine")
    assert bs.order_of(sh).order == 4


def test_the_conversion_of_the_published_forms_is_the_method_itself():
    """The published forms applied literally agree with (7.4) applied literally (no B-series involved)."""
    N = 3
    Y = [y1, y2]
    y0 = [Series([POINTS[0][v]], N) for v in Y]
    hw = lambda al, ga, b: [x.expr() for x in step_hw(al, ga, b, QUAD, Y, N, POINTS[0])]
    for sign in (1, -1):
        al, ga, b, g = ros2(sign)
        F0, J = field_at(QUAD, Y, y0, N)
        G = [[g * x for x in row] for row in J]
        k1 = solve(G, F0, N)                                   # (I - g h J) k1 = f(y0)
        F1, _ = field_at(QUAD, Y, [y0[k] + k1[k].times_h() for k in range(2)], N)
        k2 = solve(G, [F1[k] - 2 * k1[k] for k in range(2)], N)
        verwer = [(y0[k] + (R(3, 2) * k1[k] + R(1, 2) * k2[k]).times_h()).expr() for k in range(2)]
        assert [sympy.radsimp(sympy.expand(u - v)) for u, v in zip(verwer, hw(al, ga, b))] == [0, 0]
    al, ga, b, d = ode23s()
    F0, J = field_at(QUAD, Y, y0, N)
    G = [[d * x for x in row] for row in J]
    k1 = solve(G, F0, N)                                       # W k1 = f(y0), W = I - h d J
    F1, _ = field_at(QUAD, Y, [y0[k] + (R(1, 2) * k1[k]).times_h() for k in range(2)], N)
    k2 = solve(G, [F1[k] - k1[k] for k in range(2)], N)
    matlab = [(y0[k] + (k2[k] + k1[k]).times_h()).expr() for k in range(2)]     # y0 + h (W^-1 (F1 - k1) + k1)
    assert [sympy.radsimp(sympy.expand(u - v)) for u, v in zip(matlab, hw(al, ga, b))] == [0, 0]


def test_series_equals_a_direct_step_on_nonlinear_fields():
    N = 4
    # ROS3P (transformed form applied literally, sqrt(3) exact) and Shampine's method, on the
    # pendulum and on a quartic field (every tree up to order 4 has F(t) != 0), to h^4
    for method, cases in ((ros3p_transformed(), ((PENDULUM, POINTS[0]), (POLY, POINTS[1]))),
                          (shampine_transformed(), ((POLY, POINTS[0]),))):
        series = rosenbrock(*from_transformed(*method), order=N)
        for f, point in cases:
            assert_same_powers(step_transformed(*method, f, [y1, y2], N, point), series, f, [y1, y2], N, point)
    # a symbolic family (gamma_21 = x, gamma_22 = z): the J-terms are where they should be
    x, z = sympy.symbols("x z")
    al, ga, b = [[0, 0], [R(2, 3), 0]], [[R(1, 3), 0], [x, z]], [R(1, 4), R(3, 4)]
    series = rosenbrock(al, ga, b, order=N)
    assert isinstance(series.domain, RationalFunctionDomain)
    step = [c.expr() for c in step_hw(al, ga, b, POLY, [y1, y2], N, POINTS[1])]
    assert_same_powers(step, series, POLY, [y1, y2], N, POINTS[1])


def stability_coefficients(alpha, gamma, b, n):
    """The z^k coefficients of ``R(z) = 1 + z b^T (I - z B)^(-1) 1``, ``B = alpha + gamma``, from the
    geometric series ``(I - z B)^(-1) = sum_k z^k B^k`` (sympy matrices, exact)."""
    s = len(b)
    Bm = (sympy.Matrix(alpha) + sympy.Matrix(gamma)).applyfunc(sympy.radsimp)
    bT, v = sympy.Matrix([b]), sympy.ones(s, 1)
    out = [sympy.S.One]
    for _ in range(n):
        out.append(sympy.radsimp(sympy.expand((bT * v)[0])))
        v = (Bm * v).applyfunc(lambda e: sympy.radsimp(sympy.expand(e)))
    return out


def test_linear_stability_function_on_the_tall_trees():
    lam, y = sympy.symbols("lambda y")
    n = 6
    for al, ga, b in [from_transformed(*ros3p_transformed()), from_transformed(*shampine_transformed()),
                      ode23s()[:3]]:
        coeffs = stability_coefficients(al, ga, b, n)
        step = bs.evaluate(rosenbrock(al, ga, b, order=n), [lam * y], h, [y]).exprs[0]
        for k in range(n + 1):
            assert sympy.radsimp(sympy.expand(step.coeff(h, k) - coeffs[k] * lam ** k * y)) == 0, k
    # the published L-stability of ROS3P is not claimed; its R(z) to z^3 is e^z (order 3), z^4 is not
    coeffs = stability_coefficients(*from_transformed(*ros3p_transformed()), 4)
    assert coeffs[:4] == [1, 1, R(1, 2), R(1, 6)] and coeffs[4] != R(1, 24)


def kutta3_with_jacobian_terms():
    """alpha = Kutta's third-order tableau (every alpha-only condition of order 3 holds), gamma chosen
    with b^T gamma 1 = 0 (order 2 survives) but b^T (alpha + gamma)^2 1 != 1/6."""
    alpha = [[0, 0, 0], [R(1, 2), 0, 0], [-1, 2, 0]]
    gamma = [[R(1, 2), 0, 0], [0, R(1, 2), 0], [-3, 0, R(1, 2)]]
    return alpha, gamma, [R(1, 6), R(2, 3), R(1, 6)]


def test_adversarial_jacobian_terms_are_not_ignored():
    alpha, gamma, b = kutta3_with_jacobian_terms()
    # independent truth: the tall-tree condition of order 3 is R(z)'s z^3 coefficient
    coeffs = stability_coefficients(alpha, gamma, b, 3)
    assert coeffs[:3] == [1, 1, R(1, 2)] and coeffs[3] != R(1, 6)
    c = bs.order_of(rosenbrock(alpha, gamma, b, order=4))
    assert (c.order, c.failing_tree, c.residual) == (2, chain3, coeffs[3] - R(1, 6))
    assert bs.order_of(bs.runge_kutta(alpha, b, order=4)).order == 3        # the alpha part alone
    # an error planted in gamma_31 of ROS3P, compensated in gamma_33 so that the row sums of
    # alpha + gamma (order 2) and alpha (the [τ²] condition) are untouched: order 3 is lost on [[τ]]
    al, ga, b3 = from_transformed(*ros3p_transformed())
    ga = [row[:] for row in ga]
    ga[2][0] += R(1, 100)
    ga[2][2] -= R(1, 100)
    coeffs = stability_coefficients(al, ga, b3, 3)
    assert coeffs[:3] == [1, 1, R(1, 2)] and coeffs[3] != R(1, 6)
    c = bs.order_of(rosenbrock(al, ga, b3, order=4))
    assert (c.order, c.failing_tree) == (2, chain3)
    assert sympy.radsimp(c.residual - (coeffs[3] - R(1, 6))) == 0


def test_gamma_zero_is_the_explicit_runge_kutta_method():
    A = [[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]]
    b = [R(1, 6), R(1, 3), R(1, 3), R(1, 6)]
    assert rosenbrock(A, [[0] * 4] * 4, b, order=6) == bs.runge_kutta(A, b, order=6)
    # a gamma-family specialises to it at gamma = 0, and differs elsewhere (on [τ] first)
    g = sympy.Symbol("g")
    fam = rosenbrock(A, [[g if i == j else 0 for j in range(4)] for i in range(4)], b, order=4)
    rk4 = bs.runge_kutta(A, b, order=4)
    assert all(sympy.simplify(c.subs(g, 0) - rk4[t]) == 0 for t, c in fam.items())
    assert sympy.expand(fam[trees_of_order(2)[0]] - R(1, 2)) == g


def test_symplecticity_first_failing_pair_by_hand():
    # ode23s: a(τ) = 1, a([τ]) = 1/2, a([τ²]) = alpha21^2 = 1/4, a([[τ]]) = b^T B B 1 = d - d^2
    # (B = alpha + gamma = [[d, 0], [1/2 - d, d]]); the pair (τ, [τ]) has residual
    # a([[τ]]) + a([τ²]) - a(τ) a([τ]) = -(d - 1/2)^2, d = 1 - sqrt(2)/2
    series = rosenbrock(*ode23s()[:3], order=4)
    assert bs.is_symplectic(series, 2).holds is True               # order 2: the exact flow's conditions
    c = bs.is_symplectic(series, 3)
    d = 1 - sqrt(2) / 2
    assert c.holds is False and c.counterexample["pair"] == (tau, trees_of_order(2)[0])
    assert sympy.expand(c.counterexample["residual"] + (d - R(1, 2)) ** 2) == 0
    # the one-stage family k = h f + gamma h J k: (τ, τ) needs 2 gamma = 1; then (τ, [τ]) has
    # a([[τ]]) + a([τ²]) - a(τ) a([τ]) = gamma^2 + 0 - gamma = -1/4: never symplectic beyond order 2
    g = sympy.Symbol("gamma")
    c = bs.is_symplectic(rosenbrock([[0]], [[g]], [1], order=3), 2)
    assert c.holds is False and sympy.expand(c.counterexample["residual"] - (2 * g - 1)) == 0
    c = bs.is_symplectic(rosenbrock([[0]], [[R(1, 2)]], [1], order=3), 3)
    assert c.holds is False and c.counterexample["residual"] == R(-1, 4)
    # Shampine's order-4 method: the conditions up to order 4 are the exact flow's; order 5 fails
    sh = rosenbrock(*from_transformed(*shampine_transformed()), order=5)
    assert bs.is_symplectic(sh, 4).holds is True and bs.is_symplectic(sh, 5).holds is False


def test_symmetry_against_the_step_composed_with_its_reverse():
    """``is_symmetric(m, p)`` True means ``Phi_h = Phi*_h + O(h^(p+1))``, ``Phi*_h = Phi_{-h}^{-1}``, so
    ``Phi_{-h}(Phi_h(y)) - y = O(h^(p+1))`` for every f; its h^(p+1) term is the defect ``Phi_h - Phi*_h``.
    Computed with the direct step on a concrete field at a point: zero up to h^p where the series says
    symmetric, nonzero at h^(p+1) where it says not (a genuine counterexample)."""
    N, point = 4, POINTS[0]

    def round_trip(al, ga, b):
        fwd = step_hw(al, ga, b, QUAD, [y1, y2], N, point)                  # Phi_h(y0), a series in h
        back = step_hw(al, ga, b, QUAD, [y1, y2], N, point, start=fwd, sign=-1)
        return [sympy.expand(back[k].expr() - point[v]) for k, v in enumerate((y1, y2))]

    # three methods of order 2: by HLW II, Thm 3.2 the adjoint of an order-p method has the error
    # constant (-1)^p C, so for even p = 2 they are symmetric up to order 3 -- and not 4
    for method in (([[0]], [[R(1, 2)]], [1]),               # the linearly implicit midpoint rule (gamma = 1/2)
                   ode23s()[:3], ros2()[:3]):
        series = rosenbrock(*method, order=4)
        assert bs.order_of(series).order == 2
        assert bs.is_symmetric(series, 3).holds is True and bs.is_symmetric(series, 4).holds is False
    rt = round_trip(*ode23s()[:3])                           # one of them step by step (the others cost time)
    assert all(sympy.expand(c.coeff(h, n)) == 0 for c in rt for n in range(4))
    assert any(sympy.expand(c.coeff(h, 4)) != 0 for c in rt)
    # an order-3 method: symmetric up to order 3 only (the h^4 defect does not vanish)
    method = from_transformed(*ros3p_transformed())
    series = rosenbrock(*method, order=4)
    assert bs.is_symmetric(series, 3).holds is True and bs.is_symmetric(series, 4).holds is False
    rt = round_trip(*method)
    assert all(sympy.expand(c.coeff(h, n)) == 0 for c in rt for n in range(4))
    assert any(sympy.expand(c.coeff(h, 4)) != 0 for c in rt)


def test_bad_inputs_are_refused_naming_what_is_wrong():
    ok_a, ok_g, ok_b = [[0, 0], [1, 0]], [[1, 0], [0, 1]], [R(1, 2), R(1, 2)]
    with pytest.raises(BSeriesError, match=r"alpha\[0\]\[0\].*strictly lower"):
        rosenbrock([[R(1, 2), 0], [1, 0]], ok_g, ok_b, order=2)
    with pytest.raises(BSeriesError, match=r"alpha\[0\]\[1\]"):
        rosenbrock([[0, 1], [1, 0]], ok_g, ok_b, order=2)
    with pytest.raises(BSeriesError, match=r"gamma\[0\]\[1\].*lower triangular"):
        rosenbrock(ok_a, [[1, 2], [0, 1]], ok_b, order=2)
    x = sympy.Symbol("x")
    with pytest.raises(BSeriesError, match=r"alpha\[1\]\[1\] = x"):        # a symbol is not 0
        rosenbrock([[0, 0], [1, x]], ok_g, ok_b, order=2)
    # an entry that is 0 but not written so is accepted (decided exactly in Q(sqrt(2)))
    hidden_zero = (1 + sqrt(2)) ** 2 - 3 - 2 * sqrt(2)
    assert rosenbrock([[0, hidden_zero], [1, 0]], ok_g, ok_b, order=2) == rosenbrock(ok_a, ok_g, ok_b, order=2)
    # ... and in sympy arithmetic decided by geomcheck.zero (sin^2 + cos^2 - 1), while cos(1) is refused
    trig_zero = sympy.sin(1) ** 2 + sympy.cos(1) ** 2 - 1
    assert rosenbrock([[0, trig_zero], [1, 0]], ok_g, ok_b, order=2) == rosenbrock(ok_a, ok_g, ok_b, order=2)
    with pytest.raises(BSeriesError, match=r"alpha\[0\]\[1\] = cos\(1\)"):
        rosenbrock([[0, sympy.cos(1)], [1, 0]], ok_g, ok_b, order=2)
    with pytest.raises(BSeriesError, match="floating-point"):
        rosenbrock(ok_a, [[0.5, 0], [0, 0.5]], ok_b, order=2)
    with pytest.raises(BSeriesError, match=r"b\[0\].*floating-point"):
        rosenbrock(ok_a, ok_g, [0.5, 0.5], order=2)
    with pytest.raises(BSeriesError, match="gamma is 3 x 3 but alpha is 2 x 2"):
        rosenbrock(ok_a, [[1, 0, 0], [0, 1, 0], [0, 0, 1]], ok_b, order=2)
    with pytest.raises(BSeriesError, match="b has 3 entries"):
        rosenbrock(ok_a, ok_g, [1, 0, 0], order=2)
    with pytest.raises(BSeriesError, match="square"):
        rosenbrock([[0, 0], [1]], ok_g, ok_b, order=2)
    with pytest.raises(BSeriesError, match="square"):
        rosenbrock("alpha", ok_g, ok_b, order=2)
    with pytest.raises(BSeriesError, match="not a number"):
        rosenbrock(ok_a, [[None, 0], [0, 1]], ok_b, order=2)
    with pytest.raises(BSeriesError, match="truncation order"):
        rosenbrock(ok_a, ok_g, ok_b, order=-1)
    with pytest.raises(BSeriesError, match="truncation order"):
        rosenbrock(ok_a, ok_g, ok_b, order=2.0)
    # sympy matrices are accepted; order 0 is the identity
    assert rosenbrock(sympy.Matrix(ok_a), sympy.Matrix(ok_g), sympy.Matrix(ok_b), order=3) == \
        rosenbrock(ok_a, ok_g, ok_b, order=3)
    assert rosenbrock(ok_a, ok_g, ok_b, order=0) == bs.identity(0)


def test_no_w_method_constructor_exists():
    """W-methods are not B-series methods: the module exports only ``rosenbrock`` (exact Jacobian)."""
    import importlib

    mod = importlib.import_module("geomcheck.bseries.rosenbrock")     # the package re-exports the function
    assert not any("w_method" in name.lower() or "w-method" in name.lower() for name in dir(bs))
    assert mod.__all__ == ["rosenbrock"]
    assert "W-method" in mod.__doc__ and "not B-series methods" in mod.__doc__
