r"""Symplectic splitting methods applied to the damped equation as it stands.

A kick-drift method for ``x' = p, p' = F(x)`` alternates kicks ``p <- p + b_i h F(x)`` and drifts
``x <- x + a_i h p``; it is symplectic.  Applied to the damped equation ``p' = -U'(x) - alpha p``
the kicks take the whole force at the momentum at hand, ``p <- p + b_i h (-U'(x) - alpha p)``:
this is how Ruth3 is applied in the figures of Vermeeren, Bravetti & Seri (2019).  Each kick is
then conformally symplectic with factor ``1 - b_i alpha h`` (certified), so the step is with factor
``prod_i (1 - b_i alpha h) = e^{-alpha h} + O((alpha h)^2)``: the damping costs the order, which
drops to 1 for every such method (certified: the order-2 conditions fail with a counterexample).

Examples
--------
>>> phi = kick_drift_step(VERLET)
>>> phi.exprs[0]
-alpha*h**2*p/2 - h**2*x/2 + h*p + x
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.zero import decide_zero
from integrators.systems import STEP_SYMBOL

__all__ = ["KickDrift", "RUTH3", "VERLET", "SYMPLECTIC_EULER", "kick_drift_step", "kick_drift_certificates",
           "damped_force"]

x, p, alpha = sympy.symbols("x p alpha")
h = STEP_SYMBOL
_R = sympy.Rational


@dataclass(frozen=True)
class KickDrift:
    """A kick-drift method: kick ``b_i``, then drift ``a_i``, for i = 1..s; ``order`` without damping."""

    name: str
    kicks: tuple
    drifts: tuple
    order: int


RUTH3 = KickDrift("Ruth3", kicks=(_R(7, 24), _R(3, 4), _R(-1, 24)), drifts=(_R(2, 3), _R(-2, 3), 1), order=3)
VERLET = KickDrift("Stormer-Verlet (kick-drift-kick)", kicks=(_R(1, 2), _R(1, 2)), drifts=(1, 0), order=2)
SYMPLECTIC_EULER = KickDrift("symplectic Euler", kicks=(1,), drifts=(1,), order=1)


def damped_force(potential=None, damping=alpha):
    """``(X, P) -> -U'(X) - damping P`` with ``U = x^2/2`` by default."""
    U = x**2 / 2 if potential is None else potential
    dU = diff(U, x)
    return lambda X, P: -gc.substitute(dU, {x: X}) - damping * P


def kick_drift_step(method: KickDrift, potential=None, damping=alpha) -> gc.Map:
    """One step of ``method`` on ``(x, p)`` with the damping force in its kicks (a ``gc.Map``)."""
    force = damped_force(potential, damping)
    X, P = x, p
    for b, a in zip(method.kicks, method.drifts):
        P = P + b * h * force(X, P)
        X = X + a * h * P
    chart = gc.Chart("x p")
    params = [h, alpha] if damping == alpha else [h]
    return gc.Map(chart, chart, [sympy.expand(X), sympy.expand(P)], parameters=params)


def kick_drift_certificates(method: KickDrift, potential=None) -> tuple:
    """``(holding, refuted)``: certificates that hold, and the order-2 certificate with damping (refuted).

    Holding: without damping the step is symplectic and of ``method.order``; with damping it is
    conformally symplectic with factor ``prod (1 - b_i alpha h)`` and of order 1.
    """
    chart = gc.Chart("x p")
    U = x**2 / 2 if potential is None else potential
    omega = chart.d(x) ^ chart.d(p)
    undamped = kick_drift_step(method, potential, damping=0)
    damped = kick_drift_step(method, potential)
    X0 = gc.VectorField(chart, [p, -diff(U, x)])
    X = gc.VectorField(chart, [p, -diff(U, x) - alpha * p])
    label = "U = x^2/2" if potential is None else f"U = {potential}"
    conformal = gc.certify_conformal_symplectic(damped, omega, small_step=h)
    expected = sympy.Mul(*[1 - b * alpha * h for b in method.kicks])
    if conformal.holds is True and decide_zero(conformal.factor - expected).is_zero is not True:
        conformal = gc.Certificate(claim="conformal factor == " + sympy.sstr(expected), holds=False,
                                   method="comparison of the certified factor")
    holding = [
        (f"{method.name} without damping, {label}: symplectic", gc.certify_symplectic(undamped, omega)),
        (f"{method.name} without damping, {label}: order {method.order}",
         gc.certify_order(undamped, X0, h, method.order)),
        (f"{method.name} with the damping force in its kicks, {label}: conformally symplectic, factor "
         f"{sympy.sstr(expected)}", conformal),
        (f"{method.name} with the damping force in its kicks, {label}: order 1", gc.certify_order(damped, X, h, 1)),
    ]
    return holding, gc.certify_order(damped, X, h, 2)
