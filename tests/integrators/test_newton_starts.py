"""Starting values of Newton's method from the previous steps' roots (integrators.newton, compiled_newton).

The start of a step is the polynomial through the last roots of the trajectory, extrapolated one
step on (kept only when it stays on their branch); the convergence test and tolerance are those of
every start, so the states equal those of full Newton from the map's guess (``newton="full"``) to
the Newton tolerance.  The weights are checked against sympy's interpolation; the compiled loop,
which runs a small system's trajectories in groups, against the same trajectories run one by one.
"""

import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.errors import InvalidArgumentError
from integrators import newton
from integrators.errors import NewtonConvergenceError
from integrators.lower import lower

h = sp.Symbol("h")
HENON = ig.example_system("henon-heiles")
PENDULUM = ig.example_system("pendulum")


def henon_starts(n):
    rng = np.random.default_rng(5)
    Y = np.zeros((n, 4))
    Y[:, :2] = rng.uniform(-0.3, 0.3, (n, 2))
    Y[:, 2:] = rng.uniform(-0.2, 0.2, (n, 2))
    return Y


def run_numpy(B, Y, steps, numbered=True):
    y = [np.array(Y[:, i]) for i in range(Y.shape[1])]
    for n in range(steps):
        y = B.step(y, step_index=n + 1 if numbered else None)
    return np.stack(y, axis=1)


@pytest.mark.parametrize("points", [2, 3, 4, 6])
def test_extrapolation_weights_are_those_of_the_interpolating_polynomial(points):
    t = sp.Symbol("t")
    values = sp.symbols(f"v0:{points}")               # v_j at step -j (newest first)
    poly = sp.interpolate(list(zip(range(0, -points, -1), values)), t)
    expected = sp.Poly(sp.expand(poly.subs(t, 1)), *values).coeffs()
    assert tuple(newton.extrapolation_weights(points)) == tuple(int(c) for c in expected)


def test_extrapolated_start_is_exact_on_polynomials_and_refuses_to_leave_the_branch():
    k = np.arange(6, 0, -1.0)                          # steps 6, 5, ..., 1 (newest first)
    cubic = [np.array([[x**3 - 2 * x, 1.0]]).T for x in k]
    start, used = newton.extrapolated_start(cubic[:4], np.zeros((2, 1)))
    assert used.all() and np.allclose(start[:, 0], [7.0**3 - 14, 1.0], rtol=0, atol=1e-12)
    # back and forth (a step size too large for the motion): the extrapolation would jump 8 times the last move
    zigzag = [np.array([[v]]) for v in (1.0, -1.0, 1.0, -1.0)]
    start, used = newton.extrapolated_start(zigzag, np.array([[0.25]]))
    assert not used.any() and start[0, 0] == 0.25


def test_numpy_simplified_newton_from_extrapolated_starts_is_full_newtons():
    L = lower(ig.scheme("gauss-legendre-4").step_map(HENON))
    Y = henon_starts(6)
    full = run_numpy(L.bind({h: 0.05}, newton="full"), Y, 60)
    B = L.bind({h: 0.05}, newton="auto")
    assert L.m >= newton.AUTO_SIMPLIFIED                 # the simplified iteration
    got = run_numpy(B, Y, 60)
    assert np.abs(got - full).max() <= 1e-13 and np.abs(full - Y).max() > 0.05
    assert B.solver.starts["extrapolated"] > 50 * len(Y)
    plain = L.bind({h: 0.05}, newton="auto")            # no step numbers: the map's guess every step
    assert np.abs(run_numpy(plain, Y, 60, numbered=False) - full).max() <= 1e-13
    assert plain.solver.starts["extrapolated"] == 0
    assert B.solver.counts["iterations"] < plain.solver.counts["iterations"]


def test_numpy_full_newton_of_auto_from_extrapolated_starts_and_a_gap_in_the_steps():
    L = lower(ig.scheme("gauss-legendre-4").step_map(PENDULUM))
    Y = np.array([[0.5, 0.0], [2.0, 0.5], [-1.0, 1.5]])
    assert L.m < newton.AUTO_SIMPLIFIED                   # auto: full Newton
    ref = L.bind({h: 0.1}, newton="full")
    B = L.bind({h: 0.1}, newton="auto")
    assert np.abs(run_numpy(B, Y, 80) - run_numpy(ref, Y, 80)).max() <= 1e-13
    assert B.solver.counts["iterations"] < ref.solver.counts["iterations"]
    # step 200 does not follow step 80: not the same trajectories' next step, the map's guess
    before = dict(B.solver.starts)
    B.step([np.array(Y[:, i]) for i in range(2)], step_index=200)
    assert B.solver.starts == before


compiled = pytest.importorskip("integrators.compiled_newton")
needs_cc = pytest.mark.skipif(__import__("integrators.compiled", fromlist=["x"]).find_compiler() is None,
                              reason="no C compiler")


@needs_cc
def test_compiled_extrapolated_starts_give_full_newtons_states_in_fewer_iterations():
    C = compiled.compiled_newton(lower(ig.scheme("gauss-legendre-4").step_map(HENON)))
    Y = henon_starts(7)                                  # two groups of lanes, the second not full
    full = C.run([0.05], Y, 150, save_every=50, newton="full")
    guess = C.run([0.05], Y, 150, save_every=50, start="guess")
    it_guess = C.counts["iterations"]
    got = C.run([0.05], Y, 150, save_every=50)
    counts = dict(C.counts)
    assert np.abs(got - full).max() <= 1e-13 and np.abs(guess - full).max() <= 1e-13
    assert np.abs(full[:, -1] - Y).max() > 0.1
    # from the third step on (two roots), every start is extrapolated or refused
    assert counts["extrapolated"] + counts["rejected"] == 7 * 148 and counts["extrapolated"] >= 0.95 * 7 * 148
    assert counts["iterations"] <= 0.85 * it_guess
    # the groups change nothing: each trajectory alone gives the same bits
    for b in (0, 4, 6):
        assert np.array_equal(C.run([0.05], Y[b:b + 1], 150, save_every=50)[0], got[b])


@needs_cc
def test_compiled_starts_off_the_branch_are_refused_and_failures_named_as_one_by_one():
    L = lower(ig.scheme("gauss-legendre-4").step_map(PENDULUM))
    C = compiled.compiled_newton(L)
    Y = np.array([[0.5, 0.0], [3.0, 0.0], [0.0, 2.5], [1.0, -1.0], [2.9, 0.3]])
    got = C.run([1.2], Y, 40)                              # h = 1.2: the roots swing from step to step
    assert C.counts["rejected"] > C.counts["extrapolated"] > 0
    # over the run, differences at the Newton tolerance grow (a rotation's period depends on its energy: the
    # map's guess and full Newton differ by 3e-11 at the end too); each step is full Newton's to 1e-13
    states = got[:, :-1].reshape(-1, 2)
    one_step = L.bind({h: 1.2}, newton="full").step_array(states)
    new = got[:, 1:].reshape(-1, 2)
    assert np.abs(one_step - new).max() <= 1e-13 * (1 + np.abs(new).max())
    assert np.abs(got[:, -1] - Y).max() > 10
    bad = np.repeat(Y, 2, axis=0)
    bad[[2, 9], 0] = np.nan                                 # trajectories 2 and 9 (second group)
    with pytest.raises(NewtonConvergenceError) as info:
        C.run([0.1], bad, 5)
    assert info.value.trajectories == [2] and info.value.step == 1
    bad[2, 0] = 0.5
    with pytest.raises(NewtonConvergenceError) as info:
        C.run([0.1], bad, 5, trajectories=range(10, 20))
    assert info.value.trajectories == [19]
    with pytest.raises(InvalidArgumentError):
        C.run([0.1], Y, 3, start="previous")


def test_numpy_a_start_on_which_newton_fails_is_retried_from_the_maps_guess(monkeypatch):
    L = lower(ig.scheme("gauss-legendre-4").step_map(PENDULUM))
    Y = np.array([[0.5, 0.0], [2.0, 0.5]])
    ref = run_numpy(L.bind({h: 0.1}, newton="full"), Y, 12)

    def garbage(roots, guess):                       # a start no Newton iteration recovers from
        return np.full_like(guess, np.nan), np.ones(guess.shape[1], dtype=bool)

    monkeypatch.setattr(newton, "extrapolated_start", garbage)
    for mode in ("auto", "simplified"):              # auto's full Newton, and the simplified iteration
        B = L.bind({h: 0.1}, newton=mode)
        assert np.abs(run_numpy(B, Y, 12) - ref).max() <= 1e-13
        assert B.solver.starts["extrapolated"] == 2 * 10
        assert B.solver.counts["fallbacks"] == 0         # the map's guess sufficed: no full Newton
