"""Simplified Newton (integrators.newton): a reused factorization, the same solutions as full Newton.

Modes "simplified" and "auto" of ``integrate(..., newton=...)`` / ``LoweredStep.bind(..., newton=...)``:
the results equal full Newton's to 1e-13 over whole runs (numpy) and to the working precision
(mpmath); linear stage equations are solved with one factorization per binding and one solve per
step; convergence is judged per trajectory; failures name the trajectories, residuals and step.
"""

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.errors import InvalidArgumentError
from integrators import newton
from integrators.errors import NewtonConvergenceError
from integrators.lower import lower

h = sp.Symbol("h")
q, p = sp.symbols("q p")
PENDULUM = ig.example_system("pendulum")
QUARTIC = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
# a linear system with a constant force: affine stage equations with a constant matrix (not
# homogeneous, so integrate's linear-implicit shortcut does not take it: Newton's path does)
FORCED = ig.HamiltonianSystem((p**2 + q**2) / 2 + q / 3, q, p)
Y0 = np.array([[0.5, 0.0], [1.25, -0.5], [-1.5, 0.75], [0.125, 1.0], [2.0, 0.25]])


def bound(system, name, h0, backend="numpy", **kw):
    return lower(ig.scheme(name).step_map(system), backend=backend).bind({h: h0}, **kw)


def run(B, Y, steps):
    y = [np.array(Y[:, i]) for i in range(Y.shape[1])]
    for n in range(steps):
        y = B.step(y, step_index=n + 1)
    return np.stack(y, axis=1)


@pytest.mark.parametrize("name", ["gauss-legendre-4", "implicit-midpoint"])
@pytest.mark.parametrize("mode", ["simplified", "auto"])
def test_simplified_equals_full_newton_over_a_run(name, mode):
    full = ig.integrate(PENDULUM, name, Y0, dt=0.1, steps=300, save_every=20, newton="full")
    other = ig.integrate(PENDULUM, name, Y0, dt=0.1, steps=300, save_every=20, newton=mode)
    assert np.abs(other.y - full.y).max() <= 1e-13
    assert np.abs(full.y[-1] - full.y[0]).max() > 0.1            # the states did move


def test_the_factorization_is_reused_across_steps_and_refreshed_when_needed():
    B = bound(PENDULUM, "gauss-legendre-4", 0.05, newton="simplified")
    end = run(B, Y0, 40)
    c = dict(B.solver.counts)
    assert c["solves"] == 40 and c["jacobians"] < 40 and c["factorizations"] < 40 * len(Y0)
    assert np.abs(end - run(bound(PENDULUM, "gauss-legendre-4", 0.05), Y0, 40)).max() <= 1e-14
    # a large step size: the contraction rate is poor, so the Jacobian is refreshed often
    C = bound(PENDULUM, "gauss-legendre-4", 0.5, newton="simplified")
    run(C, Y0, 20)
    assert C.solver.counts["jacobians"] > 1
    # states far from those the kept Jacobians were taken at (the bottom, then near the top):
    # the stale factorizations contract too slowly, are replaced within the step, and the
    # result is still full Newton's
    D = bound(PENDULUM, "gauss-legendre-4", 1.0, newton="simplified")
    D.step_array(np.array([[0.1, 0.0], [0.0, 0.1]]))
    far = np.array([[3.0, 0.0], [3.1, 0.1]])
    out = D.step_array(far)
    assert D.solver.counts["refreshes"] == 2
    assert np.abs(out - bound(PENDULUM, "gauss-legendre-4", 1.0).step_array(far)).max() <= 1e-14


def test_linear_stage_equations_one_factorization_one_iteration_per_step():
    B = bound(FORCED, "gauss-legendre-4", 0.1, newton="simplified")
    assert B.solver.structure == newton.StageStructure(affine=True, constant=True)
    end = run(B, Y0, 25)
    c = B.solver.counts
    assert c["factorizations"] == 1 and c["jacobians"] == 1 and c["iterations"] == 25 and c["solves"] == 25
    assert np.abs(end - run(bound(FORCED, "gauss-legendre-4", 0.1), Y0, 25)).max() <= 1e-13
    # and through integrate (compensated: the Newton path; plain: whichever path integrate takes)
    for kw in ({}, {"compensated": True}):
        full = ig.integrate(FORCED, "implicit-midpoint", Y0, dt=0.1, steps=100, save_every=50, newton="full", **kw)
        simp = ig.integrate(FORCED, "implicit-midpoint", Y0, dt=0.1, steps=100, save_every=50, newton="auto", **kw)
        assert np.abs(full.y - simp.y).max() <= 1e-13


def test_affine_stage_equations_with_a_state_dependent_matrix_take_one_solve():
    M = gc.Chart("q p")
    x, v = M.coords
    Q, P = sp.symbols("Q P")
    # linearly implicit: the unknown Q enters linearly with a coefficient depending on q
    phi = gc.ImplicitMap(M, M, [Q * (1 + h * x**2) - x - h * v, P - v + h * Q], new=[Q, P])
    L = lower(phi)
    assert newton.stage_structure(L) == newton.StageStructure(affine=True, constant=False)
    B = L.bind({h: 0.25}, newton="simplified")
    got = B.step_array(Y0)
    assert B.solver.counts["iterations"] == 1
    Qx = (Y0[:, 0] + 0.25 * Y0[:, 1]) / (1 + 0.25 * Y0[:, 0] ** 2)
    assert np.abs(got - np.stack([Qx, Y0[:, 1] - 0.25 * Qx], axis=1)).max() <= 1e-15


def test_singular_linear_stage_matrix_is_refused_for_every_trajectory():
    # q' = q, p' = -p: the midpoint matrix I - h/2 diag(1, -1) is singular at h = 2
    saddle = ig.HamiltonianSystem(p * q + q / 7, q, p)
    with pytest.raises(NewtonConvergenceError) as info:
        bound(saddle, "implicit-midpoint", 2.0, newton="simplified").step_array(Y0[:3])
    assert info.value.trajectories == [0, 1, 2] and "singular" in str(info.value)


def test_convergence_is_judged_per_trajectory():
    B = bound(QUARTIC, "implicit-midpoint", 0.5, newton="simplified", max_iter=6)
    y = [np.array([1e-4, 3.0, 2e-4, 4.0]), np.zeros(4)]
    with pytest.raises(NewtonConvergenceError) as info:
        B.solver.numpy(y, step_index=7)
    err = info.value
    assert err.trajectories == [1, 3] and err.step == 7
    assert len(err.residuals) == 2 and all(r > 0 for r in err.residuals)
    msg = str(err)
    assert "Simplified Newton" in msg and "step 7" in msg and "indices 1, 3" in msg and "newton='full'" in msg
    # the easy ones alone converge with the same budget, to full Newton's solution
    easy = [y[0][[0, 2]], y[1][[0, 2]]]
    u = B.solver.numpy(easy)
    v = newton.newton_numpy(B.lowered, B.S, easy)
    assert np.abs(np.array(u) - np.array(v)).max() <= 1e-15


def test_ensemble_equals_single_runs_bit_for_bit():
    together = ig.integrate(PENDULUM, "gauss-legendre-6", Y0, dt=0.2, steps=30, save_every=30, newton="simplified")
    for b in range(len(Y0)):
        alone = ig.integrate(PENDULUM, "gauss-legendre-6", Y0[b], dt=0.2, steps=30, save_every=30,
                             newton="simplified")
        assert np.array_equal(together.y[:, b], alone.y)


def test_integrate_names_the_trajectory_and_step_that_fail():
    with pytest.raises(NewtonConvergenceError) as info:
        ig.integrate(QUARTIC, "gauss-legendre-4", [[0.5, 0.0], [30.0, 0.0]], dt=1.0, steps=5, max_iter=12,
                     newton="simplified")
    assert info.value.step == 1 and info.value.trajectories == [1]
    assert "smaller step size" in str(info.value)


def test_auto_hands_failing_trajectories_to_full_newton(monkeypatch):
    # "auto" runs the simplified iteration from AUTO_SIMPLIFIED unknowns on; lower the threshold so
    # that the two unknowns of the midpoint rule take that path
    monkeypatch.setattr(newton, "AUTO_SIMPLIFIED", 2)
    y = [np.array([0.25, 6.0, -0.5]), np.array([0.0, 0.0, 0.125])]
    full = newton.newton_numpy(lower(ig.scheme("implicit-midpoint").step_map(QUARTIC)),
                               bound(QUARTIC, "implicit-midpoint", 0.5).S, y)
    A = bound(QUARTIC, "implicit-midpoint", 0.5, newton="auto")
    got = A.solver.numpy(y)
    assert A.solver.counts["fallbacks"] == 1                       # trajectory 1 needed full Newton
    assert np.abs(np.array(got) - np.array(full)).max() <= 1e-13
    with pytest.raises(NewtonConvergenceError) as info:
        bound(QUARTIC, "implicit-midpoint", 0.5, newton="simplified").solver.numpy(y)
    assert info.value.trajectories == [1]
    monkeypatch.undo()
    # with its own threshold, "auto" takes the simplified iteration for Gauss s = 3 on two degrees of
    # freedom (12 unknowns), full Newton for the midpoint rule (4)
    hh = ig.example_system("henon-heiles")
    Y = np.array([[0.1, -0.2, 0.3, 0.05], [0.0, 0.25, -0.1, 0.2]])
    for name, simplified in (("gauss-legendre-6", True), ("implicit-midpoint", False)):
        A = bound(hh, name, 0.2, newton="auto")
        got = A.step_array(Y)
        # full Newton evaluates the Jacobian at every iteration; the simplified iteration reuses one
        counts = A.solver.counts
        assert counts["iterations"] > 0 and (counts["jacobians"] < counts["iterations"]) == simplified
        assert np.abs(got - bound(hh, name, 0.2).step_array(Y)).max() <= 1e-14


@pytest.mark.parametrize("dps", [30, 50])
def test_mpmath_simplified_matches_full_to_the_working_precision(dps):
    y0 = [["0.5", "0.25"], ["1.5", "-0.5"]]
    full = ig.integrate(PENDULUM, "gauss-legendre-4", y0, dt="0.1", steps=12, backend="mpmath", dps=dps,
                        save_every=4, newton="full")
    simp = ig.integrate(PENDULUM, "gauss-legendre-4", y0, dt="0.1", steps=12, backend="mpmath", dps=dps,
                        save_every=4, newton="simplified")
    with mpmath.workdps(dps):
        diff = max(abs(a - b) for a, b in zip(full.y.ravel(), simp.y.ravel()))
    assert diff <= mpmath.mpf(10) ** (8 - dps)                     # tol 10^(5 - dps), times a few steps
    assert diff > 0 or dps == 50                                   # (a genuinely different iteration)


def test_mpmath_linear_and_reuse():
    B = bound(FORCED, "gauss-legendre-4", sp.Rational(1, 10), backend="mpmath", dps=40, newton="simplified")
    F = bound(FORCED, "gauss-legendre-4", sp.Rational(1, 10), backend="mpmath", dps=40)
    with mpmath.workdps(40):
        y = z = [[mpmath.mpf(1), mpmath.mpf("0.5")], [mpmath.mpf(0), mpmath.mpf(-2)]]
        for _ in range(8):
            y, z = B.step(y), F.step(z)
        assert max(abs(a - b) for ya, za in zip(y, z) for a, b in zip(ya, za)) < mpmath.mpf(10) ** -37
    assert B.solver.counts["factorizations"] == 1 and B.solver.counts["iterations"] == 16
    N = bound(PENDULUM, "gauss-legendre-4", sp.Rational(1, 20), backend="mpmath", dps=30, newton="simplified")
    with mpmath.workdps(30):
        N.step([[mpmath.mpf("0.5")], [mpmath.mpf(0)]])
        for _ in range(5):
            N.step([[mpmath.mpf("0.5")], [mpmath.mpf(0)]])
    assert N.solver.counts["factorizations"] == 1 and N.solver.counts["solves"] == 6
    with pytest.raises(NewtonConvergenceError) as info:
        Q = bound(QUARTIC, "implicit-midpoint", sp.Rational(1, 2), backend="mpmath", dps=30, newton="simplified",
                  max_iter=3)
        with mpmath.workdps(30):
            Q.solver.mpmath([mpmath.mpf(40), mpmath.mpf(0)], 30, trajectory=5, step_index=3)
    assert info.value.trajectories == [5] and info.value.step == 3


def test_unknown_newton_mode_is_refused():
    with pytest.raises(InvalidArgumentError, match="'full', 'simplified', 'auto'"):
        ig.integrate(PENDULUM, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=2, newton="quasi")
    with pytest.raises(InvalidArgumentError, match="newton must be"):
        bound(PENDULUM, "implicit-midpoint", 0.1, newton=None)


def test_auto_is_the_default_and_the_solution_records_the_newton_work():
    y0 = [0.1, -0.2, 0.3, 0.05]
    hh = ig.example_system("henon-heiles")
    auto = ig.integrate(hh, "gauss-legendre-6", y0, dt=0.1, steps=20)
    record = auto.newton
    assert record.mode == "auto" and record.method == "newton"
    assert record.solves == 20 and record.iterations >= 20
    assert record.jacobians < record.iterations                    # 12 unknowns: the simplified iteration
    full = ig.integrate(hh, "gauss-legendre-6", y0, dt=0.1, steps=20, newton="full")
    assert full.newton.mode == "full" and full.newton.jacobians == full.newton.iterations
    assert full.newton.factorizations == full.newton.iterations   # one trajectory
    assert np.abs(auto.y - full.y).max() <= 1e-13
    assert ig.integrate(hh, "stormer-verlet", y0, dt=0.1, steps=3).newton is None
    osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    assert ig.integrate(osc, "implicit-midpoint", [0.5, 0.25], dt=0.1, steps=3).newton.method == "linear"


def test_the_record_sums_the_solvers_of_every_stage_and_every_time_bound_step():
    y0 = [0.5, 0.25]
    # a time-dependent system binds its step anew at every step: the counts of all of them
    sol = ig.integrate(FORCED, "implicit-midpoint", y0, dt=0.1, steps=7, newton="full")
    assert sol.newton.solves == 7 and sol.newton.iterations >= 7
    mp = ig.integrate(PENDULUM, "implicit-midpoint", [["0.5", "0.25"], ["1", "0"]], dt="0.1", steps=3,
                      backend="mpmath", dps=30, newton="full")
    assert mp.newton.solves == 6 and mp.newton.factorizations == mp.newton.iterations


def test_the_records_of_an_ensembles_chunks_add_up():
    a = newton.NewtonRecord("auto", "newton", solves=3, iterations=7, jacobians=2, factorizations=4)
    b = newton.NewtonRecord("auto", "newton", solves=3, iterations=5, jacobians=1, factorizations=2, fallbacks=1)
    total = newton.NewtonRecord.summed([a, b])
    assert (total.solves, total.iterations, total.jacobians, total.factorizations, total.fallbacks) == (6, 12, 3, 6, 1)
    assert total.mode == "auto" and total.method == "newton"
    assert newton.NewtonRecord.summed([a, None]) is None and newton.NewtonRecord.summed([]) is None
