r"""The discrete-gradient scheme of port-Hamiltonian systems (energy balance certified).

For a :class:`~integrators.PortHamiltonianSystem` ``x' = (J - R) grad H + g u``,
:class:`PortHamiltonianDiscreteGradient` (catalog name ``port-hamiltonian-avf`` for the average
vector field) is the step

.. math::  x' = x + h\,(J - R)(\bar x)\,\bar g + h\, g(\bar x)\, u(t_n + h/2, \bar x),
           \qquad \bar x = (x + x')/2,

with ``gbar`` the average-vector-field discrete gradient of H (closed form: see
:mod:`integrators.schemes.discrete_gradient`), or Gonzalez' or Itoh-Abe's
(``PortHamiltonianDiscreteGradient("gonzalez")``: any H).  Its property ``"energy-balance"`` is the
discrete power balance

.. math::  H(x') - H(x) = -h\,\bar g^{T} R(\bar x)\,\bar g + h\,\bar g^{T} g(\bar x)\, u,

certified on the solution manifold of the step (exactly the step that is lowered and run);
it follows from the discrete chain rule ``H(x') - H(x) = gbar.(x' - x)`` and the skewness of J.
With the average vector field or Gonzalez' gradient the scheme is symmetric (midpoint
evaluations, a symmetric gradient) and of order 2; with Itoh-Abe's of order 1.

>>> import sympy, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, 1]], p**2 / 2 + q**2 / 2, [q, p])
>>> ig.scheme("port-hamiltonian-avf").certify(S, ["energy-balance"])["energy-balance"].holds
True
"""

from __future__ import annotations

import sympy

from geomcheck.certify.certificate import Certificate
from geomcheck.latex import Derivation, summarize
from geomcheck.maps import substitute
from geomcheck.zero import decide_zero

from ..systems import STEP_SYMBOL
from .discrete_gradient import (GRADIENTS, GradientStepScheme, avf_closed_form, discrete_gradient, increment_step,
                                order_by_expansion)

__all__ = ["PortHamiltonianDiscreteGradient"]


_NAMES = {"average-vector-field": "port-hamiltonian-avf", "gonzalez": "port-hamiltonian-gonzalez",
          "itoh-abe": "port-hamiltonian-itoh-abe"}


class PortHamiltonianDiscreteGradient(GradientStepScheme):
    """The discrete-gradient scheme of a port-Hamiltonian system (see the module docstring).

    Parameters
    ----------
    gradient : "average-vector-field" (default), "gonzalez" or "itoh-abe"

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> from integrators.schemes.port_hamiltonian import PortHamiltonianDiscreteGradient
    >>> q, p = sympy.symbols("q p")
    >>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, 1]], p**2 * (2 + sympy.cos(q)) / 2, [q, p])
    >>> ig.scheme("port-hamiltonian-avf").why_not(S) is not None        # no closed-form AVF
    True
    >>> PortHamiltonianDiscreteGradient("gonzalez").certify(S, ["energy-balance"])["energy-balance"].holds
    True
    """

    requires = frozenset({"port-hamiltonian"})

    def __init__(self, gradient="average-vector-field"):
        if gradient not in GRADIENTS:
            raise ValueError(f"PortHamiltonianDiscreteGradient: gradient must be one of {', '.join(GRADIENTS)},"
                             f" got {gradient!r}")
        self.gradient = gradient
        self.name = _NAMES[gradient]
        order, props = GRADIENTS[gradient]
        self.order = order
        self.properties = frozenset({"energy-balance"} | (props & {"symmetric"}))
        self.description = (f"x' = x + h (J - R)(xbar) gbar + h g(xbar) u(t + h/2, xbar), gbar the {gradient}"
                            " discrete gradient: the discrete power balance")

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and self.gradient == "average-vector-field":
            closed = avf_closed_form(system.H, system.coords)
            if isinstance(closed, str):
                reason = (f"int_0^1 grad H(x + s (x' - x)) ds has no closed form for H = {system.H}: {closed};"
                          ' use PortHamiltonianDiscreteGradient("gonzalez") (an exact discrete gradient for every H)')
        return reason

    def _parts(self, system):
        """(gradient, w, Y, midpoint substitution, R(xbar), g(xbar) u) for ``system`` (cached)."""
        memo = self.__dict__.setdefault("_parts_memo", {})
        hit = memo.get(system)
        if hit is None:
            h = STEP_SYMBOL
            y = list(system.coords)
            w = [sympy.Dummy(f"w_{c.name}") for c in y]
            Y = [sympy.Dummy(f"{c.name}'") for c in y]
            grad = discrete_gradient(self.gradient, system.H, y, y, w, h)
            mid = {c: c + h * wi / 2 for c, wi in zip(y, w)}
            at = dict(mid)
            if system.time is not None:
                at[system.time] = system.time + h / 2
            Rm = system.R.applyfunc(lambda e: substitute(e, mid))
            JRm = (system.J - system.R).applyfunc(lambda e: substitute(e, mid))
            Gu = sympy.zeros(len(y), 1)
            if system.inputs:
                Gm = system.g.applyfunc(lambda e: substitute(e, mid))
                Gu = Gm * sympy.Matrix([substitute(v, at) for v in system.inputs])
            hit = memo[system] = (grad, w, Y, JRm, Rm, Gu)
        return hit

    def _build(self, system):
        grad, w, Y, JRm, Rm, Gu = self._parts(system)
        return increment_step(system, Y, w, list(JRm * sympy.Matrix(grad.template) + Gu), grad.quotients)

    def _certify_one(self, prop, phi, system):
        if prop == "order":
            return order_by_expansion(self, phi, system)
        if prop == "energy-balance":
            return self.certify_energy_balance(system)
        return super()._certify_one(prop, phi, system)

    def discrete_balance(self, system, form="exact"):
        """``(dissipated, supplied, w)``: ``h gbar^T R(xbar) gbar`` and ``h gbar^T g(xbar) u`` of one step.

        In the state ``x``, the increment ``w = (x' - x)/h`` (the returned Dummies), ``h`` and the
        time; ``form="evaluation"`` with the quotients' evaluation rule (to lower them), else exact.

        Examples
        --------
        >>> import sympy, integrators as ig
        >>> q, p, c = sympy.symbols("q p c")
        >>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], (q**2 + p**2) / 2, [q, p])
        >>> dissipated, supplied, (wq, wp) = ig.scheme("port-hamiltonian-avf").discrete_balance(S)
        >>> W = sympy.Symbol("W")
        >>> sympy.factor(dissipated.subs(wp, W)), supplied
        (c*h*(W*h + 2*p)**2/4, 0)
        """
        if form not in ("exact", "evaluation"):
            raise ValueError(f"form must be 'exact' or 'evaluation', got {form!r}")
        self.check_applies(system)
        grad, w, Y, JRm, Rm, Gu = self._parts(system)
        gbar = sympy.Matrix(grad.exact() if form == "exact" else grad.evaluation())
        h = self.h
        return h * (gbar.T * Rm * gbar)[0], h * (gbar.T * Gu)[0], tuple(w)

    def certify_energy_balance(self, system) -> Certificate:
        """``H(x') - H(x) = -h gbar^T R(xbar) gbar + h gbar^T g(xbar) u`` on the step's solutions."""
        phi = self.step_map(system)
        grad, w, Y, JRm, Rm, Gu = self._parts(system)
        gbar = sympy.Matrix(grad.exact())
        y = list(system.coords)
        change = substitute(system.H, dict(zip(y, Y))) - system.H
        dissipated, supplied, _ = self.discrete_balance(system)
        residual = change + dissipated - supplied
        decision = decide_zero(residual, relations=(phi.dependence.relation,))
        D = Derivation(r"Discrete power balance of the port-Hamiltonian discrete-gradient step")
        D = D.add(r"The step is $x' = x + h w$ with $w = (J - R)(\bar x)\,\bar g + g(\bar x)\,u$, "
                  r"$\bar x = (x + x')/2$, and the discrete gradient (" + self.gradient + ")",
                  r"\bar g &= " + summarize(gbar))
        D = D.add(r"By the discrete chain rule $H(x') - H(x) = \bar g^{T}(x' - x) = h\,\bar g^{T} w$, and "
                  r"$\bar g^{T} J \bar g = 0$ ($J$ skew), so it must hold that",
                  r"H(x') - H(x) &= -h\,\bar g^{T} R(\bar x)\,\bar g + h\,\bar g^{T} g(\bar x)\,u.")
        D = D.add(r"The residual $H(x') - H(x) + h\,\bar g^{T} R \bar g - h\,\bar g^{T} g u$ on the solutions of the"
                  r" step equations is decided by the zero test: " + {True: "it vanishes", False: "it does not vanish",
                                                                       None: "undecided"}[decision.is_zero] + ".")
        claim = "H(x') - H(x) == -h gbar^T R(xbar) gbar + h gbar^T g(xbar) u"
        return Certificate.from_decision(claim, decision, residual=residual, derivation=D)
