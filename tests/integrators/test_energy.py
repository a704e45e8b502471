"""Long runs: Stormer-Verlet's energy error stays bounded over 10^4 steps; explicit Euler's drifts."""

import numpy as np

import integrators as ig


def test_verlet_energy_bounded_euler_drifts(pendulum):
    y0 = [[1.0, 0.0], [2.0, 0.5]]
    kw = dict(dt=0.1, steps=10_000, save_every=10)
    sv = ig.integrate(pendulum, "stormer-verlet", y0, **kw)
    eu = ig.integrate(pendulum, "explicit-euler", y0, **kw)
    dE_sv = np.abs(sv.energy() - sv.energy()[0])
    dE_eu = np.abs(eu.energy() - eu.energy()[0])
    quarter = len(sv.t) // 4
    # Verlet: an O(h^2) oscillation, no growth from the first to the last quarter of the run
    assert dE_sv.max() < 0.01
    assert dE_sv[-quarter:].max() < 1.5 * dE_sv[:quarter].max()
    # Euler: the energy grows steadily
    assert dE_eu[-1].min() > 0.5
    assert (dE_eu[-quarter:].mean(axis=0) > 5 * dE_eu[:quarter].mean(axis=0)).all()
    assert dE_eu[-1].min() > 50 * dE_sv.max()
