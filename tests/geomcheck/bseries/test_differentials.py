"""Elementary differentials and B-series evaluated on vector fields.

References are independent of geomcheck.bseries.differentials: a brute-force evaluation of the
definition F([t1..tm]) = f^(m)(F(t1), ..., F(tm)) (every index tuple, no memo, no sparsity),
Taylor polynomials from sympy's own series, the Lie-series modified field of a concrete map
(geomcheck.certify.modified_vector_field), and the published modifying integrator of the implicit
midpoint rule (Chartier, Hairer, Vilmart 2007, eq. (12), as checked in BSeries.jl's tests).
"""

from __future__ import annotations

import itertools
import math

import pytest
import sympy
from sympy import Rational as R

import geomcheck as gc
import geomcheck.bseries as bs
from geomcheck.bseries.differentials import (
    ElementaryDifferentials,
    elementary_differential,
    evaluate,
    terms_by_order,
)
from geomcheck.certify import modified_vector_field
from geomcheck.certify.trees import trees_of_order, trees_up_to
from geomcheck.errors import BSeriesError, ExpressionError, InvalidArgumentError
from geomcheck.jets import from_jets

h = sympy.Symbol("h")
tau, = trees_of_order(1)
EXPLICIT_MIDPOINT = ([[0, 0], [R(1, 2), 0]], [0, 1])


def brute_force_F(t, parts_f, parts_x):
    """F(t) from the definition: sum over every index tuple of d^m f_k / dy_{j1}..dy_{jm} prod F(t_i)_{j_i}."""
    k = t.colour
    children = list(t.children)
    values = [brute_force_F(u, parts_f, parts_x) for u in children]
    out = []
    for fi in parts_f[k]:
        total = 0
        for js in itertools.product(*[range(len(parts_x[u.colour])) for u in children]):
            d = fi
            for u, j in zip(children, js):
                d = sympy.diff(d, parts_x[u.colour][j])
            total += d * math.prod(v[j] for v, j in zip(values, js))
        out.append(total)
    return out


def lie_taylor(f, coords, p):
    """[T_1 .. T_p] of the exact flow: T_k = L_f^k(y) / k!, L_f the derivative along f."""
    out, current = [], list(coords)
    for k in range(1, p + 1):
        current = [sympy.expand(sum(fj * sympy.diff(c, x) for fj, x in zip(f, coords))) for c in current]
        out.append([c / math.factorial(k) for c in current])
    return out


def same(a, b):
    """a == b after expanding, mixed partial derivatives written in one order (sympy keeps the order
    of differentiation; geomcheck writes them canonically)."""
    def canonical(e):
        return sympy.expand(e).replace(lambda d: isinstance(d, sympy.Derivative),
                                       lambda d: sympy.Derivative(d.expr, *sorted(d.variables, key=str)))
    return sympy.expand(canonical(a) - canonical(b)) == 0


def is_zero(e):
    return sympy.cancel(sympy.together(sympy.expand(e))) == 0


# --------------------------------------------------------------------------- elementary differentials
def test_generic_field_matches_the_definition_up_to_order_5():
    x, y = sympy.symbols("x y")
    g, k = sympy.Function("g"), sympy.Function("k")
    f = [g(x, y), k(x, y)]
    F = ElementaryDifferentials(f, [x, y])
    for t in trees_up_to(5):
        got = F.of(t)
        ref = brute_force_F(t, [f], [[x, y]])
        assert all(same(a, b) for a, b in zip(got, ref)), t


def test_hlw_examples_on_a_generic_scalar_field():
    y = sympy.Symbol("y")
    g = sympy.Function("g")(y)
    g1, g2, g3 = (sympy.diff(g, y, n) for n in (1, 2, 3))
    expected = {                       # HLW III.1 Table 1.1, for f = g scalar
        "t": g, "[t]": g1 * g, "[t^2]": g2 * g ** 2, "[[t]]": g1 ** 2 * g,
        "[t^3]": g3 * g ** 3, "[t[t]]": g2 * g * g1 * g, "[[t^2]]": g1 * g2 * g ** 2, "[[[t]]]": g1 ** 3 * g,
    }
    for t in trees_up_to(4):
        got, = elementary_differential(t, [g], [y])
        assert sympy.expand(got - expected[t.ascii()]) == 0, t


def test_gradient_of_a_generic_hamiltonian():
    q, p = sympy.symbols("q p")
    H = sympy.Function("H")(q, p)
    f = [sympy.diff(H, p), -sympy.diff(H, q)]
    M = gc.Chart([q, p])
    X = gc.VectorField(M, f)
    for t in trees_up_to(4):
        got = elementary_differential(t, X)
        ref = brute_force_F(t, [f], [[q, p]])
        assert all(same(a, b) for a, b in zip(got, ref)), t


def test_partitioned_field_colour_0_is_q():
    q1, q2, p1 = sympy.symbols("q1 q2 p1")
    g = sympy.Function("g")
    f0 = [g(q1, q2, p1), q1 * p1 ** 2]
    f1 = [sympy.sin(q2) * p1]
    F = ElementaryDifferentials((f0, f1), [q1, q2, p1], colours=2)
    assert F.parts == ((0, 1), (2,))
    # the same field as a pair of coordinate lists, and as a VectorField split by coords
    F2 = ElementaryDifferentials((f0, f1), ([q1, q2], [p1]), colours=2)
    X = gc.VectorField(gc.Chart([q1, q2, p1]), f0 + f1)
    F3 = ElementaryDifferentials(X, ([q1, q2], [p1]), colours=2)
    for t in trees_up_to(4, colours=2):
        ref = brute_force_F(t, [f0, f1], [[q1, q2], [p1]])
        assert len(ref) == (2 if t.colour == 0 else 1)
        for got in (F.of(t), F2.of(t), F3.of(t)):
            assert all(same(a, b) for a, b in zip(got, ref)), t
    leaf_q, leaf_p = trees_of_order(1, colours=2)
    assert F.of(leaf_q) == f0 and F.of(leaf_p) == f1
    assert F.embed(leaf_p) == [0, 0, f1[0]] and F.embed(leaf_q) == f0 + [0]


def test_sparse_fields_stay_small_and_fast_at_order_8():
    y1, y2 = sympy.symbols("y1 y2")
    F = ElementaryDifferentials([-y2, y1], [y1, y2])
    # f is linear: every tree with a vertex of two or more children vanishes; the chain is a rotation
    for t in trees_up_to(8):
        v = F.of(t)
        branched = any(len(u.children) > 1 for u in _vertices(t))
        assert (v == [0, 0]) == branched
    chain = trees_of_order(8)[-1]
    assert F.of(chain) == [y1, y2]      # f'^7 f = J^7 (J y) = J^8 y = y, J the rotation by pi/2


def _vertices(t):
    yield t
    for u in t.children:
        yield from _vertices(u)


def test_exact_flow_of_lotka_volterra_at_order_8_is_the_lie_series():
    """Order 8 (115 trees of order 8) on a 2-dim nonlinear field: each power of h equals L_f^k(y) / k!,
    compared exactly at two rational points (the unexpanded terms are large; expanding costs seconds)."""
    u, v = sympy.symbols("u v")
    f = [u * (v - 2), v * (1 - u)]
    T = terms_by_order(bs.exact_flow(8), f, [u, v])
    points = [{u: R(1, 3), v: R(5, 7)}, {u: R(-2), v: R(3, 11)}]
    for k, row in enumerate(lie_taylor(f, [u, v], 8)):
        for got, ref in zip(T[k], row):
            for point in points:
                assert got.xreplace(point) == sympy.expand(ref).xreplace(point), k


# --------------------------------------------------------------------------- evaluation: definitions
def test_explicit_euler_evaluates_to_y_plus_h_f():
    x, y = sympy.symbols("x y")
    g, k = sympy.Function("g"), sympy.Function("k")
    euler = bs.BSeries({tau: 1}, 5)
    step = evaluate(euler, [g(x, y), k(x, y)], h, [x, y])
    assert isinstance(step, gc.Map)
    assert step.exprs == (x + h * g(x, y), y + h * k(x, y))
    assert evaluate(bs.runge_kutta([[0]], [1], order=4), [g(x, y), k(x, y)], h, [x, y]) == step


def test_exact_flow_of_a_linear_scalar_field_is_the_exponential():
    y, lam = sympy.symbols("y lambda")
    p = 7
    step = evaluate(bs.exact_flow(p), [lam * y], h, [y])
    ref = sympy.series(sympy.exp(lam * h) * y, h, 0, p + 1).removeO()
    assert sympy.expand(step.exprs[0] - ref) == 0


def test_exact_flow_of_the_harmonic_oscillator_is_the_rotation():
    M = gc.Chart("y1 y2")
    y1, y2 = M.coords
    p = 8
    step = evaluate(bs.exact_flow(p), gc.VectorField(M, [-y2, y1]), h)
    c = sympy.series(sympy.cos(h), h, 0, p + 1).removeO()
    s = sympy.series(sympy.sin(h), h, 0, p + 1).removeO()
    assert sympy.expand(step.exprs[0] - (c * y1 - s * y2)) == 0
    assert sympy.expand(step.exprs[1] - (s * y1 + c * y2)) == 0
    assert step.source == M and step.target == M


def test_vector_field_series_gives_h_times_a_field():
    y = sympy.Symbol("y")
    g = sympy.Function("g")(y)
    leaf, = trees_of_order(1)
    bush, chain = trees_of_order(3)
    b = bs.BSeries({leaf: 1, bush: R(1, 3), chain: -5}, 3, empty=0)
    X = evaluate(b, [g], h, [y])
    assert isinstance(X, gc.VectorField)
    g1, g2 = sympy.diff(g, y), sympy.diff(g, y, 2)
    expected = g + h ** 2 * (R(1, 3) / 2 * g2 * g ** 2 - 5 * g1 ** 2 * g)     # sigma(bush) = 2
    assert sympy.expand(X.component(y) - expected) == 0
    T = terms_by_order(b, [g], [y])
    assert T[1] == [0] and sympy.expand(T[2][0] - (expected - g) / h ** 2) == 0
    # one memo for several series: the terms are the same as with a fresh one
    F = ElementaryDifferentials([g], [y])
    assert terms_by_order(b, F) == T
    assert terms_by_order(bs.exact_flow(3), F) == terms_by_order(bs.exact_flow(3), [g], [y])
    with pytest.raises(BSeriesError, match="colours=1"):
        terms_by_order(bs.exact_flow(2, colours=2), F)


def test_results_are_in_the_users_symbols():
    u1, u2, alpha = sympy.symbols("u1 u2 alpha")
    fam = bs.runge_kutta([[0, 0], [alpha, 0]], [1 - 1 / (2 * alpha), 1 / (2 * alpha)], order=4)
    X = evaluate(bs.modified_equation(fam, 4), [u1 * u2, -u1], h, [u1, u2])
    comps = [X.component(x) for x in (u1, u2)]
    assert set().union(*(c.free_symbols for c in comps)) <= {u1, u2, h, alpha}
    assert not any(c.has(sympy.Dummy) for c in comps)
    num = sympy.lambdify((u1, u2, h, alpha), comps)
    exact = [c.subs({u1: R(1, 2), u2: 3, h: R(1, 10), alpha: R(2, 3)}) for c in comps]
    assert num(0.5, 3.0, 0.1, 2 / 3) == pytest.approx([float(e) for e in exact])


# --------------------------------------------------------------------------- cross-checks with Lie series
def _midpoint_map(chart, f):
    """The explicit midpoint step y + h f(y + h/2 f(y)) of a field given as a function of the coordinates."""
    ys = chart.coords
    k1 = f(*ys)
    k2 = f(*[y + h / 2 * v for y, v in zip(ys, k1)])
    return gc.Map(chart, chart, [y + h * v for y, v in zip(ys, k2)])


def test_modified_equation_of_explicit_midpoint_on_the_nonlinear_oscillator():
    """BSeries.jl's benchmark field f = (-u2, u1) / (u1^2 + u2^2), compared power by power of h."""
    M = gc.Chart("u1 u2")
    u1, u2 = M.coords

    def f(a, b):
        return [-b / (a ** 2 + b ** 2), a / (a ** 2 + b ** 2)]

    p = 4
    ref = modified_vector_field(_midpoint_map(M, f), h, p)
    series = bs.modified_equation(bs.runge_kutta(*EXPLICIT_MIDPOINT, order=p), p)
    T = terms_by_order(series, f(u1, u2), [u1, u2])
    points = [{u1: R(1, 2), u2: R(-3, 5)}, {u1: R(7, 3), u2: R(2)}, {u1: R(-1, 9), u2: R(4, 7)}]
    for k in range(p):
        for i, x in enumerate(M.coords):
            for point in points:         # exact rational values (cancelling every term costs seconds)
                assert T[k][i].xreplace(point) == ref[k].component(x).xreplace(point), (k, x, point)
    # the first correction (h^2; h^1 vanishes for an order-2 method) as rational functions
    assert is_zero(T[2][0] - ref[2].component(u1)) and not is_zero(T[2][0]) and is_zero(T[1][0])
    X = evaluate(series, gc.VectorField(M, f(u1, u2)), h)
    assert X.component(u1).xreplace(points[0]) == sum(h ** k * T[k][0].xreplace(points[0]) for k in range(p))


def test_modified_equation_of_explicit_midpoint_on_a_generic_scalar_field():
    M = gc.Chart("y")
    y, = M.coords
    g = sympy.Function("g")
    p = 6
    ref = modified_vector_field(_midpoint_map(M, lambda a: [g(a)]), h, p)
    series = bs.modified_equation(bs.runge_kutta(*EXPLICIT_MIDPOINT, order=p), p)
    T = terms_by_order(series, [g(y)], [y])
    for k in range(p):
        assert sympy.expand(T[k][0] - from_jets(ref[k].component(y))) == 0, k
    g1, g2 = sympy.diff(g(y), y), sympy.diff(g(y), y, 2)
    # HLW IX.1: f~ = f + h^2 (-1/24 f''(f,f) - 1/6 f'f'f) + ... for the explicit midpoint rule (scalar here)
    assert sympy.expand(T[2][0] - (-g2 * g(y) ** 2 / 24 - g1 ** 2 * g(y) / 6)) == 0


def test_modified_equation_of_explicit_euler_on_lotka_volterra():
    """HLW p. 340 (BSeries.jl tutorial): u' = u(v - 2), v' = v(1 - u), explicit Euler."""
    M = gc.Chart("u v")
    u, v = M.coords
    f = [u * (v - 2), v * (1 - u)]
    p = 5
    ref = modified_vector_field(gc.Map(M, M, [u + h * f[0], v + h * f[1]]), h, p)
    T = terms_by_order(bs.modified_equation(bs.runge_kutta([[0]], [1], order=p), p), f, [u, v])
    for k in range(p):
        for i, x in enumerate(M.coords):
            assert sympy.expand(T[k][i] - ref[k].component(x)) == 0, (k, x)
    # the first correction -h/2 f'f, written out
    assert sympy.expand(T[1][0] + u * (v ** 2 - u * v - 3 * v + 4) / 2) == 0


def test_modifying_integrator_of_explicit_euler_on_lotka_volterra():
    """BSeries.jl's modifying-integrator tutorial: Euler applied to f_h is the exact flow of f."""
    p_, q_ = sympy.symbols("p q")
    f = [(2 - q_) * p_, (p_ - 1) * q_]
    order = 5
    fh = evaluate(bs.modifying_integrator(bs.runge_kutta([[0]], [1], order=order), order), f, h, [p_, q_])
    euler_of_fh = [y + h * fh.component(y) for y in (p_, q_)]
    flow = lie_taylor(f, [p_, q_], order)
    for i, y in enumerate((p_, q_)):
        exact = y + sum(h ** k * flow[k - 1][i] for k in range(1, order + 1))
        diff = sympy.expand(euler_of_fh[i] - exact)
        assert all(diff.coeff(h, k) == 0 for k in range(order + 1)), (y, diff)
    # and the first term by hand: Euler gives y + h f + h^2/2 f'f + ..., so f_h = f + h/2 f'f + ...
    fpf_p = (2 - q_) * (2 - q_) * p_ - p_ * (p_ - 1) * q_          # d(f_p)/dp f_p + d(f_p)/dq f_q
    assert sympy.expand(fh.component(p_).coeff(h, 1) - fpf_p / 2) == 0


def test_modifying_integrator_of_implicit_midpoint_chartier_hairer_vilmart():
    """CHV 2007 eq. (12): for f = (a u2 u3, b u3 u1, c u1 u2) the modifying integrator of the implicit
    midpoint rule is f_h = f (1 + h^2 s3 + h^4 s5) + O(h^5)."""
    u1, u2, u3, a, b, c = sympy.symbols("u1 u2 u3 alpha beta gamma")
    f = [a * u2 * u3, b * u3 * u1, c * u1 * u2]
    fh = evaluate(bs.modifying_integrator(bs.runge_kutta([[R(1, 2)]], [1], order=5), 5), f, h, [u1, u2, u3])
    s3 = -(a * b * u3 ** 2 + a * c * u2 ** 2 + b * c * u1 ** 2) / 12
    s5 = R(6, 5) * s3 ** 2 + R(1, 60) * a * b * c * (b * u1 ** 2 * u3 ** 2 + c * u2 ** 2 * u1 ** 2
                                                       + a * u3 ** 2 * u2 ** 2)
    for i, x in enumerate((u1, u2, u3)):
        assert sympy.expand(fh.component(x) - f[i] * (1 + h ** 2 * s3 + h ** 4 * s5)) == 0, x


def test_stormer_verlet_p_series_on_the_pendulum():
    """Lobatto IIIA-IIIB (PartitionedTableau convention: colour 0 = q) evaluated on q' = p, p' = -sin q
    is the Taylor polynomial of the velocity Verlet step."""
    q, p = sympy.symbols("q p")
    verlet = bs.partitioned_runge_kutta(([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)],
                                         [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)]), 5)
    step = evaluate(verlet, ([p], [-sympy.sin(q)]), h, ([q], [p]))
    half = p - h / 2 * sympy.sin(q)
    Q = q + h * half
    P = half - h / 2 * sympy.sin(Q)
    for got, exact in zip(step.exprs, (Q, P)):
        ref = sympy.series(exact, h, 0, 6).removeO()
        assert sympy.expand(sympy.expand_trig(got - ref)) == 0


def test_explicit_partitioned_pair_on_a_non_separable_field():
    """q: explicit midpoint, p: Heun; f_0 = p q + q^2, f_1 = q - p^2 (both parts depend on q and p)."""
    q, p = sympy.symbols("q p")
    f0, f1 = (lambda a, b: a * b + a ** 2), (lambda a, b: a - b ** 2)
    prk = bs.partitioned_runge_kutta(([[0, 0], [R(1, 2), 0]], [0, 1], [[0, 0], [1, 0]], [R(1, 2), R(1, 2)]), 4)
    step = evaluate(prk, ([f0(q, p)], [f1(q, p)]), h, [q, p])
    Q2, P2 = q + h / 2 * f0(q, p), p + h * f1(q, p)
    exact = (q + h * f0(Q2, P2), p + h / 2 * (f1(q, p) + f1(Q2, P2)))
    for got, e in zip(step.exprs, exact):
        diff = sympy.expand(got - e)
        assert all(diff.coeff(h, k) == 0 for k in range(5)), diff


# --------------------------------------------------------------------------- refusals
def test_bad_inputs_are_refused_with_geomcheck_errors():
    x, y = sympy.symbols("x y")
    e = bs.exact_flow(2)
    with pytest.raises(BSeriesError):
        evaluate({tau: 1}, [x], h, [x])
    with pytest.raises(InvalidArgumentError, match="coords are needed"):
        evaluate(e, [x], h)
    with pytest.raises(InvalidArgumentError, match="one component per coordinate"):
        evaluate(e, [x, y], h, [x])
    with pytest.raises(InvalidArgumentError, match="Symbol"):
        evaluate(e, [x], h, [x + 1])
    with pytest.raises(InvalidArgumentError, match="contains the coordinate"):
        evaluate(e, [x], h * x, [x])
    with pytest.raises(ExpressionError):
        evaluate(e, ["not an expression ("], h, [x])
    with pytest.raises(ExpressionError, match="pair"):
        evaluate(bs.exact_flow(2, colours=2), [x, y], h, [x, y])
    with pytest.raises(InvalidArgumentError, match="not one of the"):
        ElementaryDifferentials([x], [x]).of(trees_of_order(1, colours=2)[0])
    X = gc.VectorField(gc.Chart([x, y]), [y, x])
    with pytest.raises(InvalidArgumentError, match=r"coords = \(q"):
        evaluate(bs.exact_flow(2, colours=2), X, h)
    with pytest.raises(InvalidArgumentError, match="differ"):
        evaluate(e, X, h, [y, x])
