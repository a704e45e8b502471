"""Long runs of the discrete Dirac scheme of Salnikov & Hamdouni 2019, Section 3.

The scheme is derived symbolically (geomcheck.structures.discrete_dirac_scheme) and
lowered by integrators.lower to batched numpy with Newton's method for the velocity and
the multipliers (the map's auxiliary unknowns).  Checked: the discrete constraints
<alpha_d^a, v_k> = 0 hold to solver tolerance (the paper's third line); the energy error stays
bounded over long runs for the forward-difference scheme with midpoint constraints -- our
expectation, Section 3 states no energy property -- while the paper's example velocity
v_k = (q_{k+1} - q_{k-1})/(2h) drifts (a critique: finding 1 of the module docstring of
geomcheck.structures.implicit_lagrangian).
"""

import numpy as np
import sympy

import geomcheck as gc
from geomcheck.structures import discrete_dirac_scheme, implicit_lagrangian_system
from integrators.lower import lower


def _pendulum():
    Q = gc.Chart("x y")
    x, y = Q.coords
    vx, vy = sympy.symbols("v_x v_y")
    return implicit_lagrangian_system((vx**2 + vy**2) / 2 - y, Q, [vx, vy], [x * Q.d(x) + y * Q.d(y)])


def _knife_edge():
    Q = gc.Chart("x y theta")
    x, y, th = Q.coords
    v = sympy.symbols("v_x v_y v_theta")
    return implicit_lagrangian_system(sum(c**2 for c in v) / 2, Q, v, [sympy.sin(th) * Q.d(x) - sympy.cos(th) * Q.d(y)])


def run(sch, Y, h, steps, every=10):
    """Step the lowered map; return final state, worst discrete constraint, energy errors (saved)."""
    step = lower(sch.map).bind({sch.h: h})
    n = sch.system.configuration.dim
    dc = sympy.lambdify(list(sch.state.coords) + list(sch.new_positions) + [sch.h], list(sch.discrete_constraint()))
    H = sympy.lambdify(sch.state.coords, sch.energy_on_state())
    E0 = H(*Y.T)
    worst = 0.0
    errors = []
    for k in range(steps):
        Yn = step.step_array(Y)
        if k % every == 0:
            worst = max(worst, max(np.abs(c).max() for c in dc(*Y.T, *Yn[:, -2 * n:-n].T, h)))
        Y = Yn
        if k % every == 0:
            errors.append(np.abs(H(*Y.T) - E0).max())
    return Y, worst, np.array(errors)


def pendulum_start(sch, h, angles):
    q0 = np.stack([np.sin(angles), -np.cos(angles)], 1)
    p0 = np.zeros_like(q0)
    if sch.velocity == "forward":
        return np.hstack([q0, p0])
    a = -np.sin(angles)[:, None] * np.stack([np.cos(angles), np.sin(angles)], 1)
    return np.hstack([q0 + h * h / 2 * a, q0, p0])


def knife_start(sch, h, omegas):
    """Rolling at unit speed along the blade while turning at rate omega: circles of radius 1/omega."""
    def pos(t):
        return np.stack([np.sin(omegas * t) / omegas, (1 - np.cos(omegas * t)) / omegas, omegas * t], 1)

    def vel(t):
        return np.stack([np.cos(omegas * t), np.sin(omegas * t), omegas + 0 * t], 1)

    if sch.velocity == "forward":
        return np.hstack([pos(0.0), vel(-h / 2)]), pos
    return np.hstack([pos(-h), pos(0.0), vel(-h)]), pos


def test_knife_edge_ten_thousand_steps_energy_and_constraint():
    h, steps = 0.01, 10_000
    omegas = np.array([0.5, 1.0, 2.0])
    sch = discrete_dirac_scheme(_knife_edge(), "forward", "midpoint")
    Y0, pos = knife_start(sch, h, omegas)
    Y, worst, errors = run(sch, Y0, h, steps)
    assert worst < 1e-12                                  # the discrete constraint, to solver tolerance
    assert errors.max() < 1e-10                           # energy: a reflection in the velocity plane
    assert np.abs(Y[:, :3] - pos(steps * h)).max() < 1e-4  # and the circles are followed (second order)


def test_pendulum_energy_error_bounded_and_length_kept():
    h, steps = 0.02, 5_000                                # t = 100, about 16 periods
    angles = np.array([0.5, 1.5, 2.5])
    sch = discrete_dirac_scheme(_pendulum(), "forward", "midpoint")
    Y, worst, errors = run(sch, pendulum_start(sch, h, angles), h, steps)
    assert worst < 1e-12
    assert np.abs(Y[:, 0] ** 2 + Y[:, 1] ** 2 - 1).max() < 1e-12
    half = len(errors) // 2
    assert errors.max() < 0.02                            # O(h): p_k is a staggered velocity
    assert errors[half:].max() < 1.5 * errors[:half].max()   # no drift: bounded, not growing


def test_printed_scheme_energy_drifts():
    """Finding 1 (a critique) of implicit_lagrangian's docstring: the example centred velocity dissipates energy."""
    h, steps = 0.02, 5_000
    angles = np.array([0.5, 1.5])
    sch = discrete_dirac_scheme(_pendulum())
    assert sch.velocity == "centered" and sch.constraint_at == "current"
    Y, worst, errors = run(sch, pendulum_start(sch, h, angles), h, steps)
    assert worst < 1e-12                                  # its constraints hold all the same
    quarter = len(errors) // 4
    assert errors[-1] > 0.1                               # energy lost: first order, dissipative
    assert errors[-1] > 1.5 * errors[quarter]             # and growing with time
    good = discrete_dirac_scheme(_pendulum(), "forward", "midpoint")
    _, _, good_errors = run(good, pendulum_start(good, h, angles), h, steps)
    assert errors[-1] > 10 * good_errors.max()
