"""Poisson systems (free rigid body, Lotka-Volterra) and their schemes: certificates and runs.

Reference values are computed here independently: Euler's equations written out as a cross
product, the implicit midpoint rule's derivative by hand in mpmath, RK4 by hand in mpmath, and
the exact flow by mpmath's Taylor-series solver (ig_cases_poisson.exact_flow).
"""

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.errors import InvalidArgumentError, NotACasimirError, NotAPoissonStructureError
from integrators.errors import SchemeNotApplicableError, SystemDefinitionError
from integrators.schemes.lie_poisson import LotkaVolterraSplitting, RigidBodySplitting
from integrators.systems.poisson import PoissonSystem, lotka_volterra, rigid_body

import ig_cases_lotka_volterra_splitting as lv_cases
import ig_cases_poisson as rb_cases

h = sp.Symbol("h")
I1, I2, I3 = sp.symbols("I1 I2 I3", positive=True)


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


# ------------------------------------------------------------------------------------ systems


def test_rigid_body_field_is_m_cross_inverse_inertia_m():
    S = rigid_body()
    m = list(S.coords)
    expected = cross(m, [m[0] / I1, m[1] / I2, m[2] / I3])
    assert all(sp.expand(S.vector_field.component(x) - e) == 0 for x, e in zip(m, expected))
    assert S.kind == "poisson" and S.casimirs == (m[0]**2 + m[1]**2 + m[2]**2,)
    assert all(c.holds for c in S.casimir_certificates())
    assert S.density_certificate().holds is True


def test_lotka_volterra_is_hlws_system():
    S = lotka_volterra()
    u, v = S.coords
    assert sp.expand(S.vector_field.component(u) - u * (v - 2)) == 0
    assert sp.expand(S.vector_field.component(v) - v * (1 - u)) == 0
    assert S.density_certificate().holds is True


def test_bad_systems_are_refused():
    q, p = sp.symbols("q p")
    with pytest.raises(NotAPoissonStructureError):
        PoissonSystem(q, [q, p], [[0, 1], [1, 0]])
    m1, m2, m3 = sp.symbols("m1 m2 m3")
    with pytest.raises(NotAPoissonStructureError):
        PoissonSystem(m1, [m1, m2, m3], [[0, m2, 0], [-m2, 0, 1], [0, -1, 0]])
    with pytest.raises(NotACasimirError):
        PoissonSystem(m1**2, [m1, m2, m3], [[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]], casimirs=[m1])
    with pytest.raises(InvalidArgumentError):
        PoissonSystem(q, [q, p], [[0, 1, 0], [-1, 0, 0], [0, 0, 0]])
    with pytest.raises(SystemDefinitionError):
        rigid_body(1.5, 1, 1)
    with pytest.raises(SystemDefinitionError):
        rigid_body(0, 1, 1)
    with pytest.raises(SchemeNotApplicableError):
        RigidBodySplitting().step_map(lotka_volterra())
    with pytest.raises(SchemeNotApplicableError):
        LotkaVolterraSplitting().step_map(rigid_body())
    assert RigidBodySplitting().why_not(ig.HamiltonianSystem(p**2 / 2, q, p)) is not None


# ------------------------------------------------------------------------------- certificates


def test_rigid_body_splitting_declared_properties_are_certified_on_the_generic_body():
    s = RigidBodySplitting()
    certs = s.certify(rb_cases.GENERIC)
    assert set(certs) == {"order", *s.properties}
    assert all(c.holds is True for c in certs.values()), {k: c.method for k, c in certs.items()}
    # energy is not conserved by the splitting: refuted
    assert s.certify(rb_cases.GENERIC, ["energy-preserving"])["energy-preserving"].holds is False


def test_lotka_volterra_splitting_declared_properties_on_any_separable_hamiltonian():
    s = LotkaVolterraSplitting()
    certs = s.certify(lv_cases.GENERIC)
    assert set(certs) == {"order", *s.properties}
    assert all(c.holds is True for c in certs.values()), {k: c.method for k, c in certs.items()}
    # for dx (density 1) it is not volume-preserving: the sub-flow v <- v exp(-h u F'(u)) stretches v
    from geomcheck.certify.poisson import certify_volume_preserving
    assert certify_volume_preserving(s.step_map(lv_cases.GENERIC)).holds is False


def midpoint_poisson_residual(point, moments, dps=50, want="poisson"):
    """max |D phi P D phi^T - P(phi)| of the midpoint rule of Euler's equations, by hand in mpmath.

    phi(m) = m + h f((m + M)/2) with f(m) = m x I^{-1} m; D phi = (1 - h/2 A)^{-1} (1 + h/2 A),
    A = f'((m + M)/2), from differentiating the defining equation.
    """
    with mpmath.workdps(dps):
        inv = [1 / mpmath.mpf(sp.Rational(I).p) * sp.Rational(I).q for I in moments]
        m0 = mpmath.matrix([mpmath.mpf(sp.Rational(x).p) / sp.Rational(x).q for x in point["m"]])
        step = mpmath.mpf(sp.Rational(point["h"]).p) / sp.Rational(point["h"]).q

        def f(y):
            w = [y[0] * inv[0], y[1] * inv[1], y[2] * inv[2]]
            return mpmath.matrix(cross([y[0], y[1], y[2]], w))

        M = mpmath.findroot(lambda a, b, c: list(mpmath.matrix([a, b, c]) - m0 - step * f((m0 + mpmath.matrix([a, b, c])) / 2)),
                            list(m0))
        y = (m0 + M) / 2
        A = mpmath.matrix(3, 3)
        for j in range(3):
            e = mpmath.matrix(3, 1)
            e[j] = 1
            # f is quadratic: its derivative along e is exact by polarization
            col = (f(y + e) - f(y - e)) / 2
            for i in range(3):
                A[i, j] = col[i]
        one = mpmath.eye(3)
        D = mpmath.inverse(one - step / 2 * A) * (one + step / 2 * A)
        if want == "det":
            return mpmath.det(D)

        def hat(x):
            return mpmath.matrix([[0, -x[2], x[1]], [x[2], 0, -x[0]], [-x[1], x[0], 0]])

        R = D * hat(m0) * D.T - hat(M)
        return max(abs(R[i, j]) for i in range(3) for j in range(3))


def test_implicit_midpoint_is_not_poisson_for_the_rigid_body_but_keeps_the_casimir():
    mid = ig.scheme("implicit-midpoint")
    S = rb_cases.GENERIC
    # refuted for the moments (2, 1, 2/3), hence for symbolic moments too (cheaper than the generic body)
    c = mid.certify(rb_cases.CONCRETE, ["poisson"])["poisson"]
    assert c.holds is False
    cx = c.counterexample
    point = {"m": [cx["m1"], cx["m2"], cx["m3"]], "h": cx["h"]}
    assert midpoint_poisson_residual(point, rb_cases.MOMENTS) > mpmath.mpf(10) ** -30
    # at a second, independent point as well (the residual is O(h^3), AKW 1993)
    assert midpoint_poisson_residual({"m": [1, sp.Rational(1, 2), -2], "h": sp.Rational(1, 4)},
                                     [2, 1, sp.Rational(2, 3)]) > mpmath.mpf(10) ** -6
    # nor does it keep the volume dm (divergence-free field, but det D phi != 1), confirmed by hand
    vol = mid.certify(rb_cases.CONCRETE, ["volume-preserving"])["volume-preserving"]
    assert vol.holds is False
    cx = vol.counterexample
    det = midpoint_poisson_residual({"m": [cx["m1"], cx["m2"], cx["m3"]], "h": cx["h"]}, rb_cases.MOMENTS,
                                    want="det")
    assert abs(det - 1) > mpmath.mpf(10) ** -30
    # the quadratic Casimir and energy are kept (a midpoint rule keeps quadratic invariants)
    kept = mid.certify(S, ["casimir-preserving", "energy-preserving"])
    assert kept["casimir-preserving"].holds is True and kept["energy-preserving"].holds is True


def test_explicit_euler_is_not_poisson_and_rk4_does_not_keep_the_casimir():
    S = rb_cases.GENERIC
    e = ig.scheme("explicit-euler").certify(S, ["poisson"])["poisson"]
    assert e.holds is False
    rk4 = ig.scheme("rk4")
    c = rk4.certify(S, ["casimir-preserving"])["casimir-preserving"]
    assert c.holds is False
    # RK4 by hand in mpmath at the counterexample: |m|^2 changes
    with mpmath.workdps(50):
        val = lambda k: mpmath.mpf(sp.Rational(c.counterexample[k]).p) / sp.Rational(c.counterexample[k]).q
        inv = [1 / val("I1"), 1 / val("I2"), 1 / val("I3")]
        f = lambda y: mpmath.matrix(cross(list(y), [y[0] * inv[0], y[1] * inv[1], y[2] * inv[2]]))
        y = mpmath.matrix([val("m1"), val("m2"), val("m3")])
        hh = val("h")
        k1 = f(y); k2 = f(y + hh / 2 * k1); k3 = f(y + hh / 2 * k2); k4 = f(y + hh * k3)
        y1 = y + hh / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        assert abs(sum(x**2 for x in y1) - sum(x**2 for x in y)) > mpmath.mpf(10) ** -40


# ------------------------------------------------------------------------------------------ runs


def test_splitting_keeps_the_casimir_to_rounding_over_ten_thousand_steps():
    sol = ig.integrate(rb_cases.CONCRETE, RigidBodySplitting(), rb_cases.INITIAL, dt=0.1, steps=10_000,
                       save_every=100, progress=False)
    C = (sol.y**2).sum(axis=-1)
    assert np.abs(C - C[0]).max() < 1e-12
    E = sol.energy()
    assert np.abs(E - E[0]).max() < 5e-3          # bounded, O(h^2), no drift
    # and the energy error of the second half is not larger than of the first (no drift)
    half = E.shape[0] // 2
    assert np.abs(E[half:] - E[0]).max() < 2 * np.abs(E[:half] - E[0]).max() + 1e-12


def test_numeric_step_equals_the_symbolic_map():
    for cases, scheme in ((rb_cases, RigidBodySplitting()), (lv_cases, LotkaVolterraSplitting())):
        S = cases.CONCRETE
        phi = scheme.step_map(S)
        y0 = cases.INITIAL[0]
        sol = ig.integrate(S, scheme, y0, dt=0.125, steps=1, save_every=1, progress=False)
        point = {**dict(zip(S.coords, [sp.Rational(x) for x in y0])), h: sp.Rational(1, 8)}
        exact = [sp.N(e.subs(point), 30) for e in phi.exprs]
        assert np.allclose(sol.y[-1], [float(x) for x in exact], rtol=0, atol=1e-14)


@pytest.mark.parametrize("cases, scheme", [(rb_cases, RigidBodySplitting()), (lv_cases, LotkaVolterraSplitting())])
def test_order_two_against_mpmath_reference(cases, scheme):
    y0, T = cases.INITIAL[0], 0.5
    ref = np.array([float(x) for x in cases.exact_flow(y0, T, 25)])
    errors = []
    for n in (10, 20, 40):
        sol = ig.integrate(cases.CONCRETE, scheme, y0, dt=T / n, steps=n, save_every=n, progress=False)
        errors.append(np.abs(sol.y[-1] - ref).max())
    rates = [np.log2(errors[k] / errors[k + 1]) for k in range(2)]
    assert all(1.85 < r < 2.15 for r in rates), rates


def test_implicit_midpoint_runs_on_a_poisson_system():
    sol = ig.integrate(rb_cases.CONCRETE, "implicit-midpoint", rb_cases.INITIAL[0], dt=0.1, steps=200,
                       save_every=50, progress=False)
    C = (sol.y**2).sum(axis=-1)
    assert np.abs(C - C[0]).max() < 1e-12
    assert np.abs(sol.energy() - sol.energy()[0]).max() < 1e-12


def test_lotka_volterra_run_keeps_the_invariant_bounded():
    sol = ig.integrate(lv_cases.CONCRETE, LotkaVolterraSplitting(), lv_cases.INITIAL, dt=0.1, steps=2000,
                       save_every=20, progress=False)
    E = sol.energy()
    assert np.all(sol.y > 0)
    assert np.abs(E - E[0]).max() < 1e-2


def test_divergence_free_splitting_case_each_sub_field_keeps_the_density():
    """The splitting case: each part's field is divergence-free for rho = 1/(u v), so every sub-flow
    and their composite keep rho du dv (while du dv is not kept)."""
    import geomcheck as gc
    from geomcheck.certify.poisson import certify_divergence_free, certify_volume_preserving
    from integrators.schemes.lie_poisson import lotka_volterra_flows

    S = lv_cases.GENERIC
    u, v = S.coords
    rho = 1 / (u * v)
    for part in (lv_cases.F(u), lv_cases.G(v)):
        field = [u * v * sp.diff(part, v), -u * v * sp.diff(part, u)]
        assert sp.simplify(sp.diff(rho * field[0], u) + sp.diff(rho * field[1], v)) == 0   # by hand
        assert certify_divergence_free(gc.VectorField(S.chart, field), rho).holds is True
    for flow in lotka_volterra_flows(S, h):
        assert certify_volume_preserving(flow, rho).holds is True
    assert certify_divergence_free(S.vector_field).holds is False
