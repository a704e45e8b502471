"""An explicit step that is linear in the state, run as its matrix: ``Y = M y``.

A linear system stepped by an explicit scheme (Stormer-Verlet or an explicit Runge-Kutta method
on a semi-discretized beam or wave) has a step map linear and homogeneous in the state.  Its
matrix ``M`` is the lowered step applied to the unit vectors, formed once per binding (the step
size and the constants): the step the certificates are about, evaluated ``dim`` times.  A step
is then one matrix product per trajectory, whatever the number of operations of the lowered
step (Terakawa-Yaguchi's beam: 581 for Stormer-Verlet, 2087 for rk4, against ``104^2``
multiply-adds in one BLAS call).  ``M`` is rounded once and that rounding enters every step
alike: over ``n`` steps a conserved quadratic drifts by up to about ``n`` times it, coherently,
where the lowered step's roundings depend on the state.

:func:`integrators.integrate` and :func:`integrators.run_map` take this path when asked,
``linear_solve="matrix"``, for an explicit step of an autonomous system in double precision (not
with ``compensated=True``); the default runs the lowered step.  ``Solution.path_note`` says so.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> sol = ig.integrate(osc, "stormer-verlet", [1.0, 0.0], dt=0.5, steps=2, linear_solve="matrix")
>>> sol.path_note
'an explicit step linear in the state, run as its matrix M (formed once; one product per step)'
>>> from integrators.linear import step_matrix
>>> M = step_matrix("stormer-verlet", osc, 0.5)
>>> bool((sol.y[-1] == M @ (M @ np.array([1.0, 0.0]))).all())
True
"""

from __future__ import annotations

import numpy as np

from geomcheck import Map

from .linear import is_linear_map
from .staged import lower_stages

__all__ = ["MatrixStep", "BoundMatrixStep", "matrix_step", "MATRIX_NOTE"]

#: what ``Solution.path_note`` says of a run on this path
MATRIX_NOTE = "an explicit step linear in the state, run as its matrix M (formed once; one product per step)"


class MatrixStep:
    """The matrix form of an explicit step that is linear in the state (the Step protocol of
    :mod:`integrators.stepping`): ``bind`` lowers nothing new, it evaluates the lowered step on
    the unit vectors."""

    explicit = True

    def __init__(self, lowered, dim: int):
        self.lowered, self.dim = lowered, dim
        self.parameters = tuple(lowered.parameters)

    def bind(self, values, **solver_options) -> "BoundMatrixStep":
        bound = self.lowered.bind(values)
        # the images of the unit vectors are the columns of M
        return BoundMatrixStep(bound.step_array(np.eye(self.dim)).T.copy())


class BoundMatrixStep:
    """``Y = M y`` with ``M`` formed; ``MT`` is ``M``'s transpose, contiguous (rows of states times it)."""

    backend = "numpy"

    def __init__(self, M: np.ndarray):
        self.M = M
        self.MT = np.ascontiguousarray(M.T)

    def solvers(self) -> list:
        return []

    def step(self, y, step_index=None):
        """One step of the column state (``dim`` arrays ``(batch,)`` or one ``(dim, batch)`` array);
        returns one ``(dim, batch)`` array."""
        Y = np.ascontiguousarray(np.asarray(y).T)
        return (Y @ self.MT).T

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` array."""
        return np.ascontiguousarray(Y, dtype=float) @ self.MT


def matrix_step(stages, scalars, dim: int) -> MatrixStep | None:
    """The :class:`MatrixStep` of ``stages`` (explicit maps, every one linear and homogeneous in the
    state, :func:`integrators.linear.is_linear_map`), or None when some stage is not."""
    if not all(isinstance(st.map, Map) and is_linear_map(st.map) for st in stages):
        return None
    return MatrixStep(lower_stages(stages, backend="numpy", parameters=scalars), dim)
