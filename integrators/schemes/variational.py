"""Galerkin variational integrators of a Lagrangian system (a symbolic step).

Marsden & West, Acta Numerica (2001), Sections 2.5-2.6 and 3; HLW Section VI.6.  The step is
the position-momentum map ``(q0, p0) -> (q1, p1)`` of the discrete Lagrangian (and, for a forced
system, of the discrete Lagrange-d'Alembert principle) built by
:func:`geomcheck.structures.variational.variational_integrator`, re-stated on the system's chart
(the same equations and guess, the system's parameters) so that it lowers and runs like every
implicit scheme.  Names:

* ``variational-midpoint``     ``L_d = h L((q0 + q1)/2, (q1 - q0)/h)``, order 2;
* ``variational-trapezoidal``  ``L_d = h/2 (L(q0, v) + L(q1, v))``, order 2 (Stormer-Verlet for
  ``L = qdot^2/2 - V(q)``);
* ``galerkin-lobatto-s``       s Lobatto nodes, degree s curves, order 2s - 2 (Lobatto IIIA-IIIB);
* ``galerkin-gauss-s``         s Gauss nodes, degree s curves, order 2s (Gauss collocation).

Declared properties (for unforced systems): symplectic and symmetric; both are certified in
the tests, not assumed.  On a forced system the map is the discrete Lagrange-d'Alembert map:
it is not symplectic; whether it is conformally symplectic depends on the rule and the force
(:func:`geomcheck.structures.variational.certify_variational_conformal` decides).

>>> import sympy
>>> from integrators.systems.lagrangian import LagrangianSystem
>>> q, v = sympy.symbols("q v")
>>> s = VariationalScheme("trapezoidal")
>>> {k: c.holds for k, c in s.certify(LagrangianSystem(v**2 / 2 - q**4 / 4, q, v)).items()}
{'order': True, 'symmetric': True, 'symplectic': True}
"""

from __future__ import annotations

from geomcheck.structures.variational import VariationalIntegrator, quadrature_rule, variational_integrator

from ..systems import STEP_SYMBOL
from ..systems.lagrangian import LagrangianSystem
from .base import Scheme
from .stages import StageMap, stage_parameters

__all__ = ["VariationalScheme"]


class VariationalScheme(Scheme):
    """The Galerkin variational integrator of a quadrature rule, for a :class:`LagrangianSystem`.

    Parameters
    ----------
    quadrature : str or (str, int)
        ``"midpoint"``, ``"trapezoidal"``, ``("lobatto", s)``, ``("gauss", s)`` (see
        :func:`geomcheck.structures.variational.quadrature_rule`).
    order : int, optional
        Instead: the smallest rule of this order.

    Examples
    --------
    >>> import sympy, numpy as np, integrators as ig
    >>> from integrators.systems.lagrangian import LagrangianSystem
    >>> q, v = sympy.symbols("q v")
    >>> pendulum = LagrangianSystem(v**2 / 2 + sympy.cos(q), q, v)
    >>> scheme = VariationalScheme(("lobatto", 3))
    >>> scheme.name, scheme.order
    ('galerkin-lobatto-3', 4)
    >>> sol = ig.integrate(pendulum, scheme, [[1.0, 0.5]], dt=0.1, steps=100)
    >>> bool(abs(sol.energy()[-1, 0] - sol.energy()[0, 0]) < 1e-5)
    True
    """

    requires = frozenset({"lagrangian"})

    def __init__(self, quadrature: str | tuple[str, int] = "midpoint", order: int | None = None):
        self.rule = quadrature_rule(quadrature, order)
        r = self.rule
        self.name = f"variational-{r.name}" if r.name in ("midpoint", "trapezoidal") else f"galerkin-{r.name}"
        self.order = r.order
        self.properties = frozenset({"symplectic", "symmetric"})
        self.description = (f"Galerkin variational integrator: {r.stages}-node {r.kind} quadrature, curves of degree"
                            f" {r.degree} (position-momentum form of the discrete Lagrangian)")

    def why_not(self, system: object) -> str | None:
        reason = super().why_not(system)
        if reason is None and not isinstance(system, LagrangianSystem):
            reason = f"{self.name} is built from a Lagrangian L(q, qdot); {system!r} is not a LagrangianSystem"
        return reason

    def integrator(self, system: LagrangianSystem) -> VariationalIntegrator:
        """The certified :class:`geomcheck.structures.variational.VariationalIntegrator` of ``system``."""
        self.check_applies(system)
        cache = self.__dict__.setdefault("_integrators", {})
        vi = cache.get(system)
        if vi is None:
            vi = variational_integrator(system.lagrangian, list(system.q), list(system.qdot), p=list(system.p),
                                        forcing=system.forcing, quadrature=self.rule,
                                        h=STEP_SYMBOL, derivatives="implicit")
            cache[system] = vi
        return vi

    def _build(self, system):
        # implicit derivatives: the symbolic elimination costs minutes for two degrees of freedom
        phi = self.integrator(system).step_map
        return StageMap(system.chart, system.chart, list(phi.equations), new=list(phi.new),
                        auxiliary=list(phi.auxiliary), parameters=stage_parameters(system), guess=dict(phi.guess),
                        step=STEP_SYMBOL, derivatives="implicit")

    def __eq__(self, other):
        return type(other) is type(self) and other.rule == self.rule

    def __hash__(self):
        return hash((type(self).__name__, self.rule.name))

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"
