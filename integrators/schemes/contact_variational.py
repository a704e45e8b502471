r"""Higher-order contact splittings and the contact (Herglotz) variational integrators.

Vermeeren, Bravetti & Seri, "Contact variational integrators", J. Phys. A 52 (2019) 445206
(slides "Variational integrators for contact Hamiltonian systems", 2019, numbered as the frames
of our copy: slides 22-24 the discrete Herglotz principle, 27-28 "Hamiltonian integrators"):

* :class:`ContactComposition` -- Yoshida's recursive triple jumps (slide 28) of the symmetric
  contact splitting ``contact-splitting-2`` (exact coefficients from
  :func:`geomcheck.certify.compositions.yoshida_composition`; the authors' code once had
  Yoshida's w3 off by a factor 10, which the order certificate would catch).
  :func:`contact_yoshida` builds the order-4 (3 stages) and order-6 (9 stages) members.
  Every factor is the exact flow of a contact Hamiltonian, so the composite is a contact
  map; its factor on ``H = T(p) + V(x) + gamma z`` is ``exp(-gamma h)``.
* :class:`HerglotzVariational` -- the position-momentum map of the discrete Herglotz
  principle (slides 22-24; :mod:`geomcheck.structures.herglotz`) for the Legendre transform
  ``L(x, v, z) = v.M v/2 - V(x) - gamma z`` of ``H = p.M^{-1} p/2 + V(x) + gamma z``,
  with ``v_j = (x_{j+1} - x_j)/h`` discretized to first order at the left point,
  ``L(x_j, v_j, z_j)`` (``contact-herglotz-1``, our own simplest choice), to first order
  averaged over both ends, ``(L(x_j, v_j, z_j) + L(x_{j+1}, v_j, z_j))/2``
  (``contact-herglotz-1-averaged``: the "Contact (1st)" of the paper's damped-oscillator
  figures, as the authors' public code computes it), or to second order,
  ``(L(x_j, v_j, z_j) + L(x_{j+1}, v_j, z_{j+1}))/2`` (``contact-herglotz-2``, their
  "Contact (2nd)").  The step is the herglotz ``ImplicitMap`` itself (the very object
  certified and lowered).

``contact-yoshida-4`` and the three Herglotz schemes are registered in
:mod:`integrators.catalog` (the Herglotz schemes are certified on ``p^2/2 + V(x) + gamma z``,
where the Legendre transform exists).  ``contact_yoshida(6)`` is not: its nine composed stages
make one expression tree too large to build and lower in the catalog-wide tests; its order is
certified by the composition order conditions (``order_certificate()``).

>>> import sympy, integrators as ig
>>> x, p, z, a = sympy.symbols("x p z alpha")
>>> osc = ig.ContactSystem(p**2 / 2 + x**2 / 2 + a * z, x, p, z)
>>> y4 = contact_yoshida(4)
>>> y4.order, sorted(y4.properties)
(4, ['contact', 'symmetric'])
>>> herglotz = HerglotzVariational(2)
>>> {k: c.holds for k, c in herglotz.certify(osc).items()}
{'order': True, 'contact': True}
>>> HerglotzVariational(1, averaged=True).name
'contact-herglotz-1-averaged'
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.certify import compositions
from geomcheck.errors import InvalidArgumentError
from geomcheck.structures import (
    contact_coordinates,
    discrete_herglotz,
    first_order_discrete_lagrangian,
    second_order_discrete_lagrangian,
)
from geomcheck.structures.herglotz import first_order_averaged_discrete_lagrangian
from geomcheck.zero import decide_all_zero

from ..systems import STEP_SYMBOL, ContactSystem
from .base import Scheme
from .composition import Composition
from .contact_splitting import ContactSplitting, contact_parts
from .stages import StageMap

__all__ = ["ContactComposition", "contact_yoshida", "HerglotzVariational", "contact_test_system", "legendre_lagrangian"]

_TEST = {}


def contact_test_system():
    """The generic contact test system ``T(p) + V(x) + gamma z`` (T, V undefined)."""
    if "contact" not in _TEST:
        x, p, z, g = sympy.symbols("x p z gamma")
        T, V = sympy.Function("T"), sympy.Function("V")
        _TEST["contact"] = ContactSystem(T(p) + V(x) + g * z, x, p, z)
    return _TEST["contact"]


contact_test_system.__test__ = False  # not a pytest test


class ContactComposition(Composition):
    """``base(gamma_1 h) o ... o base(gamma_m h)`` for a contact base scheme.

    As :class:`~integrators.schemes.composition.Composition` (order by the BCH order
    conditions of the coefficients), but the properties are certified on the generic
    *contact* test system :func:`contact_test_system` (a contact base does not apply to
    the Hamiltonian test system).
    """

    def _test_system(self):
        return contact_test_system()


def contact_yoshida(order: int) -> ContactComposition:
    """Yoshida's composition of ``contact-splitting-2`` of the given even order (4: 3 stages, 6: 9).

    Examples
    --------
    >>> s = contact_yoshida(6)
    >>> s.name, len(s.gammas), s.order
    ('contact-yoshida-6', 9, 6)
    """
    if isinstance(order, bool) or not isinstance(order, int) or order < 4 or order % 2:
        raise InvalidArgumentError(f"contact_yoshida: order must be an even integer >= 4, got {order!r}")
    key = ("yoshida", order)
    if key not in _TEST:
        _TEST[key] = ContactComposition(
            ContactSplitting(), compositions.yoshida_composition(order), name=f"contact-yoshida-{order}",
            description=f"Yoshida's triple jumps of the contact splitting to order {order}")
    return _TEST[key]


# --------------------------------------------------------------------------- Herglotz


def legendre_lagrangian(system, v=None):
    """``(L, v)``: the Lagrangian ``v.M v/2 - V(x) - gamma z`` of ``H = p.M^{-1} p/2 + V(x) + gamma z``.

    Returns a string saying why not when H is not of that form (kinetic energy not a
    constant nondegenerate quadratic form in p).

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> x, p, z, a = sympy.symbols("x p z alpha")
    >>> L, (v,) = legendre_lagrangian(ig.ContactSystem(p**2 / 2 + x**2 / 2 + a * z, x, p, z))
    >>> L
    -alpha*z + v_x**2/2 - x**2/2
    """
    parts = contact_parts(system)
    if isinstance(parts, str):
        return parts
    T, V, gamma = parts
    p = system.p
    K = sympy.Matrix([[diff(diff(T, a), b) for b in p] for a in p])
    if K.free_symbols & set(system.coords) or K.has(sympy.core.function.AppliedUndef, sympy.Derivative):
        return (f"its kinetic energy {T} is not a quadratic form in the momenta with constant coefficients;"
                " the discrete Herglotz Lagrangian is built from the Legendre transform of p.M^-1 p/2")
    pv = sympy.Matrix(p)
    rest = decide_all_zero([T - (pv.T * K * pv)[0] / 2])
    if rest.is_zero is not True or K.det() == 0:
        return f"its kinetic energy {T} is not a nondegenerate quadratic form p.M^-1 p/2 in the momenta"
    if v is None:
        v = tuple(sympy.Symbol(f"v_{xi.name}") for xi in system.x)
    M = K.inv()
    vv = sympy.Matrix(v)
    return sympy.expand((vv.T * M * vv)[0] / 2) - V - gamma * system.z, tuple(v)


class HerglotzVariational(Scheme):
    """The contact variational integrator of order 1 or 2 (see the module docstring).

    Parameters
    ----------
    order : {1, 2}
    averaged : bool
        Order 1 only: average the Lagrangian over both ends of the step, z at the left end,
        ``(L(x_j, v_j, z_j) + L(x_{j+1}, v_j, z_j))/2`` (the paper's "Contact (1st)") instead
        of the left point ``L(x_j, v_j, z_j)``.
    """

    requires = frozenset({"contact", "autonomous"})
    properties = frozenset({"contact"})

    def __init__(self, order: int, averaged: bool = False):
        if order not in (1, 2):
            raise InvalidArgumentError(f"HerglotzVariational: order must be 1 or 2, got {order!r}")
        if not isinstance(averaged, bool) or (averaged and order != 1):
            raise InvalidArgumentError(f"HerglotzVariational: averaged=True is the first-order averaged rule"
                                       f" (the second-order rule averages already), got order={order!r},"
                                       f" averaged={averaged!r}")
        self.order = order
        self.averaged = averaged
        self.name = f"contact-herglotz-{order}" + ("-averaged" if averaged else "")
        self.description = ("discrete Herglotz principle, (L(x_j, v_j, z_j) + L(x_j+1, v_j, z_j))/2" if averaged else
                            "discrete Herglotz principle, L(x_j, (x_j+1 - x_j)/h, z_j)" if order == 1 else
                            "discrete Herglotz principle, (L(x_j, v_j, z_j) + L(x_j+1, v_j, z_j+1))/2")

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None:
            L = legendre_lagrangian(system)
            if isinstance(L, str):
                reason = f"{self.name} does not apply to {system!r}: {L}"
        return reason

    def discrete_principle(self, system):
        """The :class:`geomcheck.structures.DiscreteHerglotz` whose position-momentum map is the step."""
        self.check_applies(system)
        cache = self.__dict__.setdefault("_principles", {})
        if system not in cache:
            L, v = legendre_lagrangian(system)
            build = (first_order_averaged_discrete_lagrangian if self.averaged else
                     first_order_discrete_lagrangian if self.order == 1 else second_order_discrete_lagrangian)
            Ld = build(L, system.x, v, system.z, STEP_SYMBOL)
            coords = contact_coordinates(system.chart, system.x, system.p, system.z)
            cache[system] = discrete_herglotz(Ld, len(system.x), h=STEP_SYMBOL, coordinates=coords)
        return cache[system]

    def _build(self, system):
        """The position-momentum map with ``x_{j+1} = x_j + h w`` (w auxiliary): regular at h = 0.

        The herglotz map's equations contain ``(x_{j+1} - x_j)/h``; written in the discrete
        velocity w they are polynomial in h (expanded, not simplified), with the same
        solutions for h != 0, so that the order can be read off the Taylor expansion at h = 0.
        """
        phi = self.discrete_principle(system).position_momentum_map()
        h, n = STEP_SYMBOL, len(system.x)
        X = phi.new[:n]
        w = [sympy.Dummy(f"w_{xi.name}") for xi in system.x]
        at = {Xi: xi + h * wi for Xi, xi, wi in zip(X, system.x, w)}
        eqs = [sympy.expand_mul(gc.substitute(e, at)) for e in phi.equations]
        eqs += [Xi - xi - h * wi for Xi, xi, wi in zip(X, system.x, w)]
        T, _, _ = contact_parts(system)
        guess = {wi: diff(T, pi) for wi, pi in zip(w, system.p)}       # w ~ x' = H_p at h = 0
        guess.update({u: c for u, c in zip(phi.new, system.coords)})
        return StageMap(system.chart, system.chart, eqs, new=phi.new, auxiliary=w, parameters=phi.parameters,
                        guess=guess, step=h)

    def __eq__(self, other):
        return type(other) is type(self) and other.order == self.order and other.averaged == self.averaged

    def __hash__(self):
        return hash(("HerglotzVariational", self.order, self.averaged))

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"
