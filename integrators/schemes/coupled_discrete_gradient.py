r"""The energy-preserving (and dissipating) schemes of Komatsu, Terakawa & Yaguchi 2020, eqs. (61)/(82).

For a coupled natural system (:class:`integrators.CoupledNaturalSystem`) and a discrete gradient
``g`` of each potential, the scheme is

    (u^+ - u)/h = A v,                         A v = (v^+ + v)/2,
    M_1 (v_1^+ - v_1)/h = -g_1(u_1^+, u_1) - G_1 A v_1 + f eps_1,
    M_2 (v_2^+ - v_2)/h = -g_2(u_2^+, u_2) - G_2 A v_2 - f eps_2,

with the force ``f^{n+1/2}`` derived so that the contact-velocity mismatch ``c`` does not change
over a step.  The scheme is :func:`geomcheck.structures.discrete_gradient_scheme` -- the one
definition; the step map here is its equations, each multiplied by ``h`` (the same solution set for
``h != 0``; without the factor the equations are singular at ``h = 0``, where the order and the
symmetry certificates expand the map), on the system's chart ``(u_1, u_2, v_1, v_2)`` (the
natural system orders its chart ``(u_1, v_1, u_2, v_2)``; the equations are the same).

Catalog entries (:mod:`integrators.catalog`):

``coupled-avf``       the average-vector-field gradient (eq. 56; Section 5): symmetric, order 2.
``coupled-itoh-abe``  the Itoh-Abe (coordinate increment) gradient: not symmetric, order 1 (the
                      paper, Section 4: "otherwise, the scheme is first-order accurate").

Properties: ``"energy-balance"`` is Theorems 4/6, ``(E^{n+1} - E^n)/h = -D^n`` on the invariant set
``c = 0``, certified by :func:`geomcheck.structures.certify_discrete_energy_balance` on the very
:class:`~geomcheck.structures.DiscreteGradientScheme` whose equations are the step map;
``"symmetric"`` and the order by the generic map certificates.

The AVF gradient of a polynomial potential is exact; of any other potential it stays an
unevaluated integral (certified by the fundamental theorem of calculus, but not lowerable: such
systems are refused by ``integrate`` with NotLowerableError).  The Itoh-Abe gradient is a quotient
of differences; for polynomial potentials it is cancelled to a polynomial (so the step is defined at
``u^+ = u``, where Newton's method starts); for others it is kept as printed, and the lowered step
meets 0/0 there.

>>> import sympy, integrators as ig
>>> from geomcheck.structures import natural_system, couple
>>> g = sympy.Symbol("gamma", positive=True)
>>> s = ig.CoupledNaturalSystem(couple(natural_system(1, lambda u: u[0]**4 / 4, name="1", damping=g),
...                                    natural_system(1, lambda u: u[0]**2 / 2, name="2"), 0, 0))
>>> avf = ig.scheme("coupled-avf")
>>> avf.order, sorted(avf.properties)
(2, ['energy-balance', 'symmetric'])
>>> avf.certify(s, properties=["energy-balance"])["energy-balance"].holds
True
"""

from __future__ import annotations

import sympy

from geomcheck.certify.discrete_gradients import avf_gradient, itoh_abe_gradient
from geomcheck.structures import certify_discrete_energy_balance, discrete_gradient_scheme

from .base import Scheme
from .stages import StageMap, stage_parameters

__all__ = ["CoupledDiscreteGradient", "cancelled_itoh_abe_gradient"]


def cancelled_itoh_abe_gradient(V, x, u, v):
    """The Itoh-Abe gradient with each quotient cancelled when it is a polynomial (defined at u = v).

    >>> import sympy
    >>> a, b, c = sympy.symbols("a b c")
    >>> cancelled_itoh_abe_gradient(a**3, [a], [b], [c])
    (b**2 + b*c + c**2,)
    """
    out = []
    for gi in itoh_abe_gradient(V, x, u, v):
        num, den = sympy.fraction(sympy.cancel(sympy.together(gi)))
        out.append(sympy.expand(num) / den if den.is_number else gi)
    return tuple(out)


_GRADIENTS = {
    "avf": (avf_gradient, 2, frozenset({"energy-balance", "symmetric"}),
            "the average-vector-field discrete gradient (eq. 56)"),
    "itoh-abe": (cancelled_itoh_abe_gradient, 1, frozenset({"energy-balance"}),
                 "the Itoh-Abe (coordinate increment) discrete gradient"),
}


class CoupledDiscreteGradient(Scheme):
    """The scheme (61)/(82) of a coupled natural system with one discrete gradient.

    Parameters
    ----------
    gradient : {"avf", "itoh-abe"}

    Examples
    --------
    >>> CoupledDiscreteGradient("itoh-abe")
    <scheme coupled-itoh-abe: Komatsu-Terakawa-Yaguchi (61)/(82) with the Itoh-Abe (coordinate increment) discrete gradient>
    """

    requires = frozenset({"coupled-natural"})

    def __init__(self, gradient="avf"):
        if gradient not in _GRADIENTS:
            raise ValueError(f"CoupledDiscreteGradient: gradient must be one of {', '.join(_GRADIENTS)}, got {gradient!r}")
        self.gradient_name = gradient
        self.gradient, self.order, self.properties, what = _GRADIENTS[gradient]
        self.name = f"coupled-{gradient}"
        self.description = f"Komatsu-Terakawa-Yaguchi (61)/(82) with {what}"

    def discrete_scheme(self, system):
        """The :class:`geomcheck.structures.DiscreteGradientScheme` of ``system`` (the one definition)."""
        self.check_applies(system)
        cache = self.__dict__.setdefault("_schemes", {})
        dg = cache.get(system)
        if dg is None:
            dg = discrete_gradient_scheme(system.natural, self.gradient, step=self.h)
            cache[system] = dg
        return dg

    def _build(self, system):
        dg = self.discrete_scheme(system)
        h = self.h
        new_of = dict(zip(dg.current, dg.new))
        new = [new_of[x] for x in system.chart.coords]
        # StageMap: the implicit-function data is computed when a certificate asks for it, not at
        # construction (for the 200-coordinate wave + beam it is never needed to run)
        # h times each term: the 1/h of (u^+ - u)/h cancels term by term (h * (a/h + b) would be 0 * oo at h = 0)
        eqs = [sympy.Add(*[h * t for t in sympy.Add.make_args(e)]) for e in dg.equations]
        return StageMap(system.chart, system.chart, eqs, new=new,
                        parameters=stage_parameters(system), guess=dict(zip(new, system.chart.coords)), step=h)

    def _certify_one(self, prop, phi, system):
        if prop == "energy-balance":
            return certify_discrete_energy_balance(self.discrete_scheme(system))
        return super()._certify_one(prop, phi, system)

    def __eq__(self, other):
        return type(other) is type(self) and other.gradient_name == self.gradient_name

    def __hash__(self):
        return hash((type(self).__name__, self.gradient_name))

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"
