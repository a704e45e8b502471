r"""Bravetti, Seri, Vermeeren & Zadra: the spin-orbit problem with time-dependent damping.

A satellite on a fixed Keplerian orbit (mean motion 1, period 2 pi, eccentricity e) spins
about its shortest axis; q is the rotation angle, t the mean anomaly.  The slides
("Time-dependent example: spin-orbit mechanics") write the flexible-satellite model as
``d/dt (C q') = N(q, t)``, i.e. the contact Hamiltonian
``H = p^2/2 + V(q, t) + (C'(t)/C(t)) z`` with ``q'' + (C'/C) q' + V_q = 0``.

COEFFICIENTS (our choice, cf. Celest. Mech. paper, arXiv:1909.02613, Sect. 5; our copy of the
slides gives none):

* ``C(t) = C0 (1 + lambda cos(omega t))`` (the brief's form, after Gkolias et al. 2017),
  ``lambda = 0.05``, ``omega = 1``;
* the gravity-gradient torque to the classical order in e (Goldreich-Peale coefficients of
  ``(a/r)^3 cos(2q - 2f)``): ``W(q, t) = -(eps/2) [(1 - 5e^2/2) cos(2q - 2t)
  + (e/2)(7 cos(2q - 3t) - cos(2q - t)) + (17 e^2/2) cos(2q - 4t)]``, ``eps = 0.01``,
  ``e = 0.0549`` (the Moon);
* a linear (MacDonald-type) tidal torque ``-K (q' - 1)`` towards synchronous rotation.
  Needed: with ``C'/C`` alone the damping has zero mean (``d(C q')/dt = N`` is Hamiltonian
  in the time ``s = int dt/C``), so nothing could be captured; ``eta = K/C0`` = 0.02 (quick)
  and 0.005 (paper profile).

So ``d/dt (C q') = -C0 W_q - K (q' - 1)``, i.e.
``q'' + f(t) q' + V_q(q, t) = 0`` with ``f = (C' + eta C0)/C = (c' + eta)/c`` and
``V = (W - eta q)/c``, ``c = 1 + lambda cos(omega t)``; the contact Hamiltonian is
``H = p^2/2 + V(q, t) + f(t) z``.  It is integrated by the symmetric splitting
``D/2 C/2 B/2 A B/2 C/2 D/2`` of the autonomized ``H + E``
(:class:`integrators.schemes.contact_time_splitting.TimeDependentContactSplitting`): the
extended step on ``(q, t, p, E, z)`` is certified contact (factor ``exp(-f(t + h/2) h)``),
symmetric and of order 2, and the very same map is lowered and run on an ensemble.

Checks: capture into the 1:1 resonance of every trajectory started at ``q' = 1.3`` (outside
the resonance: its separatrix half-width is about ``sqrt(2 eps) = 0.14``) -- the last ten
stroboscopic points (t = 2 pi k) have ``|q' - 1| < sqrt(2 eps)`` and the stroboscopic steps
contract (the points converge to the resonant fixed point); the contact certificates; a
50-digit run with the contact defect of the extended step's Jacobian.

Measured (this machine, loaded): quick profile 7 s (120 orbits, 8 trajectories, h = 2 pi/50);
paper profile 22 s (500 orbits, 16 trajectories, h = 2 pi/100, eta = 0.005, plus the order
and symmetry certificates), all checks pass in both; the stroboscopic fixed point has
q' = 0.95 at t = 2 pi k and mean q' over an orbit 1 +- 1.4e-4.

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
from integrators.lower import lower, lower_expressions
from integrators.schemes.contact_time_splitting import TimeDependentContactSplitting
from integrators.systems import STEP_SYMBOL

from . import _plotting
from ._core import CaseResult, check_below, check_true

__all__ = ["NAME", "TITLE", "SOURCE", "Parameters", "run", "spin_orbit_system", "generic_system", "stroboscopic_section"]

NAME = "vermeeren-spin-orbit"
TITLE = "Spin-orbit problem with time-dependent damping: capture into the 1:1 resonance"
SOURCE = ("Bravetti, Seri, Vermeeren & Zadra, Celest. Mech. Dyn. Astr. 132 (2020), arXiv:1909.02613, Sect. 5;"
          " slides 'Variational integrators for contact Hamiltonian systems' (2019), spin-orbit slides")

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

    @classmethod
    def quick(cls):
        return cls()

    @classmethod
    def paper(cls):
        return cls(order_and_symmetry=True, eta=0.005, steps_per_orbit=100, orbits=500,
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


# --------------------------------------------------------------------------- run helpers


def _run_extended(low, values, y0, steps, every):
    """Run the lowered extended step; save every ``every`` steps. Returns (saved, batch, 5)."""
    bound = low.bind(values)
    y = [np.ascontiguousarray(y0[:, i]) for i in range(y0.shape[1])]
    saved = [np.column_stack(y)]
    for n in range(1, steps + 1):
        y = bound.step(y)
        if n % every == 0:
            saved.append(np.column_stack(y))
    return np.array(saved)


def _contact_defect(ext_system, ext_phi, gamma_ext, values, y0, dt, dps, steps):
    """max |eta~(phi(y)) Dphi(y) - g(y) eta~(y)| over a few steps of the extended map, in mpmath."""
    coords = ext_system.coords
    dim = len(coords)
    J = [[diff(e, c) for c in coords] for e in ext_phi.exprs]
    g = sympy.exp(-gamma_ext.xreplace({ext_system.x[1]: ext_system.x[1] + h / 2}) * h)
    params = [h, *ext_system.parameters]
    kern = lower_expressions(list(ext_phi.exprs) + [g] + [J[i][j] for i in range(dim) for j in range(dim)],
                             coords, params, backend="mpmath", what="the extended step and its Jacobian")
    (qi, ti), (pi, Ei) = (coords.index(ext_system.x[0]), coords.index(ext_system.x[1])), \
        (coords.index(ext_system.p[0]), coords.index(ext_system.p[1]))
    zi = coords.index(ext_system.z)

    def eta_row(y):
        row = [mpmath.mpf(0)] * dim
        row[qi], row[ti], row[zi] = -y[pi], -y[Ei], mpmath.mpf(1)
        return mpmath.matrix([row])

    worst = mpmath.mpf(0)
    with mpmath.workdps(dps):
        S = kern.scalars(mpmath.mpf(dt), *[mpmath.mpf(values[s]) for s in ext_system.parameters])
        y = [mpmath.mpf(v) for v in y0]
        for _ in range(steps):
            vals = kern.kernel(S, *y)
            new, factor = list(vals[:dim]), vals[dim]
            Jm = mpmath.matrix([[vals[dim + 1 + dim * i + j] for j in range(dim)] for i in range(dim)])
            R = eta_row(new) * Jm - factor * eta_row(y)
            worst = max([worst] + [abs(R[0, k]) for k in range(dim)])
            y = new
    return worst


def stroboscopic_section(P: Parameters, system=None, scheme=None):
    """``(q, q', t)`` at ``t = 2 pi k``, k = 0..orbits, for every initial angle: arrays (orbits + 1, batch).

    The lowered extended step of :class:`TimeDependentContactSplitting` (the certified map) runs
    on the whole ensemble.
    """
    system = spin_orbit_system(P) if system is None else system
    scheme = TimeDependentContactSplitting() if scheme is None else scheme
    ext_system, ext_phi, _ = scheme.extended(system)
    dt = 2 * math.pi / P.steps_per_orbit
    values = {h: dt, **{s: float(v) for s, v in system.parameter_values.items()}}
    coords = ext_system.coords
    y0 = np.zeros((len(P.q0), len(coords)))
    y0[:, coords.index(ext_system.x[0])] = P.q0
    y0[:, coords.index(ext_system.p[0])] = P.qdot0
    low = lower(ext_phi, parameters=[h, *ext_system.parameters])
    strobe = _run_extended(low, values, y0, P.orbits * P.steps_per_orbit, P.steps_per_orbit)
    return tuple(strobe[:, :, coords.index(c)] for c in (ext_system.x[0], ext_system.p[0], ext_system.x[1]))


# --------------------------------------------------------------------------- run


def run(profile="quick", out=".") -> CaseResult:
    """Run the experiment (see the module docstring)."""
    start = time.perf_counter()
    P = Parameters.quick() if profile == "quick" else Parameters.paper()
    res = CaseResult(NAME, TITLE, SOURCE, profile, P)
    system = spin_orbit_system(P)
    scheme = TimeDependentContactSplitting()
    ext_system, ext_phi, tt = scheme.extended(system)
    gamma = diff(system.energy, z)
    gamma_ext = gc.substitute(gamma, {t: tt})

    # -- certificates: the map that runs, and the generic one
    factor = sympy.exp(-gc.substitute(gamma_ext, {tt: tt + h / 2}) * h)
    res.certificates.append(("extended step D/2 C/2 B/2 A B/2 C/2 D/2: contact for dz - p dq - E dt with factor"
                             " exp(-f(t + h/2) h)", certify_contact_factor(ext_phi, ext_system.eta, factor)))
    if P.order_and_symmetry:
        for prop, cert in scheme.certify(system, properties=["order", "symmetric"]).items():
            res.certificates.append((f"extended step: {prop}", cert))
    res.certificates.append(("projected step on (q, p, z): contact at every fixed t",
                             scheme.certify_frozen_time_contact(system)))
    G = generic_system()
    res.certificates.append(("generic H = p^2/2 + V(q, t) + g(t) z: extended step contact",
                             scheme.certify(G, properties=["contact"])["contact"]))
    D1 = darboux_coordinates(1, x="q")
    res.certificates.append(("time-dependent contact equations and dH/dt = -H H_z + H_t",
                             certify_time_dependent_energy_law(
                                 gc.substitute(system.energy, {q: D1.x[0], p: D1.p[0], z: D1.z}), D1, t)))

    # -- the run: an ensemble, stroboscopic section at t = 2 pi k
    Q, W, T = stroboscopic_section(P, system, scheme)
    res.checks.append(check_below("the stroboscopic times are t = 2 pi k (max |t - 2 pi k|)",
                                  float(np.abs(T[:, 0] - 2 * np.pi * np.arange(len(T))).max()),
                                  # two additions of h/2 per step, each rounding by at most eps * t
                                  2 * P.orbits * P.steps_per_orbit * np.finfo(float).eps * 2 * np.pi * P.orbits,
                                  "our setup: section at a fixed point of the orbit (slides: Poincare section)"))
    width = math.sqrt(2 * P.eps)
    last = np.abs(W[-10:] - 1).max()
    res.checks.append(check_below("capture into the 1:1 resonance: max |q' - 1| over the last 10 strobe points,"
                                  " all trajectories", float(last), width,
                                  "slides 'capture into resonance' / Celest. Mech. Sect. 5 (our parameters):"
                                  " inside the separatrix half-width sqrt(2 eps)", strict=True))
    res.checks.append(check_true("every trajectory starts outside the resonance (q'(0) - 1 > sqrt(2 eps))",
                                 P.qdot0 - 1, f"> {width:.3f}", P.qdot0 - 1 > width, "our setup"))
    phi = np.mod(Q - T + np.pi / 2, np.pi) - np.pi / 2           # angle of the long axis to the planet, mod pi
    steps_k = np.hypot(np.diff(phi, axis=0), np.diff(W, axis=0))
    mid = len(steps_k) // 2
    early, late = steps_k[mid - 5: mid + 5].mean(), steps_k[-10:].mean()
    res.checks.append(check_below("the stroboscopic points converge: mean step over the last 10 / over 10 mid-run",
                                  float(late / early), 0.5, "slides: Poincare section, the points spiral to the"
                                  " resonant fixed point", strict=True))
    rotation = np.diff(Q, axis=0)[-10:] / (2 * np.pi)              # mean q' over each of the last 10 orbits
    mean_dev = float(np.abs(rotation - 1).max())
    res.checks.append(check_below("mean angular velocity over each of the last 10 orbits: max |<q'> - 1|",
                                  mean_dev, 0.1 * width, "1:1 resonance: q' -> 1 in the mean (our tolerance: a"
                                  " tenth of the resonance half-width)"))

    # -- high precision: contact defect of the extended step
    hp_values = {s: sympy.nsimplify(v) for s, v in system.parameter_values.items()}
    coords = ext_system.coords
    y_hp = [0] * len(coords)
    y_hp[coords.index(ext_system.x[0])] = sympy.Rational(1, 2)
    y_hp[coords.index(ext_system.p[0])] = sympy.Rational(13, 10)
    defect = _contact_defect(ext_system, ext_phi, gamma_ext, hp_values, y_hp,
                             mpmath.mpf(2) * mpmath.pi / P.steps_per_orbit, P.hp_dps, P.hp_steps)
    res.checks.append(check_below(f"contact defect of the extended step's Jacobian ({P.hp_dps} digits,"
                                  f" {P.hp_steps} steps)", float(defect), 1e-45,
                                  "Celest. Mech. Sect. 3: the splitting is a contact map of dz - p dq - E dt"))

    # -- figures
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
    res.figures += _plotting.save(fig, out, f"{NAME}-section")

    res.derivations.append(res.certificates[0][1].derivation)
    res.notes += [
        "All coefficients are our choice (see the module docstring): eps = %g, e = %g, lambda = %g, omega = %g,"
        " eta = %g; C(t) = C0 (1 + lambda cos(omega t)) and a linear tidal torque -K (q' - 1), without which the"
        " damping C'/C has zero mean and nothing is captured." % (P.eps, P.ecc, P.lam, P.omega, P.eta),
        f"h = 2 pi / {P.steps_per_orbit}, {P.orbits} orbits, {len(P.q0)} initial angles, q'(0) = {P.qdot0}.",
    ]
    res.seconds = time.perf_counter() - start
    return res
