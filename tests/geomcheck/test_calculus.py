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


# --------------------------------------------------------------------------- nested undefined functions
#
# The oracle: the engine's result, written back in sympy's notation (from_jets), with
# concrete functions put in for V, W, U, compared with plain sympy differentiating the
# concrete composite.  sympy is right on concrete functions; it is the undefined ones
# (Function.fdiff by a subtree such as W(q)) that it can get wrong.

W = sp.Function("W")
U = sp.Function("U")
t = sp.Symbol("t")
_s1, _s2 = sp.symbols("s1 s2")
# concrete functions of one and of two arguments
ONE = {V: sp.Lambda(_s1, sp.cos(_s1) + _s1**4), W: sp.Lambda(_s1, _s1**2 + 2 * _s1),
       U: sp.Lambda(_s1, sp.exp(_s1) + _s1)}
TWO = {V: sp.Lambda((_s1, _s2), _s1**3 * _s2 + sp.sin(_s1 * _s2)), W: sp.Lambda((_s1, _s2), _s1**2 * _s2 + _s2)}


def _concrete(e, table):
    from geomcheck.zero import from_jets

    return from_jets(e).subs(table).doit()


def _same_function(a, b, symbols, points=2):
    """Equal at a few exact rational points (both sides concrete, so this is an oracle)."""
    for k in range(points):
        at = {s: sp.Rational(2 * k + 3 + i, 7 + i) for i, s in enumerate(symbols)}
        if abs(sp.N((a - b).subs(at), 40)) > sp.Float(10) ** -30:
            return False
    return True


def test_diff_of_a_nested_function_does_not_recurse():
    # sympy writes the chain rule with a derivative by the function W(q)
    e = V(W(q)).diff(q)
    assert e.has(sp.Derivative(V(W(q)), W(q)))
    d = diff(e, q)  # a RecursionError before: jets and calculus sent it back and forth
    truth = sp.diff((sp.cos(q**2 + 2 * q) + (q**2 + 2 * q) ** 4), q, 2)
    assert _same_function(_concrete(d, ONE), truth, [q])


def test_derivative_by_a_function_becomes_a_jet():
    from geomcheck.zero import canonical_jets, jet_function

    Wj = jet_function("W", (0,))(q)
    jets = canonical_jets(sp.Derivative(V(W(q)), (W(q), 2)) * sp.Derivative(W(q), q))
    assert jets == jet_function("V", (2,))(Wj) * jet_function("W", (1,))(q)
    d = diff(sp.Derivative(V(W(q)), W(q)), q)
    assert canonical_jets(d) == jet_function("V", (2,))(Wj) * jet_function("W", (1,))(q)


def test_nested_function_twice_in_one_call_is_not_double_counted():
    # sympy 1.14: V(W(q), W(q)).diff(q) == 2*Derivative(V(W(q), W(q)), W(q))*Derivative(W(q), q),
    # twice the truth (the Derivative by W(q) already differentiates both slots)
    wrong = sp.diff(sp.sin(V(W(q), W(q))), q)
    mine = diff(sp.sin(V(W(q), W(q))), q)
    Wq = q**2 + 2 * q
    truth = sp.diff(sp.sin(Wq**3 * Wq + sp.sin(Wq * Wq)), q)
    table = {V: TWO[V], W: ONE[W]}
    assert _same_function(_concrete(mine, table), truth, [q])
    assert not _same_function(_concrete(wrong, table), truth, [q])


@pytest.mark.parametrize("order", [1, 2, 3])
def test_deeper_nesting(order):
    e = V(W(U(q)))
    for _ in range(order):
        e = diff(e, q)
    Uq = sp.exp(q) + q
    truth = sp.diff(sp.cos(Uq**2 + 2 * Uq) + (Uq**2 + 2 * Uq) ** 4, q, order)
    assert _same_function(_concrete(e, ONE), truth, [q])


def test_nested_function_of_an_expression_of_other_jets():
    inner = W(q1, q2) + U(q2) * sp.Derivative(W(q1, q2), q1)
    e = V(inner, q1 * q2)
    Wc = q1**2 * q2 + q2
    Uc = sp.exp(q2) + q2
    inner_c = Wc + Uc * sp.diff(Wc, q1)
    conc = inner_c**3 * (q1 * q2) + sp.sin(inner_c * q1 * q2)
    table = {V: TWO[V], W: TWO[W], U: ONE[U]}
    for v in (q1, q2):
        assert _same_function(_concrete(diff(e, v), table), sp.diff(conc, v), [q1, q2])
    for first, second in ((q1, q2), (q2, q1)):
        mixed = diff(diff(e, first), second)
        assert _same_function(_concrete(mixed, table), sp.diff(conc, q1, q2), [q1, q2])


def test_derivative_by_a_derivative_follows_sympy():
    # a Lagrangian L(x, x'): d/dt of dL/dx' (sympy's own definition of the derivative by x')
    x_ = sp.Function("x")(t)
    L = sp.Function("L")
    dL = sp.Derivative(L(x_, x_.diff(t)), x_.diff(t))
    d = diff(dL, t)
    a, v = sp.symbols("a v")
    from geomcheck.zero import from_jets

    concrete = from_jets(d).subs({L: sp.Lambda((a, v), a * v**2)}).doit().subs(x_, sp.sin(t)).doit()
    truth = sp.diff(2 * sp.sin(t) * sp.cos(t), t)
    assert _same_function(concrete, truth, [t])


def test_derivative_of_symbolic_order_stays_as_sympy_has_it():
    n = sp.Symbol("n", integer=True, positive=True)
    e = sp.Derivative(V(W(q)), (q, n))
    assert diff(e, q) == sp.diff(e, q)  # no jet form: sympy's answer, and no recursion


# --------------------------------------------------------------------------- canonical_form


def test_canonical_form_is_the_same_for_every_notation():
    from geomcheck.calculus import canonical_form

    X = q + h * p
    forms = [
        sp.Subs(sp.Derivative(V(y), y), y, X),
        sp.Derivative(V(y), y).subs(y, X),
        sp.diff(V(y), y).subs({y: X}, simultaneous=True),
        V(X + t).diff(t).subs(t, 0),
        sp.Subs(sp.Derivative(V(y), y), y, X).doit(),
    ]
    import geomcheck as gc

    forms.append(gc.substitute(V(q).diff(q), {q: X}))
    assert len({canonical_form(e) for e in forms}) == 1


def test_canonical_form_keeps_sympy_notation_where_it_needs_no_subs():
    from geomcheck.calculus import canonical_form
    from geomcheck.zero import Jet

    e = sp.Derivative(V(q1, q2), q2, q1) + V(W(q)) + sp.cos(q)
    c = canonical_form(e)
    assert not c.has(Jet)
    assert c == sp.Derivative(V(q1, q2), q1, q2) + V(W(q)) + sp.cos(q)
    plain = q**2 + sp.sin(p)
    assert canonical_form(plain) is plain
    assert canonical_form(3) == 3


def test_canonical_form_keeps_the_users_function_with_its_assumptions():
    from geomcheck.calculus import canonical_forms

    Vr = sp.Function("V", real=True)
    a, b = canonical_forms([Vr(q).diff(q), sp.Subs(sp.Derivative(Vr(y), y), y, q + h)])
    assert a == Vr(q).diff(q)
    assert a.expr.func is Vr


def test_the_conversion_to_jets_obeys_the_check_it_is_given():
    """calculus knows no budget: the zero test passes its check in (geomcheck.zero.jets), and
    the conversion calls it every 512 conversions and stops when it raises."""
    import time

    from geomcheck.calculus import to_jets
    from geomcheck.zero.budget import Interrupted
    from geomcheck.zero.jets import to_jets as to_jets_within_budget

    xs = sp.symbols("x0:600")
    e = sp.Add(*[V(x_).diff(x_) for x_ in xs])
    calls = []
    converted = to_jets(e, {}, calls.append)
    assert len(calls) >= 2 and set(calls) == {512}
    assert converted == to_jets(e, {}) == to_jets_within_budget(e, {})

    class Stop(Exception):
        pass

    def stop(units):
        raise Stop

    with pytest.raises(Stop):
        to_jets(e, {}, stop)
    with pytest.raises(Interrupted):
        to_jets_within_budget(e, {}, time.monotonic() - 1)
