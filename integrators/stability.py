r"""The step-size limit of Stormer-Verlet, and a check that refuses a step beyond it.

For ``q' = B p``, ``p' = D q`` (the linearization of a separable system, Hamiltonian or
forced) the positions obey ``q'' = B D q``.  On a mode with ``B D v = -omega^2 v`` one
Verlet step (either form) has the characteristic polynomial
``z^2 - (2 - h^2 omega^2) z + 1``: its roots stay on the unit circle iff
``h omega < 2``, and for ``h omega > 2`` one root exceeds 1 in modulus and the numerical
solution grows like ``|z|^n`` although the exact one oscillates.  So

    dt_max = 2 / omega_max,     omega_max^2 = max over the eigenvalues of -B D.

For a linear system (a semi-discretized beam) the matrices are constant and the limit is
exact; for a nonlinear one it is the limit of the linearization at a given state.  The
matrices come from the system's symbolic vector field (differentiated by
:func:`geomcheck.calculus.diff`).

>>> import sympy, integrators as ig
>>> from integrators.stability import verlet_stability_limit, check_verlet_step
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem(p**2 / 2 + 100 * q**2 / 2, q, p)     # omega = 10
>>> verlet_stability_limit(osc).dt_max
0.2
>>> check_verlet_step(osc, 0.21)
Traceback (most recent call last):
    ...
integrators.stability.StepSizeError: dt = 0.21 is beyond the stability limit of Stormer-Verlet for HamiltonianSystem(p**2/2 + 50*q**2, q=[q], p=[p]): dt*omega_max = 2.1 >= 2 (omega_max = 10, dt_max = 2/omega_max = 0.2); the numerical solution would grow without bound. Take dt < 0.2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from geomcheck.calculus import diff
from geomcheck.errors import InvalidArgumentError

from .integrate import _check_dt, _parameter_values
from .systems import CanonicalSystem

__all__ = ["StabilityLimit", "StepSizeError", "verlet_stability_limit", "check_verlet_step"]


class StepSizeError(InvalidArgumentError):
    """A step size beyond the stability limit of an explicit scheme (the message gives the limit)."""


@dataclass(frozen=True)
class StabilityLimit:
    """The Stormer-Verlet step-size limit of a system.

    Attributes
    ----------
    dt_max : float             ``2 / omega_max`` (inf when no mode oscillates)
    omega_max : float          the largest angular frequency of the (linearized) system
    frequencies : ndarray      every ``omega`` (sorted), from the eigenvalues of ``-B D``
    unstable_modes : int       eigenvalues of ``-B D`` that are negative or complex (the
                               linearization itself grows there; no step size helps)
    linear : bool              the system is linear (the limit is exact, not local)
    """

    dt_max: float
    omega_max: float
    frequencies: np.ndarray
    unstable_modes: int
    linear: bool


def _jacobian_block(X, rows, cols, values, at):
    J = np.zeros((len(rows), len(cols)))
    col = {c: j for j, c in enumerate(cols)}
    linear = True
    for i, r in enumerate(rows):
        comp = X.component(r)
        for c in comp.free_symbols & set(cols):
            dij = diff(comp, c)
            if dij.free_symbols & set(at):
                linear = False
            J[i, col[c]] = float(sympy.N(dij.xreplace({**values, **at})))
    return J, linear


def verlet_stability_limit(system, params=None, at=None) -> StabilityLimit:
    """The step-size limit ``2 / omega_max`` of Stormer-Verlet on ``system``.

    Parameters
    ----------
    system : HamiltonianSystem or ForcedHamiltonianSystem, separable, concrete
    params : dict, optional
        Values of the system's constants.
    at : dict {coordinate: number}, optional
        Where to linearize a nonlinear system (default: the origin).

    Raises
    ------
    InvalidArgumentError
        Not a canonical separable system.
    """
    if not isinstance(system, CanonicalSystem) or not system.is_separable:
        raise InvalidArgumentError(
            f"the Stormer-Verlet stability limit needs a separable canonical system (q' = T(p), p' = F(q)),"
            f" got {system!r}")
    values = _parameter_values(system, params)
    point = {c: sympy.S.Zero for c in system.coords}
    point.update({k: sympy.sympify(v) for k, v in dict(at or {}).items()})
    X = system.vector_field
    B, lin_b = _jacobian_block(X, system.q, system.p, values, point)
    D, lin_d = _jacobian_block(X, system.p, system.q, values, point)
    lam = np.linalg.eigvals(-(B @ D))
    scale = max(1.0, float(np.abs(lam).max())) if lam.size else 1.0
    tiny = 1e-9 * scale
    good = lam[(np.abs(lam.imag) <= tiny) & (lam.real >= -tiny)].real
    unstable = int(lam.size - good.size)
    omegas = np.sort(np.sqrt(np.clip(good, 0.0, None)))
    omega_max = float(omegas[-1]) if omegas.size else 0.0
    dt_max = 2.0 / omega_max if omega_max > 0 else float("inf")
    return StabilityLimit(dt_max, omega_max, omegas, unstable, lin_b and lin_d)


def check_verlet_step(system, dt, params=None, at=None, limit=None) -> StabilityLimit:
    """Refuse a Stormer-Verlet step size at or beyond the stability limit.

    Returns the :class:`StabilityLimit` when ``dt < dt_max``.

    Raises
    ------
    StepSizeError
        ``dt * omega_max >= 2``; the message gives the limit and what to take instead.
    """
    dt_value = _check_dt(dt, "numpy", None)
    lim = limit if limit is not None else verlet_stability_limit(system, params, at)
    if dt_value * lim.omega_max >= 2.0:
        where = "" if lim.linear else " (linearized at the given state)"
        raise StepSizeError(
            f"dt = {dt_value:g} is beyond the stability limit of Stormer-Verlet for {system!r}{where}:"
            f" dt*omega_max = {dt_value * lim.omega_max:.4g} >= 2 (omega_max = {lim.omega_max:.6g},"
            f" dt_max = 2/omega_max = {lim.dt_max:.6g}); the numerical solution would grow without bound."
            f" Take dt < {lim.dt_max:.6g}."
        )
    return lim
