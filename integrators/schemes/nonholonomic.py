r"""A second-order, time-reversible integrator for nonholonomic systems (nonholonomic RATTLE).

For a :class:`~integrators.systems.nonholonomic.NonholonomicSystem` with ``H = T(p) + V(q)``,
``T`` quadratic in p (``T_p = M^{-1} p``, constant ``M``) and constraint rows ``A(q)``, one step
``(q_k, p_k) -> (q_{k+1}, p_{k+1})`` of :class:`NonholonomicRattle` is::

    p_{k+1/2} = p_k - h/2 V_q(q_k) - A(q_k)^T Lambda                 (constraint force at q_k)
    q_{k+1}   = q_k + h T_p(p_{k+1/2})
    0         = A((q_k + q_{k+1})/2) T_p(p_{k+1/2})                  (discrete constraint, midpoint)
    p_{k+1}   = p_{k+1/2} - h/2 V_q(q_{k+1}) - A(q_{k+1})^T Mu       (constraint force at q_{k+1})
    0         = A(q_{k+1}) T_p(p_{k+1})                              (the momentum constraint at the end)

(``Lambda``, ``Mu``: the impulses ``h lambda / 2``, ``h mu / 2`` of the two constraint forces).  The
first three lines are the discrete Lagrange-d'Alembert equations ``M (q_{k+1} - 2 q_k + q_{k-1})/h^2
= -V_q(q_k) - A(q_k)^T lambda_k`` with the discrete constraint ``A(q_{k+1/2})(q_{k+1} - q_k) = 0``,
whose constraint set ``{(q_k, q_{k+1})}`` is invariant under exchanging the two points (a reversible
discrete constraint space); the last two put the momenta on the constraint manifold
``N = {A(q) T_p(p) = 0}`` at the end of each step, as RATTLE does for holonomic constraints.  This
is the construction of McLachlan & Perlmutter, "Integrators for nonholonomic mechanical systems",
J. Nonlinear Sci. 16 (2006) 283-328: discrete Lagrange-d'Alembert with a reversible discrete
constraint and the constraint on the momenta imposed at both ends of the step (the input momenta
are on ``N``, the output momenta are put on ``N``), which they show to be reversible and of
second order.  (The paper's text was not available to us through the project's search tool;
the equations above are stated here as ours, and every property claimed below is certified or
measured here, not taken from the paper.)

The step is ONE :class:`geomcheck.ImplicitMap`: unknowns ``q_{k+1}, p_{k+1}`` and ``Lambda``
(``k`` auxiliary unknowns); the last line is linear in ``Mu`` with matrix ``A H_pp A^T`` at
``q_{k+1}`` and is solved in the formula for ``p_{k+1}``.  The equations are regular at ``h = 0``
on ``N`` (there ``Lambda = 0`` and the Jacobian in ``Lambda`` is ``A H_pp A^T``), so geomcheck's
expansion in ``h`` applies directly.  Newton's method (:mod:`integrators.newton`) starts from
``Lambda = h lambda(q, p)/2``, ``q_{k+1} = q + h T_p(p)``, ``p_{k+1} = p``.

Declared: order 2 and ``{"symmetric", "constraint-preserving"}``, in the sense of
:mod:`integrators.schemes.on_manifold` (on ``N``, through an explicit parametrization ``iota``):

* *constraint-preserving*: ``A(q_{k+1}) T_p(p_{k+1})`` vanishes identically in the solved formula
  for ``p_{k+1}`` (geomcheck's zero test), from any state;
* *symmetric*: ``phi_h o phi_{-h} = id`` on ``N`` (not off ``N``: the step projects);
* *order 2* on ``N`` against the index-reduced field.
* NOT *symplectic*: nonholonomic flows are in general not symplectic, and on the knife edge
  :func:`~integrators.schemes.on_manifold.certify_symplectic_on_manifold` refutes
  ``(phi o iota)^* omega == iota^* omega`` with a counterexample (2.4 s: run in
  ``benchmarks/bench_nonholonomic.py``, table 3).  NOT *energy-preserving* in general: with a
  potential :func:`certify_energy_on_manifold` is refuted by a counterexample (tested).  For the
  free knife edge the step conserves ``H`` exactly on ``N`` (:func:`certify_energy_on_manifold`,
  its doctest).

:class:`NonholonomicRattleStart` is the same step with the discrete constraint at ``q_k`` (the
paper's ``alpha_d = alpha(q_k)`` of Salnikov & Hamdouni): it is not symmetric (first order),
and is here as the adversarial contrast.  :class:`NonholonomicDiscreteDirac` is Salnikov &
Hamdouni's discrete Dirac scheme (2019, Sec. 3) on a nonholonomic system, with the forward velocity
``v_k = (q_{k+1} - q_k)/h`` and ``alpha_d = alpha(q_k)``, built by
:func:`geomcheck.structures.discrete_dirac_scheme` (first order).

>>> from integrators.systems.nonholonomic import knife_edge
>>> s = knife_edge()
>>> phi = NonholonomicRattle().step_map(s)
>>> len(phi.equations), [str(u) for u in phi.auxiliary]
(7, ['Lambda_1'])
>>> NonholonomicRattle().certify(s, ["constraint-preserving"])["constraint-preserving"].holds
True
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.certify.certificate import Certificate
from geomcheck.latex import Derivation, tex_text
from geomcheck.linalg import solve_affine, solve_sparse
from geomcheck.maps import substitute
from geomcheck.structures import implicit_lagrangian_system
from geomcheck.zero import decide_zero

from ..systems import STEP_SYMBOL
from ..systems.nonholonomic import NonholonomicSystem
from .base import NamedScheme, Scheme
from .discrete_dirac import dirac_stage_map, projected_dirac_step
from .on_manifold import (
    certify_constraints_are_equations,
    certify_order_on_manifold,
    certify_symmetric_on_manifold,
    on_manifold,
)
from .stages import StageMap, fresh_symbol_factory, guess_at_zero, stage_parameters

__all__ = [
    "NonholonomicDiscreteDirac",
    "NonholonomicRattle",
    "NonholonomicRattleStart",
    "NonholonomicScheme",
    "certify_energy_on_manifold",
    "nonholonomic_lagrangian_system",
]


def _affine_in(exprs, symbols) -> bool:
    return all(diff(diff(e, a), b) == 0 for e in exprs for a in symbols for b in symbols)


class NonholonomicScheme(NamedScheme):
    """A scheme for :class:`~integrators.systems.nonholonomic.NonholonomicSystem`: certificates on ``N``."""

    requires = frozenset({"nonholonomic"})

    def why_not(self, system: object) -> str | None:
        """None when ``system`` is a NonholonomicSystem this scheme is built for, else the reason."""
        reason = Scheme.why_not(_NoRequirements(self), system)
        if reason is not None:
            return reason
        if not isinstance(system, NonholonomicSystem):
            return (f"{self.name} needs a mechanical system with linear velocity constraints A(q) qdot = 0 (a"
                    f" NonholonomicSystem of integrators.systems.nonholonomic); {system!r} is a"
                    f" {type(system).__name__}")
        return self._system_reason(system)

    def _system_reason(self, system) -> str | None:
        return None

    def _certify_one(self, prop, phi, system):
        h = self.h
        if prop == "constraint-preserving":
            return certify_constraints_are_equations(phi, system)
        if prop == "symplectic":
            return None                       # never declared: nonholonomic flows are not symplectic
        _S, iota = system.manifold()
        if prop == "order":
            return certify_order_on_manifold(guess_at_zero(phi), system.vector_field, iota, h, int(self.order))
        if prop == "symmetric":
            return certify_symmetric_on_manifold(phi, iota)
        if prop == "energy-preserving":
            return certify_energy_on_manifold(phi, system)
        return super()._certify_one(prop, phi, system)

    def observed_order(self, system: NonholonomicSystem, max_order: int | None = None) -> int | None:
        """The order on the constraint manifold (the largest certified up to ``max_order``), or None."""
        phi = guess_at_zero(self.step_map(system))
        _S, iota = system.manifold()
        top = max_order or int(self.order) + 1
        for p in range(1, top + 1):
            c = certify_order_on_manifold(phi, system.vector_field, iota, self.h, p)
            if c.holds is False:
                return p - 1
            if c.holds is None:
                return None
        return top


class _NoRequirements(Scheme):
    """The scheme's name without requirements (the base class's system check only)."""

    def __init__(self, scheme):
        self.name = scheme.name
        self.requires = frozenset()


class NonholonomicRattle(NonholonomicScheme):
    """Nonholonomic RATTLE (see the module docstring): order 2, symmetric and constraint-preserving on ``N``."""

    name = "nonholonomic-rattle"
    order = 2
    properties = frozenset({"symmetric", "constraint-preserving"})
    description = ("nonholonomic RATTLE: discrete Lagrange-d'Alembert with the midpoint discrete constraint and"
                   " the momentum constraint at both ends (McLachlan & Perlmutter 2006)")
    #: where the discrete constraint ``A(q_c) T_p(p_{k+1/2}) = 0`` is evaluated: "midpoint" or "start"
    discrete_constraint_at = "midpoint"

    def _system_reason(self, system):
        if not system.hamiltonian_is_separable:
            return (f"{self.name} is built for H = T(p) + V(q); {system.H} couples positions and momenta (a mixed"
                    " derivative H_qp is nonzero)")
        Tp = [diff(system.H, y) for y in system.p]
        if not _affine_in(Tp, system.p):
            return (f"{self.name} is built for a kinetic energy quadratic in p (T_p = M^{{-1}} p); {system.H} is"
                    " not quadratic in the momenta")
        return None

    def _build(self, system):
        h, half = self.h, sympy.Rational(1, 2)
        q, p, A = system.q, system.p, system.constraint_rows
        n, k = len(q), A.rows
        Vq = [diff(system.H, x) for x in q]
        Tp = [diff(system.H, y) for y in p]
        fresh = fresh_symbol_factory(system)
        Q = [fresh(f"{x.name}_new") for x in q]
        P = [fresh(f"{y.name}_new") for y in p]
        Lam = [fresh(f"Lambda_{a + 1}") for a in range(k)]
        ph = [p[i] - half * h * Vq[i] - sympy.Add(*[A[a, i] * Lam[a] for a in range(k)]) for i in range(n)]
        vel = [substitute(Tp[i], dict(zip(p, ph))) for i in range(n)]         # T_p(p_half): V_q is free of p
        Qx = [q[i] + h * vel[i] for i in range(n)]
        if self.discrete_constraint_at == "midpoint":
            where = {x: x + half * h * v for x, v in zip(q, vel)}              # (q_k + q_{k+1}) / 2
        else:
            where = {}                                                          # q_k
        discrete = [sympy.Add(*[substitute(A[a, i], where) * vel[i] for i in range(n)]) for a in range(k)]
        at_Q = dict(zip(q, Qx))
        AQ = [[substitute(A[a, i], at_Q) for i in range(n)] for a in range(k)]
        kick = [ph[i] - half * h * substitute(Vq[i], at_Q) for i in range(n)]
        # A(Q) T_p(kick - A(Q)^T Mu) = 0 is linear in Mu with matrix A H_pp A^T at Q: solved here
        R = system.reduction_matrix
        rows = [{b: substitute(R[a, b], at_Q) for b in range(k) if R[a, b] != 0} for a in range(k)]
        rhs = [substitute(c, {**dict(zip(p, kick)), **at_Q}) for c in system.hidden_constraints]
        (mu,) = solve_sparse(rows, [rhs], k)
        Px = [kick[i] - sympy.Add(*[AQ[a][i] * mu[a] for a in range(k)]) for i in range(n)]
        equations = [Q[i] - Qx[i] for i in range(n)] + [P[i] - Px[i] for i in range(n)] + discrete
        v0 = [substitute(t, {}) for t in Tp]
        guess = {**{Y: x + h * v for Y, x, v in zip(Q, q, v0)}, **dict(zip(P, p)),
                 **{L: half * h * lam for L, lam in zip(Lam, system.multipliers)}}
        return StageMap(system.chart, system.chart, equations, new=Q + P, auxiliary=Lam,
                        parameters=stage_parameters(system), guess=guess, step=STEP_SYMBOL)


class NonholonomicRattleStart(NonholonomicRattle):
    """The same step with the discrete constraint at ``q_k``: NOT symmetric, first order (a contrast)."""

    name = "nonholonomic-rattle-start"
    order = 1
    properties = frozenset({"constraint-preserving"})
    description = "nonholonomic RATTLE with the discrete constraint A(q_k) T_p(p_half) = 0 (not symmetric)"
    discrete_constraint_at = "start"


def nonholonomic_lagrangian_system(system: NonholonomicSystem):
    """The :class:`geomcheck.structures.ImplicitLagrangianSystem` of a nonholonomic system, or None.

    ``L(q, v) = p(v) v - H(q, p(v))`` with ``p(v)`` solving ``v = H_p`` (None unless that is affine),
    constraint one-forms the rows of ``A(q)``, momenta the system's p.

    Examples
    --------
    >>> from integrators.systems.nonholonomic import knife_edge
    >>> nonholonomic_lagrangian_system(knife_edge()).lagrangian
    v_phi**2/2 + v_x**2/2 + v_y**2/2
    """
    fresh = fresh_symbol_factory(system)
    vs = [fresh(f"v_{x.name}") for x in system.q]
    sol = solve_affine([diff(system.H, pi) for pi in system.p], system.p, vs)
    if sol is None:
        return None
    at = dict(zip(system.p, sol))
    L = sympy.expand(sympy.Add(*[s * v for s, v in zip(sol, vs)]) - substitute(system.H, at))
    A = system.constraint_rows
    forms = [[A[a, i] for i in range(A.cols)] for a in range(A.rows)]
    return implicit_lagrangian_system(L, list(system.q), vs, forms, momenta=list(system.p))


class NonholonomicDiscreteDirac(NonholonomicScheme):
    """Salnikov & Hamdouni's discrete Dirac scheme, forward velocity, ``alpha_d = alpha(q_k)``: order 1.

    ``p_{k+1} = M v_k`` satisfies ``A(q_k) T_p(p_{k+1}) = 0``, the constraint at the OLD point: the
    momenta leave ``N`` by O(h) (not declared constraint-preserving).  For the free knife edge
    (m = J = 1) ``v_k`` is the projection of ``p_k`` onto the blade at ``q_k``, so from the second step
    on ``|p_{k+1}| = cos(h omega) |p_k|``: the energy decays (tested; 1e5 steps in
    ``benchmarks/bench_nonholonomic.py``).
    """

    name = "nonholonomic-discrete-dirac"
    order = 1
    properties = frozenset()
    description = "discrete Dirac scheme (Salnikov & Hamdouni 2019, Sec. 3), forward velocity, alpha_d = alpha(q_k)"

    def _system_reason(self, system):
        if nonholonomic_lagrangian_system(system) is None:
            return (f"{self.name} needs the Lagrangian of H by the Legendre transform: H must be quadratic in p with"
                    f" an invertible Hessian H_pp; {system.H} is not")
        return None

    def _certify_one(self, prop, phi, system):
        if prop == "order":
            reg, equivalence = self.regular_form(system)
            _S, iota = system.manifold()
            return certify_order_on_manifold(reg, system.vector_field, iota, self.h, int(self.order), equivalence)
        return super()._certify_one(prop, phi, system)

    def regular_form(self, system):
        """The step followed by the projection of the momenta onto ``N`` along ``A^T``, for the order.

        ``p_{k+1}`` is the forward velocity, on the constraint at ``q_k`` and off ``N`` by O(h); the
        step depends on ``p`` only modulo ``A(q)^T`` (its equations are unchanged by
        ``p -> p + A^T c``, ``lambda -> lambda + c``: the certificate returned), so it is a map of
        ``T*Q / A^T`` and its order is that of ``pi o phi``,
        ``pi(q, p) = (q, p - A^T (A H_pp A^T)^{-1} A H_p)``.
        """
        cache = self.__dict__.setdefault("_regular", {})
        if system in cache:
            return cache[system]
        cache[system] = projected_dirac_step(
            self.step_map(system), system, system.constraint_rows, system.reduction_matrix, "A",
            "The discrete Dirac step depends on p only modulo the constraint directions A^T")
        return cache[system]

    def _build(self, system):
        return dirac_stage_map(system, nonholonomic_lagrangian_system(system), "current")


def certify_energy_on_manifold(phi, system: NonholonomicSystem) -> Certificate:
    r"""``H(phi_h(iota(s))) == H(iota(s))``: the step conserves the energy on the constraint manifold.

    Decided by geomcheck's zero test on the solution manifold of the step's equations started
    at ``iota(s)`` (``iota`` the system's explicit parametrization).  True for nonholonomic RATTLE
    on the free knife edge; False (with a counterexample point) once a potential is added.

    Examples
    --------
    >>> from integrators.systems.nonholonomic import knife_edge
    >>> s = knife_edge()
    >>> certify_energy_on_manifold(NonholonomicRattle().step_map(s), s).holds
    True
    """
    claim = "H o phi == H on the constraint manifold"
    _S, iota = system.manifold()
    if not isinstance(iota, gc.Map):
        return Certificate(claim, None, "needs an explicit parametrization of the constraint manifold (pass"
                           " parametrization= to the system)", "unknown")
    comp = on_manifold(phi, iota)
    H = system.energy
    after = substitute(H, dict(zip(system.chart.coords, comp.new)))
    before = substitute(H, iota.substitution())
    residual = after - before
    decision = decide_zero(residual, relations=(comp.dependence.relation,))
    D = Derivation(r"The step conserves the energy on the constraint manifold")
    D = D.add(r"On the solution manifold of the step's equations started at $\iota(s)$, the residual"
              r" $H(q_{k+1}, p_{k+1}) - H(\iota(s))$ is decided: " + tex_text(decision.method) + ".")
    return Certificate.from_decision(claim, decision, residual=residual, derivation=D)
