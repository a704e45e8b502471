r"""Poisson systems ``x' = P(x) grad H(x)``: the free rigid body and a Lotka-Volterra system.

A :class:`PoissonSystem` is a Hamiltonian ``H`` on a chart with a Poisson tensor ``P`` (skew,
with the Jacobi identity: checked with :func:`geomcheck.certify.poisson.certify_poisson_structure`
at construction) and, optionally, Casimirs (``P grad C = 0``: checked with
:func:`geomcheck.certify.poisson.certify_casimir`).  Its vector field is ``P grad H``; every
Poisson map of ``P`` near the identity that is the exact flow of some Hamiltonian keeps the
Casimirs, and so does every scheme certified ``"casimir-preserving"``.

Two constructors give the systems of the literature:

* :func:`rigid_body` -- Euler's equations of the free rigid body on so(3)*:
  ``m' = m x I^{-1} m`` with ``P(m) = hat(m) = [[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]]``
  (so that ``P(m) v = m x v``), ``H = sum m_i^2 / (2 I_i)``, Casimir ``|m|^2``.  Sign convention:
  the bracket is ``{F, G}(m) = grad F . (m x grad G) = -m . (grad F x grad G)``, the
  "minus" Lie-Poisson bracket of so(3)* as in Hairer-Lubich-Wanner, *Geometric Numerical
  Integration* (HLW), Section VII.5 and eq. (IV.1.4); the test-suite checks
  ``P grad H == m x I^{-1} m`` componentwise.
* :func:`lotka_volterra` -- HLW's Lotka-Volterra system (Section I.1.1, Example VII.2.4)
  ``u' = u (v - 2), v' = v (1 - u)`` on ``u, v > 0`` with ``P = [[0, u v], [-u v, 0]]`` and
  ``H = u - ln u + v - 2 ln v`` (minus HLW's invariant ``I = ln u - u + 2 ln v - v``).

>>> import sympy
>>> from integrators.systems.poisson import rigid_body, lotka_volterra
>>> body = rigid_body(2, 1, sympy.Rational(2, 3))
>>> body.vector_field
VectorField({m1: m2*m3/2, m2: -m1*m3, m3: m1*m2/2})
>>> lv = lotka_volterra()
>>> lv.vector_field
VectorField({u: u*v - 2*u, v: -u*v + v})
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.poisson import certify_casimir, certify_divergence_free, certify_poisson_structure
from geomcheck.errors import InvalidArgumentError, NotACasimirError, NotAPoissonStructureError

from ..errors import SystemDefinitionError
from .base import System, checked_expression, checked_symbols, constant_parameters

__all__ = ["PoissonSystem", "rigid_body", "lotka_volterra"]


class PoissonSystem(System):
    r"""A Poisson system ``x' = P(x) grad H(x)`` (kind ``"poisson"``).

    Parameters
    ----------
    H : sympy expression
        The Hamiltonian in the state ``x`` and constant parameters.
    x : sequence of Symbol (or a string of names)
        The state (the chart's coordinates).
    P : square matrix
        The Poisson tensor (exact entries in ``x`` and constants), proved or at least not
        refuted to be skew with the Jacobi identity.
    casimirs : sequence of sympy expressions, optional
        Functions with ``P grad C = 0`` (each checked; a refuted one raises).
    parameters : dict, optional
        Numeric values of constant symbols (used when a step is lowered to numbers).
    domain : mapping, optional
        ``{coordinate: (lo, hi)}``, the region of phase space (e.g. ``u, v > 0``).
    density : sympy expression, optional
        An invariant density ``rho`` of the flow (``div(rho P grad H) = 0``; default 1):
        the volume ``rho dx`` the property ``"volume-preserving"`` of a scheme refers to.
        Check it with :meth:`density_certificate`.

    Attributes
    ----------
    chart, vector_field (``P grad H``), energy (H), P, casimirs, density, x

    Raises
    ------
    geomcheck.errors.NotAPoissonStructureError
        P is provably not skew or fails the Jacobi identity.
    geomcheck.errors.NotACasimirError
        A given Casimir is provably not one.
    geomcheck.errors.InvalidArgumentError
        P of the wrong shape or with floating-point entries.
    SystemDefinitionError
        Bad symbols, an empty state, a symbol named h.

    Examples
    --------
    >>> import sympy
    >>> q, p = sympy.symbols("q p")
    >>> osc = PoissonSystem((q**2 + p**2) / 2, [q, p], [[0, 1], [-1, 0]])     # canonical P
    >>> osc.vector_field
    VectorField({q: p, p: -q})
    >>> PoissonSystem(q, [q, p], [[0, q], [q, 0]])                      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomcheck.errors.NotAPoissonStructureError: PoissonSystem: ... not skew-symmetric...
    """

    kind = "poisson"

    def __init__(self, H: sympy.Expr | float, x: sympy.Symbol | str | Iterable[sympy.Symbol], P: Any, *,
                 casimirs: Iterable[sympy.Expr] = (), parameters: Mapping | None = None,
                 domain: Mapping | None = None, density: sympy.Expr | int = 1):
        owner = "PoissonSystem"
        xs = checked_symbols(x, "x", owner)
        if not xs:
            raise SystemDefinitionError(f"{owner}: the state x is empty; expected at least one state variable")
        if len(set(xs)) != len(xs):
            raise SystemDefinitionError(f"{owner}: the coordinates {list(xs)} are not distinct")
        self.x = xs
        self.H = checked_expression(H, owner)
        self.chart = gc.Chart(list(xs), domain=domain) if domain is not None else gc.Chart(list(xs))
        try:
            structure = certify_poisson_structure(P, self.chart)
        except InvalidArgumentError as exc:
            raise type(exc)(f"{owner}: {exc}") from None
        self.P = sympy.ImmutableMatrix(P)
        if structure.holds is False:
            raise NotAPoissonStructureError(
                f"{owner}: P = {self.P.tolist()} is not a Poisson tensor: {structure.method}")
        self.structure_certificate = structure
        self.casimirs = tuple(checked_expression(C, owner) for C in casimirs)
        for C in self.casimirs:
            c = certify_casimir(C, self.P, self.chart)
            if c.holds is False:
                raise NotACasimirError(f"{owner}: {C} is not a Casimir of P ({c.method})")
        self.density = checked_expression(density, owner)
        everything = sympy.Tuple(self.H, *self.P, *self.casimirs, self.density)
        self._parameters, self._values = constant_parameters(everything, xs, None, parameters, owner)
        grad = [sympy.diff(self.H, xi) for xi in xs]
        n = len(xs)
        # expanded: the lowered step evaluates these (u v (1 - 2/v) would divide by v)
        field = [sympy.expand(sympy.Add(*[self.P[i, l] * grad[l] for l in range(n)])) for i in range(n)]
        self.vector_field = gc.VectorField(self.chart, dict(zip(xs, field)))

    def _key(self):
        return (self.H, self.x, tuple(self.P), self.casimirs, self.density,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The conserved energy H."""
        return self.H

    @property
    def is_generic(self) -> bool:
        return bool(sympy.Tuple(self.H, *self.P).atoms(sympy.core.function.AppliedUndef))

    def casimir_certificates(self) -> list[Certificate]:
        """``certify_casimir`` of every Casimir (each proved, or undecided, never refuted)."""
        return [certify_casimir(C, self.P, self.chart) for C in self.casimirs]

    def density_certificate(self) -> Certificate:
        """``div(rho X) == 0`` for the vector field X and the density rho (the exact flow keeps ``rho dx``).

        >>> lotka_volterra().density_certificate().holds
        True
        """
        return certify_divergence_free(self.vector_field, self.density)

    def __repr__(self):
        return f"PoissonSystem(H={self.H}, x={list(self.x)}, P={self.P.tolist()})"

    def _latex(self, printer=None):
        return r"\dot x = P\,\nabla H,\quad H = " + sympy.latex(self.H) + r",\quad P = " + sympy.latex(self.P)


def _moment(value, name):
    v = sympy.sympify(value, strict=False) if not isinstance(value, str) else sympy.Symbol(value, positive=True)
    if isinstance(v, sympy.Float):
        raise SystemDefinitionError(f"rigid_body: the moment of inertia {name} = {value!r} is a float; give an exact"
                                    " number (sympy.Rational) or a symbol")
    if v.is_number and not v.is_positive:
        raise SystemDefinitionError(f"rigid_body: the moment of inertia {name} = {value!r} must be positive")
    return v


def rigid_body(I1: Any = "I1", I2: Any = "I2", I3: Any = "I3", m: str | Iterable[sympy.Symbol] = "m1 m2 m3",
               parameters: Mapping | None = None) -> PoissonSystem:
    r"""Euler's equations of the free rigid body on so(3)*: ``m' = m x I^{-1} m``.

    ``P(m) = [[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]]`` (``P v = m x v``), ``H = m1^2/(2 I1)
    + m2^2/(2 I2) + m3^2/(2 I3)``, Casimir ``m1^2 + m2^2 + m3^2`` (see the module docstring
    for the sign convention).

    Parameters
    ----------
    I1, I2, I3 : positive exact numbers, or names/symbols (default: positive symbols I1, I2, I3)
    m : the three state symbols
    parameters : dict, optional, numeric values of symbolic moments

    Examples
    --------
    >>> body = rigid_body()
    >>> body.energy
    m3**2/(2*I3) + m2**2/(2*I2) + m1**2/(2*I1)
    >>> body.casimirs
    (m1**2 + m2**2 + m3**2,)
    """
    I = [_moment(v, n) for v, n in ((I1, "I1"), (I2, "I2"), (I3, "I3"))]
    ms = checked_symbols(m, "m", "rigid_body")
    if len(ms) != 3:
        raise SystemDefinitionError(f"rigid_body: three state symbols m1, m2, m3 were expected, got {list(ms)}")
    m1, m2, m3 = ms
    P = [[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]]
    H = sum(mi**2 / (2 * Ii) for mi, Ii in zip(ms, I))
    return PoissonSystem(H, ms, P, casimirs=[m1**2 + m2**2 + m3**2], parameters=parameters)


def lotka_volterra(u: sympy.Symbol | str = "u", v: sympy.Symbol | str = "v") -> PoissonSystem:
    r"""HLW's Lotka-Volterra system ``u' = u (v - 2), v' = v (1 - u)`` as a Poisson system.

    ``P = [[0, u v], [-u v, 0]]``, ``H = u - ln u + v - 2 ln v`` on ``u, v > 0`` (Hairer,
    Lubich, Wanner, *Geometric Numerical Integration*, Section I.1.1 and Example VII.2.4).
    The state symbols are made positive (the chart's domain is the open quadrant).  The
    invariant density is ``1 / (u v)`` (P is ``u v`` times the canonical tensor).

    Examples
    --------
    >>> lv = lotka_volterra()
    >>> lv.energy
    u + v - log(u) - 2*log(v)
    >>> lv.P
    Matrix([
    [   0, u*v],
    [-u*v,   0]])
    """
    us = sympy.Symbol(u if isinstance(u, str) else u.name, positive=True)
    vs = sympy.Symbol(v if isinstance(v, str) else v.name, positive=True)
    H = us - sympy.log(us) + vs - 2 * sympy.log(vs)
    return PoissonSystem(H, [us, vs], [[0, us * vs], [-us * vs, 0]],
                         domain={us: (0, sympy.oo), vs: (0, sympy.oo)}, density=1 / (us * vs))
