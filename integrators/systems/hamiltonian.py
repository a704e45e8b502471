"""Canonical Hamiltonian systems ``q' = H_p, p' = -H_q`` on the chart ``(q, p)``.

>>> import sympy, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q=[q], p=[p])
>>> pendulum.vector_field
VectorField({q: p, p: -sin(q)})
>>> pendulum.is_separable, pendulum.dim
(True, 2)
"""

from __future__ import annotations

from typing import Iterable, Mapping

import sympy

import geomcheck as gc

from ..errors import SystemDefinitionError
from geomcheck.structures import canonical_symplectic_form

from .base import CanonicalSystem, checked_expression, checked_symbols, constant_parameters

__all__ = ["HamiltonianSystem"]


class HamiltonianSystem(CanonicalSystem):
    """A canonical Hamiltonian system ``q' = H_p, p' = -H_q``.

    Parameters
    ----------
    H : sympy expression
        The Hamiltonian, in the coordinates ``q`` and ``p`` and constant parameters
        (undefined functions such as ``Function("V")(q)`` mean "any smooth function").
    q, p : sequence of Symbol (or one Symbol)
        Positions and momenta, as many of each.
    parameters : dict, optional
        Numeric values of constant symbols of H, used when a step is lowered to numbers
        (``integrate`` may override them).

    Attributes
    ----------
    chart : geomcheck.Chart        (q_1..q_n, p_1..p_n)
    omega : geomcheck.Form         sum dq_i ^ dp_i
    vector_field : geomcheck.VectorField
    energy : sympy expression      H itself
    is_separable : bool            H = T(p) + V(q), detected (mixed second derivatives vanish)

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> V = sympy.Function("V")
    >>> s = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    >>> s.omega
    Form(dq^dp)
    >>> s.is_separable, s.is_generic
    (True, True)
    >>> ig.HamiltonianSystem(p**2 * q**2 / 2, q, p).is_separable
    False
    """

    kind = "hamiltonian"

    def __init__(self, H: sympy.Expr | float, q: sympy.Symbol | str | Iterable[sympy.Symbol],
                 p: sympy.Symbol | str | Iterable[sympy.Symbol], parameters: Mapping | None = None):
        owner = "HamiltonianSystem"
        self.q = checked_symbols(q, "q", owner)
        self.p = checked_symbols(p, "p", owner)
        if not self.q:
            raise SystemDefinitionError(f"{owner}: at least one degree of freedom is needed (q is empty)")
        if len(self.q) != len(self.p):
            raise SystemDefinitionError(
                f"{owner}: {len(self.q)} positions {list(self.q)} but {len(self.p)} momenta {list(self.p)};"
                " expected as many momenta as positions"
            )
        coords = self.q + self.p
        if len(set(coords)) != len(coords):
            raise SystemDefinitionError(f"{owner}: the coordinates {list(coords)} are not distinct")
        self.H = checked_expression(H, owner)
        self._parameters, self._values = constant_parameters(self.H, coords, None, parameters, owner)
        self.chart = gc.Chart(list(coords))
        M = self.chart
        self.omega = canonical_symplectic_form(self.q, self.p, M)
        self.vector_field = gc.hamiltonian_vector_field(self.H, self.omega)
        self._separable = None

    def _key(self):
        return (self.H, self.q, self.p, tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The conserved energy: H."""
        return self.H

    @property
    def is_separable(self) -> bool:
        """True iff ``H = T(p) + V(q)``: every mixed derivative ``H_{q_i p_j}`` vanishes.

        Decided by geomcheck's zero test (an undecided case counts as not separable).
        """
        if self._separable is None:
            from geomcheck.zero import decide_all_zero

            # only the additive terms that contain a position and a momentum can have a mixed
            # derivative: a chain's H = sum p^2/2 + sum V(q_i - q_j) has none (no n^2 derivatives)
            qs, ps = set(self.q), set(self.p)
            mixing = sympy.Add(*[t for t in sympy.Add.make_args(self.H)
                                 if t.free_symbols & qs and t.free_symbols & ps])
            present = mixing.free_symbols
            mixed = [sympy.diff(mixing, qi, pj) for qi in self.q if qi in present for pj in self.p if pj in present]
            mixed = [m for m in mixed if m != 0]
            self._separable = (not mixed) or decide_all_zero(mixed, budget=5.0).is_zero is True
        return self._separable

    def __repr__(self):
        return f"HamiltonianSystem({self.H}, q={list(self.q)}, p={list(self.p)})"

    def _latex(self, printer=None):
        return r"H = " + sympy.latex(self.H)
