"""The damped-oscillator case study: the figures' claims, the documented disagreements, controls, figures."""

import os

import mpmath
import numpy as np
import pytest
import sympy as sp

import casestudies
import geomcheck
from geomcheck.latex import compile_pdf, document
import integrators as ig
from casestudies import vermeeren2019_damped_oscillator as m
from geomcheck.certify.compositions import yoshida_composition
from casestudies._kick_drift import SYMPLECTIC_EULER, kick_drift_step
from integrators.schemes.contact_variational import HerglotzVariational
from geomcheck.zero import decide_all_zero

TEST = "tests/casestudies/test_vermeeren2019_damped_oscillator.py::"


@pytest.fixture(scope="module")
def result(case_study_run):
    return case_study_run(m.NAME)


def test_quick_profile_checks(result):
    assert [c.description for c in result.checks if not c.passed] == []
    assert len(result.checks) == 48
    assert all(c.holds is True for _, c in result.certificates), [l for l, c in result.certificates if c.holds is not True]
    assert tuple(result.findings) == m.FINDINGS
    # one rule for error against damage (module docstring): slide 6's lost 1/2 is damage, as slide 8's 1/h
    assert [f.kind for f in m.FINDINGS] == ["damage"] + ["error"] * 4 + ["convention", "critique", "critique"]
    assert len(result.misprints) == 4 and m.EQUATIONS == {}


def test_claim_checks_are_the_figures_comparison_with_the_stated_thresholds(result):
    """'better' against the damped-kick symplectic methods (Contact (2nd) at alpha = 1, 2; both at the slides'
    alpha = 0.1); 'comparable' at 0.01 for both contact methods; RK4 below every other method in each panel of
    the J. Phys. A figures."""
    better = [c for c in result.checks if "max figure error" in c.description
              and not c.description.startswith("log10") and "RK4" not in c.description]
    comparable = [c for c in result.checks if c.description.startswith("log10 of")]
    rk4 = [c for c in result.checks if "RK4 / the best other method" in c.description]
    assert len(better) == 4 * len(m.BEATS) and len(comparable) == 2 * 2 * len(m.COMPARABLE_WITH) and len(rk4) == 4
    assert {c.description.split(": ")[1].split(" / ")[1].split(",")[0] for c in better} == {"Ruth3", "Verlet"}
    first = [c for c in better if "Contact (1st)" in c.description]
    assert len(first) == 2 and all(c.description.startswith("slides, alpha = 0.1") for c in first)
    assert all(c.passed == (c.measured <= 10 ** -0.1) for c in better)
    assert all(c.passed == (abs(c.measured) <= 1.0) for c in comparable)
    assert all(c.passed == (c.measured < 1.0) for c in rk4)
    assert max(c.measured for c in better) < 0.7                    # not a near miss
    assert not any("Caldirola-Kanai" in c.description or "E_max" in c.description for c in result.checks)


# --------------------------------------------------------------------------- the figures' methods, re-derived

def _authors_contact_first(a, h, x, p, dV=lambda x: x):
    """The step of the authors' integrators/contact.py, contact(), written out (plain floats)."""
    x_new = x + (h - h * h * a) * p - 0.5 * h * h * dV(x)
    return x_new, (1 - h * a) * p - 0.5 * h * (dV(x) + dV(x_new))


def _authors_leapfrog(a, h, x, p):
    """The authors' leapfrog_implicit with acc = -x - a p, the implicit half kick solved in closed form."""
    half = (p - h * x / 2) / (1 + a * h / 2)
    x_new = x + h * half
    return x_new, (1 - a * h / 2) * half - h * x_new / 2


def _rk4_step(a, h, x, p):
    f = lambda x, p: (p, -x - a * p)
    k1 = f(x, p)
    k2 = f(x + h / 2 * k1[0], p + h / 2 * k1[1])
    k3 = f(x + h / 2 * k2[0], p + h / 2 * k2[1])
    k4 = f(x + h * k3[0], p + h * k3[1])
    return x + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]), p + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])


def _authors_contact_second(a, h, x, p):
    x_new = x + (h - 0.5 * h * h * a) * p - 0.5 * h * h * x
    return x_new, ((1 - 0.5 * h * a) * p - 0.5 * h * (x + x_new)) / (1 + 0.5 * h * a)


def _damped_kicks(b, c):
    def step(a, h, x, p):
        for bi, ci in zip(b, c):
            p = p + bi * h * (-x - a * p)
            x = x + ci * h * p
        return x, p
    return step


PLAIN = {"Contact (1st)": _authors_contact_first, "Contact (2nd)": _authors_contact_second,
         "Leapfrog": _authors_leapfrog, "RK4": _rk4_step,
         "Ruth3": _damped_kicks((7 / 24, 3 / 4, -1 / 24), (2 / 3, -2 / 3, 1)),
         "symplectic Euler": _damped_kicks((1,), (1,))}


def _plain_ratio(a, dt, y0, t_end, num, den):
    """The max figure error ratio from the closed-form steps above and the closed-form exact solution."""
    n = int(round(t_end / dt))
    t = np.arange(n + 1) * dt
    x0, p0 = y0
    if a == 2:
        xe = np.exp(-t) * (x0 + (p0 + x0) * t)
    else:
        w = np.sqrt(1 - a * a / 4)
        xe = np.exp(-a * t / 2) * (x0 * np.cos(w * t) + (p0 + a * x0 / 2) / w * np.sin(w * t))

    def err(name):
        xs, (xx, pp) = [x0], y0
        for _ in range(n):
            xx, pp = PLAIN[name](a, dt, xx, pp)
            xs.append(xx)
        return np.abs((10 + np.array(xs)) / (10 + xe) - 1).max()
    return err(num) / err(den)


def _note_ratio(result, prefix, num, den, a):
    """A ratio from the run's notes 'THE FIGURES (...): num / den: alpha = a: r; ...'."""
    head = f"THE FIGURES ({prefix}, max figure error): {num} / {den}: "
    note = next(t for t in result.notes if t.startswith(head))
    return float(note[len(head):].split(f"alpha = {a:g}: ")[1].split(";")[0])


def _positions(method, a, y0, dt, steps):
    """The figures' positions, by our lowered maps (the runs of the case study)."""
    if method in m.CONTACT_METHODS:
        order, averaged = m.CONTACT_METHODS[method]
        return m._herglotz_run(order, m.contact_oscillator(), a, y0, dt, steps, averaged)[:, 0]
    if method == "Leapfrog":
        return m._forced_verlet_run(2, a, y0, dt, steps, m.forced_verlet_step())[:, 0]
    if method == "symplectic Euler":
        return m._run_composition(kick_drift_step(SYMPLECTIC_EULER), (1,), a, list(y0), dt, steps)[:, 0]
    return m._run_composition(kick_drift_step(m.KICK_DRIFT[method]), (1,), a, list(y0), dt, steps)[:, 0]


FIG, SLIDES = ((-0.25, 0.75), 0.1), ((0.5, 0.5), 0.25)


def test_contact_first_is_the_averaged_lagrangian_not_symplectic_euler():
    """The convention: the authors' Contact (1st) is the Herglotz map of the averaged Lagrangian (plain sympy,
    generic V), equal to our catalog scheme to rounding; the left-point reading is symplectic Euler."""
    x0, x1, p0, z0, h, a = sp.symbols("x0 x1 p0 z0 h alpha")
    V = sp.Function("V")
    dV = lambda s: sp.diff(V(s), s)
    v = (x1 - x0) / h
    averaged = v**2 / 2 - (V(x0) + V(x1)) / 2 - a * z0
    left = v**2 / 2 - V(x0) - a * z0

    def herglotz(L):      # p_j = -h D1 L/(1 + h D3 L), p_{j+1} = h D2 L/(1 - h D4 L) with D4 L = 0
        X = sp.solve(sp.Eq(p0, -h * sp.diff(L, x0) / (1 + h * sp.diff(L, z0))), x1)[0]
        return X, (h * sp.diff(L, x1)).subs(x1, X)

    X, P = herglotz(averaged)
    authors_x = x0 + (h - h**2 * a) * p0 - h**2 * dV(x0) / 2
    authors_p = (1 - h * a) * p0 - h * (dV(x0) + dV(x1).subs(x1, authors_x)) / 2
    assert sp.simplify(X - authors_x) == 0 and sp.simplify(P - authors_p) == 0
    X_left, P_left = herglotz(left)
    kick = p0 - h * dV(x0) - a * h * p0                          # symplectic Euler, damped kick then drift
    assert sp.simplify(X_left - (x0 + h * kick)) == 0 and sp.simplify(P_left - kick) == 0
    assert sp.simplify(X_left - X + h**2 * dV(x0) / 2) == 0      # the two readings differ at h^2 V'(x)/2
    assert m.contact_first_order_is_symplectic_euler().holds is True
    # numerically: the catalog's contact-herglotz-1-averaged is the authors' step, on the oscillator and a pendulum
    assert ig.scheme("contact-herglotz-1-averaged") == HerglotzVariational(1, averaged=True)
    al, dt, n = 1.3, 0.1, 200
    ours = m._herglotz_run(1, m.contact_oscillator(), al, (-0.25, 0.75), dt, n, averaged=True)
    xx, pp = -0.25, 0.75
    for k in range(1, n + 1):
        xx, pp = _authors_contact_first(al, dt, xx, pp)
        assert abs(ours[k, 0] - xx) < 1e-13 and abs(ours[k, 1] - pp) < 1e-13
    pend = m.contact_oscillator(-sp.cos(m.x))
    ours = ig.integrate(pend, "contact-herglotz-1-averaged", [0.5, 0.25, 0.0], dt=dt, steps=50, save_every=1,
                        params={m.alpha: al}).y
    xx, pp = 0.5, 0.25
    for k in range(1, 51):
        xx, pp = _authors_contact_first(al, dt, xx, pp, dV=np.sin)
        assert abs(ours[k, 0] - xx) < 1e-13 and abs(ours[k, 1] - pp) < 1e-13
    # control: the left-point scheme (symplectic Euler) is not the authors' step
    left_run = m._herglotz_run(1, m.contact_oscillator(), al, (-0.25, 0.75), dt, 3)
    assert abs(left_run[1, 0] - _authors_contact_first(al, dt, -0.25, 0.75)[0]) > 1e-3


def test_contact_first_loses_to_ruth3_at_alpha_1_and_2(result):
    """The critique's numbers: wins at the slides' alpha = 0.1, loses at the figures' alpha = 1, 2."""
    (y_fig, h_fig), (y_sl, h_sl) = FIG, SLIDES
    fig, sl = "h = 0.1", "h = 0.25, slides"
    assert 2.3 < _plain_ratio(1.0, h_fig, y_fig, 15.0, "Contact (1st)", "Ruth3") < 2.7
    assert 2.9 < _plain_ratio(2.0, h_fig, y_fig, 15.0, "Contact (1st)", "Ruth3") < 3.3
    for a in (1.0, 2.0):
        r = _plain_ratio(a, h_fig, y_fig, 15.0, "Contact (1st)", "symplectic Euler")
        assert 1.09 < r < 1.14
        assert abs(_note_ratio(result, fig, "Contact (1st)", "symplectic Euler, damped kick", a) - r) < 2e-3
        assert abs(_note_ratio(result, fig, "Contact (1st)", "Ruth3", a)
                   - _plain_ratio(a, h_fig, y_fig, 15.0, "Contact (1st)", "Ruth3")) < 2e-3
        assert _plain_ratio(a, h_fig, y_fig, 15.0, "Contact (2nd)", "Ruth3") < 0.2          # the second order wins
    r = _plain_ratio(0.1, h_sl, y_sl, 50.0, "Contact (1st)", "symplectic Euler")
    assert abs(r - 0.20) < 0.01 and abs(_note_ratio(result, sl, "Contact (1st)", "symplectic Euler, damped kick", 0.1) - r) < 2e-3
    got = {c.description: c.measured for c in result.checks}
    assert abs(got["slides, alpha = 0.1: Contact (1st) / Ruth3, max figure error"] - 0.68) < 0.01
    assert abs(got["slides, alpha = 0.1: Contact (1st) / Verlet, damped kicks, max figure error"] - 0.51) < 0.01
    # both first-order maps have the factor 1 - alpha h (Jacobian determinant on (x, p), plain sympy)
    x, p, h, a = sp.symbols("x p h alpha")
    X = x + (h - h**2 * a) * p - h**2 * x / 2
    authors = sp.Matrix([X, (1 - h * a) * p - h * (x + X) / 2]).jacobian([x, p]).det()
    kick = p - h * x - a * h * p
    euler = sp.Matrix([x + h * kick, kick]).jacobian([x, p]).det()
    assert sp.simplify(authors - (1 - a * h)) == 0 and sp.simplify(euler - (1 - a * h)) == 0


def test_leapfrog_has_the_factor_and_positions_of_contact_second(result):
    """The critique: Contact (2nd) and the figures' Leapfrog have the same conformal factor and the same
    position recurrence (plain sympy, generic V); they differ only in the first step."""
    x, p, h, a = sp.symbols("x p h alpha")
    V = sp.Function("V")
    dV = sp.Function("Vp")                                                   # V', an undefined function
    Xc = x + (h - h**2 * a / 2) * p - h**2 * dV(x) / 2                       # the authors' symcontact
    Pc = ((1 - h * a / 2) * p - h * (dV(x) + dV(Xc)) / 2) / (1 + h * a / 2)
    half = (p - h * dV(x) / 2) / (1 + a * h / 2)                             # the implicit Leapfrog
    Xl = x + h * half
    Pl = (1 - a * h / 2) * half - h * dV(Xl) / 2
    factor = (1 - a * h / 2) / (1 + a * h / 2)
    for X, P in ((Xc, Pc), (Xl, Pl)):
        assert sp.simplify(sp.Matrix([X, P]).jacobian([x, p]).det() - factor) == 0
    assert sp.series(factor - sp.exp(-a * h), h, 0, 4).removeO() == -a**3 * h**3 / 12     # not e^{-alpha h}
    # Contact (2nd)'s discrete Herglotz equation p_k^- = p_k^+ is the Lagrange-d'Alembert recurrence
    xm, xk, xp = sp.symbols("x_m x_k x_p")
    L = lambda u, w, z0, z1: ((w - u) / h)**2 / 2 - (V(u) + V(w)) / 2 - a * (z0 + z1) / 2
    z0, z1, z2 = sp.symbols("z0:3")
    Lm, Lk = L(xm, xk, z0, z1), L(xk, xp, z1, z2)
    p_minus = h * sp.diff(Lm, xk) / (1 - h * sp.diff(Lm, z1))
    p_plus = -h * sp.diff(Lk, xk) / (1 + h * sp.diff(Lk, z1))
    dla = (xp - 2 * xk + xm) / h**2 + sp.diff(V(xk), xk) + a * (xp - xm) / (2 * h)
    assert sp.simplify((p_minus - p_plus) * (1 - a**2 * h**2 / 4) + h * dla) == 0
    assert m.forced_del_certificate(V(m.x)).holds is True                   # the Leapfrog's positions: the same
    # numerically: the Leapfrog started with the momentum that gives Contact (2nd)'s x_1 has its positions
    y0, al, dt, n = (-0.25, 0.75), 2.0, 0.1, 150
    contact = _positions("Contact (2nd)", al, y0, dt, n)
    p_start = (contact[1] - y0[0]) / dt * (1 + al * dt / 2) + dt * y0[0] / 2
    leap = _positions("Leapfrog", al, (y0[0], p_start), dt, n)
    assert np.abs(leap - contact).max() < 1e-14
    assert np.abs(_positions("Leapfrog", al, y0, dt, n) - contact).max() > 1e-4        # control: x_1 differs
    xx, pp = y0                                                              # our Leapfrog is the authors'
    ours = _positions("Leapfrog", 1.0, y0, dt, 40)
    for k in range(1, 41):
        xx, pp = _authors_leapfrog(1.0, dt, xx, pp)
        assert abs(ours[k] - xx) < 1e-14
    # the statement's numbers: closed-form steps, and the run's notes agree
    (y_fig, h_fig), (y_sl, h_sl) = FIG, SLIDES
    for a, t_end, want, tol in ((0.01, 50.0, 1.000, 2e-3), (0.1, 50.0, 1.004, 2e-3), (1.0, 15.0, 0.58, 0.01),
                                (2.0, 15.0, 2.46, 0.01)):
        r = _plain_ratio(a, h_fig, y_fig, t_end, "Contact (2nd)", "Leapfrog")
        assert abs(r - want) < tol and abs(_note_ratio(result, "h = 0.1", "Contact (2nd)", "Leapfrog", a) - r) < 2e-3
    r = _plain_ratio(0.1, h_sl, y_sl, 50.0, "Contact (2nd)", "Leapfrog")
    assert abs(r - 1.015) < 3e-3
    assert abs(_note_ratio(result, "h = 0.25, slides", "Contact (2nd)", "Leapfrog", 0.1) - r) < 2e-3


def test_rk4_curve_lies_below_every_other(result):
    """The figures' RK4: our run is the classical RK4 (written out here); its checks hold in every panel."""
    al, dt, n = 1.0, 0.1, 100
    ours = m._rk4_run(m.contact_oscillator(), al, (-0.25, 0.75), dt, n)
    xx, pp = -0.25, 0.75
    for k in range(1, n + 1):
        xx, pp = _rk4_step(al, dt, xx, pp)
        assert abs(ours[k, 0] - xx) < 1e-14 and abs(ours[k, 1] - pp) < 1e-14
    rk4 = [c for c in result.checks if "RK4" in c.description]
    assert len(rk4) == 4 and all(c.passed for c in rk4) and max(c.measured for c in rk4) < 0.01
    # the closed forms agree: RK4 / Contact (2nd) at the slides' alpha = 0.1
    r = _plain_ratio(0.1, 0.25, (0.5, 0.5), 50.0, "RK4", "Contact (2nd)")
    assert r < 0.05 and abs(_note_ratio(result, "h = 0.25, slides", "RK4", "Contact (2nd)", 0.1) - r) < 2e-3


# ---------------------------------------------------- slide 27 (Hamiltonian integrators), plain sympy

_X, _P, _Z, _T = sp.symbols("x p z t")
_A, _B = sp.Function("A"), sp.Function("B")
_C = sp.Symbol("C")


def _contact_field(H):
    """(x', p', z') = (H_p, -H_x - p H_z, p H_p - H): the slides' contact Hamiltonian equations."""
    return [sp.diff(H, _P), -sp.diff(H, _X) - _P * sp.diff(H, _Z), _P * sp.diff(H, _P) - H]


def _is_flow(phi, field):
    """phi(0) = id and d/dt phi = field(phi)."""
    at_phi = dict(zip((_X, _P, _Z), phi))
    starts = [sp.simplify(c.subs(_T, 0) - v) for c, v in zip(phi, (_X, _P, _Z))]
    moves = [sp.simplify(sp.diff(c, _T) - f.subs(at_phi, simultaneous=True).doit()) for c, f in zip(phi, field)]
    return all(e == 0 for e in starts + moves)


def _pullback_ratio(phi):
    """phi^*(dz - p dx) = c_x dx + c_p dp + c_z dz; contact iff (c_x, c_p, c_z) = g (-p, 0, 1)."""
    xn, pn, zn = phi
    cx = sp.diff(zn, _X) - pn * sp.diff(xn, _X)
    cp = sp.diff(zn, _P) - pn * sp.diff(xn, _P)
    cz = sp.diff(zn, _Z) - pn * sp.diff(xn, _Z)
    return sp.simplify(cp), sp.simplify(cx + _P * cz)


def test_slide27_A_field_and_flow_have_A_for_A_prime():
    """Slide 27 (Hamiltonian integrators) prints X_A = A'(p) d_x + (p A(p) - A(p)) d_z and
    exp(tX_A) = (x + t A'(p), p, z + t(p A(p) - A(p))): one slip, A for A' in the z-component."""
    A, dA = _A(_P), sp.diff(_A(_P), _P)
    field = _contact_field(A)
    assert [sp.simplify(f - g) for f, g in zip(field, [dA, 0, _P * dA - A])] == [0, 0, 0]
    printed_field = [dA, 0, _P * A - A]
    assert sp.simplify(field[2] - printed_field[2]) != 0
    # the printed field fails eta(X) = -H
    assert sp.simplify((printed_field[2] - _P * printed_field[0]) + A) != 0
    printed = [_X + _T * dA, _P, _Z + _T * (_P * A - A)]
    right = [_X + _T * dA, _P, _Z + _T * (_P * dA - A)]
    assert _is_flow(right, field) and not _is_flow(printed, field)
    # one slip: replacing A by A' in the printed z-terms gives the right field and flow
    fix = {_P * A: _P * dA}
    assert sp.simplify(printed[2].expand().subs(fix) - right[2].expand()) == 0


def test_slide27_printed_B_flow_is_not_the_flow_of_X_B():
    """Slide 27 (Hamiltonian integrators): exp(tX_B) = (x - t(B'(x) + B(x)), p, z + t(p A(p) - A(p)))."""
    B, dB = _B(_X), sp.diff(_B(_X), _X)
    field = _contact_field(B)
    assert [sp.simplify(f - g) for f, g in zip(field, [0, -dB, -B])] == [0, 0, 0]     # printed X_B is right
    A = _A(_P)
    printed = [_X - _T * (dB + B), _P, _Z + _T * (_P * A - A)]
    right = [_X, _P - _T * dB, _Z - _T * B]
    assert _is_flow(right, field) and not _is_flow(printed, field)
    assert _pullback_ratio(right) == (0, 0)


def test_slide27_printed_C_flow_is_not_the_flow_of_X_C():
    """Slide 27 (Hamiltonian integrators): exp(tX_C) = (x, p - t p C, exp(Ct) z)."""
    field = _contact_field(_C * _Z)
    assert [sp.simplify(f - g) for f, g in zip(field, [0, -_P * _C, -_C * _Z])] == [0, 0, 0]   # printed X_Cz
    printed = [_X, _P - _T * _P * _C, sp.exp(_C * _T) * _Z]
    right = [_X, _P * sp.exp(-_C * _T), _Z * sp.exp(-_C * _T)]
    assert _is_flow(right, field) and not _is_flow(printed, field)
    assert _pullback_ratio(right) == (0, 0)                                # contact: phi^* eta = e^{-Ct} eta
    assert _pullback_ratio(printed)[1] != 0                                # the printed map is not contact
    # p - t p C is the first-order truncation of the right p-component
    assert sp.series(right[1], _T, 0, 2).removeO() == printed[1].expand()


def test_second_order_herglotz_is_the_authors_contact_2nd():
    """Our Herglotz-2 on the oscillator is the authors' closed form of "Contact (2nd)"."""
    h, a = 0.1, 1.7
    x, p = -0.25, 0.75
    ours = m._herglotz_run(2, m.contact_oscillator(), a, (x, p), h, 20)
    for n in range(1, 21):
        x_new = (h - h * h * a / 2) * p + (1 - h * h / 2) * x
        p = ((1 - h * a / 2) * p - h / 2 * (x + x_new)) / (1 + h * a / 2)
        x = x_new
        assert abs(ours[n, 0] - x) < 1e-14 and abs(ours[n, 1] - p) < 1e-14


def test_figure_error_is_the_shifted_relative_error():
    assert float(m.figure_error(0.1, 0.0)) == pytest.approx(0.01)
    assert float(m.figure_error(-0.2, 0.3, shift=1.0)) == pytest.approx(0.5 / 1.3)


def test_our_extension_is_reported_not_checked(result):
    """Orders 2, 4, 6 against forced Verlet compositions: equal at order 2, contact better at 4 and 6 (alpha = 1)."""
    row = next(n for n in result.notes if n.startswith("OUR EXTENSION (h = 0.1, E_max)"))
    at1 = [float(v) for v in row.split("alpha = 1: ")[1].split(";")[0].split(", ")]
    assert 0.9 < at1[0] < 1.1 and at1[1] < 0.8 and at1[2] < 0.6
    assert sum(n.startswith("OUR EXTENSION") for n in result.notes) == 4
    assert sum(n.startswith("SECONDARY reading") for n in result.notes) == 4


def test_orders_are_checked_for_every_method(result):
    orders = [c for c in result.checks if "observed order" in c.description]
    assert len(orders) == 19 and all(c.passed for c in orders)
    assert {round(c.measured) for c in orders} == {1, 2, 4, 6}


def test_figures_exist(result):
    assert len(result.figures) == 10
    for path in result.figures:
        assert os.path.getsize(path) > 1000 and os.path.basename(path).startswith(m.NAME)


#: the slides the findings cite, numbered as the frames of our copy (the list above FINDINGS)
SLIDE_TITLES = {6: "Lagrangian mechanics", 27: "Hamiltonian integrators",
                29: "Numerical example: harmonic oscillator", 30: "Numerical example: harmonic oscillator"}


def test_findings_name_their_slides_by_number_and_title():
    """Every slide a finding cites carries its title, one count for the deck (the spin-orbit study's:
    slide 8 "Properties of symplectic integrators", 25-26, 31 as there)."""
    import re
    cited = 0
    for f in m.FINDINGS:
        for first, last, title in re.findall(r"slides? (\d+)(?:-(\d+))? \(([^)]*)\)", f.where):
            for n in range(int(first), int(last or first) + 1):
                assert SLIDE_TITLES[n] == title, f.where
                cited += 1
        assert "slide" not in f.where or re.search(r"slides? \d+(?:-\d+)? \(", f.where), f.where
    assert cited == 7
    doc = " ".join(m.__doc__.split())
    for n, title in SLIDE_TITLES.items():
        assert f"slide {n}" in doc or f"slides {n}-" in doc or f"-{n} " in doc, n


def test_findings_point_at_existing_tests(result):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert [f.kind for f in result.findings].count("critique") == 2
    for f in result.findings:
        path, name = f.test.split("::")
        assert f"def {name}(" in open(os.path.join(root, path)).read()


def test_contact_defect_control_rk4_is_not_contact():
    """Negative control of the high-precision check: RK4's step has an O(h^5) contact defect."""
    osc = m.contact_oscillator()
    rk4 = ig.scheme("rk4").step_map(osc)
    base = ig.scheme("contact-splitting-2").step_map(osc)
    args = (yoshida_composition(2), sp.Rational(1, 10), ["-0.25", "0.75", "0.5"], "0.1", 50, 2)
    assert m._contact_defect(base, osc, *args) < mpmath.mpf(10) ** -45
    assert m._contact_defect(rk4, osc, *args) > mpmath.mpf(10) ** -9


def test_exact_solution_control():
    sol = m.exact_solution()
    wrong = sol.x.subs(m.alpha, -m.alpha)                 # the anti-damped solution
    residual = sp.diff(wrong, m.t, 2) + m.alpha * sp.diff(wrong, m.t) + wrong
    assert decide_all_zero([residual]).is_zero is False


def test_symplectic_comparison_is_symplectic_and_not_contact_preserving_energy():
    ck = m.caldirola_kanai()
    phi = m.caldirola_kanai_step(ck)
    broken = geomcheck.Map(ck.chart, ck.chart, [phi.exprs[0], phi.exprs[1], phi.exprs[2] * (1 + m.h**3), phi.exprs[3]],
                           parameters=[m.h, m.alpha])
    assert geomcheck.certify_symplectic(broken, ck.omega).holds is False


@pytest.mark.needs_pdflatex
def test_derivations_and_certificates_compile(result, tmp_path):
    parts = [d.latex() for d in result.derivations] + [c.latex() for _, c in result.certificates[:4]]
    pdf = compile_pdf(document("\n".join(parts)), str(tmp_path / "osc.pdf"))
    assert open(pdf, "rb").read(4) == b"%PDF"


def test_secondary_reading_caldirola_kanai_figure(result):
    assert any(p.endswith(f"{m.NAME}-caldirola-kanai.pdf") for p in result.figures)


def test_forced_verlet_is_the_lagrange_dalembert_recurrence():
    """The lowered forced Verlet step's positions satisfy the two-step recurrence numerically."""
    import numpy as np
    a, dt, n = 0.7, 0.1, 50
    xs = m._forced_verlet_run(2, a, (-0.25, 0.75), dt, n, m.forced_verlet_step())[:, 0]
    lhs = xs[2:] - 2 * xs[1:-1] + xs[:-2]
    rhs = -dt**2 * xs[1:-1] - a * dt * (xs[2:] - xs[:-2]) / 2
    assert np.max(np.abs(lhs - rhs)) < 1e-15
    # control: the same positions do not satisfy the one-sided (backward-difference) damping recurrence
    assert np.max(np.abs(lhs + dt**2 * xs[1:-1] + a * dt * (xs[2:] - xs[1:-1]))) > 1e-4


def test_forced_verlet_certificates_and_controls():
    """Symmetric (so Yoshida applies), order exactly 2, conformally symplectic; a one-sided damping is not symmetric."""
    phi = m.forced_verlet_step()
    M = phi.source
    assert geomcheck.certify_symmetric(phi, m.h).holds is True
    X = m.damped_vector_field()
    assert geomcheck.certify_order(phi, X, m.h, 2).holds is True
    assert geomcheck.certify_order(phi, X, m.h, 3).holds is False
    c = geomcheck.certify_conformal_symplectic(phi, M.d(m.x) ^ M.d(m.p), small_step=m.h)
    assert c.holds is True
    assert geomcheck.zero.decide_zero(c.factor - (1 - m.alpha * m.h / 2) / (1 + m.alpha * m.h / 2)).is_zero is True
    # the factor vanishes at alpha h = 2: conformally symplectic for small steps, not for every h
    assert geomcheck.certify_conformal_symplectic(phi, M.d(m.x) ^ M.d(m.p)).holds is False
    assert geomcheck.certify_symplectic(phi, M.d(m.x) ^ M.d(m.p)).holds is False       # damped: not symplectic
    x, p, h, a = m.x, m.p, m.h, m.alpha
    half = p - h / 2 * x - h / 2 * a * p                 # explicit damping on both half kicks: not symmetric
    X1 = x + h * half
    one_sided = geomcheck.Map(M, M, [X1, half - h / 2 * X1 - h / 2 * a * half], parameters=[h, a])
    assert geomcheck.certify_symmetric(one_sided, h).holds is False


def test_forced_del_certificate_control():
    """The DEL certificate fails for the wrong sign of the damping term."""
    cert = m.forced_del_certificate()
    assert cert.holds is True
    assert m.forced_del_certificate(sp.Function("V")(m.x)).holds is True
    X = m.forced_verlet_step().exprs[0]
    back = geomcheck.substitute(X, {m.h: -m.h})
    wrong = X - 2 * m.x + back + m.h**2 * m.x - m.alpha * m.h * (X - back) / 2
    assert decide_all_zero([wrong]).is_zero is False
