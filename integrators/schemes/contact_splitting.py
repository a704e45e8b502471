"""The second-order contact splitting for ``H = T(p) + V(x) + gamma z`` (a symbolic step).

Each part of H generates a contact flow that is exact in closed form (for ``eta = dz - p dx``;
the public contract, docs/contract.md: ``x' = H_p, p' = -H_x - p H_z, z' = p H_p - H``):

* ``V(x)``:      ``p -> p - t V_x(x)``,  ``z -> z - t V(x)``
* ``T(p)``:      ``x -> x + t T_p(p)``,  ``z -> z + t (p . T_p(p) - T(p))``
* ``gamma z``:   ``p -> exp(-gamma t) p``,  ``z -> exp(-gamma t) z``

and the step is the symmetric (Strang) composition
``phi_V(h/2) o phi_T(h/2) o phi_Z(h) o phi_T(h/2) o phi_V(h/2)``: explicit, order 2,
symmetric, and a contact map (each factor is the exact flow of a contact Hamiltonian),
as in Bravetti, Seri, Vermeeren and Zadra, "Numerical integration in celestial mechanics:
a case for contact geometry" (Celest. Mech. Dyn. Astr. 132, 2020).  Slide 27 ("Hamiltonian
integrators") of Vermeeren, Bravetti & Seri's 2019 slides, numbered as the frames of our copy,
composes the same three flows in another order, ``S_2(h) = exp(h/2 X_C) exp(h/2 X_B) exp(h X_A)
exp(h/2 X_B) exp(h/2 X_C)`` (damping outside, the kinetic flow in the middle); both orders are
symmetric, of order 2 and contact with factor ``exp(-gamma h)``.  (The flows printed on that
slide for ``A``, ``B`` and ``C z`` are partly wrong: see
``casestudies.vermeeren2019_damped_oscillator``; the ones above are the exact flows.)  ``gamma`` may be a
constant parameter; with ``gamma = 0`` the middle factor is the identity.

>>> import sympy, integrators as ig
>>> x, p, z, g = sympy.symbols("x p z gamma")
>>> V = sympy.Function("V")
>>> damped = ig.ContactSystem(p**2 / 2 + V(x) + g * z, x, p, z)
>>> s = ig.scheme("contact-splitting-2")
>>> {k: c.holds for k, c in s.certify(damped).items()}
{'order': True, 'contact': True, 'symmetric': True}
"""

from __future__ import annotations

import sympy

import geomcheck as gc

from .base import Scheme
from .stages import stage_parameters

__all__ = ["ContactSplitting", "contact_parts"]


def contact_parts(system):
    """``(T, V, gamma)`` with ``H = T(p) + V(x) + gamma z``, or a string saying why not."""
    H = system.energy
    x, p, z = system.x, system.p, system.z
    coords = set(system.coords)
    gamma = sympy.diff(H, z)
    if gamma.free_symbols & coords:
        return (f"its Hamiltonian {H} is not linear in z with a constant coefficient"
                f" (H_z = {gamma}); the splitting needs H = T(p) + V(x) + gamma z")
    rest = sympy.expand(H - gamma * z)
    T, V = [], []
    for term in sympy.Add.make_args(rest):
        syms = term.free_symbols & coords
        if syms <= set(p) and syms:
            T.append(term)
        elif syms <= set(x):
            V.append(term)
        else:
            return (f"its Hamiltonian {H} has the term {term}, which couples positions and momenta;"
                    " the splitting needs H = T(p) + V(x) + gamma z")
    return sympy.Add(*T), sympy.Add(*V), gamma


class ContactSplitting(Scheme):
    """The symmetric contact splitting ``S2`` (see the module docstring)."""

    name = "contact-splitting-2"
    requires = frozenset({"contact", "autonomous"})
    order = 2
    properties = frozenset({"contact", "symmetric"})
    description = "Strang splitting of H = T(p) + V(x) + gamma z into exact contact flows"

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None:
            parts = contact_parts(system)
            if isinstance(parts, str):
                reason = f"{self.name} does not apply to {system!r}: {parts}"
        return reason

    def _build(self, system):
        T, V, gamma = contact_parts(system)
        x, p, z = system.x, system.p, system.z
        coords = system.coords
        h = self.h
        half = h / 2
        Tp = [sympy.diff(T, pi) for pi in p]
        Vx = [sympy.diff(V, xi) for xi in x]
        pTp = sympy.Add(*[pi * t for pi, t in zip(p, Tp)])
        n = len(x)

        def flow_V(t):
            return list(x) + [pi - t * v for pi, v in zip(p, Vx)] + [z - t * V]

        def flow_T(t):
            return [xi + t * tp for xi, tp in zip(x, Tp)] + list(p) + [z + t * (pTp - T)]

        def flow_Z(t):
            decay = sympy.exp(-gamma * t)
            return list(x) + [decay * pi for pi in p] + [decay * z]

        state = list(coords)
        for flow in (flow_V(half), flow_T(half), flow_Z(h), flow_T(half), flow_V(half)):
            at = dict(zip(coords, state))
            state = [gc.substitute(e, at) for e in flow]
        assert len(state) == 2 * n + 1
        return gc.Map(system.chart, system.chart, state, parameters=stage_parameters(system))

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"
