"""integrate(): shapes, saving, determinism, ensembles, backends, energy, contact systems, bad input."""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.errors import GeomcheckError, InvalidArgumentError, ShapeError
from integrators.errors import (NotLowerableError, SchemeNotApplicableError, SystemDefinitionError,
                                UnknownSchemeError)
from ig_cases import concrete_for, initial_for

q, p, x, z, t, lam = sp.symbols("q p x z t lambda")
NAMES = ig.list_schemes()


def test_shapes_and_times(pendulum):
    sol = ig.integrate(pendulum, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=25, save_every=10)
    assert sol.y.shape == (4, 2) and np.allclose(sol.t, [0, 1.0, 2.0, 2.5])     # the last step is saved too
    assert sol.energy().shape == (4,)
    sol = ig.integrate(pendulum, "stormer-verlet", np.zeros((5, 2)) + [1.0, 0.0], dt=0.1, steps=20, save_every=10)
    assert sol.y.shape == (3, 5, 2) and sol.t.shape == (3,) and sol.energy().shape == (3, 5)
    sol = ig.integrate(pendulum, "rk4", [1.0, 0.0], steps=0)
    assert sol.y.shape == (1, 2) and np.array_equal(sol.y[0], [1.0, 0.0])
    sol = ig.integrate(pendulum, "rk4", [1.0, 0.0], dt=0.5, steps=3, save_every=1, t0=2)
    assert np.allclose(sol.t, [2, 2.5, 3, 3.5])


def test_runs_are_deterministic(pendulum):
    y0 = np.random.default_rng(0).uniform(-1, 1, size=(7, 2))
    a = ig.integrate(pendulum, "gauss-legendre-4", y0, dt=0.1, steps=30)
    b = ig.integrate(pendulum, "gauss-legendre-4", y0, dt=0.1, steps=30)
    assert np.array_equal(a.y, b.y)


@pytest.mark.parametrize("name", NAMES)
def test_ensemble_equals_single_runs(name):
    system = concrete_for(name)
    y0 = np.array(initial_for(name))
    ens = ig.integrate(system, name, y0, dt=0.1, steps=12, save_every=4)
    for b in range(3):
        one = ig.integrate(system, name, y0[b], dt=0.1, steps=12, save_every=4)
        assert np.abs(ens.y[:, b, :] - one.y).max() <= 1e-15, name
        assert np.abs(ens.energy()[:, b] - one.energy()).max() <= 1e-15


def test_mpmath_backend(pendulum):
    sol = ig.integrate(pendulum, "gauss-legendre-4", [["1", "0.5"], [2, 0]], dt="0.1", steps=10, save_every=5,
                       backend="mpmath", dps=30)
    assert sol.y.dtype == object and sol.y.shape == (3, 2, 2)
    assert all(isinstance(v, mpmath.mpf) for v in sol.y.flat) and isinstance(sol.t[1], mpmath.mpf)
    assert sol.energy().dtype == object and sol.energy().shape == (3, 2)
    num = ig.integrate(pendulum, "gauss-legendre-4", [[1, 0.5], [2, 0]], dt=0.1, steps=10, save_every=5)
    assert np.abs(sol.y.astype(float) - num.y).max() < 1e-13
    # energy conserved by the symplectic scheme to its own accuracy at high precision
    E = sol.energy()
    assert abs(E[-1, 0] - E[0, 0]) < 1e-5
    single = ig.integrate(pendulum, "explicit-euler", [1, 0], dt=sp.Rational(1, 4), steps=2, backend="mpmath")
    assert single.y.shape == (2, 2) and single.dps == 50


def test_parameters_from_system_and_from_params():
    s = ig.HamiltonianSystem(p**2 / 2 + lam * q**2 / 2, q, p, parameters={lam: 4})
    a = ig.integrate(s, "implicit-midpoint", [1.0, 0.0], dt=0.01, steps=100, save_every=100)
    assert abs(a.y[-1, 0] - math.cos(2.0)) < 1e-4                 # omega = 2
    b = ig.integrate(s, "implicit-midpoint", [1.0, 0.0], dt=0.01, steps=100, save_every=100, params={"lambda": 1})
    assert abs(b.y[-1, 0] - math.cos(1.0)) < 1e-4
    free = ig.HamiltonianSystem(p**2 / 2 + lam * q**2 / 2, q, p)
    with pytest.raises(InvalidArgumentError, match="lambda"):
        ig.integrate(free, "rk4", [1.0, 0.0])
    with pytest.raises(InvalidArgumentError, match="not a constant"):
        ig.integrate(free, "rk4", [1.0, 0.0], params={"mu": 1, "lambda": 1})


def test_contact_system_damped_oscillator():
    """H = p^2/2 + x^2/2 + gamma z: x'' + gamma x' + x = 0 (the contact picture of damping)."""
    g = sp.Rational(1, 5)
    damped = ig.ContactSystem(p**2 / 2 + x**2 / 2 + g * z, x, p, z)
    sol = ig.integrate(damped, "rk4", [1.0, 0.0, 0.0], dt=0.01, steps=500, save_every=500)
    w = math.sqrt(1 - 0.01)
    exact = math.exp(-0.1 * 5) * (math.cos(w * 5) + 0.1 / w * math.sin(w * 5))
    assert abs(sol.y[-1, 0] - exact) < 1e-9
    assert sol.energy().shape == (2,)


def test_time_dependent_contact_system():
    """x' = p, p' = -x - cos(t) p: the stages see t + c_i h (checked against a fine RK4 run)."""
    forced = ig.ContactSystem(p**2 / 2 + x**2 / 2 + sp.cos(t) * z, x, p, z, t=t)
    coarse = ig.integrate(forced, "gauss-legendre-4", [1.0, 0.0, 0.0], dt=0.05, steps=40, save_every=40)
    fine = ig.integrate(forced, "rk4", [1.0, 0.0, 0.0], dt=0.005, steps=400, save_every=400)
    assert np.abs(coarse.y[-1] - fine.y[-1]).max() < 1e-7
    assert np.allclose(coarse.t, [0, 2.0])
    E = coarse.energy()                                             # H depends on t: evaluated at sol.t
    assert abs(E[-1] - (coarse.y[-1, 1]**2 / 2 + coarse.y[-1, 0]**2 / 2 + math.cos(2.0) * coarse.y[-1, 2])) < 1e-14


# ------------------------------------------------------------------------ bad input


def bad(pendulum, **kw):
    args = dict(system=pendulum, scheme="stormer-verlet", y0=[1.0, 0.0], dt=0.1, steps=10)
    args.update(kw)
    return ig.integrate(args.pop("system"), args.pop("scheme"), args.pop("y0"), **args)


@pytest.mark.parametrize("y0, match", [
    ([1.0, 0.0, 0.0], r"shape \(3,\)"),
    ([[1.0], [0.0]], r"shape \(2, 1\)"),
    (np.zeros((2, 2, 2)), "shape"),
    (1.0, "shape"),
    (np.zeros((0, 2)), "shape"),
    ([["a", 0.0]], "numbers"),
])
def test_bad_y0_shape(pendulum, y0, match):
    with pytest.raises(ShapeError, match=match):
        bad(pendulum, y0=y0)


@pytest.mark.parametrize("y0", [[math.nan, 0.0], [[1.0, 0.0], [0.0, math.inf]], [1.0, -math.inf]])
def test_non_finite_y0(pendulum, y0):
    with pytest.raises(InvalidArgumentError, match="non-finite") as info:
        bad(pendulum, y0=y0)
    assert isinstance(info.value, ValueError)
    with pytest.raises(InvalidArgumentError, match="non-finite"):
        bad(pendulum, y0=y0, backend="mpmath", dps=20)


@pytest.mark.parametrize("dt, match", [(0, "positive"), (-0.1, "positive"), (math.nan, "finite"),
                                       (math.inf, "finite"), ("0.1", "number"), (1j, "real"), (True, "real")])
def test_bad_dt(pendulum, dt, match):
    with pytest.raises(InvalidArgumentError, match=match):
        bad(pendulum, dt=dt)


def test_bad_dt_mpmath(pendulum):
    for dt in (0, "-0.1", "nan", "inf"):
        with pytest.raises(InvalidArgumentError):
            bad(pendulum, dt=dt, backend="mpmath", dps=20)


@pytest.mark.parametrize("kw, match", [
    (dict(steps=-1), "steps"), (dict(steps=2.5), "steps"), (dict(steps=True), "steps"),
    (dict(save_every=0), "save_every"), (dict(save_every=-3), "save_every"),
    (dict(backend="mpmath", dps=10), "at least 15"), (dict(backend="mpmath", dps=14.5), "dps"),
    (dict(backend="numpy", dps=30), "mpmath. only"), (dict(backend="cuda"), "backend"),
])
def test_bad_counts_and_options(pendulum, kw, match):
    with pytest.raises(InvalidArgumentError, match=match):
        bad(pendulum, **kw)


def test_unknown_scheme_lists_known_ones(pendulum):
    with pytest.raises(UnknownSchemeError) as info:
        bad(pendulum, scheme="verlet-17")
    assert all(n in str(info.value) for n in NAMES)


def test_scheme_that_does_not_apply(pendulum):
    coupled = ig.HamiltonianSystem(p**2 * (2 + sp.cos(q)) / 2, q, p)
    with pytest.raises(SchemeNotApplicableError, match="separable"):
        bad(pendulum, system=coupled)
    contact = ig.ContactSystem(p**2 / 2 + x**2 / 2 + z, x, p, z)
    with pytest.raises(SchemeNotApplicableError, match="contact system") as info:
        bad(pendulum, system=contact, y0=[1.0, 0.0, 0.0])
    assert isinstance(info.value, GeomcheckError) and isinstance(info.value, ValueError)
    # the implicit partitioned scheme handles the coupled Hamiltonian
    sol = bad(pendulum, system=coupled, scheme="lobatto-iiia-iiib-2")
    assert np.isfinite(sol.y).all()


def test_generic_system_and_wrong_system_type(generic, pendulum):
    with pytest.raises(NotLowerableError, match="V"):
        bad(pendulum, system=generic)
    with pytest.raises(SystemDefinitionError):
        bad(pendulum, system="pendulum")
