r"""Komatsu, Terakawa & Yaguchi 2020, Section 5, first example: a wave equation coupled to a beam.

``u1_tt = u1_xx - g1 u1_t + f delta(x - x1)`` on (0, 1), ``u1 = 0`` at both ends;
``u2_tt = -u2_xxxx - g2 u2_t - f delta(x - x2)``, simply supported; ``x1 = x2 = 0.2``,
``dx = 1/100``, ``dt = 1e-3``, ``T = 1``, ``u1(0, x) = exp(-200 (x - 1/2)^2)``, all velocities 0;
undamped (``g1 = g2 = 0``, Figs. 2-4) and damped (``g1 = g2 = 10``, Figs. 5-7).

One definition, three uses
--------------------------
The system is :func:`geomcheck.structures.wave_beam_system` (``D2`` and ``D4`` as printed, point
deltas ``e_k/dx``, weights ``dx``, the force derived from equal contact velocities), the scheme is
:func:`geomcheck.structures.discrete_gradient_scheme` with the average-vector-field gradient (the
paper's scheme (61)/(82), here eq. (89)).  The *same* objects are

1. certified: :func:`~geomcheck.structures.certify_energy_balance` (Theorem 5) and
   :func:`~geomcheck.structures.certify_discrete_energy_balance` (Theorem 6) on the very system and
   scheme that run, at the grid that runs;
2. run: the AVF gradient of a quadratic potential is linear, so the scheme's symbolic equations
   are linear in the new level; :func:`lower_linear_scheme` extracts their exact rational
   coefficients, ``A z^+ + B z = 0``, once, and the run factors ``A`` once and steps by a linear
   solve (``tests/casestudies/test_komatsu2020_wave_beam.py::test_lowered_step_solves_the_symbolic_equations``
   holds the numeric step against the symbolic equations at random points);
3. run at 50 digits: the same exact coefficients in ``mpmath`` (:meth:`LinearStep.mp_stepper`).

Energies, the dissipation and the contact mismatch are the system's own expressions, lambdified.

What the paper's text says and what the run says
------------------------------------------------
The paper plots the energy deviation (Fig. 4: "preserved up to the accumulation of the rounding
errors") and the damped energy (Fig. 7: "monotonically dissipated").  Here every step's discrete
energy identity ``(E^{n+1} - E^n)/dt = -mu1 g1 |d+ u1|^2 - mu2 g2 |d+ u2|^2`` is checked to
rounding, the energy is checked to decrease at every step, and the contact velocities to stay equal.

The energy is that of Theorem 6 (``mu (1/2 v.v + V)``) with the wave potential whose gradient is
``-D2 u``; the wave energy as eq. (91) prints it (sum over interior nodes of
``1/4((d+ u)^2 + (d- u)^2)``) is not the energy of ``D2`` and is *not* conserved by the run
(``test_printed_eq91_energy_is_not_conserved``).  The force of Theorem 6 as printed (``G1 A v2`` for
``G1 A v1``) is harmless at the paper's ``x1 = x2`` (the contact nodes share their index, and on the
invariant set ``c = 0`` the velocities there agree), but with ``x1 != x2`` it lets the contact
velocities drift apart and breaks the dissipation identity
(``test_printed_theorem6_force_breaks_the_damped_run``).

Measured (paper profile: N = 100, dt = 1e-3, 1000 steps; about 60 s on this loaded 2-core machine,
most of it the four N = 100 certificates): undamped ``max |E^n - E^0|/E^0 = 1.2e-12`` (0.009 of the
rounding budget; per step 0.29 of it), ``|c^n| <= 1.1e-15``; damped energy 8.818 -> 0.0128, decreasing
at every step, identity within 0.09 of the per-step budget, ``|c^n| <= 1.3e-13``; the beam's
excitation 0.028 damped vs 0.111 undamped; the 50-digit identity (N = 20, 5 steps) ``5e-51``.
The quick profile (N = 30, dt = 2e-3, T = 0.4) takes about 10 s.

The rounding budget (:func:`rounding_ratios`): ``10 eps`` times the first-order rounding scale of
the energy (:func:`rounding_scale`), per step for the identity, summed over the steps for the
energy deviation; 10 allows for a step's few roundings (the solve, the update, two evaluations of
the energy).  A check passes when the run uses at most the whole budget (ratio <= 1).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import sympy

from geomcheck.certify.discrete_gradients import avf_gradient
from geomcheck.errors import ExpressionError, InvalidArgumentError
from geomcheck.latex import Derivation
from geomcheck.structures import (
    certify_discrete_energy_balance,
    certify_energy_balance,
    certify_gradient_operator,
    discrete_gradient_scheme,
    fourth_difference_matrix,
    second_difference_matrix,
    wave_beam_system,
)

from integrators.linear import LinearStep, lower_linear_scheme  # noqa: F401  (re-exported for the tests)

from ._core import CaseResult, check_below, check_true

__all__ = [
    "NAME", "TITLE", "SOURCE", "Parameters", "run", "LinearStep", "lower_linear_scheme", "Trajectory",
    "rounding_scale", "rounding_ratios", "initial_state", "gaussian_state", "high_precision_identity",
    "simulate", "wave_beam_scheme", "MISPRINTS", "EPS",
]

NAME = "komatsu-wave-beam"
TITLE = "Wave equation coupled to a beam: energy conserved and dissipated by a discrete-gradient scheme"
SOURCE = ("M. Komatsu, S. Terakawa, T. Yaguchi, Energetic-property-preserving numerical schemes for coupled "
          "natural systems, Mathematics 8 (2020) 249, Section 5 (first example), eqs. (87)-(91), Figs. 2-7")

#: double-precision unit roundoff (2^-53): the scale of "to rounding"
EPS = 2.0 ** -53

_TEST = "tests/geomcheck/structures/test_natural.py::"
_OWN = "tests/casestudies/test_komatsu2020_wave_beam.py::"

#: the misprints of the paper that bear on this experiment, each with the test that shows it
MISPRINTS = [
    ("Eqs. (26)-(27) damp the second subsystem with G1 (G1 du2/dt); the derivation (and eqs. (29), (34)) "
     "gives G2 du2/dt", _TEST + "test_eq27_misprint_G1_for_G2"),
    ("Eq. (21) writes the second kinetic energy with du1/dt; it is du2/dt", _TEST + "test_eq21_misprint_kinetic_energy"),
    ("Theorem 5, eq. (78): the kinetic energy lacks the factor 1/2 (its proof and Theorem 6 have it)",
     _TEST + "test_theorem5_energy_misprint_missing_half"),
    ("Theorem 5, eq. (77): the dissipation lacks the weights mu1, mu2 (the proof has them)",
     _TEST + "test_theorem5_dissipation_needs_weights"),
    ("Theorem 2, eq. (44): the printed f is the nodal force f/dx of the semi-discretization (eq. (89)), "
     "not the coefficient of delta(x - x1); off by a length dx", _TEST + "test_theorem2_is_the_nodal_force"),
    ("Eq. (91): the wave energy summed over the interior nodes of 1/4((d+ u)^2 + (d- u)^2) is not the energy of "
     "D2 (it counts the two boundary edges once instead of twice) and is not conserved by the scheme; the "
     "conserved one is 1/2 sum_{i=0}^{N-1} (d+ u_i)^2 dx", _OWN + "test_printed_eq91_energy_is_not_conserved"),
    ("Theorem 6, eq. (82): the printed f^{n+1/2} has G1 A v2 in its first term; the derivation (and eq. (61)) "
     "has G1 A v1. At the paper's x1 = x2 the slip is harmless (the contact nodes share their index, and on c = 0 "
     "the two agree); with x1 != x2 the contact velocities drift apart and the damped energy identity fails",
     _OWN + "test_printed_theorem6_force_breaks_the_damped_run"),
]


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Parameters:
    """Everything of the experiment (Section 5, first example)."""

    intervals: int = 100            # N: dx = L/N, N - 1 interior nodes per PDE
    length: float = 1.0             # L1 = L2
    dt: float = 1e-3
    t_end: float = 1.0
    contact: tuple = (0.2, 0.2)     # x1, x2
    damping: float = 10.0           # g1 = g2 of the damped run (the undamped run has 0)
    width: float = 200.0            # u1(0, x) = exp(-width (x - center)^2)
    center: float = 0.5
    hp_intervals: int = 10          # the 50-digit run (a few steps on a coarser grid)
    hp_steps: int = 5
    hp_digits: int = 50

    @classmethod
    def quick(cls):
        """Seconds: dx = 1/30, dt = 2e-3, T = 0.4."""
        return cls(intervals=30, dt=2e-3, t_end=0.4)

    @classmethod
    def paper(cls):
        """The paper's values: dx = 1/100, dt = 1e-3, T = 1."""
        return cls(hp_intervals=20)

    @property
    def steps(self) -> int:
        return int(round(self.t_end / self.dt))

    def validate(self):
        if not (isinstance(self.intervals, int) and self.intervals >= 5):
            raise InvalidArgumentError(f"intervals = {self.intervals!r}: an integer >= 5 was expected")
        if not (self.dt > 0 and self.t_end > 0 and self.steps >= 1):
            raise InvalidArgumentError(f"dt = {self.dt!r}, t_end = {self.t_end!r}: positive, with t_end >= dt")
        if self.damping < 0:
            raise InvalidArgumentError(f"damping = {self.damping!r}: a damping coefficient >= 0 was expected")


def _q(x):
    """A float parameter as the exact rational it prints as (0.2 -> 1/5)."""
    return sympy.Rational(repr(float(x))) if not isinstance(x, (int, sympy.Rational)) else sympy.Rational(x)


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class Trajectory:
    """A run: the states ``z^n`` (rows) and the system's energies, dissipation and contact mismatch."""

    system: object = field(repr=False)
    times: np.ndarray = field(repr=False)
    states: np.ndarray = field(repr=False)
    energy: np.ndarray = field(repr=False)          # E^n = E_1 + E_2
    energies: tuple = field(repr=False)             # (E_1^n, E_2^n)
    dissipation: np.ndarray = field(repr=False)     # D^n = mu1 G1(d+u1, d+u1) + mu2 G2(d+u2, d+u2)
    mismatch: np.ndarray = field(repr=False)        # c^n = mu1 eps1.v1 - mu2 eps2.v2
    dt: float = 0.0
    scale: np.ndarray = field(default=None, repr=False)  # S^n: the energy's rounding scale (rounding_scale)

    def block(self, k, what="u"):
        """Positions (``"u"``) or velocities (``"v"``) of subsystem k over time."""
        s = self.system
        n1 = s.first.n
        off = 0 if k == 0 else 2 * n1
        n = s.systems[k].n
        lo = off + (0 if what == "u" else n)
        return self.states[:, lo:lo + n]

    def identity_residual(self):
        """``(E^{n+1} - E^n) + dt D^n`` at every step (Theorem 6: zero)."""
        with np.errstate(all="ignore"):
            return np.diff(self.energy) + self.dt * self.dissipation


def _vectorized(expr, symbols, modules="numpy"):
    """``lambdify`` over plain argument names (the state's LaTeX-style names would be renamed one by one,
    which is quadratic in their number)."""
    plain = [sympy.Symbol(f"z{k}") for k in range(len(symbols))]
    body = sympy.sympify(expr).xreplace(dict(zip(symbols, plain)))
    return sympy.lambdify(plain, body, modules=modules, dummify=False)


def _energy_functions(system):
    coords = tuple(system.chart.coords)
    return (_vectorized(system.first.energy(), coords), _vectorized(system.second.energy(), coords),
            _vectorized(system.constraint, coords))


def _dissipation_function(scheme, dt):
    """``D^n`` as a function of ``(z^n, z^{n+1})``."""
    return _vectorized(_dissipation_expr(scheme, dt), tuple(scheme.current) + tuple(scheme.new))


def _columns(f, Z):
    with np.errstate(all="ignore"):            # a blown-up run gives inf/nan, judged by the checks
        out = f(*Z.T)
    return np.broadcast_to(np.asarray(out, dtype=float), (Z.shape[0],)).copy()


def simulate(scheme, z0, dt, steps) -> Trajectory:
    """Run the lowered scheme from ``z0`` for ``steps`` steps of ``dt`` (double precision)."""
    h = scheme.step
    lowered = lower_linear_scheme(scheme.equations, scheme.current, scheme.new, {h: _q(dt)})
    step = lowered.float_stepper()
    Z = np.empty((steps + 1, lowered.dim))
    Z[0] = z0
    with np.errstate(all="ignore"):
        for n in range(steps):
            Z[n + 1] = step(Z[n])
    e1, e2, c = _energy_functions(scheme.system)
    E1, E2 = _columns(e1, Z), _columns(e2, Z)
    D = _dissipation_function(scheme, _q(dt))
    Dn = _columns(D, np.hstack([Z[:-1], Z[1:]])) if steps else np.zeros(0)
    S = _columns(_vectorized(rounding_scale(scheme.system.energy()), scheme.system.chart.coords), Z)
    return Trajectory(scheme.system, dt * np.arange(steps + 1), Z, E1 + E2, (E1, E2), Dn, _columns(c, Z), dt, S)


def wave_beam_scheme(p: Parameters, damping, force=None):
    """The coupled system of eqs. (87)-(88) and its AVF scheme (eq. 89), with ``g1 = g2 = damping``."""
    g = _q(damping)
    s = wave_beam_system(p.intervals, damping=(g, g), contact=tuple(_q(x) for x in p.contact),
                         length=(_q(p.length), _q(p.length)))
    return discrete_gradient_scheme(s, avf_gradient, step=sympy.Symbol("h"), force=force)


def gaussian_state(scheme, k, width, center, dps=None):
    """Subsystem ``k`` displaced to ``exp(-width (x_j - center)^2)`` at its nodes ``x_j``, all else at rest.

    Floats, or ``mpmath`` numbers at ``dps`` digits when ``dps`` is given (call inside ``workdps``).
    """
    S = scheme.system
    X = S.systems[k]
    off = 0 if k == 0 else 2 * S.first.n
    dx = X.spacing
    if dps is None:
        z = [0.0] * len(scheme.current)
        for j in range(X.n):
            z[off + j] = math.exp(-width * (float((j + 1) * dx) - center) ** 2)
        return z
    import mpmath

    def mp(q):
        q = sympy.Rational(q)
        return mpmath.mpf(int(q.p)) / int(q.q)

    z = [mpmath.mpf(0)] * len(scheme.current)
    for j in range(X.n):
        z[off + j] = mpmath.exp(-mp(_q(width)) * (mp((j + 1) * dx) - mp(_q(center))) ** 2)
    return z


def initial_state(scheme, p: Parameters, dps=None):
    """``u1(0, x) = exp(-width (x - center)^2)`` at the wave's interior nodes, everything else 0."""
    return gaussian_state(scheme, 0, p.width, p.center, dps)


def _dissipation_expr(scheme, dt):
    """``D^n``: the system's dissipation at ``w = d+ u = (u^{n+1} - u^n)/dt``."""
    S = scheme.system
    (u1, _, U1, _), (u2, _, U2, _) = scheme.blocks(0), scheme.blocks(1)
    return (S.first.dissipation([(a - b) / dt for a, b in zip(U1, u1)])
            + S.second.dissipation([(a - b) / dt for a, b in zip(U2, u2)]))


def high_precision_identity(scheme, z0, dt, steps, dps=50):
    """The discrete energy identity over ``steps`` steps at ``dps`` digits.

    Returns ``max_n |E^{n+1} - E^n + dt D^n| / E^0`` (Theorem 6: zero; at 50 digits about 1e-48).
    ``z0`` is a function of ``dps`` giving the initial state (see :func:`initial_state`).
    """
    import mpmath

    h = _q(dt)
    lowered = lower_linear_scheme(scheme.equations, scheme.current, scheme.new, {scheme.step: h})
    step = lowered.mp_stepper(dps)
    E = _vectorized(scheme.system.energy(), scheme.system.chart.coords, "mpmath")
    D = _vectorized(_dissipation_expr(scheme, h), tuple(scheme.current) + tuple(scheme.new), "mpmath")
    with mpmath.workdps(dps):
        z = mpmath.matrix(z0(dps))
        E0 = E(*z)
        worst = mpmath.mpf(0)
        dtm = mpmath.mpf(int(h.p)) / int(h.q)
        for _ in range(steps):
            z1 = step(z)
            worst = max(worst, abs(E(*z1) - E(*z) + dtm * D(*(list(z) + list(z1)))))
            z = z1
        return float(worst / abs(E0))


# --------------------------------------------------------------------------- rounding scales


def rounding_scale(expr):
    r"""The first-order rounding scale of evaluating ``expr`` in floating point.

    The model of floating-point arithmetic: every input and every operation's result is rounded
    once, relative to its own size (``fl(x) = x (1 + d)``, ``|d| <= eps``).  To first order in
    ``eps`` the error of ``expr`` is then at most ``eps`` times this scale, built bottom up:

    * a symbol, or a number that is not an integer: its absolute value; an integer: 0 (exact), and so is
      a negation;
    * a sum: the scales of its terms plus the absolute values of its terms (the partial sums'
      roundings, each bounded by the sum of the absolute values, counted once);
    * a product: ``sum_i scale(f_i) prod_{j != i} |f_j| + |prod f|``;
    * an integer power ``b^n``: ``|n| |b|^(n-1) scale(b) + |b^n|``.

    For an energy ``sum w (a.z)^2`` the scale is about ``sum 2|w| |a.z| (|a|.|z|)``: where the second
    differences of a smooth beam profile cancel, ``|a|.|z|`` is much larger than ``|a.z|``, and so is
    the error of the energy.  (The worst-case bound would multiply each sum's term by its number of
    terms; the budget below uses the first-order scale.)

    >>> x, y = sympy.symbols("x y")
    >>> rounding_scale(x - y)
    2*Abs(x) + 2*Abs(y)
    >>> rounding_scale((x - y)**2)
    2*(2*Abs(x) + 2*Abs(y))*Abs(x - y) + Abs((x - y)**2)
    """
    if expr.is_Symbol:
        return sympy.Abs(expr)
    if expr.is_Number:
        return sympy.S.Zero if expr.is_Integer else abs(expr)
    if isinstance(expr, sympy.Add):
        return sympy.Add(*[rounding_scale(t) + sympy.Abs(t) for t in expr.args])
    if isinstance(expr, sympy.Mul):
        c, rest = expr.as_coeff_Mul()
        if c == -1:                                  # negation is exact
            return rounding_scale(rest)
        f = expr.args
        return sympy.Add(*[rounding_scale(fi) * sympy.Mul(*[sympy.Abs(fj) for j, fj in enumerate(f) if j != i])
                           for i, fi in enumerate(f)]) + sympy.Abs(expr)
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 0:
        n = int(expr.exp)
        return n * sympy.Abs(expr.base) ** (n - 1) * rounding_scale(expr.base) + sympy.Abs(expr)
    raise ExpressionError(f"rounding_scale handles polynomials in symbols; got the subexpression {expr}")


#: the rounding budget: this many units of eps times the rounding scale per evaluation
ROUNDINGS = 10


def _worst(ratios) -> float:
    """The largest ratio; infinite when the run left the floating-point numbers (a blow-up fails)."""
    ratios = np.asarray(ratios, dtype=float)
    return float(np.max(ratios)) if ratios.size and np.all(np.isfinite(ratios)) else float("inf")


def rounding_ratios(traj):
    r"""How much of the rounding budget the run used (1 = all of it).

    Returns ``(identity, drift, mismatch)``:

    * ``identity``: ``max_n |E^{n+1} - E^n + dt D^n| / (4 eps (S^n + S^{n+1}))``, with ``S`` the
      rounding scale of the energy (:func:`rounding_scale`): the discrete energy identity per step;
    * ``drift``: ``max_n |E^n - E^0 + dt sum_{k<n} D^k| / (4 eps sum_{k<n} (S^k + S^{k+1}))``:
      the identity telescoped, i.e. the energy deviation of Fig. 4 (without damping) against the
      rounding accumulated over n steps;
    * ``mismatch``: ``max_n |c^n - c^0| / (4 eps sum_{k<=n} (|mu1 eps1|_1 + |mu2 eps2|_1) |v^k|_inf)``, the
      contact velocities against the rounding of the velocities accumulated over n steps (the linear
      solve errs normwise, so the scale is the largest velocity, not the contact velocity).
    """
    S = traj.scale
    pair = ROUNDINGS * EPS * (S[:-1] + S[1:])
    step_res = traj.identity_residual()
    with np.errstate(all="ignore"):
        identity = _worst(np.abs(step_res) / pair)
        drift = _worst(np.abs(np.cumsum(step_res)) / np.cumsum(pair))
        # the solve errs normwise: the contact mismatch's rounding scale is |mu eps|_1 times the largest velocity
        weights = sum(abs(float(a)) for a in sympy.expand(traj.system.constraint).as_coefficients_dict().values())
        S_c = weights * np.max(np.abs(np.hstack([traj.block(0, "v"), traj.block(1, "v")])), axis=1)
        mismatch = _worst(np.abs(traj.mismatch - traj.mismatch[0])[1:] / (ROUNDINGS * EPS * np.cumsum(S_c)[1:]))
    return identity, drift, mismatch


# --------------------------------------------------------------------------- the case study


def _figures(p, runs, out):
    from ._plotting import figure, save

    paths = []
    fig, axes = figure(2, 2, figsize=(10, 7), sharex="col", layout="constrained")
    for row, (label, (sch, tr)) in enumerate(runs.items()):
        for col in range(2):
            ax = axes[row][col]
            X = sch.system.systems[col]
            x = np.arange(1, X.n + 1) * float(X.spacing)
            U = tr.block(col, "u")
            lim = float(np.max(np.abs(U))) or 1.0
            im = ax.imshow(U, origin="lower", aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                           extent=(x[0], x[-1], tr.times[0], tr.times[-1]), interpolation="nearest")
            ax.axvline(float(p.contact[col]), color="k", lw=0.6, ls=":")
            ax.set_title(f"{'wave u1' if col == 0 else 'beam u2'}, {label} "
                         f"(Fig. {(2 if col == 0 else 3) if row == 0 else (5 if col == 0 else 6)})", fontsize=9)
            ax.set_ylabel("t")
            fig.colorbar(im, ax=ax)
    for ax in axes[1]:
        ax.set_xlabel("x")
    paths += save(fig, out, f"{NAME}-displacements")

    fig, axes = figure(2, 2, figsize=(10, 6.5), sharex=True, layout="constrained")
    for col, (label, (sch, tr)) in enumerate(runs.items()):
        ax = axes[0][col]
        ax.plot(tr.times, tr.energies[0], label="wave E1")
        ax.plot(tr.times, tr.energies[1], label="beam E2")
        ax.plot(tr.times, tr.energy, "k", lw=1.5, label="total E")
        ax.set_title(f"energy exchange, {label}" + ("" if label == "undamped" else " (Fig. 7)"), fontsize=9)
        ax.legend(fontsize=8)
        ax = axes[1][col]
        res = np.abs(np.cumsum(tr.identity_residual())) / tr.energy[0]
        budget = np.cumsum(ROUNDINGS * EPS * (tr.scale[:-1] + tr.scale[1:])) / tr.energy[0]
        ax.semilogy(tr.times[1:], np.maximum(res, 1e-18), ".", ms=2,
                    label="|E^n - E^0| / E^0 (Fig. 4)" if label == "undamped" else "|E^n - E^0 + dt sum D^k| / E^0")
        ax.semilogy(tr.times[1:], budget, "r-", lw=1, label=f"rounding budget ({ROUNDINGS} eps x scale, summed)")
        ax.semilogy(tr.times[1:], EPS * np.arange(1, len(tr.times)), "k:", lw=1, label="eps x n")
        ax.set_xlabel("t")
        ax.set_title(f"energy {'error' if label == 'undamped' else 'identity'} at rounding level, {label}", fontsize=9)
        ax.legend(fontsize=7)
    paths += save(fig, out, f"{NAME}-energy")
    return paths


def _lowering_derivation(sch, dt, lowered, state="(u_1, v_1, u_2, v_2)", equation="(89)"):
    D = Derivation(r"Lowering the scheme to one linear solve per step")
    D = D.add(r"The average-vector-field gradient of a quadratic potential is linear, so the scheme's "
              r"equations (eq. " + equation + r") are linear and homogeneous in the new and the current level. Their exact "
              r"coefficients, at $\Delta t = " + sympy.latex(_q(dt)) + r"$, are read off once:",
              r"A\,z^{n+1} + B\,z^{n} &= 0,\qquad z = " + state + r" \in \mathbb{R}^{" + str(lowered.dim)
              + r"},\quad \#\{A_{ij} \ne 0\} = " + str(len(lowered.A)) + r",\ \#\{B_{ij} \ne 0\} = "
              + str(len(lowered.B)) + ".")
    D = D.add(r"A step solves $A\,\Delta = -(A + B)\,z^{n}$ and sets $z^{n+1} = z^n + \Delta$ (the same equation "
              r"without cancelling the $1/\Delta t$ terms in floating point), with $A$ LU-factored once.")
    return D.concluding(r"The run, the 50-digit run and the certificates use the same equations.")


def run(profile="quick", out=".", parameters=None) -> CaseResult:
    """Reproduce the first example of Section 5 (undamped and damped); see the module docstring."""
    t0 = time.perf_counter()
    p = parameters if parameters is not None else (Parameters.paper() if profile == "paper" else Parameters.quick())
    p.validate()
    res = CaseResult(NAME, TITLE, SOURCE, profile, p)
    src = "Section 5, first example"
    runs = {}
    for label, g in (("undamped", 0), ("damped", p.damping)):
        sch = wave_beam_scheme(p, g)
        tr = simulate(sch, initial_state(sch, p), p.dt, p.steps)
        runs[label] = (sch, tr)
        N = p.intervals
        res.certificates.append((f"Theorem 5 (semi-discrete energy balance), wave + beam, {label}, N = {N}",
                                 certify_energy_balance(sch.system)))
        res.certificates.append((f"Theorem 6 (discrete energy identity of the AVF scheme), {label}, N = {N}",
                                 certify_discrete_energy_balance(sch)))
        identity, drift, mismatch = rounding_ratios(tr)
        fig = "Fig. 4" if g == 0 else "Fig. 7"
        if g == 0:
            res.checks.append(check_below(
                "undamped: energy conserved to rounding: max_n |E^n - E^0| in units of the rounding budget "
                f"({ROUNDINGS} eps x the energy's rounding scale, summed over the steps)", drift, 1.0, f"{src}, {fig}"))
        else:
            res.checks.append(check_true(
                "damped: the energy decreases at every step", int(np.sum(np.diff(tr.energy) >= 0)),
                "0 steps with E^{n+1} >= E^n", bool(np.all(np.diff(tr.energy) < 0)), f"{src}, Fig. 7"))
            res.checks.append(check_below(
                "damped: E^n - E^0 equals -dt sum D^k (the dissipation identity telescoped), in units of the "
                "rounding budget", drift, 1.0, f"{src}, Fig. 7; Theorem 6"))
        res.checks.append(check_below(
            f"{label}: per step, (E^(n+1) - E^n)/dt = -D^n (Theorem 6) in units of the rounding budget "
            f"({ROUNDINGS} eps x (S^n + S^(n+1)))", identity, 1.0, f"Theorem 6, eq. (85); {fig}"))
        res.checks.append(check_below(
            f"{label}: the contact-point velocities stay equal: max |c^n - c^0| in units of the rounding budget",
            mismatch, 1.0, "Theorem 6, eq. (81); Section 5"))
        res.notes.append(
            f"{label} (g1 = g2 = {g}): E^0 = {tr.energy[0]:.12g}, E^end = {tr.energy[-1]:.12g}; "
            f"max |E^n - E^0|/E^0 = {np.max(np.abs(tr.energy - tr.energy[0])) / tr.energy[0]:.3g}; "
            f"max |E^(n+1) - E^n + dt D^n|/E^0 = {np.max(np.abs(tr.identity_residual())) / tr.energy[0]:.3g}; "
            f"max |c^n| = {np.max(np.abs(tr.mismatch)):.3g}; beam energy max {np.max(tr.energies[1]):.4g}.")
    u2_und = float(np.max(np.abs(runs["undamped"][1].block(1, "u"))))
    u2_dam = float(np.max(np.abs(runs["damped"][1].block(1, "u"))))
    res.checks.append(check_true(
        "the beam's excitation is smaller with damping than without: max |u2| damped < undamped",
        f"{u2_dam:.4g} < {u2_und:.4g}", "damped < undamped", u2_dam < u2_und, "Fig. 6 caption"))
    # the same equations at 50 digits, a few steps on a coarser grid
    import dataclasses

    for label, g in (("undamped", 0), ("damped", p.damping)):
        q = dataclasses.replace(p, intervals=p.hp_intervals)
        sh = wave_beam_scheme(q, g)
        hp = high_precision_identity(sh, lambda d, sh=sh, q=q: initial_state(sh, q, d), p.dt, p.hp_steps, p.hp_digits)
        res.checks.append(check_below(
            f"{label}, {p.hp_digits} digits (mpmath), N = {p.hp_intervals}, {p.hp_steps} steps: "
            "max |E^(n+1) - E^n + dt D^n| / E^0", hp, 1e-45, "Theorem 6 (exact identity)"))
    sch0 = runs["undamped"][0]
    W, B = sch0.system.first, sch0.system.second
    res.certificates.append((f"grad V1 = -D2 u1 with D2 as printed (eq. 90), N = {p.intervals}",
                             certify_gradient_operator(W, second_difference_matrix(W.n, W.spacing), -1)))
    res.certificates.append((f"grad V2 = D4 u2 with D4 as printed (eq. 90, corner 5), N = {p.intervals}",
                             certify_gradient_operator(B, fourth_difference_matrix(B.n, B.spacing), 1)))
    res.derivations.append(sch0.system.force.derivation)
    lowered = lower_linear_scheme(sch0.equations, sch0.current, sch0.new, {sch0.step: _q(p.dt)})
    res.derivations.append(_lowering_derivation(sch0, p.dt, lowered))
    res.misprints.extend(MISPRINTS)
    res.notes.append(
        f"Grid N = {p.intervals} (dx = {p.length / p.intervals:g}), dt = {p.dt:g}, T = {p.t_end:g} ({p.steps} steps); "
        f"AVF discrete gradient (linear for these quadratic potentials); point deltas e_k/dx at x1 = {p.contact[0]}, "
        f"x2 = {p.contact[1]}. Energies are Theorem 6's, with the wave potential whose gradient is -D2 u (not eq. (91) "
        "as printed).")
    res.figures.extend(_figures(p, runs, out))
    res.seconds = time.perf_counter() - t0
    return res
