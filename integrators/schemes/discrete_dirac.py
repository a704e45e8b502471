r"""The discrete Dirac scheme of the constrained-systems section (Salnikov & Hamdouni 2019, Section 3).

The step is built by :func:`geomcheck.structures.discrete_dirac_scheme` -- the one
definition, not re-derived here -- with the forward difference ``v_k = (q_{k+1} - q_k)/h``
and the discrete constraint one-forms at the midpoint, the variant documented there as
the symplectic one (``velocity="forward", constraint_at="midpoint"``).  The paper leaves ``v_k``
open ("some approximation of the velocity") and names the centred difference only "for
instance"; that example is dissipative (a critique documented in
:mod:`geomcheck.structures.implicit_lagrangian`) and is not the scheme here.  A
:class:`~integrators.ConstrainedHamiltonianSystem` ``(H, g)`` is converted to the
structures' input: the Lagrangian ``L(q, v) = p v - H`` by the inverse Legendre transform
(``H`` quadratic in p, so ``v = H_p`` is affine in p) and the constraint one-forms
``alpha^a = dg^a``; the momenta of ``T*Q`` are the system's own symbols, so the scheme's
state chart *is* the system's chart ``(q, p)`` and no state conversion is needed.  The map
is re-stated on the system's chart with its guess taken at ``h = 0`` (the starting point of
geomcheck's expansion in h and of Newton's method).

What is certified (declared: order 1, no structural property):

* *order 1* on the constraint manifold ``M`` (against the index-reduced flow), for the step
  as a map of ``T*M``: ``p_{k+1}`` is the forward velocity ``dL/dv(q_k, v_k)``, off ``M`` by
  O(h) along ``G^T`` (it does not keep the hidden constraint ``G H_p = 0``), and the step
  depends on ``p`` only modulo ``G(q)^T`` (its equations are invariant under
  ``p -> p + G^T c, lambda -> lambda + c``: certified exactly by :meth:`DiscreteDirac.regular_form`).
  So the order compares ``q`` and the momenta projected onto ``G H_p = 0``; the raw ``p`` has
  local error O(h) but, not accumulating, global error O(h) (measured in ``test_order.py``).
  The energy error is O(h) and bounded.
* Not declared, because false for general constraints: the midpoint constraint line
  ``<dg((q_k + q_{k+1})/2), q_{k+1} - q_k> = 0`` is ``g(q_{k+1}) = g(q_k)`` only for quadratic
  ``g`` (the pendulum, spheres).  For those the step keeps ``g`` exactly and preserves the
  presymplectic form ``iota^* omega`` on ``{g = 0}`` (p free);
  ``tests/integrators/test_constrained_systems.py`` certifies both on the pendulum and shows
  that a quartic constraint is not kept.

>>> import sympy, integrators as ig
>>> x, y, px, py = sympy.symbols("x y p_x p_y")
>>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
>>> phi = ig.scheme("discrete-dirac").step_map(s)
>>> phi.source == s.chart, [str(u) for u in phi.auxiliary]
(True, ['v_x', 'v_y', 'lambda^1'])
"""

from __future__ import annotations

import sympy

from geomcheck.calculus import diff
from geomcheck.linalg import solve_affine, solve_sparse
from geomcheck.maps import substitute
from geomcheck.structures import discrete_dirac_scheme, implicit_lagrangian_system

from ..systems import STEP_SYMBOL
from .rattle import ConstrainedScheme
from .stages import StageMap, fresh_symbol_factory, stage_parameters

__all__ = ["DiscreteDirac", "lagrangian_system", "projected_dirac_step"]


def projected_dirac_step(phi, system, rows, reduction, name: str, title: str, so: str = "", claim_tail: str = ""):
    """``(pi o phi, certificate)``: a discrete Dirac step made a map of the momenta modulo the constraint
    directions, for its order.

    The step ``phi`` of ``system`` (momenta ``p``, constraint rows ``rows`` = ``A(q)``, ``k x n``, the
    hidden constraints ``A H_p`` and ``reduction = A H_pp A^T``) is checked to depend on ``p`` only
    modulo ``A^T``: replacing ``p`` by ``p + A^T c`` and its multipliers ``lambda`` by ``lambda + c``
    leaves every equation unchanged (the zero test; the certificate).  It is then followed by
    ``pi(q, p) = (q, p - A^T mu)``, ``(A H_pp A^T) mu = A H_p``, the projection onto ``A H_p = 0``.
    ``name`` is the matrix's name in the derivation ("G" for holonomic constraints, "A" for velocity
    constraints); ``title``, ``so`` and ``claim_tail`` finish its sentences.
    """
    import geomcheck as gc
    from geomcheck.certify.certificate import Certificate
    from geomcheck.latex import Derivation
    from geomcheck.zero import decide_all_zero

    k = rows.rows
    c = [sympy.Dummy(f"c{a}") for a in range(k)]
    shift = {pi: pi + sympy.Add(*[rows[a, i] * c[a] for a in range(k)]) for i, pi in enumerate(system.p)}
    lam = [u for u in phi.auxiliary if u.name.startswith("lambda")]
    shift.update({la: la + ca for la, ca in zip(lam, c)})
    dec = decide_all_zero([substitute(e, shift) - e for e in phi.equations])
    D = Derivation(title)
    D = D.add(rf"Replacing $p$ by $p + {name}(q)^T c$ and $\lambda$ by $\lambda + c$ leaves every equation of the"
              rf" step unchanged (" + dec.stage + rf"){so}; its order is measured after projecting the new momenta"
              rf" onto ${name} H_p = 0$ along ${name}^T$.")
    equivalence = Certificate(f"phi(q, p + {name}^T c) == phi(q, p){claim_tail}", dec.is_zero,
                              f"the equations are invariant under p -> p + {name}^T c, lambda -> lambda + c ("
                              + dec.method + ")", dec.stage, derivation=D)
    equations = [{b: reduction[a, b] for b in range(k) if reduction[a, b] != 0} for a in range(k)]
    (mu,) = solve_sparse(equations, [list(system.hidden_constraints)], k)
    pi_map = gc.Map(system.chart, system.chart,
                    list(system.q) + [pk - sympy.Add(*[rows[a, i] * mu[a] for a in range(k)])
                                      for i, pk in enumerate(system.p)], parameters=stage_parameters(system))
    comp = gc.compose(pi_map, phi)
    reg = StageMap(comp.source, comp.target, comp.equations, new=comp.new, auxiliary=comp.auxiliary,
                   parameters=comp.parameters, guess=comp.guess, step=STEP_SYMBOL)
    return reg, equivalence


def _velocities(system):
    fresh = fresh_symbol_factory(system)
    return [fresh(f"v_{x.name}") for x in system.q]


def dirac_stage_map(system, lagrangian, evaluation: str) -> StageMap:
    """The forward discrete Dirac step of ``lagrangian`` (the Lagrangian form of ``system``; the
    constraint evaluated at ``evaluation``: "midpoint", "current", ...) as a StageMap on ``system``'s
    chart, Newton's guess taken at ``h = 0``."""
    phi = discrete_dirac_scheme(lagrangian, "forward", evaluation, h=STEP_SYMBOL).map
    at0 = {STEP_SYMBOL: sympy.S.Zero}
    guess = {u: substitute(g, at0) for u, g in phi.guess.items()}
    return StageMap(system.chart, system.chart, list(phi.equations), new=list(phi.new),
                    auxiliary=list(phi.auxiliary), parameters=stage_parameters(system), guess=guess, step=STEP_SYMBOL)


def lagrangian_system(system):
    """The :class:`geomcheck.structures.ImplicitLagrangianSystem` of a constrained system, or None.

    ``L(q, v) = p(v) v - H(q, p(v))`` with ``p(v)`` solving ``v = H_p`` (None unless H is
    quadratic in p with an invertible Hessian), constraint one-forms ``dg^a``, momenta the
    system's p.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> x, y, px, py = sympy.symbols("x y p_x p_y")
    >>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
    >>> lagrangian_system(s).lagrangian
    v_x**2/2 + v_y**2/2 - y
    """
    q, p, H = system.q, system.p, system.H
    vs = _velocities(system)
    sol = solve_affine([diff(H, pi) for pi in p], p, vs)     # p(v) from v = H_p
    if sol is None:
        return None
    at = dict(zip(p, sol))
    L = sympy.expand(sympy.Add(*[s * v for s, v in zip(sol, vs)]) - substitute(H, at))
    G = system.constraint_jacobian
    forms = [[G[a, i] for i in range(len(q))] for a in range(G.rows)]
    return implicit_lagrangian_system(L, list(q), vs, forms, momenta=list(p))


class DiscreteDirac(ConstrainedScheme):
    """The forward-difference discrete Dirac scheme with midpoint constraints (see the module docstring)."""

    name = "discrete-dirac"
    requires = frozenset({"constrained"})
    order = 1
    properties = frozenset()
    description = ("discrete Dirac scheme (Salnikov & Hamdouni 2019, Sec. 3), forward velocity, midpoint"
                   " constraints")

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and lagrangian_system(system) is None:
            reason = (f"{self.name} needs the Lagrangian of H by the Legendre transform: H must be quadratic in p"
                      f" with an invertible Hessian H_pp; {system.H} is not")
        return reason

    def _build(self, system):
        return dirac_stage_map(system, lagrangian_system(system), "midpoint")

    def regular_form(self, system):
        """The step followed by the projection of the momenta onto the hidden constraint, for the order.

        ``p_{k+1}`` is the forward velocity, off ``M`` by O(h) along ``G^T`` (the radial direction for the
        pendulum), and the step depends on ``p`` only modulo ``G(q)^T``: replacing ``p`` by ``p + G^T c``
        and the multipliers ``lambda`` by ``lambda + c`` leaves its equations unchanged (checked
        exactly; this is the certificate returned).  So the step is a map of ``T*M`` and its order
        is that of ``pi o phi`` with ``pi(q, p) = (q, p - G^T (G H_pp G^T)^{-1} G H_p)``.
        """
        cache = self.__dict__.setdefault("_regular", {})
        if system in cache:
            return cache[system]
        cache[system] = projected_dirac_step(
            self.step_map(system), system, system.constraint_jacobian, system._reduction_matrix, "G",
            "The discrete Dirac step depends on p only modulo the constraint directions",
            r", so the step is a map of $T^*M$", " (the step is a map of T*M)")
        return cache[system]
