"""Systems of the catalog-wide tests for schemes that require "damped" (see ig_cases.py).

GENERIC: ``H = p^2/2 + V(q)`` with ``V`` undefined and the damping a symbol ``gamma``.
CONCRETE: the damped pendulum ``H = p^2/2 - cos q``, ``gamma = 1/5``.
"""

import mpmath
import sympy as sp

import integrators as ig

q, p, gamma = sp.symbols("q p gamma")
V = sp.Function("V")

GENERIC = ig.DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
CONCRETE = ig.DampedHamiltonianSystem(p**2 / 2 - sp.cos(q), q, p, damping=sp.Rational(1, 5))
INITIAL = [[1.0, 0.5], [2.0, -0.25], [-1.0, 1.5]]


def exact_flow(y0, t, dps):
    """The damped pendulum's flow at time t (mpmath's Taylor-series solver at dps + 5 digits)."""
    with mpmath.workdps(dps + 5):
        g = mpmath.mpf(1) / 5
        f = lambda s, y: [y[1], -mpmath.sin(y[0]) - g * y[1]]
        return mpmath.odefun(f, 0, [mpmath.mpf(v) for v in y0])(t)
