"""Stormer-Verlet for separable Hamiltonians, written as a symbolic step.

For ``H = T(p) + V(q)`` (``T_p`` depends on p only, ``V_q`` on q only):

velocity form (kick-drift-kick)::

    p_half = p - h/2 V_q(q);  Q = q + h T_p(p_half);  P = p_half - h/2 V_q(Q)

position form (drift-kick-drift)::

    q_half = q + h/2 T_p(p);  P = p - h V_q(q_half);  Q = q_half + h/2 T_p(P)

Declared order 2, properties ``{"symplectic", "symmetric"}`` (certified by
:meth:`~integrators.schemes.base.Scheme.certify` on any system, generic ones included).
A non-separable H is refused: use ``lobatto-iiia-iiib-2`` (the same method, implicit).

>>> import sympy, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> V = sympy.Function("V")
>>> s = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
>>> sv = ig.scheme("stormer-verlet")
>>> {k: c.holds for k, c in sv.certify(s).items()}
{'order': True, 'symmetric': True, 'symplectic': True}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

import geomcheck as gc

from .base import Scheme
from .stages import stage_parameters

if TYPE_CHECKING:
    from geomcheck.bseries import BSeries

__all__ = ["StormerVerlet"]


class StormerVerlet(Scheme):
    """Stormer-Verlet (``form="velocity"`` or ``"position"``) for separable H."""

    requires = frozenset({"hamiltonian", "separable"})
    order = 2
    properties = frozenset({"symplectic", "symmetric"})

    def __init__(self, form="velocity"):
        if form not in ("velocity", "position"):
            raise ValueError(f"StormerVerlet: form must be 'velocity' or 'position', got {form!r}")
        self.form = form
        self.name = "stormer-verlet" if form == "velocity" else "stormer-verlet-position"
        self.description = ("kick-drift-kick (velocity Verlet)" if form == "velocity"
                            else "drift-kick-drift (position Verlet)")

    def _build(self, system):
        h = self.h
        X = system.vector_field
        q, p = system.q, system.p
        Tp = [X.component(qi) for qi in q]      # q' = T_p(p)
        F = [X.component(pi) for pi in p]       # p' = -V_q(q)
        half = sympy.Rational(1, 2)
        if self.form == "velocity":
            ph = [pi + half * h * fi for pi, fi in zip(p, F)]
            at_ph = dict(zip(p, ph))
            Q = [qi + h * gc.substitute(t, at_ph) for qi, t in zip(q, Tp)]
            at_Q = dict(zip(q, Q))
            P = [phi + half * h * gc.substitute(fi, at_Q) for phi, fi in zip(ph, F)]
        else:
            qh = [qi + half * h * t for qi, t in zip(q, Tp)]
            at_qh = dict(zip(q, qh))
            P = [pi + h * gc.substitute(fi, at_qh) for pi, fi in zip(p, F)]
            at_P = dict(zip(p, P))
            Q = [qhi + half * h * gc.substitute(t, at_P) for qhi, t in zip(qh, Tp)]
        return gc.Map(system.chart, system.chart, Q + P, parameters=stage_parameters(system))

    def bseries(self, order: int) -> BSeries:
        """The P-series of the method: the Lobatto IIIA-IIIB pair with two stages (IIIA for q in the
        velocity form, for p in the position form), which Stormer-Verlet is (Hairer, Lubich, Wanner, II.2).

        >>> from geomcheck.bseries import exact_flow
        >>> sv = StormerVerlet().bseries(3)
        >>> sv.truncate(2) == exact_flow(2, colours=2), sv == exact_flow(3, colours=2)
        (True, False)
        """
        from geomcheck import bseries
        from geomcheck.certify import families
        from geomcheck.certify.tableaux import PartitionedTableau

        pair = families.lobatto_iiia_iiib(2)
        if self.form == "position":
            pair = PartitionedTableau.from_parts(pair.p, pair.q, name="Lobatto IIIB-IIIA (s=2)")
        return bseries.partitioned_runge_kutta(pair, order, name=self.name)

    def __eq__(self, other):
        return type(other) is type(self) and other.form == self.form

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"<scheme {self.name}: Stormer-Verlet, {self.description}>"
