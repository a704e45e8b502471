"""Systems of the catalog-wide tests for schemes that require "coupled-natural" (see ig_cases.py).

GENERIC: a damped anharmonic oscillator touching the second mass of a two-mass chain, every
coefficient (stiffnesses, masses, dampings) a positive symbol: the certificates hold for every such
quartic system.  (With undefined potentials the average-vector-field gradient is an unevaluated
integral, which the energy balance handles -- test_coupled_natural_systems.py -- but the order and
symmetry certificates cannot evaluate.)
CONCRETE: the same with numbers (6 coordinates, nonlinear, damped).
INITIAL: three states on the invariant set ``c = 0`` (equal contact velocities ``v_1 = v_{2,2}``).
"""

import mpmath
import sympy as sp

from integrators.systems import oscillator_touching_chain

GENERIC = oscillator_touching_chain(generic=True)
CONCRETE = oscillator_touching_chain()
#: (u_1, w_1, w_2, v_1, v_{2,1}, v_{2,2}); v_1 = v_{2,2}
INITIAL = [[0.5, -0.25, 0.75, 0.25, -0.5, 0.25],
           [-1.0, 0.5, 0.25, 0.0, 0.125, 0.0],
           [0.25, 0.75, -0.5, -0.5, 0.25, -0.5]]

_FIELD = None


def _field():
    global _FIELD
    if _FIELD is None:
        X = CONCRETE.vector_field
        _FIELD = sp.lambdify(CONCRETE.coords, [X.component(x) for x in CONCRETE.coords], modules="mpmath")
    return _FIELD


def exact_flow(y0, t, dps):
    """The concrete system's flow at time t (mpmath's Taylor-series solver of its vector field, dps + 5 digits)."""
    f = _field()
    with mpmath.workdps(dps + 5):
        return mpmath.odefun(lambda s, y: f(*y), 0, [mpmath.mpf(v) for v in y0])(t)
