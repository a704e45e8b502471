"""``Solution.evaluate``: the one evaluator of expressions along a run (energy, constraints, evaluate_along)."""

import mpmath
import numpy as np
import pytest
import sympy

import integrators as ig
from integrators.errors import SystemDefinitionError
from integrators.observables import evaluate_along

x, p, z, t = sympy.symbols("x p z t")
FORCED = ig.ContactSystem(p**2 / 2 + x**2 / 2 + sympy.cos(t) * z / 5, x, p, z, t=t)


def test_an_expression_with_the_time_is_evaluated_at_each_saved_time():
    sol = ig.integrate(FORCED, "contact-splitting-2-t", [[1.0, 0.0, 0.0], [0.5, 0.5, 0.1]], dt=0.1, steps=20,
                       save_every=5, t0=0.3)
    (value,) = sol.evaluate([x * sympy.cos(t) + z])
    by_hand = sol.y[:, :, 0] * np.cos(sol.t)[:, None] + sol.y[:, :, 2]
    assert value.shape == (5, 2) and np.array_equal(value, by_hand)
    assert np.array_equal(evaluate_along(sol, x * sympy.cos(t) + z), value)


def test_the_energy_is_the_hamiltonian_at_each_saved_state():
    q, pq, k = sympy.symbols("q p k")
    osc = ig.HamiltonianSystem(pq**2 / 2 + k * q**2 / 2, q, pq, parameters={k: 3.0})
    sol = ig.integrate(osc, "stormer-verlet", [1.0, 0.5], dt=0.05, steps=40, save_every=10)
    assert np.array_equal(sol.energy(), sol.y[:, 1] ** 2 / 2 + 3.0 * sol.y[:, 0] ** 2 / 2)
    mp = ig.integrate(osc, "stormer-verlet", ["1", "0.5"], dt="0.05", steps=4, save_every=2, backend="mpmath",
                      dps=30)
    with mpmath.workdps(30):
        expected = [r[1] ** 2 / 2 + 3 * r[0] ** 2 / 2 for r in mp.y]
    assert all(abs(a - b) < mpmath.mpf(10) ** -28 for a, b in zip(mp.energy(), expected))


def test_a_bare_map_run_has_nothing_to_evaluate_against():
    phi = ig.scheme("stormer-verlet").step_map(ig.HamiltonianSystem(p**2 / 2 + x**2 / 2, x, p))
    sol = ig.run_map(phi, [1.0, 0.0], dt=0.1, steps=2)
    with pytest.raises(SystemDefinitionError, match="no system"):
        sol.evaluate([x])
