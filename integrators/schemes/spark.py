r"""The Lobatto IIIA-IIIB pair for holonomically constrained Hamiltonian systems (SPARK; a symbolic step).

Jay, "Symplectic partitioned Runge-Kutta methods for constrained Hamiltonian systems",
SIAM J. Numer. Anal. 33 (1996); Hairer, Lubich & Wanner, *Geometric Numerical
Integration* (2nd ed.), Section VII.1.4 ("Lobatto IIIA-IIIB for constrained systems").
For ``H = T(p) + V(q)``, constraints ``g(q) = 0`` (``G = dg/dq``) and the s-stage Lobatto
IIIA coefficients ``a_ij`` (positions), Lobatto IIIB ``ahat_ij`` (momenta) with the common
weights ``b_i``, one step ``(q0, p0) -> (q1, p1)`` is::

    Q_i = q0 + h sum_j a_ij T_p(P_j)                                   i = 1..s
    P_i = p0 - h sum_j ahat_ij (V_q(Q_j) + G(Q_j)^T Lambda_j)           i = 1..s
    0   = g(Q_i)                                                       i = 1..s
    q1  = q0 + h sum_i b_i T_p(P_i)
    p1  = p0 - h sum_i b_i (V_q(Q_i) + G(Q_i)^T Lambda_i)
    0   = G(q1) T_p(p1)

(HLW VII.1.4; with s = 2 it is RATTLE).  Lobatto IIIA has a zero first row (``Q_1 = q0``,
so ``g(Q_1) = 0`` holds on the manifold and is dropped) and last row ``b`` (``Q_s = q1``);
Lobatto IIIB has a zero last column, so ``Lambda_s`` enters ``p1`` only, where the hidden
constraint fixes it: ``s m`` conditions for the ``s m`` multipliers.

Written as ONE :class:`geomcheck.ImplicitMap`.  Its unknowns (besides the new state) are the
interior stage increments ``Z_k = Q_k - q0`` (``k = 2 .. s-1``) and the *impulses*
``L_j = h Lambda_j`` (``j = 1 .. s-1``; scaled so that the equations stay well conditioned as
``h -> 0``).  Every ``P_i`` is explicit in them (``ahat_is = 0`` and ``Q_1 = q0``), hence so is
``Q_s = q1``; when ``T_p`` is affine in p the hidden constraint is linear in ``b_s L_s``, with
matrix ``G H_pp G^T`` at ``q1``, and is solved in the formula for ``p1`` (as in
:class:`~integrators.schemes.rattle.Rattle`); otherwise ``Mu = b_s L_s`` is an unknown too.
The map also carries ``evaluation_equations`` (what :func:`integrators.lower.lower` lowers in
place of the equations): the same rows with each constraint ``g(q0 + Z)`` written
``g(q0) + (g(q0 + Z) - g(q0))``, the bracket expanded in ``Z`` for polynomial ``g``
(:func:`increment_of`), an identity; its rounding error is then that of ``g(q0)`` and of terms
of size ``|Z| = O(h)`` instead of ``eps |q|^2``, so that Newton's increments settle below its
default tolerance (``benchmarks/bench_constrained.py``: chains of 4 and 10 links).
Newton's method therefore works on ``n (s - 2) + m (s - 1)`` unknowns (RATTLE: ``m``), plus ``m`` when
``Mu`` is one: when ``T_p`` is not affine, or for more than :data:`MAX_SOLVED_IMPULSES` constraints (the
symbolic inverse of ``G H_pp G^T`` grows quickly with m).  When ``T_p`` is affine (``H_pp`` constant) the
drifts are written with the combined coefficients ``A Ahat`` (smaller expressions).  Newton starts from
``Z_k = c_k h T_p(p0)`` and ``L_j = h lambda(q0, p0)`` (the index-reduced multiplier).

Declared: order ``2s - 2`` (Jay 1996; HLW VII.1.4: superconvergence of q and p at the Lobatto
points) and ``{"symplectic", "symmetric", "constraint-preserving"}``, each in the sense of
:mod:`integrators.schemes.on_manifold` (on the constraint manifold ``M``), as for RATTLE.
Certified on the pendulum with a generic potential ``V(x, y)`` and a symbolic length (``GENERIC``
of ``tests/integrators/ig_cases_constrained.py``), each with the certificates' default 10 s budget
(``benchmarks/bench_constrained.py --only certificates``; s = 4, CPU seconds: order 5.9 (with the
symmetry), symplectic 1.3, symmetric 0.2, constraint-preserving 0.1):

* *symmetric* by the adjoint argument (:func:`~integrators.schemes.on_manifold.certify_symmetric_by_reversal`):
  the stages of ``phi_h`` taken backwards (:meth:`SparkLobatto.stage_reversal`) make every equation
  of ``phi_{-h}`` from ``phi_h(iota(s))`` back to ``iota(s)`` one of ``phi_h``'s equations, identically
  (:meth:`SparkLobatto.equation_pairing`); no system of both steps' unknowns is solved;
* *order* ``2s - 2`` from order ``2s - 3`` and that symmetry (a symmetric method's order is even,
  HLW Thm. II.3.2; :func:`~integrators.schemes.on_manifold.certify_order_by_symmetry`): the largest
  Taylor coefficient is never expanded (the full expansion agrees: ``tests/integrators/test_spark.py``,
  thorough profile);
* *symplectic*: ``(phi o iota)^* omega = iota^* omega`` with the derivatives of the stages by the
  implicit function theorem at each evaluation point (the step asks for ``derivatives="implicit"``:
  the symbolic Cramer solve of the 4 x 4 block left for s = 3 took 35-90 s).

Also checked numerically at 60 digits, ``det(D phi_M) f(phi_M) = f`` for ``iota^* omega = f du ^ dw``
on the concrete pendulum, to 1e-20 (a 1e-6 perturbation shows 1.8e-6), and the orders against the
pendulum's exact flow (rates 4.005, 6.002).
The order is expanded in the form regular at ``h = 0`` in which every ``g(Q_i) = 0`` is replaced
by its divided difference ``(g(q0 + h sum_j a_ij T_p(P_j)) - g(q0)) / h`` (polynomial
constraints: the identity is checked exactly; on ``M``, ``g(q0) = 0``; the interior ``Q_k = q0 + Z_k``
are given by their stage equations).

>>> import sympy
>>> from integrators.schemes.spark import SparkLobatto
>>> from integrators.systems import planar_pendulum
>>> pendulum = planar_pendulum()
>>> phi = SparkLobatto(3).step_map(pendulum)
>>> [str(u) for u in phi.auxiliary]
['Z2_x', 'Z2_y', 'L1_1', 'L2_1']
>>> SparkLobatto(3).certify(pendulum, properties=["constraint-preserving"])["constraint-preserving"].holds
True
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.families import lobatto_iiia_iiib
from geomcheck.latex import Derivation, tex_text
from geomcheck.linalg import solve_sparse
from geomcheck.maps import substitute
from geomcheck.zero import decide_all_zero

from ..errors import InvalidArgumentError
from ..systems import STEP_SYMBOL, ConstrainedHamiltonianSystem
from .on_manifold import certify_order_by_symmetry, certify_order_on_manifold, certify_symmetric_by_reversal
from .rattle import ConstrainedScheme, divided_difference
from .stages import StageMap, fresh_symbol_factory, stage_parameters

__all__ = ["SparkLobatto", "increment_of"]

#: the last impulse ``Mu = b_s L_s`` is solved in the formula for p1 (when T_p is affine) for at most this
#: many constraints: the symbolic inverse of the m x m matrix G H_pp G^T grows quickly with m (RATTLE's solved
#: step on a 4-link chain has expression size 1e5, geomcheck.latex.expression_size), so beyond it Mu stays an
#: unknown of Newton's method (m more unknowns, equations of linear size)
MAX_SOLVED_IMPULSES = 2

#: the largest number of stages offered: the ones certified and measured (s = 4, order 6); the tableau
#: stays exact beyond (radicals up to s = 7), but the symbolic step and its certificates grow quickly
MAX_STAGES = 4


def increment_of(g, q, W):
    """``g(q + W) - g(q)``, expanded in ``W`` when ``g`` is a polynomial in ``q`` (then every term has a factor W).

    >>> import sympy
    >>> x, y, u, v = sympy.symbols("x y u v")
    >>> increment_of(x**2 + y**2 - 1, [x, y], [u, v])
    u**2 + 2*u*x + v**2 + 2*v*y
    """
    moved = substitute(g, {x: x + w for x, w in zip(q, W)})
    return sympy.expand(moved - g) if g.is_polynomial(*q) else moved - g


def _affine_in(exprs, symbols) -> bool:
    """Whether every expression is affine in ``symbols`` (second derivatives vanish structurally)."""
    return all(diff(diff(e, a), b) == 0 for e in exprs for a in symbols for b in symbols)


class SparkLobatto(ConstrainedScheme):
    """The s-stage Lobatto IIIA-IIIB SPARK method for holonomic constraints (see the module docstring).

    Parameters
    ----------
    stages : int
        ``s`` with ``2 <= s <= 4``: order ``2s - 2`` (s = 2 is RATTLE, 3 gives order 4, 4 order 6).

    Raises
    ------
    InvalidArgumentError
        For a number of stages that is not an integer in ``[2, 4]``.

    Examples
    --------
    >>> from integrators.schemes.spark import SparkLobatto
    >>> s = SparkLobatto(4)
    >>> s.name, s.order, sorted(s.properties)
    ('spark-lobatto-4', 6, ['constraint-preserving', 'symmetric', 'symplectic'])
    >>> SparkLobatto(1)
    Traceback (most recent call last):
    ...
    geomcheck.errors.InvalidArgumentError: SparkLobatto: stages must be an integer from 2 to 4 (order 2s - 2), got 1
    """

    requires = frozenset({"constrained", "separable"})
    properties = frozenset({"symplectic", "symmetric", "constraint-preserving"})

    def __init__(self, stages: int = 3):
        if isinstance(stages, bool) or not isinstance(stages, int) or not 2 <= stages <= MAX_STAGES:
            raise InvalidArgumentError(
                f"SparkLobatto: stages must be an integer from 2 to {MAX_STAGES} (order 2s - 2), got {stages!r}")
        self.stages_count = stages
        self.name = f"spark-lobatto-{stages}"
        self.order = 2 * stages - 2
        self.description = (f"{stages}-stage Lobatto IIIA (q) - IIIB (p) for holonomic constraints: g(Q_i) = 0 at"
                            f" the stages, G(q1) H_p(q1, p1) = 0 at the end (Jay 1996; order {self.order})")
        T = lobatto_iiia_iiib(stages)
        self.a = tuple(tuple(row) for row in T.q.A)
        self.ahat = tuple(tuple(row) for row in T.p.A)
        self.b = tuple(T.q.b)
        self.c = tuple(T.q.c)

    def __eq__(self, other):
        return type(other) is type(self) and other.stages_count == self.stages_count

    def __hash__(self):
        return hash((self.name, self.stages_count))

    def why_not(self, system: object) -> str | None:
        return super().why_not(system) or self.separable_reason(system)

    # ------------------------------------------------------------------ the step

    def _parts(self, system):
        s = self.stages_count
        n, m = len(system.q), len(system.constraints)
        fresh = fresh_symbol_factory(system)

        Zs = {k: [fresh(f"Z{k}_{x.name}") for x in system.q] for k in range(2, s)}
        L = {j: [fresh(f"L{j}_{a + 1}") for a in range(m)] for j in range(1, s)}
        Q = [fresh(f"{x.name}_new") for x in system.q]
        P = [fresh(f"{y.name}_new") for y in system.p]
        Mu = [fresh(f"Mu_{a + 1}") for a in range(m)]
        return n, m, Zs, L, Q, P, Mu

    def _stages(self, system, Zs, L):
        """The explicit stage formulas: ``P_i`` (i = 1..s), the drifts ``Q_i - q0`` (i = 1..s)."""
        h, s = self.h, self.stages_count
        q, p, G = system.q, system.p, system.constraint_jacobian
        n, m = len(q), len(system.constraints)
        Vq = [diff(system.H, x) for x in q]
        Tp = [diff(system.H, y) for y in p]
        at = {1: dict(zip(q, q)), **{k: {x: x + z for x, z in zip(q, Zs[k])} for k in Zs}}
        # the force and constraint impulse of stage j (j < s: the last column of Lobatto IIIB is zero)
        force = {j: [substitute(Vq[i], at[j]) for i in range(n)] for j in range(1, s)}
        impulse = {j: [sympy.Add(*[substitute(G[a, i], at[j]) * L[j][a] for a in range(m)]) for i in range(n)]
                   for j in range(1, s)}
        P = {}
        for i in range(1, s + 1):
            P[i] = [p[r] - sympy.Add(*[self.ahat[i - 1][j - 1] * (h * force[j][r] + impulse[j][r])
                                       for j in range(1, s) if self.ahat[i - 1][j - 1] != 0]) for r in range(n)]
        if _affine_in(Tp, p):
            # T_p(P) = T_p(p) + H_pp (P - p) with H_pp constant (T depends on p alone), so the drift
            # h sum_j a_ij T_p(P_j) = h (c_i T_p(p) - H_pp sum_k (A Ahat)_ik (h V_q(Q_k) + G(Q_k)^T L_k)):
            # the coefficients of A Ahat are combined once (smaller expressions for s >= 3)
            Hpp = [[diff(Tp[r], y) for y in p] for r in range(n)]
            AA = [[sympy.radsimp(sympy.expand(sum(self.a[i][j] * self.ahat[j][k] for j in range(s))))
                   for k in range(s)] for i in range(s)]
            c = [sympy.radsimp(sympy.expand(sum(row))) for row in self.a]
            push = {i: [sympy.Add(*[AA[i - 1][j - 1] * (h * force[j][t] + impulse[j][t]) for j in range(1, s)
                                    if AA[i - 1][j - 1] != 0]) for t in range(n)] for i in range(1, s + 1)}
            drift = {i: [h * (c[i - 1] * Tp[r] - sympy.Add(*[Hpp[r][t] * push[i][t] for t in range(n)
                                                             if Hpp[r][t] != 0])) for r in range(n)]
                     for i in range(1, s + 1)}
        else:
            velocity = {j: [substitute(Tp[r], dict(zip(p, P[j]))) for r in range(n)] for j in range(1, s + 1)}
            drift = {i: [h * sympy.Add(*[self.a[i - 1][j - 1] * velocity[j][r] for j in range(1, s + 1)
                                         if self.a[i - 1][j - 1] != 0]) for r in range(n)] for i in range(1, s + 1)}
        return Vq, Tp, force, impulse, drift

    def _equations(self, system, regular=False):
        h, s = self.h, self.stages_count
        q, p, G = system.q, system.p, system.constraint_jacobian
        n, m, Zs, L, Q, P, Mu = self._parts(system)
        Vq, Tp, force, impulse, drift = self._stages(system, Zs, L)
        Qx = [q[r] + drift[s][r] for r in range(n)]
        at_new = dict(zip(q, Qx))
        equations, aux = [], []
        for k in range(2, s):
            equations += [Zs[k][r] - drift[k][r] for r in range(n)]
            aux += Zs[k]
        for j in range(1, s):
            aux += L[j]
        # the position constraint at the stages 2..s (Q_1 = q0); the regular form uses divided differences
        conditions, evaluation = [], []
        W = [sympy.Dummy(f"W{r}") for r in range(n)]
        rise = {g: increment_of(g, q, W) for g in system.constraints}
        for i in range(2, s + 1):
            increment = Zs[i] if i < s else drift[s]
            for g in system.constraints:
                if regular:
                    conditions.append(divided_difference(g, q, drift[i], h))
                    continue
                conditions.append(substitute(g, {x: x + z for x, z in zip(q, increment)}) if i < s
                                  else substitute(g, at_new))
                evaluation.append(g + substitute(rise[g], dict(zip(W, increment))))
        # p1 before the last stage's constraint impulse b_s G(q1)^T L_s
        bs = self.b[s - 1]
        kick = [p[r] - sympy.Add(*[self.b[j - 1] * (h * force[j][r] + impulse[j][r]) for j in range(1, s)])
                - bs * h * substitute(Vq[r], at_new) for r in range(n)]
        Gnew = [[substitute(G[a, r], at_new) for r in range(n)] for a in range(m)]
        if m <= MAX_SOLVED_IMPULSES and _affine_in(Tp, p):
            # G(q1) T_p(kick - G(q1)^T Mu) = 0 is linear in Mu = b_s L_s, with matrix G H_pp G^T at q1
            Hpp = [[diff(Tp[r], y) for y in p] for r in range(n)]
            A = [[sympy.Add(*[G[a, r] * Hpp[r][t] * G[c, t] for r in range(n) for t in range(n)]) for c in range(m)]
                 for a in range(m)]
            rows = [{c: substitute(A[a][c], at_new) for c in range(m) if A[a][c] != 0} for a in range(m)]
            rhs = [substitute(hc, {**dict(zip(p, kick)), **at_new}) for hc in system.hidden_constraints]
            (mu,) = solve_sparse(rows, [rhs], m)
            Px = [kick[r] - sympy.Add(*[Gnew[a][r] * mu[a] for a in range(m)]) for r in range(n)]
            hidden = []
            final = list(mu)
        else:
            final = list(Mu)
            Px = [kick[r] - sympy.Add(*[Gnew[a][r] * Mu[a] for a in range(m)]) for r in range(n)]
            hidden = [substitute(hc, {**dict(zip(p, Px)), **at_new}) for hc in system.hidden_constraints]
            aux += Mu
        equations = ([Q[r] - Qx[r] for r in range(n)] + [P[r] - Px[r] for r in range(n)] + equations
                     + conditions + hidden)
        guess = {**dict(zip(Q, q)), **dict(zip(P, p)), **{u: sympy.S.Zero for u in aux}}
        if not regular:
            # Newton starts from an Euler predictor of the stages and the impulse h lambda(q, p) of the
            # index-reduced multiplier (the regular form keeps the h = 0 solution: the expansion starts there)
            v0 = [Tp[r] for r in range(n)]
            for k in Zs:
                guess.update({Zs[k][r]: self.c[k - 1] * h * v0[r] for r in range(n)})
            for j in L:
                guess.update({L[j][a]: h * system.multipliers[a] for a in range(m)})
        # implicit derivatives for the step (the symplecticity certificate's pullback): Cramer's rule on the
        # symbolic 4 x 4 block left for s = 3 takes 35-90 s (the adjugate), the derivatives computed by the
        # implicit function theorem at each evaluation point take a second; the regular form is only expanded
        phi = StageMap(system.chart, system.chart, equations, new=Q + P, auxiliary=aux,
                       parameters=stage_parameters(system), guess=guess, step=STEP_SYMBOL,
                       derivatives="auto" if regular else "implicit")
        #: the last impulse b_s h Lambda_s: an unknown, or its formula in the others (the reversal needs it)
        phi.final_impulse = tuple(final)
        if not regular:
            # lowered in place of the equations (integrators.lower): the same rows with each g(q0 + Z) written
            # g(q0) + (g(q0 + Z) - g(q0)) expanded in Z, so that its rounding error is that of g(q0) and of
            # terms of size |Z| = O(h), not eps |q|^2: Newton's increments then settle below its tolerance
            k0 = len(equations) - len(conditions) - len(hidden)
            phi.evaluation_equations = tuple(equations[:k0]) + tuple(evaluation) + tuple(hidden)
        return phi

    def _build(self, system):
        return self._equations(system)

    def stage_reversal(self, system: ConstrainedHamiltonianSystem) -> dict:
        """The auxiliary unknowns of the step ``phi_{-h}`` from ``phi_h(q0, p0)`` that lead back, by those of ``phi_h``.

        Lobatto IIIA and IIIB are symmetric (``a_{s+1-i, s+1-j} = b_j - a_ij``, the same for
        ``ahat``, ``c_{s+1-i} = 1 - c_i``), so the stages of ``phi_{-h}`` from ``(q1, p1)`` back to
        ``(q0, p0)`` are those of ``phi_h`` in reverse order: ``Q'_k = Q_{s+1-k}``, hence
        ``Z'_k = q0 + Z_{s+1-k} - q1``, and the multipliers ``Lambda'_j = Lambda_{s+1-j}``, hence
        the impulses ``L'_j = (-h) Lambda'_j = -L_{s+1-j}`` (``L_s = Mu / b_s``, the last impulse,
        an unknown or its formula) and ``Mu' = b_s L'_s = -b_s L_1``.  What
        :func:`~integrators.schemes.on_manifold.certify_symmetric_by_reversal` checks.

        >>> from integrators.schemes.spark import SparkLobatto
        >>> from integrators.systems import planar_pendulum
        >>> rev = SparkLobatto(3).stage_reversal(planar_pendulum())
        >>> {str(u): v for u, v in rev.items() if str(u) != "L1_1"}
        {'Z2_x': Z2_x + x - x_new, 'Z2_y': Z2_y + y - y_new, 'L2_1': -L2_1}
        """
        phi = self.step_map(system)
        s, q = self.stages_count, system.q
        n, m, Zs, L, Q, P, Mu = self._parts(system)
        bs = self.b[s - 1]
        rev = {}
        for k in range(2, s):
            rev.update({Zs[k][r]: q[r] + Zs[s + 1 - k][r] - Q[r] for r in range(n)})
        for j in range(2, s):
            rev.update({L[j][a]: -L[s + 1 - j][a] for a in range(m)})
        rev.update({L[1][a]: -phi.final_impulse[a] / bs for a in range(m)})
        if Mu[0] in phi.auxiliary:
            rev.update({Mu[a]: -bs * L[1][a] for a in range(m)})
        return rev

    def equation_pairing(self, system: ConstrainedHamiltonianSystem) -> dict:
        """``{k: j}``: equation k of ``phi_{-h}`` at the reversed stages is equation j of ``phi_h`` (see below).

        The equations are ordered ``q1 (n), p1 (n), Z_k (k = 2..s-1, n each), g(Q_i) (i = 2..s, m
        each)`` [, ``G(q1) T_p(p1)`` (m)].  Reversed, the stage equation of ``Z'_k`` is that of
        ``Z_{s+1-k}`` and the constraint at ``Q'_i = Q_{s+1-i}`` that of stage ``s+1-i``
        (``i < s``); the others (``q0``, ``p0`` as the new state, ``g(Q'_s) = g(q0)``, the hidden
        constraint at ``(q0, p0)``) are identities on the manifold.

        >>> from integrators.schemes.spark import SparkLobatto
        >>> from integrators.systems import planar_pendulum
        >>> SparkLobatto(4).equation_pairing(planar_pendulum())
        {4: 6, 5: 7, 6: 4, 7: 5, 8: 9, 9: 8}
        """
        s = self.stages_count
        n, m = len(system.q), len(system.constraints)
        stage = {k: 2 * n + (k - 2) * n for k in range(2, s)}                # first row of Z_k's equations
        cond = {i: 2 * n + (s - 2) * n + (i - 2) * m for i in range(2, s + 1)}  # first row of g(Q_i)
        pairs = {}
        for k in range(2, s):
            pairs.update({stage[k] + r: stage[s + 1 - k] + r for r in range(n)})
        for i in range(2, s):
            pairs.update({cond[i] + a: cond[s + 1 - i] + a for a in range(m)})
        return pairs

    def _certify_one(self, prop, phi, system):
        if prop == "symmetric":
            # the adjoint argument: phi_h's stages reversed solve phi_-h (one step's unknowns for the zero
            # test instead of both steps'); the claim is certify_symmetric_on_manifold's
            S, iota = system.manifold()
            return certify_symmetric_by_reversal(phi, iota, self.stage_reversal(system), self.equation_pairing(system))
        if prop == "order":
            # order 2s - 2 (even) from order 2s - 3 and the symmetry: the h^(2s-2) coefficient, the largest
            # expansion (s = 4: 19 s of the plain certificate's 25 s), is not computed
            S, iota = system.manifold()
            reg, equivalence = self.regular_form(system)
            if not isinstance(iota, gc.Map) or (equivalence is not None and equivalence.holds is not True):
                # the expansion is undecided anyway (no exact point of M, or no regular form): say why at once
                return certify_order_on_manifold(reg, system.vector_field, iota, self.h, int(self.order),
                                                 equivalence)
            symmetric = self._certify_one("symmetric", phi, system)
            return certify_order_by_symmetry(reg, system.vector_field, iota, self.h, int(self.order), symmetric,
                                             equivalence)
        return super()._certify_one(prop, phi, system)

    def regular_form(self, system: ConstrainedHamiltonianSystem) -> tuple:
        """The step with each ``g(Q_i) = 0`` replaced by its divided difference (see the module docstring)."""
        cache = self.__dict__.setdefault("_regular", {})
        if system in cache:
            return cache[system]
        h, s = self.h, self.stages_count
        q = system.q
        n, m, Zs, L, Q, P, Mu = self._parts(system)
        drift = self._stages(system, Zs, L)[-1]
        claim = "h D_i == g(q + h sum_j a_ij T_p(P_j)) - g(q) for i = 2..s, and g o iota == 0"
        D = {i: [divided_difference(g, q, drift[i], h) for g in system.constraints] for i in range(2, s + 1)}
        if any(d is None for row in D.values() for d in row):
            out = (self.step_map(system), Certificate(
                claim, None, "a constraint is not polynomial in q: no exact divided difference", "unknown"))
            cache[system] = out
            return out
        ident = decide_all_zero([h * d - (substitute(g, {x: x + dr for x, dr in zip(q, drift[i])}) - g)
                                 for i in D for d, g in zip(D[i], system.constraints)])
        S, iota = system.manifold()
        pts = dict(zip(system.chart.coords, iota.exprs)) if isinstance(iota, gc.Map) else None
        on = decide_all_zero([substitute(g, pts) for g in system.constraints]) if pts else None
        holds = ident.is_zero is True and on is not None and on.is_zero is True
        method = ("g(Q_i) - g(q) = h D_i with D_i polynomial in h, i = 2..s (" + ident.method + "; the interior"
                  " Q_k = q + Z_k are given by their stage equations Z_k = h sum_j a_kj T_p(P_j))"
                  + (", and g = 0 on the parametrized manifold (" + on.method + ")" if on is not None else
                     "; g = 0 on the manifold is not checked: its parametrization is implicit (the order needs"
                     " an explicit parametrization: pass parametrization= to the system)")
                  + "; so for h != 0 the step's equations g(Q_i) = 0 are D_i = 0 on M")
        D_ = Derivation("The stage position constraints in a form regular at h = 0").add(tex_text(method))
        out = (self._equations(system, regular=True),
               Certificate(claim, True if holds else None, method, "exact" if holds else "unknown", derivation=D_))
        cache[system] = out
        return out
