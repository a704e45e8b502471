r"""Mechanical systems with linear velocity constraints ``A(q) qdot = 0`` (nonholonomic systems).

For ``H = T(p) + V(q)`` (``T = p^T M^{-1} p / 2`` with a constant mass matrix, or any ``H``) and
``k`` constraint rows ``A(q)`` (``k x n``, full rank), the Lagrange-d'Alembert principle
(Bloch, *Nonholonomic Mechanics and Control*, Sec. 1.3; Hairer, Lubich & Wanner, *Geometric
Numerical Integration*, VII.1, Remark on nonholonomic constraints) gives

.. math::

    q' = H_p,\qquad p' = -H_q - A(q)^T\lambda,\qquad 0 = A(q) H_p(q, p).

The sign convention is that of :class:`~integrators.systems.constrained.ConstrainedHamiltonianSystem`
(``A = G = dg/dq`` when the constraint is holonomic): the constraint force is ``-A^T lambda``.  The
constraint ``c = A(q) H_p = 0`` lives on the momenta (there is no position constraint: the
constraint one-forms ``alpha^a = sum_i A_ai dq_i`` need not be integrable), and the multiplier
is that of the index reduction, ``d c / dt = {c, H} - (c_p A^T) lambda = 0``, a linear solve with
matrix ``A H_pp A^T``.  The index-reduced field

.. math::

    X:\quad q' = H_p,\qquad p' = -H_q - A^T (A H_{pp} A^T)^{-1}\{c, H\}

is defined on the whole chart ``(q, p)``, keeps ``c`` (it is tangent to the constraint manifold
``N = {A(q) H_p = 0}``) and is the nonholonomic flow on ``N``; it conserves ``H`` on ``N``
(the constraint force does no work there: ``H_p . A^T lambda = c . lambda = 0``; tested on the
knife edge).  It is in general not Hamiltonian, and no scheme for it declares "symplectic"
(see :mod:`integrators.schemes.nonholonomic`).

>>> import sympy
>>> from integrators.systems.nonholonomic import knife_edge
>>> s = knife_edge()
>>> s.constraint_rows
Matrix([[sin(phi), -cos(phi), 0]])
>>> s.hidden_constraints
(p_x*sin(phi) - p_y*cos(phi),)
>>> sympy.simplify(s.multipliers[0])
p_phi*(p_x*cos(phi) + p_y*sin(phi))
>>> s.is_integrable().holds
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import mpmath
import numpy as np
import sympy

import geomcheck as gc
from geomcheck.structures import canonical_symplectic_form
from geomcheck.certify.certificate import Certificate
from geomcheck.forms import d as exterior_d

from ..errors import SystemDefinitionError
from .constrained import constraint_forces
from .base import (CONSISTENCY_TOL, CanonicalSystem, canonical_coordinates, check_states_on_manifold,
                   checked_expression, checked_parametrization, constant_parameters, separable_hamiltonian)

__all__ = ["CONSISTENCY_TOL", "NonholonomicSystem", "knife_edge", "knife_edge_exact_flow"]


class NonholonomicSystem(CanonicalSystem):
    """A Hamiltonian system with linear velocity constraints ``A(q) H_p(q, p) = 0`` (Lagrange-d'Alembert).

    Parameters
    ----------
    H : sympy expression in q, p (undefined functions allowed)
    q, p : sequence of Symbol (as many momenta as positions)
    constraints : k x n sympy Matrix, or a sequence of k rows of n expressions in q
        The rows of ``A(q)``: the constraint is ``sum_i A_ai(q) qdot_i = 0`` for each ``a``.
    parameters : dict, optional
        Numeric values of constant symbols.
    parametrization : (Chart, geomcheck.Map), optional
        An explicit parametrization ``iota: S -> (q, p)`` of the constraint manifold
        ``N = {A H_p = 0}`` (dimension ``2n - k``); checked to land on it.  The certificates
        on ``N`` (order, symmetry) use it.

    Attributes
    ----------
    q, p, chart, omega, H
    constraint_rows : ImmutableMatrix   ``A(q)`` (k x n)
    hidden_constraints : tuple          ``(A H_p)_a``: the constraint on the momenta
    multipliers : tuple                 ``lambda_a(q, p)`` of the index reduction
    vector_field : geomcheck.VectorField   the index-reduced field
    energy : sympy expression           H (conserved on the constraint manifold)

    Raises
    ------
    SystemDefinitionError
        Malformed coordinates; no constraint; a row of the wrong length, an entry that is not an
        expression or that depends on the momenta; a zero row; ``k >= n``; ``A H_pp A^T``
        identically singular (dependent rows, or H degenerate in p); a parametrization of the
        wrong dimension or off the manifold.

    Examples
    --------
    >>> import sympy
    >>> x, y, px, py = sympy.symbols("x y p_x p_y")
    >>> s = NonholonomicSystem((px**2 + py**2) / 2, [x, y], [px, py], [[y, -x]])
    >>> s.kind, s.dim, s.manifold_dimension
    ('nonholonomic', 4, 3)
    >>> NonholonomicSystem((px**2 + py**2) / 2, [x, y], [px, py], [[y, x, 1]])
    Traceback (most recent call last):
    ...
    integrators.errors.SystemDefinitionError: NonholonomicSystem: constraint row 1 [y, x, 1] has 3 entries; expected one per position (2: x, y)
    >>> NonholonomicSystem((px**2 + py**2) / 2, [x, y], [px, py], [[y, x], [2*y, 2*x]])
    Traceback (most recent call last):
    ...
    integrators.errors.SystemDefinitionError: NonholonomicSystem: 2 constraints on 2 positions leave no motion; expected fewer constraints than positions
    """

    kind = "nonholonomic"

    def __init__(self, H: sympy.Expr | float, q: sympy.Symbol | str | Sequence[sympy.Symbol | str],
                 p: sympy.Symbol | str | Sequence[sympy.Symbol | str], constraints: Sequence[Sequence[Any]],
                 parameters: Mapping | None = None,
                 parametrization: tuple | None = None):
        owner = "NonholonomicSystem"
        self.q, self.p = canonical_coordinates(q, p, owner)
        coords = self.q + self.p
        self.H = checked_expression(H, owner)
        self.chart = gc.Chart(list(coords))
        M = self.chart
        self.constraint_rows = self._check_rows(constraints, owner)
        A = self.constraint_rows
        self._parameters, self._values = constant_parameters(sympy.Tuple(self.H, *A), coords, None, parameters,
                                                             owner)
        self.omega = canonical_symplectic_form(self.q, self.p, M)
        self.hidden_constraints, self.reduction_matrix, self.multipliers, self.vector_field = constraint_forces(
            self.H, self.q, self.p, A, M, f"{owner}: A H_pp A^T", f"the constraint rows {A.tolist()}",
            "k independent rows")
        self._h_separable = None
        self._parametrization = None
        if parametrization is not None:
            self._parametrization = self._check_parametrization(parametrization, owner)

    # ------------------------------------------------------------------ input checks

    def _check_rows(self, constraints, owner):
        n = len(self.q)
        if isinstance(constraints, sympy.MatrixBase):
            rows = [list(constraints.row(a)) for a in range(constraints.rows)]
        else:
            try:
                rows = [list(r) for r in constraints]
            except TypeError:
                raise SystemDefinitionError(
                    f"{owner}: constraints must be a k x n Matrix or a sequence of rows (one entry per position),"
                    f" got {constraints!r}") from None
        if not rows:
            raise SystemDefinitionError(f"{owner}: no constraint given; use HamiltonianSystem for a free system")
        ps = set(self.p)
        out = []
        for a, row in enumerate(rows):
            if len(row) != n:
                raise SystemDefinitionError(
                    f"{owner}: constraint row {a + 1} {row} has {len(row)} entries; expected one per position"
                    f" ({n}: {', '.join(map(str, self.q))})")
            entries = []
            for e in row:
                try:
                    e = checked_expression(e, owner)
                except gc.errors.ExpressionError:
                    raise SystemDefinitionError(
                        f"{owner}: the entry {e!r} of constraint row {a + 1} is not a scalar sympy"
                        " expression") from None
                on_p = sorted(map(str, e.free_symbols & ps))
                if on_p:
                    raise SystemDefinitionError(
                        f"{owner}: constraint row {a + 1} entry {e} depends on the momenta {on_p}; the rows of A(q)"
                        f" are functions of the positions ({', '.join(map(str, self.q))}) and constants only")
                entries.append(e)
            if all(e == 0 for e in entries):
                raise SystemDefinitionError(f"{owner}: constraint row {a + 1} is zero; expected a nonzero row of A(q)")
            out.append(entries)
        if len(out) >= n:
            raise SystemDefinitionError(
                f"{owner}: {len(out)} constraints on {n} positions leave no motion; expected fewer constraints than"
                " positions")
        return sympy.ImmutableMatrix(out)

    def _check_parametrization(self, parametrization, owner):
        return checked_parametrization(self, parametrization, owner, self.hidden_constraints, "2n - k",
                                       "A(q) H_p = 0")

    # ------------------------------------------------------------------ derived objects

    def _key(self):
        par = self._parametrization[1].exprs if self._parametrization is not None else None
        return (self.H, self.q, self.p, self.constraint_rows, par,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """H (conserved by the nonholonomic flow on the constraint manifold)."""
        return self.H

    @property
    def manifold_dimension(self) -> int:
        """``2n - k``: the dimension of the constraint manifold ``{A(q) H_p = 0}``."""
        return 2 * len(self.q) - self.constraint_rows.rows

    @property
    def constraint_residuals(self) -> dict:
        """``{"c_1": (A H_p)_1, ...}``: what vanishes on the constraint manifold (no position constraint)."""
        return {f"c_{a + 1}": c for a, c in enumerate(self.hidden_constraints)}

    @property
    def constraint_forms(self) -> tuple:
        """The constraint one-forms ``alpha^a = sum_i A_ai dq_i`` on the configuration chart ``q``."""
        Q = gc.Chart(list(self.q))
        A = self.constraint_rows
        out = []
        for a in range(A.rows):
            form = sympy.S.Zero * Q.d(self.q[0])
            for i, x in enumerate(self.q):
                if A[a, i] != 0:
                    form = form + A[a, i] * Q.d(x)
            out.append(form)
        return tuple(out)

    @property
    def is_separable(self) -> bool:
        """True iff the index-reduced field has ``q'`` free of q and ``p'`` free of p (False for real constraints)."""
        return self._vector_field_is_separable()

    @property
    def hamiltonian_is_separable(self) -> bool:
        """True iff ``H = T(p) + V(q)`` (every mixed derivative ``H_{q_i p_j}`` vanishes)."""
        if self._h_separable is None:
            self._h_separable = separable_hamiltonian(self.H, self.q, self.p)
        return self._h_separable

    def is_integrable(self) -> Certificate:
        r"""Frobenius: the distribution ``ker A(q)`` is integrable (the constraints are holonomic in disguise).

        Integrable iff ``d alpha^a ^ alpha^1 ^ ... ^ alpha^k = 0`` for every ``a`` (Frobenius'
        theorem in the dual form; valid where ``A`` has full rank).  ``holds`` True: integrable (the
        motion stays on leaves ``g(q) = const``); False with the nonzero form: not integrable (a
        genuinely nonholonomic constraint); None: undecided.  Note that ``d alpha = 0`` is not the
        test: ``y dx - x dy`` is integrable (``d(x/y)`` up to the factor ``y^2``) with ``d alpha != 0``.

        Examples
        --------
        >>> import sympy
        >>> x, y, z, px, py, pz = sympy.symbols("x y z p_x p_y p_z")
        >>> H = (px**2 + py**2 + pz**2) / 2
        >>> NonholonomicSystem(H, [x, y, z], [px, py, pz], [[y, -x, 0]]).is_integrable().holds
        True
        >>> NonholonomicSystem(H, [x, y, z], [px, py, pz], [[1, 0, -y]]).is_integrable().holds
        False
        """
        forms = self.constraint_forms
        top = forms[0]
        for f in forms[1:]:
            top = top ^ f
        pieces = [exterior_d(f) ^ top for f in forms]
        decisions = [w.zero_decision() for w in pieces]
        holds = True
        method = []
        for a, dec in enumerate(decisions):
            method.append(f"d alpha^{a + 1} ^ alpha^1 ^ ... ^ alpha^k: {dec.method}")
            if dec.is_zero is False:
                holds = False
            elif dec.is_zero is None and holds is True:
                holds = None
        if holds is None:
            stage = "unknown"
        elif holds is False:
            stage = next(dec.stage for dec in decisions if dec.is_zero is False)
        else:
            stage = next((dec.stage for dec in decisions if dec.stage != "exact"), "exact")
        return Certificate("the constraint distribution ker A(q) is integrable (Frobenius)", holds, "; ".join(method),
                           stage, residual=tuple(pieces))

    def manifold(self) -> tuple:
        """The constraint manifold ``{A H_p = 0}`` as ``(S, iota)``.

        The explicit parametrization given at construction, else
        :func:`geomcheck.submanifold_parametrization` solving each constraint for the first
        momentum it depends on.
        """
        if self._parametrization is not None:
            return self._parametrization
        solve_p = []
        for c in self.hidden_constraints:
            for pi in self.p:
                if pi not in solve_p and c.has(pi):
                    solve_p.append(pi)
                    break
        return gc.submanifold_parametrization(self.chart, list(self.hidden_constraints), solve_p,
                                              list(self.parameters))

    def check_state(self, Y: np.ndarray, values: Mapping[sympy.Symbol, Any] | None = None,
                    tol: float = CONSISTENCY_TOL) -> None:
        """Raise :class:`~integrators.errors.InconsistentStateError` unless every state of ``Y`` is on the manifold.

        A state must satisfy ``|(A H_p)_a| <= tol`` and ``A H_pp A^T`` must be invertible there
        (the rows of ``A`` independent): at a rank-deficient point the multipliers are not
        determined.

        Examples
        --------
        >>> import numpy as np
        >>> s = knife_edge()
        >>> s.check_state(np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.5]]))
        >>> s.check_state(np.array([[0.0, 0.0, 0.0, 0.0, 1.0, 0.5]]))
        Traceback (most recent call last):
        ...
        integrators.errors.InconsistentStateError: the initial state of trajectory 0 is not on the constraint manifold: the constraint c_1 = p_x*sin(phi) - p_y*cos(phi) (A(q) H_p = 0) is 1 (tolerance 1e-10)
        """
        described = {name: (e, f"the constraint {name} = {e} (A(q) H_p = 0)")
                     for name, e in self.constraint_residuals.items()}
        check_states_on_manifold(self, Y, values, tol, described, self.reduction_matrix, "A H_pp A^T",
                                 "at the initial state of trajectory {trajectory} the constraint rows are"
                                 " dependent: A H_pp A^T = {matrix} is singular (A(q) has not full rank there)")

    def __repr__(self):
        return (f"NonholonomicSystem({self.H}, q={list(self.q)}, p={list(self.p)},"
                f" constraints={self.constraint_rows.tolist()})")

    def _latex(self, printer=None):
        rows = r",\ ".join(sympy.latex(c) + " = 0" for c in self.hidden_constraints)
        return r"H = " + sympy.latex(self.H) + r",\quad " + rows


def knife_edge(m: Any = 1, J: Any = 1, potential: sympy.Expr | float | None = None) -> NonholonomicSystem:
    r"""The knife edge (a blade on the plane): ``sin(phi) xdot - cos(phi) ydot = 0``.

    ``q = (x, y, phi)``: the contact point and the blade's angle from the x axis;
    ``H = (p_x^2 + p_y^2)/(2m) + p_phi^2/(2J) + potential``.  The constraint (the blade does not
    slip sideways) says that the velocity of the contact point is along the blade, ``(xdot, ydot)
    parallel to (cos phi, sin phi)``; its row is ``A = (sin phi, -cos phi, 0)`` (this sign).  The
    constraint manifold is parametrized by the signed speed ``r`` along the blade:
    ``p_x = r cos(phi), p_y = r sin(phi)`` (``S = (x, y, phi, r, p_phi)``).

    **The free knife edge** (``potential = None``): on the manifold the multiplier is
    ``lambda = (p_phi/J)(p_x cos phi + p_y sin phi) = omega r`` with ``omega = p_phi / J``, and the
    equations ``p_x' = -lambda sin(phi)``, ``p_y' = lambda cos(phi)``, ``p_phi' = 0`` are solved by

    .. math::

        \phi(t) = \phi_0 + \omega t,\quad (p_x, p_y)(t) = r(\cos\phi(t), \sin\phi(t)),\quad
        x(t) = x_0 + \frac{r}{m\omega}(\sin\phi(t) - \sin\phi_0),\quad
        y(t) = y_0 - \frac{r}{m\omega}(\cos\phi(t) - \cos\phi_0)

    (check: ``p_x' = -r omega sin(phi) = -lambda sin(phi)``, ``xdot = (r/m) cos(phi) = p_x/m``);
    for ``omega = 0`` a straight line at the speed ``r/m``.  The blade turns at a constant rate, the
    speed along the blade is constant, and the contact point runs on a circle of radius
    ``|r/(m omega)|`` (:func:`knife_edge_exact_flow`; checked against mpmath's ODE solver in
    ``tests/integrators/test_nonholonomic.py``).

    Parameters
    ----------
    m, J : number or Symbol (mass, moment of inertia; default 1)
    potential : sympy expression in the Symbols ``x, y, phi``, optional

    Examples
    --------
    >>> s = knife_edge()
    >>> s.H
    p_phi**2/2 + p_x**2/2 + p_y**2/2
    >>> s.manifold()[1].exprs
    (x, y, phi, r*cos(phi), r*sin(phi), p_phi)
    """
    x, y, phi, px, py, pphi = sympy.symbols("x y phi p_x p_y p_phi")
    r = sympy.Symbol("r")
    m, J = sympy.sympify(m), sympy.sympify(J)
    V = sympy.S.Zero if potential is None else sympy.sympify(potential)
    H = (px**2 + py**2) / (2 * m) + pphi**2 / (2 * J) + V
    S = gc.Chart([x, y, phi, r, pphi])
    params = sorted((m.free_symbols | J.free_symbols | V.free_symbols) - {x, y, phi}, key=lambda s: s.name)
    iota = gc.Map(S, gc.Chart([x, y, phi, px, py, pphi]),
                  [x, y, phi, r * sympy.cos(phi), r * sympy.sin(phi), pphi], parameters=params)
    return NonholonomicSystem(H, [x, y, phi], [px, py, pphi], [[sympy.sin(phi), -sympy.cos(phi), 0]],
                              parametrization=(S, iota))


def knife_edge_exact_flow(y0, t, m=1, J=1, dps=None):
    """The free knife edge's exact flow at time ``t`` from a state ``y0 = (x, y, phi, p_x, p_y, p_phi)``.

    ``y0`` must be on the constraint manifold (its speed along the blade is read off as
    ``r = p_x cos(phi) + p_y sin(phi)``).  Computed in mpmath at ``dps`` digits (default: the
    current precision); the formulas are in :func:`knife_edge`.

    Examples
    --------
    >>> import mpmath
    >>> with mpmath.workdps(20):
    ...     [mpmath.nstr(v, 10) for v in knife_edge_exact_flow([0, 0, 0, 1, 0, 1], mpmath.pi / 2)[:3]]
    ['1.0', '1.0', '1.570796327']
    """
    with mpmath.workdps((dps or mpmath.mp.dps) + 5):
        X, Y, P, PX, PY, PP = [mpmath.mpf(v) if not isinstance(v, mpmath.mpf) else v for v in y0]
        m, J, t = mpmath.mpf(m), mpmath.mpf(J), mpmath.mpf(t)
        r = PX * mpmath.cos(P) + PY * mpmath.sin(P)
        w = PP / J
        phi = P + w * t
        if w == 0:
            x, y = X + r / m * mpmath.cos(P) * t, Y + r / m * mpmath.sin(P) * t
        else:
            x = X + r / (m * w) * (mpmath.sin(phi) - mpmath.sin(P))
            y = Y - r / (m * w) * (mpmath.cos(phi) - mpmath.cos(P))
        out = [x, y, phi, r * mpmath.cos(phi), r * mpmath.sin(phi), PP]
    return [+v for v in out]
