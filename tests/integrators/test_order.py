"""Observed order (mpmath, 60 digits) against mpmath.odefun equals the declared order.

The pendulum for Hamiltonian schemes, the damped pendulum (a contact system) for contact schemes.
"""

import mpmath
import numpy as np
import pytest

import integrators as ig
from integrators.catalog import declared
from ig_cases import concrete_for, exact_flow, initial_for

DPS = 60
STEPS = (8, 16, 32)          # h = 1/8, 1/16, 1/32 on [0, 1]: every scheme is in its asymptotic regime
#: digits of the reference flow: its error (about 1e-35, measured against a 60-digit reference)
#: is far below the smallest error measured here (an order-8 scheme at h = 1/32, about 1e-14),
#: and mpmath's Taylor solver costs ~10x less than at 60 digits (59 s for the forced system)
REFERENCE_DPS = 32


_REFERENCES = {}


def reference(name):
    """The exact flow at t = 1 (mpmath's Taylor-series ODE solver), shared by the schemes of a system."""
    key = concrete_for(name)
    if key not in _REFERENCES:
        _REFERENCES[key] = exact_flow(name, initial_for(name)[0], 1, REFERENCE_DPS)
    return _REFERENCES[key]


@pytest.mark.parametrize("name", ig.list_schemes())
def test_observed_order_is_the_declared_order(name):
    system, y0, ref = concrete_for(name), initial_for(name)[0], reference(name)
    errors = []
    for n in STEPS:
        sol = ig.integrate(system, name, y0, dt=mpmath.mpf(1) / n, steps=n, save_every=n,
                           backend="mpmath", dps=DPS)
        errors.append(max(abs(sol.y[-1][i] - ref[i]) for i in range(system.dim)))
    assert min(errors) > mpmath.mpf(10) ** (8 - REFERENCE_DPS), "the reference is not accurate enough for this scheme"
    slope = np.polyfit(np.log([1.0 / n for n in STEPS]), [float(mpmath.log(e)) for e in errors], 1)[0]
    order, _ = declared(name)
    assert abs(slope - order) < 0.15, (name, slope, [mpmath.nstr(e, 3) for e in errors])
