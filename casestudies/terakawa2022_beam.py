r"""Terakawa & Yaguchi 2022, Section 6: an elastic beam coupled to a two-mass spring.

The semi-discretized simply supported beam (``N_x = 51``, ``dx = 0.02`` as printed: unknowns
``u_1 .. u_50``, boundary nodes ``x_0`` and ``x_51``, so 51 intervals and a beam of length 1.02 --
see the findings) is glued at node ``n_b = 10`` (``b = n_b dx = 0.2``) to the mass ``m_1`` of a
two-mass spring; the interaction force f is chosen so
that the total energy is conserved.  The coupled system is NOT Hamiltonian on its phase
space (``L_X omega = (du_{n_b} - dq_1) ^ df != 0``) but it is on the invariant submanifold
``S = {v_{n_b}/(rho A) = p_1/m_1, u_{n_b} - q_1 = C}``, on which the experiment starts.

One definition, three uses: :func:`geomcheck.structures.beam_two_mass` is the system; its
vector field and form are certified (Lemma 6, the submanifold, the energy), the catalog's
``stormer-verlet`` builds its step map from the same vector field
(:class:`integrators.forced.ForcedHamiltonianSystem`), that step map is certified on S
(:func:`integrators.forced.certify_step_on_submanifold`) and run by :func:`integrators.integrate`:
the step being linear, as the matrix of the lowered step (:mod:`integrators.matrix_step`), every
state observed; and lowered to mpmath for a 50-digit run.

What the discrete step does (certified on this very system, exact arithmetic): it is NOT
symplectic on the whole phase space (counterexample), it maps S exactly into itself (the
force keeps ``v_{n_b}/(rho A) - p_1/m_1`` constant identically, and the drift keeps
``u_{n_b} - q_1`` where that vanishes), and restricted to S it preserves ``iota^* omega``.
So the paper's claim about the flow carries over to the scheme exactly; the numerical
drift from S is rounding only.

Stability: for ``q'' = B D q`` Stormer-Verlet is stable iff ``dt omega_max < 2``; here
``omega_max = 3157.87`` (the beam's highest mode, ``sqrt(EI/(rho A)) 4/dx^2`` nearly), so
``dt_max = 6.3334e-4``; the paper's ``dt = 5e-4`` is 79 % of it.  ``run`` refuses a step
size at or beyond the limit (:class:`integrators.stability.StepSizeError`).

Findings
--------

* [error] Lemma 6: printed ``L_X omega = df_1 ^ dq_1 + df_2 ^ dq_2`` for the lemma's own
  ``omega = dq_1 ^ dp_1 + dq_2 ^ dp_2`` and the field of eq. (3); computed from the flow (no
  convention for ``i_X`` involved) it is ``dq_1 ^ df_1 + dq_2 ^ df_2``, the negative.  The sign
  enters at the proof's first line and is carried consistently (not damage of our copy);
  Theorem 7 is unaffected.
* [convention] Sec. 6, the condition of Theorem 7: the paper does not state the beam's
  symplectic form.  With ``dx sum du_i ^ dv_i`` (the canonical momenta ``dx v_i`` of its
  dx-weighted ``H_el`` and discrete variational derivatives) the printed condition
  ``df ^ du_nb - df ^ dq_1 = 0`` is exact and holds on S; with ``sum du_i ^ dv_i`` it would read
  ``(1/dx) df ^ du_nb - df ^ dq_1`` and fail on S.  The first reading holds.
* [error] eq. (6): the right-end ghost relation is printed ``u_{N_x-1} = -u_{N_x}``, which with
  eq. (5) forces the unknown ``u_{N_x-1}`` to vanish; the discrete ``u_xx(L) = 0`` (eq. (7) at the
  other end) gives ``u_{N_x+1} = -u_{N_x-1}``, with which ``EI delta_4 u_i`` is exactly the
  discrete variational derivative of ``H_el``.
* [convention] Sec. 6 (L = 1, N_x = 51, Delta x = 0.02): with the indexing of eqs. (4)-(5) the
  three printed numbers do not agree (``N_x`` intervals of 0.02 make 1.02).  We run ``N_x = 51``
  and ``dx = 0.02`` as printed (50 unknowns, 51 intervals, length 1.02, ``b = n_b dx = 0.2``);
  ``L = 1`` with ``N_x = 51`` would need ``dx = 1/51``, ``L = 1`` with ``dx = 0.02`` would need
  ``N_x = 50``.

Measured (2 cores shared with other jobs): quick profile 8-10 s; paper profile (T = 50 at
dt = 5e-4, and T = 500 at dt = 5e-4 and 2.5e-4: 3.1 million steps, every state observed) 37-56 s.
Paper profile: max |H - H(0)| over T = 500 is 9.747e-08 (dt = 5e-4) and 2.445e-08
(dt = 2.5e-4), ratio 3.986 (Fig. 4: 4); the subsystems exchange 7.4 % of H(0) = 0.25 while
the total moves by 5.3e-6 of that exchange (Fig. 3); drift from S 4.1e-12 after 1e5 steps;
50 digits: drift 1e-52, Jacobian defect on T S 6e-48 (828 on the whole space).

>>> from casestudies import terakawa2022_beam as case
>>> case.Parameters.quick().n_x
51
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
import sympy

import integrators as ig
from geomcheck.latex import Derivation
from geomcheck.maps import submanifold_parametrization
from geomcheck.structures import beam_symplecticity, coupled_lie_derivative, generic_coupled_system
from integrators.forced import ForcedHamiltonianSystem, certify_step_on_submanifold, evaluate_along
from integrators.linear import step_matrix
from integrators.codegen import lower_expressions
from integrators.stability import StepSizeError, check_verlet_step, verlet_stability_limit

from . import _plotting
from ._core import CaseResult, Finding, check_below, check_close, check_true

NAME = "terakawa-beam-two-mass"
TITLE = "Beam coupled to a two-mass spring: symplectic on an invariant submanifold"
SOURCE = ("S. Terakawa, T. Yaguchi, Symplecticity of coupled Hamiltonian systems, JSIAM Letters 14 (2022)"
          " 37-40, Section 6, Figs. 2-4")

EPS = float(np.finfo(float).eps)

_COUPLED_TESTS = "tests/geomcheck/structures/test_coupled.py"

#: What we say about the paper (see the module docstring); each shown by a test.
FINDINGS = (
    Finding(
        "error", "Lemma 6",
        "Lemma 6 prints L_X omega = df_1 ^ dq_1 + df_2 ^ dq_2 for its own omega := dq_1 ^ dp_1 + dq_2 ^ dp_2 and"
        " the field of eq. (3) (q' = H_p, p' = -H_q + f). L_X omega is fixed by omega and X, whatever the"
        " convention for i_X: computed from the flow it is dq_1 ^ df_1 + dq_2 ^ df_2, the negative (a sign"
        " misprint). The sign enters at the proof's first line, i_X omega = (dp/dt) dq - (dq/dt) dp, which is"
        " -i_X omega for (i_X omega)(Y) = omega(X, Y), the convention under which Definition 2 (i_X omega = dH)"
        " gives eq. (3); it is carried consistently through the proof, Theorem 7 and Sec. 6, so it is not damage"
        " of our copy. Theorem 7 (the sum vanishes) is unaffected.",
        f"{_COUPLED_TESTS}::test_lemma6_sign_from_the_flow_plain_sympy"),
    Finding(
        "convention", "Sec. 6, the condition of Theorem 7",
        "The paper does not state the beam's symplectic form. With the canonical momenta Delta x v_i implied by"
        " its Delta x-weighted H_el and its discrete variational derivatives (1/Delta x) dH_el/du_i, the form is"
        " Delta x sum du_i ^ dv_i + dq_1 ^ dp_1 + dq_2 ^ dp_2 and Lemma 6 gives the printed condition exactly (up"
        " to Lemma 6's sign): L_X omega = (du_nb - dq_1) ^ df, zero on the invariant submanifold S. With"
        " sum du_i ^ dv_i it would be (du_nb/Delta x - dq_1) ^ df, not zero on S.",
        f"{_COUPLED_TESTS}::test_section6_beam_form_readings_plain_sympy",
        readings=(
            "beam form Delta x sum du_i ^ dv_i (canonical momenta Delta x v_i): the printed df ^ du_nb - df ^ dq_1"
            " = 0 is exact and holds on S -- holds",
            "beam form sum du_i ^ dv_i (the plain form in the coordinates (u, v), Hamiltonian H_el/Delta x): the"
            " condition would be (1/Delta x) df ^ du_nb - df ^ dq_1, not zero on S -- not the paper's",
        )),
    Finding(
        "error", "eq. (6)",
        "eq. (6) prints the right-end ghost relation u_{N_x-1} = -u_{N_x}; with eq. (5) (u_{N_x} = 0) it forces the"
        " unknown u_{N_x-1} to vanish and leaves u_{N_x+1}, which delta_4 u_{N_x-1} needs, undefined (an index"
        " misprint). The discrete u_xx(L) = 0, eq. (7) at the other end, gives u_{N_x+1} = -u_{N_x-1}; with it"
        " EI delta_4 u_i is exactly (1/Delta x) dH_el/du_i for every i, the discrete variational derivative the"
        " paper names. The printed relation is well formed, not garbled, so we take it as the authors'.",
        f"{_COUPLED_TESTS}::test_ghost_node_of_eq6_plain_sympy"),
    Finding(
        "convention", "Sec. 6 (L = 1, N_x = 51, Delta x = 0.02)",
        "With the indexing of eqs. (4)-(5) (unknowns u_1 .. u_{N_x-1}, boundary values u_0 = u_{N_x} = 0) the"
        " printed L = 1, N_x = 51 and Delta x = 0.02 do not agree: N_x intervals of 0.02 make a beam of length"
        " 1.02. We run N_x = 51 and Delta x = 0.02 as printed: 50 unknowns u_1 .. u_50, 51 intervals, length"
        " 1.02, coupling point b = n_b Delta x = 0.2 as printed, 104 coordinates; L = 1 is the number not"
        " matched.",
        "tests/casestudies/test_terakawa2022_beam.py::test_the_grid_we_run_and_the_printed_numbers",
        readings=(
            "N_x = 51 and Delta x = 0.02 as printed, length N_x Delta x = 1.02 (b = n_b Delta x = 0.2 as printed)"
            " -- what we run",
            "L = 1 and N_x = 51: Delta x = 1/51 (not the printed 0.02) and b = n_b Delta x = 0.196 (not 0.2)"
            " -- not run",
            "L = 1 and Delta x = 0.02: N_x = 50, 49 unknowns (or N_x counting the grid points x_0 .. x_50,"
            " against eq. (5)'s u_{N_x} = 0) -- not run",
        )),
)

#: Equation numbers cited here, in geomcheck/structures/coupled.py and docs/papers/terakawa2022_beam.md ->
#: our copy's text at the display.
EQUATIONS = {
    3: r"\begin{pmatrix} 0 \\ f_1 \\ 0 \\ f_2 \end{pmatrix}. \quad (3)",
    4: r"\begin{pmatrix} 0 \\ F_i \\ 0 \\ 0 \\ -f \\ 0 \end{pmatrix}, \quad (4)",
    5: r"u_0(t) = u_{N_x}(t) = 0, \quad (5)",
    6: r"u_{-1}(t) = -u_1(t), \quad u_{N_x-1}(t) = -u_{N_x}(t). \quad (6)",
    7: r"\frac{u_{-1} - 2u_0 + u_1}{\Delta x^2} = 0. \quad (7)",
    8: r"\frac{1}{\rho A} v_{n_b}(0) - \frac{1}{m_1} p_1(0) = 0, \quad (8)",
    9: r"\frac{1}{\rho A} \frac{dv_{n_b}}{dt}(t) - \frac{1}{m_1} \frac{dp_1}{dt}(t) = 0. \quad (9)",
}


@dataclass(frozen=True)
class Parameters:
    """Every parameter of the experiment (Section 6).

    ``dt``, ``T``: the run of Figs. 2-3; ``dt_law`` (dt and dt/2), ``T_law``: the runs of
    Fig. 4; ``mp_steps``, ``mp_dps``: the high-precision run; ``symbolic_n_x``: the grid
    of the certificate with symbolic rho, A, E, I, m1, m2, k, dx (0: skipped).
    """

    n_x: int = 51
    n_b: int = 10
    rho: str = "10"
    A: str = "1"
    E: str = "1"
    I: str = "1"  # noqa: E741  (the paper's second moment of area)
    m1: str = "1/10"
    m2: str = "1/10"
    k: str = "1/2"
    q2_0: float = -1.0
    dt: float = 5e-4
    T: float = 50.0
    dt_law: tuple = (5e-4, 2.5e-4)
    T_law: float = 500.0
    mp_steps: int = 20
    mp_dps: int = 50
    symbolic_n_x: int = 7

    @classmethod
    def quick(cls) -> "Parameters":
        """A few seconds: T = 5 and T_law = 10 (the slowest beam mode, 2.2 rad/s, is seen)."""
        return cls(T=5.0, T_law=10.0, mp_steps=10, symbolic_n_x=0)

    @classmethod
    def paper(cls) -> "Parameters":
        """The paper's lengths: T = 50 (N_t = 1e5) and T = 500 at dt = 5e-4 and 2.5e-4."""
        return cls()

    def values(self) -> dict:
        return {k: sympy.Rational(getattr(self, k)) for k in ("rho", "A", "E", "I", "m1", "m2", "k")}


# --------------------------------------------------------------------------- building


def build(params: Parameters):
    """The model (geomcheck BeamTwoMass) and the integrators' view of the same system."""
    model = beam_symplecticity(params.n_x, params.n_b, **params.values())
    system = ForcedHamiltonianSystem.from_coupled(model.model.system)
    return model, system


def initial_state(model, system, params):
    """All zero but q2 (the paper): on the submanifold with C = 0."""
    y0 = np.zeros(system.dim)
    y0[system.chart.index(model.q[1])] = params.q2_0
    return y0


def _energy_kernel(system, model):
    subs = system.subsystem_energies
    return lower_expressions([subs["el"], subs["sp"], *model.submanifold], system.coords, [model.C],
                             what="the energies")


def _observer(kernel):
    """``observe(t, y)`` for :func:`integrators.integrate`: per state H_el, H_sp, and the two defining
    functions of S (with C = 0)."""
    S = kernel.scalars(0.0)

    def observe(t, Y):
        out = kernel.kernel(S, *[Y[:, i] for i in range(Y.shape[1])])
        return np.stack([np.broadcast_to(o, (len(Y),)) for o in out], axis=1)
    return observe


def simulate(system, model, params, dt, T, save_every, scheme="stormer-verlet", y0=None):
    """Run ``scheme`` for time T (:func:`integrators.integrate`; the step is linear, so it runs as its
    matrix, :mod:`integrators.matrix_step`); every state is observed: columns H_el, H_sp, g1, g2
    (S's defining functions).

    Returns ``(steps, saved states, observations)``.
    """
    steps = int(round(T / dt))
    y0 = initial_state(model, system, params) if y0 is None else y0
    sol = ig.integrate(system, scheme, y0, dt=dt, steps=steps, save_every=save_every, progress=False,
                       linear_solve="matrix", observe=_observer(_energy_kernel(system, model)))
    return steps, sol.y, sol.observed


def energy_checks(obs, states, steps, source="Sec. 6") -> list:
    """The claims of Fig. 3 and of the submanifold, measured on one run's observations."""
    H_el, H_sp, g1, g2 = obs.T
    H = H_el + H_sp
    dH = np.abs(H - H[0])
    exchanged = float(np.abs(H_el - H_el[0]).max())
    half = len(H) // 2
    # rounding-level bound: the step keeps S exactly (certified); each step adds O(eps) relative
    bound = 10 * steps * EPS * max(float(np.abs(states).max()), 1.0)
    return [
        check_true("the subsystems exchange energy: max |Delta H_el| / H(0) (a visible exchange: >= 5%)",
                   exchanged / H[0], ">= 0.05", exchanged / H[0] >= 0.05, f"{source}, Fig. 3"),
        check_below("Delta H_el and Delta H_sp are complementary: max |Delta H| / max |Delta H_el|",
                    float(dH.max()) / exchanged, 1e-3, f"{source}, Fig. 3"),
        check_below("the total energy error is bounded, no drift: max over the 2nd half / max over the 1st half",
                    float(dH[half:].max() / dH[1:half].max()), 1.5, f"{source}, Fig. 3"),
        check_true("the run starts on S (eq. 8 and C = 0)", f"g1 = {g1[0]:g}, g2 = {g2[0]:g}", "both 0",
                   g1[0] == 0 and g2[0] == 0, f"{source}, eq. (8)"),
        check_below(f"the numerics stay on S: max |v_nb/(rho A) - p1/m1|, |u_nb - q1 - C| over {steps} steps"
                    f" (bound 10 * steps * eps * max|y|)",
                    float(max(np.abs(g1).max(), np.abs(g2).max())), bound, f"{source}, eq. (8)-(9)"),
    ]


def dt_law_check(err_dt, err_half, T, source="Sec. 6"):
    """Fig. 4: the ratio of the maximal total energy errors at dt and dt/2 is 4 (10 %)."""
    ratio = float(np.abs(err_dt).max() / np.abs(err_half).max())
    return check_close(f"halving dt quarters the total energy error (T = {T:g}): max|dH|(dt) / max|dH|(dt/2)",
                       ratio, 4.0, 0.4, f"{source}, Fig. 4")


# --------------------------------------------------------------------------- high precision


def _random_pairs(dim, count, seed):
    rng = np.random.default_rng(seed)
    return [(rng.integers(-9, 10, dim), rng.integers(-9, 10, dim)) for _ in range(count)]


def _omega_value(omega, a, b):
    total = mpmath.mpf(0)
    for (i, j), c in omega.components.items():
        total += mpmath.mpf(sympy.N(c, 60)) * (a[i] * b[j] - a[j] * b[i])
    return total


def high_precision(system, model, params):
    """A 50-digit run: drift from S, and the symplecticity defect of the step's Jacobian.

    The step is linear, so its Jacobian applied to a vector is the step of that vector:
    the defect ``omega(J a, J b) - omega(a, b)`` is evaluated exactly that way, for random
    integer tangent vectors of S and of the whole space.
    """
    dps = params.mp_dps
    dt = Fraction(params.dt).limit_denominator(10**9)          # 5e-4 -> 1/2000 exactly
    with mpmath.workdps(dps):
        dt_mp = mpmath.mpf(dt.numerator) / dt.denominator
    sol = ig.integrate(system, "stormer-verlet", [str(x) for x in initial_state(model, system, params)],
                       dt=dt_mp, steps=params.mp_steps, backend="mpmath", dps=dps, save_every=1)
    g1, g2 = evaluate_along(sol, [e.xreplace({model.C: 0}) for e in model.submanifold])
    drift = max(max(abs(x) for x in g1), max(abs(x) for x in g2))
    E = sol.energy()
    # tangent vectors of S: images of integer vectors under the differential of iota
    Sch, iota = submanifold_parametrization(system.chart, model.submanifold, model.solve_for, model.parameters)
    dIota = [[sympy.diff(e, s) for s in Sch.coords] for e in iota.exprs]

    def tangent(c):
        return [sum((int(c[j]) * row[j] for j in range(len(c)) if row[j] != 0), sympy.S.Zero) for row in dIota]

    def defect(vectors):
        # one step of the pairs (a, b), a verification at given vectors, not a run: J a and J b
        rows = [[sympy.N(x, dps + 10) for x in v] for pair in vectors for v in pair]
        step = ig.integrate(system, "stormer-verlet", rows, dt=dt_mp, steps=1, backend="mpmath", dps=dps,
                            save_every=1)
        worst = mpmath.mpf(0)
        with mpmath.workdps(dps):
            for k in range(len(vectors)):
                before = _omega_value(system.omega, list(step.y[0, 2 * k]), list(step.y[0, 2 * k + 1]))
                after = _omega_value(system.omega, list(step.y[1, 2 * k]), list(step.y[1, 2 * k + 1]))
                worst = max(worst, abs(after - before) / max(abs(before), mpmath.mpf(1)))
        return worst

    on_s = defect([(tangent(a), tangent(b)) for a, b in _random_pairs(Sch.dim, 3, 7)])
    full = defect([([int(x) for x in a], [int(x) for x in b]) for a, b in _random_pairs(system.dim, 3, 8)])
    return {"drift": drift, "defect_on_S": on_s, "defect_full": full,
            "energy_change": abs(E[-1] - E[0]), "steps": params.mp_steps, "dps": dps}


# --------------------------------------------------------------------------- figures


def _envelope(err, dt, bins=1500):
    """Per-bin minimum and maximum of a long series (the fluctuation band, without aliasing)."""
    k = max(1, len(err) // bins)
    m = (len(err) // k) * k
    blocks = err[:m].reshape(-1, k)
    t = (np.arange(blocks.shape[0]) * k + k / 2) * dt
    return t, blocks.min(axis=1), blocks.max(axis=1)


def _figures(out, t, obs, q_idx, states, t_s, law, params):
    paths = []
    fig, (top, bottom) = _plotting.figure(2, 1, sharex=True, figsize=(6.4, 4.8))
    top.plot(t_s, states[:, q_idx["q2"]], lw=1.0, color="C2", label=r"$q_2$")
    top.set_ylabel("displacement"), top.legend(loc="upper right", fontsize=8)
    bottom.plot(t_s, states[:, q_idx["unb"]], lw=1.4, label=r"$u_{n_b}$ (coupling point)")
    bottom.plot(t_s, states[:, q_idx["q1"]], "--", lw=1.0, color="C1", label=r"$q_1$")
    bottom.set_xlabel("t"), bottom.set_ylabel("displacement"), bottom.legend(loc="upper right", fontsize=8)
    top.set_title(f"Fig. 2: displacement of the coupling point and the masses (dt = {params.dt:g})", fontsize=9)
    paths += _plotting.save(fig, out, f"{NAME}-fig2-displacement")

    H_el, H_sp = obs[:, 0], obs[:, 1]
    fig, ax = _plotting.figure(figsize=(6.4, 3.6))
    ax.plot(t, H_el - H_el[0], label=r"$\Delta H_{el}$", lw=1.0)
    ax.plot(t, H_sp - H_sp[0], label=r"$\Delta H_{sp}$", lw=1.0)
    ax.plot(t, (H_el + H_sp) - (H_el[0] + H_sp[0]), label=r"$\Delta H$ (total)", lw=1.4, color="k")
    ax.set_xlabel("t"), ax.set_ylabel("energy variation"), ax.legend(loc="best", fontsize=8)
    ax.set_title("Fig. 3: energy exchange between the subsystems and the total", fontsize=9)
    paths += _plotting.save(fig, out, f"{NAME}-fig3-energy-exchange")

    fig, ax = _plotting.figure(figsize=(6.4, 3.6))
    for (dt, err), color in zip(law, ("C0", "C1")):
        tt, lo, hi = _envelope(err, dt)
        ax.fill_between(tt, lo, hi, color=color, alpha=0.5, lw=0, label=f"dt = {dt:g}")
    tt, lo, hi = _envelope(4 * law[1][1], law[1][0])
    ax.plot(tt, lo, ":", color="k", lw=0.8, label=f"4 x (dt = {law[1][0]:g})")
    ax.plot(tt, hi, ":", color="k", lw=0.8)
    ax.set_xlabel("t"), ax.set_ylabel(r"$H(t) - H(0)$"), ax.legend(loc="center right", fontsize=8)
    ax.set_title("Fig. 4: total energy error for dt and dt/2 (band: min/max per bin; dt^2 law)", fontsize=9)
    paths += _plotting.save(fig, out, f"{NAME}-fig4-energy-error-dt2")
    return paths


def _thin(n, most=2000):
    return max(1, n // most)


# --------------------------------------------------------------------------- the run


def stability(system, params: Parameters) -> tuple:
    """Stormer-Verlet's stability limit on the system: ``(limit, checks)``.

    Raises
    ------
    StepSizeError
        ``params.dt`` (or a ``dt_law`` entry) at or beyond the limit.
    """
    sv = ig.scheme("stormer-verlet")
    lim = verlet_stability_limit(system)
    for dt in (params.dt, *params.dt_law):
        check_verlet_step(system, dt, limit=lim)     # raises StepSizeError beyond the limit
    checks = [check_below(
        "the paper's dt is inside Stormer-Verlet's stability limit: dt * omega_max < 2", params.dt * lim.omega_max,
        2.0, "Sec. 6 (dt = 5e-4)", strict=True)]
    beyond = 1.01 * lim.dt_max
    try:
        check_verlet_step(system, beyond, limit=lim)
        refused = "accepted"
    except StepSizeError as exc:
        refused = str(exc).split(";")[0]
    checks.append(check_true(
        f"a run just beyond the limit (dt = 1.01 dt_max = {beyond:.4g}) is refused", refused,
        "StepSizeError", refused != "accepted", "stability of the explicit scheme"))
    rho_beyond = float(np.abs(np.linalg.eigvals(step_matrix(sv, system, beyond))).max())
    rho_inside = float(np.abs(np.linalg.eigvals(step_matrix(sv, system, 0.99 * lim.dt_max))).max())
    checks.append(check_true(
        "why it is refused: the step's spectral radius exceeds 1 just beyond dt_max (growth), not inside",
        f"{rho_beyond:.4f} at 1.01 dt_max, 1 + {rho_inside - 1:.1e} at 0.99 dt_max",
        "> 1 beyond; 1 + O(sqrt(eps)) inside (a 2x2 Jordan block at 1: the drift of u_nb - q1 off S)",
        rho_beyond > 1.01 and rho_inside - 1 < 1e-6, "stability of the explicit scheme"))
    return lim, checks


def certify(params: Parameters, model, system, profile="quick") -> tuple:
    """The certificates of the flow and of the step map that runs: ``(certificates, derivations, checks)``."""
    sec = "Sec. 6"
    B = model.model
    sv = ig.scheme("stormer-verlet")
    certificates = [
        ("flow: the submanifold S is invariant", model.invariance),
        ("flow: iota^* L_X omega = 0 on S", model.on_submanifold),
        ("flow: total energy conserved on S (the choice of f)", model.energy),
        ("Lemma 6 on the beam: L_X omega = (du_nb - dq1) ^ df (component formula = Cartan)",
         model.lemma.cartan_check),
        ("Lemma 6 on the beam: closed form", model.lemma.closed_form_check),
    ]
    checks = [check_true(
        "the coupled flow is NOT symplectic on the whole phase space (L_X omega != 0, counterexample)",
        model.full_space.method, "certificate holds = False", model.full_space.holds is False, f"{sec}, Lemma 6")]
    generic = coupled_lie_derivative(generic_coupled_system((2, 1)))
    certificates.append(("Lemma 6, generic H1, H2, f (sizes 2, 1): direct = Cartan", generic.cartan_check))
    certificates.append(("Lemma 6, generic: L_X omega = sum dq_i ^ df_i", generic.closed_form_check))
    checks.append(check_true(
        "Lemma 6 as printed (sum df_i ^ dq_i) disagrees with the computation (the paper's sign error)",
        generic.printed_check.method, "certificate holds = False", generic.printed_check.holds is False, "Lemma 6"))

    # the step map (the one that runs) on this system
    phi = sv.step_map(system)
    onS = certify_step_on_submanifold(phi, system.omega, B.submanifold, B.solve_for, B.parameters)
    certificates += [
        ("Stormer-Verlet step maps S into itself (exact)", onS.invariance),
        ("Stormer-Verlet step restricted to S preserves iota^* omega", onS.symplectic),
    ]
    checks.append(check_true(
        "the Stormer-Verlet step is NOT symplectic on the whole phase space (counterexample)",
        onS.full_space.method, "certificate holds = False", onS.full_space.holds is False, sec))
    derivations = [model.derivation, generic.derivation, onS.derivation]
    if profile == "paper":
        for prop, cert in sv.certify(system, ["order", "symmetric"]).items():
            certificates.append((f"Stormer-Verlet on this system: {prop}", cert))
    if params.symbolic_n_x:
        from geomcheck.structures import beam_two_mass

        Bs = beam_two_mass(params.symbolic_n_x, 2, symbolic=True)
        Ss = ForcedHamiltonianSystem.from_coupled(Bs.system)
        onSs = certify_step_on_submanifold(sv.step_map(Ss), Ss.omega, Bs.submanifold, Bs.solve_for, Bs.parameters)
        certificates += [
            (f"symbolic rho, A, E, I, m1, m2, k, dx (N_x = {params.symbolic_n_x}): step keeps S", onSs.invariance),
            (f"symbolic parameters (N_x = {params.symbolic_n_x}): step symplectic on S", onSs.symplectic),
        ]
    return certificates, derivations, checks


def simulations(params: Parameters, model, system) -> dict:
    """The runs: ``"run"`` (Figs. 2-3: ``(steps, saved states, observations)`` at ``dt``, thinned saves),
    ``"law"`` (Fig. 4: ``[(dt, H(t) - H(0) at every step)]`` for ``dt_law``), ``"high precision"``."""
    B = model.model
    run_ = simulate(system, B, params, params.dt, params.T, _thin(int(params.T / params.dt)))
    law = []
    for dt in params.dt_law:
        _, _, ob = simulate(system, B, params, dt, params.T_law, 10**9)
        law.append((dt, (ob[:, 0] + ob[:, 1]) - (ob[0, 0] + ob[0, 1])))
    return {"run": run_, "law": law, "high precision": high_precision(system, B, params)}


def checks(params: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`."""
    sec = "Sec. 6"
    steps, states, obs = sims["run"]
    law = sims["law"]
    hp = sims["high precision"]
    return energy_checks(obs, states, steps, sec) + [
        dt_law_check(law[0][1], law[1][1], params.T_law, sec),
        check_below(f"50 digits, {hp['steps']} steps: drift from S (max |g1|, |g2|)", float(hp["drift"]), 1e-45, sec),
        check_below("50 digits: symplecticity defect of the step's Jacobian on T S, |omega(Ja, Jb) - omega(a, b)|"
                    " (relative)", float(hp["defect_on_S"]), 1e-40, sec),
        check_true("50 digits: on the whole space the defect is O(1) (the step is not symplectic there)",
                   float(hp["defect_full"]), ">= 1e-3", hp["defect_full"] >= 1e-3, sec),
    ]


def _run_figures(out, params: Parameters, system, B, sims: dict) -> list:
    """Figs. 2-4 from the runs (thinned to at most about 2000 points per curve)."""
    steps, states, obs = sims["run"]
    every = _thin(int(params.T / params.dt))
    t = np.arange(steps + 1) * params.dt
    idx = {"unb": system.chart.index(B.u[B.n_b - 1]), "q1": system.chart.index(B.q[0]),
           "q2": system.chart.index(B.q[1])}
    k = _thin(len(t))
    t_s = np.minimum(np.arange(states.shape[0]) * every, steps) * params.dt
    return _figures(out, t[::k], obs[::k], idx, states, t_s, sims["law"], params)


def _stability_derivation(lim, params: Parameters) -> Derivation:
    D = Derivation(r"Stability of Stormer-Verlet on the semi-discrete beam")
    D = D.add(r"With $\dot q = Bp$, $\dot p = Dq$ (here $q = (u, q_1, q_2)$), $\ddot q = BDq$; on a mode"
              r" $BDv = -\omega^2 v$ one step has $z^2 - (2 - \Delta t^2\omega^2)z + 1 = 0$, with $|z| = 1$ iff",
              r"\Delta t\,\omega &< 2, \qquad \omega_{\max} = %.6g, \quad \Delta t_{\max} = %.6g." % (
                  lim.omega_max, lim.dt_max))
    return D.concluding(r"The paper's $\Delta t = %g$ is %.1f\%% of the limit; a step beyond it is refused."
                        % (params.dt, 100 * params.dt / lim.dt_max))


def _notes(params: Parameters, lim, B, sims: dict, checks: list) -> list:
    steps, _, obs = sims["run"]
    law, hp = sims["law"], sims["high precision"]
    H0 = obs[0, 0] + obs[0, 1]
    law_ratio = next(c.measured for c in checks if c.description.startswith("halving dt quarters"))
    return [
        f"Stormer-Verlet stability limit: omega_max = {lim.omega_max:.6g} rad/s (from the eigenvalues of -B D,"
        f" B = dq'/dp, D = dp'/dq of the symbolic vector field), dt_max = 2/omega_max = {lim.dt_max:.6g};"
        f" the paper's dt = {params.dt:g} is {100 * params.dt / lim.dt_max:.1f}% of it.",
        f"max |H - H(0)| over T = {params.T_law:g}: {np.abs(law[0][1]).max():.4e} (dt = {law[0][0]:g}),"
        f" {np.abs(law[1][1]).max():.4e} (dt = {law[1][0]:g}); ratio {law_ratio:.4f}; H(0) = {H0:g}.",
        f"The grid: N_x = {params.n_x}, dx = {float(B.values['dx']):g} as printed: {len(B.u)} unknowns, {params.n_x}"
        f" intervals, a beam of length {params.n_x * float(B.values['dx']):g} (the paper's L = 1 is not matched by"
        f" its N_x and dx; a convention finding), coupling point b = n_b dx = {params.n_b * float(B.values['dx']):g}.",
        "The flow is not Hamiltonian on the 104-dimensional phase space; L_X omega = (du_nb - dq1) ^ df vanishes"
        " on the invariant submanifold S = {v_nb/(rho A) = p1/m1, u_nb - q1 = C}, where the run starts (C = 0).",
        "The discrete Stormer-Verlet step (the map that runs) is certified exactly on this system: not symplectic"
        " on the whole space, S mapped into itself, and symplectic for iota^* omega on S.",
        f"50-digit run ({hp['steps']} steps): drift from S {float(hp['drift']):.1e}, Jacobian defect on T S"
        f" {float(hp['defect_on_S']):.1e}, on the whole space {float(hp['defect_full']):.3g}.",
        f"Long runs use the matrix of the lowered symbolic step (the step is linear; certified as such);"
        f" T = {params.T:g} at dt = {params.dt:g} ({steps} steps), T = {params.T_law:g} at dt = {params.dt_law}.",
    ]


def run(profile="quick", out=".", params: Parameters | None = None) -> CaseResult:
    """Run the case study (``params`` overrides the profile's parameters, e.g. for tests).

    Raises
    ------
    StepSizeError
        ``params.dt`` (or a ``dt_law`` entry) at or beyond Stormer-Verlet's stability limit.
    """
    t_start = time.perf_counter()
    if params is None:
        params = Parameters.paper() if profile == "paper" else Parameters.quick()
    res = CaseResult(NAME, TITLE, SOURCE, profile, params)
    model, system = build(params)
    B = model.model

    # stability first: a step size beyond the limit is refused before any work
    lim, stability_checks = stability(system, params)
    certificates, derivations, symbolic_checks = certify(params, model, system, profile)
    sims = simulations(params, model, system)
    res.certificates += certificates
    res.derivations += derivations
    res.checks += stability_checks + symbolic_checks + checks(params, sims)

    res.figures += _run_figures(out, params, system, B, sims)
    res.derivations.append(_stability_derivation(lim, params))
    res.findings = list(FINDINGS)
    res.notes += _notes(params, lim, B, sims, res.checks)
    res.seconds = time.perf_counter() - t_start
    return res
