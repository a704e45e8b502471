r"""Coupled natural systems (Komatsu, Terakawa & Yaguchi 2020) as systems of the integrators.

Two objects of the same name carry them, and they are two ideas:

* :class:`geomcheck.structures.CoupledNaturalSystem` is the *structure*, the one symbolic
  definition: two natural systems ``M_k u_k'' = -grad V_k - G_k u_k' +- f eps_k`` pushing each
  other at one point, with the action-reaction force ``f`` *derived* from equal contact
  velocities, the energy ``E = E_1 + E_2`` (``E_k = mu_k (1/2 v_k.M_k v_k + V_k)``), the
  dissipation ``D = mu_1 v_1.G_1 v_1 + mu_2 v_2.G_2 v_2`` and the contact-velocity mismatch
  ``c = mu_1 eps_1.v_1 - mu_2 eps_2.v_2`` (a first integral; 0 on the physical states).  Its
  chart is ``(u_1, v_1, u_2, v_2)``, subsystem by subsystem.
* :class:`CoupledNaturalSystem` here is the *runnable system* built from such a structure (its
  constructor takes the structure and holds it as :attr:`~CoupledNaturalSystem.natural`): the
  structure's vector field (with the derived ``f``), energy, dissipation, constraint and
  constants, unchanged, on the chart ``(u_1, u_2, v_1, v_2)`` -- all positions, then all
  velocities -- which every scheme expects, with the symplectic form and the numeric values
  of constants that schemes and ``integrate`` need.

Is it a forced Hamiltonian system?  Yes, in the sense of :mod:`integrators.systems.forced`, and it is a
:class:`~integrators.systems.base.CanonicalSystem` (kind ``"coupled-natural"``): positions ``q = u``,
"momenta" ``p = v`` (the velocities; the masses and the weights are carried by the symplectic form
``omega = sum_k mu_k du_k ^ M_k dv_k``, the pullback of ``sum dq ^ dp`` by ``p = mu M v``), and

    i_X omega = dE + sum_k mu_k (G_k v_k -+ f eps_k) . du_k,

i.e. the Hamiltonian vector field of ``E`` for ``omega`` plus the damping and the interaction as a
force on ``p'`` (:func:`certify_forced_form` proves it for a given system).  So every scheme for
canonical systems applies: Runge-Kutta methods (Gauss, implicit midpoint) on any coupled natural
system, Stormer-Verlet when the system is separable (no damping: then ``f`` depends on the
positions only), and the paper's own schemes (:mod:`integrators.schemes.coupled_discrete_gradient`),
which need this kind.  It is not a subclass of :class:`~integrators.systems.forced.ForcedHamiltonianSystem`:
that class is built from a ``geomcheck.structures.CoupledSystem`` (given forces), whereas here the
force is derived and the vector field is taken unchanged from the natural system.

>>> import sympy, numpy as np, integrators as ig
>>> from geomcheck.structures import natural_system, couple
>>> A = natural_system(1, lambda u: u[0]**2 / 2, name="1")
>>> B = natural_system(1, lambda u: 2 * u[0]**2, name="2")
>>> s = ig.CoupledNaturalSystem(couple(A, B, 0, 0))
>>> s.chart
Chart('u_{1,1} u_{2,1} v_{1,1} v_{2,1}')
>>> s.vector_field.component(s.p[0])
-u_{1,1}/2 - 2*u_{2,1}
>>> s.kind, s.is_separable, s.energy
('coupled-natural', True, u_{1,1}**2/2 + 2*u_{2,1}**2 + v_{1,1}**2/2 + v_{2,1}**2/2)
>>> sol = ig.integrate(s, "coupled-avf", [1.0, 1.0, 0.0, 0.0], dt=0.1, steps=20, save_every=20)
>>> bool(np.abs(sol.energy() - sol.energy()[0]).max() < 1e-14)
True
"""

from __future__ import annotations

from typing import Mapping

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.latex import Derivation, summarize
from geomcheck.structures import CoupledNaturalSystem as CoupledNaturalStructure

from ..errors import SystemDefinitionError
from .base import CanonicalSystem, checked_symbols, constant_parameters

__all__ = ["CoupledNaturalSystem", "certify_forced_form", "oscillator_touching_chain"]


class CoupledNaturalSystem(CanonicalSystem):
    r"""The runnable system of a :class:`geomcheck.structures.CoupledNaturalSystem` (no copy of it).

    Not the structure itself: this holds the structure (:attr:`natural`) and gives its vector
    field, energy and constants on the canonical chart ``(u, v)`` that the schemes step (see the
    module docstring).

    Parameters
    ----------
    natural : geomcheck.structures.CoupledNaturalSystem
        The coupled system (from :func:`geomcheck.structures.couple`, ``wave_beam_system``,
        ``mass_spring_beam_system``): the one definition of the vector field, the energy, the
        dissipation and the constraint used here.
    parameters : dict, optional
        Numeric values of its constant symbols (masses, dampings, stiffnesses left symbolic).

    Attributes
    ----------
    natural : geomcheck.structures.CoupledNaturalSystem
    q, p : tuples of Symbol            positions ``(u_1, u_2)``, velocities ``(v_1, v_2)``
    chart : geomcheck.Chart            ``(u_1, u_2, v_1, v_2)``
    omega : geomcheck.Form             ``sum_k mu_k sum_ij (M_k)_ij du_{k,i} ^ dv_{k,j}``
    vector_field : geomcheck.VectorField   the natural system's field, derived ``f`` included
    energy : sympy expression          ``E = E_1 + E_2``
    subsystem_energies : tuple         ``(E_1, E_2)``
    dissipation : sympy expression     ``mu_1 v_1.G_1 v_1 + mu_2 v_2.G_2 v_2`` (``dE/dt = -D`` on ``c = 0``)
    constraint : sympy expression      ``c = mu_1 eps_1.v_1 - mu_2 eps_2.v_2`` (a first integral)
    force : sympy expression           the derived interaction force ``f``

    Raises
    ------
    SystemDefinitionError
        ``natural`` is not a geomcheck CoupledNaturalSystem; a coordinate named ``h``; a
        parameter value that is not a number.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> from geomcheck.structures import natural_system, couple
    >>> m, g = sympy.symbols("m gamma", positive=True)
    >>> s = ig.CoupledNaturalSystem(couple(natural_system(1, name="1", mass=m, damping=g),
    ...                                    natural_system(1, name="2"), 0, 0))
    >>> s.omega
    Form((m)*du_{1,1}^dv_{1,1} + du_{2,1}^dv_{2,1})
    >>> s.parameters, s.is_generic, s.is_separable
    ((gamma, m), True, False)
    """

    kind = "coupled-natural"

    def __init__(self, natural: CoupledNaturalStructure, parameters: Mapping | None = None):
        owner = "CoupledNaturalSystem"
        if not isinstance(natural, CoupledNaturalStructure):
            raise SystemDefinitionError(
                f"{owner} expects a geomcheck.structures.CoupledNaturalSystem (from couple, wave_beam_system or"
                f" mass_spring_beam_system), got {type(natural).__name__} {natural!r}")
        self.natural = natural
        A, B = natural.first, natural.second
        self.q = checked_symbols(A.u + B.u, "q", owner)
        self.p = checked_symbols(A.v + B.v, "p", owner)
        self.chart = gc.Chart(list(self.q + self.p))
        chart = self.chart
        comps = {}
        for X in (A, B):
            for (i, j), mij in X.mass.todok().items():
                key = (chart.index(X.u[i]), chart.index(X.v[j]))
                comps[key] = comps.get(key, 0) + X.weight * mij
        self.omega = gc.Form(chart, {k: v for k, v in comps.items() if v != 0})
        Y = natural.vector_field
        self.vector_field = gc.VectorField(chart, {x: Y.component(x) for x in chart.coords})
        self.H = natural.energy()
        self.subsystem_energies = (A.energy(), B.energy())
        self.dissipation = natural.dissipation()
        self.constraint = natural.constraint
        self.force = natural.force.expr
        everything = sympy.Tuple(self.H, self.dissipation, self.constraint,
                                 *[Y.component(x) for x in chart.coords])
        self._parameters, self._values = constant_parameters(everything, chart.coords, None, parameters, owner)

    def _key(self):
        return (self.natural, tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The total energy ``E_1 + E_2`` (dissipated at the rate ``D`` on ``c = 0``)."""
        return self.H

    @property
    def is_separable(self) -> bool:
        """True iff every ``u'`` is free of u and every ``v'`` is free of v (Stormer-Verlet is explicit).

        The coupling keeps this when there is no damping: then ``f`` depends on the positions only.
        """
        return self._vector_field_is_separable()

    def __repr__(self):
        A, B = self.natural.first, self.natural.second
        return (f"CoupledNaturalSystem({A.n} + {B.n} coordinates ({A.name}, {B.name}),"
                f" {'damped' if self.dissipation != 0 else 'undamped'}, dim {self.dim})")

    def _latex(self, printer=None):
        return self.natural._latex()


def certify_forced_form(system: CoupledNaturalSystem) -> Certificate:
    r"""Certify ``i_X omega = dE + sum_k mu_k (G_k v_k -+ f eps_k).du_k``: a forced Hamiltonian system.

    The vector field is the Hamiltonian field of the energy for ``omega`` plus a force on the
    velocities (the damping and the interaction), which is why the schemes of canonical systems apply.

    Examples
    --------
    >>> import integrators as ig
    >>> from geomcheck.structures import natural_system, couple
    >>> s = ig.CoupledNaturalSystem(couple(natural_system(2, name="1"), natural_system(1, name="2"), 1, 0))
    >>> certify_forced_form(s).holds
    True
    """
    if not isinstance(system, CoupledNaturalSystem):
        raise SystemDefinitionError(f"certify_forced_form expects an integrators CoupledNaturalSystem, got"
                                    f" {type(system).__name__}")
    nat = system.natural
    chart = system.chart
    f = nat.force.expr
    work = gc.Form(chart, {})
    for X, eps, sign in ((nat.first, nat.eps1, 1), (nat.second, nat.eps2, -1)):
        Gv = X.damping_force(X.v)
        for ui, gi, ei in zip(X.u, Gv, eps):
            coeff = X.weight * (gi - sign * f * ei)
            if coeff != 0:
                work = work + coeff * chart.d(ui)
    R = gc.interior(system.vector_field, system.omega) - chart.d(system.energy) - work
    dec = R.zero_decision()
    D = Derivation(r"The coupled natural system is a forced Hamiltonian system")
    D = D.add(r"With $\omega = \sum_k \mu_k\, du_k \wedge M_k\, dv_k$ and $E = E_1 + E_2$, the residual, which must vanish, is",
              r"i_X\omega - dE - \sum_k \mu_k (G_k v_k \mp f\varepsilon_k)\cdot du_k &= " + summarize(R, 400))
    D = D.concluding({True: r"Hence $X$ is the Hamiltonian field of $E$ plus a force on $\dot v$.",
                      False: "Hence the claim fails.", None: "The claim is undecided."}[dec.is_zero])
    return Certificate("i_X omega == dE + (damping and interaction work form)", dec.is_zero, dec.method, dec.stage,
                       residual=R, counterexample=dict(dec.point or {}) if dec.is_zero is False else None,
                       derivation=D)


def oscillator_touching_chain(generic=False) -> CoupledNaturalSystem:
    r"""A small damped coupled natural system (6 coordinates): an anharmonic oscillator touching the
    second mass of a two-mass chain.

    ``m_1 u'' = -(a_1 u + b_1 u^2 + c_1 u^3) - gamma_1 u' + f`` and a chain
    ``V_2 = a_2 w_1^2/2 + k (w_1 - w_2)^2/2 + b_2 w_2^4/4`` with masses ``m_2`` and damping
    ``gamma_2``, pushed by ``-f`` at ``w_2``.  ``generic=True``: every coefficient a positive symbol
    (so a certificate holds for every such quartic system); otherwise ``a_1 = 1, b_1 = 1/2, c_1 = 1,
    m_1 = 1, gamma_1 = 1/5, a_2 = 2, k = 4, b_2 = 1/2, m_2 = 2, gamma_2 = 1/10``.

    >>> oscillator_touching_chain().dim, oscillator_touching_chain(generic=True).parameters[:3]
    (6, (a1, a2, b1))
    """
    from geomcheck.structures import couple, natural_system

    names = "a1 b1 c1 m1 gamma1 a2 k b2 m2 gamma2"
    if generic:
        a1, b1, c1, m1, g1, a2, k, b2, m2, g2 = sympy.symbols(names, positive=True)
    else:
        R = sympy.Rational
        a1, b1, c1, m1, g1, a2, k, b2, m2, g2 = 1, R(1, 2), 1, 1, R(1, 5), 2, 4, R(1, 2), 2, R(1, 10)
    A = natural_system(1, lambda u: a1 * u[0]**2 / 2 + b1 * u[0]**3 / 3 + c1 * u[0]**4 / 4, name="1",
                       mass=m1, damping=g1)
    B = natural_system(2, lambda w: a2 * w[0]**2 / 2 + k * (w[0] - w[1])**2 / 2 + b2 * w[1]**4 / 4, name="2",
                       mass=m2, damping=g2)
    return CoupledNaturalSystem(couple(A, B, 0, 1))
