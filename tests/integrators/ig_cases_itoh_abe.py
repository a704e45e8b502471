"""Test systems of the Itoh-Abe scheme (see ig_cases.py): non-separable ones.

On a separable one-degree-of-freedom H (the pendulum of the other Hamiltonian schemes) the
Itoh-Abe gradient is the average vector field's, and the scheme has order 2; its declared
order 1 is the order on a general H.  GENERIC: H = W(q, p) (W undefined).  CONCRETE: a
pendulum with the coupling q^2 p / 8 (a polynomial part, divided exactly, and -cos q, guarded).
"""

import mpmath
import sympy as sp

import integrators as ig

q, p = sp.symbols("q p")
W = sp.Function("W")

GENERIC = ig.HamiltonianSystem(W(q, p), q, p)
CONCRETE = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q) + q**2 * p / 8, q, p)
INITIAL = [[1.0, 0.5], [2.0, -0.25], [-1.0, 1.5]]


def exact_flow(y0, t, dps):
    """q' = p + q^2/8, p' = -sin(q) - q p/4 (mpmath's Taylor-series solver)."""
    with mpmath.workdps(dps + 5):
        y0 = [mpmath.mpf(v) for v in y0]
        f = lambda s, y: [y[1] + y[0] ** 2 / 8, -mpmath.sin(y[0]) - y[0] * y[1] / 4]
        return mpmath.odefun(f, 0, y0)(t)
