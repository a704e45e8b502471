"""Contact Yoshida compositions, contact Herglotz variational integrators, the time-dependent splitting.

Each scheme's declared order and properties are certified here on concrete and generic systems.
"""

import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.certify.compositions import composition_order, yoshida6, yoshida_composition
from geomcheck.structures import certify_contact_factor
from integrators.errors import SchemeNotApplicableError
from integrators.lower import lower
from integrators.schemes.contact_time_splitting import TimeDependentContactSplitting
from integrators.schemes.contact_variational import HerglotzVariational, contact_yoshida

x, p, z, t, a, h = sp.symbols("x p z t alpha h")
V = sp.Function("V")
OSC = ig.ContactSystem(p**2 / 2 + x**2 / 2 + a * z, x, p, z)
GENERIC = ig.ContactSystem(p**2 / 2 + V(x) + a * z, x, p, z)
DAMPED_PENDULUM = ig.ContactSystem(p**2 / 2 - sp.cos(x) + z / 5, x, p, z)


# --------------------------------------------------------------------------- Yoshida


@pytest.mark.parametrize("order, stages", [(4, 3), (6, 9)])
def test_yoshida_order_and_properties_are_computed(order, stages):
    s = contact_yoshida(order)
    assert s.order == order and len(s.gammas) == stages
    assert s.properties == frozenset({"contact", "symmetric"})
    assert s.order_certificate().holds is True
    assert s.gammas == yoshida_composition(order)


def test_yoshida4_on_the_damped_oscillator_is_contact_with_factor_and_fourth_order():
    s = contact_yoshida(4)
    phi = s.step_map(OSC)
    assert certify_contact_factor(phi, OSC.eta, sp.exp(-a * h)).holds is True
    assert certify_contact_factor(phi, OSC.eta, sp.exp(-a * h / 2)).holds is False      # negative control
    assert gc.certify_order(phi, OSC.vector_field, h, 4).holds is True


def test_a_yoshida_coefficient_off_by_ten_destroys_the_order():
    """The authors' code once had Yoshida's w3 off by a factor 10: the order conditions see it."""
    g = list(yoshida6("A", dps=30))
    assert composition_order(g).order == 6
    g[0], g[-1] = 10 * g[0], 10 * g[-1]
    assert composition_order(g).order < 2


def test_yoshida_refuses_odd_orders():
    with pytest.raises(ValueError):
        contact_yoshida(5)


# --------------------------------------------------------------------------- Herglotz


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("system", [OSC, GENERIC, DAMPED_PENDULUM], ids=["oscillator", "generic", "pendulum"])
def test_herglotz_declared_order_and_contact_are_certified(order, system):
    s = HerglotzVariational(order)
    certs = s.certify(system)
    assert set(certs) == {"order", "contact"}
    assert all(c.holds is True for c in certs.values()), {k: c.method for k, c in certs.items()}


@pytest.mark.parametrize("order", [1, 2])
def test_herglotz_order_is_exact(order):
    s = HerglotzVariational(order)
    assert gc.certify_order(s.step_map(OSC), OSC.vector_field, h, order + 1).holds is False


def test_herglotz_contact_factor_is_the_discrete_one():
    for order, factor in [(1, 1 - a * h), (2, (1 - a * h / 2) / (1 + a * h / 2))]:
        s = HerglotzVariational(order)
        got = s.discrete_principle(OSC).contact_factor()
        assert sp.simplify(got - factor) == 0
        assert certify_contact_factor(s.step_map(OSC), OSC.eta, factor, small_step=h).holds is True
        # the factor vanishes at h = 2/alpha (order 2) or 1/alpha (order 1): not contact for every h
        assert certify_contact_factor(s.step_map(OSC), OSC.eta, factor).holds is not True


def test_herglotz_step_solves_the_unregularized_position_momentum_equations():
    """The lowered step (regularized in w = (x1 - x0)/h) solves the herglotz map's own equations."""
    for order in (1, 2):
        s = HerglotzVariational(order)
        original = s.discrete_principle(DAMPED_PENDULUM).position_momentum_map()
        pts = np.array([[0.5, 0.25, -0.125], [1.0, -0.5, 0.75]])
        new = lower(s.step_map(DAMPED_PENDULUM)).bind({h: 0.125}).step_array(pts)
        for old, nw in zip(pts, new):
            at = {**dict(zip(DAMPED_PENDULUM.coords, old)), **dict(zip(original.new, nw)), h: sp.Rational(1, 8)}
            for e in original.equations:
                assert abs(float(e.subs(at))) < 1e-13


@pytest.mark.parametrize("system", [OSC, GENERIC, DAMPED_PENDULUM], ids=["oscillator", "generic", "pendulum"])
def test_herglotz_averaged_declared_order_and_contact_are_certified(system):
    s = ig.scheme("contact-herglotz-1-averaged")
    assert s == HerglotzVariational(1, averaged=True) and s != HerglotzVariational(1)
    assert (s.order, s.properties) == (1, frozenset({"contact"}))
    certs = s.certify(system)
    assert {k: c.holds for k, c in certs.items()} == {"order": True, "contact": True}


def test_herglotz_averaged_is_exactly_first_order_with_factor_1_minus_alpha_h():
    s = HerglotzVariational(1, averaged=True)
    phi = s.step_map(OSC)
    assert gc.certify_order(phi, OSC.vector_field, h, 2).holds is False
    factor = s.discrete_principle(OSC).contact_factor()
    assert sp.simplify(factor - (1 - a * h)) == 0
    assert certify_contact_factor(phi, OSC.eta, factor, small_step=h).holds is True
    assert certify_contact_factor(phi, OSC.eta, (1 - a * h / 2) / (1 + a * h / 2), small_step=h).holds is False
    with pytest.raises(ValueError, match="averaged"):
        HerglotzVariational(2, averaged=True)


def test_herglotz_averaged_step_is_the_closed_form():
    """x' = x + h(1 - g h) p - h^2 V'(x)/2, p' = (1 - g h) p - h (V'(x) + V'(x'))/2 (pendulum V = -cos x, g = 1/5)."""
    g, dt = 0.2, 0.125
    pts = np.array([[0.5, 0.25, -0.125], [1.0, -0.5, 0.75]])
    new = lower(HerglotzVariational(1, averaged=True).step_map(DAMPED_PENDULUM)).bind({h: dt}).step_array(pts)
    for (x0, p0, _), (x1, p1, _) in zip(pts, new):
        X = x0 + dt * (1 - g * dt) * p0 - dt**2 * np.sin(x0) / 2
        assert abs(x1 - X) < 1e-14
        assert abs(p1 - ((1 - g * dt) * p0 - dt * (np.sin(x0) + np.sin(X)) / 2)) < 1e-14
    # control: the left-point scheme is symplectic Euler, a different step
    left = lower(HerglotzVariational(1).step_map(DAMPED_PENDULUM)).bind({h: dt}).step_array(pts)
    assert np.abs(left[:, 0] - new[:, 0]).max() > 1e-3


def test_herglotz_refuses_kinetic_energies_without_a_legendre_transform():
    s = HerglotzVariational(2)
    T = sp.Function("T")
    for H in [T(p) + V(x) + a * z, p**4 / 4 + x**2 / 2 + z]:
        with pytest.raises(SchemeNotApplicableError, match="quadratic"):
            s.step_map(ig.ContactSystem(H, x, p, z))
    with pytest.raises(ValueError):
        HerglotzVariational(3)


def test_herglotz_runs_and_converges_at_its_order():
    y0 = [-0.25, 0.75, 0.0]
    for order in (1, 2):
        errs = []
        ref = ig.integrate(DAMPED_PENDULUM, "rk4", y0, dt=1 / 512, steps=512, save_every=512).y[-1]
        for n in (16, 32):
            sol = ig.integrate(DAMPED_PENDULUM, HerglotzVariational(order), y0, dt=1 / n, steps=n, save_every=n)
            errs.append(np.abs(sol.y[-1] - ref).max())
        assert abs(np.log2(errs[0] / errs[1]) - order) < 0.2


# --------------------------------------------------------------------------- time-dependent splitting

FORCED = ig.ContactSystem(p**2 / 2 + x**2 / 2 - x * sp.cos(t) + z / (2 + sp.sin(t)), x, p, z, t=t)
GENERIC_T = ig.ContactSystem(p**2 / 2 + V(x, t) + sp.Function("g")(t) * z, x, p, z, t=t)


@pytest.mark.parametrize("system", [FORCED, GENERIC_T], ids=["forced", "generic"])
def test_time_dependent_splitting_declared_properties_are_certified(system):
    s = TimeDependentContactSplitting()
    certs = s.certify(system)
    assert set(certs) == {"order", "contact", "symmetric"}
    assert all(c.holds is True for c in certs.values()), {k: c.method for k, c in certs.items()}
    assert s.certify_frozen_time_contact(system).holds is True


def test_time_dependent_splitting_factor_is_the_midpoint_damping():
    s = TimeDependentContactSplitting()
    ext, phi, tt = s.extended(FORCED)
    g = 1 / (2 + sp.sin(tt + h / 2))
    assert certify_contact_factor(phi, ext.eta, sp.exp(-g * h)).holds is True
    wrong = 1 / (2 + sp.sin(tt))                                   # damping frozen at t: not the factor
    assert certify_contact_factor(phi, ext.eta, sp.exp(-wrong * h)).holds is False
    assert gc.certify_order(phi, ext.vector_field, h, 3).holds is False


def test_time_dependent_splitting_runs_through_integrate_as_the_extended_map():
    s = TimeDependentContactSplitting()
    ext, phi, tt = s.extended(FORCED)
    sol = ig.integrate(FORCED, s, [0.5, 0.25, 0.0], dt=0.1, steps=20, save_every=20)
    y = lower(phi).bind({h: 0.1}).step_array
    state = np.array([[0.5, 0.0, 0.25, 0.0, 0.0]])                 # (x, t, p, E, z)
    for _ in range(20):
        state = y(state)
    assert np.abs(sol.y[-1] - state[0, [0, 2, 4]]).max() < 1e-13
    assert abs(state[0, 1] - 2.0) < 1e-13


def test_time_dependent_splitting_refuses_autonomous_and_coupled_systems():
    s = TimeDependentContactSplitting()
    with pytest.raises(SchemeNotApplicableError, match="autonomous"):
        s.step_map(OSC)
    with pytest.raises(SchemeNotApplicableError, match="couples"):
        s.step_map(ig.ContactSystem(p**2 * sp.cos(t) + z, x, p, z, t=t))
    with pytest.raises(SchemeNotApplicableError, match="linear in z"):
        s.step_map(ig.ContactSystem(p**2 / 2 + x * z, x, p, z, t=t))
