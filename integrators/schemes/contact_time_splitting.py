r"""The symmetric contact splitting for time-dependent ``H = T(p) + V(x, t) + gamma(t) z``.

Bravetti, Seri, Vermeeren & Zadra, "Numerical integration in celestial mechanics: a case for
contact geometry", Celest. Mech. Dyn. Astr. 132 (2020), arXiv:1909.02613, Sect. 3: make t a
coordinate with conjugate momentum E (:func:`geomcheck.structures.autonomize`: contact form
``dz - p dx - E dt`` and Hamiltonian ``H + E``) and split ``H + E`` into

* ``D = E``:            ``t -> t + s``                          (z unchanged: ``E.1 - E = 0``)
* ``C = gamma(t) z``:   ``p -> p e^{-gamma s}``, ``z -> z e^{-gamma s}``,
  ``E -> e^{-gamma s} (E - gamma'(t) z s)``                    (t frozen)
* ``B = V(x, t)``:      ``p -> p - s V_x``, ``E -> E - s V_t``, ``z -> z - s V``
* ``A = T(p)``:         ``x -> x + s T_p``, ``z -> z + s (p T_p - T)``

each the exact flow of a contact Hamiltonian on the extended space; the step is the
symmetric composition ``D/2 C/2 B/2 A B/2 C/2 D/2`` (the authors' code; the "more complicated
but similar construction" for ``H(t, x, p, z) = A(t, p) + B(t, x) + C(t) z`` announced on
slide 28, "Hamiltonian integrators", of Vermeeren, Bravetti & Seri's 2019 slides), a contact map of
``dz - p dx - E dt`` with factor ``exp(-gamma(t + h/2) h)``, second order and symmetric.
Projected to ``(x, p, z)`` (E never feeds back) it is the autonomous splitting
``C/2 B/2 A B/2 C/2`` with the time frozen at the midpoint ``t + h/2``: that projection is the
step :meth:`TimeDependentContactSplitting.step_map` returns (t a parameter; ``integrate``
binds ``t_n`` each step), built from the extended map by dropping E, not written twice.

>>> import sympy, integrators as ig
>>> x, p, z, t = sympy.symbols("x p z t")
>>> forced = ig.ContactSystem(p**2 / 2 + x**2 / 2 - x * sympy.cos(t) + z / (2 + sympy.sin(t)), x, p, z, t=t)
>>> s = TimeDependentContactSplitting()
>>> {k: c.holds for k, c in s.certify(forced).items()}
{'order': True, 'contact': True, 'symmetric': True}
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.calculus import diff
from geomcheck.structures import autonomize, contact_coordinates, kinetic_flow, potential_flow

from ..systems import STEP_SYMBOL, ContactSystem
from .base import NamedScheme
from .stages import stage_parameters

__all__ = ["TimeDependentContactSplitting", "time_dependent_contact_parts", "time_dependent_damping_flow"]


def time_dependent_contact_parts(system):
    """``(T, V, gamma)`` with ``H = T(p) + V(x, t) + gamma(t) z``, or a string saying why not."""
    H, t = system.energy, system.time
    x, p, z = system.x, system.p, system.z
    coords = set(system.coords)
    gamma = diff(H, z)
    if gamma.free_symbols & coords:
        return (f"its Hamiltonian {H} is not linear in z with a coefficient depending on t only"
                f" (H_z = {gamma}); the splitting needs H = T(p) + V(x, t) + gamma(t) z")
    rest = sympy.expand(H - gamma * z)
    T, V = [], []
    for term in sympy.Add.make_args(rest):
        syms = term.free_symbols & (coords | ({t} if t is not None else set()))
        if syms and syms <= set(p):
            T.append(term)
        elif syms <= set(x) | {t}:
            V.append(term)
        else:
            return (f"its Hamiltonian {H} has the term {term}, which couples momenta with positions or time;"
                    " the splitting needs H = T(p) + V(x, t) + gamma(t) z")
    return sympy.Add(*T), sympy.Add(*V), gamma


def time_dependent_damping_flow(gamma, coords, time, s):
    """The exact flow of ``gamma(t) z`` on extended Darboux coordinates (t frozen, E moves).

    ``(x, t, p, E, z) -> (x, t, p e^{-gamma s}, e^{-gamma s}(E - gamma'(t) z s), z e^{-gamma s})``,
    where ``coords`` is the extended :class:`~geomcheck.structures.ContactCoordinates` whose
    x-block contains ``time`` and whose p-block contains its momentum at the same position.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import darboux_coordinates, autonomize, certify_exact_flow
    >>> D = darboux_coordinates(1); t, s = sympy.symbols("t s")
    >>> S = autonomize(sympy.cos(t) * D.z, D, t)
    >>> phi = time_dependent_damping_flow(sympy.cos(S.time), S.coordinates, S.time, s)
    >>> certify_exact_flow(phi, sympy.cos(S.time) * D.z, S.eta, s).holds
    True
    """
    k = coords.x.index(time)
    E = coords.p[k]
    decay = sympy.exp(-gamma * s)
    exprs = {xi: xi for xi in coords.x}
    exprs.update({pi: pi * decay for pi in coords.p})
    exprs[E] = decay * (E - diff(gamma, time) * coords.z * s)
    exprs[coords.z] = coords.z * decay
    chart = coords.chart
    params = set().union(*(sympy.sympify(e).free_symbols for e in exprs.values())) - chart.coordinate_set
    return gc.Map(chart, chart, exprs, parameters=sorted(params, key=str))


def _compose_in_order(maps, chart):
    """``maps[-1] o ... o maps[0]`` (the first acts first) by substitution: one explicit Map."""
    state = list(chart.coords)
    for m in maps:
        at = dict(zip(chart.coords, state))
        state = [gc.substitute(e, at) for e in m.exprs]
    return state


class TimeDependentContactSplitting(NamedScheme):
    """``D/2 C/2 B/2 A B/2 C/2 D/2`` on the autonomized system (see the module docstring)."""

    name = "contact-splitting-2-t"
    requires = frozenset({"contact"})
    order = 2
    properties = frozenset({"contact", "symmetric"})
    description = "symmetric splitting of the autonomized H = T(p) + V(x, t) + gamma(t) z + E"

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and system.time is None:
            reason = (f"{self.name} is for time-dependent contact systems; {system!r} is autonomous"
                      " (use contact-splitting-2)")
        if reason is None:
            parts = time_dependent_contact_parts(system)
            if isinstance(parts, str):
                reason = f"{self.name} does not apply to {system!r}: {parts}"
        return reason

    def extended(self, system):
        """``(autonomized ContactSystem on (x, t, p, E, z), its step Map, the time coordinate)``."""
        self.check_applies(system)
        cache = self.__dict__.setdefault("_extended", {})
        if system not in cache:
            T, V, gamma = time_dependent_contact_parts(system)
            base = contact_coordinates(system.chart, system.x, system.p, system.z)
            S = autonomize(system.energy, base, system.time)
            ext = S.coordinates
            tt, E = S.time, S.energy
            ext_system = ContactSystem(S.hamiltonian, ext.x, ext.p, ext.z, parameters=system.parameter_values)
            at = {system.time: tt}
            Vt, gt = gc.substitute(V, at), gc.substitute(gamma, at)
            s = sympy.Dummy("s")
            h, half = STEP_SYMBOL, STEP_SYMBOL / 2
            D, C = kinetic_flow(E, ext, s), time_dependent_damping_flow(gt, ext, tt, s)
            B, A = potential_flow(Vt, ext, s), kinetic_flow(T, ext, s)

            def at_time(m, tau):
                return gc.Map(m.source, m.target, [gc.substitute(e, {s: tau}) for e in m.exprs],
                              parameters=[q for q in m.parameters if q != s] + [h])

            steps = [at_time(D, half), at_time(C, half), at_time(B, half), at_time(A, h),
                     at_time(B, half), at_time(C, half), at_time(D, half)]
            exprs = _compose_in_order(steps, ext.chart)
            params = set().union(*(e.free_symbols for e in exprs)) - ext.chart.coordinate_set
            phi = gc.Map(ext.chart, ext.chart, exprs, parameters=sorted(params, key=str))
            cache[system] = (ext_system, phi, tt)
        return cache[system]

    def _build(self, system):
        ext_system, phi, tt = self.extended(system)
        keep = [ext_system.chart.coords.index(c) for c in system.coords]
        exprs = [gc.substitute(phi.exprs[i], {tt: system.time}) for i in keep]
        E = ext_system.p[-1]
        assert not any(e.has(E) for e in exprs), "the momentum E of t must not feed back into (x, p, z)"
        return gc.Map(system.chart, system.chart, exprs, parameters=stage_parameters(system))

    def _certify_one(self, prop, phi, system):
        """Order, symmetry and the contact property are certified on the extended map."""
        ext_system, ext_phi, _ = self.extended(system)
        h = self.h
        if prop == "order":
            return gc.certify_order(ext_phi, ext_system.vector_field, h, int(self.order))
        if prop == "symmetric":
            return gc.certify_symmetric(ext_phi, h)
        if prop == "contact":
            return gc.certify_contact(ext_phi, ext_system.eta, small_step=h)
        return super()._certify_one(prop, phi, system)

    def certify_frozen_time_contact(self, system):
        """The projected step on ``(x, p, z)`` is contact for ``dz - p dx`` at every fixed t."""
        return gc.certify_contact(self.step_map(system), system.eta, small_step=self.h)
