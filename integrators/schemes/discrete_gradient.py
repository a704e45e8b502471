r"""Discrete-gradient schemes: average vector field, Gonzalez, Itoh-Abe (energy-preserving, any H).

For a Hamiltonian system ``y' = J grad H(y)`` (``J`` canonical) and a discrete gradient
``gbar(u, v)`` of H (``H(u) - H(v) = gbar(u, v).(u - v)``, ``gbar(u, u) = grad H(u)``) the scheme

.. math::  y' = y + h\,J\,\bar g(y', y)

conserves H exactly: ``H(y') - H(y) = gbar.(y' - y) = h gbar^T J gbar = 0``.  The three
classical gradients are those of :mod:`geomcheck.certify.discrete_gradients` (reused here,
and :meth:`DiscreteGradientScheme.certify_gradient` certifies the one a scheme builds):

``average-vector-field``  ``int_0^1 grad H(v + s (u - v)) ds``; order 2, symmetric.
``gonzalez``              ``grad H(m) + (H(u) - H(v) - grad H(m).(u - v)) / |u - v|^2 (u - v)``,
                          ``m = (u + v)/2``; order 2, symmetric.
``itoh-abe``              coordinate increments ``(H(u_1..u_i, v_{i+1}..) - H(u_1..u_{i-1}, v_i..)) / (u_i - v_i)``;
                          order 1 (not symmetric: the coordinates are taken in order).  On a
                          separable H with one degree of freedom it IS the average vector field
                          (order 2, symmetric): its test systems are non-separable.

The step as one map
-------------------
The step is an :class:`~integrators.schemes.stages.StageMap` with the increment ``w`` as
auxiliary unknowns: ``Y = y + h w``, ``w = J gbar(y + h w, y)``.  (Newton's method then solves
for ``w``, whose equations have the identity as Jacobian at ``h = 0``, and the increment ``h w``
is what the divided differences need: accurate, where ``(y + h w) - y`` would not be.)  The
guess is ``w = J grad H(y)`` (the exact gradient), ``Y = y``.

The divided differences ``(f(a) - f(b)) / (a - b)`` and Gonzalez' correction are quotients with
a removable singularity (:mod:`integrators.schemes.quotients`).  The map's equations contain
them *exactly*: that is what :meth:`Scheme.certify` certifies (energy preserved, symmetry),
on the generic ``H = p^2/2 + V(q)`` and on any concrete system.  The lowered code evaluates the
same function by the quotient's evaluation rule (:attr:`DiscreteGradientMap.evaluation_equations`):
the exact quotient away from coincidence, its own Taylor series where that is more accurate,
so that equilibria, turning points ``p = 0`` and Newton's first iterate give finite, accurate
values (no ``0/0``, no cancellation); the tests hold the rule against the exact quotient at 60
digits near coincidence.  The order is certified on the map with each quotient replaced by its
Taylor series in the increment (:meth:`DiscreteGradientMap.expansion`): the truncation changes
the equations by ``O(h^(2 count))`` uniformly (the increment is ``h w``), so the step's Taylor
coefficients in h agree up to that order; the exact quotient has no expansion at ``h = 0``
(it is ``0/0`` there).

The average vector field in closed form
---------------------------------------
The integral ``int_0^1 grad H(v + s (u - v)) ds`` is computed exactly, term by term of H: a
polynomial term by :func:`geomcheck.certify.discrete_gradients.avf_gradient` (exact
integration), a term ``T = f(c.x)`` that depends on the coordinates through ONE linear
combination (``V(q)``, ``-cos(q1 - q2)``) as ``c (T(u) - T(v)) / (c.u - c.v)`` (the
fundamental theorem of calculus along the segment).  Any other term has in general no closed
form: the scheme then refuses the system (:class:`~integrators.errors.SchemeNotApplicableError`
naming the term) and suggests ``gonzalez`` or ``itoh-abe``, which are exact discrete gradients
for every H.  A quadrature rule would be a different scheme (energy-preserving only where it is
exact), so none is used under the name AVF.  (:meth:`DiscreteGradientScheme.certify_gradient`
proves such a term's quotient a discrete gradient when ``c`` picks one coordinate; for
``c.u - c.v`` over several coordinates geomcheck's consistency test does not decide the limit
``v -> u`` and answers None.)

>>> import sympy, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> V = sympy.Function("V")
>>> s = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
>>> avf = ig.scheme("average-vector-field")
>>> {k: c.holds for k, c in avf.certify(s).items()}
{'order': True, 'energy-preserving': True, 'symmetric': True}
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.discrete_gradients import avf_gradient, certify_discrete_gradient
from geomcheck.maps import substitute

from ..errors import SchemeNotApplicableError
from ..systems import STEP_SYMBOL, HamiltonianSystem
from .base import Scheme
from .quotients import TAYLOR_TERMS, Magnitude, Quotient, divided_difference, gonzalez_quotient
from .stages import StageMap, stage_parameters

__all__ = ["DiscreteGradientScheme", "DiscreteGradient", "DiscreteGradientMap", "discrete_gradient",
           "avf_closed_form", "certify_order_by_expansion", "expansion_count", "GRADIENTS"]

#: the discrete gradients: name -> (order, properties) of the scheme y' = y + h J gbar
GRADIENTS = {
    "average-vector-field": (2, frozenset({"energy-preserving", "symmetric"})),
    "gonzalez": (2, frozenset({"energy-preserving", "symmetric"})),
    "itoh-abe": (1, frozenset({"energy-preserving"})),
}


# --------------------------------------------------------------------------- the gradient


@dataclass(frozen=True)
class DiscreteGradient:
    """A discrete gradient at ``u = y + h w``, ``v = y``: components with placeholders for its quotients.

    Attributes
    ----------
    kind : str               a key of :data:`GRADIENTS`
    template : tuple         components; ``quotients``' keys stand for the singular quotients
    quotients : dict         ``{placeholder: Quotient}``
    """

    kind: str
    template: tuple
    quotients: dict

    def _form(self, values):
        return tuple(c.xreplace(values) for c in self.template)

    def exact(self) -> tuple:
        """The components with each quotient as ``N / D`` (the definition)."""
        return self._form({P: Q.exact for P, Q in self.quotients.items()})

    def evaluation(self) -> tuple:
        """The components with each quotient's guarded evaluation rule (what is lowered)."""
        return self._form({P: Q.evaluation() for P, Q in self.quotients.items()})

    def expansion(self, count: int) -> tuple:
        """The components with each quotient's first ``count`` Taylor terms (for the order)."""
        return self._form({P: Q.expansion(count) for P, Q in self.quotients.items()})


def _terms(H):
    """The additive terms of H (products expanded, exponentials and logs left alone)."""
    e = sympy.expand(H, power_exp=False, power_base=False, log=False)
    return sympy.Add.make_args(e)


def _linear_form(T, x):
    """``c`` (a tuple, first nonzero entry 1) when T depends on x only through ``c.x``, else None."""
    xs = [xi for xi in x if T.has(xi)]
    if len(xs) == 1:
        return tuple(sympy.S.One if xi == xs[0] else sympy.S.Zero for xi in x)
    pivot = diff(T, xs[0])
    if pivot == 0:
        return None
    c = []
    for xi in x:
        if xi not in xs:
            c.append(sympy.S.Zero)
            continue
        r = sympy.cancel(sympy.together(diff(T, xi) / pivot))
        if r.free_symbols & set(x) or r.has(sympy.core.function.AppliedUndef) or not r.is_number:
            return None
        c.append(r)
    return tuple(c)


def avf_closed_form(H, x):
    """``(polynomial part, {c: terms of f(c.x)})`` of H, or the reason why the AVF has no closed form.

    Returns
    -------
    tuple ``(P, groups)`` or a str (the reason, naming the term).

    Examples
    --------
    >>> import sympy
    >>> q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    >>> P, groups = avf_closed_form((p1**2 + p2**2) / 2 - sympy.cos(q1) - sympy.cos(q1 - q2), [q1, q2, p1, p2])
    >>> P, sorted(groups.values(), key=str)
    (p1**2/2 + p2**2/2, [-cos(q1 - q2), -cos(q1)])
    >>> print(avf_closed_form(p1**2 * sympy.cos(q1), [q1, p1]))
    the term p1**2*cos(q1) depends on q1, p1 not through one linear combination of them
    """
    H = sympy.sympify(H)
    x = list(x)
    poly, groups = sympy.S.Zero, {}
    for T in _terms(H):
        if not T.has(*x):
            continue
        if T.is_polynomial(*x):
            poly += T
            continue
        c = _linear_form(T, x)
        if c is None:
            names = ", ".join(str(xi) for xi in x if T.has(xi))
            return f"the term {T} depends on {names} not through one linear combination of them"
        groups[c] = groups.get(c, sympy.S.Zero) + T
    return poly, groups


def discrete_gradient(kind, H, x, y, w, h) -> DiscreteGradient:
    """The discrete gradient ``kind`` of H at ``u = y + h w`` and ``v = y``.

    Parameters
    ----------
    kind : a key of :data:`GRADIENTS`
    H : sympy expression in the symbols ``x``
    x : sequence of Symbol (the variables of H)
    y, w : sequences of expressions (the old point and the increment direction)
    h : expression (the step; pass 1 and ``w = u - v`` for the gradient at two points)

    Raises
    ------
    SchemeNotApplicableError
        The average vector field of an H without a closed form (see the module docstring).

    Examples
    --------
    >>> import sympy
    >>> q, p, u1, u2, v1, v2 = sympy.symbols("q p u1 u2 v1 v2")
    >>> g = discrete_gradient("itoh-abe", q**2 * p, [q, p], [v1, v2], [u1 - v1, u2 - v2], 1)
    >>> [sympy.factor(c) for c in g.exact()]
    [v2*(u1 + v1), u1**2]
    """
    if kind not in GRADIENTS:
        raise ValueError(f"unknown discrete gradient {kind!r}; known: {', '.join(GRADIENTS)}")
    H = sympy.sympify(H)
    x, y, w = list(x), list(y), list(w)
    n = len(x)
    u = [yi + h * wi for yi, wi in zip(y, w)]
    quotients = {}

    def placeholder(Q: Quotient):
        if Q.exact_series:       # a polynomial: no singularity, no placeholder
            return Q.exact
        P = sympy.Dummy(f"g{len(quotients) + 1}")
        quotients[P] = Q
        return P

    xi = sympy.Dummy("xi")
    if kind == "average-vector-field":
        closed = avf_closed_form(H, x)
        if isinstance(closed, str):
            raise SchemeNotApplicableError(
                f"average-vector-field: int_0^1 grad H(y + s (y' - y)) ds has no closed form for H = {H}:"
                f" {closed}; use gonzalez or itoh-abe (exact discrete gradients for every H)")
        poly, groups = closed
        U = [sympy.Dummy(f"u{i}") for i in range(n)]
        Vv = [sympy.Dummy(f"v{i}") for i in range(n)]
        comps = [sympy.S.Zero] * n
        if poly != 0:
            g = avf_gradient(poly, x, U, Vv, evaluate=True)
            at = {**dict(zip(U, u)), **dict(zip(Vv, y))}
            comps = [substitute(gi, at) for gi in g]
        for c, T in groups.items():
            j = next(i for i, ci in enumerate(c) if ci != 0)
            # f(xi) = T on the line through y where c.x = xi (T depends on c.x only)
            shift = sympy.Add(*[ci * yi for i, (ci, yi) in enumerate(zip(c, y)) if i != j])
            f = substitute(T, {**dict(zip(x, y)), x[j]: xi - shift})
            a, b = sympy.Add(*[ci * ui for ci, ui in zip(c, u)]), sympy.Add(*[ci * yi for ci, yi in zip(c, y)])
            Q = divided_difference(f, xi, a, b, h * sympy.Add(*[ci * wi for ci, wi in zip(c, w)]))
            Tu, Tv = substitute(T, dict(zip(x, u))), substitute(T, dict(zip(x, y)))
            if not Q.exact_series:   # the numerator as T itself at the two points (the same values)
                Q = replace(Q, numerator=Tu - Tv, scale=Magnitude(Tu) + Magnitude(Tv))
            P = placeholder(Q)
            comps = [ci_comp + ci * P for ci_comp, ci in zip(comps, c)]
        return DiscreteGradient(kind, tuple(comps), quotients)
    if kind == "gonzalez":
        m = [yi + h * wi / 2 for yi, wi in zip(y, w)]
        grad_m = [substitute(diff(H, xi_), dict(zip(x, m))) for xi_ in x]
        Q = gonzalez_quotient(H, x, y, w, h)
        P = placeholder(Q)
        return DiscreteGradient(kind, tuple(g + P * h * wi for g, wi in zip(grad_m, w)), quotients)
    # itoh-abe: coordinate i varies between v_i and u_i, the earlier ones at u, the later ones at v
    terms = _terms(H)
    comps = []
    for i in range(n):
        point = {**dict(zip(x[:i], u[:i])), **dict(zip(x[i + 1:], y[i + 1:]))}
        mine = [T for T in terms if T.has(x[i])]
        poly = sympy.Add(*[T for T in mine if T.is_polynomial(x[i])])
        rest = sympy.Add(*[T for T in mine if not T.is_polynomial(x[i])])
        comp = sympy.S.Zero
        for part in (poly, rest):
            if part != 0:
                f = substitute(part, {**point, x[i]: xi})
                comp += placeholder(divided_difference(f, xi, u[i], y[i], h * w[i]))
        comps.append(comp)
    return DiscreteGradient(kind, tuple(comps), quotients)


# --------------------------------------------------------------------------- the map


class DiscreteGradientMap(StageMap):
    """A step map whose equations contain singular quotients, with their evaluation and expansion forms.

    Parameters
    ----------
    source, target, new, auxiliary, parameters, guess, step : as for :class:`StageMap`
    template : sequence of expressions
        The equations with placeholders for the quotients.
    quotients : dict ``{placeholder: Quotient}``

    Attributes
    ----------
    equations : the exact equations (quotients ``N / D``): certified
    evaluation_equations : the same with each quotient's evaluation rule: lowered
        (:func:`integrators.lower.lower` uses them in place of ``equations``)
    """

    def __init__(self, source, target, template, quotients, **options):
        self.template = tuple(template)
        self.quotients = dict(quotients)
        exact = {P: Q.exact for P, Q in self.quotients.items()}
        self._options = dict(options)
        self._evaluation = None
        super().__init__(source, target, [e.xreplace(exact) for e in self.template], derivatives="implicit",
                         **options)

    @property
    def evaluation_equations(self) -> tuple:
        """The equations with each quotient's guarded evaluation rule (no 0/0, no cancellation)."""
        if self._evaluation is None:
            rule = {P: Q.evaluation() for P, Q in self.quotients.items()}
            self._evaluation = tuple(e.xreplace(rule) for e in self.template)
        return self._evaluation

    def expansion(self, count: int) -> StageMap:
        """The map with each quotient replaced by its first ``count`` Taylor terms (see the module docstring)."""
        memo = self.__dict__.setdefault("_expansions", {})
        if count not in memo:
            series = {P: Q.expansion(count) for P, Q in self.quotients.items()}
            memo[count] = StageMap(self.source, self.target, [e.xreplace(series) for e in self.template],
                                   **self._options)
        return memo[count]


def expansion_count(order: int) -> int:
    """Taylor terms of each quotient that leave the step's Taylor coefficients up to h^(order+1) exact."""
    return min(order // 2 + 1, TAYLOR_TERMS)


def certify_order_by_expansion(phi, X, h, order: int) -> Certificate:
    """``gc.certify_order`` on the expansion of a :class:`DiscreteGradientMap` (plain maps: unchanged)."""
    if not isinstance(phi, DiscreteGradientMap) or not phi.quotients:
        return gc.certify_order(phi, X, h, order)
    count = expansion_count(order)
    cert = gc.certify_order(phi.expansion(count), X, h, order)
    why = (f"on the step with each removable-singularity quotient replaced by its first {count} Taylor terms in"
           f" the increment h w (a change of the increment equations by O(h^{2 * count}), so of the step by"
           f" O(h^{2 * count + 1}): its Taylor coefficients up to h^{2 * count} are unchanged): ")
    D = cert.derivation.add("The quotients of the discrete gradient (0/0 at h = 0) are replaced by their first "
                            f"{count} Taylor terms in the increment; the step changes by $O(h^{{{2 * count + 1}}})$, so the "
                            "Taylor coefficients compared here are those of the exact step.")
    return replace(cert, method=why + cert.method, derivation=D)


def increment_step(system, Y, w, rhs, quotients) -> DiscreteGradientMap:
    """The step ``Y = y + h w``, ``w = rhs`` (a discrete-gradient field in y and w) as one map.

    The Newton guess is ``Y = y``, ``w = X(y)`` (the vector field at the old state).
    """
    h = STEP_SYMBOL
    y = list(system.coords)
    template = [Yi - yi - h * wi for Yi, yi, wi in zip(Y, y, w)] + [wi - r for wi, r in zip(w, rhs)]
    X = system.vector_field
    guess = {**dict(zip(Y, y)), **{wi: X.component(c) for wi, c in zip(w, y)}}
    return DiscreteGradientMap(system.chart, system.chart, template, quotients, new=Y, auxiliary=w,
                               parameters=stage_parameters(system), guess=guess, step=h)


def order_by_expansion(scheme, phi, system):
    """The order certificate of a discrete-gradient step (None on a time-dependent system)."""
    if system.time is not None:
        return None
    return certify_order_by_expansion(phi, system.vector_field, scheme.h, int(scheme.order))


class GradientStepScheme(Scheme):
    """A scheme whose step is built from the discrete gradient ``self.gradient``: its order is
    observed on the step's expansion, and two such schemes are equal when their gradients are."""

    def observed_order(self, system, max_order=None):
        phi = self.step_map(system)
        top = max_order or int(self.order) + 1
        return gc.map_order(phi.expansion(expansion_count(top)), system.vector_field, self.h, top)

    def __eq__(self, other):
        return type(other) is type(self) and other.gradient == self.gradient

    def __hash__(self):
        return hash((type(self).__name__, self.gradient))

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"


class DiscreteGradientScheme(GradientStepScheme):
    """``y' = y + h J gbar(y', y)`` with the discrete gradient ``gradient`` (see the module docstring).

    Parameters
    ----------
    gradient : "average-vector-field", "gonzalez" or "itoh-abe"

    Examples
    --------
    >>> import sympy, numpy as np, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    >>> sol = ig.integrate(pendulum, "gonzalez", [[0.0, 0.0], [3.0, 0.0]], dt=0.5, steps=400, save_every=400)
    >>> bool(np.abs(sol.energy() - sol.energy()[0]).max() < 1e-13)     # conserved; the equilibrium stays put
    True
    >>> sol.y[-1, 0].tolist()
    [0.0, 0.0]
    """

    requires = frozenset({"hamiltonian"})

    def __init__(self, gradient="average-vector-field"):
        if gradient not in GRADIENTS:
            raise ValueError(f"DiscreteGradientScheme: gradient must be one of {', '.join(GRADIENTS)}, got {gradient!r}")
        self.gradient = gradient
        self.name = gradient
        self.order, self.properties = GRADIENTS[gradient]
        self.description = {
            "average-vector-field": "average vector field: y' = y + h J int_0^1 grad H(y + s (y' - y)) ds",
            "gonzalez": "Gonzalez' midpoint discrete gradient",
            "itoh-abe": "Itoh-Abe coordinate-increment discrete gradient",
        }[gradient]

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and not isinstance(system, HamiltonianSystem):
            reason = (f"{self.name} is built from a Hamiltonian H; {system!r} is not a HamiltonianSystem"
                      " (its vector field is not Hamiltonian)")
        if reason is None and self.gradient == "average-vector-field":
            closed = avf_closed_form(system.H, system.coords)
            if isinstance(closed, str):
                reason = (f"int_0^1 grad H(y + s (y' - y)) ds has no closed form for H = {system.H}: {closed};"
                          " use gonzalez or itoh-abe (exact discrete gradients for every H)")
        return reason

    def gradient_of(self, system, y, w, h) -> DiscreteGradient:
        return discrete_gradient(self.gradient, system.H, system.coords, y, w, h)

    def _build(self, system):
        h = STEP_SYMBOL
        y = list(system.coords)
        n = len(system.q)
        w = [sympy.Dummy(f"w_{c.name}") for c in y]
        Y = [sympy.Dummy(f"{c.name}'") for c in y]
        g = self.gradient_of(system, y, w, h)
        Jg = list(g.template[n:]) + [-c for c in g.template[:n]]     # J = [[0, I], [-I, 0]]
        return increment_step(system, Y, w, Jg, g.quotients)

    def _certify_one(self, prop, phi, system):
        if prop == "order":
            return order_by_expansion(self, phi, system)
        return super()._certify_one(prop, phi, system)

    def certify_gradient(self, system) -> Certificate:
        """Certify that the scheme's ``gbar`` is a discrete gradient of H (geomcheck's certificate).

        The gradient is taken at two independent points ``u``, ``v`` (the exact quotients) and
        passed to :func:`geomcheck.certify.discrete_gradients.certify_discrete_gradient`.

        Examples
        --------
        >>> import sympy, integrators as ig
        >>> q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
        >>> s = ig.HamiltonianSystem((p1**2 + p2**2) / 2 + q1**2 * q2**2 / 2, [q1, q2], [p1, p2])
        >>> ig.scheme("itoh-abe").certify_gradient(s).holds
        True
        """
        self.check_applies(system)
        x = list(system.coords)
        u = [sympy.Dummy(f"u_{c.name}") for c in x]
        v = [sympy.Dummy(f"v_{c.name}") for c in x]
        g = self.gradient_of(system, v, [ui - vi for ui, vi in zip(u, v)], sympy.S.One).exact()
        return certify_discrete_gradient(g, system.H, u, v, x=x)
