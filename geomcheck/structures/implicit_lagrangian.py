r"""Implicit Lagrangian systems with constraints (Salnikov & Hamdouni 2019, Section 3).

Input data, as in the paper: a Lagrangian ``L(q, v)`` (any smooth function, any
number ``n`` of degrees of freedom) and ``m`` constraint one-forms ``alpha^a`` on the
configuration chart Q.  From them this module derives

* the constraint distribution ``Delta = {v : <alpha^a, v> = 0}`` and its annihilator
  ``Delta^0 = span{alpha^a}`` (:class:`ConstraintDistribution`);
* the almost-Dirac structure on ``T*Q`` (coordinates ``(q, p)``, ``Omega = sum dq^i ^ dp_i``)

  .. math::

     D_\Delta = \{(w, \beta) \mid w \in \tilde\Delta,\ \beta - \Omega^\flat w \in \Delta_0\},
     \qquad \tilde\Delta = (T\pi)^{-1}(\Delta),\ \Delta_0 = \pi^*\Delta^0,

  with ``Omega^flat(w) = i_w Omega`` (:class:`ConstrainedDiracStructure`);
* the implicit Lagrangian equations ``(X, DL) in D_Delta`` with the Dirac differential
  ``DL(q, v) = (q, dL/dv, -dL/dq, v)``, i.e. ``q' in Delta``, ``p = dL/dv``, ``q' = v``,
  ``p' - dL/dq = sum lambda_a alpha^a`` -- *derived* from the membership conditions of
  ``D_Delta``, not written down (:meth:`ImplicitLagrangianSystem.equations`);
* the discrete scheme printed in the paper, as an :class:`~geomcheck.ImplicitMap`
  that :func:`integrators.lower.lower` turns into a batched Newton solver
  (:func:`discrete_dirac_scheme`):

  .. math::

     p_{k+1} = \tfrac1h \partial_{v_k} L_d,\qquad
     p_k - \tfrac1h \partial_{v_k} L_d + \partial_{q_k} L_d
        = \sum_a \lambda^a \partial_{v_k}\langle \alpha^a_d, v_k\rangle,\qquad
     \langle \alpha^a_d, v_k\rangle = 0,

  ``L_d = h L(q_k, v_k)``.  The velocity ``v_k`` is an unknown of the step (with the
  multipliers ``lambda^a``) and the new positions are explicit in it:
  ``q_{k+1} = q_{k-1} + 2 h v_k`` for the paper's ``v_k = (q_{k+1} - q_{k-1}) / (2h)``
  (a two-step scheme, made one-step on the state ``(q_{k-1}, q_k, p_k)``), or
  ``q_{k+1} = q_k + h v_k`` for the forward difference (state ``(q_k, p_k)``).

Conventions: ``Omega = sum dq^i ^ dp_i`` (so ``Omega^flat(qdot d_q + pdot d_p) =
qdot dp - pdot dq``); the continuous multipliers are ``lambda_a`` and the discrete ones
``lambda^a``; comparing the two momentum equations, ``lambda^a = -h lambda_a`` (the paper
uses the same letter for both: the sign and the factor h are a convention, not an error).

Findings on Section 3 (critiques: the paper is not wrong as printed; each with a test in
``tests/geomcheck/structures/test_implicit_lagrangian.py``, re-derived with plain sympy in
``tests/casestudies/test_salnikov2019_constrained.py``)
------------------------------------------------------------------------------------

1. *The paper's example velocity makes a first-order, dissipative scheme* (a critique: the
   paper offers it "for instance" and claims no energy behaviour).  With
   ``v_k = (q_{k+1} - q_{k-1}) / (2h)`` the momentum update ``p_{k+1} - p_k`` (a backward
   difference centred at ``t_{k-1/2}``) is balanced by forces at ``t_k``: for
   ``L = v^2/2 - q^2/2`` the scheme is ``q_{k+1} - q_k - q_{k-1} + q_{k-2} = -2h^2 q_k``,
   whose characteristic polynomial is not self-reciprocal; its two principal roots lie
   strictly inside the unit circle, modulus ``1 - h^2/4 + O(h^4)`` (the energy decays like
   ``exp(-h t / 2)``), and its parasitic root ``-(1 + h^2/2) + O(h^4)`` lies outside it; the
   energy drift of long runs is this same fact (``test_printed_centered_scheme_is_not_symmetric``,
   ``test_printed_scheme_energy_drifts``).  The constraints still hold to solver tolerance.
   The printed equations with the forward difference ``v_k = (q_{k+1} - q_k)/h`` (Leok &
   Ohsawa's discrete Lagrange-d'Alembert-Pontryagin scheme) are symplectic without
   constraints, for any L (``test_forward_scheme_is_symplectic_for_any_lagrangian``), and
   with the discrete constraint one-form taken at the midpoint, ``alpha_d^a = alpha^a((q_k + q_{k+1})/2)`` in the third
   line (the force direction of the second line stays ``alpha^a(q_k)``), they keep the
   energy error bounded: for the Cartesian pendulum the scheme is SHAKE and keeps
   ``x^2 + y^2`` to round-off and its energy error stays below 0.0145 up to t = 400 at
   h = 0.02, for the knife edge the energy is kept to 1e-12 over 10^4 steps
   (``constraint_at="midpoint", velocity="forward"``;
   ``tests/integrators/test_discrete_dirac_run.py``).  Measured with the printed choice at
   the same h, released at 2.5 rad from rest, the pendulum loses energy 0.75 by t = 25 and
   1.5 by t = 100.
2. *"linear in q_{k+1} only when the constraints are holonomic"* (end of Section 3) does
   not hold as a statement about holonomy (a critique): the constraint line ``<alpha_d^a(q_k), v_k> = 0`` is linear in ``q_{k+1}`` for
   any constraint one-form, holonomic or not; nonlinearity in ``q_{k+1}`` comes from ``L``
   (``dL/dv`` not linear in v, or a configuration-dependent mass) or from evaluating
   ``alpha_d`` at a point that involves ``q_{k+1}``.  The knife edge (nonholonomic) gives
   a system linear in all the unknowns (``test_knife_edge_scheme_is_linear_in_the_unknowns``).

A structural result computed here (not stated in the paper): ``D_Delta`` is a Dirac
structure (closed under the Courant-Dorfman bracket) for the holonomic pendulum and not for
the knife edge, as Yoshimura & Marsden prove in general (``D_Delta`` is integrable iff
``Delta`` is); checked through :mod:`geomcheck.structures.dirac`
(``test_d_delta_is_dirac_for_holonomic_and_not_for_the_knife_edge``).

>>> import sympy, geomcheck as gc
>>> from geomcheck.structures import implicit_lagrangian_system
>>> Q = gc.Chart("x y"); x, y = Q.coords
>>> vx, vy = sympy.symbols("v_x v_y")
>>> sysP = implicit_lagrangian_system((vx**2 + vy**2) / 2 - y, Q, [vx, vy], [x * Q.d(x) + y * Q.d(y)])
>>> eqs = sysP.equations()
>>> eqs.dynamics
(\dot{p}_{x} - lambda_1*x, \dot{p}_{y} - lambda_1*y + 1)
>>> eqs.constraints
(v_x*x + v_y*y,)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..errors import (ChartMismatchError, ConstraintError, ExpressionError, ImplicitMapError, InvalidArgumentError,
                      MixedDegreeError)
from ..fields import VectorField
from ..forms import Form, interior
from ..latex import Derivation, latex
from ..linalg import solve_affine
from ..maps import ImplicitMap, substitute
from ..zero import decide_all_zero
from ..latex import summarize

if TYPE_CHECKING:
    from ..zero import ZeroDecision
    from .dirac import AlmostDiracStructure

__all__ = [
    "ConstraintDistribution",
    "ConstrainedDiracStructure",
    "ImplicitLagrangianSystem",
    "ImplicitLagrangianEquations",
    "DiscreteDiracScheme",
    "implicit_lagrangian_system",
    "discrete_dirac_scheme",
]

#: expressions larger than this are summarized, not typeset
_TYPESET_OPS = 300

VELOCITY_CHOICES = ("centered", "forward")
CONSTRAINT_POINTS = ("current", "midpoint")


def _show(expr) -> str:
    return summarize(expr)


def _rows(pairs) -> str:
    """``lhs &= rhs`` rows joined for an align* body."""
    return r" \\ ".join(f"{a} &= {b}" for a, b in pairs)




def _sym_name(s) -> str:
    return sympy.latex(s)


def _indexed(x, index: str) -> str:
    """The name ``x_{index}`` (``{x_1}_{index}`` when x already carries a sub/superscript)."""
    t = _sym_name(x)
    return ("{" + t + "}" if ("_" in t or "^" in t) else t) + "_{" + index + "}"


def _fresh(name: str, taken: set) -> sympy.Symbol:
    """A Symbol named ``name`` (primed until it is not among ``taken``)."""
    while name in taken:
        name = "{" + name + "}'"
    taken.add(name)
    return sympy.Symbol(name)


# --------------------------------------------------------------------------- distribution


@dataclass(frozen=True)
class ConstraintDistribution:
    r"""The distribution ``Delta = ker alpha^1 ∩ ... ∩ ker alpha^m`` on the chart Q.

    Attributes
    ----------
    chart : Chart
        The configuration chart Q.
    forms : tuple of Form
        The constraint one-forms ``alpha^a``; they span the annihilator ``Delta^0``.
    matrix : sympy.ImmutableMatrix
        ``A[a, i] = alpha^a_i(q)`` (``m x n``); ``v in Delta`` iff ``A v = 0``.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> Q = gc.Chart("x y theta"); x, y, th = Q.coords
    >>> D = implicit_lagrangian_system(0, Q, None, [[sympy.sin(th), -sympy.cos(th), 0]]).distribution
    >>> D.pairing([sympy.cos(th), sympy.sin(th), 1])          # rolling along the blade
    (0,)
    >>> D.contains([sympy.cos(th), sympy.sin(th), 1]).is_zero
    True
    """

    chart: Chart
    forms: tuple
    matrix: sympy.ImmutableMatrix

    @property
    def rank(self) -> int:
        """The number m of constraint one-forms."""
        return len(self.forms)

    def pairing(self, v: Sequence[sympy.Expr | float]) -> tuple[sympy.Expr, ...]:
        """``(<alpha^a, v>)_a`` for components ``v`` (a sequence of n expressions)."""
        v = list(v)
        if len(v) != self.chart.dim:
            raise ConstraintError(f"a vector on {self.chart!r} has {self.chart.dim} components; got {len(v)}")
        return tuple(sympy.Add(*[self.matrix[a, i] * v[i] for i in range(self.chart.dim)]) for a in range(self.rank))

    def contains(self, v: Sequence[sympy.Expr | float], **budget: Any) -> ZeroDecision:
        """The zero test of ``A v`` (a ZeroDecision: ``is_zero`` True iff ``v in Delta``)."""
        return decide_all_zero(list(self.pairing(v)), **budget)

    def kernel_basis(self) -> tuple:
        """A basis of ``Delta`` (generic rank ``n - m``), from sympy's nullspace of ``A``.

        Valid where the pivots sympy divides by do not vanish (regular points).
        """
        return tuple(tuple(c) for c in sympy.Matrix(self.matrix).nullspace())

    def _latex(self, printer=None):
        rows = ", ".join(latex(a) for a in self.forms)
        return r"\Delta = \ker\{" + rows + r"\}"

    def latex(self) -> str:
        return self._latex()


# --------------------------------------------------------------------------- D_Delta


@dataclass(frozen=True)
class ConstrainedDiracStructure:
    r"""``D_Delta`` on ``T*Q``: pairs ``(w, beta)`` with ``w in Delta~`` and ``beta - Omega^flat w in Delta_0``.

    Attributes
    ----------
    phase : Chart
        ``T*Q`` with coordinates ``(q, p)``.
    distribution : ConstraintDistribution
    omega : Form
        ``Omega = sum dq^i ^ dp_i``.
    annihilator : tuple of Form
        ``pi^* alpha^a`` on ``T*Q`` (they span ``Delta_0``).
    derivation : Derivation
        The membership conditions in coordinates, as :meth:`latex` typesets them.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> Q = gc.Chart("x y"); x, y = Q.coords
    >>> DD = implicit_lagrangian_system(0, Q, None, [x * Q.d(x) + y * Q.d(y)]).dirac_structure()
    >>> DD.annihilator
    (Form((x)*dx + (y)*dy),)
    >>> w = gc.VectorField(DD.phase, [-y, x, 0, 0])            # tangent to the circle
    >>> cond = DD.conditions(w, DD.omega_flat(w) + 5 * DD.annihilator[0], [5])
    >>> sorted(set(cond.values()))
    [0]
    """

    phase: Chart
    distribution: ConstraintDistribution
    omega: Form
    annihilator: tuple
    derivation: Derivation = Derivation(r"The almost-Dirac structure $D_\Delta$")

    @property
    def n(self) -> int:
        return self.distribution.chart.dim

    def omega_flat(self, w: VectorField) -> Form:
        """``Omega^flat(w) = i_w Omega``."""
        return interior(w, self.omega)

    def conditions(self, w: VectorField, beta: Form, multipliers: Iterable[sympy.Expr | float]) -> dict:
        r"""What must vanish for ``(w, beta) in D_Delta`` with ``beta - Omega^flat w = sum mu_a pi^*alpha^a``.

        Returns ``{("Delta", a): <alpha^a, T pi(w)>, ("dq", i): ..., ("dp", i): ...}``; the pair
        is in ``D_Delta`` iff all vanish for some multipliers ``mu``.
        """
        if w.chart != self.phase or beta.chart != self.phase:
            raise ChartMismatchError(f"D_Delta lives on {self.phase!r}; got a pair on {w.chart!r}, {beta.chart!r}")
        mu = list(multipliers)
        if len(mu) != self.distribution.rank:
            raise ConstraintError(f"D_Delta has {self.distribution.rank} multipliers; got {len(mu)}")
        coords = self.phase.coords
        n = self.n
        tangent = [w.component(coords[i]) for i in range(n)]
        out = {}
        for a, val in enumerate(self.distribution.pairing(tangent)):
            out[("Delta", a)] = val
        rest = beta - self.omega_flat(w)
        for a, al in enumerate(self.annihilator):
            rest = rest - mu[a] * al
        for i in range(n):
            out[("dq", i)] = rest.coefficient(coords[i])
            out[("dp", i)] = rest.coefficient(coords[n + i])
        return out

    def spanning_sections(self) -> tuple:
        r"""``2n`` sections of ``T(T*Q) + T*(T*Q)`` spanning ``D_Delta`` at regular points.

        ``(u, Omega^flat u)`` for a basis ``u`` of ``Delta`` lifted to ``T*Q``,
        ``(d/dp_i, Omega^flat d/dp_i) = (d/dp_i, -dq^i)`` and ``(0, pi^*alpha^a)``.
        """
        P, n = self.phase, self.n
        out = []
        for u in self.distribution.kernel_basis():
            X = VectorField(P, list(u) + [0] * n)
            out.append((X, self.omega_flat(X)))
        for i in range(n):
            X = VectorField(P, {P.coords[n + i]: 1})
            out.append((X, self.omega_flat(X)))
        zero = VectorField(P, [0] * (2 * n))
        out.extend((zero, al) for al in self.annihilator)
        return tuple(out)

    def as_almost_dirac_structure(self) -> AlmostDiracStructure:
        """The spanning sections as a :class:`geomcheck.structures.AlmostDiracStructure` (dirac.py)."""
        from .dirac import almost_dirac_structure

        return almost_dirac_structure(self.phase, [(X, b) for X, b in self.spanning_sections()])

    def _latex(self, printer=None):
        return (r"D_\Delta = \{(w, \beta) \mid w \in \tilde\Delta,\ \beta - \Omega^\flat w \in \Delta_0\},"
                r"\ \Delta_0 = \operatorname{span}\{" + ", ".join(latex(a) for a in self.annihilator) + r"\}")

    def latex(self) -> str:
        """The derivation of the membership conditions (a LaTeX fragment)."""
        return self.derivation.latex()


# --------------------------------------------------------------------------- the system


@dataclass(frozen=True)
class ImplicitLagrangianEquations:
    r"""The implicit Lagrangian equations ``(X, DL) in D_Delta`` in coordinates.

    Every tuple holds expressions that vanish on solutions:

    * ``legendre[i] = p_i - dL/dv^i``,
    * ``kinematic[i] = v^i - qdot^i`` (from the ``dp`` part of ``beta - Omega^flat X``),
    * ``dynamics[i] = pdot_i - dL/dq^i - sum_a lambda_a alpha^a_i`` (the ``dq`` part),
    * ``constraints[a] = <alpha^a, v>`` (``qdot in Delta`` with ``qdot = v``).
    """

    system: "ImplicitLagrangianSystem"
    qdot: tuple
    pdot: tuple
    multipliers: tuple
    legendre: tuple
    kinematic: tuple
    dynamics: tuple
    constraints: tuple
    derivation: Derivation

    def all(self) -> tuple:
        return self.legendre + self.kinematic + self.dynamics + self.constraints

    def latex(self) -> str:
        return self.derivation.latex()


@dataclass(frozen=True)
class ImplicitLagrangianSystem:
    """A Lagrangian ``L(q, v)`` with constraint one-forms; see :func:`implicit_lagrangian_system`.

    Attributes
    ----------
    lagrangian : sympy expression in ``q`` (the chart's coordinates) and ``v``
    configuration : Chart  (Q)
    velocities : tuple of Symbol
    momenta : tuple of Symbol
    phase : Chart  (``T*Q``, coordinates ``q`` then ``p``)
    distribution : ConstraintDistribution
    """

    lagrangian: object
    configuration: Chart
    velocities: tuple
    momenta: tuple
    phase: Chart
    distribution: ConstraintDistribution

    @property
    def q(self) -> tuple:
        return self.configuration.coords

    @property
    def energy(self) -> sympy.Expr:
        """``E(q, v) = v^i dL/dv^i - L``."""
        L = self.lagrangian
        return sympy.Add(*[v * diff(L, v) for v in self.velocities]) - L

    def momentum(self) -> tuple:
        """``dL/dv^i`` (the Legendre transform)."""
        return tuple(diff(self.lagrangian, v) for v in self.velocities)

    def legendre_inverse(self) -> dict[sympy.Symbol, sympy.Expr] | None:
        """``{v^i: expression in (q, p)}`` when ``dL/dv`` is affine in v, else None.

        Solved with one sparse linear solve (no symbolic inverse).
        """
        sol = solve_affine(self.momentum(), self.velocities, self.momenta)
        return None if sol is None else dict(zip(self.velocities, sol))

    def hamiltonian(self) -> sympy.Expr | None:
        """The energy as a function on ``T*Q`` (when the Legendre transform is affine in v), else None."""
        inv = self.legendre_inverse()
        if inv is None:
            return None
        return substitute(self.energy, inv)

    def dirac_structure(self) -> ConstrainedDiracStructure:
        """``D_Delta`` on ``T*Q``."""
        P, n = self.phase, self.configuration.dim
        omega = Form(P, {(i, n + i): 1 for i in range(n)})
        A = self.distribution.matrix
        # pi^* alpha^a: the same coefficients, on the dq^i of T*Q
        ann = tuple(Form(P, {(i,): A[a, i] for i in range(n) if A[a, i] != 0}) for a in range(A.rows))
        DD = ConstrainedDiracStructure(P, self.distribution, omega, ann)
        # the membership conditions for a general pair (w, beta), computed by DD itself
        names = [_sym_name(x) for x in self.q]
        w = [sympy.Symbol(f"w^{{{t}}}") for t in names] + [sympy.Symbol(f"w_{{p_{{{t}}}}}") for t in names]
        b = [sympy.Symbol(f"\\beta_{{{t}}}") for t in names] + [sympy.Symbol(f"\\beta^{{p_{{{t}}}}}") for t in names]
        mu = [sympy.Symbol(f"mu_{a + 1}") for a in range(A.rows)]
        cond = DD.conditions(VectorField(P, w), Form(P, {(i,): c for i, c in enumerate(b)}), mu)
        D = self._input_derivation(r"The almost-Dirac structure $D_\Delta$ of the constraints")
        D = D.add(r"For $w = w^{q}\partial_q + w_{p}\partial_p$ and $\beta = \beta_q\,\mathrm{d}q + \beta^{p}\,"
                  r"\mathrm{d}p$, $(w, \beta) \in D_\Delta$ iff there are multipliers $\mu_a$ with",
                  _rows([(_show(cond[("Delta", a)]), "0") for a in range(A.rows)]
                        + [(_show(cond[("dq", i)]), "0") for i in range(n)]
                        + [(_show(cond[("dp", i)]), "0") for i in range(n)]))
        D = D.concluding(r"$D_\Delta$ has rank $2n = %d$: it is spanned by $(u, \Omega^\flat u)$ for $u$ in a basis"
                         r" of $\Delta$ (lifted to $T^*Q$), $(\partial_{p_i}, -\mathrm{d}q^i)$ and $(0, \pi^*\alpha^a)$."
                         % (2 * n))
        return dataclasses.replace(DD, derivation=D)

    def dirac_differential(self) -> tuple:
        """``DL(q, v) = (q, dL/dv, -dL/dq, v)`` as the tuple ``(q, p, beta_q, beta_p)``."""
        L = self.lagrangian
        return (self.q, self.momentum(), tuple(-diff(L, x) for x in self.q), self.velocities)

    def equations(self) -> ImplicitLagrangianEquations:
        r"""Derive ``(X, DL) in D_Delta``: the implicit Lagrangian equations with multipliers."""
        Q, P, n, m = self.configuration, self.phase, self.configuration.dim, self.distribution.rank
        taken = {s.name for s in P.coords} | {v.name for v in self.velocities}
        qdot = tuple(_fresh(r"\dot{" + _sym_name(x) + "}", taken) for x in Q.coords)
        pdot = tuple(_fresh(r"\dot{p}_{" + _sym_name(x) + "}", taken) for x in Q.coords)
        lam = tuple(_fresh(f"lambda_{a + 1}", taken) for a in range(m))
        DD = self.dirac_structure()
        X = VectorField(P, list(qdot) + list(pdot))
        q, mom, beta_q, beta_p = self.dirac_differential()
        beta = Form(P, {**{(i,): beta_q[i] for i in range(n) if beta_q[i] != 0},
                        **{(n + i,): beta_p[i] for i in range(n)}})
        cond = DD.conditions(X, beta, lam)
        legendre = tuple(p - f for p, f in zip(self.momenta, mom))
        kinematic = tuple(cond[("dp", i)] for i in range(n))
        dynamics = tuple(cond[("dq", i)] for i in range(n))
        # q' in Delta, written with q' = v (the kinematic equation) as in the paper
        on_v = dict(zip(qdot, self.velocities))
        constraints = tuple(cond[("Delta", a)].xreplace(on_v) for a in range(m))
        D = self._input_derivation("Implicit Lagrangian system with constraints")
        D = D.add(r"The Dirac differential $\mathcal{D}L(q, v) = (q, \partial L/\partial v, -\partial L/\partial q, v)$"
                  r" and the partial vector field $X = \dot q\,\partial_q + \dot p\,\partial_p$ give",
                  _rows([(r"\mathcal{D}L", r"\left(q,\ " + ", ".join(_show(f) for f in mom) + r";\ "
                          + ", ".join(_show(b) for b in beta_q) + r";\ " + ", ".join(_show(v) for v in self.velocities)
                          + r"\right)"),
                         (r"\Omega^\flat X", _show_form(DD.omega_flat(X)))]))
        D = D.add(r"$(X, \mathcal{D}L) \in D_\Delta$ means $\dot q \in \Delta$ and"
                  r" $\mathcal{D}L - \Omega^\flat X = \sum_a \lambda_a \pi^*\alpha^a$; component by component:",
                  _rows([(sympy.latex(p), _show(f)) for p, f in zip(self.momenta, mom)]
                        + [(sympy.latex(qd), _show(v)) for qd, v in zip(qdot, self.velocities)]
                        + [(_show(pd), _show(-(dyn - pd))) for pd, dyn in zip(pdot, dynamics)]
                        + [(_show(c), "0") for c in constraints]))
        D = D.concluding(r"The multipliers $\lambda_a$ are the Lagrange multipliers of the constraint forces"
                         r" $\sum_a \lambda_a \alpha^a$.")
        return ImplicitLagrangianEquations(self, qdot, pdot, lam, legendre, kinematic, dynamics, constraints, D)

    def _input_derivation(self, title: str) -> Derivation:
        n = self.configuration.dim
        D = Derivation(title)
        D = D.add(r"Input data: the Lagrangian and the constraint one-forms on $Q$ ($n = %d$, $m = %d$),"
                  % (n, self.distribution.rank),
                  _rows([("L", _show(self.lagrangian))]
                        + [(r"\alpha^{%d}" % (a + 1), _show_form(al)) for a, al in enumerate(self.distribution.forms)]))
        D = D.add(r"The distribution and its annihilator: $\Delta_q = \{v \mid \langle\alpha^a, v\rangle = 0\}$,"
                  r" $\Delta^0 = \operatorname{span}\{\alpha^a\}$. On $T^*Q$ with $\Omega = \sum_i \mathrm{d}q^i\wedge"
                  r"\mathrm{d}p_i$ the almost-Dirac structure is",
                  r"D_\Delta &= \{(w, \beta) \mid w \in \tilde\Delta,\ \beta - \Omega^\flat w \in \Delta_0\}, &"
                  r"\Omega^\flat(\dot q\,\partial_q + \dot p\,\partial_p) &= \dot q\,\mathrm{d}p - \dot p\,\mathrm{d}q.")
        return D


def _show_form(f: Form) -> str:
    return summarize(f)


# --------------------------------------------------------------------------- input checks


def _configuration(q) -> Chart:
    if isinstance(q, Chart):
        if q.is_graded:
            raise ChartMismatchError(f"the configuration chart must be ordinary, not the graded {q!r}")
        return q
    if isinstance(q, (str, sympy.Symbol)) or isinstance(q, Iterable):
        return Chart(q if not isinstance(q, sympy.Symbol) else [q])
    raise ExpressionError(f"the configuration must be a Chart or coordinate names/Symbols, got {q!r}")


def _constraint_rows(Q: Chart, constraints, forbidden: set) -> tuple:
    if isinstance(constraints, (Form, str, bytes, Mapping)) or not isinstance(constraints, Iterable):
        raise ConstraintError(f"constraints must be a sequence of one-forms (or coefficient lists), got {constraints!r}")
    names = ", ".join(c.name for c in Q.coords)
    forms, rows = [], []
    for a, al in enumerate(constraints):
        if isinstance(al, Form):
            if al.chart != Q:
                raise ConstraintError(
                    f"constraint one-form alpha^{a + 1} = {al} lives on {al.chart!r}, not on the configuration chart"
                    f" {Q!r} of the Lagrangian's q; expected a one-form on Q (in d{', d'.join(c.name for c in Q.coords)})"
                )
            try:
                deg = al.degree if al.terms else 1
            except MixedDegreeError:
                deg = None
            if deg != 1:
                raise ConstraintError(f"constraint alpha^{a + 1} = {al} is not a one-form (degree {deg}); expected a one-form on Q")
            row = [al.coefficient(x) for x in Q.coords]
        else:
            if isinstance(al, sympy.MatrixBase):
                al = list(al)
            if isinstance(al, (str, bytes, sympy.Basic)) or not isinstance(al, Iterable):
                raise ConstraintError(
                    f"constraint {a + 1} must be a one-form on Q or a list of {Q.dim} coefficients ({names}), got {al!r}"
                )
            row = list(al)
            if len(row) != Q.dim:
                raise ConstraintError(
                    f"constraint {a + 1} has {len(row)} coefficients; expected {Q.dim}, one per coordinate of Q ({names})"
                )
            row = [Q.check_expression(c, f"coefficient {i} of constraint {a + 1}") for i, c in enumerate(row)]
        for i, c in enumerate(row):
            bad = c.free_symbols & forbidden
            if bad:
                raise ConstraintError(
                    f"coefficient {i} of constraint {a + 1} ({c}) depends on {sorted(map(str, bad))}; constraint"
                    f" one-forms alpha^a(q) are functions of the configuration ({names}) only"
                )
        rows.append(row)
        forms.append(Form(Q, {(i,): c for i, c in enumerate(row) if c != 0}))
    return tuple(forms), sympy.ImmutableMatrix(len(rows), Q.dim, [c for r in rows for c in r]) if rows else \
        sympy.ImmutableMatrix(0, Q.dim, [])


def implicit_lagrangian_system(L: sympy.Expr, q: Chart | str | Sequence[str | sympy.Symbol],
                               velocities: Sequence[sympy.Symbol | str] | None = None,
                               constraints: Sequence[Form | Sequence[Any]] = (),
                               momenta: Sequence[sympy.Symbol | str] | None = None) -> ImplicitLagrangianSystem:
    """An implicit Lagrangian system ``(L, Delta)`` (Section 3).

    Parameters
    ----------
    L : sympy expression in the coordinates ``q`` and the velocities (undefined functions allowed)
    q : Chart, or coordinate names / Symbols (a Chart is made)
        The configuration chart Q; constraint one-forms must live on it.
    velocities : sequence of Symbol, optional
        One per coordinate (default ``v_<name>``).
    constraints : sequence of one-Forms on Q, or of coefficient lists (n entries each)
        The ``alpha^a``.
    momenta : sequence of Symbol, optional
        Names of the fibre coordinates of ``T*Q`` (default ``p_{<name>}``).

    Raises
    ------
    ConstraintError
        A constraint on another chart, of the wrong degree or length, or with coefficients
        depending on velocities, momenta or another chart's coordinates.
    ExpressionError
        Velocities of the wrong count, or L containing another chart's coordinates.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> Q = gc.Chart("x y"); x, y = Q.coords
    >>> other = gc.Chart("r s")
    >>> implicit_lagrangian_system(0, Q, None, [other.d(other.coords[0])])
    Traceback (most recent call last):
    ...
    geomcheck.errors.ConstraintError: constraint one-form alpha^1 = dr lives on Chart('r s'), not on the configuration chart Chart('x y') of the Lagrangian's q; expected a one-form on Q (in dx, dy)
    """
    Q = _configuration(q)
    n = Q.dim
    taken = {c.name for c in Q.coords}
    if velocities is None:
        velocities = tuple(_fresh(f"v_{x.name}", taken) for x in Q.coords)
    else:
        velocities = tuple(sympy.sympify(v) for v in velocities)
        if len(velocities) != n or any(not isinstance(v, sympy.Symbol) for v in velocities):
            raise ExpressionError(f"expected {n} velocity Symbols (one per coordinate of {Q!r}), got {velocities}")
        if set(velocities) & Q.coordinate_set or len(set(velocities)) != n:
            raise ExpressionError(f"the velocities {velocities} must be distinct and not coordinates of {Q!r}")
        taken |= {v.name for v in velocities}
    if momenta is None:
        momenta = tuple(_fresh("p_{" + _sym_name(x) + "}", taken) for x in Q.coords)
    else:
        momenta = tuple(sympy.sympify(p) for p in momenta)
        if len(momenta) != n or any(not isinstance(p, sympy.Symbol) for p in momenta):
            raise ExpressionError(f"expected {n} momentum Symbols, got {momenta}")
    L = Q.check_expression(L, "the Lagrangian")
    # symbols other than Q's coordinates and the velocities are constants, except the momenta
    foreign = L.free_symbols & set(momenta)
    if foreign:
        raise ChartMismatchError(
            f"the Lagrangian {L} contains the momenta {sorted(map(str, foreign))}; expected a"
            f" function of {', '.join(c.name for c in Q.coords)} and the velocities {', '.join(map(str, velocities))}"
        )
    forms, A = _constraint_rows(Q, constraints, set(velocities) | set(momenta))
    phase = Chart(list(Q.coords) + list(momenta))
    return ImplicitLagrangianSystem(L, Q, velocities, momenta, phase, ConstraintDistribution(Q, forms, A))


# --------------------------------------------------------------------------- the discrete scheme


@dataclass(frozen=True)
class DiscreteDiracScheme:
    r"""The discrete scheme of Section 3 as a one-step :class:`~geomcheck.ImplicitMap`.

    Attributes
    ----------
    system : ImplicitLagrangianSystem
    velocity : str
        ``"centered"`` (``v_k = (q_{k+1} - q_{k-1})/(2h)``, the paper's instance) or
        ``"forward"`` (``v_k = (q_{k+1} - q_k)/h``).
    constraint_at : str
        Where the discrete constraint form ``alpha_d^a`` of the third line is evaluated:
        ``"current"`` (``q_k``) or ``"midpoint"`` (of the two positions ``v_k`` joins).
    h : Symbol
    state : Chart
        ``(q_{k-1}, q_k, p_k)`` (centered) or ``(q_k, p_k)`` (forward); ``q_k, p_k`` are the
        system's own symbols, so expressions on ``T*Q`` are functions on the state.
    map : ImplicitMap
        ``state -> state``; unknowns: the new state, the velocity ``v_k`` (the system's
        velocity symbols) and the multipliers ``lambda^a`` (auxiliary).
    previous : tuple of Symbol   (``q_{k-1}``; empty for forward)
    multipliers : tuple of Symbol
    lines : tuple of three tuples of expressions
        The paper's three lines, each ``lhs - rhs``.
    velocity_definition : tuple
        ``q_{k+1} - (q_{k-1} + 2 h v_k)`` or ``q_{k+1} - (q_k + h v_k)`` (per coordinate), with
        ``q_{k+1}`` the map's new symbols.
    derivation : Derivation
    """

    system: ImplicitLagrangianSystem
    velocity: str
    constraint_at: str
    h: sympy.Symbol
    state: Chart
    map: ImplicitMap
    previous: tuple
    new_positions: tuple
    new_momenta: tuple
    multipliers: tuple
    lines: tuple
    velocity_definition: tuple
    derivation: Derivation

    def energy_on_state(self) -> sympy.Expr | None:
        """``H(q_k, p_k)`` on the state chart (None when the Legendre transform is not affine in v)."""
        return self.system.hamiltonian()

    def discrete_constraint(self) -> tuple:
        """``<alpha_d^a, v_k>`` as functions of two consecutive states' positions.

        Returns expressions in ``previous`` (centered) or the current ``q``, the current ``q``
        and ``new_positions``: the third line with ``v_k`` written by its definition.
        """
        return tuple(substitute(c, self._v_of_positions()) for c in self.lines[2])

    def _v_of_positions(self) -> dict:
        h, q = self.h, self.system.q
        base = self.previous if self.velocity == "centered" else q
        div = 2 * h if self.velocity == "centered" else h
        return {v: (Q1 - b) / div for v, Q1, b in zip(self.system.velocities, self.new_positions, base)}

    def latex(self) -> str:
        return self.derivation.latex()


def discrete_dirac_scheme(system: ImplicitLagrangianSystem, velocity: str = "centered", constraint_at: str = "current",
                          h: sympy.Symbol | None = None) -> DiscreteDiracScheme:
    r"""The paper's discrete scheme for ``system``, derived symbolically, as an ImplicitMap.

    ``L_d = h L(q_k, v_k)``; the three lines

    .. math::

        p_{k+1} = \tfrac1h\partial_{v_k}L_d,\quad
        p_k - \tfrac1h\partial_{v_k}L_d + \partial_{q_k}L_d = \sum_a\lambda^a\,
        \partial_{v_k}\langle\alpha^a(q_k), v_k\rangle,\quad \langle\alpha_d^a, v_k\rangle = 0

    with ``v_k`` defined by the positions (``velocity``) and ``alpha_d^a`` evaluated at
    ``q_k`` or at the midpoint (``constraint_at``).

    Parameters
    ----------
    system : ImplicitLagrangianSystem
    velocity : "centered" (default, as printed) or "forward"
    constraint_at : "current" (default, as printed) or "midpoint"
    h : Symbol, optional (default ``Symbol("h")``)

    Returns
    -------
    DiscreteDiracScheme
        Its ``map`` lowers with :func:`integrators.lower.lower` (concrete systems).

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> Q = gc.Chart("x y"); x, y = Q.coords
    >>> vx, vy = sympy.symbols("v_x v_y")
    >>> s = implicit_lagrangian_system((vx**2 + vy**2) / 2 - y, Q, [vx, vy], [[x, y]])
    >>> sch = discrete_dirac_scheme(s)
    >>> sch.state.coords
    (x_{k-1}, y_{k-1}, x, y, p_{x}, p_{y})
    >>> sch.lines[1]
    (-lambda^1*x + p_{x} - v_x, -h - lambda^1*y + p_{y} - v_y)
    >>> sch.map.auxiliary
    (v_x, v_y, lambda^1)
    """
    if not isinstance(system, ImplicitLagrangianSystem):
        raise ExpressionError(f"discrete_dirac_scheme expects an ImplicitLagrangianSystem, got {type(system).__name__}")
    if velocity not in VELOCITY_CHOICES:
        raise InvalidArgumentError(f"velocity must be one of {VELOCITY_CHOICES}, got {velocity!r}")
    if constraint_at not in CONSTRAINT_POINTS:
        raise InvalidArgumentError(f"constraint_at must be one of {CONSTRAINT_POINTS}, got {constraint_at!r}")
    h = sympy.Symbol("h") if h is None else sympy.sympify(h)
    Q, n, m = system.configuration, system.configuration.dim, system.distribution.rank
    q, p, vs, A = Q.coords, system.momenta, system.velocities, system.distribution.matrix
    taken = {s.name for s in system.phase.coords} | {v.name for v in vs} | {h.name}
    taken |= {s.name for s in system.lagrangian.free_symbols} | {s.name for s in A.free_symbols}
    previous = tuple(_fresh(_indexed(x, "k-1"), taken) for x in q) if velocity == "centered" else ()
    new_prev = tuple(_fresh(_indexed(x, "k"), taken) for x in q) if velocity == "centered" else ()
    new_q = tuple(_fresh(_indexed(x, "k+1"), taken) for x in q)
    new_p = tuple(_fresh("p_{" + _sym_name(x) + ",k+1}", taken) for x in q)
    lam = tuple(_fresh(f"lambda^{a + 1}", taken) for a in range(m))
    state = Chart(list(previous) + list(q) + list(p)) if velocity == "centered" else system.phase

    # L_d = h L(q_k, v_k) and the paper's three lines, differentiated symbolically
    Ld = h * system.lagrangian
    dLd_dv = [diff(Ld, v) for v in vs]
    dLd_dq = [diff(Ld, x) for x in q]
    pairing_k = [sympy.Add(*[A[a, i] * vs[i] for i in range(n)]) for a in range(m)]   # <alpha^a(q_k), v_k>
    force = [sympy.Add(*[lam[a] * diff(pairing_k[a], vs[i]) for a in range(m)]) for i in range(n)]
    if velocity == "centered":
        positions = [qp + 2 * h * v for qp, v in zip(previous, vs)]          # q_{k+1}
        mid = {x: qp + h * v for x, qp, v in zip(q, previous, vs)}            # (q_{k-1} + q_{k+1}) / 2
    else:
        positions = [x + h * v for x, v in zip(q, vs)]
        mid = {x: x + h * v / 2 for x, v in zip(q, vs)}                        # (q_k + q_{k+1}) / 2
    if constraint_at == "current":
        third = tuple(pairing_k)
    else:
        third = tuple(sympy.Add(*[substitute(A[a, i], mid) * vs[i] for i in range(n)]) for a in range(m))
    first = tuple(P1 - dv / h for P1, dv in zip(new_p, dLd_dv))
    second = tuple(pk - dv / h + dq - f for pk, dv, dq, f in zip(p, dLd_dv, dLd_dq, force))
    vdef = tuple(Q1 - pos for Q1, pos in zip(new_q, positions))

    equations = list(Y - x for Y, x in zip(new_prev, q)) + list(vdef) + list(first) + list(second) + list(third)
    new = new_prev + new_q + new_p
    guess = {}
    if velocity == "centered":
        guess.update({v: (x - qp) / h for v, x, qp in zip(vs, q, previous)})
        guess.update(dict(zip(new_prev, q)))
        guess.update({Q1: 2 * x - qp for Q1, x, qp in zip(new_q, q, previous)})
    else:
        inv = system.legendre_inverse()
        vg = [inv[v] for v in vs] if inv is not None else list(p)
        guess.update(dict(zip(vs, vg)))
        guess.update({Q1: x + h * g for Q1, x, g in zip(new_q, q, vg)})
    guess.update(dict(zip(new_p, p)))
    try:
        phi = ImplicitMap(state, state, equations, new=new, auxiliary=tuple(vs) + lam, guess=guess, step=h)
    except ImplicitMapError as exc:
        raise ConstraintError(
            f"the discrete equations do not determine the step ({exc}); are the constraint one-forms linearly"
            " independent and is L regular (d^2L/dv^2 invertible on Delta)?"
        ) from None

    D = system._input_derivation("Discrete scheme for the implicit Lagrangian system")
    vk = r"\frac{q_{k+1} - q_{k-1}}{2h}" if velocity == "centered" else r"\frac{q_{k+1} - q_k}{h}"
    where = (r"\alpha_d^a = \alpha^a(q_k)" if constraint_at == "current" else
             (r"\alpha_d^a = \alpha^a\bigl(\tfrac{q_{k-1} + q_{k+1}}{2}\bigr)" if velocity == "centered"
              else r"\alpha_d^a = \alpha^a\bigl(\tfrac{q_k + q_{k+1}}{2}\bigr)"))
    D = D.add(r"Discrete Lagrangian, velocity and discrete constraints:",
              r"L_d &= h\,L(q_k, v_k) = " + _show(Ld) + r", & v_k &= " + vk + r", & " + where + ".")
    D = D.add(r"The procedure of the paper:",
              r"p_{k+1} &= \frac1h\frac{\partial L_d}{\partial v_k} \\ p_k - \frac1h\frac{\partial L_d}{\partial v_k}"
              r" + \frac{\partial L_d}{\partial q_k} &= \sum_{a=1}^m \lambda^a \frac{\partial\langle\alpha^a(q_k),"
              r" v_k\rangle}{\partial v_k} \\ \langle\alpha_d^a, v_k\rangle &= 0.")
    body = ([(sympy.latex(P1), _show(dv / h)) for P1, dv in zip(new_p, dLd_dv)]
            + [(_show(pk - dv / h + dq), _show(f)) for pk, dv, dq, f in zip(p, dLd_dv, dLd_dq, force)]
            + [(_show(c), "0") for c in third]
            + [(sympy.latex(Q1), _show(pos)) for Q1, pos in zip(new_q, positions)])
    D = D.add(r"Computed for this system (with $q = q_k$, $p = p_k$, $v = v_k$):", _rows(body))
    state_tex = r"(q_{k-1}, q_k, p_k) \mapsto (q_k, q_{k+1}, p_{k+1})" if velocity == "centered" else \
        r"(q_k, p_k) \mapsto (q_{k+1}, p_{k+1})"
    D = D.concluding(
        r"These are $2n + m = %d$ equations for the unknowns $v_k$ (equivalently $q_{k+1}$), $p_{k+1}$ and"
        r" $\lambda^a$; the step is the implicit map $%s$ with auxiliary unknowns $v_k, \lambda^a$ and the"
        r" step size $h$ as a parameter." % (2 * n + m, state_tex))
    return DiscreteDiracScheme(system, velocity, constraint_at, h, state, phi, previous, new_q, new_p, lam,
                               (first, second, third), vdef, D)
