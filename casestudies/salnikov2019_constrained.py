r"""Salnikov & Hamdouni 2019, Section 3: the discrete Dirac scheme on a holonomic and a nonholonomic system.

The implicit Lagrangian system ``(L, Delta)`` and the paper's discrete procedure

.. math::

    p_{k+1} = \tfrac1h \partial_{v_k} L_d,\quad
    p_k - \tfrac1h \partial_{v_k} L_d + \partial_{q_k} L_d = \sum_a \lambda^a \partial_{v_k}\langle\alpha^a, v_k\rangle,
    \quad \langle \alpha_d^a, v_k\rangle = 0,\qquad L_d = h L(q_k, v_k),

are derived symbolically by :mod:`geomcheck.structures.implicit_lagrangian`; the step is one
:class:`~geomcheck.ImplicitMap` that is certified here and run by :func:`integrators.run_map`
(batched Newton for ``v_k`` and the multipliers).  Two systems:

* the planar pendulum in Cartesian coordinates, ``L = (v_x^2 + v_y^2)/2 - y``,
  ``alpha = x dx + y dy`` (holonomic: ``x^2 + y^2 = 1``);
* the knife edge, ``L = (v_x^2 + v_y^2 + v_theta^2)/2``, ``alpha = sin(theta) dx - cos(theta) dy``
  (nonholonomic).

Two variants of the scheme run on each: the *printed* one (the paper's example velocity,
"for instance" ``v_k = (q_{k+1} - q_{k-1})/(2h)``, with ``alpha_d = alpha(q_k)``) and the
*bounded* one (forward difference ``v_k = (q_{k+1} - q_k)/h``, ``alpha_d`` at the midpoint
``(q_k + q_{k+1})/2``; for the pendulum this is SHAKE).

What the paper states about the scheme, checked: the step's equations are ``2d + m`` lines
linear in ``lambda`` and ``p_{k+1}``, and the discrete constraints ``<alpha_d, v_k> = 0`` hold
(to solver tolerance, both variants).  Section 3 states no energy property of the scheme: the
expectation that the energy error stays bounded is ours (the motivation of Section 2 is
structure preservation), checked as ours -- true for the bounded variant (for the knife edge
the energy is even conserved exactly on the discrete constraint manifold, a certificate), not
for the printed example.  The paper gives no step sizes or run lengths; ours are in
:class:`Parameters`.

Findings
--------

* [critique] Sec. 3: the paper's example velocity ``v_k = (q_{k+1} - q_{k-1})/(2h)`` (offered
  "for instance") makes the procedure a dissipative two-step scheme.  For ``L = v^2/2 - q^2/2``
  it is ``q_{k+1} - q_k - q_{k-1} + q_{k-2} = -2h^2 q_k``; the roots of
  ``zeta^3 + (2h^2 - 1) zeta^2 - zeta + 1`` are a principal pair of modulus ``1 - h^2/4 + O(h^4)``
  (energy ~ ``exp(-h t/2)``) and a parasitic root ``-(1 + h^2/2) + O(h^4)``.  The energy drift
  measured on the pendulum is this same fact; the constraints hold all the same.
* [critique] Sec. 3 (end): "in ``q_{k+1}`` it is linear only when the constraints are
  holonomic" does not hold as a statement about holonomy: with the paper's
  ``alpha_d = alpha(q_k)`` the knife edge (nonholonomic: ``alpha ^ d alpha != 0``) gives step
  equations linear in every unknown, and the holonomic pendulum with ``alpha_d`` at the midpoint
  gives nonlinear ones; linearity is decided by L (``dL/dv`` linear in v) and by where
  ``alpha_d`` is evaluated.

Measured (this shared 2-core machine): quick profile 7 s; paper profile (t = 400 for the
pendulum, 2 x 10^4 steps of h = 0.02; t = 200 for the knife edge, 2 x 10^4 steps of h = 0.01)
35 s.  Discrete constraints to 4e-14 for both variants.  Bounded variant: pendulum energy error
at most 0.0144 with no growth up to t = 400 and ``x^2 + y^2 = 1`` to 1.5e-14; knife-edge energy
to 1.5e-12 after 2 x 10^4 steps, circles followed to 1.3e-5.  Printed variant, pendulums released
at 0.5, 1.5, 2.5 rad: energy lost 0.043, 0.46, 1.02 by t = 40 and 0.120, 0.92, 1.79 by t = 400,
i.e. nearly all of ``1 - cos(angle)`` = 0.122, 0.93, 1.80: they come to rest.

>>> from casestudies.salnikov2019_constrained import Parameters
>>> Parameters.quick().h_pendulum
0.02
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError
from geomcheck.latex import Derivation, tex_text
from geomcheck.structures import discrete_dirac_scheme, implicit_lagrangian_system
from geomcheck.zero import decide_zero
from integrators.pipeline import saved_steps_of
from integrators.run_map import run_map

from ._core import CaseResult, Finding, check_below, check_true
from .observing import expressions_on_states, observe_steps

__all__ = ["NAME", "TITLE", "SOURCE", "FINDINGS", "EQUATIONS", "Parameters", "run", "certify", "simulations", "checks",
           "pendulum", "knife_edge", "schemes", "simulate", "high_precision", "knife_energy_on_constraint_manifold",
           "linear_in_multipliers_and_new_momenta"]

NAME = "salnikov-constrained"
TITLE = "Discrete Dirac scheme: Cartesian pendulum (holonomic) and knife edge (nonholonomic)"
SOURCE = ("V. Salnikov, A. Hamdouni, Geometric integrators in mechanics - the need for computer algebra tools,"
          " 3rd International Conference \"Computer Algebra\", Moscow, June 2019 (HAL hal-02403757);"
          " Section 3 (constraints in the implicit Lagrangian formalism, the discrete scheme)")

_S3 = "Sec. 3"
_OURS = "ours (Sec. 3 states no energy property)"
_TESTS = "tests/casestudies/test_salnikov2019_constrained.py"

#: What we say about Section 3 (see the module docstring); each shown by a test.
FINDINGS = (
    Finding(
        "critique", "Sec. 3",
        "The paper's example velocity v_k = (q_{k+1} - q_{k-1})/(2h) (offered 'for instance') makes the printed"
        " procedure a dissipative two-step scheme: for L = v^2/2 - q^2/2 it is q_{k+1} - q_k - q_{k-1} + q_{k-2}"
        " = -2h^2 q_k, whose characteristic polynomial zeta^3 + (2h^2 - 1) zeta^2 - zeta + 1 has a principal pair"
        " of modulus 1 - h^2/4 + O(h^4) (energy ~ exp(-h t/2)) and a parasitic root -(1 + h^2/2) + O(h^4). The"
        " energy drift measured on the pendulum is the same fact; the constraints hold to solver tolerance all the"
        " same. The forward difference with alpha_d at the midpoint keeps the energy error bounded (SHAKE for the"
        " pendulum). The paper claims no energy behaviour for this choice.",
        f"{_TESTS}::test_centred_example_velocity_roots_plain_sympy"),
    Finding(
        "critique", "Sec. 3 (end)",
        "'in q_{k+1} it is linear only when the constraints are holonomic' does not hold as a statement about"
        " holonomy: with the paper's alpha_d = alpha(q_k) and L quadratic in v, the knife edge (nonholonomic:"
        " alpha ^ d alpha = -dx ^ dy ^ dtheta) gives step equations linear in every unknown, while the holonomic"
        " pendulum with alpha_d at the midpoint gives nonlinear ones. Linearity in q_{k+1} is decided by L"
        " (dL/dv linear in v) and by where alpha_d is evaluated, not by holonomy.",
        f"{_TESTS}::test_linearity_is_decided_by_alpha_d_not_by_holonomy_plain_sympy"),
)

#: Section 3 of our copy numbers no display; this module cites no equation number.
EQUATIONS = {}


@dataclass(frozen=True)
class Parameters:
    """Every parameter of the runs (the paper gives none: these are ours).

    Attributes
    ----------
    h_pendulum, pendulum_steps : step and number of steps for the pendulum
    angles : initial angles from the downward vertical (released at rest, unit length)
    h_knife, knife_steps : step and number of steps for the knife edge
    omegas : turning rates of the knife edge (rolling at unit speed: circles of radius 1/omega)
    save_every : steps between saved states (the constraint residual is checked at every step)
    mp_steps, dps : the short high-precision run (mpmath)
    """

    h_pendulum: float = 0.02
    pendulum_steps: int = 2000
    angles: tuple = (0.5, 1.5, 2.5)
    h_knife: float = 0.01
    knife_steps: int = 1000
    omegas: tuple = (0.5, 1.0, 2.0)
    save_every: int = 10
    mp_steps: int = 8
    dps: int = 50

    @classmethod
    def quick(cls) -> "Parameters":
        """A few seconds: the pendulum to t = 40, the knife edge to t = 10."""
        return cls()

    @classmethod
    def paper(cls) -> "Parameters":
        """Long runs: the pendulum to t = 400 (about 65 periods), the knife edge to t = 200."""
        return cls(pendulum_steps=20_000, knife_steps=20_000, save_every=20)


# --------------------------------------------------------------------------- the systems and the schemes


def pendulum():
    """The planar pendulum in Cartesian coordinates (unit mass, length and gravity).

    >>> pendulum().distribution.forms
    (Form((x)*dx + (y)*dy),)
    """
    Q = gc.Chart("x y")
    x, y = Q.coords
    vx, vy = sympy.symbols("v_x v_y")
    return implicit_lagrangian_system((vx**2 + vy**2) / 2 - y, Q, [vx, vy], [x * Q.d(x) + y * Q.d(y)])


def knife_edge():
    """The knife edge on the plane: ``sin(theta) dx - cos(theta) dy = 0``.

    >>> knife_edge().distribution.matrix
    Matrix([[sin(theta), -cos(theta), 0]])
    """
    Q = gc.Chart("x y theta")
    x, y, th = Q.coords
    v = sympy.symbols("v_x v_y v_theta")
    return implicit_lagrangian_system(sum(c**2 for c in v) / 2, Q, v,
                                      [sympy.sin(th) * Q.d(x) - sympy.cos(th) * Q.d(y)])


def schemes(system) -> dict:
    """``{"printed": centred velocity, alpha_d(q_k); "bounded": forward velocity, midpoint alpha_d}``."""
    return {"printed": discrete_dirac_scheme(system, "centered", "current"),
            "bounded": discrete_dirac_scheme(system, "forward", "midpoint")}


def _pendulum_start(sch, h, angles, lib=np):
    """Released at rest; the centred scheme also needs q(-h) (to second order)."""
    a = np.asarray(angles, dtype=float)
    q0 = np.stack([np.sin(a), -np.cos(a)], 1)
    p0 = np.zeros_like(q0)
    if sch.velocity == "forward":
        return np.hstack([q0, p0])
    acc = -np.sin(a)[:, None] * np.stack([np.cos(a), np.sin(a)], 1)
    return np.hstack([q0 + h * h / 2 * acc, q0, p0])


def _knife_exact(omegas, t):
    """The exact motion: unit speed along the blade, turning at rate omega, from the origin."""
    w = np.asarray(omegas, dtype=float)
    return np.stack([np.sin(w * t) / w, (1 - np.cos(w * t)) / w, w * t + 0 * w], 1)


def _knife_start_mp(sch, h, omegas, dps):
    """The forward scheme's start of :func:`_knife_start` computed in mpmath (exactly on the manifold)."""
    with mpmath.workdps(dps):
        hq = sympy.nsimplify(h)
        hv = mpmath.mpf(hq.p) / hq.q
        rows = []
        for w in omegas:
            w = mpmath.mpf(repr(float(w)))
            rows.append([mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0), mpmath.cos(-w * hv / 2),
                         mpmath.sin(-w * hv / 2), w])
    return rows


def _knife_start(sch, h, omegas):
    """Positions at t = 0 (and -h); momenta are the velocities at t = -h/2 (forward) or -h (centred).

    ``p_k = v_{k-1}`` is the difference quotient over the last step: for the forward
    scheme the blade direction at ``t = -h/2``; that state lies on the discrete constraint
    manifold ``<alpha(q - h p/2), p> = 0``.
    """
    w = np.asarray(omegas, dtype=float)

    def vel(t):
        return np.stack([np.cos(w * t), np.sin(w * t), w], 1)

    if sch.velocity == "forward":
        return np.hstack([_knife_exact(w, 0.0), vel(-h / 2)])
    return np.hstack([_knife_exact(w, -h), _knife_exact(w, 0.0), vel(-h)])


# --------------------------------------------------------------------------- numerics


def _discrete_constraint(sch, h, backend="numpy", dps=None):
    """``<alpha_d, v_k>`` of a step as a function of its two ends: ``f(before, after)`` -> ``(m, steps, ...)``."""
    n = sch.system.configuration.dim
    on_states = expressions_on_states(list(sch.discrete_constraint()), list(sch.state.coords) + list(sch.new_positions),
                                      [sch.h], [h], backend=backend, dps=dps, what="the discrete constraint")
    # the new positions are the last state's positions: the 2n entries before the n momenta
    return lambda before, after: on_states(np.concatenate([before, after[..., -2 * n:-n]], axis=-1))


def simulate(sch, Y0, h, steps, save_every=10) -> dict:
    """Run ``sch.map`` (numpy, batched Newton) from the states ``Y0`` through :func:`integrators.run_map`.

    Returns a dict of numpy arrays: ``t`` (saved times), ``Y`` (saved states, shape
    ``(saved, batch, dim)``), ``energy_error`` (``|H - H_0|`` at the saved times), ``energy_change``
    (``H - H_0``, signed),
    ``constraint`` (the worst discrete constraint ``|<alpha_d, v_k>|`` over the steps since
    the last save) and ``seconds``.
    """
    discrete = _discrete_constraint(sch, h)
    energy = expressions_on_states([sch.energy_on_state()], list(sch.state.coords), what="the energy")

    def worst_constraint(before, after):                   # per step: the worst constraint, trajectory
        return np.abs(discrete(before, after)).max(axis=(0, 2))

    start = time.perf_counter()
    sol = run_map(sch.map, Y0, dt=h, steps=steps, save_every=save_every, step=sch.h,
                  observe=observe_steps(worst_constraint, first=0.0))
    seconds = time.perf_counter() - start
    # at each save, the worst over the steps since the previous save
    saved = saved_steps_of(steps, save_every)
    constraint = np.concatenate([[0.0], np.maximum.reduceat(sol.observed[1:], saved[:-1])]) if steps else np.zeros(1)
    E = energy(sol.y)[0]
    return {"t": sol.t, "Y": sol.y, "energy_error": np.abs(E - E[0]), "energy_change": E - E[0],
            "constraint": constraint, "seconds": seconds}


def _mp_rows(Y0, dps):
    with mpmath.workdps(dps):
        return [[c if isinstance(c, mpmath.mpf) else mpmath.mpf(repr(float(c))) for c in row] for row in Y0]


def high_precision(sch, Y0, h, steps, dps=50) -> dict:
    """A short run of the same map in mpmath at ``dps`` digits (:func:`integrators.run_map`).

    Returns the worst discrete constraint, the worst change of ``x^2 + y^2`` (pendulum) or of
    the energy and ``p_theta`` (knife edge) over the run, as mpmath numbers.
    """
    hq = sympy.nsimplify(h)
    n = sch.system.configuration.dim
    coords = list(sch.state.coords)
    quantities = {"energy": sch.energy_on_state()}
    if n == 2:
        x, y = sch.system.q
        quantities["x^2 + y^2"] = x**2 + y**2
    else:
        quantities["p_theta"] = sch.system.momenta[2]
    # a few steps: every state is saved, and the quantities are read off them
    Y = run_map(sch.map, _mp_rows(Y0, dps), dt=hq, steps=steps, save_every=1, step=sch.h, backend="mpmath",
                dps=dps).y
    values = expressions_on_states(list(quantities.values()), coords, backend="mpmath", dps=dps,
                                   what="the conserved quantities")(Y)
    discrete = _discrete_constraint(sch, hq, backend="mpmath", dps=dps)(Y[:-1], Y[1:])
    with mpmath.workdps(dps):
        worst = {k: max([mpmath.mpf(0)] + [abs(v - v0) for row in vals[1:] for v, v0 in zip(row, vals[0])])
                 for k, vals in zip(quantities, values)}
        worst["discrete constraint"] = max([mpmath.mpf(0)] + [abs(v) for v in discrete.reshape(-1)])
    return worst


def linear_in_multipliers_and_new_momenta(sch) -> list:
    """The second derivatives of the step's equations in ``(lambda, p_{k+1})`` and any unknown that are not zero.

    Empty when the step is linear in the multipliers and the new momenta, as the end of Section 3
    says ("linear in lambda and p_{k+1}").

    >>> linear_in_multipliers_and_new_momenta(schemes(knife_edge())["bounded"])
    []
    """
    phi = sch.map
    d = sch.system.configuration.dim
    special = list(phi.new[-d:]) + list(phi.auxiliary[d:])
    unknowns = list(phi.new) + list(phi.auxiliary)
    return [f"d2 e{k}/d{a} d{b}" for k, e in enumerate(phi.equations) for a in special for b in unknowns
            if sympy.expand(e.diff(a).diff(b)) != 0]


# --------------------------------------------------------------------------- certificates


def knife_energy_on_constraint_manifold(sch) -> gc.Certificate:
    r"""Certify: the bounded knife-edge step conserves the energy on ``<alpha(theta - h p_theta/2), p> = 0``.

    The momenta ``p_k = v_{k-1}`` of the forward scheme satisfy the discrete constraint of the
    previous step, ``<alpha(q_k - h v_{k-1}/2), p_k> = 0`` (``theta`` is the only coordinate
    alpha depends on and ``v_theta = p_theta``); on that invariant manifold, parametrized by
    ``p_x = r cos(theta - h p_theta/2)``, ``p_y = r sin(theta - h p_theta/2)``, the step is a
    reflection of the planar momentum and ``H o phi = H`` holds.  Decided by geomcheck's zero
    tester on the solution manifold of the step's equations.

    >>> c = knife_energy_on_constraint_manifold(schemes(knife_edge())["bounded"])
    >>> c.holds
    True
    """
    if sch.velocity != "forward":
        raise InvalidArgumentError("the invariant manifold is that of the forward scheme")
    phi, h = sch.map, sch.h
    x, y, th = sch.system.q
    px, py, pth = sch.system.momenta
    r = sympy.Symbol("r")
    N = gc.Chart([x, y, th, r, pth])
    tilt = th - h * pth / 2
    embed = {px: r * sympy.cos(tilt), py: r * sympy.sin(tilt)}
    eqs = [gc.substitute(e, embed) for e in phi.equations]
    guess = {u: gc.substitute(g, embed) for u, g in phi.guess.items()}
    psi = gc.ImplicitMap(N, phi.target, eqs, new=phi.new, auxiliary=phi.auxiliary, guess=guess, step=h)
    H = sch.energy_on_state()
    after = gc.substitute(H, dict(zip(sch.system.phase.coords, phi.new)))
    before = gc.substitute(H, embed)
    residual = after - before
    decision = decide_zero(residual, relations=(psi.dependence.relation,))
    D = Derivation(r"The bounded knife-edge step conserves the energy on the discrete constraint manifold")
    D = D.add(r"The forward scheme's momenta satisfy the previous step's constraint"
              r" $\langle\alpha(\theta_k - \tfrac h2 p_\theta), p_k\rangle = 0$; parametrize that manifold by",
              r"p_x &= r\cos\left(\theta - \tfrac h2 p_\theta\right), & p_y &= r\sin\left(\theta - \tfrac h2"
              r" p_\theta\right).")
    D = D.add(r"On the solution manifold of the step's equations (unknowns $q_{k+1}, p_{k+1}, v_k, \lambda$),"
              r" the residual $H(p_{k+1}) - H(p_k)$ with $H = \tfrac12(p_x^2 + p_y^2 + p_\theta^2)$ is zero: "
              + tex_text(decision.method) + ".")
    D = D.concluding(r"$v_k - p_k \parallel \alpha(\theta_k)$ while $p_k \perp \alpha(\theta_k - \tfrac h2 v_\theta)$"
                     r" and $v_k \perp \alpha(\theta_k + \tfrac h2 v_\theta)$: the step reflects the planar momentum,"
                     r" so $|p_{k+1}| = |p_k|$.")
    return gc.Certificate.from_decision("H o phi == H on <alpha(theta - h p_theta/2), p> = 0", decision,
                                        residual=residual, derivation=D)


def _forward_symplectic_generic():
    """The forward scheme without constraints, for a generic L(q, v): symplectic (any L)."""
    Q = gc.Chart("q")
    (q,) = Q.coords
    v = sympy.Symbol("v")
    s = implicit_lagrangian_system(sympy.Function("L")(q, v), Q, [v])
    sch = discrete_dirac_scheme(s, "forward")
    P = s.phase
    return gc.certify_symplectic(sch.map, P.d(q) ^ P.d(s.momenta[0]))


# --------------------------------------------------------------------------- figures


def _figures(p, runs, out):
    from ._plotting import figure, save

    paths = []
    fig, axes = figure(2, 2, figsize=(10, 6.5), sharex="col")
    for col, (system, label) in enumerate([("pendulum", "pendulum"), ("knife", "knife edge")]):
        for variant, style in (("printed", "C3"), ("bounded", "C0")):
            r = runs[(system, variant)]
            name = {"printed": "printed (centred $v_k$)", "bounded": "forward $v_k$, midpoint $\\alpha_d$"}[variant]
            axes[0, col].semilogy(r["t"][1:], np.maximum(r["energy_error"][1:].max(axis=1), 1e-17), style,
                                  label=name)
            axes[1, col].semilogy(r["t"][1:], np.maximum(r["constraint"][1:], 1e-18), style, label=name)
        axes[0, col].set_title(f"{label}: energy error")
        axes[1, col].set_title(f"{label}: discrete constraint residual")
        axes[1, col].set_xlabel("t")
        axes[0, col].legend(fontsize=8)
    axes[0, 0].set_ylabel(r"$\max |H - H_0|$")
    axes[1, 0].set_ylabel(r"$\max |\langle\alpha_d, v_k\rangle|$")
    paths += save(fig, out, f"{NAME}-energy-constraint")

    fig, ax = figure(figsize=(5.5, 5.5))
    r = runs[("knife", "bounded")]
    for b, w in enumerate(p.omegas):
        ax.plot(r["Y"][:, b, 0], r["Y"][:, b, 1], label=rf"$\omega = {w:g}$")
    ax.set_aspect("equal")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("knife edge: trajectories (bounded scheme)")
    ax.legend(fontsize=8)
    paths += save(fig, out, f"{NAME}-knife-trajectory")
    return paths


# --------------------------------------------------------------------------- the run


def certify(systems: dict, sch: dict) -> tuple:
    """The symbolic results on the maps that run: ``(certificates, derivations, checks)``.

    ``systems``: ``{"pendulum": ..., "knife": ...}``; ``sch``: ``{(system, variant): scheme}``.
    """
    certificates, derivations, checks = [], [], []
    # the paper's symbolic results, typeset
    for sysm in systems.values():
        derivations.append(sysm.equations().derivation)
        derivations.append(sysm.dirac_structure().derivation)
    for key in (("pendulum", "printed"), ("pendulum", "bounded"), ("knife", "bounded")):
        derivations.append(sch[key].derivation)

    cert_r = gc.certify_conserves(sch[("pendulum", "bounded")].map, sympy.Symbol("x")**2 + sympy.Symbol("y")**2)
    certificates.append(("pendulum, bounded scheme: x^2 + y^2 conserved exactly (SHAKE)", cert_r))
    cert_pth = gc.certify_conserves(sch[("knife", "bounded")].map, systems["knife"].momenta[2])
    certificates.append(("knife edge, bounded scheme: p_theta conserved", cert_pth))
    cert_E = knife_energy_on_constraint_manifold(sch[("knife", "bounded")])
    certificates.append(("knife edge, bounded scheme: energy conserved on the discrete constraint manifold", cert_E))
    certificates.append(("forward scheme without constraints, generic L(q, v): symplectic",
                         _forward_symplectic_generic()))
    # the printed scheme: the findings, as certificates that are expected to fail
    x, y = systems["pendulum"].q
    printed_r = gc.certify_conserves(sch[("pendulum", "printed")].map, x**2 + y**2)
    printed_E = gc.certify_conserves(sch[("pendulum", "printed")].map, sch[("pendulum", "printed")].energy_on_state())
    derivations.append(printed_E.derivation)
    checks.append(check_true(
        "finding (not a claim of the paper): the printed centred scheme does not keep x^2 + y^2 (only its"
        " derivative is imposed) -- certificate refuted by a counterexample, as expected",
        printed_r.verdict(), "holds False", printed_r.holds is False, _S3))
    checks.append(check_true(
        "finding: the printed centred scheme does not conserve the pendulum's energy (certificate refuted)",
        printed_E.verdict(), "holds False", printed_E.holds is False, _S3))

    # the paper's claim (end of Sec. 3): the 2d + m lines are linear in lambda and p_{k+1}
    for (system, variant), sc in sch.items():
        nonlinear = linear_in_multipliers_and_new_momenta(sc)
        checks.append(check_true(
            f"{system}, {variant} scheme: the step's equations are linear in lambda and p_(k+1) (second derivatives"
            " with respect to them and any unknown vanish)", nonlinear or "all zero", "all zero", not nonlinear,
            _S3 + " (end)"))
    return certificates, derivations, checks


def simulations(p: Parameters, sch: dict) -> dict:
    """The runs: ``"long"``, ``{(system, variant): simulate(...)}`` of both variants on both systems, and
    ``"high precision"``, ``{system: high_precision(...)}`` of the bounded schemes."""
    runs = {}
    for variant in ("printed", "bounded"):
        s = sch[("pendulum", variant)]
        runs[("pendulum", variant)] = simulate(s, _pendulum_start(s, p.h_pendulum, p.angles), p.h_pendulum,
                                               p.pendulum_steps, p.save_every)
        s = sch[("knife", variant)]
        runs[("knife", variant)] = simulate(s, _knife_start(s, p.h_knife, p.omegas), p.h_knife, p.knife_steps,
                                            p.save_every)
    s, k = sch[("pendulum", "bounded")], sch[("knife", "bounded")]
    exact = {"pendulum": high_precision(s, _pendulum_start(s, p.h_pendulum, p.angles), p.h_pendulum, p.mp_steps, p.dps),
             "knife": high_precision(k, _knife_start_mp(k, p.h_knife, p.omegas, p.dps), p.h_knife, p.mp_steps, p.dps)}
    return {"long": runs, "high precision": exact}


def checks(p: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`."""
    out = []
    runs = sims["long"]
    solver_tol = 1e-12   # Newton stops at 1e-13 (relative); the residual is a few times that at most
    for (system, variant), r in runs.items():
        out.append(check_below(
            f"{system}, {variant} scheme: discrete constraints <alpha_d, v_k> = 0 to solver tolerance"
            f" (every step, t <= {r['t'][-1]:g})", r["constraint"].max(), solver_tol, _S3 + ", third line"))
    rp = runs[("pendulum", "bounded")]
    radius = np.abs(rp["Y"][:, :, 0] ** 2 + rp["Y"][:, :, 1] ** 2 - 1).max()
    out.append(check_below("ours: pendulum, bounded scheme: the holonomic constraint x^2 + y^2 = 1 itself",
                           radius, solver_tol, _OURS))
    err = rp["energy_error"].max(axis=1)
    half = len(err) // 2
    out.append(check_below(
        "ours (not a claim of the paper): pendulum, bounded scheme: energy error bounded over long times (max over"
        " the second half of the run / max over the first half; no drift means about 1)",
        err[half:].max() / err[1:half].max(), 1.5, _OURS))
    out.append(check_below(
        f"ours: pendulum, bounded scheme: energy error of the first-order size C h (h = {p.h_pendulum:g}; bound h)",
        err.max(), p.h_pendulum, _OURS))
    rk = runs[("knife", "bounded")]
    out.append(check_below("ours: knife edge, bounded scheme: energy error bounded -- conserved to rounding"
                           " (bound 1000 eps sqrt(steps))",
                           rk["energy_error"].max(),
                           1e3 * np.finfo(float).eps * np.sqrt(p.knife_steps), _OURS))
    pos = np.abs(rk["Y"][-1][:, :3] - _knife_exact(p.omegas, p.knife_steps * p.h_knife)).max()
    out.append(check_below(
        "ours: knife edge, bounded scheme: follows the exact circles (second order: error <= t h^2)", pos,
        p.knife_steps * p.h_knife * p.h_knife**2, "ours (accuracy; Sec. 3 gives no run)"))
    # the finding on the printed scheme, measured
    lost = -runs[("pendulum", "printed")]["energy_change"][-1]      # energy lost by each pendulum
    worst_bounded = rp["energy_error"].max(axis=0)                   # the bounded scheme's, per pendulum
    ratio = lost / worst_bounded
    out.append(check_true(
        "finding (not a claim of the paper): the printed centred scheme dissipates -- every pendulum ends with"
        " less energy, by more than 10 x the bounded scheme's worst error on the same pendulum (smallest ratio)",
        float(ratio.min()), "> 10", bool(ratio.min() > 10), _S3))

    # the high-precision runs: the preserved structure at the 1e-45 level
    bound = 10.0 ** (6 - p.dps) * p.mp_steps
    hp, hk = sims["high precision"]["pendulum"], sims["high precision"]["knife"]
    out.append(check_below(
        f"ours: mpmath {p.dps} digits, {p.mp_steps} steps, pendulum bounded scheme: |x^2 + y^2 - 1| change",
        hp["x^2 + y^2"], bound, _OURS + " (high precision)"))
    out.append(check_below(
        f"mpmath {p.dps} digits, pendulum bounded scheme: discrete constraint residual", hp["discrete constraint"],
        bound, "Sec. 3 (high precision)"))
    out.append(check_below(
        f"ours: mpmath {p.dps} digits, knife edge bounded scheme: energy change (exact conservation, certificate"
        " above)", hk["energy"], bound, _OURS + " (high precision)"))
    return out


def run(profile="quick", out=".") -> CaseResult:
    """Derive, certify and run both schemes on both systems; see the module docstring."""
    t_start = time.perf_counter()
    p = Parameters.paper() if profile == "paper" else Parameters.quick()
    res = CaseResult(NAME, TITLE, SOURCE, profile, p)
    systems = {"pendulum": pendulum(), "knife": knife_edge()}
    sch = {(k, v): s for k, sysm in systems.items() for v, s in schemes(sysm).items()}
    res.certificates, res.derivations, symbolic_checks = certify(systems, sch)
    sims = simulations(p, sch)
    res.checks = symbolic_checks + checks(p, sims)
    res.figures = _figures(p, sims["long"], out)
    res.findings = list(FINDINGS)
    res.notes = [
        "The paper gives no step sizes, run lengths or figures for Section 3; the parameters are ours.",
        "Discrete multipliers lambda^a = -h lambda_a (a convention, the paper uses one letter for both).",
        "D_Delta is integrable (a Dirac structure) for the pendulum and not for the knife edge (computed in"
        " geomcheck.structures; Yoshimura-Marsden).",
    ]
    res.timings = {f"{a} {b}": r["seconds"] for (a, b), r in sims["long"].items()}
    res.seconds = time.perf_counter() - t_start
    return res
