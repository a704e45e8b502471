r"""Hamiltonian systems with holonomic constraints ``g(q) = 0`` (constrained Lagrangian systems).

The equations of motion (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, VII.1)

.. math::

    q' = H_p(q, p),\qquad p' = -H_q(q, p) - G(q)^T\lambda,\qquad 0 = g(q),\qquad G = \partial g/\partial q,

live on the constraint manifold

.. math::

    \mathcal M = \{(q, p) \mid g(q) = 0,\ G(q) H_p(q, p) = 0\}

(the second set of equations, the *hidden constraints*, is ``d g / d t = 0``).  Written once,
symbolically, a :class:`ConstrainedHamiltonianSystem` derives from ``H`` and ``g``

* ``constraints`` ``g`` and ``hidden_constraints`` ``c = G H_p``,
* the multiplier ``lambda(q, p)`` of the index reduction: differentiating ``c`` along the flow,
  ``{c, H} - (c_p G^T) lambda = 0`` (a linear solve, ``c_p G^T = G H_pp G^T``),
* the *index-reduced* vector field ``X`` on the whole chart ``(q, p)``: ``q' = H_p``,
  ``p' = -H_q - G^T lambda(q, p)``.  ``X`` is tangent to ``M`` (it keeps ``g`` and ``c``)
  and on ``M`` it is the constrained flow; it is what order tests compare with, and a
  scheme for ordinary differential equations applied to it gives the classical drift off
  ``M`` that RATTLE does not have.

The symplectic form is ``omega = sum dq_i ^ dp_i`` on the chart; what a constrained scheme
preserves is its restriction ``iota^* omega`` to ``M`` (a symplectic form on ``M`` when
``G H_pp G^T`` is invertible).  :meth:`ConstrainedHamiltonianSystem.manifold` gives ``M`` as a
chart with its embedding ``iota`` (an explicit parametrization when one was given, which is
what exact certificates need; else geomcheck's implicit submanifold parametrization).

>>> import sympy, integrators as ig
>>> x, y, px, py = sympy.symbols("x y p_x p_y")
>>> pendulum = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
>>> pendulum.constraints, pendulum.hidden_constraints
((x**2 + y**2 - 1,), (2*p_x*x + 2*p_y*y,))
>>> pendulum.vector_field.component(px)
-2*x*(p_x**2 + p_y**2 - y)/(2*x**2 + 2*y**2)
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.structures import canonical_symplectic_form
from geomcheck.latex import expression_size
from geomcheck.linalg import SingularSystem, solve_sparse
from geomcheck.zero import decide_zero

from ..errors import SystemDefinitionError
from .base import (CONSISTENCY_TOL, CanonicalSystem, canonical_coordinates, check_states_on_manifold,
                   checked_expression, checked_parametrization, checked_symbols, constant_parameters,
                   separable_hamiltonian)

__all__ = ["ConstrainedHamiltonianSystem", "planar_pendulum", "constraint_forces", "regular_at_a_rational_point"]


#: the multipliers of the index reduction up to this expression size are put over one denominator (cancel)
CANCEL_MAX_SIZE = 300

#: how many rational points :func:`regular_at_a_rational_point` tries
REGULARITY_POINTS = 3


def regular_at_a_rational_point(matrix, points: int = REGULARITY_POINTS, seed: int = 0) -> bool:
    """True when, at one point with rational values for all its symbols, ``matrix`` is exact and ``det != 0``.

    Then ``det`` is not identically zero (a proof: one exact nonzero value); False says nothing
    (a point on the determinant's zero set, a pole, an entry that is no rational number there:
    undefined functions, ``sin(1/3)``), and the caller decides ``det`` symbolically.  Symbols
    assumed integer get integer values, the others positive rationals (any sign assumption is
    met); the points are fixed by ``seed``.

    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> regular_at_a_rational_point(sympy.Matrix([[x, y], [y, x]]))
    True
    >>> regular_at_a_rational_point(sympy.Matrix([[x, y], [2 * x, 2 * y]]))       # dependent rows
    False
    >>> regular_at_a_rational_point(sympy.Matrix([[sympy.sin(x)]]))                # not rational: undecided here
    False
    """
    import random

    matrix = sympy.Matrix(matrix)
    symbols = sorted(matrix.free_symbols, key=str)
    rnd = random.Random(seed)
    for _ in range(points):
        at = {x: sympy.Integer(rnd.randint(2, 97)) if x.is_integer else sympy.Rational(rnd.randint(1, 997), 97)
              for x in symbols}
        values = matrix.xreplace(at)
        if not all(v.is_Rational for v in values):
            continue
        if values.det(method="bareiss") != 0:
            return True
    return False


def constraint_forces(H, q, p, A, chart, what: str, rows: str, expected: str):
    """The forces of the multipliers of ``k`` velocity constraints ``A(q) H_p = 0`` (``A`` is k x n).

    Holonomic constraints ``g(q) = 0`` give ``A = dg/dq``; linear velocity constraints give ``A``
    itself.  Index reduction: ``d/dt (A H_p) = {A H_p, H} - (A H_pp A^T) lambda = 0`` is solved for
    ``lambda`` (sparse exact elimination), and ``p' = -H_q - A^T lambda``.

    Returns ``(hidden constraints A H_p, the reduction matrix A H_pp A^T, the multipliers, the vector
    field on chart)``.

    Raises
    ------
    SystemDefinitionError
        ``A H_pp A^T`` singular everywhere (dependent rows, or H degenerate in p); ``what`` names the
        matrix, ``rows`` the constraints and ``expected`` what was expected, in the message.
    """
    n, k = len(q), A.shape[0]
    Hp = [diff(H, pi) for pi in p]
    Hq = [diff(H, qi) for qi in q]
    hidden = tuple(sympy.Add(*[A[a, i] * Hp[i] for i in range(n)]) for a in range(k))
    equations = [{b: sympy.Add(*[diff(c, pj) * A[b, j] for j, pj in enumerate(p)]) for b in range(k)} for c in hidden]
    rhs = [sympy.Add(*[diff(c, qj) * Hp[j] - diff(c, pj) * Hq[j] for j, (qj, pj) in enumerate(zip(q, p))])
           for c in hidden]
    reduction = sympy.ImmutableMatrix(k, k, [equations[a].get(b, 0) for a in range(k) for b in range(k)])
    # "singular everywhere" is refuted by one point where det is a nonzero rational number (exact, microseconds);
    # only when no such point is found is the symbolic determinant decided (it took 70 s of CPU for 3 rods)
    regular_somewhere = regular_at_a_rational_point(reduction)
    det = reduction.det(method="berkowitz") if k <= 3 and not regular_somewhere else None
    if det is not None and decide_zero(det).is_zero is True:
        raise SystemDefinitionError(
            f"{what} = {reduction.tolist()} is singular everywhere: {rows} are dependent (or H is degenerate in"
            f" p); expected {expected}")
    try:
        (lam,) = solve_sparse(equations, [rhs], k)
    except SingularSystem:
        raise SystemDefinitionError(f"{what} is singular: {rows} are dependent (or H is degenerate in p); expected"
                                    f" {expected}") from None
    # cancel common factors of small rational multipliers (display, and smaller lowered code); only small
    # ones: cancel expands, and a 3-rod chain's multipliers (sizes 415-627 in 12 symbols) took 70 s of CPU
    # (a double pendulum's, 165-215, take 0.1 s)
    lam = tuple(sympy.cancel(e) if expression_size(e, CANCEL_MAX_SIZE) <= CANCEL_MAX_SIZE else e for e in lam)
    field = gc.VectorField(chart, {**{qi: Hp[i] for i, qi in enumerate(q)},
                                   **{pi: -Hq[i] - sympy.Add(*[A[a, i] * lam[a] for a in range(k)])
                                      for i, pi in enumerate(p)}})
    return hidden, reduction, lam, field


class ConstrainedHamiltonianSystem(CanonicalSystem):
    """A Hamiltonian system with holonomic constraints ``g(q) = 0``.

    Parameters
    ----------
    H : sympy expression in q, p (undefined functions allowed: ``Function("V")(x, y)``)
    q, p : sequence of Symbol (as many momenta as positions)
    constraints : sequence of sympy expressions in q alone (and constants): ``g_a(q) = 0``
    parameters : dict, optional
        Numeric values of constant symbols (as for :class:`~integrators.HamiltonianSystem`).
    parametrization : (Chart, geomcheck.Map), optional
        An explicit parametrization ``iota: S -> (q, p)`` of the constraint manifold (of
        dimension ``2n - 2m``); it is checked to land on it.  Exact certificates on the
        manifold (order, symplecticity, symmetry) use it.

    Attributes
    ----------
    q, p, chart, omega, H
    constraints : tuple             ``g_a(q)``
    constraint_jacobian : ImmutableMatrix   ``G = dg/dq`` (m x n)
    hidden_constraints : tuple      ``(G H_p)_a``
    multipliers : tuple             ``lambda_a(q, p)`` of the index reduction
    vector_field : geomcheck.VectorField   the index-reduced field (tangent to the manifold)
    energy : sympy expression       H (conserved by the constrained flow)

    Raises
    ------
    SystemDefinitionError
        Malformed coordinates; no constraint, or one that depends on p, on another chart's
        coordinates, or is constant; more constraints than positions; ``G H_pp G^T``
        identically singular (dependent constraints, or a degenerate H); a parametrization
        of the wrong dimension or off the manifold.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> x, y, px, py = sympy.symbols("x y p_x p_y")
    >>> V = sympy.Function("V")
    >>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + V(x, y), [x, y], [px, py],
    ...                                     [x**2 + y**2 - 1])
    >>> s.kind, s.dim, s.manifold_dimension, s.hamiltonian_is_separable
    ('constrained-hamiltonian', 4, 2, True)
    >>> ig.ConstrainedHamiltonianSystem(px**2 / 2, [x], [px], [x * px])
    Traceback (most recent call last):
    ...
    integrators.errors.SystemDefinitionError: ConstrainedHamiltonianSystem: constraint g_1 = p_x*x depends on the momenta ['p_x']; holonomic constraints g(q) = 0 are functions of the positions (x) and constants only
    """

    kind = "constrained-hamiltonian"

    def __init__(self, H: sympy.Expr | float, q: sympy.Symbol | str | Iterable[sympy.Symbol],
                 p: sympy.Symbol | str | Iterable[sympy.Symbol], constraints: sympy.Expr | Iterable[sympy.Expr],
                 parameters: Mapping | None = None, parametrization: tuple[gc.Chart, gc.Map] | None = None):
        owner = "ConstrainedHamiltonianSystem"
        self.q, self.p = canonical_coordinates(q, p, owner)
        n = len(self.q)
        coords = self.q + self.p
        self.H = checked_expression(H, owner)
        self.chart = gc.Chart(list(coords))
        M = self.chart
        self.constraints = self._check_constraints(constraints, owner)
        m = len(self.constraints)
        everything = sympy.Tuple(self.H, *self.constraints)
        self._parameters, self._values = constant_parameters(everything, coords, None, parameters, owner)
        self.omega = canonical_symplectic_form(self.q, self.p, M)
        self.constraint_jacobian = sympy.ImmutableMatrix(m, n, [diff(g, x) for g in self.constraints for x in self.q])
        G = self.constraint_jacobian
        self.hidden_constraints, self._reduction_matrix, self.multipliers, self.vector_field = constraint_forces(
            self.H, self.q, self.p, G, M, f"{owner}: G H_pp G^T", f"the constraints {list(self.constraints)}",
            "independent constraints")
        self._h_separable = None
        self._parametrization = None
        if parametrization is not None:
            self._parametrization = self._check_parametrization(parametrization, owner)

    # ------------------------------------------------------------------ input checks

    def _check_constraints(self, constraints, owner):
        if isinstance(constraints, (sympy.Basic, str)) or not hasattr(constraints, "__iter__"):
            constraints = [constraints]
        out = []
        qs, ps = set(self.q), set(self.p)
        for a, g in enumerate(constraints):
            try:
                e = checked_expression(g, owner)
            except gc.errors.ExpressionError:
                raise SystemDefinitionError(f"{owner}: constraint g_{a + 1} = {g!r} is not a scalar sympy expression")\
                    from None
            on_p = sorted(map(str, e.free_symbols & ps))
            if on_p:
                raise SystemDefinitionError(
                    f"{owner}: constraint g_{a + 1} = {e} depends on the momenta {on_p}; holonomic constraints g(q) = 0"
                    f" are functions of the positions ({', '.join(map(str, self.q))}) and constants only")
            if not (e.free_symbols & qs):
                raise SystemDefinitionError(
                    f"{owner}: constraint g_{a + 1} = {e} does not depend on the positions {list(self.q)}; expected"
                    " g(q) = 0 with a nonzero gradient")
            out.append(e)
        if not out:
            raise SystemDefinitionError(f"{owner}: no constraint given; use HamiltonianSystem for a free system")
        if len(out) >= len(self.q):
            raise SystemDefinitionError(
                f"{owner}: {len(out)} constraints on {len(self.q)} positions leave no motion; expected fewer"
                " constraints than positions")
        return tuple(out)

    def _check_parametrization(self, parametrization, owner):
        return checked_parametrization(self, parametrization, owner, self.constraints + self.hidden_constraints, "2n - 2m",
                                       "(g = 0, G H_p = 0)")

    # ------------------------------------------------------------------ alternative constructors

    @classmethod
    def from_lagrangian(cls, L: sympy.Expr | float, q: Sequence[sympy.Symbol],
                        constraints: sympy.Expr | Iterable[sympy.Expr],
                        velocities: Sequence[sympy.Symbol] | None = None, momenta: Sequence[sympy.Symbol] | None = None,
                        parameters: Mapping | None = None,
                        parametrization: tuple[gc.Chart, gc.Map] | None = None) -> "ConstrainedHamiltonianSystem":
        """The system of a Lagrangian ``L(q, v)`` whose Legendre transform is affine in v.

        The Legendre transform is geomcheck's
        (:meth:`geomcheck.structures.ImplicitLagrangianSystem.hamiltonian`); for
        ``L = v^T M(q) v / 2 - V(q)`` it gives ``H = p^T M^{-1} p / 2 + V``.

        Parameters
        ----------
        L : sympy expression in the positions q and the velocities
        q : sequence of Symbol
        constraints : sequence of expressions in q
        velocities, momenta : sequence of Symbol, optional (default ``v_<q>``, ``p_<q>``)

        Examples
        --------
        >>> import sympy, integrators as ig
        >>> x, y, vx, vy = sympy.symbols("x y v_x v_y")
        >>> s = ig.ConstrainedHamiltonianSystem.from_lagrangian((vx**2 + vy**2) / 2 - y, [x, y], [x**2 + y**2 - 1],
        ...                                                     velocities=[vx, vy])
        >>> s.H, s.p
        (p_x**2/2 + p_y**2/2 + y, (p_x, p_y))
        """
        from geomcheck.structures import implicit_lagrangian_system

        owner = "ConstrainedHamiltonianSystem.from_lagrangian"
        q = checked_symbols(q, "q", owner)
        if velocities is None:
            velocities = [sympy.Symbol(f"v_{x.name}") for x in q]
        if momenta is None:
            momenta = [sympy.Symbol(f"p_{x.name}") for x in q]
        system = implicit_lagrangian_system(L, list(q), list(velocities), (), momenta=list(momenta))
        H = system.hamiltonian()
        if H is None:
            raise SystemDefinitionError(
                f"{owner}: the Legendre transform p = dL/dv of L = {L} is not affine in the velocities (or not"
                " invertible); expected L = v^T M(q) v / 2 + b(q)^T v - V(q) with M invertible")
        return cls(sympy.expand(H), q, momenta, constraints, parameters, parametrization)

    # ------------------------------------------------------------------ derived objects

    def _key(self):
        comps = tuple(self.constraints)
        par = self._parametrization[1].exprs if self._parametrization is not None else None
        return (self.H, self.q, self.p, comps, par, tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The conserved energy H."""
        return self.H

    @property
    def manifold_dimension(self) -> int:
        """``2n - 2m``: the dimension of the constraint manifold."""
        return 2 * (len(self.q) - len(self.constraints))

    @property
    def constraint_residuals(self) -> dict:
        """``{"g_1": g_1, ..., "c_1": (G H_p)_1, ...}``: what vanishes on the constraint manifold."""
        out = {f"g_{a + 1}": g for a, g in enumerate(self.constraints)}
        out.update({f"c_{a + 1}": c for a, c in enumerate(self.hidden_constraints)})
        return out

    @property
    def is_separable(self) -> bool:
        """True iff the index-reduced field has ``q'`` free of q and ``p'`` free of p (then Verlet is explicit).

        This is the vector-field sense that explicit partitioned schemes need (as for
        :class:`~integrators.systems.forced.ForcedHamiltonianSystem`); the multiplier
        ``lambda(q, p)`` is quadratic in p, so it is False for every nontrivial constraint.
        RATTLE needs :attr:`hamiltonian_is_separable` instead.
        """
        return self._vector_field_is_separable()

    @property
    def hamiltonian_is_separable(self) -> bool:
        """True iff ``H = T(p) + V(q)`` (every mixed derivative ``H_{q_i p_j}`` vanishes)."""
        if self._h_separable is None:
            self._h_separable = separable_hamiltonian(self.H, self.q, self.p)
        return self._h_separable

    def manifold(self) -> tuple[gc.Chart, gc.Map | gc.ImplicitMap]:
        """The constraint manifold as ``(S, iota)``: a chart and its embedding into ``(q, p)``.

        The explicit parametrization given at construction, else
        :func:`geomcheck.submanifold_parametrization` solving ``g`` for the first positions
        each constraint depends on and ``G H_p`` for the corresponding momenta (an
        ImplicitMap when the constraints are nonlinear).
        """
        if self._parametrization is not None:
            return self._parametrization
        solve_q, solve_p = [], []
        for g in self.constraints:
            for qi, pi in zip(self.q, self.p):
                if qi not in solve_q and g.has(qi):
                    solve_q.append(qi)
                    solve_p.append(pi)
                    break
        eqs = list(self.constraints) + list(self.hidden_constraints)
        return gc.submanifold_parametrization(self.chart, eqs, solve_q + solve_p, list(self.parameters))

    def check_state(self, Y: np.ndarray, values: Mapping[sympy.Symbol, Any] | None = None,
                    tol: float = CONSISTENCY_TOL) -> None:
        """Raise :class:`~integrators.errors.InconsistentStateError` unless every state of ``Y`` is on the manifold.

        Parameters
        ----------
        Y : array (batch, dim) of floats or mpf
        values : dict, optional   numeric values of the system's constants
        tol : float               largest accepted ``|g_a|`` and ``|(G H_p)_a|``

        Examples
        --------
        >>> import sympy, numpy as np, integrators as ig
        >>> x, y, px, py = sympy.symbols("x y p_x p_y")
        >>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
        >>> s.check_state(np.array([[1.0, 0.0, 0.0, 0.5]]))
        >>> s.check_state(np.array([[1.0, 0.0, 0.5, 0.0]]))
        Traceback (most recent call last):
        ...
        integrators.errors.InconsistentStateError: the initial state of trajectory 0 is not on the constraint manifold: the hidden constraint c_1 = 2*p_x*x + 2*p_y*y (d/dt of g_1) is 1 (tolerance 1e-10)
        """
        described = {name: (e, f"the constraint {name} = {e}" if name.startswith("g")
                            else f"the hidden constraint {name} = {e} (d/dt of g_{name[2:]})")
                     for name, e in self.constraint_residuals.items()}
        # the multipliers are solved with G H_pp G^T: it must be invertible at the state
        check_states_on_manifold(self, Y, values, tol, described, self._reduction_matrix, "G H_pp G^T",
                                 "at the initial state of trajectory {trajectory} the constraints are dependent:"
                                 " G H_pp G^T = {matrix} is singular (the constraint gradients are not independent"
                                 " there)")

    def __repr__(self):
        return (f"ConstrainedHamiltonianSystem({self.H}, q={list(self.q)}, p={list(self.p)},"
                f" constraints={list(self.constraints)})")

    def _latex(self, printer=None):
        g = r",\ ".join(sympy.latex(e) + " = 0" for e in self.constraints)
        return r"H = " + sympy.latex(self.H) + r",\quad " + g


def planar_pendulum(potential=None, length=1) -> ConstrainedHamiltonianSystem:
    """A particle on the circle ``x^2 + y^2 = length^2``: the planar pendulum in Cartesian coordinates.

    ``H = (p_x^2 + p_y^2)/2 + potential`` (default ``y``: unit mass and gravity), with the rational
    parametrization of its constraint manifold, ``x = l (1 - u^2)/(1 + u^2)``, ``y = 2 l u/(1 + u^2)``,
    ``p = w (-2u, 1 - u^2)/(1 + u^2)`` (all of it but the point ``x = -l``), so that certificates on
    the manifold are exact where they can be.

    Parameters
    ----------
    potential : sympy expression in the Symbols ``x, y`` (e.g. ``Function("V")(x, y)``), optional
    length : number or Symbol (default 1)

    Examples
    --------
    >>> import sympy
    >>> from integrators.systems import planar_pendulum
    >>> x, y, l = sympy.symbols("x y l")
    >>> s = planar_pendulum(sympy.Function("V")(x, y), l)
    >>> s.constraints, s.manifold()[0]
    ((-l**2 + x**2 + y**2,), Chart('u w'))
    """
    x, y, px, py = sympy.symbols("x y p_x p_y")
    u, w = sympy.symbols("u w")
    length = sympy.sympify(length)
    S = gc.Chart([u, w])
    den = 1 + u**2
    params = sorted(length.free_symbols, key=lambda s: s.name)
    iota = gc.Map(S, gc.Chart([x, y, px, py]),
                  [length * (1 - u**2) / den, 2 * length * u / den, -w * 2 * u / den, w * (1 - u**2) / den],
                  parameters=params)
    V = y if potential is None else potential
    return ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + V, [x, y], [px, py], [x**2 + y**2 - length**2],
                                        parametrization=(S, iota))
