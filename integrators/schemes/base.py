"""What every scheme is: a name, an order, properties, and one symbolic step.

A scheme is either *data* (a tableau, composition coefficients) from which the
step is built, or a *symbolic step* written by hand; never both.  Whatever it is,
``step_map(system)`` returns the one geomcheck ``Map``/``ImplicitMap`` that is
certified (:meth:`Scheme.certify`) and lowered to numbers (``integrators.lower``).

Properties are strings:

``"symplectic"``             phi^* omega == omega        (gc.certify_symplectic)
``"symmetric"``              phi_h o phi_{-h} == id      (gc.certify_symmetric)
``"contact"``                phi^* eta == g eta          (gc.certify_contact)
``"conformal-symplectic"``   phi^* omega == k omega      (gc.certify_conformal_symplectic)
``"energy-preserving"``      H o phi == H                (gc.certify_conserves)
``"energy-balance"``         H o phi - H equals the scheme's discrete dissipation/supply
                             term exactly (dissipative and port-Hamiltonian systems; the
                             scheme's own ``_certify_one`` says which term)
``"poisson"``                D phi P D phi^T == P o phi  (certify_poisson, Poisson systems)
``"casimir-preserving"``     C o phi == C for every Casimir C of a Poisson system
                             (certify_preserves_casimir)
``"volume-preserving"``      rho(phi) det D phi == rho, rho the system's invariant density
                             (certify_volume_preserving; 1 unless the system has a ``density``)
``"constraint-preserving"``  the constraints (and, where the scheme claims it, their hidden
                             velocity constraints) hold after the step when they held before

A requirement (``requires``) is a key of :data:`REQUIREMENTS`; the keys of
:data:`SYSTEM_KINDS` are met exactly by systems whose ``kind`` is listed there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, NamedTuple

import sympy

import geomcheck as gc

from ..errors import SchemeNotApplicableError
from ..systems import STEP_SYMBOL, CanonicalSystem, ContactSystem, HamiltonianSystem, System

if TYPE_CHECKING:
    from geomcheck.bseries import BSeries
    from geomcheck.certify import Certificate

__all__ = ["Scheme", "NamedScheme", "Stage", "PROPERTIES", "REQUIREMENTS", "SYSTEM_KINDS"]

PROPERTIES = ("symplectic", "symmetric", "contact", "conformal-symplectic", "energy-preserving", "energy-balance",
              "constraint-preserving", "poisson", "casimir-preserving", "volume-preserving")

#: what a scheme may require of a system, and how to say that it is missing
REQUIREMENTS = {
    "hamiltonian": ("a canonical system (positions q and momenta p: a HamiltonianSystem, or a"
                    " ForcedHamiltonianSystem from integrators.systems)"),
    "separable": "a separable Hamiltonian H = T(p) + V(q)",
    "contact": "a contact system with a coordinate z (a ContactSystem)",
    "autonomous": "an autonomous system (no explicit time t)",
    "damped": "a Hamiltonian system with linear damping p' = -H_q - gamma p (a DampedHamiltonianSystem)",
    "constrained": "a Hamiltonian system with holonomic constraints g(q) = 0 (a ConstrainedHamiltonianSystem)",
    "port-hamiltonian": "a port-Hamiltonian system x' = (J - R) grad H + g u (a PortHamiltonianSystem)",
    "poisson": "a Poisson system x' = P(x) grad H(x) (a PoissonSystem of integrators.systems.poisson)",
    "coupled-natural": ("two natural systems coupled by action and reaction (an integrators CoupledNaturalSystem"
                        " of a geomcheck.structures.CoupledNaturalSystem)"),
    "lagrangian": ("a Lagrangian system L(q, qdot), optionally forced (an integrators.systems.lagrangian"
                   " LagrangianSystem)"),
    "nonholonomic": ("a mechanical system with linear velocity constraints A(q) qdot = 0 (a NonholonomicSystem of"
                     " integrators.systems.nonholonomic)"),
}

#: requirements met by the system's ``kind`` alone: {requirement: kinds that meet it}
SYSTEM_KINDS = {
    "damped": frozenset({"damped-hamiltonian"}),
    "constrained": frozenset({"constrained-hamiltonian"}),
    "port-hamiltonian": frozenset({"port-hamiltonian"}),
    "coupled-natural": frozenset({"coupled-natural"}),
    "lagrangian": frozenset({"lagrangian"}),
    "nonholonomic": frozenset({"nonholonomic"}),
}


class Stage(NamedTuple):
    """One stage of a step: the map ``phi`` applied with the step ``factor * h``.

    ``offset`` is where the stage starts in time, in units of ``h`` (a time-dependent
    system's time ``t`` is replaced by ``t + offset * h`` in that stage).
    """

    map: object
    factor: object = sympy.Integer(1)
    offset: object = sympy.Integer(0)


class Scheme:
    """Base class of every scheme (see the module docstring).

    Subclasses set ``name`` and ``requires`` and implement ``_build(system)`` (the
    step map) and the ``order`` and ``properties`` attributes (declared or computed).
    """

    name: str = "scheme"
    #: requirements on the system (keys of REQUIREMENTS)
    requires: frozenset = frozenset()
    #: the step-size symbol of every scheme
    h = STEP_SYMBOL
    #: a short description for listings
    description: str = ""

    # -- applicability
    def why_not(self, system: object) -> str | None:
        """None when the scheme applies to ``system``, else the reason (a sentence)."""
        if not isinstance(system, System):
            return (f"expected a system of integrators (HamiltonianSystem, ContactSystem, ...), got"
                    f" {type(system).__name__} {system!r}")
        for req in sorted(self.requires & set(SYSTEM_KINDS)):
            if getattr(system, "kind", None) not in SYSTEM_KINDS[req]:
                return f"{self.name} needs {REQUIREMENTS[req]}; {system!r} is a {type(system).__name__}"
        if "hamiltonian" in self.requires and not isinstance(system, CanonicalSystem):
            if isinstance(system, ContactSystem):
                return (f"{self.name} needs {REQUIREMENTS['hamiltonian']}; {system!r} is a contact system"
                        " (it has the coordinate z and no symplectic form)")
            return f"{self.name} needs {REQUIREMENTS['hamiltonian']}"
        if "separable" in self.requires and not (isinstance(system, CanonicalSystem) and system.is_separable):
            if not isinstance(system, HamiltonianSystem):
                return (f"{self.name} is explicit only when q' depends on p alone and p' on q alone; the"
                        f" vector field of {system!r} is not of that form (a force or H_qp depends on both);"
                        " use an implicit scheme (e.g. implicit-midpoint, lobatto-iiia-iiib-2)")
            return (f"{self.name} is explicit only for {REQUIREMENTS['separable']}; the Hamiltonian "
                    f"{system.energy} couples positions and momenta (a mixed derivative H_qp is nonzero);"
                    " use an implicit scheme (e.g. implicit-midpoint, gauss-legendre-4, lobatto-iiia-iiib-2)")
        if "contact" in self.requires and not isinstance(system, ContactSystem):
            return (f"{self.name} needs {REQUIREMENTS['contact']}; {system!r} has no coordinate z"
                    " (wrap it as a ContactSystem(H, x, p, z))")
        if "autonomous" in self.requires and system.time is not None:
            return f"{self.name} needs {REQUIREMENTS['autonomous']}; {system!r} depends on {system.time}"
        return None

    def check_applies(self, system: object) -> None:
        """Raise :class:`SchemeNotApplicableError` (with the reason) unless the scheme applies."""
        reason = self.why_not(system)
        if reason is not None:
            raise SchemeNotApplicableError(f"scheme {self.name!r} does not apply: {reason}")

    # -- the one symbolic step
    def step_map(self, system: System) -> gc.Map | gc.ImplicitMap:
        """The one-step map of this scheme for ``system`` (a gc.Map or gc.ImplicitMap in ``h``).

        Built once per system and cached: the same object is certified and lowered.
        """
        self.check_applies(system)
        cache = self.__dict__.setdefault("_step_maps", {})
        phi = cache.get(system)
        if phi is None:
            phi = self._build(system)
            cache[system] = phi
        return phi

    def _build(self, system):
        raise NotImplementedError

    def stages(self, system: System) -> tuple[Stage, ...]:
        """The step as a sequence of :class:`Stage` s, in the order they act.

        One stage (the step map itself) unless the scheme is a composition: then the
        stages are the factors ``base(gamma_i h)``, kept apart so that a many-stage step is
        lowered and run stage by stage (the composite's single expression grows
        exponentially with the number of stages).  Running the stages one after the other
        IS evaluating :meth:`step_map`: the composite is built from the same stages.
        """
        return (Stage(self.step_map(system)),)

    # -- certification
    def certify(self, system: System, properties: Iterable[str] | None = None) -> dict[str, Certificate]:
        """Certificates of the order and of every declared property, on ``system``.

        Returns ``{"order": Certificate, property: Certificate, ...}``.  Properties that
        do not make sense on the system are left out ("symplectic" on a contact system,
        "contact" on a Hamiltonian one); on a time-dependent system the order and the
        symmetry (both defined here for autonomous fields) are left out too.

        Parameters
        ----------
        system : HamiltonianSystem or ContactSystem
        properties : iterable of str, optional
            Only these (and "order" only if listed); default: the order and all declared.
        """
        if self.certifies_without_the_map:
            self.check_applies(system)
            phi = None           # _certify_one builds what a property needs (a long composite is costly)
        else:
            phi = self.step_map(system)
        wanted = ["order", *sorted(self.properties)] if properties is None else list(properties)
        out = {}
        for prop in wanted:
            cert = self._certify_one(prop, phi, system)
            if cert is not None:
                out[prop] = cert
        return out

    def _certify_one(self, prop, phi, system):
        h = self.h
        if prop == "order":
            if system.time is not None or self.order < 1:
                return None
            return gc.certify_order(phi, system.vector_field, h, int(self.order))
        if prop == "symmetric":
            return gc.certify_symmetric(phi, h) if system.time is None else None
        if prop == "symplectic":
            # on a forced system this is the honest question "symplectic on the whole phase space?"
            return gc.certify_symplectic(phi, system.omega) if isinstance(system, CanonicalSystem) else None
        # a scheme's factor (1 - gamma h, e^{-gamma h}, ...) is claimed nonzero for small steps, as
        # every property of a scheme is a statement about small h
        if prop == "conformal-symplectic":
            return (gc.certify_conformal_symplectic(phi, system.omega, small_step=h)
                    if isinstance(system, CanonicalSystem) else None)
        if prop == "contact":
            return gc.certify_contact(phi, system.eta, small_step=h) if isinstance(system, ContactSystem) else None
        if prop == "energy-preserving":
            return gc.certify_conserves(phi, system.energy)
        if prop in ("poisson", "casimir-preserving", "volume-preserving"):
            return _certify_poisson_property(prop, phi, system)
        raise ValueError(f"unknown property {prop!r}; known: order, {', '.join(PROPERTIES)}")

    #: True for schemes whose ``_certify_one`` gets ``phi=None`` and builds only what a property needs
    #: (compositions and splittings: the composite map of many stages is costly and rarely needed)
    certifies_without_the_map = False

    def bseries(self, order: int) -> BSeries:
        """The B-series (or P-series) of the scheme up to ``order``, for schemes that are B-series methods.

        Runge-Kutta and partitioned Runge-Kutta tableaux, Stormer-Verlet and compositions of
        such schemes have one (:mod:`geomcheck.bseries`); any other scheme raises
        :class:`~geomcheck.errors.BSeriesError`.
        """
        from geomcheck.errors import BSeriesError

        raise BSeriesError(f"the scheme {self.name!r} is not a B-series method (it is not a Runge-Kutta or "
                           f"partitioned Runge-Kutta method, nor a composition of one), so it has no B-series")

    def observed_order(self, system: System, max_order: int | None = None) -> int | None:
        """The order of the step map on ``system`` by Taylor expansion (gc.map_order)."""
        phi = self.step_map(system)
        return gc.map_order(phi, system.vector_field, self.h, max_order or int(self.order) + 1)

    # -- display
    def __repr__(self):
        return f"<scheme {self.name}>"

    def _latex(self, printer=None):
        return r"\text{" + self.name + "}"

    def _repr_latex_(self):
        return f"${self._latex()}$"


def _certify_poisson_property(prop, phi, system):
    """The certificate of a Poisson-structure property (None where it makes no sense on ``system``)."""
    if prop == "volume-preserving":
        return gc.certify_volume_preserving(phi, getattr(system, "density", 1))
    if getattr(system, "kind", None) != "poisson":
        return None
    if prop == "poisson":
        return gc.certify_poisson(phi, system.P)
    casimirs = getattr(system, "casimirs", ())
    if not casimirs:
        return None
    # one certificate for all Casimirs: the first that is not proved, else the last
    out = None
    for C in casimirs:
        out = gc.certify_preserves_casimir(phi, C, system.P)
        if out.holds is not True:
            break
    return out


class NamedScheme(Scheme):
    """A scheme without parameters: its class says everything (equal iff of the same class)."""

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"


def scaled(phi, factor, offset=0, time=None):
    """The step map with ``h`` replaced by ``factor * h`` (fresh unknowns for implicit maps).

    With a ``time`` symbol, ``time`` is replaced by ``time + offset * h`` too (the stage of a
    composition that starts ``offset * h`` after the step does).
    """
    h = STEP_SYMBOL
    factor = sympy.sympify(factor)
    sub = {h: factor * h}
    if time is not None and sympy.sympify(offset) != 0:
        sub[time] = time + sympy.sympify(offset) * h
    if isinstance(phi, gc.Map):
        return gc.Map(phi.source, phi.target, [gc.substitute(e, sub) for e in phi.exprs],
                      parameters=phi.parameters)
    from .stages import StageMap

    fresh = {u: sympy.Dummy(u.name) for u in phi.unknowns}
    eqs = [gc.substitute(e, {**sub, **fresh}) for e in phi.equations]
    return StageMap(phi.source, phi.target, eqs, new=[fresh[u] for u in phi.new],
                          auxiliary=[fresh[u] for u in phi.auxiliary], parameters=phi.parameters,
                          guess={fresh[u]: gc.substitute(g, sub) for u, g in phi.guess.items()},
                          step=h)
