"""Order (Taylor coefficients against the Lie series) and symmetry of one-step maps."""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import ChartMismatchError, InvalidArgumentError

h = sp.Symbol("h")
V = sp.Function("V")


@pytest.fixture
def pendulum():
    M = gc.Chart("q p")
    q, p = M.coords
    return M, gc.VectorField(M, {q: p, p: -sp.sin(q)})


def rk4(M, X):
    coords = M.coords

    def f(y):
        sub = dict(zip(coords, y))
        return [gc.substitute(X.component(x), sub) for x in coords]

    y = list(coords)
    k1 = f(y)
    k2 = f([a + h / 2 * b for a, b in zip(y, k1)])
    k3 = f([a + h / 2 * b for a, b in zip(y, k2)])
    k4 = f([a + h * b for a, b in zip(y, k3)])
    return gc.Map(M, M, [a + h / 6 * (b1 + 2 * b2 + 2 * b3 + b4) for a, b1, b2, b3, b4 in zip(y, k1, k2, k3, k4)])


def test_orders_of_explicit_schemes(pendulum):
    M, X = pendulum
    q, p = M.coords
    assert gc.map_order(gc.Map(M, M, [q + h * p, p - h * sp.sin(q)]), X, h) == 1
    assert gc.map_order(gc.Map(M, M, [q + h * p, p - h * sp.sin(q + h * p)]), X, h) == 1  # symplectic Euler
    assert gc.map_order(rk4(M, X), X, h, max_order=6) == 4


def test_stormer_verlet_has_order_two_and_is_symmetric_for_every_potential():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    grad = [V(q1, q2).diff(x) for x in (q1, q2)]
    ph = [p1 - h / 2 * grad[0], p2 - h / 2 * grad[1]]
    Q = [q1 + h * ph[0], q2 + h * ph[1]]
    at_Q = {q1: Q[0], q2: Q[1]}
    P = [ph[i] - h / 2 * gc.substitute(grad[i], at_Q) for i in range(2)]
    verlet = gc.Map(M, M, Q + P, parameters=[h])
    X = gc.hamiltonian_vector_field((p1**2 + p2**2) / 2 + V(q1, q2), (M.d(q1) ^ M.d(p1)) + (M.d(q2) ^ M.d(p2)))
    assert gc.certify_order(verlet, X, h, 2).holds is True
    third = gc.certify_order(verlet, X, h, 3)
    assert third.holds is False and third.counterexample
    assert gc.certify_symmetric(verlet, h).holds is True


def implicit(M, theta):
    """The theta-method for the pendulum: Q = q + h((1-theta) f(x) + theta f(X))."""
    q, p = M.coords
    Q, P = sp.symbols("Q P")
    eqs = [Q - q - h * ((1 - theta) * p + theta * P), P - p + h * ((1 - theta) * sp.sin(q) + theta * sp.sin(Q))]
    return gc.ImplicitMap(M, M, eqs, new=[Q, P], parameters=[h])


def test_implicit_maps_order_and_symmetry(pendulum):
    M, X = pendulum
    q, p = M.coords
    Q, P = sp.symbols("Q P")
    mid = gc.ImplicitMap(M, M, [Q - q - h * (p + P) / 2, P - p + h * sp.sin((q + Q) / 2)], new=[Q, P], parameters=[h])
    assert gc.map_order(mid, X, h) == 2
    assert gc.certify_symmetric(mid, h).holds is True
    trapezoidal = implicit(M, sp.Rational(1, 2))
    assert gc.map_order(trapezoidal, X, h) == 2
    assert gc.certify_symmetric(trapezoidal, h).holds is True
    backward_euler = implicit(M, 1)
    assert gc.map_order(backward_euler, X, h) == 1
    c = gc.certify_symmetric(backward_euler, h)
    assert c.holds is False and c.counterexample


def test_bad_input(pendulum):
    M, X = pendulum
    q, p = M.coords
    euler = gc.Map(M, M, [q + h * p, p])
    with pytest.raises(InvalidArgumentError, match="order"):
        gc.certify_order(euler, X, h, 0)
    other = gc.Chart("x y")
    with pytest.raises(ChartMismatchError):
        gc.certify_order(euler, gc.VectorField(other, {other.coords[0]: 1}), h, 1)
    Q, P = sp.symbols("Q P")
    # a guess that is not the h = 0 solution: no expansion
    off = gc.ImplicitMap(M, M, [Q - q - 1 - h * p, P - p], new=[Q, P], parameters=[h])
    with pytest.raises(InvalidArgumentError, match="guess"):
        gc.certify_order(off, X, h, 1)
