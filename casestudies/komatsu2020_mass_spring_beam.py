r"""Komatsu, Terakawa & Yaguchi 2020, Section 5, second example: a mass-spring system on a beam.

``m1 u1'' = -k (u1 - u2) + f``, ``m2 u2'' = -k (u2 - u1)`` (eq. (96)); the mass ``u1`` touches the
simply supported beam ``rho u3_tt = -u3_xxxx - f delta(x - x0)`` (eq. (97)) at ``x0 = 0.8``;
``m1 = m2 = rho = 1``, ``k = 1000``, ``dt = 1e-3``, ``N = 100``, ``u3(0, x) = exp(-200 (x - 1/2)^2)``,
everything else at rest (eq. (102); Figs. 8-10).  The paper does not state the final time; ``T = 1`` as
in the first example; ``N = 100`` is read as the number of intervals (``dx = 1/100`` as in the first
example, so that ``x0 = 0.8`` is the node 80).

The system is :func:`geomcheck.structures.mass_spring_beam_system` (force derived from equal
contact velocities: eq. (100), ``f = dx/(rho dx + m1) (...)``), the scheme the AVF
discrete-gradient scheme; certified (Theorems 5 and 6) on the very system and scheme that run, and
run through the same symbolic equations, one linear solve per step
(:func:`casestudies.komatsu2020_wave_beam.simulate`: :func:`integrators.run_map` of the scheme's map at
the exact step, in the solve form of :mod:`integrators.linear_implicit`; the test
``tests/casestudies/test_komatsu2020_wave_beam.py::test_lowered_step_solves_the_symbolic_equations``
holds the lowered step against the equations, here too:
``tests/casestudies/test_komatsu2020_mass_spring_beam.py::test_lowered_step_solves_the_symbolic_equations``).

The shock absorber (Fig. 8), quantified
---------------------------------------
"The solution curve of u2 is much smoother than that of u1": the roughness of a displacement
history ``u^n`` is the total variation of its discrete acceleration over its range,
``R(u) = sum_n |a^(n+1) - a^n| / (max u - min u)`` with ``a^n = (u^(n+1) - 2u^n + u^(n-1))/dt^2``
(units 1/time^2: a pure oscillation ``sin(w t)`` over many periods has ``R ~ w^3 T / pi``).  The check is
``R(u1) / R(u2) >= 10`` (an order of magnitude: "much smoother").  The spring-mass pair filters the
beam's fast motion above its natural frequency ``sqrt(k/m2)``; a stiff spring (k = 1e7, negative control
in the tests) lets ``u2`` follow ``u1`` and the ratio falls to about 1.

Findings
--------
Each with its kind (``casestudies._core.FINDING_KINDS``) and the test that shows it (``FINDINGS``).

* [convention] Theorem 3, eq. (51): the force's weights ``rho/(m + rho)`` and ``m/(m + rho)`` (also
  eq. (98): ``1/(rho + m1)``) come from the naive ``delta(0)`` step; with ``rho`` a density they are
  not the force of the semi-discretization, ``dx rho/(dx rho + m)`` and ``m/(dx rho + m)`` times ``dx``,
  which the paper's own scheme (100) uses; with ``rho`` the contact node's mass ``rho dx`` they are.
* [error] eq. (101): the discrete energy is printed with the forward differences ``d+ u^(n)``
  (= ``A v^(n) = (v^(n) + v^(n+1))/2`` on the scheme) as velocities next to the positions ``u^(n)``;
  that quantity is not conserved (at the paper's values it changes by up to 45%, 36% with ``d-`` for
  the second mass, whose difference lost its superscript in our copy: the beam's fast modes,
  ``dt w >> 1``, have ``A v`` far from ``v``); the conserved one (Theorem 6) has ``v^(n)``.
* [damage] eq. (100): as read in our copy the force has lost its two minus signs; the derived force
  restores them.

Measured (paper profile: N = 100, dt = 1e-3, T = 1; about 20 s on this loaded 2-core machine):
``max |E^n - E^0|/E^0 = 1.1e-11`` (0.034 of the rounding budget; per step 0.34 of it; the beam's sharp
initial curvature makes the energy's rounding scale up to 600 times the energy), ``|c^n| <= 5e-13``,
roughness ``R(u1) = 1.16e7``, ``R(u2) = 1.88e4`` (u2 618 times smoother), the 50-digit identity
(N = 20, 5 steps) ``6e-51``.  Quick profile (N = 30, dt = 2e-3, T = 0.6): about 5 s.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import sympy

from geomcheck.certify.discrete_gradients import avf_gradient
from geomcheck.errors import InvalidArgumentError
from geomcheck.structures import (
    certify_discrete_energy_balance,
    certify_energy_balance,
    certify_gradient_operator,
    discrete_gradient_scheme,
    fourth_difference_matrix,
    mass_spring_beam_system,
)

from integrators.linear import lower_linear_scheme

from ._core import CaseResult, Finding, check_below, check_true
from .komatsu2020_wave_beam import EQUATIONS as _FIRST_EXAMPLE
from .komatsu2020_wave_beam import (
    EPS,
    ROUNDINGS,
    exact_rational,
    gaussian_state,
    high_precision_identity,
    linear_lowering_derivation,
    rounding_ratios,
    simulate,
)
from .observing import expressions_on_states

__all__ = ["NAME", "TITLE", "SOURCE", "Parameters", "run", "simulations", "certify", "checks",
           "mass_spring_beam_scheme", "roughness",
           "printed_eq101_energy", "FINDINGS", "EQUATIONS"]

NAME = "komatsu-mass-spring-beam"
TITLE = "A mass-spring system on a beam: energy conserved, the spring a shock absorber"
SOURCE = ("M. Komatsu, S. Terakawa, T. Yaguchi, Energetic-property-preserving numerical schemes for coupled "
          "natural systems, Mathematics 8 (2020) 249, Section 5 (second example), eqs. (96)-(102), Figs. 8-10")

_TEST = "tests/geomcheck/structures/test_natural.py::"
_OWN = "tests/casestudies/test_komatsu2020_mass_spring_beam.py::"

#: equation number -> an excerpt of our copy's text at that display (whitespace aside).  Our copy prints
#: no numbers at the displays: (96), (97) and (99) are fixed by the captions of Figs. 8-10, so the display
#: between (97) and (99) is (98); the three displays after (99), the scheme, its discrete energy and the
#: initial conditions, are (100)-(102) (one number a display, as (92)-(95) between the anchored (91) and
#: (96)).  (51) is Theorem 3's system with its force: the fourth of the eight displays (48)-(55) between
#: the anchored (47) and (56); (81), (82), (93) as in the first example (komatsu2020_wave_beam.EQUATIONS).
EQUATIONS = {k: _FIRST_EXAMPLE[k] for k in (47, 48, 55, 56, 81, 82, 91, 92, 93, 94, 95)} | {
    51: "f = ρ m + ρ ( V 1 + 1 d u 1 d t ) i m m + ρ δ V 2 δ u 2 + 2 u 2 t x = x 2",
    96: "m 1 d 2 u 1 d t 2 = k ( u 1 u 2 ) + f , m 2 d 2 u 2 d t 2 = k ( u 2 u 1 ) ,",
    97: "ρ 2 u 3 t 2 = 4 u 3 x 4 f δ ( x x 0 ) ( x ( 0 , L ) ) ,",
    98: "f = 1 ρ + m 1 m 1 4 u 3 x 4 x = x 0 + ρ k ( u 1 u 2 ) .",
    99: "E ( t ) = m 1 2 d u 1 d t 2 + k 2 ( u 1 u 2 ) 2 + m 2 2 d u 2 d t 2 + 0 L ρ 2 u 3 t 2",
    100: "f = Δ x ρ Δ x + m 1 m 1 A t + δ x 4 ( u 3 ) j ( n ) + ρ k A t + u 1 ( n ) u 2 ( n ) ,",
    101: "E ( n ) = m 1 2 δ t + u 1 ( n ) 2 + k 2 ( u 1 ( n ) u 2 ( n ) ) 2 + m 2 2 δ t u 2 ( n ) 2 + j = 1 N ρ 2 δ t +"
         " ( u 3 ) j ( n ) 2",
    102: "u 1 ( 0 ) = 0 , d u 1 d t ( 0 ) = 0 , u 2 ( 0 ) = 0 , d u 2 d t ( 0 ) = 0 , u 3 ( 0 , x ) = exp ( 200 ( x 1"
         " 2 ) 2 )",
}

FINDINGS = (
    Finding("convention", "Theorem 3, eq. (51)",
            "Eq. (51) prints the force of a mass m touching a PDE of density rho with the weights rho/(m + rho) and "
            "m/(m + rho), and the example's eq. (98) with 1/(rho + m1): what the naive delta(0) step gives, adding "
            "a mass to a mass per length. The paper's own scheme, eq. (100), has dx/(rho dx + m1) instead",
            _TEST + "test_theorem3_force_readings",
            readings=(("rho the density and dV2/du2 the elastic force per length, with the delta vector e_k/dx: "
                       "does not hold; the derived force has the weights dx rho/(dx rho + m) and m/(dx rho + m) "
                       "times dx (eq. (100)); the two agree only for dx = 1"),
                      ("rho the mass rho dx of the contact node and dV2/du2 the elastic force on that node (the "
                       "naive reading of delta(0)): holds exactly"))),
    Finding("error", "eq. (101)",
            "Eq. (101), 'the discrete total energy of this system', writes the velocities as the forward "
            "differences d+ u^(n) = (u^(n+1) - u^(n))/dt, next to the positions u^(n) (in our copy the second "
            "mass's difference reads d_t u2^(n), its superscript lost; neither d+ nor d- changes the outcome). On "
            "the scheme d+ u^(n) = A v^(n) = (v^(n) + v^(n+1))/2, and the quantity is not conserved: at the paper's "
            "values it changes by up to 45% (36% with d- for the second mass), while Fig. 10 shows the energy conserved to rounding. The conserved "
            "energy is Theorem 6's, with v^(n) (as the first example's eq. (94) has it); with the positions also at "
            "the half step, A u^(n), the printed form would be conserved too",
            _OWN + "test_printed_eq101_energy_is_not_conserved"),
    Finding("damage", "eq. (100)",
            "As read in our copy, eq. (100) gives f = dx/(rho dx + m1)(m1 A d4 (u3)_j + rho k A (u1 u2)): the minus "
            "sign before m1 and the one between u1 and u2 are lost (our copy drops minus signs throughout). Of the "
            "four ways to restore them only dx/(rho dx + m1)(-m1 (A d4 u3)_l + rho k A (u1 - u2)) is the derived "
            "force, and it keeps the '+' our copy shows",
            _TEST + "test_eq100_force_signs"),
)


@dataclass(frozen=True)
class Parameters:
    """Everything of the experiment (Section 5, second example)."""

    intervals: int = 100            # N: dx = L/N
    length: float = 1.0
    m1: float = 1.0
    m2: float = 1.0
    rho: float = 1.0
    k: float = 1000.0
    contact: float = 0.8            # x0
    dt: float = 1e-3
    t_end: float = 1.0              # not stated in the paper; as in the first example
    width: float = 200.0            # u3(0, x) = exp(-width (x - center)^2)
    center: float = 0.5
    smoother_by: float = 10.0       # "much smoother": R(u1)/R(u2) at least this
    hp_intervals: int = 10
    hp_steps: int = 5
    hp_digits: int = 50

    @classmethod
    def quick(cls):
        """Seconds: dx = 1/30, dt = 2e-3, T = 0.6."""
        return cls(intervals=30, dt=2e-3, t_end=0.6)

    @classmethod
    def paper(cls):
        """The paper's values: N = 100, dt = 1e-3 (T = 1)."""
        return cls(hp_intervals=20)

    @property
    def steps(self) -> int:
        return int(round(self.t_end / self.dt))

    def validate(self):
        if not (isinstance(self.intervals, int) and self.intervals >= 5):
            raise InvalidArgumentError(f"intervals = {self.intervals!r}: an integer >= 5 was expected")
        if not (self.dt > 0 and self.t_end > 0 and self.steps >= 3):
            raise InvalidArgumentError(f"dt = {self.dt!r}, t_end = {self.t_end!r}: positive, with t_end >= 3 dt")
        if min(self.m1, self.m2, self.rho, self.k) <= 0:
            raise InvalidArgumentError(
                f"m1 = {self.m1}, m2 = {self.m2}, rho = {self.rho}, k = {self.k}: positive values were expected")


def mass_spring_beam_scheme(p: Parameters, force=None):
    """The coupled system of eqs. (96)-(97) and its AVF scheme (eq. (100))."""
    s = mass_spring_beam_system(p.intervals, m1=exact_rational(p.m1), m2=exact_rational(p.m2), rho=exact_rational(p.rho), k=exact_rational(p.k),
                                contact=exact_rational(p.contact), length=exact_rational(p.length))
    return discrete_gradient_scheme(s, avf_gradient, step=sympy.Symbol("h"), force=force)


def initial_state(scheme, p: Parameters, dps=None):
    """``u3(0, x) = exp(-width (x - center)^2)`` on the beam; the masses at rest at 0."""
    return gaussian_state(scheme, 1, p.width, p.center, dps)


def roughness(u, dt) -> float:
    r"""``sum |a^(n+1) - a^n| / (max u - min u)`` with ``a`` the second difference of ``u`` over ``dt^2``.

    >>> t = np.linspace(0, 1, 20001)
    >>> r = roughness(np.sin(60 * t), t[1])
    >>> abs(r / (60**3 / np.pi) - 1) < 0.01           # w^3 T / pi for sin(w t) over many periods
    True
    """
    u = np.asarray(u, dtype=float)
    a = np.diff(u, 2) / dt**2
    span = float(np.max(u) - np.min(u))
    return float(np.sum(np.abs(np.diff(a))) / span) if span > 0 else float("inf")


def printed_eq101_energy(scheme, traj, second="+"):
    r"""Eq. (101) as printed: the energy with the velocities replaced by differences of the positions.

    ``E(u^(n), w^(n))`` (the system's own energy, Theorem 6, at other velocities) with
    ``w = d+ u^(n) = (u^(n+1) - u^(n))/dt`` for the mass ``u1`` and the beam; for the second mass
    ``d+`` (``second="+"``) or ``d- u2^(n) = (u2^(n) - u2^(n-1))/dt`` (``second="-"``): our copy prints
    its difference without the superscript.  Returned for n = 0 .. steps-1 (``"+"``) or 1 .. steps-1 (``"-"``).
    """
    if second not in ("+", "-"):
        raise InvalidArgumentError(f"second = {second!r}: expected '+' or '-'")
    S = scheme.system
    n1, n3 = S.first.n, S.second.n
    Z = traj.states
    forward = (Z[1:] - Z[:-1]) / traj.dt                      # row n: (z^(n+1) - z^n)/dt
    W = Z[:-1].copy()                                         # n = 0 .. steps-1
    W[:, n1:2 * n1] = forward[:, 0:n1]
    W[:, 2 * n1 + n3:] = forward[:, 2 * n1:2 * n1 + n3]
    if second == "-":
        W = W[1:]                                             # n = 1 .. steps-1
        W[:, n1 + 1] = forward[:-1, 1]                        # (u2^n - u2^(n-1))/dt
    return expressions_on_states([S.energy()], S.chart.coords, what="the energy")(W)[0]


def _figures(p, sch, tr, out):
    from ._plotting import figure, save

    paths = []
    u12 = tr.block(0, "u")
    fig, axes = figure(2, 2, figsize=(10, 6.5), layout="constrained")
    ax = axes[0][0]
    ax.plot(tr.times, u12[:, 0], lw=1, label="u1 (attached to the beam)")
    ax.plot(tr.times, u12[:, 1], lw=1.5, label="u2 (free end)")
    ax.set_title("both sides of the spring (Fig. 8)", fontsize=9)
    ax.set_xlabel("t")
    ax.legend(fontsize=8)
    ax = axes[0][1]
    B = sch.system.second
    x = np.arange(1, B.n + 1) * float(B.spacing)
    U = tr.block(1, "u")
    lim = float(np.max(np.abs(U))) or 1.0
    im = ax.imshow(U, origin="lower", aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                   extent=(x[0], x[-1], tr.times[0], tr.times[-1]), interpolation="nearest")
    ax.axvline(p.contact, color="k", lw=0.6, ls=":")
    ax.set_title("beam u3(t, x) (Fig. 9)", fontsize=9)
    ax.set_xlabel("x")
    ax.set_ylabel("t")
    fig.colorbar(im, ax=ax)
    ax = axes[1][0]
    a1 = np.diff(u12[:, 0], 2) / p.dt**2
    a2 = np.diff(u12[:, 1], 2) / p.dt**2
    ax.plot(tr.times[1:-1], a1, lw=0.8, label=f"u1'' (R = {roughness(u12[:, 0], p.dt):.3g})")
    ax.plot(tr.times[1:-1], a2, lw=1.5, label=f"u2'' (R = {roughness(u12[:, 1], p.dt):.3g})")
    ax.set_title("accelerations: the spring as a shock absorber", fontsize=9)
    ax.set_xlabel("t")
    ax.legend(fontsize=8)
    ax = axes[1][1]
    dev = np.abs(tr.energy - tr.energy[0]) / tr.energy[0]
    budget = np.cumsum(ROUNDINGS * EPS * (tr.scale[:-1] + tr.scale[1:])) / tr.energy[0]
    ax.semilogy(tr.times[1:], np.maximum(dev[1:], 1e-18), ".", ms=2, label="|E^n - E^0| / E^0 (Fig. 10)")
    ax.semilogy(tr.times[1:], budget, "r-", lw=1, label="rounding budget")
    ax.semilogy(tr.times[1:], EPS * np.arange(1, len(tr.times)), "k:", lw=1, label="eps x n")
    E101 = printed_eq101_energy(sch, tr)
    ax.semilogy(tr.times[1:-1], np.maximum(np.abs(E101[1:] - E101[0]) / E101[0], 1e-18), lw=0.8,
                label="eq. (101) as printed")
    ax.set_title("energy deviation", fontsize=9)
    ax.set_xlabel("t")
    ax.legend(fontsize=7)
    paths += save(fig, out, f"{NAME}-figures")
    return paths


def simulations(p: Parameters) -> dict:
    """The runs: ``"scheme"`` and ``"run"`` (its Trajectory) on the grid of ``p``, ``"high precision"`` (the
    50-digit identity on ``p.hp_intervals``, :func:`~casestudies.komatsu2020_wave_beam.high_precision_identity`)."""
    sch = mass_spring_beam_scheme(p)
    q = dataclasses.replace(p, intervals=p.hp_intervals)
    sh = mass_spring_beam_scheme(q)
    return {"scheme": sch, "run": simulate(sch, initial_state(sch, p), p.dt, p.steps),
            "high precision": high_precision_identity(sh, lambda d: initial_state(sh, q, d), p.dt, p.hp_steps,
                                                      p.hp_digits)}


def certify(p: Parameters, sch) -> tuple:
    """Theorems 5 and 6 and the printed D4 on the scheme that runs: ``(certificates, derivations)``."""
    S = sch.system
    N = p.intervals
    B = S.second
    certificates = [
        (f"Theorem 5 (semi-discrete energy balance), mass-spring + beam, N = {N}", certify_energy_balance(S)),
        (f"Theorem 6 (discrete energy identity of the AVF scheme), mass-spring + beam, N = {N}",
         certify_discrete_energy_balance(sch)),
        (f"grad V3 = D4 u3 with D4 as printed (eq. (93), corner 5), N = {N}",
         certify_gradient_operator(B, fourth_difference_matrix(B.n, B.spacing), 1)),
    ]
    lowered = lower_linear_scheme(sch.equations, sch.current, sch.new, {sch.step: exact_rational(p.dt)})
    return certificates, [S.force.derivation,
                          linear_lowering_derivation(sch, p.dt, lowered, "(u_1, v_1, u_3, v_3)", "(100)")]


def _roughnesses(p: Parameters, tr) -> tuple:
    u12 = tr.block(0, "u")
    return roughness(u12[:, 0], p.dt), roughness(u12[:, 1], p.dt)


def checks(p: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`."""
    src = "Section 5, second example"
    tr = sims["run"]
    identity, drift, mismatch = rounding_ratios(tr)
    u12 = tr.block(0, "u")
    r1, r2 = _roughnesses(p, tr)
    return [
        check_below("energy conserved to rounding: max_n |E^n - E^0| in units of the rounding budget "
                    f"({ROUNDINGS} eps x the energy's rounding scale, summed over the steps)", drift, 1.0,
                    f"{src}, Fig. 10"),
        check_below("per step, E^(n+1) = E^n (Theorem 6, no dissipation) in units of the rounding budget", identity,
                    1.0, "Theorem 6; Fig. 10"),
        check_below("the contact velocities (mass u1 and beam at x0) stay equal: max |c^n - c^0| in units of the"
                    " rounding budget", mismatch, 1.0, "Theorem 6, eq. (81)"),
        check_below(f"the free mass u2 moves far more smoothly than u1 (the spring is a shock absorber): roughness ratio "
                    f"R(u2)/R(u1) (R = total variation of the acceleration over the range; R(u1) = {r1:.4g}, "
                    f"R(u2) = {r2:.4g}); at most 1/{p.smoother_by:g}", r2 / r1, 1 / p.smoother_by, f"{src}, Fig. 8"),
        check_true("the masses, at rest at t = 0, are excited through the contact",
                   f"max |u1| = {np.max(np.abs(u12[:, 0])):.3g}", "> 0",
                   bool(np.max(np.abs(u12[:, 0])) > 0 and np.max(np.abs(u12[:, 1])) > 0), f"{src}, Fig. 8"),
        check_below(f"{p.hp_digits} digits (mpmath), N = {p.hp_intervals}, {p.hp_steps} steps: max |E^(n+1) - E^n| /"
                    " E^0", sims["high precision"], 1e-45, "Theorem 6 (exact identity)"),
    ]


def run(profile="quick", out=".", parameters=None) -> CaseResult:
    """Reproduce the second example of Section 5; see the module docstring."""
    t0 = time.perf_counter()
    p = parameters if parameters is not None else (Parameters.paper() if profile == "paper" else Parameters.quick())
    p.validate()
    res = CaseResult(NAME, TITLE, SOURCE, profile, p)
    sims = simulations(p)
    sch, tr = sims["scheme"], sims["run"]
    res.checks = checks(p, sims)
    res.certificates, res.derivations = certify(p, sch)
    res.findings = list(FINDINGS)
    r1, r2 = _roughnesses(p, tr)
    E101 = printed_eq101_energy(sch, tr)
    E101m = printed_eq101_energy(sch, tr, "-")
    N = p.intervals
    res.notes.append(
        f"N = {N} (dx = {p.length / N:g}), dt = {p.dt:g}, T = {p.t_end:g} ({p.steps} steps; T is not stated in the "
        f"paper); m1 = {p.m1:g}, m2 = {p.m2:g}, rho = {p.rho:g}, k = {p.k:g}, x0 = {p.contact:g}. "
        f"E^0 = {tr.energy[0]:.12g}; max |E^n - E^0|/E^0 = {np.max(np.abs(tr.energy - tr.energy[0])) / tr.energy[0]:.3g}; "
        f"max |c^n| = {np.max(np.abs(tr.mismatch)):.3g}; roughness R(u1) = {r1:.4g}, R(u2) = {r2:.4g} "
        f"(ratio {r1 / r2:.3g}); eq. (101) as printed drifts by {np.max(np.abs(E101 - E101[0])) / E101[0]:.3g} (relative; "
        f"{np.max(np.abs(E101m - E101m[0])) / E101m[0]:.3g} with d- u2 for the second mass).")
    res.figures.extend(_figures(p, sch, tr, out))
    res.seconds = time.perf_counter() - t0
    return res
