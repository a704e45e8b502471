"""Damped Hamiltonian systems and the conformally symplectic splittings.

What is shown: the damped flow is conformally symplectic (L_X omega = -gamma omega, generic H,
n degrees of freedom); the splittings are conformally symplectic with exactly the factor
e^{-gamma h}, and along numerical runs the symplectic area of every small parallelogram shrinks
by e^{-gamma h} per step (numpy: to rounding; mpmath: to 1e-45 at 50 digits); the naive schemes
(Verlet with the damping in its kicks, the implicit midpoint rule) are not; the damped pendulum's
energy decays as it should; the stability guard; bad input.
"""

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.latex import compile_pdf, document
import integrators as ig
from geomcheck.calculus import diff
from geomcheck.zero import decide_zero
from integrators.systems import DampedHamiltonianSystem
from integrators.errors import DampingError, SchemeNotApplicableError, SystemDefinitionError
from integrators.forced import ForcedHamiltonianSystem
from integrators.lower import lower, lower_expressions
from integrators.schemes.conformal_splitting import ConformalSplitting, ConformalSymplecticEuler, certify_conformal_factor
from integrators.stability import StepSizeError, stability_interval

q, p, gamma, h = sp.symbols("q p gamma h")
q1, q2, p1, p2 = sp.symbols("q1 q2 p1 p2")
V, T = sp.Function("V"), sp.Function("T")
SPLITTINGS = ["conformal-splitting-2", "conformal-symplectic-euler"]

#: a damped Henon-Heiles system (two degrees of freedom), gamma = 1/10
HENON_HEILES = DampedHamiltonianSystem((p1**2 + p2**2) / 2 + (q1**2 + q2**2) / 2 + q1**2 * q2 - q2**3 / 3,
                                       [q1, q2], [p1, p2], damping=sp.Rational(1, 10))
PENDULUM = DampedHamiltonianSystem(p**2 / 2 - sp.cos(q), q, p, damping=sp.Rational(1, 5))


# ----------------------------------------------------------------------------- the system


def test_damped_system_is_the_forced_system_with_force_minus_gamma_p():
    s = DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    forced = ForcedHamiltonianSystem(p**2 / 2 + V(q), [q], [p], force=[-gamma * p])
    assert isinstance(s, ForcedHamiltonianSystem) and s.kind == "damped-hamiltonian"
    assert s.vector_field == forced.vector_field and s.omega == forced.omega and s.energy == forced.energy
    assert s.parameters == (gamma,) and s.damping == gamma
    assert s.conformal_factor(h) == sp.exp(-gamma * h)
    assert s != forced and s == DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    assert s != DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=2 * gamma / gamma)
    assert s.undamped == ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    assert decide_zero(s.energy_rate + gamma * p**2).is_zero is True      # dH/dt = -gamma p^2


def test_separability_is_that_of_the_hamiltonian_and_verlet_refuses_the_damped_field():
    s = DampedHamiltonianSystem(T(p1, p2) + V(q1, q2), [q1, q2], [p1, p2], damping=gamma)
    assert s.hamiltonian_is_separable is True
    assert s.is_separable is False              # p' depends on p: Verlet's kick would be wrong
    with pytest.raises(SchemeNotApplicableError, match="implicit scheme"):
        ig.scheme("stormer-verlet").step_map(s)
    coupled = DampedHamiltonianSystem(p**2 * (1 + q**2) / 2, q, p, damping=gamma)
    assert coupled.hamiltonian_is_separable is False
    for name in SPLITTINGS:
        with pytest.raises(SchemeNotApplicableError, match="separable Hamiltonian"):
            ig.scheme(name).step_map(coupled)
        with pytest.raises(SchemeNotApplicableError, match="DampedHamiltonianSystem"):
            ig.scheme(name).step_map(ig.HamiltonianSystem(p**2 / 2 + V(q), q, p))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_damped_flow_is_conformally_symplectic_for_any_n(n):
    qs, ps = sp.symbols(f"x1:{n + 1}"), sp.symbols(f"y1:{n + 1}")
    s = DampedHamiltonianSystem(T(*ps) + V(*qs) + sp.Function("W")(*qs, *ps), qs, ps, damping=gamma)
    c = s.certify_conformal()
    assert c.holds is True and c.factor == -gamma, c.method
    # a position-dependent friction -k(q) p is not conformal: L_X omega = -k omega - k' dq ^ ... fails
    forced = ForcedHamiltonianSystem(T(*ps) + V(*qs), qs, ps, force=[-(1 + qs[0] ** 2) * pi for pi in ps])
    LX = gc.lie(forced.vector_field, forced.omega)
    assert (LX + gamma * forced.omega).zero_decision().is_zero is False


def test_existing_canonical_schemes_apply_to_the_damped_system():
    from ig_cases_damped import exact_flow

    exact = np.array([float(v) for v in exact_flow([1.0, 0.5], 1, 20)])
    for name in ["implicit-midpoint", "gauss-legendre-4", "symplectic-euler-a", "rk4", "conformal-splitting-2"]:
        sol = ig.integrate(PENDULUM, name, [1.0, 0.5], dt=0.05, steps=20, save_every=20)
        assert np.abs(sol.y[-1] - exact).max() < 0.5 * 0.05 ** ig.scheme(name).order, name


# ----------------------------------------------------------------------------- certificates


@pytest.mark.parametrize("name", SPLITTINGS)
def test_factor_is_exactly_exp_minus_gamma_h_on_two_generic_degrees_of_freedom(name):
    s = DampedHamiltonianSystem(T(p1, p2) + V(q1, q2), [q1, q2], [p1, p2], damping=gamma)
    c = ig.scheme(name).certify(s)
    assert all(v.holds is True for v in c.values()), {k: v.method for k, v in c.items()}
    assert decide_zero(c["conformal-symplectic"].factor - sp.exp(-gamma * h)).is_zero is True
    assert ig.scheme(name).observed_order(DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, gamma)) == \
        ig.scheme(name).order


def test_splitting_is_symmetric_and_euler_variant_is_not():
    s = DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    assert gc.certify_symmetric(ig.scheme("conformal-splitting-2").step_map(s), h).holds is True
    assert gc.certify_symmetric(ig.scheme("conformal-symplectic-euler").step_map(s), h).holds is False


def test_the_splittings_are_built_around_the_catalogs_hamiltonian_steps():
    """The catalog gives each splitting its own Hamiltonian step; built alone, the same steps by default."""
    for name, cls, step in [("conformal-splitting-2", ConformalSplitting, "stormer-verlet"),
                            ("conformal-symplectic-euler", ConformalSymplecticEuler, "symplectic-euler-b")]:
        assert ig.scheme(name).hamiltonian_step is ig.scheme(step)
        alone = cls()
        assert alone == ig.scheme(name) and hash(alone) == hash(ig.scheme(name))
        assert alone.hamiltonian_step is not ig.scheme(step) and alone.hamiltonian_step == ig.scheme(step)
        assert alone.step_map(PENDULUM) == ig.scheme(name).step_map(PENDULUM)
    # another symmetric symplectic step of order 2 gives another splitting, certified the same way
    position = ConformalSplitting(ig.scheme("stormer-verlet-position"))
    assert position != ig.scheme("conformal-splitting-2")
    s = DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    assert all(c.holds is True for c in position.certify(s).values())


def test_a_splitting_refuses_a_hamiltonian_step_without_its_order_or_structure():
    with pytest.raises(ValueError, match="symmetric and symplectic of order >= 2"):
        ConformalSplitting(ig.scheme("symplectic-euler-b"))          # not symmetric, order 1
    with pytest.raises(ValueError, match="symplectic of order >= 1"):
        ConformalSymplecticEuler(ig.scheme("explicit-euler"))        # not symplectic
    with pytest.raises(TypeError, match="must be a Scheme"):
        ConformalSplitting("stormer-verlet")
    with pytest.raises(SchemeNotApplicableError, match="implicit"):   # composed by substitution: explicit only
        ConformalSplitting(ig.scheme("gauss-legendre-4")).step_map(PENDULUM)


def _naive_verlet(system, current_momentum):
    """Velocity Verlet with the damping put into the force of the kicks (what a naive user writes)."""
    F = system.vector_field.component(p)                     # -V'(q) - gamma p
    half = sp.Rational(1, 2)
    ph = p + half * h * F
    Q = q + h * ph
    # the second kick at the current (half-step) momentum, or at the step's initial momentum
    P = ph + half * h * gc.substitute(F, {q: Q, p: ph if current_momentum else p})
    return gc.Map(system.chart, system.chart, [Q, P], parameters=[h, gamma])


def test_verlet_with_damping_in_the_kicks_is_not_conformally_symplectic():
    s = DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    # force at the initial momentum (Verlet's own formula on a p-dependent force): the factor varies
    c = gc.certify_conformal_symplectic(_naive_verlet(s, current_momentum=False), s.omega)
    assert c.holds is False and c.counterexample, c.method
    assert certify_conformal_factor(_naive_verlet(s, False), s).holds is False
    # force at the current momentum: each kick scales p by (1 - gamma h/2), so the step IS conformally
    # symplectic, but with the factor (1 - gamma h/2)^2, which is not the flow's e^{-gamma h}
    c = certify_conformal_factor(_naive_verlet(s, current_momentum=True), s)
    assert c.holds is False and c.counterexample
    assert decide_zero(c.factor - (1 - gamma * h / 2) ** 2).is_zero is True


def test_implicit_midpoint_is_not_conformally_symplectic():
    s = DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    c = gc.certify_conformal_symplectic(ig.scheme("implicit-midpoint").step_map(s), s.omega)
    assert c.holds is False and c.counterexample, c.method          # the factor depends on the state
    # on the damped linear oscillator the factor is constant, but it is not e^{-gamma h}
    osc = DampedHamiltonianSystem((p**2 + q**2) / 2, q, p, damping=gamma)
    c = certify_conformal_factor(ig.scheme("implicit-midpoint").step_map(osc), osc)
    assert c.holds is False and c.counterexample
    assert decide_zero(c.factor - (4 - 2 * gamma * h + h**2) / (4 + 2 * gamma * h + h**2)).is_zero is True


# ----------------------------------------------------------------------------- the conformal law along runs


def _jacobian_kernel(phi, system, backend):
    coords = system.coords
    entries = [diff(e, c) for e in phi.exprs for c in coords]
    return lower_expressions(entries, coords, [h], backend=backend, what="the Jacobian of the step")


def _omega(u, v, n):
    return sum(u[i] * v[n + i] - u[n + i] * v[i] for i in range(n))


@pytest.mark.parametrize("name", SPLITTINGS)
def test_symplectic_area_shrinks_by_exp_minus_gamma_h_per_step_numpy(name):
    s, dt, steps = HENON_HEILES, 0.05, 400
    sol = ig.integrate(s, name, [[0.25, 0.0, 0.125, 0.375], [0.0, 0.5, -0.25, 0.0]], dt=dt, steps=steps,
                       save_every=1)
    K = _jacobian_kernel(ig.scheme(name).step_map(s), s, "numpy")
    Y = sol.y.reshape(-1, 4)
    out = K.kernel(K.scalars(dt), *[Y[:, i] for i in range(4)])
    J = np.stack([np.broadcast_to(v, (len(Y),)) for v in out], axis=1).reshape(-1, 4, 4)
    rng = np.random.default_rng(3)
    u, v = rng.standard_normal((2, len(Y), 4))
    ratio = _omega(np.einsum("bij,bj->bi", J, u).T, np.einsum("bij,bj->bi", J, v).T, 2) / _omega(u.T, v.T, 2)
    factor = np.exp(-0.1 * dt)
    assert np.abs(ratio / factor - 1).max() < 1e-13
    assert np.abs(np.linalg.det(J) / factor**2 - 1).max() < 5e-14           # volume: e^{-n gamma h}
    # over the whole run the area of a parallelogram carried by the tangent maps shrinks as e^{-gamma t}
    U, W = u[0], v[0]
    for k in range(steps):
        U, W = J[2 * k] @ U, J[2 * k] @ W
    assert abs(_omega(U, W, 2) / _omega(u[0], v[0], 2) / np.exp(-0.1 * dt * steps) - 1) < 1e-11


@pytest.mark.parametrize("name", SPLITTINGS)
def test_symplectic_area_law_at_50_digits(name):
    s, dps = HENON_HEILES, 50
    dt = mpmath.mpf(1) / 16
    sol = ig.integrate(s, name, [0.25, 0.0, 0.125, 0.375], dt=dt, steps=12, save_every=1, backend="mpmath", dps=dps)
    K = _jacobian_kernel(ig.scheme(name).step_map(s), s, "mpmath")
    rnd = random.Random(5)
    with mpmath.workdps(dps):
        factor = mpmath.exp(-dt / 10)
        S = K.scalars(dt)
        worst = mpmath.mpf(0)
        for y in sol.y:
            J = mpmath.matrix(4, 4)
            for k, v in enumerate(K.kernel(S, *y)):
                J[k // 4, k % 4] = v
            u = mpmath.matrix([mpmath.mpf(rnd.uniform(-1, 1)) for _ in range(4)])
            w = mpmath.matrix([mpmath.mpf(rnd.uniform(-1, 1)) for _ in range(4)])
            worst = max(worst, abs(_omega(J * u, J * w, 2) / _omega(u, w, 2) - factor),
                        abs(mpmath.det(J) - factor**2))
    assert worst < mpmath.mpf(10) ** -45, mpmath.nstr(worst, 5)


def test_small_parallelogram_splitting_versus_midpoint_at_60_digits():
    """Finite parallelograms (central differences, eps = 1e-20) through the lowered steps themselves."""
    s, dps, eps = PENDULUM, 60, mpmath.mpf(10) ** -20
    dt = sp.Rational(1, 4)
    with mpmath.workdps(dps):
        factor = mpmath.exp(-mpmath.mpf(dt) / 5)
        deviation = {}
        for name in ["conformal-splitting-2", "implicit-midpoint"]:
            step = lower(ig.scheme(name).step_map(s), backend="mpmath").bind({h: dt}, dps=dps)
            worst = mpmath.mpf(0)
            for y in ([1, mpmath.mpf(1) / 2], [2, -mpmath.mpf(1) / 4], [-1, mpmath.mpf(3) / 2]):
                y = [mpmath.mpf(a) for a in y]
                pts = [[y[0] + eps, y[1]], [y[0] - eps, y[1]], [y[0], y[1] + eps], [y[0], y[1] - eps]]
                a, b, c, d = step.step_array(pts)
                du = [(a[i] - b[i]) / (2 * eps) for i in range(2)]
                dv = [(c[i] - d[i]) / (2 * eps) for i in range(2)]
                worst = max(worst, abs(_omega(du, dv, 1) - factor))
            deviation[name] = worst
    assert deviation["conformal-splitting-2"] < mpmath.mpf(10) ** -38
    assert deviation["implicit-midpoint"] > mpmath.mpf(10) ** -4       # the state-dependent factor


def test_lowering_evaluates_exp_of_gamma_h_at_full_precision():
    s = DampedHamiltonianSystem(p**2 / 2 + q**2 / 2, q, p, damping=gamma)
    phi = ig.scheme("conformal-splitting-2").step_map(s)
    L = lower(phi)
    kernel_source = L.source.split("def kernel")[1]
    assert "exp" not in kernel_source               # exp(-gamma h/2) is a scalar, hoisted out of the kernel
    y = [sp.Rational(3, 4), sp.Rational(-5, 8)]
    want = [sp.N(e.xreplace({q: y[0], p: y[1], h: sp.Rational(1, 8), gamma: sp.Rational(1, 5)}), 80) for e in phi.exprs]
    got = L.bind({h: 0.125, gamma: 0.2}).step_array(np.array([[0.75, -0.625]]))[0]
    assert np.abs(got - np.array([float(w) for w in want])).max() < 1e-15
    mp = lower(phi, backend="mpmath").bind({h: sp.Rational(1, 8), gamma: sp.Rational(1, 5)}, dps=60)
    got = mp.step_array([y])[0]
    with mpmath.workdps(60):
        assert max(abs(g_ - mpmath.mpf(str(w))) for g_, w in zip(got, want)) < mpmath.mpf(10) ** -55
    # q = 0, p = 1 on the free particle: P = exp(-gamma h) exactly
    free = DampedHamiltonianSystem(p**2 / 2, q, p, damping=gamma)
    mp = lower(ig.scheme("conformal-splitting-2").step_map(free), backend="mpmath").bind(
        {h: sp.Rational(1, 8), gamma: sp.Rational(1, 5)}, dps=60)
    with mpmath.workdps(60):
        assert abs(mp.step_array([[0, 1]])[0][1] - mpmath.exp(-mpmath.mpf(1) / 40)) < mpmath.mpf(10) ** -58


# ----------------------------------------------------------------------------- energy


def test_damped_pendulum_energy_decays_as_the_exact_one():
    """H = p^2/2 - cos q decays (dH/dt = -gamma p^2 <= 0): the splitting never increases it and follows
    the exact H + 1 to 0.5 % (h = 0.1) and 0.12 % (h = 0.05) over t in [0, 40], while it falls by e^-8."""
    times = np.arange(0, 40.0001, 0.5)
    with mpmath.workdps(20):
        flow = mpmath.odefun(lambda t, y: [y[1], -mpmath.sin(y[0]) - y[1] / 5], 0, [mpmath.mpf(2), mpmath.mpf(0)])
        states = [flow(t) for t in times]
        exact = np.array([float(y[1] ** 2 / 2 - mpmath.cos(y[0])) for y in states]) + 1
    errors = []
    for dt in (0.1, 0.05):
        sol = ig.integrate(PENDULUM, "conformal-splitting-2", [2.0, 0.0], dt=dt, steps=int(round(40 / dt)),
                           save_every=1)
        E = sol.energy() + 1
        assert np.diff(E).max() < 0                        # no spurious growth, step by step
        errors.append((np.abs(E[:: int(round(0.5 / dt))] - exact) / exact).max())
    assert errors[0] < 5e-3 and errors[1] < 1.3e-3
    assert 3.5 < errors[0] / errors[1] < 4.5               # second order
    assert exact[-1] < 1e-3 * exact[0]


# ----------------------------------------------------------------------------- the stability guard


def test_stability_interval_of_the_damped_oscillator_is_exact_for_every_gamma():
    x, g = sp.symbols("x g", positive=True)
    osc = DampedHamiltonianSystem((p**2 + q**2) / 2, q, p, damping=g)
    decay = sp.exp(-g * h)
    for name, trace in [("conformal-splitting-2", (1 - h**2 / 2) * (1 + decay)),
                        ("conformal-symplectic-euler", 1 + decay * (1 - h**2))]:
        phi = ig.scheme(name).step_map(osc)
        M = sp.Matrix([[e.xreplace({q: a, p: b}) for a, b in ((1, 0), (0, 1))] for e in phi.exprs])
        assert decide_zero(M.det() - decay).is_zero is True
        assert decide_zero(M.trace() - trace).is_zero is True
        assert stability_interval(name) == 2
    # Jury |tr| <= 1 + det: the splitting's bound is x < 2 whatever gamma h; the Euler variant's
    # x^2 < 2 (1 + e^{gamma h}) contains it
    for gh in (0.0, 0.3, 5.0):
        e = np.exp(-gh)
        for x0, stable in ((1.99, True), (2.01, False)):
            assert (abs((1 - x0**2 / 2) * (1 + e)) <= 1 + e) == stable
        assert abs(1 + e * (1 - 1.99**2)) <= 1 + e


def test_step_size_guard_uses_the_undamped_frequencies():
    stiff = DampedHamiltonianSystem(p**2 / 2 + 100 * q**2 / 2, q, p, damping=50)   # omega_0 = 10, overdamped
    sol = ig.integrate(stiff, "conformal-splitting-2", [1.0, 0.0], dt=0.19, steps=200, save_every=200)
    assert np.abs(sol.y[-1]).max() < 1e-3                 # stable, and decaying
    with pytest.raises(StepSizeError, match="undamped vector field") as info:
        ig.integrate(stiff, "conformal-splitting-2", [1.0, 0.0], dt=0.21, steps=10)
    assert "dt < 0.2" in str(info.value)
    unchecked = ig.integrate(stiff, "conformal-splitting-2", [1.0, 0.0], dt=0.21, steps=200, save_every=200,
                             check_stability=False)
    assert np.abs(unchecked.y[-1]).max() > 1e3             # the guard was right
    # rk4 does not integrate the damping exactly: its guard sees the full Jacobian (|lambda| ~ 47.9)
    with pytest.raises(StepSizeError, match="rk4"):
        ig.integrate(stiff, "rk4", [1.0, 0.0], dt=0.1, steps=10)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("damping, match", [
    (-1, "positive"), (0, "positive"), (sp.Rational(-1, 5), "positive"), (float("nan"), "finite"),
    (float("inf"), "finite"), (sp.nan, "finite"), (sp.oo, "finite"), (1 + 2j, "finite"), (sp.I, "finite"),
    ("0.2", "number or a constant sympy Symbol"), ([0.2], "number or a constant sympy Symbol"),
    (None, "number or a constant sympy Symbol"), (True, "number or a constant sympy Symbol"),
    (q, "is a coordinate"), (2 * q, "expression in"), (sp.Symbol("h"), "step size"),
    (sp.Symbol("g", negative=True), "non-positive"),
])
def test_bad_damping_is_refused(damping, match):
    with pytest.raises(DampingError, match=match):
        DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=damping)


def test_bad_damping_value_and_bad_coordinates():
    with pytest.raises(DampingError, match="not a positive"):
        DampedHamiltonianSystem(p**2 / 2, q, p, damping=gamma, parameters={gamma: -0.5})
    # nan is refused as a parameter value of any system, before the damping is looked at
    with pytest.raises(SystemDefinitionError, match="not a finite real number"):
        DampedHamiltonianSystem(p**2 / 2, q, p, damping=gamma, parameters={gamma: sp.nan})
    with pytest.raises(SystemDefinitionError, match="not a number"):
        DampedHamiltonianSystem(p**2 / 2, q, p, damping=gamma, parameters={gamma: "fast"})
    with pytest.raises(SystemDefinitionError, match="as many momenta"):
        DampedHamiltonianSystem(p**2 / 2, [q, q1], [p], damping=1)
    assert issubclass(DampingError, SystemDefinitionError) and issubclass(DampingError, ValueError)
    ok = DampedHamiltonianSystem(p**2 / 2, q, p, damping=gamma, parameters={gamma: 0.25})
    assert ok.parameter_values == {gamma: sp.Float(0.25)}
    assert DampedHamiltonianSystem(p**2 / 2, q, p, damping=0.2).damping == sp.Float(0.2)


# ----------------------------------------------------------------------------- LaTeX


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    s = DampedHamiltonianSystem(p**2 / 2 + V(q), q, p, damping=gamma)
    c1 = s.certify_conformal()
    c2 = ig.scheme("conformal-splitting-2").certify(s, properties=["conformal-symplectic"])["conformal-symplectic"]
    c3 = certify_conformal_factor(_naive_verlet(s, True), s)
    body = c1.latex() + c2.latex() + c3.latex()
    assert r"e^{-\gamma h}" in body
    compile_pdf(document(body), str(tmp_path / "damped.pdf"))
