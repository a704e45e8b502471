"""Batched Newton: per-trajectory convergence mask, errors that name trajectories, residuals, step."""

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from integrators.errors import NewtonConvergenceError
from integrators.lower import lower
from integrators.newton import newton_mpmath, newton_numpy

h = sp.Symbol("h")
q, p = sp.symbols("q p")
QUARTIC = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)


def bound(name, h0, backend="numpy", **kw):
    L = lower(ig.scheme(name).step_map(QUARTIC), backend=backend)
    return L, L.bind({h: h0}, **kw)


def test_batch_solution_solves_the_stage_equations():
    L, B = bound("gauss-legendre-4", 0.2)
    y = [np.array([0.1, 1.0, 2.0]), np.array([0.0, -0.5, 1.0])]
    u = newton_numpy(L, B.S, y)
    out = L.residual.kernel(B.S["residual"], *y, *u)
    assert max(np.abs(np.broadcast_to(r, (3,))).max() for r in out[:L.m]) < 1e-13


def test_mask_retires_converged_trajectories_and_names_the_rest():
    """With 3 iterations the nearly linear trajectories converge and only the strongly
    nonlinear ones are reported (each trajectory is judged on its own)."""
    L, B = bound("implicit-midpoint", 0.5, max_iter=3)
    y = [np.array([1e-4, 3.0, 2e-4, 4.0]), np.zeros(4)]
    with pytest.raises(NewtonConvergenceError) as info:
        newton_numpy(L, B.S, y, max_iter=3, step_index=7)
    err = info.value
    assert err.trajectories == [1, 3] and err.step == 7
    assert len(err.residuals) == 2 and all(r > 0 for r in err.residuals)
    msg = str(err)
    assert "step 7" in msg and "indices 1, 3" in msg and "residual" in msg
    # the easy ones alone converge within the same budget
    u = newton_numpy(L, B.S, [y[0][[0, 2]], y[1][[0, 2]]], max_iter=3)
    assert len(u) == L.m


def test_batched_equals_one_at_a_time():
    L, B = bound("gauss-legendre-6", 0.3)
    y = [np.array([0.3, -1.2, 2.5]), np.array([1.0, 0.2, -0.7])]
    together = newton_numpy(L, B.S, y)
    for b in range(3):
        alone = newton_numpy(L, B.S, [y[0][[b]], y[1][[b]]])
        assert np.abs(np.array([u[b] for u in together]) - np.array([u[0] for u in alone])).max() <= 1e-15


def test_divergence_is_reported_by_integrate():
    with pytest.raises(NewtonConvergenceError) as info:
        ig.integrate(QUARTIC, "gauss-legendre-4", [[0.5, 0.0], [30.0, 0.0]], dt=1.0, steps=5, max_iter=4)
    assert info.value.step == 1 and 1 in info.value.trajectories and 0 not in info.value.trajectories
    assert "smaller step size" in str(info.value)


def test_mpmath_newton_converges_to_working_precision_and_reports_failure():
    L, B = bound("implicit-midpoint", sp.Rational(1, 4), backend="mpmath", dps=50)
    with mpmath.workdps(50):
        x = [mpmath.mpf(1), mpmath.mpf("0.5")]
        u = newton_mpmath(L, B.S, x, dps=50)
        out = L.residual.kernel(B.S["residual"], *x, *u)
        assert max(abs(v) for v in out[:L.m]) < mpmath.mpf(10) ** -45
        with pytest.raises(NewtonConvergenceError) as info:
            newton_mpmath(L, B.S, [mpmath.mpf(40), mpmath.mpf(0)], dps=50, max_iter=2, trajectory=5, step_index=3)
    assert info.value.trajectories == [5] and info.value.step == 3
