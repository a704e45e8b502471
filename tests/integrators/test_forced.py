"""Forced Hamiltonian systems in the integrators: the system, Verlet on it, step matrices, stability."""

import mpmath
import numpy as np
import pytest
import sympy

from geomcheck.latex import compile_pdf
import integrators as ig
from geomcheck.errors import InvalidArgumentError, ShapeError, SubsystemShapeError
from geomcheck.structures import CoupledSystem, Subsystem, beam_two_mass
from geomcheck.zero import decide_all_zero
from integrators.errors import NotLowerableError, SchemeNotApplicableError, SystemDefinitionError
from integrators.forced import ForcedHamiltonianSystem, certify_step_on_submanifold, evaluate_along
from integrators.linear import is_linear_map, propagate, step_matrix
from integrators.lower import lower
from integrators.stability import StepSizeError, check_verlet_step, verlet_stability_limit

q, p, q1, q2, p1, p2, k, C = sympy.symbols("q p q1 q2 p1 p2 k C")
h = ig.systems.STEP_SYMBOL


@pytest.fixture(scope="module")
def beam11():
    B = beam_two_mass(n_x=11, n_b=3)
    return B, ForcedHamiltonianSystem.from_coupled(B.system)


# ------------------------------------------------------------------ the system


def test_from_coupled_uses_the_coupled_definition_on_a_q_then_p_chart(beam11):
    B, S = beam11
    assert S.chart.coords == B.u + B.q + B.v + B.p
    X = B.system.vector_field
    assert all(S.vector_field.component(x) == X.component(x) for x in S.chart.coords)
    dx = B.values["dx"]
    assert S.omega.components[(S.chart.index(B.u[0]), S.chart.index(B.v[0]))] == dx
    assert S.omega.components[(S.chart.index(B.q[0]), S.chart.index(B.p[0]))] == 1
    assert S.energy == B.system.energy
    assert set(S.subsystem_energies) == {"el", "sp"}
    assert set(S.forces) == {B.v[B.n_b - 1], B.p[0]}
    assert S.is_separable and S.kind == "forced-hamiltonian"
    assert not isinstance(S, ig.HamiltonianSystem)


def test_one_subsystem_constructor_weights_and_parameters():
    S = ForcedHamiltonianSystem(p**2 / 2, [q], [p], force={p: -k * q}, weight=2, parameters={k: 3})
    assert S.vector_field.component(q) == p / 2
    assert S.vector_field.component(p) == -k * q
    assert S.omega.components == {(0, 1): 2}
    assert S.parameters == (k,) and S.parameter_values == {k: 3}


def test_bad_systems_are_refused_with_the_reason():
    with pytest.raises(SubsystemShapeError, match="same length"):
        ForcedHamiltonianSystem(p**2, [q, q1], [p])
    with pytest.raises(SystemDefinitionError, match="reserved for the step size"):
        ForcedHamiltonianSystem(h**2, [h], [p])
    with pytest.raises(SystemDefinitionError, match="CoupledSystem"):
        ForcedHamiltonianSystem.from_coupled(ig.HamiltonianSystem(p**2, q, p))


def test_a_velocity_dependent_force_makes_verlet_refuse_but_implicit_schemes_apply():
    S = ForcedHamiltonianSystem(p**2 / 2 + q**2 / 2, [q], [p], force=[-p / 10])
    assert not S.is_separable
    with pytest.raises(SchemeNotApplicableError, match="q' depends on p alone"):
        ig.scheme("stormer-verlet").step_map(S)
    sol = ig.integrate(S, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=100, save_every=100)
    assert sol.energy()[-1] < 0.5 * 0.4          # the drag takes energy out


def test_verlet_step_map_on_a_forced_system_is_the_kick_drift_kick_formula():
    f = q1**3 - q2
    S = ForcedHamiltonianSystem.from_coupled(CoupledSystem([
        Subsystem([q1], [p1], p1**2 / 2 + q1**2 / 2, [f]), Subsystem([q2], [p2], p2**2 / 4, [-f])]))
    phi = ig.scheme("stormer-verlet").step_map(S)
    F = {p1: -q1 + f, p2: -f}
    ph = {y: y + h / 2 * F[y] for y in (p1, p2)}
    Q = {q1: q1 + h * ph[p1], q2: q2 + h * ph[p2] / 2}
    P = {y: ph[y] + h / 2 * F[y].xreplace(Q) for y in (p1, p2)}
    expected = [Q[q1], Q[q2], P[p1], P[p2]]          # chart order q1, q2, p1, p2
    assert S.chart.coords == (q1, q2, p1, p2)
    assert decide_all_zero([sympy.expand(a - b) for a, b in zip(phi.exprs, expected)]).is_zero is True


def test_without_forces_the_step_is_that_of_the_hamiltonian_system_and_symplectic():
    H = p1**2 / 2 + p2**2 / 2 + q1**2 * q2**2
    S = ForcedHamiltonianSystem(H, [q1, q2], [p1, p2])
    sv = ig.scheme("stormer-verlet")
    a, b = sv.step_map(S), sv.step_map(ig.HamiltonianSystem(H, [q1, q2], [p1, p2]))
    assert all(sympy.expand(x - y) == 0 for x, y in zip(a.exprs, b.exprs))
    assert sv.certify(S, ["symplectic"])["symplectic"].holds is True


def test_certify_reports_honestly_that_a_forced_step_is_not_symplectic_on_the_whole_space(beam11):
    _, S = beam11
    certs = ig.scheme("stormer-verlet").certify(S, ["symplectic", "symmetric"])
    assert certs["symplectic"].holds is False and certs["symplectic"].counterexample
    assert certs["symmetric"].holds is True


def test_integrate_numpy_batched_and_mpmath_agree(beam11):
    B, S = beam11
    rng = np.random.default_rng(1)
    Y0 = rng.standard_normal((3, S.dim)) * 1e-3
    sol = ig.integrate(S, "stormer-verlet", Y0, dt=1e-4, steps=20, save_every=10)
    assert sol.y.shape == (3, 3, S.dim) and sol.energy().shape == (3, 3)
    mp = ig.integrate(S, "stormer-verlet", [str(x) for x in Y0[1]], dt="0.0001", steps=20, backend="mpmath",
                      dps=30, save_every=10)
    assert np.abs(np.array(mp.y[-1], dtype=float) - sol.y[-1, 1]).max() < 1e-15
    H_el, H_sp = evaluate_along(sol, [S.subsystem_energies["el"], S.subsystem_energies["sp"]])
    assert np.allclose(H_el + H_sp, sol.energy(), rtol=1e-13, atol=0)
    (E,) = evaluate_along(mp, [S.energy])
    assert isinstance(E[0], mpmath.mpf) and abs(float(E[-1]) - sol.energy()[-1, 1]) < 1e-12


# ------------------------------------------------------------------ a step on a submanifold


def test_step_on_submanifold_of_the_beam_at_the_papers_resolution():
    B = beam_two_mass()
    S = ForcedHamiltonianSystem.from_coupled(B.system)
    r = certify_step_on_submanifold(ig.scheme("stormer-verlet").step_map(S), S.omega, B.submanifold,
                                    B.solve_for, B.parameters)
    assert (r.invariance.holds, r.symplectic.holds, r.full_space.holds, r.dimension) == (True, True, False, 102)


def test_step_on_submanifold_with_symbolic_beam_parameters():
    B = beam_two_mass(n_x=5, n_b=2, symbolic=True)
    S = ForcedHamiltonianSystem.from_coupled(B.system)
    r = certify_step_on_submanifold(ig.scheme("stormer-verlet").step_map(S), S.omega, B.submanifold,
                                    B.solve_for, B.parameters)
    assert r.invariance.holds is True and r.symplectic.holds is True


def test_a_submanifold_the_step_does_not_keep_is_caught(beam11):
    B, S = beam11
    phi = ig.scheme("stormer-verlet").step_map(S)
    j = B.n_b - 1
    # only the position constraint, without the matching velocities: the drift leaves it
    r = certify_step_on_submanifold(phi, S.omega, [B.u[j] - B.q[0] - C], [B.u[j]], [C])
    assert r.invariance.holds is False
    # the unweighted (dx-less) velocity condition: not kept either
    r = certify_step_on_submanifold(phi, S.omega, [B.v[j] - B.p[0], B.u[j] - B.q[0] - C], [B.v[j], B.u[j]], [C])
    assert r.invariance.holds is False


@pytest.mark.needs_pdflatex
def test_step_on_submanifold_derivation_compiles(tmp_path, beam11):
    B, S = beam11
    r = certify_step_on_submanifold(ig.scheme("stormer-verlet").step_map(S), S.omega, B.submanifold,
                                    B.solve_for, B.parameters)
    for n, D in enumerate((r.derivation, r.invariance.derivation, r.symplectic.derivation)):
        compile_pdf(D.document(), str(tmp_path / f"step{n}.pdf"))


# ------------------------------------------------------------------ step matrices


def test_step_matrix_is_the_lowered_step_at_random_points(beam11):
    _, S = beam11
    M = step_matrix("stormer-verlet", S, 3e-4)
    step = lower(ig.scheme("stormer-verlet").step_map(S), parameters=[h]).bind([3e-4])
    Y = np.random.default_rng(2).standard_normal((5, S.dim))
    assert np.abs(step.step_array(Y) - Y @ M.T).max() < 1e-9 * np.abs(Y @ M.T).max()


def test_step_matrix_of_the_papers_beam_against_the_kernel_over_many_steps():
    B = beam_two_mass()
    S = ForcedHamiltonianSystem.from_coupled(B.system)
    rng = np.random.default_rng(3)
    Y0 = rng.standard_normal((2, S.dim)) * 1e-2
    sol = ig.integrate(S, "stormer-verlet", Y0, dt=5e-4, steps=200, save_every=100)
    fast = propagate(step_matrix("stormer-verlet", S, 5e-4), Y0, 200, save_every=100)
    assert fast.shape == sol.y.shape
    assert np.abs(fast - sol.y).max() < 1e-10 * np.abs(sol.y).max()


def test_propagate_observes_every_state_and_saves_some():
    M = np.array([[0.0, 1.0], [-1.0, 0.0]])            # a quarter turn
    states, obs = propagate(M, [[1.0, 0.0]], 5, save_every=2, observe=lambda Y: Y[:, 0, 0], chunk=2)
    assert states.shape == (4, 1, 2)                    # steps 0, 2, 4, 5
    assert obs.tolist() == [1.0, 0.0, -1.0, 0.0, 1.0, 0.0]
    with pytest.raises(ShapeError):
        propagate(np.eye(3), [1.0, 0.0], 2)


def test_a_nonlinear_step_has_no_matrix():
    pend = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    assert not is_linear_map(ig.scheme("stormer-verlet").step_map(pend))
    with pytest.raises(NotLowerableError, match="not linear"):
        step_matrix("stormer-verlet", pend, 0.1)


# ------------------------------------------------------------------ stability


def test_stability_limit_of_an_oscillator_and_the_pendulum():
    osc = ig.HamiltonianSystem(p**2 / 2 + 9 * q**2 / 2, q, p)
    lim = verlet_stability_limit(osc)
    assert lim.omega_max == pytest.approx(3.0, rel=1e-14) and lim.linear
    pend = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    lim = verlet_stability_limit(pend)
    assert lim.dt_max == pytest.approx(2.0) and not lim.linear
    assert verlet_stability_limit(pend, at={q: sympy.pi / 3}).omega_max == pytest.approx(np.sqrt(0.5))


def test_beam_limit_is_the_highest_beam_mode_and_refused_just_beyond():
    B = beam_two_mass()
    S = ForcedHamiltonianSystem.from_coupled(B.system)
    lim = verlet_stability_limit(S)
    # highest mode of the simply supported discrete beam alone: sqrt(EI/(rho A)) (2 + 2 cos(pi/50)) / dx^2
    beam_alone = np.sqrt(1 / 10) * (2 + 2 * np.cos(np.pi / 50)) / 0.02**2
    assert lim.omega_max == pytest.approx(beam_alone, rel=2e-3)
    assert lim.unstable_modes == 0 and lim.linear
    check_verlet_step(S, 5e-4, limit=lim)
    with pytest.raises(StepSizeError, match="beyond the stability limit"):
        check_verlet_step(S, 1.001 * lim.dt_max, limit=lim)
    assert issubclass(StepSizeError, InvalidArgumentError)


def test_a_run_beyond_the_limit_really_blows_up_and_one_inside_does_not():
    osc = ig.HamiltonianSystem(p**2 / 2 + q**2 / 2, q, p)   # dt_max = 2
    inside = ig.integrate(osc, "stormer-verlet", [1.0, 0.0], dt=1.98, steps=400, save_every=400)
    beyond = ig.integrate(osc, "stormer-verlet", [1.0, 0.0], dt=2.02, steps=400, save_every=400, check_stability=False)
    assert abs(inside.energy()[-1]) < 50
    assert abs(beyond.energy()[-1]) > 1e10


def test_stability_limit_refuses_a_non_separable_system():
    with pytest.raises(InvalidArgumentError, match="separable"):
        verlet_stability_limit(ig.HamiltonianSystem(p**2 * q**2, q, p))
