"""Variational integrators run by the integrators (integrators.schemes.variational).

References: the catalog's implicit-midpoint, stormer-verlet, gauss-legendre-4 and
lobatto-iiia-iiib-2/3 on the Hamiltonian of the same mechanics (the variational maps must coincide with them, Marsden-West
Sec. 2.2 and 2.6, HLW VI.6), mpmath's Taylor solver for the exact flow, and the angular momentum
x p_y - y p_x written in the test.
"""

import dataclasses

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.structures.variational import quadrature_rule
from integrators.errors import SchemeNotApplicableError, SystemDefinitionError
from integrators.schemes.variational import VariationalScheme
from integrators.systems.lagrangian import LagrangianSystem

from ig_cases_lagrangian import CONCRETE, GENERIC, INITIAL, exact_flow

q, v, p = sp.symbols("q v p")
x, y, u, w = sp.symbols("x y u w")
NAMES = {"midpoint": "variational-midpoint", "trapezoidal": "variational-trapezoidal",
         ("lobatto", 3): "galerkin-lobatto-3", ("gauss", 2): "galerkin-gauss-2"}


@pytest.mark.parametrize("quad", list(NAMES), ids=list(NAMES.values()))
def test_declared_order_and_properties_are_certified_on_the_generic_system(quad):
    """V undefined.  All declared properties for the two-point rules (about 1 s each); for the
    Galerkin rules order and symplecticity here (1 s) and symmetry in the catalog-wide tests
    (1.5-2 s each)."""
    s = VariationalScheme(quad)
    assert s.name == NAMES[quad]
    wanted = ["order", "symplectic", "symmetric"] if s.rule.degree == 1 else ["order", "symplectic"]
    if quad == ("gauss", 2):
        wanted = ["order"]
    certs = s.certify(GENERIC, properties=wanted)
    assert {k: c.holds for k, c in certs.items()} == dict.fromkeys(wanted, True)
    assert s.observed_order(GENERIC) == s.order


def test_the_system_and_the_scheme_refuse_what_they_cannot_do():
    with pytest.raises(SystemDefinitionError, match="affine"):
        LagrangianSystem(sp.cosh(v), q, v)
    with pytest.raises(SystemDefinitionError, match="degenerate"):
        LagrangianSystem(q * v, q, v)
    with pytest.raises(SystemDefinitionError):
        LagrangianSystem(v**2 / 2, q, [v, w])
    with pytest.raises(SystemDefinitionError):
        LagrangianSystem(v**2 / 2, q, v, forcing=[-v, -v])
    with pytest.raises(SchemeNotApplicableError, match="Lagrangian"):
        VariationalScheme().step_map(ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p))
    assert VariationalScheme("midpoint") == VariationalScheme(order=2)
    assert VariationalScheme("midpoint") != VariationalScheme("trapezoidal")


def _one_step(system, scheme, y0, dt, backend="numpy"):
    kw = {"dps": 30} if backend == "mpmath" else {}
    sol = ig.integrate(system, scheme, [y0], dt=dt, steps=1, save_every=1, backend=backend, **kw)
    return np.array(sol.y[-1, 0], dtype=object if backend == "mpmath" else float)


def test_trapezoidal_is_stormer_verlet_on_the_pendulum():
    """Same numbers at 30 digits (mpmath) from the Lagrangian and from H = p^2/2 - cos q."""
    H = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    for y0 in INITIAL:
        a = _one_step(CONCRETE, VariationalScheme("trapezoidal"), y0, "0.25", "mpmath")
        b = _one_step(H, "stormer-verlet", y0, "0.25", "mpmath")
        assert max(abs(ai - bi) for ai, bi in zip(a, b)) < mpmath.mpf(10)**-24, y0


@pytest.mark.parametrize("quad, catalog", [("midpoint", "implicit-midpoint"), (("gauss", 2), "gauss-legendre-4"),
                                           (("lobatto", 2), "lobatto-iiia-iiib-2"),
                                           (("lobatto", 3), "lobatto-iiia-iiib-3")])
def test_galerkin_maps_are_the_catalog_methods_for_a_position_dependent_mass(quad, catalog):
    """Marsden-West Sec. 2.6, HLW VI.6: Galerkin with s Gauss nodes is Gauss collocation, with s
    Lobatto nodes (degree s curves) Lobatto IIIA-IIIB; checked on the non-separable
    L = (1 + q^2) v^2/2 - cos q against the catalog on H = p^2/(2 (1 + q^2)) + cos q (30 digits),
    and the degree-1 trapezoidal rule is a different map there."""
    s = LagrangianSystem((1 + q**2) * v**2 / 2 - sp.cos(q), q, v)
    H = ig.HamiltonianSystem(p**2 / (2 * (1 + q**2)) + sp.cos(q), q, p)
    a = _one_step(s, VariationalScheme(quad), [0.75, -0.5], "0.2", "mpmath")
    b = _one_step(H, catalog, [0.75, -0.5], "0.2", "mpmath")
    assert max(abs(ai - bi) for ai, bi in zip(a, b)) < mpmath.mpf(10)**-24
    if quad == ("lobatto", 3):
        # curves of degree s - 1 instead of s: another (symmetric, variational) map
        low = dataclasses.replace(quadrature_rule(quad), degree=2, name="lobatto-3-degree-2")
        scheme = VariationalScheme(low)
        assert scheme.name == "galerkin-lobatto-3-degree-2"
        t = _one_step(s, scheme, [0.75, -0.5], "0.2", "mpmath")
        assert max(abs(ai - bi) for ai, bi in zip(t, b)) > 1e-8
    if quad == ("lobatto", 2):
        t = _one_step(s, VariationalScheme("trapezoidal"), [0.75, -0.5], "0.2", "mpmath")
        assert max(abs(ai - bi) for ai, bi in zip(t, b)) > 1e-6


@pytest.mark.parametrize("quad", ["midpoint", ("lobatto", 3)])
def test_order_measured_against_the_exact_flow_at_30_digits(quad):
    """Global error at T = 0.5 with dt = 1/8 and 1/16: ratio 2^order within 15% (about 1 s)."""
    scheme = VariationalScheme(quad)
    y0 = INITIAL[0]
    exact = exact_flow(y0, 0.5, 30)
    errs = []
    for n in (4, 8):
        sol = ig.integrate(CONCRETE, scheme, [y0], dt=sp.Rational(1, 2 * n), steps=n, save_every=n,
                           backend="mpmath", dps=30)
        errs.append(max(abs(sol.y[-1, 0][i] - exact[i]) for i in range(2)))
    ratio = errs[0] / errs[1]
    assert abs(ratio / 2**scheme.order - 1) < 0.15, (scheme.name, ratio)


def test_kepler_angular_momentum_to_rounding_and_bounded_energy():
    """1000 steps of the midpoint rule on an eccentric orbit (about 1 s; 1e4 steps in the benchmark)."""
    K = LagrangianSystem((u**2 + w**2) / 2 + 1 / sp.sqrt(x**2 + y**2), [x, y], [u, w])
    sol = ig.integrate(K, VariationalScheme("midpoint"), [[1.0, 0.0, 0.0, 1.2]], dt=0.05, steps=1000,
                       save_every=10)
    Y = sol.y[:, 0, :]
    J = Y[:, 0] * Y[:, 3] - Y[:, 1] * Y[:, 2]
    assert np.abs(J - J[0]).max() < 200 * np.finfo(float).eps * abs(J[0])
    E = sol.energy()[:, 0]
    assert np.abs(E - E[0]).max() < 0.05 * abs(E[0])


def test_double_pendulum_runs_with_bounded_energy():
    t1, t2, o1, o2 = sp.symbols("theta1 theta2 omega1 omega2")
    L = o1**2 + o2**2 / 2 + o1 * o2 * sp.cos(t1 - t2) + 2 * sp.cos(t1) + sp.cos(t2)
    s = LagrangianSystem(L, [t1, t2], [o1, o2])
    sol = ig.integrate(s, VariationalScheme("trapezoidal"), [[1.0, -0.5, 0.0, 0.0]], dt=0.02, steps=500,
                       save_every=50)
    E = sol.energy()[:, 0]
    assert np.isfinite(sol.y).all()
    assert np.abs(E - E[0]).max() < 1e-2 * abs(E[0])


def test_damped_pendulum_trapezoidal_contracts_areas_by_the_certified_factor():
    """The Jacobian determinant of one numeric step (finite differences at 30 digits) equals
    (2 - gamma h)/(2 + gamma h), the factor certified in the engine's tests."""
    s = LagrangianSystem(v**2 / 2 + sp.cos(q), q, v, forcing=[-v / 5])
    scheme = VariationalScheme("trapezoidal")
    eps = mpmath.mpf(10)**-12
    with mpmath.workdps(30):
        y0 = [mpmath.mpf("1.0"), mpmath.mpf("0.5")]
        base = _one_step(s, scheme, y0, "0.1", "mpmath")
        cols = []
        for k in range(2):
            yk = list(y0)
            yk[k] += eps
            cols.append([(a - b) / eps for a, b in zip(_one_step(s, scheme, yk, "0.1", "mpmath"), base)])
        det = cols[0][0] * cols[1][1] - cols[0][1] * cols[1][0]
        k = (2 - mpmath.mpf("0.02")) / (2 + mpmath.mpf("0.02"))
        assert abs(det - k) < 1e-9
