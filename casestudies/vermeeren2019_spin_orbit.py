r"""Bravetti, Seri, Vermeeren & Zadra: the spin-orbit problem with time-dependent damping.

Our copy of the paper is the slide deck "Variational integrators for contact Hamiltonian systems"
(Vermeeren, with Bravetti and Seri; Oxford, 2019).  It prints no equation numbers (this module
cites none: ``EQUATIONS`` is empty) and no slide numbers.  Slides are numbered as the frames of
our copy: title frame = 1, the "Contents" frame and the five section "Table of Contents" frames
counted, block headings inside a frame ("Splitting integrator", "Theorem") not.  Cited here:
slide 8 "Properties of symplectic integrators", slide 25 "All contact maps are variational",
slide 26 "Backward error analysis", slide 31 "Time-dependent example: spin-orbit mechanics",
slide 32 "Conclusions" (whose references list the Celestial Mechanics paper, arXiv:1909.02613,
which is not in our copy).

Slide 31 (a flexible satellite on a fixed orbit, the rotation angle theta, our q) prints
``H = p^2/2 + N_z(theta, t)/C + (dC/dt)(1/C) z  =>  theta'' + (dC/dt) theta'/C - N_z(theta, t)/C = 0``,
i.e. ``d/dt (C theta') = N_z`` with N_z the gravity torque, and shows "capture into resonance":
the angular velocity decreasing, and a Poincare section (angle and angular velocity at a fixed
point of the orbit).  We run the model as ``q'' + f(t) q' + V_q(q, t) = 0`` with the contact
Hamiltonian ``H = p^2/2 + V(q, t) + f(t) z``, ``-V_q`` the torque over C (see the slide-31
finding).  The slides give no coefficients; all of the following are OUR CHOICE (after the
Celestial Mechanics paper and Gkolias et al. 2017):

* ``C(t) = C0 (1 + lambda cos(omega t))``, ``lambda = 0.05``, ``omega = 1``;
* the gravity-gradient torque to the classical order in e (Goldreich-Peale coefficients of
  ``(a/r)^3 cos(2q - 2f)``): ``W(q, t) = -(eps/2) [(1 - 5e^2/2) cos(2q - 2t)
  + (e/2)(7 cos(2q - 3t) - cos(2q - t)) + (17 e^2/2) cos(2q - 4t)]``, ``eps = 0.01``,
  ``e = 0.0549`` (the Moon), the mean anomaly t (mean motion 1, period 2 pi);
* a linear (MacDonald-type) tidal torque ``-K (q' - 1)`` towards synchronous rotation.
  Needed: with ``C'/C`` alone the damping has zero mean (``d(C q')/dt = N`` is Hamiltonian
  in the time ``s = int dt/C``), so nothing could be captured; ``eta = K/C0`` = 0.02 (quick)
  and 0.005 (paper profile).

So ``d/dt (C q') = -C0 W_q - K (q' - 1)``, i.e.
``q'' + f(t) q' + V_q(q, t) = 0`` with ``f = (C' + eta C0)/C = (c' + eta)/c`` and
``V = (W - eta q)/c``, ``c = 1 + lambda cos(omega t)``; the contact Hamiltonian is
``H = p^2/2 + V(q, t) + f(t) z``.  It is integrated by the symmetric splitting
``D/2 C/2 B/2 A B/2 C/2 D/2`` of the autonomized ``H + E``
(:class:`integrators.schemes.contact_time_splitting.TimeDependentContactSplitting`; slide 28
announces this "more complicated but similar construction"): the extended step on
``(q, t, p, E, z)`` is certified contact (factor ``exp(-f(t + h/2) h)``), symmetric and of
order 2, and the very same map is lowered and run on an ensemble.

Checks: capture into the 1:1 resonance of every trajectory started at ``q' = 1.3`` (outside
the resonance: its separatrix half-width is about ``sqrt(2 eps) = 0.14``) -- the last ten
stroboscopic points (t = 2 pi k) have ``|q' - 1| < sqrt(2 eps)`` and the stroboscopic steps
contract (the points converge to the resonant fixed point); the contact certificates; a
50-digit run with the contact defect of the extended step's Jacobian.  And the claims of
slides 25-26, for every ``H = p^2/2 + V(q, t) + g(t) z`` (V, g undefined functions: the
spin-orbit H is one of them):

* "The modified equations are also a contact system" (slide 26): every term ``F_k`` of the
  modified vector field of the extended step, k = 1..3 (quick; 1..4 in the paper profile, i.e.
  the modified equations to ``O(h^3)``, resp. ``O(h^4)``), is the contact Hamiltonian field of
  ``H_k = -eta(F_k)`` for ``eta = dz - p dq - E dt``; ``H~ = E + K(q, p, z, t; h)``
  (``t' = 1`` exactly, ``F_2 = 0`` by symmetry).
* "x'' = f_mod is the generalized Euler-Lagrange equation of L_mod" (slide 26).  Precisely:
  the Legendre transform of ``K``, inverted as a series in h, gives ``L~(q, q', z, t; h)`` such
  that along the modified field ``z' = L~(q, q', z, t)`` and
  ``L~_q - d/dt L~_{q'} + L~_z L~_{q'} = 0``, both to the same order.  This is what
  "variational" means for the modified equations: Herglotz's principle for ``L~``.
* "All contact maps are variational" (slide 25): the step at the time ``t_j`` (on
  ``(q, p, z)``, t a parameter) is the position-momentum map of its generating Lagrangian
  ``L(q_j, q_{j+1}, z_j; t_j) = (z_{j+1} - z_j)/h``: ``p_j = -h D1 L/(1 + h D3 L)``,
  ``p_{j+1} = h D2 L``, so the iterates solve the discrete Herglotz principle with the
  step-dependent Lagrangians ``L_j`` (see the slide-25 critique for why not one L on (q, t)).

Findings (each with its kind, ``casestudies._core.FINDING_KINDS``, and the test that shows it:
``FINDINGS``):

* [error] slide 31: ``N_z`` is the potential in H but the torque in the equation of motion.
  Contact equations of the printed H: ``theta'' + (C'/C) theta' + (dN_z/dtheta)/C = 0``; the
  printed ``... - N_z/C = 0`` (``d/dt (C theta') = N_z``, the torque) follows only from
  ``H = p^2/2 - (1/C) int N_z dtheta + (C'/C) z``.  No single meaning of N_z makes the printed
  implication true; the equation of motion (torque) is the physical one, and ours.
* [damage] slide 8: as read in our copy, a symplectic integrator keeps a modified energy "over a
  time interval of length O(e^{-h})".  That cannot be what is meant: ``e^{-h} < 1``, so the
  statement would be empty.  The result is the standard one, exponentially long times
  ``O(e^{c/h})`` (Benettin-Giorgilli 1994; Hairer-Lubich-Wanner, GNI IX.8), which the speaker,
  whose subject is backward error analysis (slide 26), states correctly in substance.  Our copy
  cannot tell whether the slide or the conversion lost the ``1/h`` (a small stacked fraction in
  an exponent, its bar read as a minus); we record it as read in our copy and do not call it a
  misprint.  Measured: Stormer-Verlet keeps the modified energy of the pendulum to ``O(h^4)``,
  without drift, over t = 10^4, four orders of magnitude beyond ``e^{-h}``.
* [critique] slide 25: "any contact transformation" needs an unstated hypothesis: the new
  positions must determine the old momenta (the twist condition).  Our extended step fails it in
  the t direction (``t_{j+1} = t_j + h`` whatever E is: ``d(q_{j+1}, t_{j+1})/d(p_j, E_j)`` is
  singular), so no ``L(q_j, t_j, q_{j+1}, t_{j+1}, z_j)`` generates it; the step at fixed ``t_j`` does
  satisfy it and is generated by ``L_j`` (checked).

Measured (this machine, loaded): quick profile 13 s (120 orbits, 8 trajectories, h = 2 pi/50; the
slides-25-26 certificates 1.1 s of it); paper profile 33 s (500 orbits, 16 trajectories,
h = 2 pi/100, eta = 0.005, the order and symmetry certificates, modified equations to O(h^4)); all
checks pass in both.  The mean q' over each of the last 10 orbits is 1 +- 3.1e-4 (quick profile),
1 +- 1.4e-4 (paper profile).

>>> import casestudies
>>> "vermeeren-spin-orbit" in casestudies.names()
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

import geomcheck as gc
import integrators as ig
from geomcheck.calculus import diff
from geomcheck.structures import certify_contact_factor, certify_time_dependent_energy_law, darboux_coordinates
from geomcheck.structures.contact import (contact_coordinates, contact_generating_lagrangian,
                                          modified_contact_hamiltonian, modified_herglotz_lagrangian)
from integrators.run_map import run_map
from integrators.schemes.contact_time_splitting import TimeDependentContactSplitting
from integrators.systems import STEP_SYMBOL

from . import _plotting
from ._core import CaseResult, Finding, check_below, check_true
from .observing import expressions_on_states
from .tangent import jacobians

__all__ = ["NAME", "TITLE", "SOURCE", "FINDINGS", "EQUATIONS", "Parameters", "run", "certify", "simulations",
           "checks", "spin_orbit_system",
           "generic_system", "stroboscopic_section", "modified_equation_certificates"]

NAME = "vermeeren-spin-orbit"
TITLE = "Spin-orbit problem with time-dependent damping: capture into the 1:1 resonance"
SOURCE = ("Vermeeren (with Bravetti & Seri), slides 'Variational integrators for contact Hamiltonian systems'"
          " (Oxford, 2019), slides 25-26 and 31; the model after Bravetti, Seri, Vermeeren & Zadra,"
          " Celest. Mech. Dyn. Astr. 132 (2020), arXiv:1909.02613 (listed on slide 32, not in our copy)")

#: our copy of the slides prints no equation numbers and this module cites none
EQUATIONS: dict = {}

_TESTS = "tests/casestudies/test_vermeeren2019_spin_orbit.py"
_ME_TESTS = "tests/geomcheck/structures/test_contact_modified_equations.py"

FINDINGS = (
    Finding("error", "slide 31",
            "The slide prints H = p^2/2 + N_z(theta, t)/C + (dC/dt)(1/C) z => theta'' + (dC/dt) theta'/C"
            " - N_z(theta, t)/C = 0: N_z enters H as a potential but the equation of motion as the torque"
            " (d/dt (C theta') = N_z). The contact equations of the printed H give theta'' + (C'/C) theta'"
            " + (dN_z/dtheta)/C = 0; the printed equation follows from H = p^2/2 - (1/C) int N_z dtheta"
            " + (C'/C) z. No single meaning of N_z makes the printed implication true; the equation of motion"
            " (torque reading) is the physical one and the one we run.",
            f"{_TESTS}::test_slide_31_N_z_is_a_potential_in_H_but_a_torque_in_the_equation"),
    Finding("damage", "slide 8",
            "As read in our copy, a symplectic integrator nearly preserves a modified energy 'over a time"
            " interval of length O(e^{-h})'; since e^{-h} < 1 that statement would be empty. The standard"
            " result (Benettin-Giorgilli; Hairer-Lubich-Wanner IX.8) is exponentially long times O(e^{c/h})."
            " Our copy cannot tell whether the slide or the conversion lost the 1/h; we do not call it an"
            " error of the authors. Stormer-Verlet keeps the pendulum's modified energy to O(h^4) without"
            " drift over t = 1e4, four orders of magnitude beyond e^{-h}.",
            f"{_ME_TESTS}::test_modified_energy_is_kept_far_beyond_the_printed_time_scale"),
    Finding("critique", "slide 25",
            "'Iterations of any contact transformation ... solve the discrete Herglotz variational principle"
            " for some L(x_j, x_{j+1}, z_j)' needs an unstated hypothesis: the new positions must determine"
            " the old momenta (twist condition), as for symplectic generating functions. The autonomized"
            " time-dependent step fails it in the t direction (t_{j+1} = t_j + h whatever E_j is), so no"
            " L(q_j, t_j, q_{j+1}, t_{j+1}, z_j) generates it; the step at fixed t_j satisfies it and is the"
            " position-momentum map of its generating Lagrangian L_j (checked).",
            f"{_TESTS}::test_slide_25_needs_the_twist_condition"),
)

q, p, z, t = sympy.symbols("q p z t")
eps_, ecc_, lam_, om_, eta_ = sympy.symbols("epsilon e lambda omega eta")
h = STEP_SYMBOL


@dataclass(frozen=True)
class Parameters:
    """Every parameter (all 'our choice', see the module docstring)."""

    eps: float = 0.01
    ecc: float = 0.0549
    lam: float = 0.05
    omega: float = 1.0
    eta: float = 0.02
    steps_per_orbit: int = 50
    orbits: int = 120
    q0: tuple = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, -0.5)
    qdot0: float = 1.3
    hp_steps: int = 3
    hp_dps: int = 50
    order_and_symmetry: bool = False      # the slower certificates (8 s) only in the paper profile
    modified_order: int = 3               # modified equations checked to O(h^modified_order) (slide 26)

    @classmethod
    def quick(cls):
        return cls()

    @classmethod
    def paper(cls):
        return cls(order_and_symmetry=True, modified_order=4, eta=0.005, steps_per_orbit=100, orbits=500,
                   q0=tuple(np.round(np.linspace(-3.0, 3.0, 16), 3)))


def _potential(time):
    c = 1 + lam_ * sympy.cos(om_ * time)
    W = -(eps_ / 2) * ((1 - sympy.Rational(5, 2) * ecc_**2) * sympy.cos(2 * q - 2 * time)
                       + ecc_ / 2 * (7 * sympy.cos(2 * q - 3 * time) - sympy.cos(2 * q - time))
                       + sympy.Rational(17, 2) * ecc_**2 * sympy.cos(2 * q - 4 * time))
    return c, W


def spin_orbit_system(P: Parameters | None = None):
    """``ContactSystem(p^2/2 + (W - eta q)/c + (c' + eta)/c z)`` with time t (values from P when given)."""
    c, W = _potential(t)
    f = (diff(c, t) + eta_) / c
    H = p**2 / 2 + (W - eta_ * q) / c + f * z
    values = None if P is None else {eps_: P.eps, ecc_: P.ecc, lam_: P.lam, om_: P.omega, eta_: P.eta}
    return ig.ContactSystem(H, q, p, z, t=t, parameters=values)


def generic_system():
    """``p^2/2 + V(q, t) + g(t) z`` with V, g undefined."""
    return ig.ContactSystem(p**2 / 2 + sympy.Function("V")(q, t) + sympy.Function("g")(t) * z, q, p, z, t=t)


def modified_equation_certificates(order: int = 3, system=None, scheme=None) -> dict:
    """The claims of slides 25-26 for the extended step of ``system`` (default: the generic class).

    Returns ``{"contact": ..., "variational": ..., "generating Lagrangian": ...}``: certificates that
    the modified vector field to ``O(h^order)`` is a contact Hamiltonian field, that the modified
    equations are the Herglotz equations of the modified Lagrangian to the same order, and that the
    step at a fixed time is the position-momentum map of its generating Lagrangian.
    """
    system = generic_system() if system is None else system
    scheme = TimeDependentContactSplitting() if scheme is None else scheme
    ext_system, ext_phi, tt = scheme.extended(system)
    Ht, contact = modified_contact_hamiltonian(ext_phi, ext_system.eta, h, order)
    base = contact_coordinates(system.chart, system.x, system.p, system.z)
    _, _, variational = modified_herglotz_lagrangian(Ht, base, h, order, time=tt, energy=ext_system.p[-1])
    _, _, generating = contact_generating_lagrangian(scheme.step_map(system), base, h)
    return {"contact": contact, "variational": variational, "generating Lagrangian": generating}


# --------------------------------------------------------------------------- run helpers


def _contact_defect(ext_system, ext_phi, gamma_ext, values, y0, dt, dps, steps):
    """max |eta~(phi(y)) Dphi(y) - g(y) eta~(y)| over a few steps of the extended map, in mpmath.

    The extended map runs from ``y0`` (:func:`integrators.run_map`, ``dps`` digits); at each state of the
    run, ``phi(y)`` and its Jacobian ``Dphi(y)`` (explicit map: the derivatives of its expressions) are
    evaluated by our lowering.
    """
    coords = ext_system.coords
    dim = len(coords)
    params = list(ext_system.parameters)
    g = sympy.exp(-gamma_ext.xreplace({ext_system.x[1]: ext_system.x[1] + h / 2}) * h)
    options = dict(dt=dt, params={s: values[s] for s in params}, backend="mpmath", dps=dps)
    states = run_map(ext_phi, y0, steps=steps, save_every=1, **options).y
    # one lowering of phi, its Jacobian and the factor (a tangent lift through run_map costs 3x as much
    # code generation for the same numbers)
    entries = list(ext_phi.exprs) + [diff(e, c) for e in ext_phi.exprs for c in coords] + [g]
    at_states = expressions_on_states(entries, coords, [h, *params], [dt, *[values[s] for s in params]],
                                      backend="mpmath", dps=dps, what="the step, its Jacobian and the contact factor")(
        states[:-1])
    one_step = np.stack([np.concatenate([at_states[:dim, k], at_states[dim:dim + dim * dim, k].reshape(dim, dim).T
                                         .reshape(-1)]) for k in range(len(states) - 1)])
    factors = at_states[-1]
    (qi, ti), (pi, Ei) = (coords.index(ext_system.x[0]), coords.index(ext_system.x[1])), \
        (coords.index(ext_system.p[0]), coords.index(ext_system.p[1]))
    zi = coords.index(ext_system.z)

    def eta_row(y):
        row = [mpmath.mpf(0)] * dim
        row[qi], row[ti], row[zi] = -y[pi], -y[Ei], mpmath.mpf(1)
        return mpmath.matrix([row])

    worst = mpmath.mpf(0)
    with mpmath.workdps(dps):
        for y, after, jacobian, factor in zip(states[:-1], one_step, jacobians(one_step, dim), factors):
            R = eta_row(after[:dim]) * mpmath.matrix(jacobian.tolist()) - factor * eta_row(y)
            worst = max([worst] + [abs(R[0, k]) for k in range(dim)])
    return worst


def stroboscopic_section(P: Parameters, system=None, scheme=None):
    """``(q, q', t)`` at ``t = 2 pi k``, k = 0..orbits, for every initial angle: arrays (orbits + 1, batch).

    The extended step of :class:`TimeDependentContactSplitting` (the certified map) runs on the
    whole ensemble through :func:`integrators.run_map`.
    """
    system = spin_orbit_system(P) if system is None else system
    scheme = TimeDependentContactSplitting() if scheme is None else scheme
    ext_system, ext_phi, _ = scheme.extended(system)
    dt = 2 * math.pi / P.steps_per_orbit
    values = {s: float(v) for s, v in system.parameter_values.items()}
    coords = ext_system.coords
    y0 = np.zeros((len(P.q0), len(coords)))
    y0[:, coords.index(ext_system.x[0])] = P.q0
    y0[:, coords.index(ext_system.p[0])] = P.qdot0
    strobe = run_map(ext_phi, y0, dt=dt, steps=P.orbits * P.steps_per_orbit, save_every=P.steps_per_orbit,
                     params=values).y
    return tuple(strobe[:, :, coords.index(c)] for c in (ext_system.x[0], ext_system.p[0], ext_system.x[1]))


# --------------------------------------------------------------------------- run


def certify(P: Parameters) -> tuple:
    """The symbolic results: ``(certificates, checks)``.

    The extended step that runs is contact with its factor (and, in the paper profile, of order 2 and
    symmetric), the projected step contact at every fixed time, the generic class contact, the energy
    law; slides 25-26: the modified equations contact and variational, the step generated by a Lagrangian.
    """
    system = spin_orbit_system(P)
    scheme = TimeDependentContactSplitting()
    ext_system, ext_phi, tt = scheme.extended(system)
    gamma_ext = gc.substitute(diff(system.energy, z), {t: tt})
    certificates, checks = [], []
    factor = sympy.exp(-gc.substitute(gamma_ext, {tt: tt + h / 2}) * h)
    certificates.append(("extended step D/2 C/2 B/2 A B/2 C/2 D/2: contact for dz - p dq - E dt with factor"
                         " exp(-f(t + h/2) h)", certify_contact_factor(ext_phi, ext_system.eta, factor)))
    if P.order_and_symmetry:
        for prop, cert in scheme.certify(system, properties=["order", "symmetric"]).items():
            certificates.append((f"extended step: {prop}", cert))
    certificates.append(("projected step on (q, p, z): contact at every fixed t",
                         scheme.certify_frozen_time_contact(system)))
    G = generic_system()
    certificates.append(("generic H = p^2/2 + V(q, t) + g(t) z: extended step contact",
                         scheme.certify(G, properties=["contact"])["contact"]))
    D1 = darboux_coordinates(1, x="q")
    certificates.append(("time-dependent contact equations and dH/dt = -H H_z + H_t",
                         certify_time_dependent_energy_law(
                             gc.substitute(system.energy, {q: D1.x[0], p: D1.p[0], z: D1.z}), D1, t)))

    # slides 25-26: modified equations contact and variational; the step generated by a Lagrangian
    me = modified_equation_certificates(P.modified_order, G, scheme)
    k = P.modified_order
    claims = {
        "contact": (f"modified equations of the extended step, to O(h^{k}), for every H = p^2/2 + V(q, t) + g(t) z:"
                    " each term F_k is the contact field of H_k = -eta(F_k)",
                    "slide 26: 'The modified equations are also a contact system'"),
        "variational": (f"modified equations, to O(h^{k}): z' = L~(q, q', z, t) and the generalized Euler-Lagrange"
                        " equation of L~ (the Legendre transform of H~) hold along them",
                        "slide 26: 'x'' = f_mod is the generalized Euler-Lagrange equation of L_mod'"),
        "generating Lagrangian": ("the step at fixed t_j is the position-momentum map of L(q_j, q_j+1, z_j; t_j) ="
                                  " (z_j+1 - z_j)/h", "slide 25: 'All contact maps are variational'"),
    }
    for key, (what, source) in claims.items():
        cert = me[key]
        certificates.append((what, cert))
        checks.append(check_true(what, cert.verdict(), "holds", cert.holds is True, source))
    return certificates, checks


def simulations(P: Parameters) -> dict:
    """The runs: ``"section"`` (:func:`stroboscopic_section` of the ensemble) and ``"defect"`` (the extended
    step's contact defect over ``P.hp_steps`` steps at ``P.hp_dps`` digits)."""
    system = spin_orbit_system(P)
    scheme = TimeDependentContactSplitting()
    ext_system, ext_phi, tt = scheme.extended(system)
    gamma_ext = gc.substitute(diff(system.energy, z), {t: tt})
    section = stroboscopic_section(P, system, scheme)
    hp_values = {s: sympy.nsimplify(v) for s, v in system.parameter_values.items()}
    coords = ext_system.coords
    y_hp = [0] * len(coords)
    y_hp[coords.index(ext_system.x[0])] = sympy.Rational(1, 2)
    y_hp[coords.index(ext_system.p[0])] = sympy.Rational(13, 10)
    defect = _contact_defect(ext_system, ext_phi, gamma_ext, hp_values, y_hp,
                             mpmath.mpf(2) * mpmath.pi / P.steps_per_orbit, P.hp_dps, P.hp_steps)
    return {"section": section, "defect": defect}


def _angles(Q, T):
    """The angle of the long axis to the planet, mod pi."""
    return np.mod(Q - T + np.pi / 2, np.pi) - np.pi / 2


def checks(P: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`: capture into the 1:1 resonance, the contact defect."""
    Q, W, T = sims["section"]
    out = [check_below("the stroboscopic times are t = 2 pi k (max |t - 2 pi k|)",
                       float(np.abs(T[:, 0] - 2 * np.pi * np.arange(len(T))).max()),
                       # two additions of h/2 per step, each rounding by at most eps * t
                       2 * P.orbits * P.steps_per_orbit * np.finfo(float).eps * 2 * np.pi * P.orbits,
                       "our setup: section at a fixed point of the orbit (slide 31: Poincare section)")]
    width = math.sqrt(2 * P.eps)
    last = np.abs(W[-10:] - 1).max()
    out.append(check_below("capture into the 1:1 resonance: max |q' - 1| over the last 10 strobe points,"
                           " all trajectories", float(last), width,
                           "slide 31: 'capture into resonance' (our parameters): inside the separatrix"
                           " half-width sqrt(2 eps)", strict=True))
    out.append(check_true("every trajectory starts outside the resonance (q'(0) - 1 > sqrt(2 eps))",
                          P.qdot0 - 1, f"> {width:.3f}", P.qdot0 - 1 > width, "our setup"))
    phi = _angles(Q, T)
    steps_k = np.hypot(np.diff(phi, axis=0), np.diff(W, axis=0))
    mid = len(steps_k) // 2
    early, late = steps_k[mid - 5: mid + 5].mean(), steps_k[-10:].mean()
    out.append(check_below("the stroboscopic points converge: mean step over the last 10 / over 10 mid-run",
                           float(late / early), 0.5, "slide 31: Poincare section, the points spiral to the"
                           " resonant fixed point", strict=True))
    rotation = np.diff(Q, axis=0)[-10:] / (2 * np.pi)              # mean q' over each of the last 10 orbits
    mean_dev = float(np.abs(rotation - 1).max())
    out.append(check_below("mean angular velocity over each of the last 10 orbits: max |<q'> - 1|",
                           mean_dev, 0.1 * width, "slide 31: 'angular velocity decreasing' into the 1:1"
                           " resonance, q' -> 1 in the mean (our tolerance: a tenth of the resonance"
                           " half-width)"))
    out.append(check_below(f"contact defect of the extended step's Jacobian ({P.hp_dps} digits,"
                           f" {P.hp_steps} steps)", float(sims["defect"]), 1e-45,
                           "slide 28 (time-dependent splitting, after slide 27: 'as a composition of"
                           " contact maps, S_2(h) is itself a contact map'): contact for dz - p dq - E dt"))
    return out


def _figures(P: Parameters, sims: dict, out) -> list:
    Q, W, T = sims["section"]
    phi = _angles(Q, T)
    width = math.sqrt(2 * P.eps)
    fig, (ax1, ax2) = _plotting.figure(1, 2, figsize=(10, 4))
    k = np.arange(len(W))
    for b in range(W.shape[1]):
        ax1.scatter(phi[:, b], W[:, b], s=3, c=k, cmap="viridis")
    ax1.axhline(1, color="k", lw=0.5)
    ax1.set_xlabel(r"$q - t$ (mod $\pi$) at $t = 2\pi k$")
    ax1.set_ylabel(r"$\dot q$")
    ax1.set_title("stroboscopic Poincare section")
    tt_plot = T[:, 0]
    for b in range(W.shape[1]):
        ax2.plot(tt_plot, W[:, b], lw=0.8)
    ax2.axhspan(1 - width, 1 + width, color="0.9")
    ax2.set_xlabel("t")
    ax2.set_ylabel(r"$\dot q$ at $t = 2\pi k$")
    ax2.set_title("angular velocity decreasing; capture into 1:1")
    return _plotting.save(fig, out, f"{NAME}-section")


def run(profile="quick", out=".") -> CaseResult:
    """Run the experiment (see the module docstring)."""
    start = time.perf_counter()
    P = Parameters.quick() if profile == "quick" else Parameters.paper()
    res = CaseResult(NAME, TITLE, SOURCE, profile, P)
    res.certificates, symbolic_checks = certify(P)
    sims = simulations(P)
    res.checks = checks(P, sims) + symbolic_checks
    res.figures += _figures(P, sims, out)
    res.derivations.append(res.certificates[0][1].derivation)
    res.findings = list(FINDINGS)
    res.notes += [
        "All coefficients are our choice (see the module docstring): eps = %g, e = %g, lambda = %g, omega = %g,"
        " eta = %g; C(t) = C0 (1 + lambda cos(omega t)) and a linear tidal torque -K (q' - 1), without which the"
        " damping C'/C has zero mean and nothing is captured." % (P.eps, P.ecc, P.lam, P.omega, P.eta),
        f"h = 2 pi / {P.steps_per_orbit}, {P.orbits} orbits, {len(P.q0)} initial angles, q'(0) = {P.qdot0}.",
    ]
    res.seconds = time.perf_counter() - start
    return res
