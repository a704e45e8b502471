r"""Poisson splitting schemes: McLachlan's free rigid body, and a Lotka-Volterra splitting.

Both split the Hamiltonian of a :class:`~integrators.systems.poisson.PoissonSystem` into parts
whose flows are known exactly, and compose the exact flows symmetrically (Strang):

* :class:`RigidBodySplitting` (``"rigid-body-splitting"``): McLachlan, *Explicit Lie-Poisson
  integration and the Euler equations*, Phys. Rev. Lett. 71 (1993) 3043-3046.  For
  ``H = H1 + H2 + H3``, ``H_i = m_i^2 / (2 I_i)``, the flow ``R_i(t)`` of ``H_i`` keeps ``m_i``
  and rotates the other two components by the angle ``t m_i / I_i`` about the i-th body axis;
  the step is ``R1(h/2) R2(h/2) R3(h) R2(h/2) R1(h/2)`` (in the order they act), explicit and of
  order 2.
* :class:`LotkaVolterraSplitting` (``"lotka-volterra-splitting"``): for ``P = [[0, u v],
  [-u v, 0]]`` and a separable ``H = F(u) + G(v)`` (HLW's Lotka-Volterra system, Section
  I.1.1, has ``F = u - ln u``, ``G = v - 2 ln v``), the flow of ``F`` is
  ``v <- v exp(-t u F'(u))`` and that of ``G`` is ``u <- u exp(t v G'(v))``; the step is
  ``F(h/2) G(h) F(h/2)``, order 2 (HLW, Example VII.2.4 and Section II.5).

Every factor is the exact flow of a Hamiltonian for the same ``P``, hence a Poisson map that
keeps every Casimir of ``P`` and the invariant volume of ``P``; composites of such maps keep
them too.  The declared properties are *certified* on the generic system (symbolic moments
``I1, I2, I3``; undefined ``F`` and ``G``), on the step map itself (the composite), in the
test-suite: ``"poisson"`` (:func:`geomcheck.certify.poisson.certify_poisson`),
``"casimir-preserving"`` (:func:`~geomcheck.certify.poisson.certify_preserves_casimir`),
``"volume-preserving"`` (:func:`~geomcheck.certify.poisson.certify_volume_preserving` with the
system's density: ``1`` for the rigid body, ``1 / (u v)`` for Lotka-Volterra) and
``"symmetric"`` (the Lotka-Volterra tensor is non-degenerate on ``u, v > 0``: it has no
Casimirs, and its scheme does not declare ``"casimir-preserving"``).

The implicit midpoint rule (catalog ``"implicit-midpoint"``) also runs on a PoissonSystem and
keeps the quadratic Casimir ``|m|^2`` and the quadratic energy of the rigid body, but it is
**not** a Poisson map there: its Lie-Poisson structure is kept only up to ``O(h^3)`` (Austin,
Krishnaprasad and Wang, *Almost Poisson integration of rigid body systems*, J. Comput. Phys.
107 (1993) 105-117; HLW, Section VII.5), and ``certify_poisson`` refutes it with a
counterexample (the test-suite confirms the residual at that point with mpmath, independently).
Nor does it keep the volume ``dm`` of the (divergence-free) Euler field: ``det D phi != 1`` at the
counterexample of ``certify_volume_preserving``, confirmed the same way.

>>> import sympy
>>> from integrators.systems.poisson import rigid_body
>>> s = RigidBodySplitting()
>>> {k: c.holds for k, c in s.certify(rigid_body(), ["poisson", "casimir-preserving"]).items()}
{'poisson': True, 'casimir-preserving': True}
"""

from __future__ import annotations

import sympy

import geomcheck as gc

from ..systems import STEP_SYMBOL, System
from .base import NamedScheme, Stage, scaled
from .stages import stage_parameters

__all__ = ["RigidBodySplitting", "LotkaVolterraSplitting", "rigid_body_flow", "lotka_volterra_flows"]

_HALF = sympy.Rational(1, 2)


def _is_poisson(system) -> bool:
    return getattr(system, "kind", None) == "poisson"


def _rigid_body_moments(system):
    """``(I1, I2, I3)`` when ``system`` is Euler's rigid body in its chart (else the reason, a str)."""
    if not _is_poisson(system) or system.dim != 3:
        return "a free rigid body was expected: a three-dimensional PoissonSystem (integrators.systems.poisson.rigid_body)"
    m1, m2, m3 = system.coords
    hat = sympy.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])
    if sympy.Matrix(system.P) != hat:
        return f"the Poisson tensor of {system!r} is not [[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]] (so(3)*)"
    try:
        poly = sympy.Poly(system.H, m1, m2, m3)
    except sympy.PolynomialError:
        return f"the Hamiltonian {system.H} is not quadratic in {m1, m2, m3}"
    if any(sum(mono) != 2 or max(mono) != 2 for mono in poly.monoms()):
        return f"the Hamiltonian {system.H} is not of the form sum m_i^2 / (2 I_i)"
    inverse = [2 * poly.coeff_monomial(m**2) for m in (m1, m2, m3)]
    if any(c == 0 for c in inverse):
        return f"the Hamiltonian {system.H} lacks a term m_i^2 / (2 I_i)"
    return tuple(1 / c for c in inverse)


def rigid_body_flow(system, axis: int, t: sympy.Expr) -> gc.Map:
    r"""The exact flow ``R_axis(t)`` of ``H_axis = m_axis^2 / (2 I_axis)`` (axis 0, 1 or 2).

    ``m_axis`` is constant; the other two components turn by the angle ``t m_axis / I_axis``
    (from ``m' = P grad H_axis = m x (m_axis / I_axis) e_axis``).

    Examples
    --------
    >>> from integrators.systems.poisson import rigid_body
    >>> import sympy
    >>> rigid_body_flow(rigid_body(), 0, sympy.Symbol("h"))
    Map(m1 -> m1, m2 -> m2*cos(h*m1/I1) + m3*sin(h*m1/I1), m3 -> -m2*sin(h*m1/I1) + m3*cos(h*m1/I1))
    """
    I = _rigid_body_moments(system)
    if isinstance(I, str):
        from ..errors import SchemeNotApplicableError

        raise SchemeNotApplicableError(f"rigid_body_flow: {I}")
    m = list(system.coords)
    angle = t * m[axis] / I[axis]
    c, s = sympy.cos(angle), sympy.sin(angle)
    j, k = (axis + 1) % 3, (axis + 2) % 3
    # (m_j, m_k)' = omega (m_k, -m_j) with omega = m_axis / I_axis (cyclic order axis, j, k)
    out = list(m)
    out[j] = c * m[j] + s * m[k]
    out[k] = c * m[k] - s * m[j]
    return gc.Map(system.chart, system.chart, out, parameters=stage_parameters(system))


def _separable_lotka_volterra(system):
    """``(F', G')`` for ``P = [[0, u v], [-u v, 0]]``, ``H = F(u) + G(v)``; else the reason (a str)."""
    if not _is_poisson(system) or system.dim != 2:
        return "a two-dimensional PoissonSystem with P = [[0, u v], [-u v, 0]] was expected"
    u, v = system.coords
    if sympy.Matrix(system.P) != sympy.Matrix([[0, u * v], [-u * v, 0]]):
        return f"the Poisson tensor of {system!r} is not [[0, u v], [-u v, 0]]"
    Hu, Hv = sympy.diff(system.H, u), sympy.diff(system.H, v)
    if v in Hu.free_symbols or u in Hv.free_symbols:
        return f"the Hamiltonian {system.H} is not written as F(u) + G(v), each part in one variable"
    return Hu, Hv


def lotka_volterra_flows(system, t: sympy.Expr) -> tuple[gc.Map, gc.Map]:
    r"""The exact flows at time ``t`` of ``F(u)`` (``v <- v exp(-t u F'(u))``) and of ``G(v)``
    (``u <- u exp(t v G'(v))``) for ``P = [[0, u v], [-u v, 0]]``, ``H = F(u) + G(v)``.

    Examples
    --------
    >>> from integrators.systems.poisson import lotka_volterra
    >>> import sympy
    >>> flow_F, flow_G = lotka_volterra_flows(lotka_volterra(), sympy.Symbol("h"))
    >>> flow_F
    Map(u -> u, v -> v*exp(-h*(u - 1)))
    """
    parts = _separable_lotka_volterra(system)
    if isinstance(parts, str):
        from ..errors import SchemeNotApplicableError

        raise SchemeNotApplicableError(f"lotka_volterra_flows: {parts}")
    u, v = system.coords
    Hu, Hv = parts
    rate_v, rate_u = sympy.expand(u * Hu), sympy.expand(v * Hv)
    params = stage_parameters(system)
    flow_F = gc.Map(system.chart, system.chart, [u, v * sympy.exp(-t * rate_v)], parameters=params)
    flow_G = gc.Map(system.chart, system.chart, [u * sympy.exp(t * rate_u), v], parameters=params)
    return flow_F, flow_G


class _PoissonSplitting(NamedScheme):
    """A symmetric composition of exact flows of a Poisson system (see the module docstring)."""

    requires = frozenset({"poisson", "autonomous"})
    order = 2

    def _flows(self, system) -> tuple:
        """``(flow, factor)`` in the order they act, the flows at the step ``h``."""
        raise NotImplementedError

    def stages(self, system: System) -> tuple[Stage, ...]:
        self.check_applies(system)
        return tuple(Stage(flow, factor) for flow, factor in self._flows(system))

    def _build(self, system):
        phi = None
        for flow, factor in self._flows(system):
            m = scaled(flow, factor)
            phi = m if phi is None else gc.compose(m, phi)
        return phi


class RigidBodySplitting(_PoissonSplitting):
    """McLachlan's explicit splitting of the free rigid body, R1(h/2) R2(h/2) R3(h) R2(h/2) R1(h/2)."""

    name = "rigid-body-splitting"
    properties = frozenset({"poisson", "casimir-preserving", "volume-preserving", "symmetric"})
    description = "McLachlan 1993: exact rotations about the body axes, symmetric composition (explicit)"

    def why_not(self, system: object) -> str | None:
        reason = super().why_not(system)
        if reason is None:
            I = _rigid_body_moments(system)
            if isinstance(I, str):
                reason = f"{self.name} needs the free rigid body: {I}"
        return reason

    def _flows(self, system):
        h = STEP_SYMBOL
        R = [rigid_body_flow(system, axis, h) for axis in range(3)]
        return ((R[0], _HALF), (R[1], _HALF), (R[2], sympy.Integer(1)), (R[1], _HALF), (R[0], _HALF))


class LotkaVolterraSplitting(_PoissonSplitting):
    """The Strang splitting F(h/2) G(h) F(h/2) of a separable Lotka-Volterra Poisson system."""

    name = "lotka-volterra-splitting"
    # P = u v J is non-degenerate on u, v > 0: no Casimirs, so "casimir-preserving" says nothing
    properties = frozenset({"poisson", "volume-preserving", "symmetric"})
    description = "exact flows of F(u) and G(v) for P = [[0, uv], [-uv, 0]], symmetric composition (explicit)"

    def why_not(self, system: object) -> str | None:
        reason = super().why_not(system)
        if reason is None:
            parts = _separable_lotka_volterra(system)
            if isinstance(parts, str):
                reason = f"{self.name} needs a separable Lotka-Volterra Poisson system: {parts}"
        return reason

    def _flows(self, system):
        flow_F, flow_G = lotka_volterra_flows(system, STEP_SYMBOL)
        return ((flow_F, _HALF), (flow_G, sympy.Integer(1)), (flow_F, _HALF))
