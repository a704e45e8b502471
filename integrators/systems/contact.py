"""Contact Hamiltonian systems on ``(x, p, z)`` with the contact form ``eta = dz - sum p_i dx_i``.

>>> import sympy, integrators as ig
>>> x, p, z = sympy.symbols("x p z")
>>> ig.ContactSystem(p**2 / 2 + x**2 / 2 + z, x, p, z).eta
Form((-p)*dx + dz)
"""

from __future__ import annotations

from typing import Iterable, Mapping

import sympy

import geomcheck as gc

from ..errors import SystemDefinitionError
from .base import System, checked_expression, checked_symbols, constant_parameters

__all__ = ["ContactSystem"]


class ContactSystem(System):
    """A contact Hamiltonian system on ``(x, p, z)`` with contact form ``eta = dz - sum p_i dx_i``.

    The vector field (the public contract, docs/contract.md):
    ``x' = H_p, p' = -H_x - p H_z, z' = p H_p - H``.

    Parameters
    ----------
    H : sympy expression
        The contact Hamiltonian ``H(x, p, z[, t])``.
    x, p : sequence of Symbol (or one Symbol)
    z : Symbol
    t : Symbol, optional
        The time, when H depends on it (a time-dependent system; schemes evaluate their
        stages at ``t + c_i h``).
    parameters : dict, optional
        Numeric values of constant symbols (see :class:`HamiltonianSystem`).

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> x, p, z, g = sympy.symbols("x p z gamma")
    >>> damped = ig.ContactSystem(p**2 / 2 + x**2 / 2 + g * z, x, p, z)
    >>> damped.vector_field
    VectorField({x: p, p: -gamma*p - x, z: -gamma*z + p**2/2 - x**2/2})
    >>> damped.eta
    Form((-p)*dx + dz)
    >>> damped.parameters
    (gamma,)
    """

    kind = "contact"

    def __init__(self, H: sympy.Expr | float, x: sympy.Symbol | str | Iterable[sympy.Symbol],
                 p: sympy.Symbol | str | Iterable[sympy.Symbol], z: sympy.Symbol | str,
                 t: sympy.Symbol | str | None = None, parameters: Mapping | None = None):
        owner = "ContactSystem"
        self.x = checked_symbols(x, "x", owner)
        self.p = checked_symbols(p, "p", owner)
        zz = checked_symbols(z, "z", owner)
        if len(zz) != 1:
            raise SystemDefinitionError(f"{owner}: z must be one Symbol, got {z!r}")
        self.z = zz[0]
        if not self.x or len(self.x) != len(self.p):
            raise SystemDefinitionError(
                f"{owner}: {len(self.x)} positions {list(self.x)} and {len(self.p)} momenta {list(self.p)};"
                " expected at least one and as many momenta as positions"
            )
        if t is not None:
            times = checked_symbols(t, "t", owner)
            if len(times) != 1:
                raise SystemDefinitionError(f"{owner}: t must be one time Symbol, got {t!r}")
            (t,) = times
        self.time = t
        coords = self.x + self.p + (self.z,)
        if len(set(coords + ((t,) if t is not None else ()))) != len(coords) + (t is not None):
            raise SystemDefinitionError(f"{owner}: the coordinates {list(coords)} (and the time {t}) are not distinct")
        self.H = checked_expression(H, owner)
        self._parameters, self._values = constant_parameters(self.H, coords, t, parameters, owner)
        self.chart = gc.Chart(list(coords))
        M = self.chart
        eta = M.d(self.z)
        for xi, pi in zip(self.x, self.p):
            eta = eta - pi * M.d(xi)
        self.eta = eta
        self.vector_field = gc.contact_vector_field(self.H, eta)

    def _key(self):
        return (self.H, self.x, self.p, self.z, self.time,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The contact Hamiltonian H (not conserved: dH/dt = -H H_z + H_t along the flow)."""
        return self.H

    @property
    def degrees_of_freedom(self) -> int:
        return len(self.x)

    def __repr__(self):
        t = f", t={self.time}" if self.time is not None else ""
        return f"ContactSystem({self.H}, x={list(self.x)}, p={list(self.p)}, z={self.z}{t})"

    def _latex(self, printer=None):
        return r"H = " + sympy.latex(self.H)
