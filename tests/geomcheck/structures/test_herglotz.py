"""Herglotz's principle and the contact variational integrators of Vermeeren, Bravetti & Seri 2019."""

import pytest
import sympy

import geomcheck as gc
from geomcheck.errors import ArityError, ExpressionError, ImplicitMapError, SubsystemShapeError
from geomcheck.structures import (
    contact_hamiltonian_field,
    darboux_coordinates,
    discrete_herglotz,
    first_order_averaged_discrete_lagrangian,
    first_order_discrete_lagrangian,
    generic_discrete_lagrangian,
    herglotz_equations,
    second_order_discrete_lagrangian,
)
from geomcheck.zero import decide_all_zero, decide_zero

h, alpha = sympy.symbols("h alpha")
x, v, z = sympy.symbols("x v z")
V = sympy.Function("V")
L_generic = sympy.Function("L")(x, v, z)
L_damped = v**2 / 2 - V(x) - alpha * z
x1, x2, v1, v2 = sympy.symbols("x1 x2 v1 v2")


# --------------------------------------------------------------------------- continuous


@pytest.mark.parametrize("n", [1, 2])
def test_generalized_euler_lagrange_generic(n):
    xs = (x,) if n == 1 else (x1, x2)
    vs = (v,) if n == 1 else (v1, v2)
    L = sympy.Function("L")(*xs, *vs, z)
    E = herglotz_equations(L, xs, vs, z)
    assert len(E.equations) == n
    Lz = sympy.diff(L, z)
    for i, (xi, vi) in enumerate(zip(xs, vs)):
        Lv = sympy.diff(L, vi)
        ddt_Lv = sum(sympy.diff(Lv, xj) * vj + sympy.diff(Lv, vj) * aj for xj, vj, aj in zip(xs, vs, E.a))
        ddt_Lv += sympy.diff(Lv, z) * L
        # the slides' sign: L_x - d/dt L_v + L_z L_v = 0  (i.e. d/dt L_v - L_x - L_v L_z = 0)
        assert decide_zero(E.equations[i] - (sympy.diff(L, xi) - ddt_Lv + Lz * Lv)).is_zero is True
        assert decide_zero(E.equations[i] - (sympy.diff(L, xi) - ddt_Lv - Lz * Lv)).is_zero is False
    assert E.zdot == L


@pytest.mark.parametrize("n", [1, 2])
def test_damped_lagrangian_agrees_with_contact_hamiltonian(n):
    xs = sympy.symbols(f"x1:{n + 1}") if n > 1 else (x,)
    vs = sympy.symbols(f"v1:{n + 1}") if n > 1 else (v,)
    U = sympy.Function("U")(*xs)
    L = sum(vi**2 for vi in vs) / 2 - U - alpha * z
    acc = herglotz_equations(L, xs, vs, z).accelerations()
    assert decide_all_zero([a + sympy.diff(U, xi) + alpha * vi for a, xi, vi in zip(acc, xs, vs)]).is_zero is True
    # the contact Hamiltonian H = |p|^2/2 + U + alpha z gives x'' = p' = -U_x - alpha p with p = x'
    D = darboux_coordinates(n)
    H = sum(pi**2 for pi in D.p) / 2 + U.xreplace(dict(zip(xs, D.x))) + alpha * D.z
    X = contact_hamiltonian_field(H, D.eta).field
    back = {**dict(zip(D.x, xs)), **dict(zip(D.p, vs))}
    assert decide_all_zero([X.component(pi).xreplace(back) - a for pi, a in zip(D.p, acc)]).is_zero is True
    # z' = p H_p - H equals L under the Legendre transform p = v
    assert decide_zero(X.component(D.z).xreplace(back).xreplace({D.z: z}) - L).is_zero is True


def _plain_herglotz_acceleration(L):
    """x'' from L_x - d/dt L_x' + L_z L_x' = 0 along x(t), z' = L: plain sympy, independent of geomcheck."""
    t = sympy.Symbol("t")
    X, Z = sympy.Function("X")(t), sympy.Function("Z")(t)
    Lt = L.subs({v: X.diff(t)}).subs({x: X, z: Z})
    Lv = sympy.diff(L, v).subs({v: X.diff(t)}).subs({x: X, z: Z})
    eq = sympy.diff(Lt, X) - Lv.diff(t).subs(Z.diff(t), Lt) + sympy.diff(Lt, Z) * Lv
    acc = sympy.solve(eq, X.diff(t, 2))[0]
    return sympy.expand(acc.subs(X.diff(t), v).subs({X: x, Z: z}))


def test_printed_damped_lagrangian_fails():
    """Slides 29-30 (Numerical example: harmonic oscillator) print L = x'^2/2 - x^2/2 - alpha x
    => x'' = -x - alpha x'; that needs - alpha z (an error of the authors: the same on both frames)."""
    printed = herglotz_equations(v**2 / 2 - x**2 / 2 - alpha * x, x, v, z).accelerations()[0]
    assert decide_zero(printed - (-x - alpha * v)).is_zero is False
    right = herglotz_equations(v**2 / 2 - x**2 / 2 - alpha * z, x, v, z).accelerations()[0]
    assert decide_zero(right - (-x - alpha * v)).is_zero is True
    # the same by plain sympy: the printed L gives a constant force and no damping
    assert _plain_herglotz_acceleration(v**2 / 2 - x**2 / 2 - alpha * x) == -x - alpha
    assert _plain_herglotz_acceleration(v**2 / 2 - x**2 / 2 - alpha * z) == -x - alpha * v


def test_printed_mechanical_lagrangian_fails():
    """Slide 6 (Lagrangian mechanics), as read in our copy, prints L = |x'|^2 - U(x) for H = |p|^2/2 + U(x);
    its Euler-Lagrange equation is not the printed x'' = -U' (damage: a lost 1/2, printed once)."""
    U = sympy.Function("U")(x)
    printed = herglotz_equations(v**2 - U, x, v, z).accelerations()[0]
    assert decide_zero(printed + U.diff(x)).is_zero is False
    right = herglotz_equations(v**2 / 2 - U, x, v, z).accelerations()[0]
    assert decide_zero(right + U.diff(x)).is_zero is True
    # plain sympy: the printed L gives x'' = -U'/2; L = p x' - H at p = H_p = x' is x'^2/2 - U
    assert sympy.simplify(_plain_herglotz_acceleration(v**2 - U) + U.diff(x) / 2) == 0
    p = sympy.Symbol("p")
    assert sympy.expand((p * v - (p**2 / 2 + U)).subs(p, v)) == sympy.expand(v**2 / 2 - U)


def test_continuous_bad_input():
    with pytest.raises(SubsystemShapeError):
        herglotz_equations(L_generic, [x, z], [v], sympy.Symbol("w"))
    with pytest.raises(ExpressionError, match="degenerate"):
        herglotz_equations(v - V(x), x, v, z).accelerations()
    with pytest.raises(ExpressionError, match="distinct"):
        herglotz_equations(L_generic, x, x, z)


# --------------------------------------------------------------------------- discrete Lagrangians

CASES = {
    "first order, damped": lambda: discrete_herglotz(first_order_discrete_lagrangian(L_damped, x, v, z, h), h=h),
    "second order, damped": lambda: discrete_herglotz(second_order_discrete_lagrangian(L_damped, x, v, z, h), h=h),
    "first order averaged, damped": lambda: discrete_herglotz(
        first_order_averaged_discrete_lagrangian(L_damped, x, v, z, h), h=h),
    "first order averaged, generic L(x, x', z)": lambda: discrete_herglotz(
        first_order_averaged_discrete_lagrangian(L_generic, x, v, z, h), h=h),
    "first order, generic L(x, x', z)": lambda: discrete_herglotz(first_order_discrete_lagrangian(L_generic, x, v, z, h), h=h),
    "second order, generic L(x, x', z)": lambda: discrete_herglotz(second_order_discrete_lagrangian(L_generic, x, v, z, h), h=h),
    "generic L(x_j, x_j+1, z_j, z_j+1)": lambda: discrete_herglotz(sympy.Function("L"), h=h),
    "generic, 2 degrees of freedom": lambda: discrete_herglotz(generic_discrete_lagrangian("L", 2), n=2, h=h),
    "second order, damped, 2 dof": lambda: discrete_herglotz(second_order_discrete_lagrangian(
        (v1**2 + v2**2) / 2 - sympy.Function("U")(x1, x2) - alpha * z, (x1, x2), (v1, v2), z, h), n=2, h=h),
    "generic L(x_j, x_j+1, z_j), 3 dof": lambda: discrete_herglotz(generic_discrete_lagrangian("L", 3, next_z=False), n=3, h=h),
}


@pytest.mark.parametrize("name", list(CASES))
def test_discrete_equations_exact_identities(name):
    H = CASES[name]()
    assert H.certify_variational_principle().holds is True
    assert H.certify_momentum_form().holds is True
    c = H.certify_contact_generating()
    assert c.holds is True and c.stage in ("structural", "exact")


@pytest.mark.parametrize("name", ["first order, damped", "first order averaged, damped", "second order, damped",
                                  "first order, generic L(x, x', z)",
                                  "generic L(x_j, x_j+1, z_j, z_j+1)", "second order, damped, 2 dof"])
def test_position_momentum_map_is_contact(name):
    H = CASES[name]()
    c = H.certify_contact()
    assert c.holds is True, c.method
    assert c.factor == H.contact_factor()


def test_contact_factors_of_the_slide_integrators():
    first = CASES["first order, damped"]()
    second = CASES["second order, damped"]()
    assert decide_zero(first.contact_factor() - (1 - alpha * h)).is_zero is True
    averaged = CASES["first order averaged, damped"]()
    assert decide_zero(averaged.contact_factor() - (1 - alpha * h)).is_zero is True
    assert decide_zero(second.contact_factor() - (1 - alpha * h / 2) / (1 + alpha * h / 2)).is_zero is True


def test_printed_equation_with_a_wrong_sign_fails():
    """The discrete equation of slide 23 is right; flipping the sign of h D4 L_{j-1} is caught."""
    H = CASES["second order, damped"]()
    E = H.equations()
    Lm, D1m, D2m, D3m, D4m = H.evaluate(E.x_prev, E.x_mid, E.z_prev, E.z_mid)
    Lp, D1p, D2p, D3p, D4p = H.evaluate(E.x_mid, E.x_next, E.z_mid, E.z_next)
    wrong = D2m[0] + D1p[0] + h * D2m[0] / (1 + h * D4m) * (D3p + D4m)
    assert decide_zero(wrong - E.equations[0]).is_zero is False


def test_a_non_contact_variant_of_the_map_fails():
    """p_{j+1} = h D2 L / (1 + h D4 L) (wrong sign) is not a contact map."""
    H = CASES["second order, damped"]()
    phi = H.position_momentum_map()
    c = H.coordinates
    new = phi.new
    Ls, D1, D2, D3, D4 = H.evaluate(c.x, new[:1], c.z, new[2])
    eqs = list(phi.equations[:2]) + [new[1] * (1 + h * D4) - h * D2[0]]
    wrong = gc.ImplicitMap(c.chart, c.chart, eqs, new=new, parameters=phi.parameters, step=h)
    assert gc.certify_contact(wrong, c.eta).holds is False


def test_first_order_integrator_is_explicit_and_first_order():
    """For L = x'^2/2 - V(x) - alpha z the first-order map is explicit (and of order 1)."""
    H = CASES["first order, damped"]()
    c = H.coordinates
    xj, pj, zj = c.chart.coords
    X = xj + h * (1 - alpha * h) * pj - h**2 * V(xj).diff(xj)
    P = (1 - alpha * h) * pj - h * V(xj).diff(xj)          # = (X - x_j) / h
    Z = zj + h * (P**2 / 2 - V(xj) - alpha * zj)
    phi = H.position_momentum_map()
    values = dict(zip(phi.new, (X, P, Z)))
    assert decide_all_zero([gc.substitute(e, values) for e in phi.equations]).is_zero is True
    explicit = gc.Map(c.chart, c.chart, [X, P, Z], parameters=[h, alpha])
    assert gc.certify_contact(explicit, c.eta, small_step=h).holds is True
    # 1 - alpha h vanishes at h = 1/alpha: contact for small steps, not for all
    assert gc.certify_contact(explicit, c.eta).holds is False
    field = contact_hamiltonian_field(pj**2 / 2 + V(xj) + alpha * zj, c.eta).field
    assert gc.map_order(explicit, field, h, max_order=3) == 1


def test_averaged_first_order_is_the_explicit_contact_first_step():
    """(L(x_j, v, z_j) + L(x_{j+1}, v, z_j))/2 for L = v^2/2 - V(x) - alpha z: the explicit step
    x' = x + h(1 - alpha h) p - h^2 V'(x)/2, p' = (1 - alpha h) p - h (V'(x) + V'(x'))/2; not the left point's."""
    H = CASES["first order averaged, damped"]()
    c = H.coordinates
    xj, pj, zj = c.chart.coords
    dV = lambda s: V(s).diff(s)
    X = xj + h * (1 - alpha * h) * pj - h**2 * dV(xj) / 2
    Xs = sympy.Symbol("X_s")
    P = ((1 - alpha * h) * pj - h * (dV(xj) + dV(Xs)) / 2).subs(Xs, X)
    v_ = (X - xj) / h
    Z = zj + h * (v_**2 / 2 - (V(xj) + V(Xs).subs(Xs, X)) / 2 - alpha * zj)
    phi = H.position_momentum_map()
    values = dict(zip(phi.new, (X, P, Z)))
    assert decide_all_zero([gc.substitute(e, values) for e in phi.equations]).is_zero is True
    left = CASES["first order, damped"]().position_momentum_map()
    assert decide_all_zero([gc.substitute(e, dict(zip(left.new, (X, P, Z)))) for e in left.equations]).is_zero is False


def _solved_linear_map(H):
    """The position-momentum map of a linear system, solved exactly (sympy.solve on linear equations)."""
    phi = H.position_momentum_map()
    (sol,) = [sympy.solve(phi.equations, phi.new, dict=True)[0]]
    c = H.coordinates
    return gc.Map(c.chart, c.chart, [sympy.simplify(sol[u]) for u in phi.new], parameters=[h, alpha])


@pytest.mark.parametrize("builder, order", [(first_order_discrete_lagrangian, 1),
                                            (first_order_averaged_discrete_lagrangian, 1),
                                            (second_order_discrete_lagrangian, 2)])
def test_orders_on_the_damped_harmonic_oscillator(builder, order):
    L = v**2 / 2 - x**2 / 2 - alpha * z
    H = discrete_herglotz(builder(L, x, v, z, h), h=h)
    phi = _solved_linear_map(H)
    c = H.coordinates
    xj, pj, zj = c.chart.coords
    field = contact_hamiltonian_field(pj**2 / 2 + xj**2 / 2 + alpha * zj, c.eta).field
    assert gc.map_order(phi, field, h, max_order=3) == order
    assert gc.certify_contact(phi, c.eta, small_step=h).holds is True


# --------------------------------------------------------------------------- bad input


def test_wrong_arity_is_refused():
    with pytest.raises(ArityError, match="takes 2"):
        discrete_herglotz(lambda x0, x1: (x1 - x0) ** 2)
    with pytest.raises(ArityError, match="takes 5"):
        discrete_herglotz(lambda x0, x1, z0, z1, w: x0)
    with pytest.raises(ArityError, match=r"\*args"):
        discrete_herglotz(lambda *args: args[0])
    with pytest.raises(ExpressionError, match="callable"):
        discrete_herglotz(x**2)
    bad = discrete_herglotz(lambda x0, x1, z0: (x0, x1))
    with pytest.raises(ExpressionError, match="scalar sympy expression"):
        bad.equations()
    with pytest.raises(SubsystemShapeError):
        discrete_herglotz(sympy.Function("L"), n=2, coordinates=darboux_coordinates(1))
    # a degenerate discrete Lagrangian (D1 L free of x_{j+1}) defines no position-momentum map
    with pytest.raises(ImplicitMapError, match="does not define a position-momentum map"):
        discrete_herglotz(lambda x0, x1, z0: x0 + x1**2 - z0).position_momentum_map()


# --------------------------------------------------------------------------- derivations


@pytest.mark.needs_pdflatex
def test_herglotz_derivations_compile(tmp_path):
    from geomcheck.latex import compile_pdf, document

    H = CASES["second order, damped"]()
    G = CASES["generic, 2 degrees of freedom"]()
    parts = [
        herglotz_equations(L_damped, x, v, z).latex(),
        herglotz_equations(L_generic, x, v, z).latex(),
        H.equations().latex(),
        H.certify_variational_principle().latex(),
        H.certify_momentum_form().latex(),
        H.certify_contact_generating().latex(),
        H.certify_contact().latex(),
        G.equations().latex(),
        G.certify_contact_generating().latex(),
    ]
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "herglotz.pdf")
    assert pdf.exists() and pdf.stat().st_size > 0
