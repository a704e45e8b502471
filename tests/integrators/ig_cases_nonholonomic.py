"""Systems of the catalog-wide tests for schemes that require "nonholonomic" (see ig_cases.py).

GENERIC: the knife edge with symbolic mass m and inertia J and an undefined potential V(x, y, phi),
with the explicit parametrization of its constraint manifold p_x = r cos(phi), p_y = r sin(phi)
(:func:`integrators.systems.nonholonomic.knife_edge`).
CONCRETE: the free knife edge (m = J = 1, no potential).
INITIAL: three states on the constraint manifold with dyadic coordinates (blade along the x axis, phi = 0,
so p_y = 0; the third does not turn: a straight line).
exact_flow: the closed form of the free knife edge (checked against mpmath.odefun in test_nonholonomic.py).
"""

import sympy as sp

from integrators.systems.nonholonomic import knife_edge, knife_edge_exact_flow

x, y, phi, m, J = sp.symbols("x y phi m J")
V = sp.Function("V")

GENERIC = knife_edge(m, J, V(x, y, phi))
CONCRETE = knife_edge()
INITIAL = [[0.0, 0.0, 0.0, 1.5, 0.0, 0.5], [1.0, 0.5, 0.0, -0.75, 0.0, -1.0], [-0.5, 0.25, 0.0, 0.5, 0.0, 0.0]]


def exact_flow(y0, t, dps):
    """The free knife edge's flow at time t (closed form, mpmath at dps digits)."""
    return knife_edge_exact_flow(y0, t, dps=dps)
