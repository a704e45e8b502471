r"""Forced Hamiltonian systems: Hamiltonian subsystems plus interaction forces.

A coupled system in the sense of Terakawa & Yaguchi (JSIAM Letters 14, 2022),

    q_i' = (1/c_i) dH_i/dp_i,    p_i' = -(1/c_i) dH_i/dq_i + f_i,

is written once as a :class:`geomcheck.structures.CoupledSystem`.  It is NOT a
Hamiltonian system on its whole phase space (``L_X omega = sum_i c_i dq_i ^ df_i``,
Lemma 6), so it is not a :class:`~integrators.HamiltonianSystem`; but it has the
same positions, momenta and symplectic form ``omega = sum_i c_i dq_i ^ dp_i``, and
schemes that only need positions and momenta (Stormer-Verlet when ``q'`` depends on
``p`` alone and ``p'`` on ``q`` alone, partitioned Runge-Kutta methods) build their step
map from its vector field.  :class:`ForcedHamiltonianSystem` is that system for the
integrators: the CoupledSystem's vector field, form and energy, on the chart
``(q, p)`` (all positions, then all momenta, as every scheme expects).

>>> import sympy, numpy as np, integrators as ig
>>> from integrators.systems import ForcedHamiltonianSystem
>>> q, p = sympy.symbols("q p")
>>> forced = ForcedHamiltonianSystem(p**2 / 2 + q**2 / 2, [q], [p], force=[-q**3])
>>> forced.vector_field
VectorField({q: p, p: -q**3 - q})
>>> forced.is_separable
True
>>> sol = ig.integrate(forced, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=100, save_every=50)
>>> sol.y.shape
(3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.latex import Derivation, expression_size
from geomcheck.maps import compose, pullback, submanifold_parametrization, substitute
from geomcheck.structures import CoupledSystem, Subsystem
from geomcheck.structures.symplectic import counterexample_of, show
from geomcheck.zero import decide_all_zero

from ..errors import SystemDefinitionError
from .base import CanonicalSystem, checked_symbols, constant_parameters

__all__ = ["ForcedHamiltonianSystem", "StepOnSubmanifold", "certify_step_on_submanifold"]


class ForcedHamiltonianSystem(CanonicalSystem):
    """Hamiltonian subsystems with interaction forces on their momenta.

    Parameters
    ----------
    H : sympy expression
        The Hamiltonian of one subsystem (use :meth:`from_coupled` for several).
    q, p : sequence of Symbol
    force : sequence or dict {momentum: expression}, optional
        The force ``f`` added to ``p'`` (default 0: then the system is Hamiltonian).
    weight : number, optional
        The factor ``c`` of ``omega = c sum dq ^ dp`` (``q' = H_p / c``, ``p' = -H_q / c + f``).
    parameters : dict, optional
        Numeric values of constant symbols (as for :class:`~integrators.HamiltonianSystem`).

    Attributes
    ----------
    coupled : geomcheck.structures.CoupledSystem
        The one symbolic definition (its vector field and form are the ones used here).
    q, p : tuples of Symbol            every subsystem's positions / momenta, in order
    chart : geomcheck.Chart            ``(q, p)``
    omega : geomcheck.Form             ``sum_i c_i dq_i ^ dp_i``
    vector_field : geomcheck.VectorField
    energy : sympy expression          ``sum_i H_i`` (conserved only where the forces do no work)
    subsystem_energies : dict          ``{subsystem name: H_i}``
    forces : dict                      ``{momentum: nonzero force}``

    Raises
    ------
    SystemDefinitionError
        Malformed coordinates, or a coordinate named ``h`` (the step size).
    geomcheck.errors.SubsystemShapeError, geomcheck.errors.InteractionError
        From the CoupledSystem (blocks of different lengths, a force on a non-momentum).

    Examples
    --------
    >>> import sympy
    >>> from integrators.systems import ForcedHamiltonianSystem
    >>> q, p, k = sympy.symbols("q p k")
    >>> s = ForcedHamiltonianSystem(p**2 / 2, [q], [p], force={p: -k * q}, parameters={k: 2})
    >>> s.omega, s.parameters, s.parameter_values
    (Form(dq^dp), (k,), {k: 2})
    """

    kind = "forced-hamiltonian"

    def __init__(self, H, q, p, force=None, weight=1, parameters: Mapping | None = None):
        owner = "ForcedHamiltonianSystem"
        q, p = checked_symbols(q, "q", owner), checked_symbols(p, "p", owner)
        sub = Subsystem(q, p, H, force, weight=weight, name="1")
        self._setup(CoupledSystem([sub]), parameters, owner)

    @classmethod
    def from_coupled(cls, coupled: CoupledSystem, parameters: Mapping | None = None) -> "ForcedHamiltonianSystem":
        """The integrators' view of a :class:`geomcheck.structures.CoupledSystem` (no copy of it).

        Examples
        --------
        >>> from geomcheck.structures import beam_two_mass
        >>> from integrators.systems import ForcedHamiltonianSystem
        >>> B = beam_two_mass(n_x=5, n_b=2)
        >>> s = ForcedHamiltonianSystem.from_coupled(B.system)
        >>> s.chart
        Chart('u1 u2 u3 u4 q1 q2 v1 v2 v3 v4 p1 p2')
        >>> s.is_separable, sorted(s.subsystem_energies)
        (True, ['el', 'sp'])
        """
        if not isinstance(coupled, CoupledSystem):
            raise SystemDefinitionError(
                f"ForcedHamiltonianSystem.from_coupled expects a geomcheck.structures.CoupledSystem, got"
                f" {type(coupled).__name__} {coupled!r}")
        self = cls.__new__(cls)
        self._setup(coupled, parameters, "ForcedHamiltonianSystem")
        return self

    def _setup(self, coupled, parameters, owner):
        self.coupled = coupled
        subs = coupled.subsystems
        self.q = checked_symbols([x for s in subs for x in s.q], "q", owner)
        self.p = checked_symbols([x for s in subs for x in s.p], "p", owner)
        # the chart every scheme expects: all positions, then all momenta
        self.chart = gc.Chart(list(self.q + self.p))
        chart = self.chart
        self.omega = gc.Form(chart, {(chart.index(qi), chart.index(pi)): s.weight
                                     for s in subs for qi, pi in zip(s.q, s.p)})
        X = coupled.vector_field
        self.vector_field = gc.VectorField(chart, {x: X.component(x) for x in chart.coords})
        self.H = coupled.energy
        self.subsystem_energies = {s.name: s.hamiltonian for s in subs}
        self.forces = dict(coupled.interactions)
        everything = sympy.Tuple(self.H, *[X.component(x) for x in chart.coords])
        self._parameters, self._values = constant_parameters(everything, chart.coords, None, parameters, owner)

    def _key(self):
        comps = tuple(self.vector_field.component(x) for x in self.chart.coords)
        return (comps, tuple(sorted(self.omega.components.items())), self.H, self.q, self.p,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The total energy ``sum_i H_i`` (not the Hamiltonian of the coupled system: it has none)."""
        return self.H

    @property
    def is_separable(self) -> bool:
        """True iff every ``q'`` is free of q and every ``p'`` is free of p (Verlet is explicit)."""
        return self._vector_field_is_separable()

    def __repr__(self):
        sizes = ", ".join(str(len(s.q)) for s in self.coupled.subsystems)
        return (f"ForcedHamiltonianSystem({len(self.coupled.subsystems)} subsystem(s) of sizes {sizes},"
                f" {len(self.forces)} force(s), dim {self.dim})")

    def _latex(self, printer=None):
        return self.coupled._latex()


# --------------------------------------------------------------------------- a step on a submanifold


@dataclass(frozen=True)
class StepOnSubmanifold:
    """A step map restricted to a submanifold ``S = {g == 0}``, certified.

    Attributes
    ----------
    invariance : Certificate
        ``g(phi(iota(s))) == 0`` for every s: the step maps S into itself (exactly).
    symplectic : Certificate
        ``(phi o iota)^* omega == iota^* omega``: with the invariance, the restricted step
        ``phi_S`` (``phi o iota = iota o phi_S``) preserves the form ``iota^* omega`` on S.
    full_space : Certificate
        ``phi^* omega == omega`` on the whole phase space (for a forced system: False).
    dimension : int
        The dimension of S.
    derivation : Derivation
    """

    invariance: Certificate
    symplectic: Certificate
    full_space: Certificate
    dimension: int
    derivation: Derivation = field(repr=False)

    def latex(self) -> str:
        return self.derivation.latex()


def _eqs_tex(eqs):
    return r" \\ ".join(sympy.latex(e) + r" &= 0" for e in eqs)


def certify_step_on_submanifold(phi, omega, equations, solve_for=None, parameters=None) -> StepOnSubmanifold:
    """Certify that the step ``phi`` keeps ``S = {equations == 0}`` and is symplectic on it.

    Parameters
    ----------
    phi : geomcheck.Map (or ImplicitMap) of the phase space to itself (a scheme's step map)
    omega : geomcheck.Form, the symplectic form of the phase space
    equations, solve_for, parameters : see :func:`geomcheck.submanifold_parametrization`
        (``parameters``: constant symbols of the equations, e.g. the constant C of
        ``u - q - C = 0``; the step size ``h`` is allowed automatically).

    Examples
    --------
    Two masses glued by a force that keeps their velocities equal: the step leaves the
    submanifold ``{p1 = p2, q1 - q2 = C}`` invariant and is symplectic on it, not on the
    whole space.

    >>> import sympy, integrators as ig
    >>> from integrators.systems import ForcedHamiltonianSystem, certify_step_on_submanifold
    >>> q1, q2, p1, p2, C = sympy.symbols("q1 q2 p1 p2 C")
    >>> H = (p1**2 + p2**2) / 2 + q1**2 / 2
    >>> f = q1 / 2                                  # p1' = -q1 + f, p2' = -f: equal accelerations
    >>> s = ForcedHamiltonianSystem(H, [q1, q2], [p1, p2], force=[f, -f])
    >>> phi = ig.scheme("stormer-verlet").step_map(s)
    >>> r = certify_step_on_submanifold(phi, s.omega, [p1 - p2, q1 - q2 - C], [p1, q1], [C])
    >>> r.invariance.holds, r.symplectic.holds, r.full_space.holds
    (True, True, False)
    """
    chart = omega.chart
    eqs = [chart.check_expression(e, "submanifold equation") for e in equations]
    params = tuple(parameters or ())
    step_params = tuple(p for p in (phi.parameters or ()) if p not in params)
    S, iota = submanifold_parametrization(chart, eqs, solve_for, params + step_params)
    psi = compose(phi, iota)
    sub = psi.substitution()
    images = [substitute(g, sub) for g in eqs]
    inv = decide_all_zero(images)
    D_inv = Derivation(r"The step maps the submanifold $S$ into itself")
    D_inv = D_inv.add(r"$S$ is", _eqs_tex(eqs))
    D_inv = D_inv.add(r"With $\iota$ the parametrization of $S$ by "
                      + ", ".join("$" + sympy.latex(c) + "$" for c in S.coords[:6]) + (r", \dots" if S.dim > 6 else "")
                      + r", the defining functions after one step are (expanded for display), and must vanish,",
                      r" \\ ".join(r"g_{%d}(\varphi(\iota(s))) &= " % (a + 1) + show(_display(v))
                                   for a, v in enumerate(images)))
    point = dict(inv.point or {}) if inv.is_zero is False else None
    invariance = Certificate("g o phi o iota == 0 (the step keeps S)", inv.is_zero, inv.method, inv.stage,
                             residual=images, counterexample=point, derivation=D_inv)

    R = pullback(omega, psi) - pullback(omega, iota)
    dec = R.zero_decision()
    D_sym = Derivation(r"The step restricted to $S$ preserves $\iota^*\omega$")
    D_sym = D_sym.add(r"On the whole phase space, and on $S$,",
                      r"\omega &= " + show(omega) + r" \\ \iota^*\omega &= " + show(pullback(omega, iota)))
    D_sym = D_sym.add(r"Since $\varphi\circ\iota = \iota\circ\varphi_S$ (invariance), "
                      r"$\varphi_S^*\iota^*\omega = (\varphi\circ\iota)^*\omega$; the residual, which must vanish, is",
                      r"(\varphi\circ\iota)^*\omega - \iota^*\omega &= " + show(R))
    symplectic = Certificate("(phi o iota)^* omega == iota^* omega", dec.is_zero, dec.method, dec.stage,
                             residual=R, counterexample=counterexample_of(R, dec), derivation=D_sym)
    full = gc.certify_symplectic(phi, omega)
    D = Derivation(r"The step on the invariant submanifold ($\dim S = %d$ of %d)" % (S.dim, chart.dim))
    D = D.add(r"On the whole phase space: $\varphi^*\omega = \omega$ " + _verdict(full) + ".")
    D = D.add(r"$S$ is mapped into itself: " + _verdict(invariance) + ".")
    D = D.add(r"On $S$: $(\varphi\circ\iota)^*\omega = \iota^*\omega$ " + _verdict(symplectic) + ".")
    return StepOnSubmanifold(invariance, symplectic, full, S.dim, D)


def _display(e, most=4000):
    """``e`` expanded when that is cheap (for display only; zero is decided by the zero tester).

    Cheap means at most ``most`` tree nodes, counted with a bound (sympy.count_ops would walk
    the whole tree of a large expression just to refuse it).
    """
    return sympy.expand(e) if expression_size(e, most) <= most else e


def _verdict(c: Certificate) -> str:
    from geomcheck.latex import tex_text

    word = {True: "holds", False: "fails", None: "is undecided"}[c.holds]
    return word + " (" + tex_text(c.method) + ")"
