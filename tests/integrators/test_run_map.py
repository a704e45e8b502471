"""``run_map``: a step map given as is runs through the same pipeline as ``integrate``."""

import numpy as np
import pytest
import sympy

import geomcheck as gc
import integrators as ig
from geomcheck.errors import InvalidArgumentError
from integrators.compiled import find_compiler
from integrators.errors import SystemDefinitionError
from integrators.schemes.base import Stage

q, p = sympy.symbols("q p")
k = sympy.Symbol("k", positive=True)
OSC = ig.HamiltonianSystem(p**2 / 2 + k * q**2 / 2, q, p, parameters={k: 2.0})


@pytest.mark.parametrize("name", ["stormer-verlet", "implicit-midpoint", "gauss-legendre-4"])
def test_a_schemes_map_runs_as_integrate_runs_it(name):
    phi = ig.scheme(name).step_map(OSC)
    y0 = np.array([[1.0, 0.0], [0.3, -0.2]])
    by_map = run = ig.run_map(phi, y0, dt=0.1, steps=25, save_every=5, params={k: 2.0})
    by_scheme = ig.integrate(OSC, name, y0, dt=0.1, steps=25, save_every=5)
    assert np.array_equal(by_map.y, by_scheme.y) and np.array_equal(run.t, by_scheme.t)


def test_stages_with_an_own_step_symbol():
    """A composition given as stages of a map whose step symbol is not h."""
    tau = sympy.Symbol("tau")
    M = gc.Chart([q, p])
    half_kick_drift = gc.Map(M, M, [q + tau * (p - tau * k * q), p - tau * k * q])
    gammas = [sympy.Rational(1, 3), sympy.Rational(1, 3), sympy.Rational(1, 3)]
    sol = ig.run_map([Stage(half_kick_drift, g) for g in gammas], [1.0, 0.0], dt=0.3, steps=4, save_every=4,
                     step=tau, params={k: 1.0})
    one = ig.run_map(half_kick_drift, [1.0, 0.0], dt=0.1, steps=12, save_every=12, step=tau, params={k: 1.0})
    # three thirds of 0.3 (each rounded once from the exact factor) against 0.1: equal to rounding
    assert np.abs(sol.y[-1] - one.y[-1]).max() < 1e-14


def test_mpmath_run_of_a_map():
    phi = ig.scheme("implicit-midpoint").step_map(OSC)
    a = ig.run_map(phi, ["1", "0"], dt="0.125", steps=8, save_every=8, params={k: 2}, backend="mpmath", dps=40)
    b = ig.integrate(OSC, "implicit-midpoint", ["1", "0"], dt="0.125", steps=8, save_every=8, backend="mpmath",
                     dps=40, params={k: 2})
    assert all(x == y for x, y in zip(a.y[-1], b.y[-1]))


@pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
def test_compiled_run_of_a_map():
    phi = ig.scheme("stormer-verlet").step_map(OSC)
    a = ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=100, save_every=50, params={k: 2.0}, backend="compiled")
    b = ig.integrate(OSC, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=100, save_every=50, backend="compiled")
    assert a.path == "compiled" and np.array_equal(a.y, b.y)


def test_constants_must_all_have_values_and_only_those():
    phi = ig.scheme("stormer-verlet").step_map(OSC)
    with pytest.raises(InvalidArgumentError, match="missing k"):
        ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=3)
    with pytest.raises(InvalidArgumentError, match="not in the map m"):
        ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=3, params={k: 1.0, sympy.Symbol("m"): 2.0})
    with pytest.raises(InvalidArgumentError, match="not a finite real number"):
        ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=3, params={k: float("nan")})


@pytest.mark.parametrize("bad", ["stormer-verlet", [1, 2], None, []])
def test_only_maps_and_stages_run(bad):
    with pytest.raises(InvalidArgumentError, match="run_map runs a geomcheck Map"):
        ig.run_map(bad, [1.0, 0.0], dt=0.1, steps=3)


def test_a_map_between_two_charts_is_refused():
    a, b = sympy.symbols("a b")
    phi = gc.Map(gc.Chart([q, p]), gc.Chart([a, b]), [q, p])
    with pytest.raises(InvalidArgumentError, match="to itself"):
        ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=3)


def test_a_bare_map_run_has_no_energy():
    phi = ig.scheme("stormer-verlet").step_map(OSC)
    sol = ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=3, params={k: 1.0})
    with pytest.raises(SystemDefinitionError, match="no system"):
        sol.energy()
    assert "a step map" in repr(sol)
