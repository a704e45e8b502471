"""Lagrangian systems ``L(q, qdot)`` (optionally forced), run on the phase space ``(q, p)``.

The state is ``(q, p)`` with ``p = dL/dqdot`` (the Legendre map), so that every scheme of the
catalog sees canonical coordinates and the symplectic form ``sum dq ^ dp``; the variational
integrators (:mod:`integrators.schemes.variational`) are built from L itself.  The vector field
is the Euler-Lagrange (-d'Alembert) field ``q' = qdot(q, p)``, ``p' = L_q + f`` when the
Legendre map is affine in qdot (mechanical Lagrangians ``qdot^T M(q) qdot / 2 + ...``; it is
inverted by :func:`geomcheck.structures.variational.legendre_transform`); a Lagrangian whose
Legendre map is not affine is refused (its field on (q, p) is not explicit).

>>> import sympy
>>> q, v = sympy.symbols("q v")
>>> s = LagrangianSystem(v**2 / 2 + sympy.cos(q), q, v)
>>> s.vector_field
VectorField({q: p_{q}, p_{q}: -sin(q)})
>>> s.energy, s.kind
(p_{q}**2/2 - cos(q), 'lagrangian')
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import sympy

from geomcheck.errors import InvalidArgumentError
from geomcheck.structures.variational import legendre_transform

from ..errors import SystemDefinitionError
from .base import CanonicalSystem, checked_expression, checked_symbols, constant_parameters

__all__ = ["LagrangianSystem"]


class LagrangianSystem(CanonicalSystem):
    """A (forced) Lagrangian system ``d/dt L_qdot = L_q + f`` on the phase space ``(q, p)``.

    Parameters
    ----------
    L : sympy expression
        The Lagrangian in ``q``, ``qdot`` and constant parameters.
    q, qdot : Symbol, str or sequence of Symbols
        Positions and the symbols of their velocities in L.
    p : Symbol, str or sequence of Symbols, optional
        Names of the momenta (default ``p_{q}`` for each q).
    forcing : sequence of expressions in q, qdot, optional
        The non-conservative force f (e.g. ``-gamma M qdot``), one component per q.
    parameters : dict, optional
        Numeric values of constant symbols, used when a step is lowered to numbers.

    Attributes
    ----------
    chart : geomcheck.Chart       (q, p)
    omega : geomcheck.Form        sum dq ^ dp
    vector_field : VectorField    the Euler-Lagrange(-d'Alembert) field on (q, p)
    energy : sympy expression     H = p . qdot - L at qdot(q, p)
    lagrangian, qdot, forcing, legendre (the LegendreTransform)

    Raises
    ------
    SystemDefinitionError
        Bad symbols, a force of the wrong length or depending on p, a degenerate Lagrangian,
        or a Legendre map that is not affine in qdot.

    Examples
    --------
    >>> import sympy
    >>> x, y, u, v, k = sympy.symbols("x y u v k")
    >>> s = LagrangianSystem((u**2 + v**2) / 2 - k * (x**2 + y**2) / 2, [x, y], [u, v], parameters={k: 1})
    >>> s.p, s.parameters, s.dim
    ((p_{x}, p_{y}), (k,), 4)
    >>> LagrangianSystem(v**4, [y], [v])
    Traceback (most recent call last):
    ...
    integrators.errors.SystemDefinitionError: LagrangianSystem: the Legendre map p = dL/dqdot of v**4 is not affine in the velocities [v], so the field on (q, p) is not explicit; give a Lagrangian quadratic in qdot
    """

    kind = "lagrangian"

    def __init__(self, L: sympy.Expr, q: sympy.Symbol | str | Iterable[sympy.Symbol],
                 qdot: sympy.Symbol | str | Iterable[sympy.Symbol], *,
                 p: sympy.Symbol | str | Iterable[sympy.Symbol] | None = None,
                 forcing: Sequence[sympy.Expr] | None = None, parameters: Mapping | None = None):
        owner = "LagrangianSystem"
        self.q = checked_symbols(q, "q", owner)
        self.qdot = checked_symbols(qdot, "qdot", owner)
        if not self.q:
            raise SystemDefinitionError(f"{owner}: at least one degree of freedom is needed (q is empty)")
        n = len(self.q)
        if len(self.qdot) != n:
            raise SystemDefinitionError(f"{owner}: {n} positions but {len(self.qdot)} velocities; expected as many")
        if p is None:
            p = tuple(sympy.Symbol(f"p_{{{x.name}}}") for x in self.q)
        self.p = checked_symbols(p, "p", owner)
        if len(self.p) != n:
            raise SystemDefinitionError(f"{owner}: {n} positions but {len(self.p)} momenta; expected as many")
        if len(set(self.q + self.qdot + self.p)) != 3 * n:
            raise SystemDefinitionError(f"{owner}: the symbols q, qdot, p {list(self.q + self.qdot + self.p)} are"
                                        " not distinct")
        self.lagrangian = checked_expression(L, owner)
        if self.lagrangian.free_symbols & set(self.p):
            raise SystemDefinitionError(f"{owner}: the Lagrangian {self.lagrangian} contains momenta; it is a"
                                        " function of q and qdot")
        if forcing is not None:
            if isinstance(forcing, sympy.Expr) or not isinstance(forcing, Iterable):
                forcing = (forcing,)
            forcing = tuple(checked_expression(f, owner + " (force)") for f in forcing)
            if len(forcing) != n:
                raise SystemDefinitionError(f"{owner}: {n} positions but {len(forcing)} force components")
            if any(f.free_symbols & set(self.p) for f in forcing):
                raise SystemDefinitionError(f"{owner}: the force is a function of q and qdot, not of the momenta")
            if all(f == 0 for f in forcing):
                forcing = None
        self.forcing = forcing
        everything = sympy.Tuple(self.lagrangian, *(forcing or ()))
        self._parameters, self._values = constant_parameters(everything, self.q + self.qdot + self.p, None,
                                                             parameters, owner)
        try:
            self.legendre = legendre_transform(self.lagrangian, self.q, self.qdot, self.p, forcing)
        except InvalidArgumentError as error:
            raise SystemDefinitionError(f"{owner}: {error}") from None
        if self.legendre.vector_field is None:
            raise SystemDefinitionError(
                f"{owner}: the Legendre map p = dL/dqdot of {self.lagrangian} is not affine in the velocities"
                f" {list(self.qdot)}, so the field on (q, p) is not explicit; give a Lagrangian quadratic in qdot")
        self.chart = self.legendre.vector_field.chart
        M = self.chart
        omega = M.d(self.q[0]) ^ M.d(self.p[0])
        for qi, pi in zip(self.q[1:], self.p[1:]):
            omega = omega + (M.d(qi) ^ M.d(pi))
        self.omega = omega
        self.vector_field = self.legendre.vector_field

    def _key(self):
        return (self.lagrangian, self.q, self.qdot, self.p, self.forcing,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """``H = p . qdot - L`` at ``qdot(q, p)`` (conserved when there is no force)."""
        return self.legendre.hamiltonian

    @property
    def velocity(self) -> tuple:
        """``qdot(q, p)``, the inverse Legendre map."""
        return self.legendre.velocity

    @property
    def is_separable(self) -> bool:
        """True iff every ``q'`` is free of q and every ``p'`` free of p (Verlet is then explicit)."""
        return self._vector_field_is_separable()

    def __repr__(self):
        force = f", forcing={list(self.forcing)}" if self.forcing else ""
        return f"LagrangianSystem({self.lagrangian}, q={list(self.q)}, qdot={list(self.qdot)}{force})"

    def _latex(self, printer=None):
        out = r"L = " + sympy.latex(self.lagrangian)
        if self.forcing:
            out += r",\quad f = " + sympy.latex(sympy.Matrix(self.forcing).T)
        return out

