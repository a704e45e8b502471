"""RATTLE runs: constraint drift at rounding level (against RK4 on the index-reduced ODE), energy, bad initial states."""

import os

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from integrators.errors import InconsistentStateError
from integrators.schemes.on_manifold import certify_constraints_are_equations

from ig_cases_constrained import CONCRETE, INITIAL

#: 1e5 steps take 20-80 s on the shared 2-core machine (Newton's method on one unknown per step costs
#: 0.2-0.8 ms there): run under the thorough profile; 2e4 steps always
LONG = os.environ.get("GEOMCHECK_HYPOTHESIS_PROFILE") == "thorough"


@pytest.mark.parametrize("steps", [20_000, pytest.param(100_000, marks=pytest.mark.skipif(
    not LONG, reason="1e5 steps: set GEOMCHECK_HYPOTHESIS_PROFILE=thorough"))])
def test_drift_stays_at_rounding_level_and_rk4_drifts(steps):
    y0 = INITIAL[0]
    sol = ig.integrate(CONCRETE, "rattle", y0, dt=0.05, steps=steps, save_every=steps // 100)
    g, c = sol.constraint_drift()
    assert g.shape == (101,) and c.shape == (101,)
    assert g.max() < 1e-14 and c.max() < 1e-14                        # measured 2.2e-16, 4.4e-16 (1e5 steps)
    E = np.abs(sol.energy() - sol.energy()[0])
    assert E.max() < 2e-3                                             # O(h^2), measured 1.1e-3
    assert E[50:].max() < 1.5 * E[:51].max()                          # bounded, not growing
    # the index-reduced ODE with a classical scheme: the constraints drift, quadratically in time
    ref = ig.integrate(CONCRETE, "rk4", y0, dt=0.05, steps=10_000, save_every=1000)
    g4, c4 = ref.constraint_drift()
    assert g4[-1] > 1e-3 and g4[-1] > 20 * g4[1] and c4[-1] > 1e-5   # measured 0.15, 0.0014; 6e-4


def test_ensemble_drift_shapes_and_mpmath():
    sol = ig.integrate(CONCRETE, "rattle", INITIAL, dt=0.1, steps=20, save_every=10)
    g, c = sol.constraint_drift()
    assert g.shape == (3, 3) and c.shape == (3, 3) and g.max() < 1e-14
    mp = ig.integrate(CONCRETE, "rattle", INITIAL[1], dt="0.1", steps=20, save_every=10, backend="mpmath", dps=50)
    g, c = mp.constraint_drift()
    assert max(g) < mpmath.mpf(10) ** -45 and max(c) < mpmath.mpf(10) ** -45


def test_inconsistent_initial_state_is_refused_with_the_constraint_named():
    with pytest.raises(InconsistentStateError, match=r"constraint g_1 = x\*\*2 \+ y\*\*2 - 1 is 0.21") as info:
        ig.integrate(CONCRETE, "rattle", [0.0, -1.1, 1.0, 0.0], dt=0.1, steps=5)
    assert info.value.name == "g_1" and abs(info.value.value - 0.21) < 1e-12 and info.value.trajectory == 0
    with pytest.raises(InconsistentStateError, match=r"trajectory 1 .* hidden constraint c_1 .* is 1"):
        ig.integrate(CONCRETE, "rattle", [INITIAL[0], [0.0, -1.0, 0.0, 0.5]], dt=0.1, steps=5)
    with pytest.raises(ValueError):                                   # and it is a ValueError
        ig.integrate(CONCRETE, "discrete-dirac", [0.0, -1.1, 1.0, 0.0], dt=0.1, steps=5)


def _double_pendulum():
    x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2")
    p = sp.symbols("p1 p2 p3 p4")
    H = sum(pi**2 for pi in p) / 2 + y1 + y2
    g = [x1**2 + y1**2 - 1, (x2 - x1)**2 + (y2 - y1)**2 - 1]
    return ig.ConstrainedHamiltonianSystem(H, [x1, y1, x2, y2], p, g)


def test_double_pendulum_two_constraints():
    s = _double_pendulum()
    assert s.manifold_dimension == 4 and len(s.multipliers) == 2
    phi = ig.scheme("rattle").step_map(s)
    assert len(phi.auxiliary) == 2                                   # the two impulses; P explicit
    assert certify_constraints_are_equations(phi, s).holds is True
    a, b = 0.6, 0.8                                                 # consistent state: both rods at rest
    y0 = [a, -b, a + b, -b + a, 0.0, 0.0, 0.0, 0.0]
    sol = ig.integrate(s, "rattle", y0, dt=0.02, steps=1000, save_every=100)
    g, c = sol.constraint_drift()
    assert g.max() < 1e-14 and c.max() < 1e-13
    assert np.abs(sol.energy() - sol.energy()[0]).max() < 3e-3                # measured 1.4e-3 (h = 0.02)


