"""Quantities along a run: expressions on states, and per-step quantities across observe's blocks."""

import mpmath
import numpy as np
import sympy

import geomcheck as gc
from casestudies.observing import expressions_on_states, observe_steps
from integrators.run_map import run_map

q, p, k, h = sympy.symbols("q p k h")


def test_expressions_on_states_numpy_and_mpmath_agree():
    exprs = [(p**2 + k * q**2) / 2, sympy.sin(q) * p, sympy.Integer(3)]
    Y = np.array([[[0.5, -1.0], [1.5, 2.0]], [[-0.25, 0.75], [2.0, 0.0]]])        # (n, batch, dim)
    values = expressions_on_states(exprs, [q, p], [k], [2.0])(Y)
    assert values.shape == (3, 2, 2)
    assert values[0, 0, 1] == (2.0**2 + 2.0 * 1.5**2) / 2 and np.all(values[2] == 3.0)
    mp = expressions_on_states(exprs, [q, p], [k], [sympy.Integer(2)], backend="mpmath", dps=30)(
        np.array([[mpmath.mpf(v) for v in row] for row in Y.reshape(-1, 2)], dtype=object))
    assert mp.shape == (3, 4)
    assert np.abs(mp.astype(float) - values.reshape(3, 4)).max() < 1e-15
    with mpmath.workdps(30):
        assert abs(mp[1, 0] - mpmath.sin(mpmath.mpf("0.5")) * -1) < mpmath.mpf(10) ** -28


def test_observe_steps_spans_the_blocks():
    """A quantity of each step is the same whether the states arrive in one block or in several."""
    Y = np.cumsum(np.arange(1.0, 21.0)).reshape(10, 2)

    def increment(before, after):
        return (after - before).sum(axis=-1)

    whole = observe_steps(increment)(np.arange(10.0), Y)
    split = observe_steps(increment)
    parts = [split(np.arange(10.0)[a:b], Y[a:b]) for a, b in ((0, 1), (1, 4), (4, 10))]
    got = np.concatenate(parts)
    assert np.isnan(whole[0]) and np.isnan(got[0])
    assert got[1:].tolist() == whole[1:].tolist() == (Y[1:] - Y[:-1]).sum(axis=1).tolist()
    # a function that ignored the previous block would miss the step across the boundary
    fresh = np.concatenate([observe_steps(increment)(np.arange(10.0)[a:b], Y[a:b]) for a, b in ((0, 4), (4, 10))])
    assert np.isnan(fresh[4]) and not np.isnan(got[4])


def test_observe_steps_in_a_run():
    """The energy change of each step of a symplectic Euler run, observed, equals the one from saved states."""
    M = gc.Chart("q p")
    qq, pp = M.coords
    euler = gc.Map(M, M, [qq + h * (pp - h * qq), pp - h * qq])
    energy = expressions_on_states([(pp**2 + qq**2) / 2], [qq, pp])
    sol = run_map(euler, [1.0, 0.0], dt=0.1, steps=30, save_every=1,
                  observe=observe_steps(lambda before, after: energy(after)[0] - energy(before)[0], first=0.0))
    E = energy(sol.y)[0]
    assert sol.observed.shape == (31,) and sol.observed[0] == 0.0
    assert np.array_equal(sol.observed[1:], E[1:] - E[:-1])
