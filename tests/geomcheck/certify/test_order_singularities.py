"""Order of maps with removable singularities at h = 0, poles refused, requested orders bounded.

Truths come from theory (the exact flow has every order; exponential Euler has order 1 and
the Cox-Matthews ETD2RK method order 2, for every nonlinearity) and from plain
``sympy.series`` of the same expressions, never from geomcheck.
"""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.certify.order import MAX_ORDER, taylor_coefficients
from geomcheck.errors import InvalidArgumentError, MapError

h = sp.Symbol("h")
M = gc.Chart("q p")
q, p = M.coords
OSC = gc.VectorField(M, {q: p, p: -q})

Y = gc.Chart("y")
(y,) = Y.coords
lam = sp.Symbol("lam")
N = sp.Function("N")


def phi1(z):
    return (sp.exp(z) - 1) / z


def phi2(z):
    return (sp.exp(z) - 1 - z) / z**2


def sinc_flow():
    """The exact flow of q' = p, p' = -q, written with sinc (0/0 at h = 0 once differentiated)."""
    return gc.Map(M, M, [sp.cos(h) * q + h * sp.sinc(h) * p, -h * sp.sinc(h) * q + sp.cos(h) * p])


def plain_series(e, n):
    """The first n Taylor coefficients of e at h = 0 by plain sympy (sinc written as sin(x)/x,
    whose series sympy expands where it leaves sinc of a non-symbol unexpanded)."""
    e = e.replace(sp.sinc, lambda x: sp.sin(x) / x)
    s = sp.series(e, h, 0, n).removeO()
    return [sp.expand(s.coeff(h, k)) for k in range(n)]


# --------------------------------------------------------------------- removable singularities


def test_the_exact_flow_written_with_sinc_has_every_order():
    assert gc.map_order(sinc_flow(), OSC, h, 8) == 8
    c = gc.certify_order(sinc_flow(), OSC, h, 12)
    assert c.holds is True


def test_a_sinc_flow_with_a_wrong_frequency_has_the_order_plain_sympy_finds():
    w = 1 + h**3
    exprs = [sp.cos(w * h) * q + h * sp.sinc(w * h) * p, -h * sp.sinc(w * h) * q + sp.cos(w * h) * p]
    exact = [sp.cos(h) * q + sp.sin(h) * p, -sp.sin(h) * q + sp.cos(h) * p]
    # the first power of h at which the map and the exact flow differ, by plain sympy
    first = min(next(k for k, c in enumerate(plain_series(e - x, 9)) if c != 0) for e, x in zip(exprs, exact))
    assert first == 5
    phi = gc.Map(M, M, exprs)
    assert gc.map_order(phi, OSC, h, 6) == first - 1
    assert gc.certify_order(phi, OSC, h, first).holds is False


@pytest.mark.parametrize("entry", [
    sp.sinc(h) * q,
    h * sp.sinc(h) ** 2 * p + q,
    phi1(h * lam) * q,
    phi2(h * lam) * q + p,
    (1 - sp.cos(h)) / h**2 * q,
    h / (sp.exp(h) - 1) * p,              # the Bernoulli numbers' generating function
    (h - sp.sin(h)) / h**3 * q * p,
    sp.sinc(h * (q + 1)) * p,
])
def test_taylor_coefficients_agree_with_plain_sympy_series(entry):
    phi = gc.Map(M, M, [entry, p])
    got = taylor_coefficients(phi, h, 6)[0]
    want = plain_series(entry, 7)
    assert [sp.simplify(a - b) for a, b in zip(got, want)] == [0] * 7


def test_exponential_euler_and_etd2rk_have_orders_one_and_two_for_any_nonlinearity():
    X = gc.VectorField(Y, {y: lam * y + N(y)})
    euler = gc.Map(Y, Y, [sp.exp(h * lam) * y + h * phi1(h * lam) * N(y)])
    a = sp.exp(h * lam) * y + h * phi1(h * lam) * N(y)
    etd2 = gc.Map(Y, Y, [a + h * phi2(h * lam) * (N(a) - N(y))])
    assert gc.map_order(euler, X, h, 4) == 1
    assert gc.map_order(etd2, X, h, 4) == 2


def test_exponential_integrators_against_plain_sympy_on_a_concrete_nonlinearity():
    # the local error of ETD2RK on y' = lam y + y^2, by plain sympy: exact flow's Taylor
    # polynomial from repeated differentiation of the field, the method by series
    f = lam * y + y**2
    flow, term = y, y
    for k in range(1, 5):
        term = sp.diff(term, y) * f
        flow += h**k / sp.factorial(k) * term
    a = sp.exp(h * lam) * y + h * phi1(h * lam) * y**2
    method = a + h * phi2(h * lam) * (a**2 - y**2)
    err = plain_series(method - flow, 5)
    assert err[:3] == [0, 0, 0] and err[3] != 0          # order 2 exactly
    X = gc.VectorField(Y, {y: f})
    assert gc.map_order(gc.Map(Y, Y, [method]), X, h, 4) == 2


def test_exponential_euler_is_exact_on_a_linear_problem():
    X = gc.VectorField(Y, {y: lam * y + 3})
    euler = gc.Map(Y, Y, [sp.exp(h * lam) * y + h * phi1(h * lam) * 3])
    assert gc.map_order(euler, X, h, 7) == 7


def test_implicit_maps_with_removable_singularities():
    Q, P = sp.symbols("Q P")
    exact = gc.ImplicitMap(M, M, [Q - sp.cos(h) * q - h * sp.sinc(h) * p,
                                  P + h * sp.sinc(h) * q - sp.cos(h) * p], new=[Q, P])
    assert gc.map_order(exact, OSC, h, 5) == 5
    # implicit midpoint (order 2) with its q-equation scaled by sinc(h) (-> h^3 change): still 2
    mid = gc.ImplicitMap(M, M, [(Q - q) * sp.sinc(h) - h * (p + P) / 2, P - p + h * (q + Q) / 2], new=[Q, P])
    assert gc.map_order(mid, OSC, h, 4) == 2


# --------------------------------------------------------------------- genuine singularities


@pytest.mark.parametrize("entry, order", [
    (q + h * p + q / h, 1),
    (q + h * p + (sp.cos(h) - 1) / h**3, 1),                 # -1/(2h) + ...
    (q + h * p + p * sp.sinc(h) / h**2, 2),
])
def test_a_pole_at_h_zero_is_named_not_handled(entry, order):
    phi = gc.Map(M, M, [entry, p - h * q])
    with pytest.raises(MapError, match=rf"the entry for q has a pole of order {order}"):
        gc.certify_order(phi, OSC, h, 2)
    with pytest.raises(MapError, match="the entry for q"):
        gc.map_order(phi, OSC, h, 3)


def test_a_pole_in_another_entry_names_that_entry():
    phi = gc.Map(M, M, [q + h * p, p - h * q + sp.sin(q) / h])
    with pytest.raises(MapError, match="the entry for p has a pole of order 1"):
        gc.certify_order(phi, OSC, h, 1)


@pytest.mark.parametrize("extra", [
    sp.sqrt(h) * p,
    h**3 * sp.log(h),
    h**5 * sp.exp(-1 / h**2),
    # derivatives of h^(5/2) up to the second are finite (0) at h = 0, yet h^(5/2) is not
    # O(h^3): an order-2 claim would be wrong
    h**sp.Rational(5, 2),
])
def test_an_entry_not_smooth_at_h_zero_is_refused(extra):
    phi = gc.Map(M, M, [q + h * p - h**2 / 2 * q + extra, p - h * q - h**2 / 2 * p])
    with pytest.raises(MapError, match="the entry for q is not smooth at h = 0"):
        gc.certify_order(phi, OSC, h, 2)


def test_an_implicit_equation_with_a_pole_is_refused():
    Q, P = sp.symbols("Q P")
    mid = gc.ImplicitMap(M, M, [(Q - q) / h - (p + P) / 2, (P - p) / h + (q + Q) / 2], new=[Q, P])
    with pytest.raises(MapError, match="implicit equation 0 has a pole"):
        gc.map_order(mid, OSC, h, 3)


def test_undecidable_or_kinked_expansions_are_undecided_never_true():
    base = [q + h * p - h**2 / 2 * q, p - h * q - h**2 / 2 * p]
    # a pole whose coefficient is zero only by an identity the exact stage cannot prove
    hidden = gc.Map(M, M, [base[0] + (sp.sin(q)**2 + sp.cos(q)**2 - 1) / h, base[1]])
    assert gc.certify_order(hidden, OSC, h, 2).holds is None
    # |h|^3 is O(h^3) but not O(h^4): its derivatives at the kink are no Taylor coefficients
    kinked = gc.Map(M, M, [base[0] - h**3 / 6 * p + sp.Abs(h)**3, base[1] + h**3 / 6 * q])
    c = gc.certify_order(kinked, OSC, h, 3)
    assert c.holds is None and "Abs(h)" in c.method
    assert gc.map_order(kinked, OSC, h, 4) is None


# --------------------------------------------------------------------- bounds


def test_the_requested_order_is_bounded():
    phi = sinc_flow()
    for bad in (10**6, MAX_ORDER + 1, 0, -1, 2.0, True):
        with pytest.raises(InvalidArgumentError, match="order"):
            gc.certify_order(phi, OSC, h, bad)
    with pytest.raises(InvalidArgumentError, match="max_order"):
        gc.map_order(phi, OSC, h, 10**6)
    with pytest.raises(InvalidArgumentError, match="order"):
        taylor_coefficients(phi, h, 10**6)


def test_the_highest_order_is_accepted():
    euler = gc.Map(M, M, [q + h * p, p - h * q])
    assert gc.certify_order(euler, OSC, h, MAX_ORDER).holds is False
    assert gc.certify_order(gc.Map(M, M, [q, p]), gc.VectorField(M, {}), h, MAX_ORDER).holds is True


def test_an_expansion_over_budget_is_undecided():
    V = sp.Function("V")
    step = [q + h * (p - h / 2 * V(q).diff(q)), None]
    step[1] = p - h / 2 * V(q).diff(q) - h / 2 * gc.substitute(V(q).diff(q), {q: step[0]})
    cur = [q, p]
    for _ in range(6):
        cur = [gc.substitute(e, dict(zip((q, p), cur))) for e in step]
    X = gc.VectorField(M, {q: p, p: -V(q).diff(q)})
    c = gc.certify_order(gc.Map(M, M, cur), X, h, 8, budget=0.01)
    assert c.holds is None and "budget" in c.method
    for bad in (0, -1, "1", float("inf"), True):
        with pytest.raises(InvalidArgumentError, match="budget"):
            gc.certify_order(gc.Map(M, M, cur), X, h, 2, budget=bad)


# --------------------------------------------------------------------- long compositions


def test_the_order_of_twelve_composed_verlet_steps_is_decided():
    # the tree of the composite has about 2 million nodes on a DAG of about 150: the expansion
    # goes through the DAG (a tree walk per coefficient took minutes).  Theory: k steps of a
    # second-order, non-exact method approximate the flow over k h to order 2, not 3.
    V = sp.Function("V")
    ph = p - h / 2 * V(q).diff(q)
    Q = q + h * ph
    step = [Q, ph - h / 2 * gc.substitute(V(q).diff(q), {q: Q})]
    cur = [q, p]
    for _ in range(12):
        cur = [gc.substitute(e, dict(zip((q, p), cur))) for e in step]
    phi = gc.Map(M, M, cur)
    X12 = gc.VectorField(M, {q: 12 * p, p: -12 * V(q).diff(q)})
    assert gc.certify_order(phi, X12, h, 2).holds is True
    assert gc.certify_order(phi, X12, h, 3).holds is False
    assert gc.map_order(phi, X12, h, 4) == 2
