"""Q-structures (homological vector fields) on graded charts.

>>> import geomcheck as gc
>>> M = gc.Chart("x y")
>>> Q = gc.de_rham_vector_field(M)
>>> Q.degree, Q.is_homological()
(1, True)
"""

from __future__ import annotations

from .algebra import Chart
from .fields import VectorField

__all__ = ["de_rham_vector_field"]


def de_rham_vector_field(M: Chart) -> VectorField:
    """The exterior derivative as the degree-1 vector field ``dx^i d/dx^i`` on T[1]M."""
    T = M.shifted_tangent()
    n = M.dim
    return VectorField(T, {T.coords[i]: T.coords[n + i] for i in range(n)})
