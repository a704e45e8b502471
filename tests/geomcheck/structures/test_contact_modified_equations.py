"""Modified equations of contact maps (slides 25-26 of Vermeeren, Bravetti & Seri 2019) and the
time scale of modified-energy conservation (slide 8)."""

import math

import pytest
import sympy

import geomcheck as gc
from geomcheck.zero import decide_zero
from geomcheck.errors import ExpressionError
from geomcheck.structures import darboux_coordinates
from geomcheck.structures.contact import (
    contact_generating_lagrangian,
    contact_hamiltonian_field,
    kinetic_flow,
    linear_damping_flow,
    modified_contact_hamiltonian,
    modified_herglotz_lagrangian,
    potential_flow,
)

h, alpha = sympy.symbols("h alpha")
D = darboux_coordinates(1)
x, p, z = D.chart.coords


def splitting_S2(B):
    """S2 = C/2 B/2 A B/2 C/2 for H = p^2/2 + B(x) + alpha z (slide 27), from the exact flows."""
    steps = [linear_damping_flow(alpha, D, h / 2), potential_flow(B, D, h / 2), kinetic_flow(p**2 / 2, D, h),
             potential_flow(B, D, h / 2), linear_damping_flow(alpha, D, h / 2)]
    S = steps[0]
    for phi in steps[1:]:
        S = gc.compose(phi, S)
    return S


def explicit_euler(H):
    X = contact_hamiltonian_field(H, D.eta).field
    return gc.Map(D.chart, D.chart, [c + h * X.component(c) for c in D.chart.coords], parameters=[h, alpha])


def test_modified_field_of_S2_is_contact_to_order_4():
    B = sympy.Function("B")(x)
    Ht, cert = modified_contact_hamiltonian(splitting_S2(B), D.eta, h, 4)
    assert cert.holds is True and cert.stage != "randomized"
    Ht = sympy.expand(Ht)
    assert decide_zero(Ht.coeff(h, 0) - (p**2 / 2 + B + alpha * z)).is_zero is True
    assert Ht.coeff(h, 1) == 0 and Ht.coeff(h, 3) == 0         # S2 is symmetric: only even powers
    assert Ht.coeff(h, 2) != 0


def test_modified_field_agrees_with_the_matrix_logarithm():
    """Independent: for B = x^2/2 the step is linear on (x, p); h X~ = log(M) as a series in h."""
    S = splitting_S2(x**2 / 2)
    order = 4
    Ht, cert = modified_contact_hamiltonian(S, D.eta, h, order)
    assert cert.holds is True
    def truncated(e):                      # exp -> its Taylor polynomial, then drop h^(order+1) and up
        e = sympy.expand(e.replace(sympy.exp, lambda a: sum(a**j / sympy.factorial(j) for j in range(order + 2))))
        return sum(e.coeff(h, j) * h**j for j in range(order + 1))

    M = sympy.Matrix([[truncated(sympy.diff(S.exprs[i], v)) for v in (x, p)] for i in (0, 1)])
    N = M - sympy.eye(2)
    log_m = sum(((-1) ** (k + 1) * N**k / k for k in range(1, order + 2)), sympy.zeros(2, 2))
    log_m = log_m.applyfunc(truncated)
    X = contact_hamiltonian_field(Ht, D.eta).field
    for i, c in enumerate((x, p)):
        modified = sympy.expand(X.component(c))
        from_log = sympy.expand((log_m[i, 0] * x + log_m[i, 1] * p) / h)
        for k in range(order):
            assert sympy.simplify(modified.coeff(h, k) - from_log.coeff(h, k)) == 0, (c, k)


def test_modified_field_of_a_non_contact_map_is_not_contact():
    """Explicit Euler on the damped oscillator: F_2 is not a contact field (negative control)."""
    cert = modified_contact_hamiltonian(explicit_euler(p**2 / 2 + x**2 / 2 + alpha * z), D.eta, h, 2)[1]
    assert cert.holds is False and cert.counterexample


def test_modified_lagrangian_of_S2():
    """The modified equations are Herglotz equations of L~; at alpha = 0 the h^2 term is the known
    Stormer-Verlet modified Lagrangian h^2 (B'^2 - 2 x'^2 B'')/24 (Vermeeren, Numer. Math. 2017)."""
    B = sympy.Function("B")(x)
    Ht, _ = modified_contact_hamiltonian(splitting_S2(B), D.eta, h, 4)
    L, (v,), cert = modified_herglotz_lagrangian(Ht, D, h, 4)
    assert cert.holds is True
    L = sympy.expand(L)
    assert decide_zero(L.coeff(h, 0) - (v**2 / 2 - B - alpha * z)).is_zero is True
    Bx, Bxx = B.diff(x), B.diff(x, 2)
    h2 = gc.substitute(L.coeff(h, 2), {alpha: 0})
    assert decide_zero(h2 - (Bx**2 - 2 * v**2 * Bxx) / 24).is_zero is True


def test_a_wrong_modified_lagrangian_fails():
    """Negative control: the unmodified Lagrangian, or a wrong h^2 term, is refuted at h^2."""
    B = sympy.Function("B")(x)
    Ht, _ = modified_contact_hamiltonian(splitting_S2(B), D.eta, h, 3)
    v = sympy.Symbol("xdot")
    L0 = v**2 / 2 - B - alpha * z
    assert modified_herglotz_lagrangian(Ht, D, h, 1, lagrangian=L0)[2].holds is True     # right to O(h)
    assert modified_herglotz_lagrangian(Ht, D, h, 3, lagrangian=L0)[2].holds is False
    L, _, _ = modified_herglotz_lagrangian(Ht, D, h, 3)
    flipped = L - 2 * h**2 * sympy.expand(L).coeff(h, 2)
    assert modified_herglotz_lagrangian(Ht, D, h, 3, lagrangian=flipped)[2].holds is False


def test_time_dependent_modified_lagrangian():
    """With explicit time (t' = 1, H~ = E + K): the total derivative carries d/dt|_t."""
    from geomcheck.structures.contact import contact_coordinates

    t, E = sympy.Dummy("t"), sympy.Dummy("E")
    K = p**2 / 2 + x**2 / 2 + sympy.cos(t) * x + alpha * z + h**2 * sympy.sin(t) * p * x
    base = contact_coordinates(D.chart, [x], [p], z)
    L, (v,), cert = modified_herglotz_lagrangian(K + E, base, h, 3, time=t, energy=E)
    assert cert.holds is True
    assert sympy.expand(L - (v**2 / 2 - x**2 / 2 - sympy.cos(t) * x - alpha * z - h**2 * sympy.sin(t) * v * x)) == 0
    with pytest.raises(ExpressionError, match="E \\+ K"):
        modified_herglotz_lagrangian(K + E**2, base, h, 3, time=t, energy=E)
    with pytest.raises(ExpressionError, match="regular in p"):
        modified_herglotz_lagrangian(x**2 / 2 + alpha * z, D, h, 2)      # no p: no Legendre transform


def test_contact_steps_are_generated_by_a_discrete_lagrangian():
    """Slide 25 on S2 (generic B); explicit Euler is not contact and not generated; no twist, no L."""
    B = sympy.Function("B")(x)
    L, (x_next,), cert = contact_generating_lagrangian(splitting_S2(B), D, h)
    assert cert.holds is True
    assert L.has(x_next) and not L.has(p)
    bad = contact_generating_lagrangian(explicit_euler(p**2 / 2 + x**2 / 2 + alpha * z), D, h)[2]
    assert bad.holds is False
    with pytest.raises(ExpressionError, match="twist"):
        contact_generating_lagrangian(linear_damping_flow(alpha, D, h), D, h)   # x_next = x: p is lost


def test_modified_energy_is_kept_far_beyond_the_printed_time_scale():
    """Slide 8 as read in our copy: a modified energy kept 'over a time interval of length O(e^{-h})'.

    Stormer-Verlet on the pendulum keeps the modified energy H + h^2 H_3 to O(h^4), without drift,
    over t = 1e4 (the standard result: times O(e^{c/h})), while the printed scale e^{-h} is < 1.
    """
    M = gc.Chart("q p")
    q, pp = M.coords
    ph = pp - h / 2 * sympy.sin(q)
    Q = q + h * ph
    verlet = gc.Map(M, M, [Q, ph - h / 2 * sympy.sin(Q)])
    Ht, cert = gc.modified_hamiltonian(verlet, M.d(q) ^ M.d(pp), h, 3)
    assert cert.holds is True
    step = 0.2
    H0 = sympy.lambdify((q, pp), Ht.subs(h, 0))
    Hmod = sympy.lambdify((q, pp), Ht.subs(h, step))
    qn, pn = 1.0, 0.5
    T = 1e4
    n = int(T / step)
    e0, m0 = H0(qn, pn), Hmod(qn, pn)
    dev_H, dev_mod, first, last = 0.0, 0.0, [], []
    for k in range(n):
        half = pn - step / 2 * math.sin(qn)
        qn = qn + step * half
        pn = half - step / 2 * math.sin(qn)
        if k % 50 == 0:
            d = abs(Hmod(qn, pn) - m0)
            dev_mod = max(dev_mod, d)
            dev_H = max(dev_H, abs(H0(qn, pn) - e0))
            (first if k < n // 10 else last if k >= n - n // 10 else []).append(d)
    assert n * step >= 1e4 * math.exp(-step)            # the run is 10^4 times the printed time scale
    assert dev_H > 1e-3                                  # the energy itself oscillates at O(h^2)
    assert dev_mod < 5 * step**4                         # the modified one is kept to O(h^4)
    print(f"max deviation over t = {n * step:g}: energy {dev_H:.2e}, modified energy {dev_mod:.2e}")
    assert 3e-3 < dev_H < 6e-3 and 2e-5 < dev_mod < 5e-5   # the docs' "5e-3" and "4e-5"
    assert dev_mod < dev_H / 20
    assert max(last) < 2 * max(first)                    # and does not drift
