"""Tests of geomcheck.calculus: the one place where sympy differentiation happens."""


import pytest
import sympy as sp

from geomcheck.calculus import canonical_derivatives, diff, free_coordinates

p, q, h, a, b, x, y = sp.symbols("p q h a b x y")
q1, q2, p1, p2 = sp.symbols("q1 q2 p1 p2")
V = sp.Function("V")
f = sp.Function("f")


def test_diff_is_sympy_diff_on_plain_expressions():
    e = x**3 * y + sp.sin(x * y)
    assert diff(e, x) == sp.diff(e, x)
    assert diff(e, y) == sp.diff(e, y)


def test_diff_of_an_expression_free_of_the_variable_is_zero():
    assert diff(x**2 + V(y), q) == 0
    assert diff(3, x) == 0


def test_mixed_partials_cancel_structurally():
    first = diff(diff(V(p, q), p), q)
    second = diff(diff(V(p, q), q), p)
    assert first == second
    assert first - second == 0
    assert first == sp.Derivative(V(p, q), p, q)


def test_mixed_partials_of_three_variables_in_any_order_are_equal():
    orders = [(q1, q2, p1), (p1, q2, q1), (q2, p1, q1)]
    results = set()
    for order in orders:
        e = V(q1, q2, p1)
        for v in order:
            e = diff(e, v)
        results.add(e)
    assert len(results) == 1


def test_canonical_derivatives_sorts_by_argument_slot():
    assert canonical_derivatives(sp.Derivative(V(p, q), q, p)) == sp.Derivative(V(p, q), p, q)
    # slot order, not alphabetical order
    assert canonical_derivatives(sp.Derivative(V(q, p), p, q)).variable_count == ((q, 1), (p, 1))


def test_canonical_derivatives_merges_repeated_variables():
    d = sp.Derivative(V(p, q), p, q, p)
    assert d.variable_count == ((p, 1), (q, 1), (p, 1))  # sympy keeps the order given
    assert canonical_derivatives(d).variable_count == ((p, 2), (q, 1))


def test_canonical_derivatives_inside_subs_and_sums():
    xi = sp.Dummy("xi")
    inner = sp.Subs(sp.Derivative(V(xi, q), q, xi), xi, q + h * p)
    fixed = canonical_derivatives(inner)
    assert fixed.expr.variable_count == ((xi, 1), (q, 1))
    e = sp.Derivative(V(p, q), q, p) + 2 * sp.Derivative(V(p, q), p, q)
    assert canonical_derivatives(e) == 3 * sp.Derivative(V(p, q), p, q)


def test_canonical_derivatives_leaves_other_things_alone():
    e = x**2 + sp.Derivative(sp.sin(x) * f(x), x, evaluate=False)
    assert canonical_derivatives(e) == e
    assert canonical_derivatives(x + 1) == x + 1


def test_diff_of_subs_avoids_the_sympy_placeholder_leak():
    # sympy 1.14: Subs(Derivative(f(x, a*b), x), x, a + b).diff(a) contains a Symbol
    # named "_a + b" (the Subs' internal placeholder); calculus.diff goes through jets.
    e = sp.Subs(sp.Derivative(f(x, a * b), x), x, a + b)
    d = diff(e, a)
    assert d.free_symbols <= {a, b}
    # the right answer: f_11(a+b, ab) + b f_12(a+b, ab)
    from geomcheck.zero import canonical_jets, jet_function

    f11 = jet_function("f", (2, 0))(a + b, a * b)
    f12 = jet_function("f", (1, 1))(a + b, a * b)
    assert sp.expand(canonical_jets(d) - (f11 + b * f12)) == 0


def test_diff_of_subs_keeps_the_derivative_ordering_canonical():
    e = diff(V(q + h * p, q), q)  # contains Subs
    # the surrounding algebra may be grouped differently; the derivatives cancel
    assert sp.expand(diff(diff(e, p), q) - diff(diff(e, q), p)) == 0


def test_stormer_verlet_jacobian_has_no_stray_symbols():
    qs, ps = (q1, q2), (p1, p2)
    X = sp.symbols("x1:3")
    g = [diff(V(*qs), qi) for qi in qs]
    ph = [ps[i] - h / 2 * g[i] for i in range(2)]
    Q = [qs[i] + h * ph[i] for i in range(2)]
    gQ = [diff(V(*X), X[i]).subs(dict(zip(X, Q)), simultaneous=True) for i in range(2)]
    P = [ph[i] - h / 2 * gQ[i] for i in range(2)]
    entries = [diff(yi, xj) for yi in Q + P for xj in qs + ps]
    allowed = {q1, q2, p1, p2, h}
    assert all(e.free_symbols <= allowed for e in entries)


def test_diff_is_memoized():
    e = V(q1, q2) * q1**2 + sp.cos(q2)
    assert diff(e, q1) is diff(e, q1)


def test_diff_is_memoized_on_small_polynomials():
    # (its speed is measured by the benchmarks, not asserted here)
    syms = sp.symbols("z0:20")
    polys = [sum((i + k) * syms[k] ** (1 + (i + k) % 3) * syms[(k + 1) % 20] for k in range(5)) for i in range(100)]
    first = [diff(e, s) for e in polys for s in syms[:10]]
    again = [diff(e, s) for e in polys for s in syms[:10]]
    assert all(a is b for a, b in zip(first, again))
    assert first[0] == sp.diff(polys[0], syms[0])


def test_free_coordinates():
    coords = {q1, q2, p1}
    assert free_coordinates(h * q1**2 + V(q2), coords) == frozenset({q1, q2})
    assert free_coordinates(h, coords) == frozenset()
    assert free_coordinates(q1 * p1, [q1, p1]) == frozenset({q1, p1})
    assert free_coordinates(q1 * p1, (q1,)) == frozenset({q1})
    assert isinstance(free_coordinates(q1, coords), frozenset)
    assert free_coordinates(3, coords) == frozenset()


def test_free_coordinates_ignores_bound_variables():
    xi = sp.Dummy("xi")
    e = sp.Subs(sp.Derivative(V(xi), xi), xi, q1 + h)
    assert free_coordinates(e, {q1, xi}) == frozenset({q1})


@pytest.mark.parametrize("order", [(q1, q1, q2), (q2, q1, q1), (q1, q2, q1)])
def test_third_derivatives_agree(order):
    e = V(q1, q2)
    for v in order:
        e = diff(e, v)
    assert e == sp.Derivative(V(q1, q2), (q1, 2), q2)
