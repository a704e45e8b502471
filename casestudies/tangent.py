r"""The tangent lift of a step map: the step and its Jacobian, run as one map.

A case study that measures a step's Jacobian (a symplecticity or contact defect) needs
``D Phi(y)`` along the run.  The *tangent lift* of ``Phi`` acts on a state together with
``k`` tangent vectors,

.. math::  (y, v_1, \dots, v_k) \mapsto (\Phi(y), D\Phi(y) v_1, \dots, D\Phi(y) v_k),

and is itself a step map of the chart ``(y, v_1, ..., v_k)``: run from ``(y_0, e_1, ..., e_d)``
(:func:`identity_rows`) it carries the Jacobian of every step taken so far, so it runs through
:func:`integrators.run_map` like any map (the same lowering, Newton solver and backends).

For an explicit :class:`~geomcheck.Map` the tangent part is ``D Phi`` by differentiation; for an
:class:`~geomcheck.ImplicitMap` it is the derivative of the new values by the implicit function
theorem (:attr:`~geomcheck.ImplicitMap.dependence`, symbolic), evaluated at the solved step: the
lifted map's equations are the step's own equations and ``V' - (dY/dy) v = 0``.

>>> import sympy, geomcheck as gc
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> lifted = tangent_lift(gc.Map(M, M, [q + h * p, p - h * q**2]), 1)
>>> lifted.source.coords
(q, p, tangent1_q, tangent1_p)
>>> lifted.exprs[3]
-2*h*q*tangent1_q + tangent1_p
"""

from __future__ import annotations

import numpy as np
import sympy

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError

__all__ = ["tangent_lift", "tangent_symbols", "identity_rows", "jacobians"]


def tangent_symbols(names, columns: int) -> list:
    """``columns`` lists of Symbols ``tangent<k>_<name>``, one list (a tangent vector) per column."""
    return [[sympy.Symbol(f"tangent{k + 1}_{n}") for n in names] for k in range(columns)]


def tangent_lift(phi, columns: int):
    """The map ``(y, v_1..v_columns) -> (Phi(y), D Phi(y) v_1, ..., D Phi(y) v_columns)``.

    Parameters
    ----------
    phi : gc.Map or gc.ImplicitMap
        A step of a chart to itself.
    columns : int >= 1
        How many tangent vectors ride along (the chart's dimension for the whole Jacobian).

    Returns
    -------
    gc.Map or gc.ImplicitMap
        Of the chart ``(y, v_1, ..., v_columns)`` to itself, with ``phi``'s parameters and step symbol.

    Raises
    ------
    InvalidArgumentError
        Not a step of one chart, or an implicit map whose derivatives are not symbolic expressions.
    """
    if not isinstance(phi, (gc.Map, gc.ImplicitMap)) or tuple(phi.source.coords) != tuple(phi.target.coords):
        raise InvalidArgumentError(f"tangent_lift lifts a Map or ImplicitMap of a chart to itself, got {phi!r}")
    if isinstance(columns, bool) or not isinstance(columns, int) or columns < 1:
        raise InvalidArgumentError(f"tangent_lift: columns = {columns!r}; a positive integer was expected")
    coords = tuple(phi.source.coords)
    n = len(coords)
    vectors = tangent_symbols([c.name for c in coords], columns)
    chart = gc.Chart(list(coords) + [v for vec in vectors for v in vec])
    if isinstance(phi, gc.Map):
        rows = [[sympy.diff(e, c) for c in coords] for e in phi.exprs]
        pushed = [sum((rows[i][j] * vec[j] for j in range(n)), sympy.S.Zero) for vec in vectors for i in range(n)]
        return gc.Map(chart, chart, list(phi.exprs) + pushed, parameters=phi.parameters)
    if phi.derivative_mode != "symbolic":
        raise InvalidArgumentError(f"tangent_lift needs the derivatives of the new values as expressions; {phi!r} has"
                                   f" {phi.derivative_mode} derivatives ({phi.derivative_note})")
    derivatives = phi.dependence.derivatives
    new_vectors = tangent_symbols([Y.name for Y in phi.new], columns)
    equations = list(phi.equations)
    for vec, new in zip(vectors, new_vectors):
        for Y, V in zip(phi.new, new):
            equations.append(V - sum((derivatives[Y].get(j, sympy.S.Zero) * vec[j] for j in range(n)), sympy.S.Zero))
    guess = dict(phi.guess)
    guess.update({V: v for new, vec in zip(new_vectors, vectors) for V, v in zip(new, vec)})
    return gc.ImplicitMap(chart, chart, equations, new=list(phi.new) + [V for new in new_vectors for V in new],
                          auxiliary=phi.auxiliary, parameters=phi.parameters, guess=guess, step=phi.step,
                          derivatives="implicit")


def identity_rows(states) -> np.ndarray:
    """Each state ``y`` (a row) followed by the unit vectors ``e_1, ..., e_dim``: the lift's starting states.

    ``states`` of shape ``(batch, dim)`` (floats, or mpf objects) gives ``(batch, dim + dim^2)``.
    """
    Y = np.asarray(states, dtype=object if np.asarray(states).dtype == object else float)
    batch, dim = Y.shape
    unit = np.eye(dim).reshape(-1)
    out = np.empty((batch, dim + dim * dim), dtype=Y.dtype)
    out[:, :dim] = Y
    out[:, dim:] = unit if Y.dtype != object else unit.astype(int)
    return out


def jacobians(lifted_states, dim: int) -> np.ndarray:
    """The Jacobians carried by lifted states ``(..., dim + dim^2)``: ``(..., dim, dim)``, column k the k-th vector."""
    Y = np.asarray(lifted_states)
    vectors = Y[..., dim:].reshape(Y.shape[:-1] + (dim, dim))
    return np.swapaxes(vectors, -1, -2)
