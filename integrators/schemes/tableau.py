"""Schemes that are tableaux: order and properties computed from the coefficients, never declared.

The certificates are geomcheck's (:mod:`geomcheck.certify.tableaux`): the order by Butcher
trees (bicoloured for a partitioned tableau), the symplecticity condition, symmetry up to a
renumbering of stages.  Two tableau schemes are equal iff their tableaux are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from geomcheck.certify import tableaux

from .base import Scheme

if TYPE_CHECKING:
    from geomcheck.bseries import BSeries

__all__ = ["TableauScheme"]


class TableauScheme(Scheme):
    """A scheme that is a tableau: its order and properties are computed from the coefficients.

    The common base of :class:`~integrators.RungeKutta` and
    :class:`~integrators.PartitionedRungeKutta`.  A subclass sets ``tableau`` (a geomcheck
    ``ButcherTableau`` or ``PartitionedTableau``) and ``_order = _props = None`` (the
    certificates, computed on first use), and provides ``_explicit_part()`` (the tableau whose
    explicitness decides :attr:`explicit`) or overrides :attr:`explicit`.
    """

    _max_order = None

    def order_certificate(self) -> tableaux.OrderCertificate:
        """The certificate of the computed order (``.order`` on it is the order)."""
        if self._order is None:
            self._order = tableaux.order(self.tableau, self._max_order)
        return self._order

    @property
    def order(self) -> int:
        return self.order_certificate().order

    def tableau_certificates(self) -> dict:
        """``{"order", "symplectic", "symmetric"}``: certificates computed from the coefficients."""
        if self._props is None:
            self._props = {"symplectic": tableaux.is_symplectic(self.tableau),
                           "symmetric": tableaux.is_symmetric(self.tableau)}
        return {"order": self.order_certificate(), **self._props}

    @property
    def properties(self) -> frozenset:
        certs = self.tableau_certificates()
        return frozenset(k for k in ("symplectic", "symmetric") if certs[k].holds is True)

    def bseries(self, order: int) -> BSeries:
        """The B-series (P-series for a partitioned pair) of the tableau up to ``order``, exactly.

        >>> import integrators as ig
        >>> s = ig.scheme("implicit-midpoint").bseries(3)
        >>> [str(c) for _, c in s.items()]
        ['1', '1/2', '1/4', '1/4']
        """
        from geomcheck import bseries

        if isinstance(self.tableau, tableaux.PartitionedTableau):
            return bseries.partitioned_runge_kutta(self.tableau, order, name=self.name)
        return bseries.runge_kutta(self.tableau, order=order, name=self.name)

    @property
    def explicit(self) -> bool:
        return tableaux.is_explicit(self._explicit_part()).holds is True

    def __eq__(self, other):
        return type(other) is type(self) and self.tableau == other.tableau

    def __hash__(self):
        return hash((type(self).__name__, self.tableau))

    def _latex(self, printer=None):
        return self.tableau._latex()
