"""Runge-Kutta methods from an exact Butcher tableau (a scheme that is data).

The coefficients live in a :class:`geomcheck.certify.tableaux.ButcherTableau` (exact
entries, validated when built).  The step map is built from them by
:func:`~integrators.schemes.stages.stage_step`; the order and the properties are
*computed* from them by geomcheck's tableau certificates (Butcher trees; the
symplecticity condition; symmetry up to a renumbering of stages), never declared.

>>> import sympy, integrators as ig
>>> half = sympy.Rational(1, 2)
>>> heun = ig.RungeKutta([[0, 0], [1, 0]], [half, half])
>>> heun.order, sorted(heun.properties), heun.explicit
(2, [], True)
>>> midpoint = ig.RungeKutta([[half]], [1])
>>> midpoint.order, sorted(midpoint.properties)
(2, ['symmetric', 'symplectic'])
"""

from __future__ import annotations

from typing import Any, Sequence

from geomcheck.certify import tableaux

from .stages import stage_step
from .tableau import TableauScheme

__all__ = ["RungeKutta"]


class RungeKutta(TableauScheme):
    """A Runge-Kutta method ``(A, b, c)`` with exact coefficients.

    Parameters
    ----------
    A : s x s matrix (list of rows) of exact numbers
    b : s weights
    c : s nodes, optional (must be the row sums of A; default: the row sums)
    name, description : str, optional

    Attributes
    ----------
    tableau : geomcheck.certify.tableaux.ButcherTableau
    order : int
        Computed from Butcher trees (``order_certificate()`` has the proof).
    properties : frozenset of str
        ``"symplectic"`` iff the symplecticity condition holds, ``"symmetric"`` iff the method
        is its own adjoint up to a renumbering of stages (``tableau_certificates()``).
    explicit : bool
        A strictly lower triangular.

    Raises
    ------
    geomcheck.errors.TableauError
        (its subclasses) for a malformed tableau: shapes, non-numbers, floats, nodes that are
        not the row sums.
    """

    def __init__(self, A: tableaux.ButcherTableau | Sequence[Sequence[Any]], b: Sequence[Any] | None,
                 c: Sequence[Any] | None = None, name: str | None = None, description: str = ""):
        self.tableau = A if isinstance(A, tableaux.ButcherTableau) else tableaux.ButcherTableau(
            A, b, c, name=name or "")
        T = self.tableau
        self.A, self.b, self.c, self.s = T.A, T.b, T.c, T.s
        self.name = name or T.name or f"runge-kutta-{self.s}-stage"
        self.description = description or T.provenance
        self._order = None
        self._props = None

    @classmethod
    def from_tableau(cls, tableau: tableaux.ButcherTableau, name: str | None = None,
                     description: str = "") -> RungeKutta:
        """The scheme of an existing :class:`~geomcheck.certify.tableaux.ButcherTableau`."""
        return cls(tableau, None, name=name, description=description)

    def _explicit_part(self):
        return self.tableau

    def _build(self, system):
        return stage_step(system, [(self.A, self.b)], nodes=self.c)

    def __repr__(self):
        return f"RungeKutta(name={self.name!r}, A={[list(r) for r in self.A]}, b={list(self.b)})"
