r"""RATTLE for Hamiltonian systems with holonomic constraints (a symbolic step).

Andersen (J. Comput. Phys. 52, 1983); Hairer, Lubich & Wanner, *Geometric Numerical
Integration*, Section VII.1.4.  For ``H = T(p) + V(q)`` and constraints ``g(q) = 0``
(``G = dg/dq``), one step ``(q, p) -> (Q, P)``::

    p_half = p - h/2 (V_q(q) + G(q)^T lambda)
    Q      = q + h T_p(p_half)
    0      = g(Q)
    P      = p_half - h/2 (V_q(Q) + G(Q)^T mu)
    0      = G(Q) T_p(P)

written as ONE :class:`geomcheck.ImplicitMap`.  Its unknowns are the new state and the
scaled multipliers ``Lambda = h lambda / 2`` (the impulse of the first constraint force:
scaled so that the equations stay well conditioned as ``h -> 0``); ``p_half``, ``Q`` and
``P`` are explicit in them.  When ``T_p`` is affine in p (``T = p^T M^{-1} p / 2``), the
last equation is linear in ``mu``, with matrix ``G H_pp G^T`` at ``Q``: it is solved in the
formula for ``P`` and Newton's method (:mod:`integrators.newton`) iterates on ``Lambda``
alone (m unknowns); otherwise ``Mu = h mu / 2`` is an unknown too.  Newton starts from the
impulse of the index-reduced multiplier, ``Lambda = h lambda(q, p) / 2``.  The same map
is certified and lowered.

Declared: order 2 and ``{"symplectic", "symmetric", "constraint-preserving"}``, each in the
sense of :mod:`integrators.schemes.on_manifold` -- on the constraint manifold
``M = {g = 0, G T_p = 0}``:

* *constraint-preserving*: ``g(Q) = 0`` is one of the step's equations, and ``G(Q) T_p(P)`` is
  one too or, with ``mu`` solved, vanishes identically (decided by geomcheck's zero test), so
  ``Q, P`` lie on ``M`` after every step, from any state;
* *symplectic*: ``(phi o iota)^* omega == iota^* omega`` for a parametrization ``iota`` of
  ``M``: the step restricted to ``M`` is a symplectic map of ``(M, iota^* omega)``.  It is
  not ``phi^* omega == omega`` on the whole chart (false: off ``M`` the step projects);
* *symmetric*: ``phi_h o phi_{-h} = id`` on ``M`` (false off ``M``);
* *order 2*: against the index-reduced flow, on ``M``.  geomcheck's expansion of an implicit
  map needs equations regular at ``h = 0``; ``g(Q) = 0`` is not (at ``h = 0`` it no longer
  involves the multiplier).  On ``M`` (``g(q) = 0``), ``g(Q) = g(q) + h D(q, p_half, h)``
  with ``D = (g(q + h T_p(p_half)) - g(q)) / h`` expanded as a polynomial in ``h`` (for
  polynomial constraints; the identity is checked exactly), so ``g(Q) = 0`` iff ``D = 0``
  for ``h != 0``; the expansion uses ``D``.  For non-polynomial constraints the order
  certificate is undecided (None).

>>> import sympy, integrators as ig
>>> x, y, px, py = sympy.symbols("x y p_x p_y")
>>> V = sympy.Function("V")
>>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + V(x, y), [x, y], [px, py], [x**2 + y**2 - 1])
>>> phi = ig.scheme("rattle").step_map(s)
>>> len(phi.equations), [str(u) for u in phi.auxiliary]
(5, ['Lambda_1'])
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.calculus import diff
from geomcheck.latex import Derivation, tex_text
from geomcheck.linalg import solve_sparse
from geomcheck.maps import substitute
from geomcheck.zero import decide_all_zero

from ..systems import STEP_SYMBOL, ConstrainedHamiltonianSystem
from .base import NamedScheme, SYSTEM_KINDS, Scheme
from .on_manifold import (certify_constraints_are_equations, certify_order_on_manifold,
                          certify_symmetric_on_manifold, certify_symplectic_on_manifold)
from .stages import StageMap, fresh_symbol_factory, stage_parameters

__all__ = ["ConstrainedScheme", "Rattle", "divided_difference"]


def divided_difference(g, q, drift, h):
    """``(g(q + drift) - g(q)) / h`` expanded as a polynomial in ``h``, or None when it is not one.

    Every term of the expanded numerator must carry ``h^e`` with ``e >= 1`` and a coefficient
    free of ``h`` (so for polynomial ``g`` and a drift polynomial in ``h`` with zero constant term).

    >>> import sympy
    >>> x, v, h = sympy.symbols("x v h")
    >>> divided_difference(x**2 - 1, [x], [h * v], h)
    h*v**2 + 2*v*x
    >>> divided_difference(sympy.sin(x), [x], [h * v], h) is None
    True
    """
    num = sympy.expand(substitute(g, {x: x + d for x, d in zip(q, drift)}) - g)
    terms = []
    for t in sympy.Add.make_args(num):
        c, e = t.as_coeff_exponent(h)
        if e < 1 or c.has(h):
            return None
        terms.append(c * h ** (e - 1))
    return sympy.Add(*terms)


class _KindOnly(Scheme):
    """The scheme's name with the requirements met by a system's kind alone (for the base check)."""

    def __init__(self, scheme):
        self.name = scheme.name
        self.requires = frozenset(r for r in scheme.requires if r in SYSTEM_KINDS)


class ConstrainedScheme(NamedScheme):
    """A scheme for :class:`~integrators.ConstrainedHamiltonianSystem`: certificates on the manifold.

    Subclasses implement ``_build`` and may override :meth:`regular_form` (the step in a form
    regular at ``h = 0`` on the manifold, for the order certificate).
    """

    requires = frozenset({"constrained"})

    def why_not(self, system: object) -> str | None:
        """None when the system is of the constrained kind, else the reason.

        Only the requirements a system's kind meets (:data:`~integrators.schemes.base.SYSTEM_KINDS`)
        are checked here: the others ("separable") are about the Hamiltonian, not about the
        index-reduced field that the base class's check reads (its multiplier couples q and p),
        so a subclass checks them on ``H`` after this.
        """
        return Scheme.why_not(_KindOnly(self), system)

    def separable_reason(self, system: ConstrainedHamiltonianSystem) -> str | None:
        """Why this scheme, built for ``H = T(p) + V(q)``, does not apply to ``system`` (None when it does)."""
        if system.hamiltonian_is_separable:
            return None
        return (f"{self.name} is built for a separable Hamiltonian H = T(p) + V(q); {system.H} couples positions"
                " and momenta (a mixed derivative H_qp is nonzero)")

    def regular_form(self, system: ConstrainedHamiltonianSystem) -> tuple:
        """``(phi_regular, equivalence certificate or None)``; default: the step itself."""
        return self.step_map(system), None

    def _certify_one(self, prop, phi, system):
        h = self.h
        if prop == "constraint-preserving":
            return certify_constraints_are_equations(phi, system)
        S, iota = system.manifold()
        if prop == "order":
            reg, equivalence = self.regular_form(system)
            return certify_order_on_manifold(reg, system.vector_field, iota, h, int(self.order), equivalence)
        if prop == "symplectic":
            return certify_symplectic_on_manifold(phi, system.omega, iota)
        if prop == "symmetric":
            return certify_symmetric_on_manifold(phi, iota)
        return super()._certify_one(prop, phi, system)

    def observed_order(self, system: ConstrainedHamiltonianSystem, max_order: int | None = None) -> int | None:
        """The order on the constraint manifold (the largest certified up to ``max_order``), or None."""
        reg, equivalence = self.regular_form(system)
        S, iota = system.manifold()
        for p in range(1, (max_order or int(self.order) + 1) + 1):
            c = certify_order_on_manifold(reg, system.vector_field, iota, self.h, p, equivalence)
            if c.holds is False:
                return p - 1
            if c.holds is None:
                return None
        return max_order or int(self.order) + 1


def _affine_in(exprs, symbols) -> bool:
    """Whether every expression is affine in ``symbols`` (second derivatives vanish structurally)."""
    return all(diff(diff(e, a), b) == 0 for e in exprs for a in symbols for b in symbols)


class Rattle(ConstrainedScheme):
    """RATTLE (see the module docstring): order 2, symplectic and symmetric on the constraint manifold."""

    name = "rattle"
    requires = frozenset({"constrained", "separable"})
    order = 2
    properties = frozenset({"symplectic", "symmetric", "constraint-preserving"})
    description = "RATTLE: Stormer-Verlet with constraint forces, g(Q) = 0 and G(Q) H_p(P) = 0 (Andersen 1983)"

    def why_not(self, system: object) -> str | None:
        return super().why_not(system) or self.separable_reason(system)

    def _parts(self, system):
        n, m = len(system.q), len(system.constraints)
        q, p, G = system.q, system.p, system.constraint_jacobian
        Vq = [gc.calculus.diff(system.H, x) for x in q]
        Tp = [gc.calculus.diff(system.H, y) for y in p]
        fresh = fresh_symbol_factory(system)

        Q = [fresh(f"{x.name}_new") for x in q]
        P = [fresh(f"{y.name}_new") for y in p]
        Ph = [fresh(f"{y.name}_half") for y in p]
        Lam = [fresh(f"Lambda_{a + 1}") for a in range(m)]
        Mu = [fresh(f"Mu_{a + 1}") for a in range(m)]
        return n, m, q, p, G, Vq, Tp, Q, P, Ph, Lam, Mu

    def _equations(self, system, regular=False):
        h, half = self.h, sympy.Rational(1, 2)
        n, m, q, p, G, Vq, Tp, Q, P, Ph, Lam, Mu = self._parts(system)
        # p_half, Q and the kick before the second constraint force are explicit in Lambda
        ph = [p[i] - half * h * Vq[i] - sympy.Add(*[G[a, i] * Lam[a] for a in range(m)]) for i in range(n)]
        drift = [h * substitute(Tp[i], dict(zip(p, ph))) for i in range(n)]
        Qx = [q[i] + drift[i] for i in range(n)]
        at_Q = dict(zip(q, Qx))
        GQ = [[substitute(G[a, i], at_Q) for i in range(n)] for a in range(m)]
        kick = [ph[i] - half * h * substitute(Vq[i], at_Q) for i in range(n)]
        if regular:
            e3 = [divided_difference(g, q, drift, self.h) for g in system.constraints]
        else:
            e3 = [substitute(g, at_Q) for g in system.constraints]
        aux = list(Lam)
        if _affine_in(Tp, p):
            # G(Q) T_p(kick - G(Q)^T Mu) = 0 is linear in Mu, with matrix G H_pp G^T at Q: solved here
            A = system._reduction_matrix
            rows = [{b: substitute(A[a, b], at_Q) for b in range(m) if A[a, b] != 0} for a in range(m)]
            rhs = [substitute(c, {**dict(zip(p, kick)), **at_Q}) for c in system.hidden_constraints]
            (mu,) = solve_sparse(rows, [rhs], m)
            Px = [kick[i] - sympy.Add(*[GQ[a][i] * mu[a] for a in range(m)]) for i in range(n)]
            e5 = []
        else:
            Px = [kick[i] - sympy.Add(*[GQ[a][i] * Mu[a] for a in range(m)]) for i in range(n)]
            e5 = [substitute(c, {**dict(zip(p, Px)), **at_Q}) for c in system.hidden_constraints]
            aux += list(Mu)
        equations = [Q[i] - Qx[i] for i in range(n)] + [P[i] - Px[i] for i in range(n)] + e3 + e5
        guess = {**dict(zip(Q, q)), **dict(zip(P, p)), **{u: sympy.S.Zero for u in aux}}
        if not regular:
            # Newton starts from the impulse of the index-reduced multiplier, Lambda = h lambda(q, p) / 2 + O(h^2)
            # (the regular form keeps the h = 0 solution on M: geomcheck's expansion in h starts there)
            guess.update({L: half * h * lam for L, lam in zip(Lam, system.multipliers)})
        # the step's derivatives by the implicit function theorem at each evaluation point (as for SPARK): the
        # symplecticity certificate's pullback then costs a second, not Cramer's rule on the symbolic block
        return StageMap(system.chart, system.chart, equations, new=Q + P, auxiliary=aux,
                        parameters=stage_parameters(system), guess=guess, step=STEP_SYMBOL,
                        derivatives="auto" if regular else "implicit")

    def _build(self, system):
        return self._equations(system)

    def regular_form(self, system):
        """The step with ``g(Q) = 0`` replaced by its divided difference (see the module docstring)."""
        cache = self.__dict__.setdefault("_regular", {})
        if system in cache:
            return cache[system]
        h = self.h
        n, m, q, p, G, Vq, Tp, Q, P, Ph, Lam, Mu = self._parts(system)
        drift = [h * substitute(Tp[i], dict(zip(p, Ph))) for i in range(n)]
        D = [divided_difference(g, q, drift, self.h) for g in system.constraints]
        claim = "h D(q, p_half, h) == g(q + h T_p(p_half)) - g(q), and g o iota == 0"
        if any(d is None for d in D):
            out = (self.step_map(system), Certificate(
                claim, None, "a constraint is not polynomial in q: no exact divided difference", "unknown"))
        else:
            ident = decide_all_zero([h * d - (substitute(g, {x: x + dr for x, dr in zip(q, drift)}) - g)
                                     for d, g in zip(D, system.constraints)])
            S, iota = system.manifold()
            pts = dict(zip(system.chart.coords, iota.exprs)) if isinstance(iota, gc.Map) else None
            on = decide_all_zero([substitute(g, pts) for g in system.constraints]) if pts else None
            holds = ident.is_zero is True and on is not None and on.is_zero is True
            method = ("g(Q) - g(q) = h D(q, p_half, h) with D polynomial in h (" + ident.method + ")"
                      + (", and g = 0 on the parametrized manifold (" + on.method + ")" if on is not None else
                         "; g = 0 on the manifold is not checked: its parametrization is implicit (the order needs"
                         " an explicit parametrization: pass parametrization= to the system)")
                      + "; so for h != 0 the step's equation g(Q) = 0 is D = 0 on M")
            D_ = Derivation("The position constraint in a form regular at h = 0").add(tex_text(method))
            out = (self._equations(system, regular=True),
                   Certificate(claim, True if holds else None, method, "exact" if holds else "unknown",
                               derivation=D_))
        cache[system] = out
        return out
