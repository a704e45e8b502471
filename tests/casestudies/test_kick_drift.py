"""Symplectic kick-drift methods applied to the damped equation: certificates and their controls."""

import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
from casestudies import _kick_drift as kd
from casestudies import vermeeren2019_damped_oscillator as m


@pytest.mark.parametrize("method", [kd.RUTH3, kd.VERLET, kd.SYMPLECTIC_EULER], ids=lambda k: k.name)
@pytest.mark.parametrize("potential", [None, sp.Function("V")(kd.x)], ids=["x^2/2", "V(x)"])
def test_symplectic_without_damping_order_one_with_it(method, potential):
    holding, refuted = kd.kick_drift_certificates(method, potential)
    assert [c.holds for _, c in holding] == [True] * 4, [label for label, c in holding if c.holds is not True]
    assert refuted.holds is False and refuted.counterexample is not None


def test_the_damped_factor_is_not_the_exact_one_at_second_order():
    """prod (1 - b_i alpha h) = e^{-alpha h} + O((alpha h)^2) for Ruth3 and Verlet: why the order drops."""
    a, h = kd.alpha, kd.h
    for method in (kd.RUTH3, kd.VERLET):
        factor = sp.Mul(*[1 - b * a * h for b in method.kicks])
        series = sp.series(factor - sp.exp(-a * h), h, 0, 3).removeO()
        assert sp.expand(series).coeff(h, 1) == 0 and sp.expand(series).coeff(h, 2) != 0


def test_ruth3_with_wrong_coefficients_is_not_of_order_three():
    """Control: Ruth's order conditions matter (one kick weight changed)."""
    wrong = kd.KickDrift("Ruth3 (7/24 -> 1/4)", kicks=(sp.Rational(1, 4), sp.Rational(3, 4), sp.Rational(-1, 24)),
                         drifts=kd.RUTH3.drifts, order=3)
    holding, _ = kd.kick_drift_certificates(wrong)
    labels = {label: c.holds for label, c in holding}
    assert labels[f"{wrong.name} without damping, U = x^2/2: order 3"] is False


def test_lowered_kick_drift_step_matches_the_hand_formula():
    """The authors' Ruth3 loop: p += b_i h (-x - a p); x += a_i h p, on numbers."""
    a, h, y = 0.9, 0.1, (-0.25, 0.75)
    states = m._run_composition(kd.kick_drift_step(kd.RUTH3), (1,), a, list(y), h, 5)
    x, p = y
    for n in range(1, 6):
        for b, c in zip((7 / 24, 3 / 4, -1 / 24), (2 / 3, -2 / 3, 1.0)):
            p += b * h * (-x - a * p)
            x += c * h * p
        assert np.allclose(states[n], [x, p], atol=1e-15)


def test_step_is_a_geomcheck_map_on_x_p():
    phi = kd.kick_drift_step(kd.VERLET)
    assert isinstance(phi, gc.Map) and [str(c) for c in phi.source.coords] == ["x", "p"]
