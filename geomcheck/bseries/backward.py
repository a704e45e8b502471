"""Backward error analysis with B-series: modified equations and modifying integrators.

* :func:`modified_equation` -- the vector field ``f~ = f + h f_2 + h^2 f_3 + ...`` whose exact
  flow the method is, up to the truncation order (HLW IX.9): the logarithm of the method's
  series in the Butcher group, for every ``f`` at once.
* :func:`modifying_integrator` -- the field ``f~`` such that the method applied to ``f~`` is
  the exact flow of ``f`` up to the order (Chartier, Hairer, Vilmart 2007): the solution of
  ``substitute(b, method) == exact_flow``.

Both return a vector-field series (``b(∅) = 0``, ``h f~ = B(b)``), which
:func:`geomcheck.bseries.differentials.evaluate` turns into a geomcheck VectorField for a
given ``f``.

Examples
--------
>>> import sympy
>>> from geomcheck.bseries.methods import runge_kutta
>>> midpoint = runge_kutta([[0, 0], [sympy.Rational(1, 2), 0]], [0, 1], order=3)   # explicit midpoint
>>> [str(c) for _, c in modified_equation(midpoint, 3).items()]
['1', '0', '-1/12', '-1/6']
>>> implicit_midpoint = runge_kutta([[sympy.Rational(1, 2)]], [1], order=3)
>>> [str(c) for _, c in modifying_integrator(implicit_midpoint, 3).items()]
['1', '0', '1/12', '-1/12']
"""

from __future__ import annotations

from typing import Any

from .laws import logarithm, solve_substitution
from .methods import exact_flow, series_of
from .series import BSeries

__all__ = ["modified_equation", "modifying_integrator"]


def modified_equation(method: Any, order: int) -> BSeries:
    """The modified vector field of ``method`` up to ``order`` (trees with at most ``order`` vertices).

    Parameters
    ----------
    method : BSeries, ButcherTableau, PartitionedTableau, or an object with ``.bseries(order)``
        E.g. ``ig.RungeKutta(A, b)`` or a catalog scheme that is a B-series method.
    order : int
        The truncation order: the terms up to ``h^(order - 1)`` of ``f~``.

    Returns
    -------
    BSeries
        A vector-field series (``b(∅) = 0``).
    """
    a = series_of(method, order)
    name = a.name or "the method"
    return logarithm(a).with_name(f"modified equation of {name}")


def modifying_integrator(method: Any, order: int) -> BSeries:
    """The field that ``method`` must be applied to so as to give the exact flow of ``f`` up to ``order``.

    Parameters
    ----------
    method : as for :func:`modified_equation`
        A consistent method (``a(τ) = 1``).
    order : int

    Returns
    -------
    BSeries
        A vector-field series (``b(∅) = 0``).
    """
    a = series_of(method, order)
    name = a.name or "the method"
    b = solve_substitution(a, exact_flow(order, a.colours))
    return b.with_name(f"modifying integrator of {name}")
