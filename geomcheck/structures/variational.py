"""Variational integrators from a Lagrangian ``L(q, qdot)``: discrete Lagrangian, DEL map, Noether.

Marsden & West, "Discrete mechanics and variational integrators", Acta Numerica 10 (2001),
Sections 1.3, 2.4-2.6, 3 (forcing) and 1.3.3 (discrete Noether); Hairer, Lubich & Wanner
(HLW), "Geometric Numerical Integration", Section VI.6.

Discrete Lagrangian by Galerkin and quadrature
    On ``[0, h]`` take the curves ``q(tau h)``, a polynomial of degree ``d`` in ``tau`` with
    ``q(0) = q0``, ``q(h) = q1``, and a quadrature rule (nodes ``c_i``, weights ``b_i`` on
    [0, 1]).  The discrete Lagrangian is the extremum over the curve's interior freedom

        ``L_d(q0, q1) = ext  h sum_i b_i L(q(c_i h), qdot(c_i h))``.

    * ``"midpoint"``: one Gauss node ``c = 1/2``, ``d = 1``: ``h L((q0 + q1)/2, (q1 - q0)/h)``;
    * ``"trapezoidal"``: Lobatto nodes 0, 1, ``d = 1``: ``h/2 (L(q0, v) + L(q1, v))`` (Stormer-Verlet
      for ``L = qdot^2/2 - V(q)``);
    * ``("lobatto", s)``: s Lobatto nodes, ``d = s`` (s + 1 control points): the Lobatto IIIA-IIIB
      method, order 2s - 2 (Marsden-West Sec. 2.6; s = 2 is the generalized Stormer-Verlet
      method, which differs from "trapezoidal" when the mass depends on q);
    * ``("gauss", s)``: s Gauss nodes, ``d = s``: the Gauss collocation method, order 2s (s = 1
      is "midpoint", the implicit midpoint rule for every regular L).

    A :class:`QuadratureRule` may also be given as it is (e.g. ``dataclasses.replace`` of one with
    another degree): curves of degree ``s - 1`` with s Lobatto nodes give another variational
    method, which is not Lobatto IIIA-IIIB once the mass matrix depends on q (tested).

    The curve is written ``q(tau h) = q0 + h tau V + h sum_k tau^k (1 - tau) Z_k`` (k = 1..d-1):
    the mean velocity ``V = (q1 - q0)/h`` and the bubble coefficients ``Z_k`` are auxiliary
    unknowns, so every equation below is polynomial in h (no ``1/h``) and the step map has a
    Taylor expansion at h = 0 (needed by :func:`geomcheck.certify_order`).

Position-momentum form (the map that is certified and run)
    ``p0 = -D1 L_d(q0, q1) - f_d^-``, ``p1 = D2 L_d(q0, q1) + f_d^+`` and, for the interior,
    ``d/dZ_k (action) + virtual work = 0``.  With ``Lq_i = L_q + f`` and ``Lv_i = L_qdot`` at node
    i (by the envelope theorem the Z_k are held fixed in D1, D2):

        ``q1 = q0 + h V``
        ``p0 = sum_i b_i (Lv_i - h (1 - c_i) Lq_i)``
        ``p1 = sum_i b_i (Lv_i + h c_i Lq_i)``
        ``0  = sum_i b_i (h c_i^k (1 - c_i) Lq_i + (k c_i^(k-1) - (k+1) c_i^k) Lv_i)``.

    The forces are the discrete Lagrange-d'Alembert forces of the same quadrature,
    ``f_d^- = h sum_i b_i (1 - c_i) f_i``, ``f_d^+ = h sum_i b_i c_i f_i`` (for the midpoint rule
    ``f_d^+- = h/2 f((q0 + q1)/2, (q1 - q0)/h)``, Marsden-West Sec. 3.2).

Certificates (none is assumed; each is decided by geomcheck's zero test)
    * :func:`certify_variational_del`: Guo's DEL condition ``Delta_t omega = -dE`` for the explicit
      discrete Lagrangians (no interior unknowns), through
      :mod:`geomcheck.structures.del_forms`;
    * :func:`certify_variational_symplectic`: ``phi^* (dq ^ dp) == dq ^ dp`` (pullback);
    * :func:`certify_variational_order`: the order against the Euler-Lagrange vector field on
      ``(q, p)`` (when the Legendre map is linear in qdot, so that the field is explicit);
    * :func:`certify_variational_conformal`: ``phi^* omega == k omega`` (forced systems);
    * :func:`certify_discrete_noether`: invariance of the discrete action under a symmetry ``xi``
      and conservation of ``J = p . xi(q)`` by the step map.

>>> import sympy
>>> q, v = sympy.symbols("q v")
>>> vi = variational_integrator(v**2 / 2 - sympy.cos(q), q, v, quadrature="trapezoidal")
>>> x, y, h = sympy.symbols("x y h")
>>> vi.order, sympy.expand(vi.discrete_lagrangian(x, y) - ((y - x)**2 / (2 * h) - h * (sympy.cos(x) + sympy.cos(y)) / 2))
(2, 0)
>>> certify_variational_symplectic(vi).holds
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..certify.maps import certify_conformal_symplectic, certify_conserves, certify_symplectic
from ..certify.order import certify_order
from ..errors import ExpressionError, InvalidArgumentError, ShapeError
from ..fields import VectorField
from ..forms import Form
from ..latex import Derivation, latex, summarize
from ..maps import ImplicitMap, substitute
from ..zero import decide_all_zero
from .del_forms import certify_del_condition, discrete_lagrangian_forms
from .lagrangian import symbol_sequence

__all__ = [
    "QuadratureRule",
    "quadrature_rule",
    "LegendreTransform",
    "legendre_transform",
    "VariationalIntegrator",
    "variational_integrator",
    "certify_variational_del",
    "certify_variational_symplectic",
    "certify_variational_order",
    "certify_variational_conformal",
    "discrete_momentum",
    "certify_discrete_noether",
]


# =========================================================================== quadrature


@dataclass(frozen=True)
class QuadratureRule:
    """A quadrature rule on [0, 1] and the polynomial degree of the Galerkin curves.

    Attributes
    ----------
    name : str            ``"midpoint"``, ``"trapezoidal"``, ``"gauss-3"``, ``"lobatto-3"``, ...
    kind : str            ``"gauss"`` or ``"lobatto"``
    stages : int          the number of nodes s
    nodes, weights : tuple of exact sympy numbers
    degree : int          the degree d of the curves (s; 1 for "trapezoidal")
    order : int           the order of the variational integrator (2s, resp. 2s - 2)
    """

    name: str
    kind: str
    stages: int
    nodes: tuple
    weights: tuple
    degree: int
    order: int


def quadrature_rule(quadrature: str | tuple[str, int] | None = None, order: int | None = None) -> QuadratureRule:
    """The quadrature of a variational integrator, by name or by order.

    Parameters
    ----------
    quadrature : str or (str, int), optional
        ``"midpoint"`` (= ``("gauss", 1)``), ``"trapezoidal"`` (Lobatto nodes, degree-1 curves),
        ``("gauss", s)`` (s >= 1) or ``("lobatto", s)`` (s >= 2), or a QuadratureRule; also ``"gauss-s"``,
        ``"lobatto-s"``.
    order : int, optional
        Instead of ``quadrature``: the smallest rule (fewest nodes) of this order, i.e.
        ``("gauss", order // 2)``.  The variational integrators here are symmetric, so their
        order is even; an odd order is refused.  Given with ``quadrature``, it must be the
        rule's order.

    Raises
    ------
    InvalidArgumentError
        Unknown rule, a bad number of nodes, an odd or nonpositive order, or an order that
        is not the rule's.

    Examples
    --------
    >>> quadrature_rule("midpoint")
    QuadratureRule(name='midpoint', kind='gauss', stages=1, nodes=(1/2,), weights=(1,), degree=1, order=2)
    >>> quadrature_rule(("lobatto", 3)).nodes, quadrature_rule(("lobatto", 3)).order
    ((0, 1/2, 1), 4)
    >>> quadrature_rule("trapezoidal").degree, quadrature_rule(("lobatto", 2)).degree
    (1, 2)
    >>> quadrature_rule(order=4).name
    'gauss-2'
    >>> quadrature_rule(order=3)
    Traceback (most recent call last):
    ...
    geomcheck.errors.InvalidArgumentError: variational_integrator: no quadrature gives order 3: the Galerkin variational integrators are symmetric, so their order is even (order=2: midpoint, order=4: gauss-2, order=4 with 3 nodes: lobatto-3)
    """
    from ..certify.families import gauss_legendre, lobatto_iiia

    if order is not None:
        if isinstance(order, bool) or not isinstance(order, int) or order < 1:
            raise InvalidArgumentError(f"variational_integrator: order must be a positive integer, got {order!r}")
        if order % 2:
            raise InvalidArgumentError(
                f"variational_integrator: no quadrature gives order {order}: the Galerkin variational integrators"
                " are symmetric, so their order is even (order=2: midpoint, order=4: gauss-2, order=4 with 3"
                " nodes: lobatto-3)")
        if quadrature is None:
            quadrature = ("gauss", order // 2)
    if quadrature is None:
        quadrature = "midpoint"
    if isinstance(quadrature, QuadratureRule):
        rule = quadrature
        if (isinstance(rule.degree, bool) or not isinstance(rule.degree, int) or rule.degree < 1
                or len(rule.nodes) != len(rule.weights) or len(rule.nodes) != rule.stages or rule.stages < 1):
            raise InvalidArgumentError(f"variational_integrator: malformed quadrature rule {rule!r}: expected as many"
                                       " nodes as weights as stages and a curve degree >= 1")
    elif isinstance(quadrature, str) and quadrature.strip().lower() == "trapezoidal":
        t = lobatto_iiia(2, exact=True)
        rule = QuadratureRule("trapezoidal", "lobatto", 2, tuple(t.c), tuple(t.b), 1, 2)
    else:
        kind, s = _parse_quadrature(quadrature)
        if kind == "gauss":
            t = gauss_legendre(s, exact=True)
            rule = QuadratureRule("midpoint" if s == 1 else f"gauss-{s}", "gauss", s, tuple(t.c), tuple(t.b), s, 2 * s)
        else:
            t = lobatto_iiia(s, exact=True)
            rule = QuadratureRule(f"lobatto-{s}", "lobatto", s, tuple(t.c), tuple(t.b), s, 2 * s - 2)
    if order is not None and rule.order != order:
        raise InvalidArgumentError(f"variational_integrator: the quadrature {rule.name} has order {rule.order},"
                                   f" not the requested order={order}")
    return rule


def _parse_quadrature(quadrature):
    known = ("'midpoint', 'trapezoidal', ('gauss', s) with s >= 1, ('lobatto', s) with s >= 2,"
             " or 'gauss-s' / 'lobatto-s'")
    if isinstance(quadrature, str):
        name = quadrature.strip().lower().replace("_", "-")
        if name == "midpoint":
            return "gauss", 1
        head, _, tail = name.rpartition("-")
        if head in ("gauss", "lobatto") and tail.isdigit():
            quadrature = (head, int(tail))
        else:
            raise InvalidArgumentError(f"variational_integrator: unknown quadrature {quadrature!r}; expected {known}")
    if not isinstance(quadrature, tuple) or len(quadrature) != 2:
        raise InvalidArgumentError(f"variational_integrator: unknown quadrature {quadrature!r}; expected {known}")
    kind, s = quadrature
    if kind not in ("gauss", "lobatto") or isinstance(s, bool) or not isinstance(s, int):
        raise InvalidArgumentError(f"variational_integrator: unknown quadrature {quadrature!r}; expected {known}")
    if s < (1 if kind == "gauss" else 2):
        raise InvalidArgumentError(f"variational_integrator: {kind} quadrature needs at least"
                                   f" {1 if kind == 'gauss' else 2} nodes, got {s}")
    return kind, s


# =========================================================================== Legendre transform


@dataclass(frozen=True)
class LegendreTransform:
    """``p = dL/dqdot`` and, when it is affine in qdot, its inverse and the Euler-Lagrange field.

    Attributes
    ----------
    momentum : tuple        ``dL/dqdot_i`` (in q, qdot)
    velocity : tuple or None ``qdot(q, p)``, None when the Legendre map is not affine in qdot
    hamiltonian : expression or None  ``p . qdot - L`` at ``qdot(q, p)``
    vector_field : VectorField or None  ``q' = qdot(q, p)``, ``p' = L_q + f`` on ``(q, p)``
    """

    momentum: tuple
    velocity: tuple | None
    hamiltonian: Any
    vector_field: VectorField | None


def legendre_transform(L: sympy.Expr, q: Sequence[sympy.Symbol], qdot: Sequence[sympy.Symbol],
                       p: Sequence[sympy.Symbol], forcing: Sequence[sympy.Expr] | None = None) -> LegendreTransform:
    """The Legendre map of L, inverted explicitly when it is affine in the velocities.

    ``p = W(q) qdot + c(q)`` (W the Hessian ``L_qdot qdot``, free of qdot) is inverted by the
    adjugate, ``qdot = adj(W) (p - c) / det W``; a W whose determinant is identically zero
    (a degenerate Lagrangian) is refused.

    Raises
    ------
    InvalidArgumentError
        ``det W`` is identically zero.

    Examples
    --------
    >>> import sympy
    >>> q, v, p = sympy.symbols("q v p")
    >>> T = legendre_transform((1 + q**2) * v**2 / 2 - q**2 / 2, [q], [v], [p])
    >>> T.velocity, sympy.factor(T.hamiltonian)
    ((p/(q**2 + 1),), (p**2 + q**4 + q**2)/(2*(q**2 + 1)))
    >>> legendre_transform(v**4, [q], [v], [p]).velocity is None       # not affine in v
    True
    """
    n = len(q)
    momentum = tuple(diff(L, v) for v in qdot)
    W = sympy.Matrix(n, n, lambda i, j: diff(momentum[i], qdot[j]))
    if any(w.free_symbols & set(qdot) for w in W):
        return LegendreTransform(momentum, None, None, None)
    det = sympy.expand(W.det(method="berkowitz")) if n > 1 else W[0, 0]
    if decide_all_zero([det], budget=5.0).is_zero is True:
        raise InvalidArgumentError(f"variational_integrator: the Lagrangian {L} is degenerate: det(d^2 L/dqdot^2) ="
                                   " 0 identically, so p = dL/dqdot does not determine qdot")
    at_rest = {v: 0 for v in qdot}
    c = sympy.Matrix([m.subs(at_rest) for m in momentum])
    adj = W.adjugate() if n > 1 else sympy.Matrix([[1]])
    vel = adj * (sympy.Matrix(p) - c) / det
    velocity = tuple(sympy.cancel(e) if n == 1 else e for e in vel)
    where = dict(zip(qdot, velocity))
    H = sum(pi * vi for pi, vi in zip(p, velocity)) - L.subs(where)
    chart = Chart(list(q) + list(p))
    f = forcing or [0] * n
    comps = {x: v for x, v in zip(q, velocity)}
    comps.update({y: (diff(L, x) + fi).subs(where) for x, y, fi in zip(q, p, f)})
    return LegendreTransform(momentum, velocity, H, VectorField(chart, comps))


# =========================================================================== the integrator


def _fresh(name: str, taken: set) -> sympy.Symbol:
    s = sympy.Symbol(name)
    while s in taken:
        s = sympy.Symbol("{" + s.name + "}'")
    taken.add(s)
    return s


@dataclass(frozen=True)
class VariationalIntegrator:
    """A Galerkin variational integrator of ``L(q, qdot)`` (see the module docstring).

    Attributes
    ----------
    lagrangian : sympy expression     L(q, qdot)
    q, qdot, p : tuples of Symbols    positions, velocities, momenta
    forcing : tuple or None           the force f(q, qdot) (Lagrange-d'Alembert), one per q
    step : Symbol                     h
    rule : QuadratureRule
    chart : Chart                     (q, p), the phase space
    omega : Form                      sum dq ^ dp
    step_map : ImplicitMap            (q0, p0) -> (q1, p1); auxiliaries V and the Z_k
    velocity_unknowns, bubble_unknowns : tuples of Symbols (V; the Z_k, k-major)
    legendre : LegendreTransform
    derivation : Derivation
    """

    lagrangian: sympy.Expr
    q: tuple
    qdot: tuple
    p: tuple
    forcing: tuple | None
    step: sympy.Symbol
    rule: QuadratureRule
    chart: Chart
    omega: Form
    step_map: ImplicitMap
    velocity_unknowns: tuple
    bubble_unknowns: tuple
    legendre: LegendreTransform
    derivation: Derivation

    @property
    def order(self) -> int:
        """The order the quadrature gives (Marsden-West Thm. 2.3.1 with Sec. 2.6, HLW VI.6); certify it."""
        return self.rule.order

    @property
    def vector_field(self) -> VectorField | None:
        """The Euler-Lagrange (-d'Alembert) vector field on (q, p), or None (Legendre map not affine)."""
        return self.legendre.vector_field

    def discrete_lagrangian(self, q0: Sequence[sympy.Expr], q1: Sequence[sympy.Expr]) -> sympy.Expr:
        """``L_d(q0, q1)`` for the rules without interior unknowns (degree-1 curves).

        ``q0``, ``q1``: a Symbol each (one degree of freedom) or sequences/Matrices of n entries.

        Raises
        ------
        InvalidArgumentError
            The rule has interior unknowns (its L_d is an extremum, not a formula).
        """
        if self.bubble_unknowns:
            raise InvalidArgumentError(
                f"the discrete Lagrangian of the {self.rule.name} rule is an extremum over interior points"
                f" (degree {self.rule.degree} curves), not an explicit formula; use the step map")
        x = tuple(sympy.Matrix([q0])) if not isinstance(q0, (list, tuple, sympy.MatrixBase)) else tuple(q0)
        y = tuple(sympy.Matrix([q1])) if not isinstance(q1, (list, tuple, sympy.MatrixBase)) else tuple(q1)
        if len(x) != len(self.q) or len(y) != len(self.q):
            raise ShapeError(f"L_d takes two points of {len(self.q)} coordinates each, got {len(x)} and {len(y)}")
        h = self.step
        v = [(b - a) / h for a, b in zip(x, y)]
        total = 0
        for c, w in zip(self.rule.nodes, self.rule.weights):
            at = {**{qi: a + c * (b - a) for qi, a, b in zip(self.q, x, y)}, **dict(zip(self.qdot, v))}
            total += h * w * self.lagrangian.subs(at, simultaneous=True)
        return total

    def latex(self) -> str:
        return self.derivation.latex()


def variational_integrator(L: sympy.Expr | Callable[..., sympy.Expr], q: sympy.Symbol | Iterable[sympy.Symbol],
                           qdot: sympy.Symbol | Iterable[sympy.Symbol] | None = None, *,
                           quadrature: str | tuple[str, int] | None = None, order: int | None = None,
                           p: sympy.Symbol | Iterable[sympy.Symbol] | None = None,
                           forcing: Sequence[sympy.Expr] | sympy.Expr | None = None,
                           h: sympy.Symbol | None = None,
                           derivatives: str | None = None) -> VariationalIntegrator:
    """The Galerkin variational integrator of ``L(q, qdot)`` in position-momentum form.

    Parameters
    ----------
    L : sympy expression in q and qdot (or a callable ``L(q, qdot)`` of the symbols)
    q, qdot : Symbol or sequence of Symbols
        Positions and the symbols standing for their velocities in L (qdot may be left out for
        a callable L: then symbols named ``\\dot{q}`` for each q).
    quadrature : str or (str, int), optional
        See :func:`quadrature_rule` (default ``"midpoint"``).
    order : int, optional
        Pick the smallest rule of this (even) order instead.
    p : Symbol or sequence of Symbols, optional
        Names of the momenta (default ``p_{q}`` for each q).
    forcing : sequence of expressions in q, qdot (one per q), optional
        The non-conservative force f of ``d/dt L_qdot = L_q + f`` (Lagrange-d'Alembert).
    h : Symbol, optional
        The step (default ``h``).
    derivatives : {"auto", "symbolic", "implicit"}, optional
        How the step map's certificates get du/dx (:class:`geomcheck.ImplicitMap`).  Default:
        "auto" for a forced system of one degree of freedom (a symbolic elimination gives the
        conformal factor explicitly), "implicit" otherwise (the elimination for Kepler takes
        minutes; and for unforced maps the symbolic mode's LaTeX of a constant Jacobian
        determinant fails in geomcheck.certify.implicit_tex).

    Returns
    -------
    VariationalIntegrator
        Whose ``step_map`` is the ImplicitMap ``(q0, p0) -> (q1, p1)``.

    Raises
    ------
    ExpressionError
        L or the force is not an expression in q, qdot (and constants), or the symbols clash.
    InvalidArgumentError
        A bad quadrature or order, or a degenerate Lagrangian.
    ShapeError
        As many velocities (and forces, momenta) as positions are needed.

    Examples
    --------
    >>> import sympy
    >>> q, v = sympy.symbols("q v")
    >>> vi = variational_integrator(v**2 / 2 - q**4 / 4, q, v, order=4)
    >>> vi.rule.name, len(vi.step_map.auxiliary)
    ('gauss-2', 2)
    >>> variational_integrator(v**2 / 2, q, v, quadrature="simpson")
    Traceback (most recent call last):
    ...
    geomcheck.errors.InvalidArgumentError: variational_integrator: unknown quadrature 'simpson'; expected 'midpoint', 'trapezoidal', ('gauss', s) with s >= 1, ('lobatto', s) with s >= 2, or 'gauss-s' / 'lobatto-s'
    """
    q = symbol_sequence(q, "variational_integrator: q")
    if qdot is None:
        if not callable(L) or isinstance(L, sympy.Basic):
            raise ExpressionError("variational_integrator: give qdot, the symbols of the velocities in the Lagrangian"
                                  f" {L!r} (only a callable L(q, qdot) can do without them)")
        qdot = tuple(sympy.Symbol(rf"\dot{{{x.name}}}") for x in q)
    qdot = symbol_sequence(qdot, "variational_integrator: qdot")
    n = len(q)
    if len(qdot) != n:
        raise ShapeError(f"variational_integrator: {n} positions but {len(qdot)} velocities; expected as many")
    if p is None:
        p = tuple(sympy.Symbol(f"p_{{{x.name}}}") for x in q)
    p = symbol_sequence(p, "variational_integrator: p")
    if len(p) != n:
        raise ShapeError(f"variational_integrator: {n} positions but {len(p)} momenta; expected as many")
    if len(set(q + qdot + p)) != 3 * n:
        raise ExpressionError(f"variational_integrator: the symbols q={list(q)}, qdot={list(qdot)}, p={list(p)}"
                              " must be distinct")
    h = sympy.Symbol("h") if h is None else h
    if not isinstance(h, sympy.Symbol) or h in set(q + qdot + p):
        raise ExpressionError(f"variational_integrator: the step must be a Symbol other than the coordinates, got {h!r}")
    if callable(L) and not isinstance(L, sympy.Basic):
        L = L(q[0] if n == 1 else sympy.Matrix(q), qdot[0] if n == 1 else sympy.Matrix(qdot))
    try:
        L = sympy.sympify(L, strict=True)
    except (sympy.SympifyError, TypeError):
        raise ExpressionError(f"variational_integrator: the Lagrangian {L!r} is not a sympy expression") from None
    if not isinstance(L, sympy.Expr) or isinstance(L, sympy.MatrixBase):
        raise ExpressionError(f"variational_integrator: the Lagrangian {L!r} is not a scalar sympy expression")
    if L.has(*p) or L.has(h):
        raise ExpressionError(f"variational_integrator: the Lagrangian {L} contains the momenta {list(p)} or the step"
                              f" {h}; it is a function of q and qdot")
    if forcing is not None:
        forcing = (forcing,) if isinstance(forcing, sympy.Expr) or not isinstance(forcing, Iterable) else forcing
        forcing = tuple(sympy.sympify(f) for f in forcing)
        if len(forcing) != n:
            raise ShapeError(f"variational_integrator: {n} positions but {len(forcing)} force components")
        if any(f.has(*p) or f.has(h) for f in forcing):
            raise ExpressionError("variational_integrator: the force is a function of q and qdot (not of p or h)")
        if all(f == 0 for f in forcing):
            forcing = None
    rule = quadrature_rule(quadrature, order)
    legendre = legendre_transform(L, q, qdot, p, forcing)
    chart = Chart(list(q) + list(p))
    omega = Form(chart, {(x, y): 1 for x, y in zip(q, p)})

    taken = set(q + qdot + p) | L.free_symbols | {h}
    Q = tuple(_fresh(f"{{{latex(x)}}}^{{(1)}}", taken) for x in q)
    P = tuple(_fresh(f"{{{latex(y)}}}^{{(1)}}", taken) for y in p)
    V = tuple(_fresh(f"V_{{{latex(x)}}}", taken) for x in q)
    d = rule.degree
    Z = tuple(tuple(_fresh(f"Z_{{{latex(x)},{k}}}", taken) for x in q) for k in range(1, d))
    bubble = [lambda tau, k=k: tau**k * (1 - tau) for k in range(1, d)]
    bubble_rate = [lambda tau, k=k: k * tau**(k - 1) - (k + 1) * tau**k for k in range(1, d)]
    L_q = [diff(L, x) + (forcing[i] if forcing else 0) for i, x in enumerate(q)]
    L_v = list(legendre.momentum)
    Lq_nodes, Lv_nodes = [], []
    for c in rule.nodes:
        pos = [x + h * c * Vx + h * sum((bubble[k](c) * Z[k][i] for k in range(d - 1)), sympy.S.Zero)
               for i, (x, Vx) in enumerate(zip(q, V))]
        vel = [Vx + sum((bubble_rate[k](c) * Z[k][i] for k in range(d - 1)), sympy.S.Zero) for i, Vx in enumerate(V)]
        at = {**dict(zip(q, pos)), **dict(zip(qdot, vel))}
        Lq_nodes.append([substitute(e, at) for e in L_q])
        Lv_nodes.append([substitute(e, at) for e in L_v])
    b, cs = rule.weights, rule.nodes
    s = rule.stages
    eqs = [X - x - h * Vx for X, x, Vx in zip(Q, q, V)]
    eqs += [y - sum(b[i] * (Lv_nodes[i][j] - h * (1 - cs[i]) * Lq_nodes[i][j]) for i in range(s))
            for j, y in enumerate(p)]
    eqs += [Y - sum(b[i] * (Lv_nodes[i][j] + h * cs[i] * Lq_nodes[i][j]) for i in range(s))
            for j, Y in enumerate(P)]
    for k in range(d - 1):
        eqs += [sum(b[i] * (h * bubble[k](cs[i]) * Lq_nodes[i][j] + bubble_rate[k](cs[i]) * Lv_nodes[i][j])
                    for i in range(s)) for j in range(n)]
    aux = list(V) + [z for row in Z for z in row]
    # the h = 0 solution (certify_order expands from it; Newton starts there): q1 = q0, p1 = p0,
    # V = qdot(q0, p0) where the Legendre map inverts explicitly, Z = 0
    guess = {Y: y for Y, y in zip(P, p)}
    guess.update({X: x for X, x in zip(Q, q)})
    guess.update({z: 0 for row in Z for z in row})
    if legendre.velocity is not None:
        guess.update({Vx: vx for Vx, vx in zip(V, legendre.velocity)})
    else:
        guess.update({Vx: 0 for Vx in V})
    params = sorted((L.free_symbols | set().union(*[f.free_symbols for f in (forcing or ())]))
                    - set(q) - set(qdot), key=lambda x: x.name) + [h]
    phi = ImplicitMap(chart, chart, eqs, new=list(Q + P), auxiliary=aux, parameters=params, guess=guess, step=h,
                      derivatives=derivatives or ("auto" if n == 1 and forcing else "implicit"))

    D = Derivation(r"Galerkin variational integrator (Marsden \& West 2001, Sec.~2.5--2.6)")
    D = D.add(r"The Lagrangian is", r"L &= " + summarize(L))
    if forcing:
        D = D.add(r"with the force (Lagrange--d'Alembert principle, Sec.~3)", r"f &= " + summarize(sympy.Matrix(forcing)))
    D = D.add(rf"Quadrature: {rule.name} (nodes ${latex(sympy.Matrix(rule.nodes).T)}$, weights "
              rf"${latex(sympy.Matrix(rule.weights).T)}$), curves of degree {d}; the discrete Lagrangian is the "
              r"extremum of $h\sum_i b_i L(q(c_i h), \dot q(c_i h))$ over the interior freedom of the curve "
              r"$q(\tau h) = q_0 + h\tau V + h\sum_k \tau^k(1-\tau) Z_k$.")
    D = D.add(r"In position--momentum form $p_0 = -D_1L_d - f_d^-$, $p_1 = D_2L_d + f_d^+$ the step is", summarize(phi))
    return VariationalIntegrator(L, q, qdot, p, forcing, h, rule, chart, omega, phi, V, tuple(z for row in Z for z in row),
                                 legendre, D)


def _require(vi, who):
    if not isinstance(vi, VariationalIntegrator):
        raise ExpressionError(f"{who} expects a VariationalIntegrator (from variational_integrator), got"
                              f" {type(vi).__name__}")


# =========================================================================== certificates


def certify_variational_del(vi: VariationalIntegrator) -> Certificate:
    """Certify Guo's DEL condition ``Delta_t omega^(k) = -dE^(k)`` for the integrator's L_d.

    Through :func:`geomcheck.structures.del_forms.certify_del_condition` on the explicit
    discrete Lagrangian (rules without interior unknowns: midpoint, trapezoidal); on the
    solution space E = 0 it says that the DEL map preserves omega^(k).

    Raises
    ------
    InvalidArgumentError
        The rule has interior unknowns (use :func:`certify_variational_symplectic`), or the
        integrator is forced (the DEL form of a forced system is not closed).

    Examples
    --------
    >>> import sympy
    >>> q, v = sympy.symbols("q v")
    >>> certify_variational_del(variational_integrator(v**2 / 2 - sympy.cos(q), q, v)).holds
    True
    """
    _require(vi, "certify_variational_del")
    if vi.forcing:
        raise InvalidArgumentError("certify_variational_del: a forced integrator has no DEL one-form of a discrete"
                                   " Lagrangian alone (the forces are not a differential); use"
                                   " certify_variational_conformal")
    n = len(vi.q)

    def L_d(x, y):
        xs = [x] if n == 1 else list(x)
        ys = [y] if n == 1 else list(y)
        return vi.discrete_lagrangian(xs, ys)

    F = discrete_lagrangian_forms(L_d, n, step=vi.step)
    return certify_del_condition(F)


def certify_variational_symplectic(vi: VariationalIntegrator) -> Certificate:
    """Certify ``phi^* (sum dq ^ dp) == sum dq ^ dp`` for the step map (pullback).

    Examples
    --------
    >>> import sympy
    >>> q, v = sympy.symbols("q v")
    >>> certify_variational_symplectic(variational_integrator((1 + q**2) * v**2 / 2, q, v)).holds
    True
    """
    _require(vi, "certify_variational_symplectic")
    return certify_symplectic(vi.step_map, vi.omega)


def certify_variational_order(vi: VariationalIntegrator, order: int | None = None) -> Certificate:
    """Certify that the step map has order ``order`` (default: the rule's) for the Euler-Lagrange field.

    Raises
    ------
    InvalidArgumentError
        The Legendre map is not affine in the velocities (no explicit field on (q, p)).

    Examples
    --------
    >>> import sympy
    >>> q, v = sympy.symbols("q v")
    >>> vi = variational_integrator(v**2 / 2 - q**4 / 4, q, v, quadrature="midpoint")
    >>> certify_variational_order(vi).holds, certify_variational_order(vi, 3).holds
    (True, False)
    """
    _require(vi, "certify_variational_order")
    if vi.vector_field is None:
        raise InvalidArgumentError("certify_variational_order: the Legendre map p = dL/dqdot is not affine in qdot,"
                                   " so the Euler-Lagrange field on (q, p) is not explicit")
    return certify_order(vi.step_map, vi.vector_field, vi.step, vi.order if order is None else order)


def certify_variational_conformal(vi: VariationalIntegrator) -> Certificate:
    """Certify ``phi^* omega == k omega`` with k a nonzero constant (small h); the factor is ``.factor``.

    With linear damping ``f = -gamma qdot`` and ``L = qdot^2/2 - V(q)`` the two-node Lobatto rules
    ("trapezoidal" and ``("lobatto", 2)``) are conformally symplectic for every V, with
    ``k = (2 - gamma h)/(2 + gamma h)``; the midpoint rule only for quadratic V (below).

    Examples
    --------
    >>> import sympy
    >>> q, v, g = sympy.symbols("q v gamma", positive=True)
    >>> vi = variational_integrator(v**2 / 2 - q**2 / 2, q, v, forcing=[-g * v])
    >>> c = certify_variational_conformal(vi)
    >>> c.holds, sympy.factor(c.factor)
    (True, (-2*gamma*h + h**2 + 4)/(2*gamma*h + h**2 + 4))
    >>> w = variational_integrator(v**2 / 2 - sympy.cos(q), q, v, forcing=[-g * v])   # nonlinear force: not conformal
    >>> certify_variational_conformal(w).holds
    False
    >>> t = variational_integrator(v**2 / 2 - sympy.cos(q), q, v, forcing=[-g * v], quadrature="trapezoidal")
    >>> c = certify_variational_conformal(t)
    >>> c.holds, sympy.factor(c.factor)
    (True, -(gamma*h - 2)/(gamma*h + 2))
    """
    _require(vi, "certify_variational_conformal")
    return certify_conformal_symplectic(vi.step_map, vi.omega, small_step=vi.step)


# =========================================================================== discrete Noether


def _symmetry(vi, xi):
    n = len(vi.q)
    if isinstance(xi, VectorField):
        xi = [xi.component(x) for x in vi.q]
    if isinstance(xi, sympy.MatrixBase):
        xi = list(xi)
    try:
        xi = [sympy.sympify(e) for e in xi]
    except (TypeError, sympy.SympifyError):
        raise ExpressionError(f"discrete_momentum: the symmetry must be a vector field on Q (one expression in q per"
                              f" coordinate), got {xi!r}") from None
    if len(xi) != n:
        raise ShapeError(f"discrete_momentum: the symmetry has {len(xi)} components; the configuration space has {n}")
    extra = set().union(*[e.free_symbols for e in xi]) & (set(vi.qdot) | set(vi.p) | {vi.step})
    if extra:
        raise ExpressionError(f"discrete_momentum: the symmetry is a vector field on Q (a function of q only), but"
                              f" it contains {sorted(extra, key=str)}")
    return xi


def discrete_momentum(vi: VariationalIntegrator, xi: Sequence[sympy.Expr] | VectorField) -> sympy.Expr:
    """The discrete Noether momentum ``J(q, p) = p . xi(q)`` of a symmetry ``xi`` of Q.

    Marsden-West Thm. 1.3.3: when L_d is invariant under the flow of xi, the discrete momentum
    maps ``J^-(q0, q1) = -D1 L_d . xi(q0)`` and ``J^+ = D2 L_d . xi(q1)`` agree, i.e. ``p . xi(q)``
    is conserved by the position-momentum step; :func:`certify_discrete_noether` certifies both.

    Examples
    --------
    >>> import sympy
    >>> x, y, u, v = sympy.symbols("x y u v")
    >>> vi = variational_integrator((u**2 + v**2) / 2 - 1 / sympy.sqrt(x**2 + y**2), [x, y], [u, v])
    >>> discrete_momentum(vi, [-y, x])
    -p_{x}*y + p_{y}*x
    """
    _require(vi, "discrete_momentum")
    xi = _symmetry(vi, xi)
    return sum((pi * e for pi, e in zip(vi.p, xi)), sympy.S.Zero)


def certify_discrete_noether(vi: VariationalIntegrator, xi: Sequence[sympy.Expr] | VectorField) -> Certificate:
    """Certify that ``xi`` is a symmetry of the discrete action and that the step conserves ``p . xi``.

    Two claims, both decided by the zero test:

    1. invariance.  For the rules without interior points, ``D1 L_d . xi(q0) + D2 L_d . xi(q1) = 0``
       identically in (q0, q1) (d/de of ``L_d(exp(e xi) q0, exp(e xi) q1)`` at 0).  With interior
       points the symmetry must be affine, ``xi(q) = A q + c``: its flow maps the Galerkin curves to
       Galerkin curves (``V -> A V``, ``Z_k -> A Z_k``), and the quadrature action
       ``sum_i b_i L(q_i, v_i)`` is certified invariant identically in (q0, V, Z) (then so is its
       extremum L_d);  without forcing; a force must do no virtual work along xi (checked the same way:
       ``sum_i b_i f_i . xi(q_i) = 0``).
    2. conservation: ``certify_conserves(step_map, p . xi(q))``.

    ``holds`` is True when both hold, False when either is refuted (with its counterexample),
    None otherwise; the two certificates are the derivation's steps.

    Raises
    ------
    InvalidArgumentError
        A non-affine xi for a rule with interior unknowns.

    Examples
    --------
    >>> import sympy
    >>> x, y, u, v = sympy.symbols("x y u v")
    >>> vi = variational_integrator((u**2 + v**2) / 2 - 1 / sympy.sqrt(x**2 + y**2), [x, y], [u, v])
    >>> certify_discrete_noether(vi, [-y, x]).holds
    True
    >>> certify_discrete_noether(vi, [1, 0]).holds          # translations are no symmetry of Kepler
    False
    """
    _require(vi, "certify_discrete_noether")
    xi = _symmetry(vi, xi)
    n = len(vi.q)
    J = discrete_momentum(vi, xi)
    invariance = _certify_invariance(vi, xi)
    conservation = certify_conserves(vi.step_map, J)
    verdicts = (invariance.holds, conservation.holds)
    holds = False if False in verdicts else (True if verdicts == (True, True) else None)
    failed = invariance if invariance.holds is False else conservation
    D = Derivation(r"Discrete Noether theorem (Marsden \& West 2001, Thm.~1.3.3)")
    D = D.add(r"The symmetry is $\xi = " + latex(sympy.Matrix(xi)) + r"$ and the discrete momentum $J = p\cdot\xi(q) = "
              + latex(J) + "$.")
    D = Derivation(D.title, D.steps + invariance.derivation.steps + conservation.derivation.steps,
                   r"Invariance: " + str(invariance.holds) + r"; conservation of $J$: " + str(conservation.holds) + ".")
    return Certificate(claim=f"L_d invariant under xi = {list(xi)} and p . xi conserved ({vi.rule.name}, n={n})",
                       holds=holds, method=f"invariance: {invariance.method}; conservation: {conservation.method}",
                       stage=failed.stage if holds is False else conservation.stage,
                       residual={"invariance": invariance.residual, "conservation": conservation.residual},
                       counterexample=failed.counterexample if holds is False else None, derivation=D,
                       witness=J if holds else None)


def _certify_invariance(vi, xi):
    q, h = vi.q, vi.step
    D = Derivation("Invariance of the discrete action")
    if not vi.bubble_unknowns:
        taken = set(q) | set(vi.qdot) | set(vi.p) | vi.lagrangian.free_symbols | {h}
        x = tuple(_fresh(f"{{{latex(c)}}}^{{(0)}}", taken) for c in q)
        y = tuple(_fresh(f"{{{latex(c)}}}^{{(1)}}", taken) for c in q)
        Ld = vi.discrete_lagrangian(list(x), list(y))
        xi0 = [e.subs(dict(zip(q, x)), simultaneous=True) for e in xi]
        xi1 = [e.subs(dict(zip(q, y)), simultaneous=True) for e in xi]
        residual = [sum(diff(Ld, a) * e for a, e in zip(x, xi0)) + sum(diff(Ld, b) * e for b, e in zip(y, xi1))]
        D = D.add(r"$\frac{d}{d\epsilon}L_d(e^{\epsilon\xi}q_0, e^{\epsilon\xi}q_1)|_0 = D_1L_d\cdot\xi(q_0) + "
                  r"D_2L_d\cdot\xi(q_1)$ must vanish identically:", summarize(residual[0]))
        if vi.forcing:
            work = 0
            for c, w in zip(vi.rule.nodes, vi.rule.weights):
                at = {**{qi: a + c * (b - a) for qi, a, b in zip(q, x, y)},
                      **{v: (b - a) / h for v, a, b in zip(vi.qdot, x, y)}}
                # virtual work of f_d^- . xi(q0) + f_d^+ . xi(q1) (the quadrature's forces)
                work += w * sum(f.subs(at, simultaneous=True) * ((1 - c) * e0 + c * e1)
                                for f, e0, e1 in zip(vi.forcing, xi0, xi1))
            residual.append(work)
    else:
        A = sympy.Matrix([[diff(e, c) for c in q] for e in xi])
        if any(a.free_symbols & set(q) for a in A):
            raise InvalidArgumentError(
                f"certify_discrete_noether: the {vi.rule.name} rule has interior points; only an affine symmetry"
                f" xi(q) = A q + c maps its Galerkin curves to Galerkin curves, and {list(xi)} is not affine")
        d = vi.rule.degree
        n = len(q)
        Z = [vi.bubble_unknowns[k * n:(k + 1) * n] for k in range(d - 1)]
        V = vi.velocity_unknowns
        L_q = [diff(vi.lagrangian, c) for c in q]
        L_v = vi.legendre.momentum
        total, work = 0, 0
        for c, w in zip(vi.rule.nodes, vi.rule.weights):
            pos = [x + h * c * Vx + h * sum((c**(k + 1) * (1 - c) * Z[k][i] for k in range(d - 1)), sympy.S.Zero)
                   for i, (x, Vx) in enumerate(zip(q, V))]
            vel = [Vx + sum((((k + 1) * c**k - (k + 2) * c**(k + 1)) * Z[k][i] for k in range(d - 1)), sympy.S.Zero)
                   for i, Vx in enumerate(V)]
            at = {**dict(zip(q, pos)), **dict(zip(vi.qdot, vel))}
            xi_at = [e.subs(dict(zip(q, pos)), simultaneous=True) for e in xi]
            Av = A * sympy.Matrix(vel)
            total += w * (sum(substitute(a, at) * e for a, e in zip(L_q, xi_at))
                          + sum(substitute(b, at) * e for b, e in zip(L_v, Av)))
            if vi.forcing:
                work += w * sum(substitute(f, at) * e for f, e in zip(vi.forcing, xi_at))
        residual = [total] + ([work] if vi.forcing else [])
        D = D.add(r"With $\xi(q) = Aq + c$ the flow acts on the curves by $q_0 \mapsto e^{\epsilon\xi}q_0$, "
                  r"$V\mapsto e^{\epsilon A}V$, $Z_k\mapsto e^{\epsilon A}Z_k$; the derivative of the quadrature action "
                  r"$\sum_i b_i\left(L_q\cdot\xi(q_i) + L_{\dot q}\cdot A v_i\right)$ must vanish identically:",
                  summarize(total))
    decision = decide_all_zero(residual, budget=10.0)
    return Certificate.from_decision("the discrete action is invariant under xi (and f does no work along xi)",
                                     decision, residual=residual, derivation=D)
