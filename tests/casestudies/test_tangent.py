"""The tangent lift of a step map: the Jacobian it carries is the step's, for explicit and implicit maps."""

import mpmath
import numpy as np
import pytest
import sympy

import geomcheck as gc
from casestudies.tangent import identity_rows, jacobians, tangent_lift
from geomcheck.errors import InvalidArgumentError
from integrators.run_map import run_map

M = gc.Chart("q p")
q, p = M.coords
h = sympy.Symbol("h")


def _finite_difference_jacobian(step, y, eps=mpmath.mpf(10) ** -25):
    """Central differences of ``step`` (a function of an mpf state) at ``y``, columns by coordinate."""
    columns = []
    for j in range(len(y)):
        up, down = list(y), list(y)
        up[j] += eps
        down[j] -= eps
        columns.append([(a - b) / (2 * eps) for a, b in zip(step(up), step(down))])
    return np.array(columns, dtype=object).T


def test_explicit_lift_carries_the_jacobian_of_several_steps():
    euler = gc.Map(M, M, [q + h * p, p - h * sympy.sin(q)])
    y0 = np.array([[0.75, -0.25]])             # binary fractions: the same start in every run below
    sol = run_map(tangent_lift(euler, 2), identity_rows(y0), dt="0.1", steps=3, save_every=3, backend="mpmath", dps=60)
    J = jacobians(sol.y[-1], 2)[0]

    def three_steps(y):
        return run_map(euler, [y], dt="0.1", steps=3, save_every=3, backend="mpmath", dps=60).y[-1][0]

    with mpmath.workdps(60):
        expected = _finite_difference_jacobian(three_steps, [mpmath.mpf("0.75"), mpmath.mpf("-0.25")])
        assert max(abs(a - b) for a, b in zip(J.reshape(-1), expected.reshape(-1))) < mpmath.mpf(10) ** -30
    # and the state part is the plain run
    assert all(abs(a - b) < mpmath.mpf(10) ** -55 for a, b in zip(sol.y[-1][0][:2], three_steps(y0[0].tolist())))


def test_implicit_lift_carries_the_jacobian_of_the_midpoint_rule():
    Q, P = sympy.symbols("Q P")
    midpoint = gc.ImplicitMap(M, M, [Q - q - h * (p + P) / 2, P - p + h * sympy.sin((q + Q) / 2)], new=[Q, P], step=h)
    lifted = tangent_lift(midpoint, 2)
    assert isinstance(lifted, gc.ImplicitMap) and len(lifted.unknowns) == 6
    sol = run_map(lifted, identity_rows(np.array([[1.25, 0.375]])), dt="0.2", steps=2, save_every=2, backend="mpmath",
                  dps=60)
    J = jacobians(sol.y[-1], 2)[0]

    def two_steps(y):
        return run_map(midpoint, [y], dt="0.2", steps=2, save_every=2, backend="mpmath", dps=60).y[-1][0]

    with mpmath.workdps(60):
        expected = _finite_difference_jacobian(two_steps, [mpmath.mpf("1.25"), mpmath.mpf("0.375")])
        assert max(abs(a - b) for a, b in zip(J.reshape(-1), expected.reshape(-1))) < mpmath.mpf(10) ** -30
        # the midpoint rule is symplectic: det J = 1 to the run's precision, a property the lift must keep
        assert abs(J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0] - 1) < mpmath.mpf(10) ** -50


def test_a_wrong_jacobian_is_seen():
    """Negative control: the lift of one map does not carry the Jacobian of another."""
    euler = gc.Map(M, M, [q + h * p, p - h * sympy.sin(q)])
    other = gc.Map(M, M, [q + h * p, p - h * sympy.sin(q) - h**2 * q])
    lifted = run_map(tangent_lift(euler, 2), identity_rows(np.array([[0.7, -0.2]])), dt=0.1, steps=1, save_every=1)
    J = jacobians(lifted.y[-1], 2)[0].astype(float)
    J_other = jacobians(run_map(tangent_lift(other, 2), identity_rows(np.array([[0.7, -0.2]])), dt=0.1, steps=1,
                                save_every=1).y[-1], 2)[0].astype(float)
    assert np.abs(J - J_other).max() > 1e-3


def test_identity_rows_and_jacobians_layout():
    rows = identity_rows(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert rows.shape == (2, 6)
    assert rows[1].tolist() == [3.0, 4.0, 1.0, 0.0, 0.0, 1.0]
    assert jacobians(rows, 2)[0].tolist() == [[1.0, 0.0], [0.0, 1.0]]
    # column k of the Jacobian is the k-th tangent vector
    assert jacobians(np.array([0.0, 0.0, 1.0, 2.0, 3.0, 4.0]), 2).tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_bad_input():
    N = gc.Chart("a b")
    with pytest.raises(InvalidArgumentError):
        tangent_lift(gc.Map(M, N, [q, p]), 1)
    with pytest.raises(InvalidArgumentError):
        tangent_lift(gc.Map(M, M, [q, p]), 0)
