"""Lotka-Volterra cases for the catalog-wide tests of "lotka-volterra-splitting" (see ig_cases.py).

GENERIC: P = [[0, u v], [-u v, 0]] with H = F(u) + G(v), F and G undefined (any separable H).
CONCRETE: HLW's u' = u (v - 2), v' = v (1 - u) (Section I.1.1).
"""

import mpmath
import sympy as sp

from integrators.systems.poisson import PoissonSystem, lotka_volterra

u, v = sp.symbols("u v", positive=True)
F, G = sp.Function("F"), sp.Function("G")
GENERIC = PoissonSystem(F(u) + G(v), [u, v], [[0, u * v], [-u * v, 0]], domain={u: (0, sp.oo), v: (0, sp.oo)},
                        density=1 / (u * v))
CONCRETE = lotka_volterra()
INITIAL = [[1.5, 1.0], [0.5, 1.5], [2.0, 0.75]]     # (1, 2) is the equilibrium: avoided


def exact_flow(y0, t_end, dps):
    """u' = u (v - 2), v' = v (1 - u) by mpmath's Taylor-series solver."""
    with mpmath.workdps(dps + 5):
        f = lambda s, y: [y[0] * (y[1] - 2), y[1] * (1 - y[0])]
        return mpmath.odefun(f, 0, [mpmath.mpf(x) for x in y0])(t_end)
