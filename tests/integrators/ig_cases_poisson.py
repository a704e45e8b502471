"""Poisson test systems for the catalog-wide tests (see ig_cases.py): the free rigid body.

GENERIC: Euler's equations with symbolic positive moments I1, I2, I3.  CONCRETE: the moments
(2, 1, 2/3) (all distinct: the motion is not a plain rotation).  A scheme that needs a
Lotka-Volterra system takes its cases from ig_cases_lotka_volterra_splitting.py.
"""

import mpmath
import sympy as sp

from integrators.systems.poisson import rigid_body

GENERIC = rigid_body()
MOMENTS = (2, 1, sp.Rational(2, 3))
CONCRETE = rigid_body(*MOMENTS)
INITIAL = [[1.0, 0.5, -0.25], [0.5, -1.0, 0.75], [-0.25, 0.25, 1.5]]


def exact_flow(y0, t_end, dps):
    """Euler's equations m' = m x I^{-1} m (written out here), by mpmath's Taylor-series solver."""
    with mpmath.workdps(dps + 5):
        a, b, c = (mpmath.mpf(sp.Rational(k).q) / sp.Rational(k).p for k in MOMENTS)   # 1 / I_k, exactly

        def f(s, m):
            w = (m[0] * a, m[1] * b, m[2] * c)
            return [m[1] * w[2] - m[2] * w[1], m[2] * w[0] - m[0] * w[2], m[0] * w[1] - m[1] * w[0]]

        return mpmath.odefun(f, 0, [mpmath.mpf(v) for v in y0])(t_end)
