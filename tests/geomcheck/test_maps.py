"""Explicit and implicit maps, pullbacks and restrictions (geomcheck.maps).

Parameters used in map expressions (h, k, C) are declared with ``parameters=`` where
the test is not about that mechanism, so that charts created elsewhere in the test
session cannot turn them into "coordinates of another chart".
"""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import ChartMismatchError, ImplicitMapError, MapError

h, k, C = sp.symbols("h k C")
Qn, Pn = sp.symbols("Q P")  # new values of an implicit one-step map

M = gc.Chart("q p")
q, p = M.coords
dq, dp = M.d(q), M.d(p)
w = dq ^ dp


def same(a, b):
    """Exact comparison through sympy.simplify, independent of geomcheck's zero test."""
    assert a.chart == b.chart, (a.chart, b.chart)
    return all(sp.simplify(c) == 0 for c in (a - b).components.values())


# --------------------------------------------------------------------------- Map


def test_map_from_list_and_from_dict():
    a = gc.Map(M, M, [q + h * p, p], parameters=[h])
    b = gc.Map(M, M, {p: p, q: q + h * p}, parameters=[h])
    assert a == b
    assert a.exprs == (q + h * p, p)
    assert a.substitution() == {q: q + h * p, p: p}
    assert a(q * p) == (q + h * p) * p
    assert a.jacobian_matrix() == sp.Matrix([[1, h], [0, 1]])


def test_pullback_by_a_shear_preserves_the_area_form():
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    assert gc.pullback(w, shear) == w
    kick = gc.Map(M, M, [q, p - h * sp.sin(q)], parameters=[h])
    assert gc.pullback(w, kick) == w


def test_pullback_by_a_scaling_multiplies_the_area_form():
    scale = gc.Map(M, M, [k * q, k * p], parameters=[k])
    assert gc.pullback(w, scale) == k**2 * w
    aniso = gc.Map(M, M, [k * q, p], parameters=[k])
    assert gc.pullback(w, aniso) == k * w
    # a 1-form: phi^*(p dq) = k p d(k q) = k^2 p dq
    assert gc.pullback(p * dq, scale) == k**2 * p * dq
    # a function: phi^*(q^2 + p) = k^2 q^2 + k p
    assert gc.pullback(gc.Form(M, {(): q**2 + p}), scale).components == {(): k**2 * q**2 + k * p}


def test_pullback_by_explicit_symplectic_euler_is_the_area_form():
    # (q, p) -> (q + h P, P) with P = p - h sin q
    P = p - h * sp.sin(q)
    euler = gc.Map(M, M, [q + h * P, P], parameters=[h])
    assert same(gc.pullback(w, euler), w)
    # explicit Euler is not symplectic: det = 1 + h^2 cos q
    naive = gc.Map(M, M, [q + h * p, p - h * sp.sin(q)], parameters=[h])
    assert same(gc.pullback(w, naive), (1 + h**2 * sp.cos(q)) * w)
    assert (gc.pullback(w, naive) - w).is_zero() is False


def test_pullback_by_polar_coordinates():
    N = gc.Chart("r th")
    r, th = N.coords
    X = gc.Chart("x y")
    x, y = X.coords
    polar = gc.Map(N, X, [r * sp.cos(th), r * sp.sin(th)])
    area = gc.pullback(X.d(x) ^ X.d(y), polar)
    assert area.chart == N
    assert same(area, r * (N.d(r) ^ N.d(th)))
    # x dy - y dx = r^2 dth
    assert same(gc.pullback(x * X.d(y) - y * X.d(x), polar), r**2 * N.d(th))


def test_pullback_commutes_with_d():
    N = gc.Chart("r th")
    r, th = N.coords
    X = gc.Chart("x y")
    x, y = X.coords
    polar = gc.Map(N, X, [r * sp.cos(th), r * sp.sin(th)])
    for a in (x**2 * X.d(y), sp.exp(x) * y * X.d(x) + X.d(y), gc.Form(X, {(): x * sp.sin(y)})):
        lhs = gc.d(gc.pullback(a, polar))
        rhs = gc.pullback(gc.d(a), polar)
        assert same(lhs, rhs)
        assert (lhs - rhs).is_zero() is True


def test_pullback_commutes_with_d_for_an_undefined_function():
    N = gc.Chart("r th")
    r, th = N.coords
    X = gc.Chart("x y")
    x, y = X.coords
    polar = gc.Map(N, X, [r * sp.cos(th), r * sp.sin(th)])
    V = sp.Function("V")
    a = V(x, y) * X.d(y)
    assert (gc.d(gc.pullback(a, polar)) - gc.pullback(gc.d(a), polar)).is_zero() is True
    b = sp.Derivative(V(x, y), x) * X.d(y)  # a coefficient that is itself a derivative
    assert (gc.d(gc.pullback(b, polar)) - gc.pullback(gc.d(b), polar)).is_zero() is True


def test_compose_is_contravariant_for_pullbacks():
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    kick = gc.Map(M, M, [q, p - h * q**3], parameters=[h])
    both = gc.compose(kick, shear)  # shear first, then kick
    assert both.exprs == (q + h * p, p - h * (q + h * p) ** 3)
    theta = q * dp + p**2 * dq
    assert same(gc.pullback(theta, both), gc.pullback(gc.pullback(theta, kick), shear))
    # the other order is a different map
    other = gc.compose(shear, kick)
    assert other.exprs == (q + h * (p - h * q**3), p - h * q**3)
    assert not same(gc.pullback(theta, other), gc.pullback(theta, both))


def test_compose_across_charts():
    N = gc.Chart("r th")
    r, th = N.coords
    X = gc.Chart("x y")
    x, y = X.coords
    polar = gc.Map(N, X, [r * sp.cos(th), r * sp.sin(th)])
    swap = gc.Map(X, X, [y, x])
    both = gc.compose(swap, polar)
    assert both.source == N and both.target == X
    assert both.exprs == (r * sp.sin(th), r * sp.cos(th))
    with pytest.raises(ChartMismatchError):
        gc.compose(polar, swap)  # swap lands in X, polar starts on N


def test_map_with_wrong_number_of_expressions():
    with pytest.raises(MapError, match="got 1 expressions; expected 2"):
        gc.Map(M, M, [q])
    with pytest.raises(MapError):
        gc.Map(M, M, [q, p, q])
    with pytest.raises(MapError, match="missing"):
        gc.Map(M, M, {q: q})


def test_map_refuses_target_coordinates_in_the_expressions():
    N = gc.Chart("Qt Pt")
    Qt, Pt = N.coords
    with pytest.raises(MapError, match="Qt"):
        gc.Map(M, N, [Qt + p, q])


def test_map_refuses_undeclared_symbols_when_parameters_are_given():
    with pytest.raises(MapError, match="h"):
        gc.Map(M, M, [q + h * p, p], parameters=[])
    with pytest.raises(MapError, match="h"):
        gc.Map(M, M, [q + h * k * p, p], parameters=[k])
    assert gc.Map(M, M, [q + h * k * p, p], parameters=[h, k]).exprs[0] == q + h * k * p


def test_pullback_of_a_form_on_the_wrong_chart_is_refused():
    N = gc.Chart("r th")
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    with pytest.raises(ChartMismatchError):
        gc.pullback(N.d(N.coords[0]), shear)


# --------------------------------------------------------------------------- ImplicitMap


def midpoint_pendulum():
    """Implicit midpoint for H = p^2/2 - cos q: Q = q + h (p + P)/2, P = p - h sin((q + Q)/2)."""
    eqs = [Qn - q - h * (p + Pn) / 2, Pn - p + h * sp.sin((q + Qn) / 2)]
    return gc.ImplicitMap(M, M, eqs, new=[Qn, Pn], parameters=[h])


def test_implicit_midpoint_is_symplectic():
    phi = midpoint_pendulum()
    pw = gc.pullback(w, phi)
    assert pw.chart == M
    assert (pw - w).is_zero() is True
    # the coefficient is 1 identically (it depends on Q only through cos((q + Q)/2))
    assert sp.simplify(pw.coefficient(q, p) - 1) == 0


def test_implicit_midpoint_with_auxiliary_stage_unknowns():
    """The same scheme written with stage slopes (k, l) as auxiliary unknowns:
    k = p + h l / 2,  l = -sin(q + h k / 2),  Q = q + h k,  P = p + h l."""
    kk, ll = sp.symbols("k_stage l_stage")
    eqs = [
        kk - p - h * ll / 2,
        ll + sp.sin(q + h * kk / 2),
        Qn - q - h * kk,
        Pn - p - h * ll,
    ]
    phi = gc.ImplicitMap(M, M, eqs, new=[Qn, Pn], auxiliary=[kk, ll], parameters=[h])
    assert phi.unknowns == (Qn, Pn, kk, ll)
    assert (gc.pullback(w, phi) - w).is_zero() is True
    # a wrong stage equation (explicit Euler in disguise) is detected
    bad = gc.ImplicitMap(
        M, M, [kk - p, ll + sp.sin(q), Qn - q - h * kk, Pn - p - h * ll],
        new=[Qn, Pn], auxiliary=[kk, ll], parameters=[h],
    )
    assert (gc.pullback(w, bad) - w).is_zero() is False


def test_implicit_euler_is_not_symplectic():
    # Q = q + h P, P = p - h sin Q
    eqs = [Qn - q - h * Pn, Pn - p + h * sp.sin(Qn)]
    phi = gc.ImplicitMap(M, M, eqs, new=[Qn, Pn], parameters=[h])
    assert (gc.pullback(w, phi) - w).is_zero() is False


def test_implicit_map_pullback_commutes_with_d():
    phi = midpoint_pendulum()
    theta = q * dp
    assert (gc.d(gc.pullback(theta, phi)) - gc.pullback(gc.d(theta), phi)).is_zero() is True


def test_implicit_map_of_a_linear_system_matches_the_explicit_map():
    # Q = 2 q, P = p / 2 + h q  (solved: an explicit map)
    eqs = [Qn - 2 * q, 2 * Pn - p - 2 * h * q]
    phi = gc.ImplicitMap(M, M, eqs, new=[Qn, Pn], parameters=[h])
    explicit = gc.Map(M, M, [2 * q, p / 2 + h * q], parameters=[h])
    theta = p * dq + q**2 * dp
    assert (gc.pullback(theta, phi) - gc.pullback(theta, explicit)).is_zero() is True
    assert (gc.pullback(w, phi) - w).is_zero() is True  # det = 2 * 1/2
    assert (gc.pullback(w, phi) - 2 * w).is_zero() is False


def test_implicit_map_into_another_chart_without_new():
    N = gc.Chart("u v")
    u, v = N.coords
    phi = gc.ImplicitMap(M, N, [u - q - h * v, v - p], parameters=[h])  # u = q + h p, v = p
    a = N.d(u) ^ N.d(v)
    assert (gc.pullback(a, phi) - w).is_zero() is True


def test_compose_explicit_then_implicit():
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    both = gc.compose(midpoint_pendulum(), shear)
    assert isinstance(both, gc.ImplicitMap)
    assert (gc.pullback(w, both) - w).is_zero() is True


def test_compose_implicit_then_explicit_one_step_maps():
    """A Strang-type composition: implicit step on M -> M followed by an explicit map M -> M."""
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    both = gc.compose(shear, midpoint_pendulum())
    assert (gc.pullback(w, both) - w).is_zero() is True


def test_pullback_of_an_implicit_pullback_by_an_explicit_map():
    """Pulling back twice equals pulling back by the composite: phi^* psi^* = (psi o phi)^*.

    psi: Q = 2q, P = p/2 (implicit);  phi: (q, p) -> (q, p + h q) (explicit).
    (psi o phi)^*(p dq) = (p + h q)/2 * 2 dq = (p + h q) dq.
    """
    psi = gc.ImplicitMap(M, M, [Qn - 2 * q, Pn - p / 2], new=[Qn, Pn], parameters=[h])
    phi = gc.Map(M, M, [q, p + h * q], parameters=[h])
    theta = p * dq
    expected = (p + h * q) * dq
    assert (gc.pullback(theta, gc.compose(psi, phi)) - expected).is_zero() is True
    assert (gc.pullback(gc.pullback(theta, psi), phi) - expected).is_zero() is True


def test_pullback_of_an_implicit_pullback_by_an_implicit_map():
    """psi: Q = 2q, P = p/2;  (psi o psi)^*(p dq) = (p/4) d(4q) = p dq."""
    psi = gc.ImplicitMap(M, M, [Qn - 2 * q, Pn - p / 2], new=[Qn, Pn], parameters=[h])
    theta = p * dq
    assert (gc.pullback(gc.pullback(theta, psi), psi) - p * dq).is_zero() is True


@pytest.mark.parametrize("order", ["shear o mid", "mid o shear", "mid o mid"])
def test_chained_pullbacks_compare_with_the_pullback_by_the_composite(order):
    """(psi o phi)^* theta - phi^* psi^* theta is zero; the two sides carry different
    (but consistent) implicit relations for the same scheme, and must still be comparable."""
    mid = midpoint_pendulum()
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    psi, phi = {"shear o mid": (shear, mid), "mid o shear": (mid, shear), "mid o mid": (mid, mid)}[order]
    theta = q * dp + sp.cos(q) * dq
    chained = gc.pullback(gc.pullback(theta, psi), phi)
    composite = gc.pullback(theta, gc.compose(psi, phi))
    assert (chained - composite).is_zero() is True


def test_implicit_map_with_singular_jacobian():
    with pytest.raises(ImplicitMapError, match="singular"):
        gc.ImplicitMap(M, M, [Qn + Pn - q, 2 * Qn + 2 * Pn - p], new=[Qn, Pn])


def test_implicit_map_with_wrong_number_of_equations():
    with pytest.raises(ImplicitMapError, match="1 equations for 2 unknowns"):
        gc.ImplicitMap(M, M, [Qn - q], new=[Qn, Pn])
    with pytest.raises(ImplicitMapError):
        gc.ImplicitMap(M, M, [Qn - q, Pn - p, Qn - Pn], new=[Qn, Pn])
    with pytest.raises(ImplicitMapError):
        gc.ImplicitMap(M, M, [Qn - q, Pn - p], new=[Qn])


def test_implicit_map_sharing_coordinates_needs_new():
    with pytest.raises(ImplicitMapError, match="new="):
        gc.ImplicitMap(M, M, [Qn - q, Pn - p])


# --------------------------------------------------------------------------- restrict


def test_restriction_to_a_linear_submanifold():
    M4 = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M4.coords
    W = (M4.d(q1) ^ M4.d(p1)) + (M4.d(q2) ^ M4.d(p2))
    R = gc.restrict(W, [q2 - q1 - C, p2 - p1], solve_for=[q2, p2])
    assert R.chart == gc.Chart("q1 p1")
    S = R.chart
    assert R == 2 * (S.d(S.coords[0]) ^ S.d(S.coords[1]))
    # solved for the other pair, the same form lives on (q2, p2)
    R2 = gc.restrict(W, [q2 - q1 - C, p2 - p1], solve_for=[q1, p1])
    assert R2.chart == gc.Chart("q2 p2")
    assert R2.components == {(0, 1): 2}
    # {q2 = q1, p2 = -p1} is Lagrangian for W: dq1^dp1 + dq1^(-dp1) = 0
    R3 = gc.restrict(W, [q2 - q1, p2 + p1], solve_for=[q2, p2])
    assert R3.components == {}


def test_restriction_to_the_cylinder():
    X = gc.Chart("x y z")
    x, y, z = X.coords
    dx, dy, dz = (X.d(c) for c in X.coords)
    circle = [x**2 + y**2 - 1]
    R = gc.restrict(dx ^ dz, circle, solve_for=[y])
    assert R.chart == gc.Chart("x z")
    assert R.components == {(0, 1): 1}
    # dx ^ dy vanishes on the cylinder
    assert gc.restrict(dx ^ dy, circle, solve_for=[y]).components == {}
    # x dx + y dy = d(r^2)/2 vanishes on the circle, so does its wedge with dz
    assert gc.restrict(x * (dx ^ dz) + y * (dy ^ dz), circle, solve_for=[y]).is_zero() is True
    # dy ^ dz restricts to -(x / y) dx ^ dz: not zero
    assert gc.restrict(dy ^ dz, circle, solve_for=[y]).is_zero() is False


def test_restriction_needs_a_solvable_coordinate():
    X = gc.Chart("x y z")
    x, y, z = X.coords
    with pytest.raises(MapError):
        gc.restrict(X.d(x), [x**2 + y**2 - 1])  # no coordinate appears linearly


def test_charts_created_elsewhere_do_not_change_what_a_map_means():
    # regression: a process-wide registry of coordinates made an undeclared parameter m
    # an error as soon as any chart anywhere had a coordinate named m
    gc.Chart("m k_elsewhere")
    M = gc.Chart("x v")
    x, v = M.coords
    m, hh = sp.symbols("m h")
    phi = gc.Map(M, M, [x + hh * v, v - hh * x / m])
    assert phi.exprs[1] == v - hh * x / m
    psi = gc.ImplicitMap(M, M, [sp.Symbol("X") - x - hh * sp.Symbol("V"), sp.Symbol("V") - v + hh * m * x],
                         new=sp.symbols("X V"))
    assert psi.parameters is None


# --------------------------------------------------------------------------- nested undefined functions
#
# sympy writes the chain rule of V(W(q)) with a derivative by the function W(q)
# (Derivative(V(W(q)), W(q))); jets and calculus used to hand that back and forth until
# a RecursionError.

Vf, Wf, Uf = sp.Function("V"), sp.Function("W"), sp.Function("U")
q1, q2, p1, p2 = sp.symbols("q1 q2 p1 p2")
M2 = gc.Chart([q1, q2, p1, p2])
w2 = (M2.d(q1) ^ M2.d(p1)) + (M2.d(q2) ^ M2.d(p2))

NESTED = {
    "V(W(q))": (M, w, (q,), (p,), Vf(Wf(q))),
    "V(W(U(q)))": (M, w, (q,), (p,), Vf(Wf(Uf(q)))),
    "V(W(q1, q2), q2)": (M2, w2, (q1, q2), (p1, p2), Vf(Wf(q1, q2), q2)),
    "V(W + U*W_q1, q1*q2)": (M2, w2, (q1, q2), (p1, p2),
                             Vf(Wf(q1, q2) + Uf(q2) * sp.Derivative(Wf(q1, q2), q1), q1 * q2)),
}


def _nested_verlet(name, wrong=False):
    chart, omega, qs, ps, pot = NESTED[name]
    grad = [pot.diff(x) for x in qs]  # sympy's own chain rule: derivatives by W(q)
    p_half = [b - h / 2 * gi for b, gi in zip(ps, grad)]
    Q = [a + h * b for a, b in zip(qs, p_half)]
    new = grad if wrong else [gc.substitute(gi, dict(zip(qs, Q))) for gi in grad]
    P = [b - h / 2 * gi for b, gi in zip(p_half, new)]
    H = sum(b**2 for b in ps) / 2 + pot
    return chart, omega, gc.Map(chart, chart, Q + P, parameters=[h]), H


@pytest.mark.parametrize("name", sorted(NESTED))
def test_hamiltonian_vector_field_of_a_nested_potential(name):
    from geomcheck.calculus import canonical_form

    chart, omega, qs, ps, pot = NESTED[name]
    X = gc.hamiltonian_vector_field(sum(b**2 for b in ps) / 2 + pot, omega)
    for a, b in zip(qs, ps):
        assert X(a) == b
        assert canonical_form(X(b) + pot.diff(a)) == 0
    assert gc.lie(X, omega).is_zero() is True


@pytest.mark.parametrize("name", sorted(NESTED))
def test_verlet_on_a_nested_potential_is_symplectic_of_order_two(name):
    chart, omega, phi, H = _nested_verlet(name)
    assert gc.certify_symplectic(phi, omega).holds is True
    X = gc.hamiltonian_vector_field(H, omega)
    assert gc.map_order(phi, X, h, 3) == 2


@pytest.mark.parametrize("name", ["V(W(q))", "V(W(q1, q2), q2)"])
def test_a_wrong_kick_on_a_nested_potential_is_refused(name):
    chart, omega, phi, H = _nested_verlet(name, wrong=True)
    c = gc.certify_symplectic(phi, omega)
    assert c.holds is False and c.counterexample


def test_pullback_of_a_nested_function_commutes_with_d():
    shear = gc.Map(M, M, [q + h * p, p], parameters=[h])
    a = Vf(Wf(q, p)) * dp + Wf(Uf(p), q) * dq
    assert (gc.d(gc.pullback(a, shear)) - gc.pullback(gc.d(a), shear)).is_zero() is True
