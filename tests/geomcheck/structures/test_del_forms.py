"""DEL one-forms (Guo, Li & Wu 2001, Secs. 3-5): discrete Lagrangians, Hamiltonian schemes, our readings of the text."""

import dataclasses

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.certify.families import radau_iia
from geomcheck.errors import ArityError, ExpressionError, ShapeError
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import (
    certify_del_condition,
    certify_del_identity,
    certify_del_symplectic,
    certify_feng_kang_coboundary,
    certify_scheme_del,
    certify_scheme_map,
    discrete_lagrangian_forms,
    feng_kang_del,
    feng_kang_hamiltonian,
    feng_kang_map,
    gauss2_del,
    gauss2_map,
    midpoint_del,
    midpoint_map,
    runge_kutta_del,
    runge_kutta_map,
    trapezoidal_del,
    trapezoidal_map,
    trapezoidal_two_form,
)

h = sp.Symbol("h")
V, T = sp.Function("V"), sp.Function("T")
q, p = sp.symbols("q p")
q1, q2, p1, p2 = sp.symbols("q1 q2 p1 p2")


# ------------------------------------------------------------------ discrete Lagrangians (Sec. 3)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_del_identity_and_condition_hold_on_function_space_for_a_generic_discrete_lagrangian(n):
    F = discrete_lagrangian_forms(n=n, step=h)
    assert F.chart.dim == 3 * n
    assert certify_del_identity(F).holds is True       # eq. 22
    assert certify_del_condition(F).holds is True      # eqs. 26-27
    # the DEL condition itself is NOT an identity: dE != 0 off the solutions
    assert gc.d(F.del_form).is_zero() is False


def test_del_map_preserves_the_discrete_symplectic_form_on_solutions():
    assert certify_del_symplectic(discrete_lagrangian_forms()).holds is True          # generic L_d
    F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 + sp.cos(x), step=h, difference=True)
    assert certify_del_symplectic(F).holds is True


def test_a_perturbed_del_form_gives_a_map_that_is_refuted():
    """Control: add q_{k-1}^2/10 to the DEL equation; the map it defines does not preserve omega."""
    F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 + sp.cos(x), step=h, difference=True)
    (xm,), (x,) = F.previous, F.current
    bad = dataclasses.replace(F, del_form=F.del_form + xm**2 / 10 * F.chart.d(x))
    cert = certify_del_symplectic(bad)
    assert cert.holds is False and cert.counterexample
    assert certify_del_condition(bad).holds is False


def test_forward_difference_example_eqs_28_to_30():
    """L_D = q_t^2/2 - V(q): DEL equation q^(k+1) - 2 q^(k) + q^(k-1) = -h^2 V_q(q^(k)) and
    omega^(k) = -(1/h) dq^(k-1) ^ dq^(k), so Delta_t omega = 0 is eq. 30."""
    F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 - V(x), step=h, difference=True)
    (xm,), (x,), (xp,) = F.previous, F.current, F.next
    printed = xp - 2 * x + xm + h**2 * V(x).diff(x)
    assert sp.expand(-h**2 * F.del_form.coefficient(x) - printed) == 0
    assert (F.symplectic_form - (-1 / h) * (F.chart.d(xm) ^ F.chart.d(x))).is_zero() is True
    assert (F.symplectic_form_next - (-1 / h) * (F.chart.d(x) ^ F.chart.d(xp))).is_zero() is True


def midpoint_lagrangian():
    """L_D(q, q_t) = q_t^2/2 - V(q + h q_t/2): its DEL equation is the midpoint scheme (eq. 35)."""
    return discrete_lagrangian_forms(lambda x, v: v**2 / 2 - V(x + h * v / 2), step=h, difference=True)


def test_separable_midpoint_in_the_lagrangian_formalism_eqs_35_to_38():
    F = midpoint_lagrangian()
    (xm,), (x,), (xp,) = F.previous, F.current, F.next
    Vq = V(x).diff(x)
    eq36 = xp - 2 * x + xm + h**2 / 2 * (gc.substitute(Vq, {x: (xp + x) / 2}) + gc.substitute(Vq, {x: (x + xm) / 2}))
    assert gc.zero.decide_zero(-h**2 * F.del_form.coefficient(x) - eq36).is_zero is True
    Vqq = V(x).diff(x, 2)
    eq38 = -(1 / h) * (1 + h**2 / 4 * gc.substitute(Vqq, {x: (x + xm) / 2})) * (F.chart.d(xm) ^ F.chart.d(x))
    assert (F.symplectic_form - eq38).is_zero() is True
    assert certify_del_condition(F).holds is True


def eq39_pullback():
    """(q^n, q^(n+1)) -> (q^(n+1), p^(n+1)) with p^(n+1) = (q^(n+1) - q^n)/h - h/2 V_q(q^(n+1/2))."""
    S = gc.Chart("x y")
    x, y = S.coords
    P = gc.Chart("Q P")
    Q_, P_ = P.coords
    mom = (y - x) / h - h / 2 * gc.substitute(V(x).diff(x), {x: (x + y) / 2})
    psi = gc.Map(S, P, [y, mom], parameters=[h])
    pulled = gc.pullback(P.d(P_) ^ P.d(Q_), psi)
    Vqq = gc.substitute(V(x).diff(x, 2), {x: (x + y) / 2})
    return S, pulled, Vqq


def test_eq39_needs_the_factor_one_over_h():
    """dp^(n+1) ^ dq^(n+1) = (1/h)(1 + h^2/4 V_qq(q^(n+1/2))) dq^(n+1) ^ dq^(n); as read in our copy
    it lacks the 1/h, and that reading fails."""
    S, pulled, Vqq = eq39_pullback()
    x, y = S.coords
    right = (1 / h) * (1 + h**2 / 4 * Vqq) * (S.d(y) ^ S.d(x))
    assert (pulled - right).is_zero() is True
    printed = (1 + h**2 / 4 * Vqq) * (S.d(y) ^ S.d(x))
    decision = (pulled - printed).zero_decision()
    assert decision.is_zero is False and decision.stage == "counterexample"


def test_discrete_lagrangian_in_all_accepted_shapes():
    x, y = sp.symbols("x y")
    lam = sp.Lambda((x, y), (y - x)**2 / 2 - sp.cos(x))
    a = discrete_lagrangian_forms(lam)
    b = discrete_lagrangian_forms(lambda u, w: (w - u)**2 / 2 - sp.cos(u))
    assert (a.del_form - b.del_form).is_zero() is True
    # n = 2: a callable of two vectors, or of 2n scalars
    c = discrete_lagrangian_forms(lambda u, w: ((w - u).T * (w - u))[0] / 2 - sp.cos(u[0]) * u[1], n=2)
    e = discrete_lagrangian_forms(lambda u1, u2, w1, w2: ((w1 - u1)**2 + (w2 - u2)**2) / 2 - sp.cos(u1) * u2, n=2)
    assert (c.del_form - e.del_form).is_zero() is True
    assert certify_del_condition(c).holds is True
    f = discrete_lagrangian_forms(sp.Function("L", nargs=4), n=2)
    assert certify_del_identity(f).holds is True


def test_discrete_lagrangian_of_the_wrong_arity_is_refused():
    with pytest.raises(ArityError, match="takes 2 arguments"):
        discrete_lagrangian_forms(lambda x, y, z: x * y * z)
    with pytest.raises(ArityError):
        discrete_lagrangian_forms(lambda x: x**2)
    x, y, z = sp.symbols("x y z")
    with pytest.raises(ArityError):
        discrete_lagrangian_forms(sp.Lambda((x, y, z), x * y * z))
    with pytest.raises(ArityError):
        discrete_lagrangian_forms(sp.Function("L", nargs=3))
    with pytest.raises(ArityError, match="or 4 scalar arguments"):
        discrete_lagrangian_forms(lambda a, b, c: a, n=2)
    with pytest.raises(ExpressionError):
        discrete_lagrangian_forms(x**2)
    with pytest.raises(ShapeError):
        discrete_lagrangian_forms(n=0)
    with pytest.raises(ExpressionError, match="step"):
        discrete_lagrangian_forms(lambda a, b: a * b, difference=True)


# ------------------------------------------------------------------ Hamiltonian schemes (Secs. 4, 5)


def canonical(M, qs, ps):
    w = gc.Form(M, {})
    for a, b in zip(qs, ps):
        w = w + (M.d(a) ^ M.d(b))
    return w


@pytest.mark.parametrize("n", [1, 2])
def test_midpoint_pair_is_an_identity_on_function_space_eqs_40_to_47(n):
    qs, ps = ([q], [p]) if n == 1 else ([q1, q2], [p1, p2])
    S = midpoint_del(None, qs, ps, h)
    assert certify_scheme_del(S).holds is True
    assert S.stage_form.terms == {}
    # (E(q) + E(p))/h is eq. 47's 1/2 d(z^(n+1) + z^(n))^T {J Delta_t z - grad H(zbar)}, J = [[0,-I],[I,0]]
    M = S.chart
    mid = {x: (x + X) / 2 for x, X in zip(S.q + S.p, S.new_q + S.new_p)}
    H = sp.Function("H")(*qs, *ps)
    eq47 = gc.Form(M, {})
    for x, y, X, Y in zip(S.q, S.p, S.new_q, S.new_p):
        eq47 = eq47 + (-(Y - y) / h - gc.substitute(sp.diff(H, x), mid)) * M.d((x + X) / 2)
        eq47 = eq47 + ((X - x) / h - gc.substitute(sp.diff(H, y), mid)) * M.d((y + Y) / 2)
    assert ((S.E_q + S.E_p) / h - eq47).is_zero() is True


def test_midpoint_map_is_symplectic_by_pullback():
    """(Two degrees of freedom by pullback: 4.7 s, measured; the DEL identity above covers n = 2.)"""
    assert certify_scheme_map(midpoint_del(None, q, p, h)).holds is True


def test_midpoint_two_form_in_positions_eq_45():
    """Eq. 45 (one degree of freedom): eliminating the momenta, 2 dp^(n+1) ^ dq^(n+1) =
    -dq^(n) ^ {h/2 H_qq + 2 (1 + h/2 H_qp)(h H_pp)^(-1)(1 - h/2 H_pq)} dq^(n+1), at the midpoint.
    H_p is linear in p here, so (q^n, q^(n+1)) -> p^(n+1) is explicit."""
    S = gc.Chart("x X")
    x, X = S.coords
    Ph = gc.Chart("u W")
    u, W = Ph.coords
    qq, pp, pb = sp.symbols("qq pp pb")
    H = pp**2 / 2 + pp * qq**2 / 2 + qq**3 / 3
    mq = (x + X) / 2
    pbar = sp.solve(sp.Eq((X - x) / h, sp.diff(H, pp).subs({qq: mq, pp: pb})), pb)[0]
    at = {qq: mq, pp: pbar}
    P = pbar - h / 2 * sp.diff(H, qq).subs(at)
    lhs = gc.pullback(2 * (Ph.d(W) ^ Ph.d(u)), gc.Map(S, Ph, [X, P], parameters=[h]))
    a, b, c = (sp.diff(H, *v).subs(at) for v in ((qq, pp), (pp, 2), (qq, 2)))
    eq45 = -(h * c / 2 + 2 * (1 + h * a / 2) * (1 - h * a / 2) / (h * b)) * (S.d(x) ^ S.d(X))
    assert (lhs - eq45).is_zero() is True
    assert (lhs + eq45).is_zero() is False


def test_separable_midpoint_in_the_hamiltonian_form_eqs_32_and_41():
    S = midpoint_del(p**2 / 2 + V(q), q, p, h)
    assert certify_scheme_del(S).holds is True and certify_scheme_map(S).holds is True


def test_pair_41_as_read_with_differentials_at_tn_is_no_identity():
    """Eq. 41 as it reads in our copy: E1 = dp^(n) {q^(n+1) - q^(n) - h H_p}, E2 = dq^(n) {p^(n+1) - p^(n) + h H_q}.
    d(E1 + E2) is then not Omega(Z) - Omega(z) on function space (either change alone does not help)."""
    S = midpoint_del(None, q, p, h)
    M = S.chart
    (Q,), (P,) = S.new_q, S.new_p
    H = sp.Function("H")(q, p)
    mid = {q: (q + Q) / 2, p: (p + P) / 2}
    r_q = Q - q - h * gc.substitute(H.diff(p), mid)
    r_p = P - p + h * gc.substitute(H.diff(q), mid)
    target = S.after - S.before
    for E in (r_q * M.d(p) + r_p * M.d(q),                      # as read in our copy
              r_q * M.d(p) - r_p * M.d(q),                      # sign of eq. 12 only
              r_q * M.d((p + P) / 2) + r_p * M.d((q + Q) / 2)):  # midpoint differentials only
        decision = (gc.d(E) - target).zero_decision()
        assert decision.is_zero is False
    fixed = r_q * M.d((p + P) / 2) - r_p * M.d((q + Q) / 2)
    assert (gc.d(fixed) - target).is_zero() is True


def test_feng_kang_scheme_eqs_48_to_52():
    S = feng_kang_del(None, q, p, h)
    assert certify_scheme_del(S).holds is True
    assert certify_feng_kang_coboundary(None, q, p, h).holds is True       # eq. 52
    assert certify_scheme_map(S).holds is True                           # symplectic, generic H (pullback)


def order_check(H, scheme, k):
    phi = scheme(H, q, p, h)
    X = gc.hamiltonian_vector_field(H, phi.source.d(q) ^ phi.source.d(p))
    return gc.certify_order(phi, X, h, k).holds


def test_feng_kang_scheme_has_order_exactly_four():
    """Order 4 for a non-separable H (generic H: 10 s, see the module's report), and not 5 (one H
    where the h^5 coefficient differs suffices); the midpoint rule it corrects has order 2."""
    assert order_check(p**2 / 2 + q**3 / 3 + q**2 * p / 2, feng_kang_map, 4) is True
    H = p**2 / 2 + q**4 / 4
    phi = feng_kang_map(H, q, p, h)
    assert gc.map_order(phi, gc.hamiltonian_vector_field(H, phi.source.d(q) ^ phi.source.d(p)), h) == 4
    assert order_check(p**2 / 2 + q**4 / 4, midpoint_map, 3) is False


def test_feng_kang_sign_of_the_correction():
    """With the opposite sign of the h^3/24 term (H + h^2/24 alpha) the scheme is only of order 2."""
    H = p**2 / 2 + q**4 / 4
    phi = feng_kang_map(H, q, p, h, sign=1)
    X = gc.hamiltonian_vector_field(H, phi.source.d(q) ^ phi.source.d(p))
    assert gc.certify_order(phi, X, h, 2).holds is True
    assert gc.certify_order(phi, X, h, 3).holds is False


def test_feng_kang_modified_hamiltonian_for_the_harmonic_oscillator():
    Ht, alpha = feng_kang_hamiltonian((p**2 + q**2) / 2, q, p, h)
    assert sp.expand(alpha + p**2 + q**2) == 0
    assert sp.expand(Ht - (1 + h**2 / 12) * (p**2 + q**2) / 2) == 0


def test_gauss_two_stage_eqs_53_to_58():
    S = gauss2_del(None, q, p, h)
    assert certify_scheme_del(S).holds is True
    assert certify_scheme_map(S).holds is True
    assert order_check(p**2 / 2 + q**3 / 3 + q**2 * p / 2, gauss2_map, 4) is True


def test_gauss_pair_without_stage_form_is_not_closed_correctly():
    """Eq. 56 keeps only the pair; with the stage values free, d(E(q) + E(p)) alone is not the difference."""
    S = gauss2_del(None, q, p, h)
    assert S.stage_form.terms
    decision = (gc.d(S.E_q + S.E_p) - (S.after - S.before)).zero_decision()
    assert decision.is_zero is False


def test_non_symplectic_runge_kutta_keeps_the_identity_with_its_defect():
    """Radau IIA (2 stages): dE = Omega(Z) - Omega(z) - h^2 sum M_ij Omega(K_i, K_j) still holds with M != 0;
    the defect does not vanish, so the scheme is not shown symplectic (the pullback refutes it in 4.2 s)."""
    S = runge_kutta_del(radau_iia(2), None, q, p, h, name="Radau IIA")
    assert certify_scheme_del(S).holds is True
    M = S.chart
    Q, P = S.new_q[0], S.new_p[0]
    assert (S.after - (M.d(Q) ^ M.d(P))).is_zero() is False
    S = runge_kutta_del(radau_iia(2), p**2 / 2 + q**4 / 4, q, p, h, name="Radau IIA")
    assert certify_scheme_del(S).holds is True


def test_trapezoidal_rule_preserves_the_modified_form_and_not_dq_dp():
    H = p**2 / 2 + V(q)
    S = trapezoidal_del(H, q, p, h)
    M = S.step_map.source
    w_h = (1 + h**2 / 4 * V(q).diff(q, 2)) * (M.d(q) ^ M.d(p))     # = -dp ^ (1 + h^2/4 V_qq) dq (eq. 65)
    assert (S.preserved_form - w_h).is_zero() is True
    assert certify_scheme_del(S).holds is True                      # dE = w_h(Z) - w_h(z) on function space
    assert certify_scheme_map(S).holds is True                      # pullback
    assert gc.certify_preserves(S.step_map, w_h).holds is True
    cert = gc.certify_symplectic(S.step_map, M.d(q) ^ M.d(p))
    assert cert.holds is False and cert.counterexample


def test_trapezoidal_modified_forms_eqs_67_and_71():
    w = trapezoidal_two_form(T(p) + V(q), q, p, h)                    # eq. 67
    assert sp.expand(w.coefficient(q, p) - (1 + h**2 / 4 * T(p).diff(p, 2) * V(q).diff(q, 2))) == 0
    H = sp.Function("H")(q, p)                                       # eq. 71, one degree of freedom
    w = trapezoidal_two_form(H, q, p, h)
    Hqq, Hpp, Hqp = H.diff(q, 2), H.diff(p, 2), H.diff(q, p)
    assert gc.zero.decide_zero(w.coefficient(q, p) - (1 + h**2 / 4 * (Hpp * Hqq - Hqp**2))).is_zero is True
    S = trapezoidal_del(None, q, p, h)
    assert certify_scheme_del(S).holds is True and certify_scheme_map(S).holds is True
    assert gc.certify_symplectic(trapezoidal_map(None, q, p, h), S.step_map.source.d(q) ^ S.step_map.source.d(p)).holds is False


def test_scheme_maps_bad_input():
    with pytest.raises(ShapeError):
        feng_kang_map(None, [q1, q2], [p1], h)
    with pytest.raises(ExpressionError):
        gauss2_map(None, q, p, 0.1)
    with pytest.raises(ExpressionError):
        midpoint_map(None, "q", p, h)
    with pytest.raises(ShapeError):
        runge_kutta_map(([[1, 0]], [1]), None, q, p, h)
    with pytest.raises(ExpressionError):
        feng_kang_map(None, q, p, h, sign=2)
    with pytest.raises(ExpressionError):
        certify_scheme_del(midpoint_map(None, q, p, h))


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    F = midpoint_lagrangian()
    parts = [F.latex(), certify_del_condition(F).latex(), certify_del_symplectic(F).latex(),
             certify_scheme_del(midpoint_del(None, q, p, h)).latex(),
             certify_feng_kang_coboundary(None, q, p, h).latex(),
             certify_scheme_del(feng_kang_del(None, q, p, h)).latex(),
             certify_scheme_del(gauss2_del(None, q, p, h)).latex(),
             certify_scheme_del(trapezoidal_del(p**2 / 2 + V(q), q, p, h)).latex()]
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "del_forms.pdf")
    assert pdf.exists() and pdf.stat().st_size > 0
