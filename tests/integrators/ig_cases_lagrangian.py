"""Systems of the catalog-wide tests for schemes that require "lagrangian" (see ig_cases.py).

GENERIC: ``L = v^2/2 - V(q)`` with ``V`` undefined (state ``(q, p_q)``, ``p_q = v``).
CONCRETE: the pendulum ``L = v^2/2 + cos q``; its exact flow is that of ``H = p^2/2 - cos q``.
"""

import mpmath
import sympy as sp

from integrators.systems.lagrangian import LagrangianSystem

q, v = sp.symbols("q v")
V = sp.Function("V")

GENERIC = LagrangianSystem(v**2 / 2 - V(q), q, v)
CONCRETE = LagrangianSystem(v**2 / 2 + sp.cos(q), q, v)
INITIAL = [[1.0, 0.5], [2.0, -0.25], [-1.0, 1.5]]


def exact_flow(y0, t, dps):
    """The pendulum's flow at time t (mpmath's Taylor-series solver at dps + 5 digits)."""
    with mpmath.workdps(dps + 5):
        f = lambda s, y: [y[1], -mpmath.sin(y[0])]
        return mpmath.odefun(f, 0, [mpmath.mpf(c) for c in y0])(t)
