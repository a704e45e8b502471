"""Partitioned Runge-Kutta methods: one tableau for q, one for p (a scheme that is data).

Applied to a :class:`~integrators.HamiltonianSystem`; the q-coordinates take
``(A1, b1)``, the p-coordinates ``(A2, b2)`` (the convention of
:class:`geomcheck.certify.tableaux.PartitionedTableau`).  On a separable Hamiltonian
the stage dependencies often untangle into explicit formulas (Lobatto IIIA-IIIB with
two stages *is* Stormer-Verlet); otherwise the step is an ImplicitMap.  Order and
properties are computed from the coefficients (bicoloured trees, the partitioned
symplecticity condition with ``b1 == b2``, symmetry of both parts).

>>> import sympy, integrators as ig
>>> euler_b = ig.PartitionedRungeKutta([[1]], [1], [[0]], [1])
>>> euler_b.order, sorted(euler_b.properties)
(1, ['symplectic'])
"""

from __future__ import annotations

from typing import Any, Sequence

from geomcheck.certify import tableaux

from .stages import stage_step
from .tableau import TableauScheme

__all__ = ["PartitionedRungeKutta", "symplectic_euler_b"]


class PartitionedRungeKutta(TableauScheme):
    """A partitioned Runge-Kutta method: ``(A1, b1)`` for q, ``(A2, b2)`` for p.

    Parameters
    ----------
    A1, b1 : the q-part tableau (exact numbers)
    A2, b2 : the p-part tableau, with the same number of stages
    name, description : str, optional

    Attributes
    ----------
    tableau : geomcheck.certify.tableaux.PartitionedTableau
    order : int  (computed: bicoloured trees, examined up to order 6)
    properties : frozenset of str  (computed: "symplectic", "symmetric")
    """

    requires = frozenset({"hamiltonian"})

    def __init__(self, A1: tableaux.PartitionedTableau | Sequence[Sequence[Any]], b1: Sequence[Any] | None = None,
                 A2: Sequence[Sequence[Any]] | None = None, b2: Sequence[Any] | None = None, name: str | None = None,
                 description: str = ""):
        self.tableau = A1 if isinstance(A1, tableaux.PartitionedTableau) else tableaux.PartitionedTableau(
            A1, b1, A2, b2, name=name or "")
        T = self.tableau
        self.A1, self.b1, self.A2, self.b2 = T.q.A, T.q.b, T.p.A, T.p.b
        self.s = T.s
        self.name = name or T.name or f"partitioned-runge-kutta-{self.s}-stage"
        self.description = description or T.provenance
        self._order = None
        self._props = None

    @classmethod
    def from_tableau(cls, tableau: tableaux.PartitionedTableau, name: str | None = None,
                     description: str = "") -> PartitionedRungeKutta:
        """The scheme of an existing :class:`~geomcheck.certify.tableaux.PartitionedTableau`."""
        return cls(tableau, name=name, description=description)

    @property
    def explicit(self) -> bool:
        return all(tableaux.is_explicit(T).holds is True for T in (self.tableau.q, self.tableau.p))

    def _build(self, system):
        n = system.degrees_of_freedom
        return stage_step(system, [(self.A1, self.b1), (self.A2, self.b2)], part=[0] * n + [1] * n,
                          nodes=self.tableau.q.c)

    def __repr__(self):
        return (f"PartitionedRungeKutta(name={self.name!r}, A1={[list(r) for r in self.A1]}, b1={list(self.b1)},"
                f" A2={[list(r) for r in self.A2]}, b2={list(self.b2)})")


def symplectic_euler_b() -> PartitionedRungeKutta:
    """Symplectic Euler B: ``Q = q + h H_p(Q, p)``, ``P = p - h H_q(Q, p)`` (drift then kick when separable).

    The catalog's ``symplectic-euler-b``; the adjoint of :func:`geomcheck.certify.families.symplectic_euler`
    (q part implicit Euler, p part explicit Euler).

    >>> euler_b = symplectic_euler_b()
    >>> euler_b.name, euler_b.order, sorted(euler_b.properties)
    ('symplectic-euler-b', 1, ['symplectic'])
    """
    return PartitionedRungeKutta([[1]], [1], [[0]], [1], name="symplectic-euler-b",
                                 description="Q = q + h H_p(Q, p), P = p - h H_q(Q, p) (drift then kick when separable)")
