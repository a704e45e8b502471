"""Nonholonomic systems (integrators.systems.nonholonomic) and nonholonomic RATTLE (integrators.schemes.nonholonomic).

References are established independently of the code under test: the knife edge's exact
flow against mpmath's Taylor ODE solver applied to the system's own vector field; the
reversibility of the two RATTLE variants by a plain numpy closed form of the knife-edge step
(written here from the equations, a linear solve per constraint force); the integrable
constraint against the holonomic ConstrainedHamiltonianSystem and against x^2 + y^2 itself.
The fuller order measurements and the 1e5-step drift are in benchmarks/bench_nonholonomic.py.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.maps import substitute
from geomcheck.zero import decide_all_zero
from integrators.errors import (
    InconsistentStateError,
    SchemeNotApplicableError,
    SystemDefinitionError,
)
from integrators.schemes.nonholonomic import (
    NonholonomicDiscreteDirac,
    NonholonomicRattle,
    NonholonomicRattleStart,
    certify_energy_on_manifold,
)
from integrators.systems.constrained import planar_pendulum
from integrators.systems.nonholonomic import (
    NonholonomicSystem,
    knife_edge,
    knife_edge_exact_flow,
)

x, y, z, phi, px, py, pz, pphi = sp.symbols("x y z phi p_x p_y p_z p_phi")
RATTLE, START, DIRAC = NonholonomicRattle(), NonholonomicRattleStart(), NonholonomicDiscreteDirac()
KNIFE = knife_edge()


def blade_state(phi0, speed, omega, lib=np):
    """A knife-edge state on the constraint manifold: at the origin, speed along the blade, turning rate."""
    return [0 * speed, 0 * speed, phi0, speed * lib.cos(phi0), speed * lib.sin(phi0), omega]


# ----------------------------------------------------------------------------- the system


def test_knife_edge_equations_by_hand():
    """p' = -A^T lambda with lambda = p_phi (p_x cos phi + p_y sin phi) for m = J = 1 (derived in the docstring)."""
    X = KNIFE.vector_field
    lam = pphi * (px * sp.cos(phi) + py * sp.sin(phi))
    want = {x: px, y: py, phi: pphi, px: -lam * sp.sin(phi), py: lam * sp.cos(phi), pphi: 0}
    assert decide_all_zero([X.component(c) - e for c, e in want.items()]).is_zero is True


def test_knife_edge_exact_flow_against_mpmath_ode_of_the_vector_field():
    """The closed-form flow equals mpmath.odefun applied to the system's own (lambdified) vector field."""
    m, J = sp.Rational(3, 2), sp.Rational(1, 2)
    s = knife_edge(m, J)
    f = sp.lambdify(list(s.chart.coords), [s.vector_field.component(c) for c in s.chart.coords], modules="mpmath")
    with mpmath.workdps(17):
        y0 = blade_state(mpmath.mpf("0.3"), mpmath.mpf("-1.25"), mpmath.mpf("0.4"), lib=mpmath)
        y0[0], y0[1] = mpmath.mpf("0.5"), mpmath.mpf("-2")
        got, want = mpmath.odefun(lambda t, Y: f(*Y), 0, y0)(mpmath.mpf("0.5")), knife_edge_exact_flow(
            y0, mpmath.mpf("0.5"), m=m, J=J)
        assert max(abs(a - b) for a, b in zip(got, want)) < mpmath.mpf(10) ** -14
        # the straight line (omega = 0)
        y1 = blade_state(mpmath.mpf("1.1"), mpmath.mpf("2"), mpmath.mpf(0), lib=mpmath)
        got, want = mpmath.odefun(lambda t, Y: f(*Y), 0, y1)(mpmath.mpf("0.5")), knife_edge_exact_flow(
            y1, mpmath.mpf("0.5"), m=m, J=J)
        assert max(abs(a - b) for a, b in zip(got, want)) < mpmath.mpf(10) ** -14


def test_knife_edge_is_not_integrable_and_energy_is_kept_on_the_manifold():
    assert KNIFE.is_integrable().holds is False
    _S, iota = KNIFE.manifold()
    dH = sum(sp.diff(KNIFE.H, c) * KNIFE.vector_field.component(c) for c in KNIFE.chart.coords)
    assert decide_all_zero([substitute(dH, iota.substitution())]).is_zero is True


@pytest.mark.parametrize("rows, match", [
    ([[y, x, 1, 0]], "has 4 entries"),
    ([[px, 1, 0]], "depends on the momenta"),
    ([[0, 0, 0]], "is zero"),
    ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], "leave no motion"),
    ([[sp.sin(z), -sp.cos(z), 0], [2 * sp.sin(z), -2 * sp.cos(z), 0]], "singular everywhere"),
    ([], "no constraint"),
    (x, "k x n Matrix"),
    ([[sp.Matrix([1, 2]), 0, 0]], "not a scalar sympy expression"),
])
def test_bad_constraints_are_named_errors(rows, match):
    with pytest.raises(SystemDefinitionError, match=match):
        NonholonomicSystem((px**2 + py**2 + pz**2) / 2, [x, y, z], [px, py, pz], rows)


def test_parametrization_off_the_manifold_is_refused():
    S = KNIFE.manifold()[0]
    r = sp.Symbol("r")
    wrong = gc.Map(S, KNIFE.chart, [x, y, phi, r * sp.sin(phi), r * sp.cos(phi), pphi])
    with pytest.raises(SystemDefinitionError, match="does not land"):
        NonholonomicSystem(KNIFE.H, KNIFE.q, KNIFE.p, KNIFE.constraint_rows, parametrization=(S, wrong))


def test_rank_deficient_point_is_a_named_error_never_a_run():
    """A = (x, y, 0) vanishes on the z axis: the multiplier is undetermined there; integrate refuses the state."""
    s = NonholonomicSystem((px**2 + py**2 + pz**2) / 2, [x, y, z], [px, py, pz], [[x, y, 0]])
    with pytest.raises(InconsistentStateError, match="dependent"):
        s.check_state(np.array([0.0, 0.0, 1.0, 0.3, 0.2, 1.0]))
    with pytest.raises(InconsistentStateError, match="dependent"):
        ig.integrate(s, RATTLE, [0.0, 0.0, 1.0, 0.3, 0.2, 1.0], dt=0.1, steps=2)
    with pytest.raises(InconsistentStateError, match="not on the constraint manifold"):
        ig.integrate(KNIFE, RATTLE, [0.0, 0.0, 0.0, 0.0, 1.0, 0.0], dt=0.1, steps=2)


def test_integrable_constraint_in_disguise():
    """(1 + y^2)(x xdot + y ydot) = 0 is the holonomic pendulum: Frobenius says integrable, the field on the
    manifold is the holonomic one, and nonholonomic RATTLE keeps x^2 + y^2 itself (midpoint discrete constraint:
    f(q_mid) (|Q|^2 - |q|^2) = 0), which no ingredient of the scheme imposes by name."""
    f = 1 + y**2
    s = NonholonomicSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [[f * x, f * y]])
    assert s.is_integrable().holds is True
    pend = planar_pendulum()
    _S, iota = pend.manifold()
    sub = iota.substitution()
    diffs = [substitute(s.vector_field.component(c) - pend.vector_field.component(c), sub) for c in s.chart.coords]
    assert decide_all_zero(diffs).is_zero is True
    # a Frobenius test that checked d alpha = 0 would say "not integrable" here: y dx - x dy has d alpha != 0
    s3 = NonholonomicSystem((px**2 + py**2 + pz**2) / 2, [x, y, z], [px, py, pz], [[y * sp.exp(z), -x * sp.exp(z), 0]])
    assert s3.is_integrable().holds is True
    sol = ig.integrate(s, RATTLE, [0.6, -0.8, 0.8, 0.6], dt=0.05, steps=400, save_every=400)
    r2 = sol.y[:, 0] ** 2 + sol.y[:, 1] ** 2
    assert np.abs(r2 - 1).max() < 1e-13
    assert np.abs(sol.evaluate(list(s.hidden_constraints))[0]).max() < 1e-13


def test_schemes_refuse_other_systems():
    pend = planar_pendulum()
    with pytest.raises(SchemeNotApplicableError, match="NonholonomicSystem"):
        RATTLE.step_map(pend)
    coupled = NonholonomicSystem((px**2 + py**2) * (1 + x**2) / 2, [x, y], [px, py], [[1, x]])
    assert "couples positions and momenta" in RATTLE.why_not(coupled)


# ----------------------------------------------------------------------------- certificates


def test_rattle_certificates_on_the_knife_edge():
    """Order exactly 2 on N; symmetric on N; the momentum constraint holds identically after the step."""
    assert RATTLE.observed_order(KNIFE, 3) == 2
    certs = RATTLE.certify(KNIFE, ["symmetric", "constraint-preserving", "symplectic"])
    assert certs["symmetric"].holds is True
    assert certs["constraint-preserving"].holds is True and certs["constraint-preserving"].stage == "exact"
    assert "symplectic" not in certs and "symplectic" not in RATTLE.properties


def test_energy_not_exact_with_a_potential():
    """(The free knife edge's exact energy conservation is the doctest of certify_energy_on_manifold.)"""
    pot = knife_edge(potential=x**2 / 2)
    c = certify_energy_on_manifold(RATTLE.step_map(pot), pot)
    assert c.holds is False and c.counterexample is not None
    assert "energy-preserving" not in RATTLE.properties


def test_start_variant_is_not_symmetric_certificate():
    c = START.certify(KNIFE, ["symmetric"])["symmetric"]
    assert c.holds is False and c.counterexample is not None
    assert START.observed_order(KNIFE, 2) == 1


def knife_step_numpy(Y, h, at="midpoint"):
    """One knife-edge step (m = J = 1, no potential), written directly from the scheme's equations in numpy."""
    x0, y0, f0, p = Y[0], Y[1], Y[2], np.array(Y[3:5])
    w = Y[5]
    a = lambda t: np.array([np.sin(t), -np.cos(t)])
    where = f0 + h * w / 2 if at == "midpoint" else f0        # phi at the discrete constraint
    # p_half = p - Lambda a(phi_0) with a(where) . p_half = 0 (p_phi is untouched: phi moves at the rate w)
    lam = a(where) @ p / (a(where) @ a(f0))
    ph = p - lam * a(f0)
    f1 = f0 + h * w
    q1 = np.array([x0, y0]) + h * ph
    p1 = ph - (a(f1) @ ph) * a(f1)                            # A H_pp A^T = |a|^2 = 1
    return np.array([q1[0], q1[1], f1, p1[0], p1[1], w])


def test_reversibility_by_plain_numpy_and_agreement_with_the_lowered_step():
    Y0 = np.array(blade_state(0.7, 1.3, 0.9))
    for at, sch in (("midpoint", RATTLE), ("start", START)):
        one = ig.integrate(KNIFE, sch, Y0, dt=0.1, steps=1).y[-1]
        assert np.abs(one - knife_step_numpy(Y0, 0.1, at)).max() < 1e-14
    back = knife_step_numpy(knife_step_numpy(Y0, 0.1, "midpoint"), -0.1, "midpoint")
    assert np.abs(back - Y0).max() < 1e-15
    back = knife_step_numpy(knife_step_numpy(Y0, 0.1, "start"), -0.1, "start")
    assert np.abs(back - Y0).max() > 1e-3                    # the start variant is not symmetric


def test_discrete_dirac_is_first_order_and_leaves_the_manifold():
    c = DIRAC.certify(KNIFE, ["order"])["order"]
    assert c.holds is True
    assert DIRAC.certify(KNIFE, ["constraint-preserving"])["constraint-preserving"].holds is not True
    sol = ig.integrate(KNIFE, DIRAC, blade_state(0.7, 1.3, 0.9), dt=0.1, steps=3, save_every=1)
    drift = np.abs(sol.evaluate(list(KNIFE.hidden_constraints))[0])
    assert drift[1] > 1e-2                                   # p_{k+1} is along the old blade
    speed = np.hypot(sol.y[:, 3], sol.y[:, 4])               # from the second step on, |p| shrinks by cos(h omega)
    assert np.abs(speed[2:] / speed[1:-1] - np.cos(0.1 * 0.9)).max() < 1e-14


# ----------------------------------------------------------------------------- numbers


def test_orders_at_60_digits_small():
    """Errors at t = 1 against the exact flow, h = 1/8 and 1/16: rates 2 (RATTLE) and 1 (discrete Dirac)."""
    with mpmath.workdps(70):
        y0 = blade_state(mpmath.mpf("0.5"), mpmath.mpf("1.5"), mpmath.mpf("0.75"), lib=mpmath)
        exact = knife_edge_exact_flow(y0, 1, dps=70)
    rates = {}
    for sch in (RATTLE, DIRAC):
        e = []
        for N in (8, 16):
            sol = ig.integrate(KNIFE, sch, y0, dt=Fraction(1, N), steps=N, save_every=N, backend="mpmath", dps=60)
            e.append(max(abs(mpmath.mpf(a) - b) for a, b in zip(sol.y[-1], exact)))
        rates[sch.name] = float(mpmath.log(e[0] / e[1], 2))
    assert abs(rates["nonholonomic-rattle"] - 2) < 0.05
    assert abs(rates["nonholonomic-discrete-dirac"] - 1) < 0.1


def test_constraint_and_energy_at_rounding_level():
    steps = 2000
    sol = ig.integrate(KNIFE, RATTLE, [blade_state(0.7, 1.3, 0.9), blade_state(-2.0, 0.5, -3.0)], dt=0.01,
                       steps=steps, save_every=100)
    c = np.abs(sol.evaluate(list(KNIFE.hidden_constraints))[0]).max()
    dE = np.abs(sol.energy() - sol.energy()[0]).max()
    eps = np.finfo(float).eps
    assert c < 10 * eps and dE < 10 * eps * steps


def test_constraint_drift_of_a_velocity_constrained_run():
    """Solution.constraint_drift on a system with velocity constraints only: no position part (0),
    the velocity constraint at rounding level."""
    import integrators as ig

    sol = ig.integrate(ig.knife_edge(), "nonholonomic-rattle", [0.0, 0.0, 0.0, 1.5, 0.0, 0.5], dt=0.01, steps=50)
    g, c = sol.constraint_drift()
    assert g.shape == c.shape == (len(sol.t),) and not g.any()
    assert 0 <= c.max() < 1e-14
