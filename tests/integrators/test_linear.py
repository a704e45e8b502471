"""Step matrices of implicit schemes on linear systems (integrators.linear.step_matrix).

The references are computed here in plain sympy: for ``y' = A y`` the step of a
Runge-Kutta method is its stability function ``R(hA)``; the entries are compared with the
float64 nearest to the exact rational value.
"""

import numpy as np
import pytest
import sympy as sp

import integrators as ig
from integrators.errors import NewtonConvergenceError, NotLowerableError
from integrators.linear import propagate, step_matrix
from integrators.linear_implicit import EXACT_UNKNOWNS, linear_implicit_step
from integrators.schemes.composition import Composition

q, p = sp.symbols("q p")


def chain(n, k=1):
    """``n`` unit masses on springs of stiffness ``k`` between fixed ends: y' = A y, y = (q, p)."""
    qs, ps = sp.symbols(f"q1:{n + 1}"), sp.symbols(f"p1:{n + 1}")
    ext = (0, *qs, 0)
    H = sum(pi**2 for pi in ps) / 2 + k * sum((ext[i + 1] - ext[i])**2 for i in range(n + 1)) / 2
    system = ig.HamiltonianSystem(H, list(qs), list(ps))
    y = sp.Matrix([*qs, *ps])
    field = sp.Matrix([sp.diff(H, pi) for pi in ps] + [-sp.diff(H, qi) for qi in qs])
    return system, field.jacobian(y)


def exact_rounded(R):
    return np.array([[float(x) for x in R.row(i)] for i in range(R.rows)])


def midpoint_exact(A, h):
    I = sp.eye(A.rows)
    return (I - h * A / 2).LUsolve(I + h * A / 2)


def gauss4_exact(A, h):
    I, Z = sp.eye(A.rows), h * A
    return (I - Z / 2 + Z**2 / 12).LUsolve(I + Z / 2 + Z**2 / 12)


@pytest.mark.parametrize("name, exact", [("implicit-midpoint", midpoint_exact), ("gauss-legendre-4", gauss4_exact)])
def test_implicit_step_matrix_is_the_exact_stability_matrix_rounded_once(name, exact):
    system, A = chain(3)
    dt = 0.3
    M = step_matrix(name, system, dt)
    assert np.array_equal(M, exact_rounded(exact(A, sp.Rational(dt))))


def test_beyond_the_exact_limit_the_matrix_is_solved_in_floating_point_to_rounding():
    n = 3
    system, A = chain(n)
    dt = 0.125
    linear = linear_implicit_step(ig.scheme("implicit-midpoint").step_map(system))
    M = linear.step_matrix([dt], exact_up_to=0)          # as for a stage with more than EXACT_UNKNOWNS unknowns
    exact = exact_rounded(midpoint_exact(A, sp.Rational(dt)))
    assert np.abs(M - exact).max() < 4e-16
    assert np.array_equal(linear.step_matrix([dt]), exact)
    assert 2 * n <= EXACT_UNKNOWNS
    # the midpoint rule is symplectic: M^T J M = J to rounding
    I = np.eye(n)
    J = np.block([[np.zeros((n, n)), I], [-I, np.zeros((n, n))]])
    assert np.abs(M.T @ J @ M - J).max() < 1e-15


def test_the_matrix_runs_like_integrate():
    system, _ = chain(4)
    y0 = np.random.default_rng(1).standard_normal((3, system.dim))
    sol = ig.integrate(system, "gauss-legendre-4", y0, dt=0.05, steps=40, save_every=20)
    fast = propagate(step_matrix("gauss-legendre-4", system, 0.05), y0, 40, save_every=20)
    assert np.abs(fast - sol.y).max() < 1e-12 * np.abs(sol.y).max()


def test_a_composition_of_implicit_stages_is_the_product_of_their_matrices():
    system, A = chain(2)
    gammas = [sp.Rational(3, 2), -2, sp.Rational(3, 2)]
    scheme = Composition(ig.scheme("implicit-midpoint"), gammas, name="midpoint-jump")
    dt = 0.25
    M = step_matrix(scheme, system, dt)
    reference = sp.eye(A.rows)
    for g in gammas:
        reference = midpoint_exact(A, g * sp.Rational(dt)) * reference
    assert np.abs(M - np.array(reference, dtype=float)).max() < 1e-14


def test_irrational_constants_fall_back_to_floating_point():
    k = sp.Symbol("k", positive=True)
    osc = ig.HamiltonianSystem((p**2 + k * q**2) / 2, q, p, parameters={k: 1})
    M = step_matrix("implicit-midpoint", osc, 0.5, params={k: sp.sqrt(2)})
    A = sp.Matrix([[0, 1], [-sp.sqrt(2), 0]])
    reference = np.array(midpoint_exact(A, sp.Rational(1, 2)).evalf(30), dtype=float)
    assert np.abs(M - reference).max() < 1e-15


def test_a_singular_stage_matrix_is_refused_with_the_step_size():
    saddle = ig.HamiltonianSystem((p**2 - q**2) / 2, q, p)   # y' = [[0, 1], [1, 0]] y: I - h/2 A singular at h = 2
    with pytest.raises(NewtonConvergenceError, match="singular"):
        step_matrix("implicit-midpoint", saddle, 2.0)
    assert np.isfinite(step_matrix("implicit-midpoint", saddle, 1.0)).all()


def test_nonlinear_implicit_steps_have_no_matrix():
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    with pytest.raises(NotLowerableError, match="not linear"):
        step_matrix("implicit-midpoint", pendulum, 0.1)
    cubic = ig.HamiltonianSystem((p**2 + q**2) / 2 + q**3, q, p)
    with pytest.raises(NotLowerableError, match="not linear"):
        step_matrix("gauss-legendre-4", cubic, 0.1)
