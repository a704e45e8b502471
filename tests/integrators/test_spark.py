"""Lobatto IIIA-IIIB (SPARK) for holonomic constraints: s = 2 is RATTLE, certificates on the manifold, orders at
60 digits, drift at rounding level, refusals.  Every run certifies the symmetry of s = 3 and 4 (the reversed
stages, an identity: under 2 s) with its negative controls and the order route through it; the catalog test
certifies each declared property of both on the generic circle.  Under the thorough profile the same claims are
cross-checked by the generic constructions with larger budgets (both steps' equations solved together, the full
Taylor expansion, the pullback with a 120 s budget).  Every run checks the symplecticity on the manifold
numerically at 60 digits.  The 1e5-step drifts and the 10-link chain are in benchmarks/bench_constrained.py."""

import os
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.order import flow_coefficients, taylor_coefficients
from geomcheck.maps import pullback, substitute
from geomcheck.zero import Relation, decide_all_zero
import integrators as ig
from integrators.errors import InvalidArgumentError, SchemeNotApplicableError
from integrators.schemes.on_manifold import (certify_constraints_are_equations, certify_order_by_symmetry,
                                             certify_order_on_manifold, certify_symmetric_by_reversal,
                                             certify_symplectic_on_manifold, on_manifold)
from integrators.schemes.base import scaled
from integrators.schemes.spark import SparkLobatto
from integrators.schemes.stages import StageMap

from ig_cases_constrained import CONCRETE, GENERIC, INITIAL

LONG = os.environ.get("GEOMCHECK_HYPOTHESIS_PROFILE") == "thorough"
long_only = pytest.mark.skipif(not LONG, reason="expensive certificate: set GEOMCHECK_HYPOTHESIS_PROFILE=thorough")

#: one instance per number of stages: a scheme caches its step map (and integrate its lowering) per system
SPARK = {s: SparkLobatto(s) for s in (2, 3, 4)}

h = sp.Symbol("h")
x, y, px, py = sp.symbols("x y p_x p_y")


def double_pendulum():
    x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2")
    p = sp.symbols("p1 p2 p3 p4")
    H = sum(pi**2 for pi in p) / 2 + y1 + y2
    g = [x1**2 + y1**2 - 1, (x2 - x1)**2 + (y2 - y1)**2 - 1]
    return ig.ConstrainedHamiltonianSystem(H, [x1, y1, x2, y2], p, g)


def exact_pendulum_flow(t, dps=60):
    """The pendulum's flow from (x, y, p_x, p_y) = (0, -1, 1.5, 0) in closed form (HLW I.1 / any mechanics text).

    theta'' = -sin(theta) with theta(0) = 0, theta'(0) = 2k (k = 3/4 < 1: libration) is
    ``sin(theta/2) = k sn(t | k^2)``, ``theta' = 2k cn(t | k^2)`` (mpmath's Jacobi elliptic functions);
    ``x = sin(theta) = 2k sn dn``, ``y = -cos(theta) = -(1 - 2k^2 sn^2)``, ``p = theta' (cos(theta), sin(theta))``.
    """
    with mpmath.workdps(dps + 10):
        k = mpmath.mpf(3) / 4
        sn, cn, dn = (mpmath.ellipfun(f, t, m=k**2) for f in ("sn", "cn", "dn"))
        c, s = 1 - 2 * k**2 * sn**2, 2 * k * sn * dn
        return [s, -c, 2 * k * cn * c, 2 * k * cn * s]


def test_closed_form_reference_agrees_with_a_taylor_solution_of_the_angle_ode():
    """The reference checked independently: mpmath's Taylor solver of theta'' = -sin(theta) at 25 digits."""
    with mpmath.workdps(25):
        th, om = mpmath.odefun(lambda s, z: [z[1], -mpmath.sin(z[0])], 0, [mpmath.mpf(0), mpmath.mpf("1.5")])(1)
        taylor = [mpmath.sin(th), -mpmath.cos(th), om * mpmath.cos(th), om * mpmath.sin(th)]
    assert max(abs(a - b) for a, b in zip(exact_pendulum_flow(1), taylor)) < mpmath.mpf(10) ** -23


# ------------------------------------------------------------------ s = 2 is RATTLE


def test_two_stages_is_rattle_symbolically():
    """With L_1 = 2 Lambda_1 (the impulse h Lambda_1 against RATTLE's h lambda / 2) the equations coincide."""
    spark = SPARK[2].step_map(GENERIC)
    rattle = ig.scheme("rattle").step_map(GENERIC)
    assert [str(u) for u in spark.new] == [str(u) for u in rattle.new]
    (L1,), (Lam,) = spark.auxiliary, rattle.auxiliary
    moved = [substitute(e, {L1: 2 * Lam}) for e in spark.equations]
    assert len(moved) == len(rattle.equations) == 5
    assert decide_all_zero([a - b for a, b in zip(moved, rattle.equations)]).is_zero is True
    # and the check can fail: a different scaling of the impulse is not RATTLE
    wrong = [substitute(e, {L1: Lam}) for e in spark.equations]
    assert decide_all_zero([a - b for a, b in zip(wrong, rattle.equations)]).is_zero is False


def test_two_stages_is_rattle_numerically_on_the_double_pendulum():
    s = double_pendulum()
    a, b = mpmath.mpf("0.6"), mpmath.mpf("0.8")
    y0 = [a, -b, a + b, a - b, mpmath.mpf("0.8"), mpmath.mpf("0.6"), mpmath.mpf("0.8"), mpmath.mpf("0.6")]
    one = ig.integrate(s, SPARK[2], y0, dt=Fraction(1, 20), steps=10, save_every=10, backend="mpmath", dps=50)
    two = ig.integrate(s, "rattle", y0, dt=Fraction(1, 20), steps=10, save_every=10, backend="mpmath", dps=50)
    assert max(abs(u - v) for u, v in zip(one.y[-1], two.y[-1])) < mpmath.mpf(10) ** -44
    assert max(abs(u - v) for u, v in zip(one.y[-1], y0)) > 0.1                      # it moved


def test_lowered_rows_are_the_certified_rows_rewritten_exactly():
    """evaluation_equations (what lower() uses) differ from the equations only by g(q + Z) = g(q) + expand(...)."""
    for s in (3, 4):
        phi = SPARK[s].step_map(GENERIC)
        ev = phi.evaluation_equations
        assert len(ev) == len(phi.equations)
        changed = [k for k, (a, b) in enumerate(zip(ev, phi.equations)) if a != b]
        assert len(changed) == s - 1                                   # one constraint, stages 2..s
        assert decide_all_zero([ev[k] - phi.equations[k] for k in changed]).is_zero is True
    # a perturbed rewrite is caught
    bad = ev[changed[0]] + h**3 * x
    assert decide_all_zero([bad - phi.equations[changed[0]]]).is_zero is False


# ------------------------------------------------------------------ certificates on the manifold


def test_three_stages_certified_on_the_generic_circle():
    """Order 4 and constraint-preserving on M, for V(x, y) undefined and the length a symbol."""
    certs = SPARK[3].certify(GENERIC, properties=["order", "constraint-preserving"])
    assert {k: c.holds for k, c in certs.items()} == {"order": True, "constraint-preserving": True}
    assert "g_1 is equation" in certs["constraint-preserving"].method
    assert "c_1 vanishes identically" in certs["constraint-preserving"].method


@long_only
def test_three_stages_symplectic_on_the_generic_circle():
    """on_manifold's residual ``(phi o iota)^* omega - iota^* omega`` decided with a 120 s budget, and the scheme's
    own certificate (implicit derivatives: about 1 s of CPU)."""
    s = SPARK[3]
    S, iota = GENERIC.manifold()
    R = pullback(GENERIC.omega, on_manifold(s.step_map(GENERIC), iota)) - pullback(GENERIC.omega, iota)
    assert R.zero_decision(budget=120.0).is_zero is True
    cert = s.certify(GENERIC, properties=["symplectic"])["symplectic"]
    assert cert.holds is True and "constraint manifold" in cert.claim


def restricted_step_jacobian(scheme, u, w, dt, delta, factor=1):
    """The step restricted to the pendulum's manifold in the chart (u, w), its Jacobian by central differences.

    ``iota(u, w) = ((1 - u^2), 2u, -2uw, w (1 - u^2)) / (1 + u^2)``; back: ``u = y / (1 + x)``,
    ``w = x p_y - y p_x``.  ``factor`` scales the new w (a non-symplectic perturbation).
    """
    def iota(a, b):
        d = 1 + a**2
        return [(1 - a**2) / d, 2 * a / d, -2 * a * b / d, b * (1 - a**2) / d]

    starts = [(u, w), (u + delta, w), (u - delta, w), (u, w + delta), (u, w - delta)]
    sol = ig.integrate(CONCRETE, scheme, [iota(a, b) for a, b in starts], dt=dt, steps=1, save_every=1,
                       backend="mpmath", dps=60)
    ends = [(Y[1] / (1 + Y[0]), factor * (Y[0] * Y[3] - Y[1] * Y[2])) for Y in sol.y[-1]]   # (save, batch, dim)
    J = [[(ends[1][i] - ends[2][i]) / (2 * delta), (ends[3][i] - ends[4][i]) / (2 * delta)] for i in range(2)]
    return ends[0], J


def test_symplectic_on_the_manifold_numerically_at_60_digits():
    """det(D phi_M) f(phi_M(s)) == f(s) with iota^* omega = f du ^ dw (f from iota by sympy), to 1e-20."""
    u, w = sp.symbols("u w")
    S, iota = CONCRETE.manifold()
    X = iota.exprs
    f = sp.simplify(sum(sp.diff(X[i], u) * sp.diff(X[i + 2], w) - sp.diff(X[i], w) * sp.diff(X[i + 2], u)
                        for i in range(2)))
    density = sp.lambdify((u, w), f, modules="mpmath")
    with mpmath.workdps(60):
        for scheme, factor, symplectic in ((SPARK[3], 1, True), (SPARK[4], 1, True),
                                           (SPARK[3], 1 + mpmath.mpf(10) ** -6, False)):
            u0, w0 = mpmath.mpf("0.3"), mpmath.mpf("1.1")
            (u1, w1), J = restricted_step_jacobian(scheme, u0, w0, Fraction(1, 5), mpmath.mpf(10) ** -25, factor)
            gap = abs((J[0][0] * J[1][1] - J[0][1] * J[1][0]) * density(u1, w1) - density(u0, w0))
            assert (gap < mpmath.mpf(10) ** -20) == symplectic, gap


def test_four_stages_keep_the_constraints_by_construction():
    cert = SPARK[4].certify(GENERIC, properties=["constraint-preserving"])["constraint-preserving"]
    assert cert.holds is True and cert.stage == "exact"


def symmetric_residual_decision(phi, iota, budget):
    """on_manifold's symmetry residual ``phi_h(phi_{-h}(iota(s))) - iota(s)`` decided with ``budget`` seconds.

    The same construction as certify_symmetric_on_manifold (both steps' equations as one Relation), whose
    default 10 s budget runs out for s >= 3 on a loaded machine.
    """
    back = on_manifold(scaled(phi, -1), iota)
    fresh = {u: sp.Dummy(u.name) for u in phi.unknowns}
    into = dict(zip(phi.source.coords, back.new))
    fwd = [substitute(e, {**into, **fresh}) for e in phi.equations]
    start = dict(zip(phi.source.coords, [back.guess[u] for u in back.new]))
    guess = {**back.guess, **{fresh[u]: substitute(g, start) for u, g in phi.guess.items()}}
    relation = Relation(list(back.equations) + fwd, list(back.unknowns) + [fresh[u] for u in phi.unknowns],
                        guess=guess, small=(h,))
    residual = {str(x): fresh[u] - y for x, u, y in zip(phi.source.coords, phi.new, iota.exprs)}
    return decide_all_zero(residual, relations=(relation,), budget=budget)


@pytest.mark.parametrize("stages", [3, 4])
def test_symmetric_by_the_reversed_stages_on_the_generic_circle(stages):
    """The adjoint argument: phi_-h's equations at phi_h's stages reversed are phi_h's equations (an identity)."""
    cert = SPARK[stages].certify(GENERIC, properties=["symmetric"])["symmetric"]
    assert cert.holds is True and cert.stage in ("exact", "modular"), cert.method
    assert "equals the paired equation of phi_h (or 0) identically" in cert.method
    assert cert.claim == "phi_h o phi_{-h} == id on the constraint manifold"


def test_symmetric_by_reversal_with_the_last_impulse_an_unknown(monkeypatch):
    """Mu = b_s h Lambda_s kept as an unknown (as for m > 2 or a non-quadratic T): Mu' = -b_s L_1, L'_1 = -Mu/b_s."""
    import integrators.schemes.spark as spark_module

    monkeypatch.setattr(spark_module, "MAX_SOLVED_IMPULSES", 0)
    for stages in (3, 4):
        s = SparkLobatto(stages)                                   # a fresh instance: no cached step map
        assert s.step_map(GENERIC).auxiliary[-1].name == "Mu_1"
        cert = s.certify(GENERIC, properties=["symmetric"])["symmetric"]
        assert cert.holds is True and "identically" in cert.method


def test_reversal_is_no_proof_for_a_perturbed_step_a_wrong_reversal_or_pairing():
    """Each makes a paired equation differ: undecided (None), never True; and never False (a reversal is no
    counterexample).  The perturbed step (momenta scaled by 1 + h^3) is not symmetric: (1 + h^3)(1 - h^3) != 1."""
    s = SPARK[3]
    phi = s.step_map(GENERIC)
    S, iota = GENERIC.manifold()
    rev, pairs = s.stage_reversal(GENERIC), s.equation_pairing(GENERIC)
    bad = _momenta_scaled(phi, 1 + h**3)
    wrong_rev = {u: (-v if u.name.startswith("L2") else v) for u, v in rev.items()}
    k = min(pairs)
    wrong_pairs = {**pairs, k: pairs[k] + 1}
    for args in ((bad, iota, rev, pairs), (phi, iota, wrong_rev, pairs), (phi, iota, rev, wrong_pairs)):
        cert = certify_symmetric_by_reversal(*args)
        assert cert.holds is None and "proves nothing" in cert.method, cert.method
    with pytest.raises(InvalidArgumentError, match=r"no value for \['L2_1'\]"):
        certify_symmetric_by_reversal(phi, iota, {u: v for u, v in rev.items() if u.name != "L2_1"}, pairs)


def test_order_from_symmetry_needs_the_odd_order_below():
    """RATTLE (s = 2) is symmetric and of order 2: the route "order 3 and symmetric" refutes order 4 (False,
    with order 3's counterexample), and certifies order 2 from order 1."""
    s = SPARK[2]
    S, iota = GENERIC.manifold()
    reg, equivalence = s.regular_form(GENERIC)
    sym = s.certify(GENERIC, properties=["symmetric"])["symmetric"]
    assert sym.holds is True
    four = certify_order_by_symmetry(reg, GENERIC.vector_field, iota, h, 4, sym, equivalence)
    assert four.holds is False and "not of order 3" in four.method
    two = s.certify(GENERIC, properties=["order"])["order"]
    assert two.holds is True and "order 1" in two.method and "symmetric method's order is even" in two.method
    # an odd order, or a symmetry not certified: the plain certificate (the expansion to h^order)
    for order, symmetry in ((1, sym), (2, Certificate(sym.claim, None, "not decided", "unknown"))):
        plain = certify_order_by_symmetry(reg, GENERIC.vector_field, iota, h, order, symmetry, equivalence)
        assert plain.holds is True and "symmetric" not in plain.method


@long_only
def test_order_by_symmetry_agrees_with_the_full_expansion():
    """Order 4 of s = 3 by the full Taylor expansion to h^4 (the route by symmetry stops at h^3)."""
    reg, equivalence = SPARK[3].regular_form(GENERIC)
    S, iota = GENERIC.manifold()
    assert certify_order_on_manifold(reg, GENERIC.vector_field, iota, h, 4, equivalence).holds is True


@long_only
def test_three_stages_symmetric_and_not_of_order_five():
    s = SPARK[3]
    S, iota = GENERIC.manifold()
    assert symmetric_residual_decision(s.step_map(GENERIC), iota, 120.0).is_zero is True
    reg, equivalence = s.regular_form(GENERIC)
    S, iota = GENERIC.manifold()
    assert certify_order_on_manifold(reg, GENERIC.vector_field, iota, h, 5, equivalence).holds is False


@long_only
def test_four_stages_certified_on_the_generic_circle_with_a_larger_budget():
    """The same residuals as on_manifold's certificates, decided with a 120 s budget (the default 10 s runs out)."""
    s = SPARK[4]
    phi = s.step_map(GENERIC)
    S, iota = GENERIC.manifold()
    R = pullback(GENERIC.omega, on_manifold(phi, iota)) - pullback(GENERIC.omega, iota)
    assert R.zero_decision(budget=120.0).is_zero is True
    reg, equivalence = s.regular_form(GENERIC)
    assert equivalence.holds is True
    got = taylor_coefficients(on_manifold(reg, iota), h, 6)
    want = [[substitute(c, iota.substitution()) for c in row] for row in flow_coefficients(GENERIC.vector_field, 6)]
    assert decide_all_zero([got[i][k] - want[i][k] for i in range(4) for k in range(1, 7)],
                           budget=120.0).is_zero is True
    assert symmetric_residual_decision(phi, iota, 300.0).is_zero is True


def _momenta_scaled(phi, factor):
    """The step with its new momenta scaled by ``factor`` (still on the manifold: G H_p is linear in p)."""
    eqs = list(phi.equations)
    n = len(phi.new) // 2
    for k in range(n, 2 * n):
        P = phi.new[k]
        eqs = [e if not (e.has(P) and gc.calculus.diff(e, P) == 1) else P - factor * (P - e) for e in eqs]
    return StageMap(phi.source, phi.target, eqs, new=phi.new, auxiliary=phi.auxiliary, parameters=phi.parameters,
                    guess=phi.guess, step=phi.step, derivatives=phi.derivatives)


def test_negative_control_symplecticity_fails_for_a_perturbed_step():
    """With the implicit derivatives the step asks for (about 1 s): the perturbation is found (False)."""
    phi = SPARK[3].step_map(CONCRETE)
    assert phi.derivatives == "implicit" and SPARK[3].regular_form(CONCRETE)[0].derivatives == "auto"
    bad = _momenta_scaled(phi, 1 + h**3)
    S, iota = CONCRETE.manifold()
    assert certify_constraints_are_equations(bad, CONCRETE).holds is True
    assert certify_symplectic_on_manifold(bad, CONCRETE.omega, iota).holds is False


def test_order_undecided_for_a_non_polynomial_constraint_or_an_implicit_manifold():
    s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [y - sp.sin(x)])
    cert = SPARK[3].certify(s, properties=["order"])["order"]
    assert cert.holds is None and "not polynomial" in cert.method
    implicit = ig.ConstrainedHamiltonianSystem(CONCRETE.H, CONCRETE.q, CONCRETE.p, CONCRETE.constraints)
    cert = SPARK[3].certify(implicit, properties=["order"])["order"]
    assert cert.holds is None and "explicit parametrization" in cert.method


# ------------------------------------------------------------------ orders at 60 digits, drift


@pytest.mark.parametrize("stages, order", [(3, 4), (4, 6)])
def test_order_measured_at_60_digits_against_the_angle_ode(stages, order):
    """Errors at t = 1 for h = 1/8, 1/16, 1/32 against the closed-form flow, at 60 digits."""
    y0 = ["0", "-1", "1.5", "0"]
    ref = exact_pendulum_flow(1)
    errs = []
    for N in (8, 16, 32):
        sol = ig.integrate(CONCRETE, SPARK[stages], y0, dt=Fraction(1, N), steps=N, save_every=N,
                           backend="mpmath", dps=60)
        errs.append(max(abs(mpmath.mpf(a) - b) for a, b in zip(sol.y[-1], ref)))
    rates = [float(mpmath.log(errs[i] / errs[i + 1], 2)) for i in range(2)]
    assert all(abs(r - order) < 0.05 for r in rates), rates          # measured 4.005, 4.001; 6.002, 6.000
    assert errs[-1] > mpmath.mpf(10) ** -50                          # far above the 60-digit rounding


@pytest.mark.parametrize("stages", [3, 4])
def test_drift_at_rounding_level_over_a_thousand_steps(stages):
    sol = ig.integrate(CONCRETE, SPARK[stages], INITIAL[0], dt=0.05, steps=1000, save_every=100)
    g, c = sol.constraint_drift()
    assert g.max() < 1e-14 and c.max() < 1e-14
    E = np.abs(sol.energy() - sol.energy()[0])
    assert E.max() < {3: 4e-7, 4: 7e-11}[stages]                      # measured 4.1e-8, 7.0e-12


def test_double_pendulum_drift_and_energy():
    s = double_pendulum()
    a, b = 0.6, 0.8
    y0 = [a, -b, a + b, -b + a, 0.8, 0.6, 0.8, 0.6]
    sol = ig.integrate(s, SPARK[3], y0, dt=0.02, steps=1000, save_every=100)
    g, c = sol.constraint_drift()
    assert g.max() < 1e-14 and c.max() < 1e-13
    assert np.abs(sol.energy() - sol.energy()[0]).max() < 1e-5       # measured 8.9e-7; RATTLE 4.3e-3


def test_more_constraints_and_a_non_quadratic_kinetic_energy_keep_the_multiplier_unknown():
    """m = 3 (beyond the solved impulse) and T with H_pp depending on p: Mu is an unknown, G(q1) T_p(p1) an equation."""
    a, b, c, d = sp.symbols("a b c d")
    p = sp.symbols("p_a p_b p_c p_d")
    # a point on the circle (a, b) and a copy (c, d) tied to it: three constraints, a 2-dimensional manifold
    s = ig.ConstrainedHamiltonianSystem(sum(v**2 for v in p) / 2 + b + d, [a, b, c, d], p,
                                        [a**2 + b**2 - 1, c - a, d - b])
    phi = SPARK[3].step_map(s)
    assert [str(u) for u in phi.auxiliary][-3:] == ["Mu_1", "Mu_2", "Mu_3"]
    cert = certify_constraints_are_equations(phi, s)
    assert cert.holds is True and "c_3 is equation" in cert.method
    sol = ig.integrate(s, SPARK[3], [0.6, -0.8, 0.6, -0.8, 0.8, 0.6, 0.8, 0.6], dt=0.05, steps=100,
                       save_every=100)
    g, cc = sol.constraint_drift()
    assert g.max() < 1e-14 and cc.max() < 1e-14
    # the copy moves with the point: the same motion as one pendulum of mass 2 (the Mu path agrees with it)
    one = ig.integrate(CONCRETE, SPARK[3], [0.6, -0.8, 0.8, 0.6], dt=0.05, steps=100, save_every=100)
    assert np.abs(sol.y[-1][:2] - one.y[-1][:2]).max() < 1e-12              # measured 5.6e-16
    assert np.abs(sol.y[-1][:2] - sol.y[0][:2]).max() > 1                    # it moved (1.5)
    quartic = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + (px**4 + py**4) / 12 + y, [x, y], [px, py],
                                              [x**2 + y**2 - 1])
    phi = SPARK[3].step_map(quartic)
    assert "Mu_1" in [str(u) for u in phi.auxiliary]
    sol = ig.integrate(quartic, SPARK[3], INITIAL[0], dt=0.05, steps=200, save_every=100)
    g, c = sol.constraint_drift()
    assert g.max() < 1e-14 and c.max() < 1e-14
    assert np.abs(sol.energy() - sol.energy()[0]).max() < 5e-5                  # measured 5.5e-6


# ------------------------------------------------------------------ refusals


def test_refusals_name_what_is_wrong():
    q, p = sp.symbols("q p")
    with pytest.raises(SchemeNotApplicableError, match="holonomic constraints"):
        SparkLobatto(3).step_map(ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p))
    coupled = ig.ConstrainedHamiltonianSystem((px**2 + py**2) * (2 + x) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
    with pytest.raises(SchemeNotApplicableError, match="separable"):
        SparkLobatto(4).step_map(coupled)
    for bad in (1, 5, 3.0, True, "3", None):
        with pytest.raises(InvalidArgumentError, match="stages must be an integer from 2 to 4"):
            SparkLobatto(bad)
    assert SparkLobatto(3) == SparkLobatto(3) and SparkLobatto(3) != SparkLobatto(4)
    assert hash(SparkLobatto(4)) == hash(SparkLobatto(4)) and SparkLobatto(2) != ig.scheme("rattle")
