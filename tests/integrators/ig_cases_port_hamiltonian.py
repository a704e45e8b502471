"""Port-Hamiltonian test systems for the catalog-wide tests (see ig_cases.py).

GENERIC: an oscillator with any potential V, linear damping gamma and a state feedback
U(q) through the port (V, U undefined).  CONCRETE: the damped pendulum driven through its
port by the ramp u = t/4 (time-dependent; non-polynomial H, so the divided differences and
their evaluation rule are exercised; a polynomial forcing keeps mpmath's reference solver fast).
"""

import mpmath
import sympy as sp

import integrators as ig

q, p, t, gamma = sp.symbols("q p t gamma")
V, U = sp.Function("V"), sp.Function("U")

_J = [[0, 1], [-1, 0]]
GENERIC = ig.PortHamiltonianSystem(_J, [[0, 0], [0, gamma]], p**2 / 2 + V(q), [q, p], g=[[0], [1]], u=[U(q)])
#: damping 1/8, forcing t/4
CONCRETE = ig.PortHamiltonianSystem(_J, [[0, 0], [0, sp.Rational(1, 8)]], p**2 / 2 - sp.cos(q), [q, p],
                                    g=[[0], [1]], u=[t / 4])
INITIAL = [[1.0, 0.5], [2.0, -0.25], [-1.0, 1.5]]


def exact_flow(y0, t_end, dps):
    """The concrete system's flow from t = 0 (mpmath's Taylor-series solver)."""
    with mpmath.workdps(dps + 5):
        y0 = [mpmath.mpf(v) for v in y0]
        f = lambda s, y: [y[1], -mpmath.sin(y[0]) - y[1] / 8 + s / 4]
        return mpmath.odefun(f, 0, y0)(t_end)
