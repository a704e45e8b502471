r"""Conformally symplectic splittings for linear damping (symbolic steps).

For a damped system ``q' = H_p, p' = -H_q - gamma p``
(:class:`~integrators.DampedHamiltonianSystem`) the exact flow satisfies
``phi_t^* omega = e^{-gamma t} omega``.  Split the vector field into the Hamiltonian
part and the damping ``p' = -gamma p``; the damping's flow is exact in closed form,

    D_t : (q, p) -> (q, e^{-gamma t} p),      D_t^* omega = e^{-gamma t} omega,

and a symplectic step ``S_h`` of H keeps omega.  Every composition of them is
conformally symplectic with the *exact* factor ``e^{-gamma h}`` (the factors of the
pieces multiply), whatever the potential:

``conformal-splitting-2``       ``D_{h/2} o SV_h o D_{h/2}`` with ``SV`` Stormer-Verlet
                                (velocity form) of H: order 2, symmetric (a palindrome
                                of symmetric pieces)
``conformal-symplectic-euler``  ``D_h o SE_h`` with ``SE`` symplectic Euler B (drift
                                ``Q = q + h T_p(p)``, then kick ``P = p - h V_q(Q)``): order 1

Both are explicit for ``H = T(p) + V(q)`` and refuse other Hamiltonians.  Each is given its
Hamiltonian step (``hamiltonian_step``, the step of the undamped system) and composes it with
the damping flow by substitution; the catalog gives them its own ``stormer-verlet`` and
``symplectic-euler-b`` (one definition), which are also the defaults.

Why a splitting: a scheme built from the vector field does not see the factor.  The
implicit midpoint rule on a damped system has the Jacobian determinant
``det(I + h/2 J) / det(I - h/2 J)`` with ``J`` the Jacobian of the vector field at the
midpoint, which varies with the state unless the force is linear (it is not conformally
symplectic); Stormer-Verlet with the damping put into the force of its kicks is either not
conformally symplectic at all (force at the old momentum) or conformal with the wrong
factor ``(1 - gamma h/2)^2`` (force at the current momentum).  The test-suite certifies
all three (``test_damped_systems.py``).

The property ``"conformal-symplectic"`` is certified here with its factor:
:func:`certify_conformal_factor` holds only when ``phi^* omega = k omega`` with k constant
*and* ``k = e^{-gamma h}`` (both decided by geomcheck's zero tester).

Linear stability (see :mod:`integrators.stability`): on the damped oscillator
``H = (p^2 + omega_0^2 q^2)/2`` the splitting's step matrix has ``det = e^{-gamma h}`` and
``tr = (1 - x^2/2)(1 + e^{-gamma h})`` with ``x = h omega_0``; the roots lie in the unit disk
iff ``x < 2`` for every ``gamma >= 0``, as for Verlet.  For the Euler variant
``tr = 1 + e^{-gamma h}(1 - x^2)``: stable iff ``x^2 < 2(1 + e^{gamma h})``, an interval
that contains ``x < 2`` for every ``gamma >= 0``.

>>> import sympy, integrators as ig
>>> q, p, g = sympy.symbols("q p gamma")
>>> V = sympy.Function("V")
>>> damped = ig.DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=g)
>>> s = ig.scheme("conformal-splitting-2")
>>> c = s.certify(damped)
>>> {k: v.holds for k, v in c.items()}, c["conformal-symplectic"].factor
({'order': True, 'conformal-symplectic': True, 'symmetric': True}, exp(-gamma*h))
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.latex import Derivation
from geomcheck.structures.symplectic import show
from geomcheck.zero import decide_zero

from ..errors import SchemeNotApplicableError
from ..systems import STEP_SYMBOL
from .base import NamedScheme, Scheme
from .partitioned import symplectic_euler_b
from .stages import stage_parameters
from .verlet import StormerVerlet

__all__ = ["ConformalSplitting", "ConformalSymplecticEuler", "damping_flow", "certify_conformal_factor"]


def damping_flow(system, t):
    """The exact flow ``(q, p) -> (q, e^{-gamma t} p)`` of ``p' = -gamma p`` as a gc.Map.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> q, p, g, t = sympy.symbols("q p gamma t")
    >>> damping_flow(ig.DampedHamiltonianSystem(p**2 / 2, q, p, g), t).exprs
    (q, p*exp(-gamma*t))
    """
    decay = sympy.exp(-system.damping * sympy.sympify(t))
    exprs = list(system.q) + [decay * pi for pi in system.p]
    return gc.Map(system.chart, system.chart, exprs, parameters=stage_parameters(system) + [
        s for s in sympy.sympify(t).free_symbols if s != STEP_SYMBOL])


def _then(exprs, state, coords):
    """``exprs`` (a map in ``coords``) evaluated at ``state`` (the composition map o state)."""
    at = dict(zip(coords, state))
    return [gc.substitute(e, at) for e in exprs]


def certify_conformal_factor(phi, system, h=STEP_SYMBOL) -> Certificate:
    """Certify ``phi^* omega = e^{-gamma h} omega``: conformally symplectic with the exact flow's factor.

    :func:`geomcheck.certify_conformal_symplectic` gives the factor k (and that it is a constant);
    then ``k - e^{-gamma h}`` is decided by the zero tester.  ``holds`` is True only when both
    hold; False with a counterexample when either fails; ``factor`` is k.

    Examples
    --------
    >>> import sympy, geomcheck as gc, integrators as ig
    >>> q, p, g, h = sympy.symbols("q p gamma h")
    >>> s = ig.DampedHamiltonianSystem(p**2 / 2 + q**2 / 2, q, p, g)
    >>> euler = gc.Map(s.chart, s.chart, [q + h * p, p - h * q - h * g * p])     # explicit Euler
    >>> c = certify_conformal_factor(euler, s)
    >>> c.holds, c.factor
    (False, -gamma*h + h**2 + 1)
    """
    # conformally symplectic for small steps (as every property of a scheme): k(0) = 1 must not vanish
    base = gc.certify_conformal_symplectic(phi, system.omega, small_step=h)
    expected = system.conformal_factor(h)
    D = Derivation(r"$\varphi^*\omega = e^{-\gamma h}\,\omega$: conformally symplectic with the factor of the exact flow",
                   base.derivation.steps)
    if base.holds is not True:
        D = D.add(r"$\varphi^*\omega = k\,\omega$ with a constant $k$ "
                  + ("fails" if base.holds is False else "is undecided") + r", so the claim does too.")
        return Certificate("phi^* omega == exp(-gamma h) omega", base.holds, base.method, base.stage,
                           residual=base.residual, factor=base.factor, counterexample=base.counterexample,
                           derivation=D)
    k = base.factor
    dec = decide_zero(k - expected)
    D = D.add(r"The factor must be the exact flow's $e^{-\gamma h}$; the difference, which must vanish, is",
              r"k - e^{-\gamma h} &= " + show(k - expected))
    method = base.method + "; the factor equals exp(-gamma h): " + dec.method
    point = dict(dec.point or {}) if dec.is_zero is False else None
    if point is not None and dec.value is not None:
        point["value"] = dec.value
    return Certificate("phi^* omega == exp(-gamma h) omega", dec.is_zero, method,
                       dec.stage if dec.is_zero is not True else base.stage, residual=k - expected, factor=k,
                       counterexample=point, derivation=D)


class _DampingSplitting(NamedScheme):
    """What both splittings share: the Hamiltonian step, the requirement, the separability check, the factor.

    A subclass declares ``order`` and ``properties`` and names, in ``step_properties``, what its
    Hamiltonian step must have for them to hold (the step's order must be at least ``order``).
    """

    requires = frozenset({"damped"})
    step_properties: frozenset = frozenset({"symplectic"})

    def __init__(self, hamiltonian_step: Scheme):
        if not isinstance(hamiltonian_step, Scheme):
            raise TypeError(f"{type(self).__name__}: the Hamiltonian step must be a Scheme, got"
                            f" {type(hamiltonian_step).__name__} {hamiltonian_step!r}")
        lacking = sorted(self.step_properties - hamiltonian_step.properties)
        if lacking or hamiltonian_step.order < self.order:
            raise ValueError(
                f"{type(self).__name__}: the Hamiltonian step must be {' and '.join(sorted(self.step_properties))}"
                f" of order >= {self.order} for the splitting to be {', '.join(sorted(self.properties))} of order"
                f" {self.order}; {hamiltonian_step.name} has order {hamiltonian_step.order} and properties"
                f" {sorted(hamiltonian_step.properties)}")
        self.hamiltonian_step = hamiltonian_step

    def __eq__(self, other):
        return type(other) is type(self) and other.hamiltonian_step == self.hamiltonian_step

    def __hash__(self):
        return hash((self.name, self.hamiltonian_step))

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and not system.hamiltonian_is_separable:
            reason = (f"{self.name} is explicit only for a separable Hamiltonian H = T(p) + V(q); the Hamiltonian"
                      f" {system.energy} of {system!r} couples positions and momenta (a mixed derivative H_qp is"
                      " nonzero); use an implicit scheme (e.g. gauss-legendre-4; it is not conformally symplectic)")
        if reason is None:
            reason = self.hamiltonian_step.why_not(system.undamped)
        return reason

    def _hamiltonian_map(self, system):
        """The Hamiltonian step of the undamped system, an explicit map (its expressions are composed)."""
        phi = self.hamiltonian_step.step_map(system.undamped)
        if not isinstance(phi, gc.Map):
            raise SchemeNotApplicableError(
                f"scheme {self.name!r} does not apply: its Hamiltonian step {self.hamiltonian_step.name} is implicit on"
                f" {system.undamped!r}, and the splitting composes explicit maps")
        return phi

    def _certify_one(self, prop, phi, system):
        if prop == "conformal-symplectic":
            return certify_conformal_factor(phi, system, self.h)
        return super()._certify_one(prop, phi, system)

    def _compose(self, system, pieces):
        """``pieces`` (maps in the system's coordinates, first applied first) composed, as one gc.Map."""
        coords = system.coords
        state = list(coords)
        for exprs in pieces:
            state = _then(exprs, state, coords)
        return gc.Map(system.chart, system.chart, state, parameters=stage_parameters(system))


class ConformalSplitting(_DampingSplitting):
    """``D_{h/2} o SV_h o D_{h/2}``: the second-order conformally symplectic splitting (module docstring).

    Parameters
    ----------
    hamiltonian_step : Scheme, optional
        The step ``SV`` of the undamped system: symplectic and symmetric, of order >= 2
        (default: Stormer-Verlet, velocity form; the catalog gives its ``stormer-verlet``).
    """

    name = "conformal-splitting-2"
    order = 2
    properties = frozenset({"conformal-symplectic", "symmetric"})
    step_properties = frozenset({"symplectic", "symmetric"})
    description = "Strang splitting: exact damping p -> exp(-gamma h/2) p around Stormer-Verlet of H"

    def __init__(self, hamiltonian_step: Scheme | None = None):
        super().__init__(StormerVerlet("velocity") if hamiltonian_step is None else hamiltonian_step)

    def _build(self, system):
        verlet = self._hamiltonian_map(system)
        half = damping_flow(system, self.h / 2).exprs
        return self._compose(system, [half, verlet.exprs, half])


class ConformalSymplecticEuler(_DampingSplitting):
    """``D_h o SE_h`` with symplectic Euler B: the first-order conformally symplectic splitting.

    Parameters
    ----------
    hamiltonian_step : Scheme, optional
        The step ``SE`` of the undamped system: symplectic, of order >= 1 (default: symplectic
        Euler B, :func:`~integrators.schemes.partitioned.symplectic_euler_b`; the catalog gives its
        ``symplectic-euler-b``).
    """

    name = "conformal-symplectic-euler"
    order = 1
    properties = frozenset({"conformal-symplectic"})
    description = "symplectic Euler B (drift, kick) of H, then the exact damping p -> exp(-gamma h) p"

    def __init__(self, hamiltonian_step: Scheme | None = None):
        super().__init__(symplectic_euler_b() if hamiltonian_step is None else hamiltonian_step)

    def _build(self, system):
        euler = self._hamiltonian_map(system)
        return self._compose(system, [euler.exprs, damping_flow(system, self.h).exprs])
