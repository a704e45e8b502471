"""Systems of the catalog-wide tests for schemes that require "constrained" (see ig_cases.py).

GENERIC: a particle on the circle ``x^2 + y^2 = l^2`` in the plane with ``V(x, y)`` undefined
(``l`` a symbol), with the rational parametrization of its constraint manifold
``x = l (1 - u^2)/(1 + u^2), y = 2 l u/(1 + u^2), p = w (-2u, 1 - u^2)/(1 + u^2)``
(:func:`integrators.systems.constrained.planar_pendulum`).
CONCRETE: the planar pendulum in Cartesian coordinates, ``H = (p_x^2 + p_y^2)/2 + y``,
``x^2 + y^2 = 1`` (unit mass, length and gravity).
INITIAL: three states exactly on the constraint manifold with dyadic coordinates (the
pendulum horizontal or hanging, the velocity tangent to the circle).
``points(n, seed)``: states on the manifold with exact rational coordinates (rational points of
the circle from dyadic ``u``, tangent momenta ``w (-y, x)`` with dyadic ``w``); a constrained
step is solvable from them (it need not be off the manifold).  Their binary rounding is below
1e-16: the lowered step's comparison with the exact step at 1e-13 is unaffected.
"""

import random

import mpmath
import sympy as sp

from integrators.systems import planar_pendulum

x, y, px, py, l = sp.symbols("x y p_x p_y l")
u, w = sp.symbols("u w")
V = sp.Function("V")

GENERIC = planar_pendulum(V(x, y), l)
CONCRETE = planar_pendulum()
INITIAL = [[0.0, -1.0, 1.5, 0.0], [-1.0, 0.0, 0.0, -0.25], [1.0, 0.0, 0.0, 0.5]]


def points(n=4, seed=1):
    """``n`` states on the pendulum's constraint manifold, exact rationals (see the module docstring)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        a = sp.Rational(rnd.randint(-16, 16), 8)
        b = sp.Rational(rnd.randint(-2048, 2048), 1024)
        X, Y = (1 - a**2) / (1 + a**2), 2 * a / (1 + a**2)
        out.append((X, Y, -b * Y, b * X))
    return out


def exact_flow(y0, t, dps):
    """The pendulum's flow at time t: the angle ODE theta'' = -sin(theta) (mpmath's Taylor solver), mapped back.

    ``x = sin(theta), y = -cos(theta)``, ``(p_x, p_y) = omega (cos(theta), sin(theta))``; ``y0`` must be on the
    constraint manifold (its angle and angular velocity are read off by atan2 and a projection).
    """
    with mpmath.workdps(dps + 5):
        X, Y, PX, PY = [mpmath.mpf(v) for v in y0]
        theta0 = mpmath.atan2(X, -Y)
        omega0 = PX * mpmath.cos(theta0) + PY * mpmath.sin(theta0)
        th, om = mpmath.odefun(lambda s, z: [z[1], -mpmath.sin(z[0])], 0, [theta0, omega0])(t)
        return [mpmath.sin(th), -mpmath.cos(th), om * mpmath.cos(th), om * mpmath.sin(th)]
