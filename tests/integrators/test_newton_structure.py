"""Newton with the stage Jacobian's structure (integrators.stage_sparsity, newton, compiled_newton).

The sparsity pattern is read off the symbolic stage equations: checked here against a brute
force (every entry of the dense sympy Jacobian differentiated and compared with 0) and against
the structure written out by hand; the chosen solver (band, sparse LU, dense) gives the dense
path's solution and an independent one (a hand numpy Newton on the midpoint positions,
scipy.optimize.fsolve); a wrong pattern is caught; failures raise NewtonConvergenceError.
"""

import numpy as np
import pytest
import sympy as sp

import integrators as ig
from integrators.errors import NewtonConvergenceError, NotLowerableError
from integrators.lower import lower
from integrators.newton import StageSolver
from integrators.stage_sparsity import (PatternMismatchError, StagePattern, check_pattern, classify,
                                        eliminate_affine_unknowns, stage_pattern)

h = sp.Symbol("h")
ALPHA = sp.Rational(1, 4)


def chain(N):
    """The FPU alpha chain with fixed ends: coordinates (q0..q_{N-1}, p0..p_{N-1})."""
    q, p = sp.symbols(f"q0:{N}"), sp.symbols(f"p0:{N}")

    def V(r):
        return r**2 / 2 + ALPHA * r**3 / 3

    H = sum(x**2 / 2 for x in p) + V(q[0]) + sum(V(q[i + 1] - q[i]) for i in range(N - 1)) + V(-q[-1])
    return ig.HamiltonianSystem(H, list(q), list(p))


def graph_system(N, edges):
    q, p = sp.symbols(f"q0:{N}"), sp.symbols(f"p0:{N}")
    H = sum(x**2 / 2 for x in p) + sum(x**2 / 2 for x in q) + sum((q[i] - q[j])**4 / 4 for i, j in edges)
    return ig.HamiltonianSystem(H, list(q), list(p))


def random_edges(N, count, seed):
    rng = np.random.default_rng(seed)
    edges = set()
    while len(edges) < count:
        i, j = sorted(rng.choice(N, 2, replace=False))
        edges.add((int(i), int(j)))
    return sorted(edges)


def midpoint(system):
    return lower(ig.scheme("implicit-midpoint").step_map(system))


def brute_force_pattern(L):
    """Every entry of the dense Jacobian, differentiated by sympy and compared with 0."""
    return {(i, j) for i, e in enumerate(L.equations) for j, u in enumerate(L.unknowns) if sp.diff(e, u) != 0}


N_CHAIN = 12
CHAIN = midpoint(chain(N_CHAIN))
EDGES = random_edges(15, 14, 0)
GRAPH = midpoint(graph_system(15, EDGES))


def start(N, seed=1, batch=1):
    rng = np.random.default_rng(seed)
    Y = np.zeros((batch, 2 * N))
    Y[:, :N] = 0.5 * np.sin(np.pi * np.arange(1, N + 1) / (N + 1)) * rng.uniform(0.5, 1.5, (batch, 1))
    Y[:, N:] = 0.2 * rng.standard_normal((batch, N))
    return Y


def run(L, Y, steps, dt, mode="auto", structure=True):
    B = L.bind({h: dt}, newton=mode)
    B.solver = StageSolver(B, mode, structure=structure)
    y = [np.array(Y[:, i]) for i in range(Y.shape[1])]
    for n in range(steps):
        y = B.step(y, step_index=n + 1)
    return np.stack(y, axis=1), B.solver


# ---------------------------------------------------------------- the pattern


def test_chain_pattern_is_the_midpoint_stage_band():
    P = stage_pattern(CHAIN)
    assert set(zip(P.rows, P.cols)) == brute_force_pattern(CHAIN)
    # by hand: unknowns (k_q0, k_p0, k_q1, ...); k_q_i = p_i + h/2 k_p_i; k_p_i = -V'(..) of q_{i-1}, q_i, q_{i+1}
    names = [str(u) for u in CHAIN.unknowns]
    assert names[:2] == ["_k_{1,q0}", "_k_{1,p0}"]
    N = N_CHAIN
    expected = {(2 * i, 2 * i) for i in range(N)} | {(2 * i, 2 * i + 1) for i in range(N)}
    expected |= {(2 * i + 1, 2 * i + 1) for i in range(N)}
    expected |= {(2 * i + 1, 2 * j) for i in range(N) for j in range(N) if abs(i - j) <= 1}
    assert set(zip(P.rows, P.cols)) == expected
    assert (P.kind, P.perm) == ("banded(3,1)", None)


def test_block_diagonal_and_dense_patterns():
    q, p = sp.symbols("q0:6"), sp.symbols("p0:6")
    uncoupled = ig.HamiltonianSystem(sum(x**2 / 2 for x in p) + sum(x**4 / 4 for x in q), list(q), list(p))
    L = lower(ig.scheme("gauss-legendre-4").step_map(uncoupled))      # 24 unknowns in blocks of 4
    P = stage_pattern(L)
    assert set(zip(P.rows, P.cols)) == brute_force_pattern(L)
    assert P.banded and P.lower <= 3 and P.upper <= 3               # each block contiguous after the permutation
    rows, cols = P.permuted()
    assert max(abs(int(r) // 4 - int(c) // 4) for r, c in zip(rows, cols)) == 0
    coupled = ig.HamiltonianSystem(sum(x**2 / 2 for x in p) + sum(q)**4 / 4 + sum(x**2 for x in q), list(q),
                                   list(p))
    L = lower(ig.scheme("gauss-legendre-4").step_map(coupled))
    assert stage_pattern(L).kind == "dense"
    # below the size threshold: always dense
    assert stage_pattern(midpoint(chain(3))).kind == "dense"


def test_random_graph_is_sparse_not_banded():
    P = stage_pattern(GRAPH)
    assert set(zip(P.rows, P.cols)) == brute_force_pattern(GRAPH)
    assert P.kind == "sparse"
    assert classify(P.m, P.rows, P.cols)[0] == "sparse"


def test_planted_wrong_pattern_is_caught():
    P = stage_pattern(CHAIN)
    check_pattern(CHAIN, P, [0.1], start(N_CHAIN)[0])
    k = P.rows.index(3)                      # drop one true nonzero of row 3
    wrong = StagePattern(P.m, P.rows[:k] + P.rows[k + 1:], P.cols[:k] + P.cols[k + 1:],
                         P.entries[:k] + P.entries[k + 1:], P.kind, P.lower, P.upper, P.perm)
    with pytest.raises(PatternMismatchError) as info:
        check_pattern(CHAIN, wrong, [0.1], start(N_CHAIN)[0])
    assert info.value.entry == (P.rows[k], P.cols[k])


def test_elimination_of_explicit_unknowns():
    kept, reduced, gone = eliminate_affine_unknowns(CHAIN.equations, CHAIN.unknowns)
    assert len(kept) == N_CHAIN and len(gone) == N_CHAIN and len(reduced) == N_CHAIN
    assert not any(e.free_symbols & set(gone) for e in reduced)
    assert all(str(u).startswith("_k_{1,q") for u in gone)
    # each eliminated unknown's value solves its own equation identically
    for u, v in gone.items():
        eq = next(e for e in CHAIN.equations if sp.diff(e, u) == 1)
        assert sp.expand(eq.xreplace({u: v})) == 0


# ---------------------------------------------------------------- agreement


def hand_midpoint(Y, steps, dt):
    """The midpoint rule on the chain by hand: Newton (numpy, dense) on the midpoint positions Q."""
    N = Y.shape[1] // 2
    a = float(ALPHA)
    out = []
    for y in Y:
        q, p = y[:N].copy(), y[N:].copy()
        for _ in range(steps):
            Q = q + dt / 2 * p
            for _ in range(50):
                ext = np.concatenate([[0.0], Q, [0.0]])
                r = np.diff(ext)                             # r_i = Q_i - Q_{i-1}, i = 0..N
                dV = r + a * r**2
                g = dV[:-1] - dV[1:]
                F = Q - q - dt / 2 * p + dt**2 / 4 * g
                d2 = 1 + 2 * a * r
                J = np.diag(1 + dt**2 / 4 * (d2[:-1] + d2[1:])) - dt**2 / 4 * (np.diag(d2[1:-1], 1)
                                                                             + np.diag(d2[1:-1], -1))
                delta = np.linalg.solve(J, F)
                Q -= delta
                if np.abs(delta).max() <= 1e-14 * (1 + np.abs(Q).max()):
                    break
            q, p = 2 * Q - q, 2 * (Q - q) * 2 / dt - p
        out.append(np.concatenate([q, p]))
    return np.array(out)


@pytest.mark.parametrize("mode", ["auto", "full", "simplified"])
def test_banded_path_agrees_with_dense_and_a_hand_newton(mode):
    Y = start(N_CHAIN, batch=3)
    banded, solver = run(CHAIN, Y, 6, 0.1, mode)
    assert solver.linear_solver == "banded(3,1)" and solver.counts["iterations"] > 0
    dense, other = run(CHAIN, Y, 6, 0.1, mode, structure=False)
    assert other.linear_solver == "dense"
    assert np.abs(banded - dense).max() <= 1e-13
    assert np.abs(banded - hand_midpoint(Y, 6, 0.1)).max() <= 1e-12
    assert np.abs(banded - Y).max() > 0.05


def test_sparse_path_agrees_with_dense_and_fsolve():
    from scipy.optimize import fsolve

    Y = start(15, seed=3, batch=2)
    sparse, solver = run(GRAPH, Y, 1, 0.2)
    assert solver.linear_solver == "sparse"
    dense, _ = run(GRAPH, Y, 1, 0.2, structure=False)
    assert np.abs(sparse - dense).max() <= 1e-13
    # independent: the stage equations solved by MINPACK, then the new state y + h k
    G = sp.lambdify([GRAPH.coords, GRAPH.unknowns, h], list(GRAPH.equations))
    for b in range(2):
        k = fsolve(lambda u, x=Y[b]: G(x, u, 0.2), np.zeros(GRAPH.m), xtol=1e-12)
        names = [str(u) for u in GRAPH.unknowns]
        order = [names.index(f"_k_{{1,{c}}}") for c in GRAPH.coords]
        assert np.abs(Y[b] + 0.2 * k[order] - sparse[b]).max() <= 1e-11


def test_integrate_records_the_linear_solver():
    sol = ig.integrate(chain(N_CHAIN), "implicit-midpoint", start(N_CHAIN)[0], dt=0.1, steps=3)
    assert sol.newton.linear_solver == "banded(3,1)"
    dense = ig.integrate(ig.example_system("pendulum"), "gauss-legendre-4", [0.5, 0.0], dt=0.1, steps=3)
    assert dense.newton.linear_solver == "dense"


def test_structured_failure_names_trajectory_and_step():
    Y = start(N_CHAIN, batch=3)
    Y[1, 4] = np.nan                                          # a non-finite Jacobian for trajectory 1 only
    for mode in ("full", "simplified", "auto"):
        with pytest.raises(NewtonConvergenceError) as info:
            run(CHAIN, Y, 3, 0.1, mode)
        assert info.value.trajectories == [1] and info.value.step == 1
    B = CHAIN.bind({h: 0.1}, newton="full", max_iter=1)       # one iteration cannot meet the tolerance
    with pytest.raises(NewtonConvergenceError) as info:
        B.step([np.array(c) for c in start(N_CHAIN, batch=2).T], step_index=4)
    assert info.value.trajectories == [0, 1] and info.value.step == 4 and "no convergence" in str(info.value)


# ---------------------------------------------------------------- compiled Newton


compiled = pytest.importorskip("integrators.compiled_newton")
needs_cc = pytest.mark.skipif(__import__("integrators.compiled", fromlist=["x"]).find_compiler() is None,
                              reason="no C compiler")


@needs_cc
def test_compiled_newton_agrees_and_fails_by_name():
    C = compiled.compiled_newton(CHAIN)
    assert C.linear_solver == "banded(1,1)"                 # k_q eliminated: the tridiagonal force equations
    Y = start(N_CHAIN, batch=2)
    out = C.run([0.1], Y, 6, save_every=3)
    assert out.shape == (2, 3, 2 * N_CHAIN)
    ref, _ = run(CHAIN, Y, 6, 0.1, "full", structure=False)
    assert np.abs(out[:, -1] - ref).max() <= 1e-13
    for mode in ("full", "simplified"):
        assert np.abs(C.run([0.1], Y, 6, newton=mode)[:, -1] - ref).max() <= 1e-13
    bad = Y.copy()
    bad[1, 4] = np.nan
    with pytest.raises(NewtonConvergenceError) as info:
        C.run([0.1], bad, 3, trajectories=[7, 8])
    assert info.value.trajectories == [8] and info.value.step == 1
    assert "step 1" in str(info.value) and "trajectory 8" in str(info.value) and "non-finite" in str(info.value)
    with pytest.raises(NewtonConvergenceError) as info:
        C.run([0.1], bad, 3, newton="simplified")        # no fallback to full Newton
    assert info.value.trajectories == [1] and "simplified iteration" in str(info.value)
    from geomcheck.errors import InvalidArgumentError

    for bad_call in (lambda: C.run([0.1], Y, 3, max_iter=0), lambda: C.run([0.1], Y, 3, newton="newest"),
                     lambda: C.run([0.1], Y[:, :3], 3), lambda: C.run([0.1, 2.0], Y, 3),
                     lambda: C.run([0.1], Y, 3, tol=-1.0)):
        with pytest.raises(InvalidArgumentError):
            bad_call()
    with pytest.raises(NewtonConvergenceError) as info:
        C.run([0.1], Y, 3, max_iter=1)
    assert info.value.trajectories == [0] and info.value.step == 1 and "no convergence" in str(info.value)


@needs_cc
def test_compiled_newton_run_for_the_pipeline():
    stages = ig.scheme("implicit-midpoint").stages(chain(N_CHAIN))
    runner = compiled.compiled_newton_run(stages, [h], None, [0.1])
    Y = start(N_CHAIN, batch=2)

    class Watch:
        seen = []        # noqa: RUF012 -- shared by the two runs on purpose

        def saved(self, states, n):
            self.seen.append(n)

    class Observer:
        size = 4

        def __init__(self):
            self.rows = {}

        def add_rows(self, block, first):
            for j, r in enumerate(block):
                self.rows[first + j] = r.copy()

    out = np.empty((3, 2, 2 * N_CHAIN))
    runner.run(Y, np.array([0, 3, 6]), out, Watch())
    ref, _ = run(CHAIN, Y, 6, 0.1, "full", structure=False)
    assert np.abs(out[-1] - ref).max() <= 1e-13 and Watch.seen == [0, 3, 6]
    observed = np.empty_like(out)
    obs = Observer()
    runner.run(Y, np.array([0, 3, 6]), observed, Watch(), observer=obs)
    assert sorted(obs.rows) == list(range(7)) and np.abs(observed - out).max() <= 1e-13
    record = runner.newton_record()
    assert record.linear_solver == "compiled banded(1,1)" and record.iterations > 0
    with pytest.raises(NotLowerableError):
        compiled.compiled_newton_run(ig.scheme("yoshida-4").stages(chain(3)), [h], None, [0.1])


@pytest.mark.parametrize("constant", [False, True])
def test_affine_structured_stage_equations_take_one_solve(constant):
    import geomcheck as gc

    n = 26
    M = gc.Chart(" ".join(f"x{i}" for i in range(n)))
    x = M.coords
    X = sp.symbols(f"X0:{n}")
    # X_i (1 + h c_i) - x_i - h X_{i+1} = 0: upper bidiagonal, affine in X; c_i = x_i^2 (state-dependent) or 1
    c = [1 if constant else x[i] ** 2 for i in range(n)]
    eqs = [X[i] * (1 + h * c[i]) - x[i] - h * (X[i + 1] if i < n - 1 else 0) + (h * x[i] ** 2 if constant else 0)
           for i in range(n)]
    L = lower(gc.ImplicitMap(M, M, eqs, new=list(X)))
    Y = np.random.default_rng(4).uniform(-1, 1, (3, n))
    B = L.bind({h: 0.3}, newton="simplified")
    assert B.solver.linear_solver == "banded(0,1)"
    got = B.step_array(Y)
    got = B.step_array(got)
    assert B.solver.counts["iterations"] == 2
    assert B.solver.counts["factorizations"] == (1 if constant else 6)
    for b in range(3):                                   # independent: numpy's dense solve, twice
        z = Y[b]
        for _ in range(2):
            A = np.diag(1 + 0.3 * (np.ones(n) if constant else z**2)) - 0.3 * np.eye(n, k=1)
            z = np.linalg.solve(A, z - (0.3 * z**2 if constant else 0))
        assert np.abs(got[b] - z).max() <= 1e-14


@needs_cc
def test_compiled_newton_small_system_gauss4_henon_heiles():
    """Gauss-4: the k_q slopes eliminated (8 -> 4 unknowns), the explicit-inverse path of a small system."""
    system = ig.example_system("henon-heiles")
    L = lower(ig.scheme("gauss-legendre-4").step_map(system))
    C = compiled.compiled_newton(L)
    assert C.system.m == 4 and len(C.system.eliminated) == 4 and C.linear_solver == "dense"
    Y = np.array([[0.1, -0.2, 0.3, 0.1], [0.3, 0.1, -0.1, 0.2], [0.0, 0.4, 0.2, -0.3]])
    out = C.run([0.2], Y, 20, save_every=20)
    B = L.bind({h: 0.2}, newton="full")
    ref = Y
    for _ in range(20):
        ref = B.step_array(ref)
    assert np.abs(out[:, -1] - ref).max() <= 1e-13 and np.abs(ref - Y).max() > 0.1


def test_auto_runs_newton_in_c_for_a_long_implicit_run(monkeypatch):
    """backend="auto" (the default): a short implicit run stays on the numpy Newton; one the cost model
    calls long runs Newton's method in C (here the model is made to call 50 steps long), to the Newton
    tolerance of the numpy run; a step linear in the state keeps its factorization (no Newton at all)."""
    import sympy

    import integrators as ig
    from integrators import pipeline
    from integrators.compiled import find_compiler

    if find_compiler() is None:
        pytest.skip("no C compiler")
    q, p = sympy.symbols("q p")
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    short = ig.integrate(pendulum, "implicit-midpoint", [1.0, 0.0], dt=0.05, steps=50)
    assert short.path == "numpy" and "implicit step" in short.path_note
    monkeypatch.setattr(pipeline, "AUTO_MIN_SECONDS_IMPLICIT", 0.0)
    monkeypatch.setattr(pipeline, "BUILD_SECONDS", 0.0)
    monkeypatch.setattr(pipeline, "BUILD_SECONDS_PER_OPERATION", 0.0)
    long = ig.integrate(pendulum, "implicit-midpoint", [1.0, 0.0], dt=0.05, steps=50)
    assert long.path == "compiled" and "Newton's method in C" in long.path_note
    np.testing.assert_allclose(long.y, short.y, rtol=0, atol=1e-13)
    oscillator = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    linear = ig.integrate(oscillator, "implicit-midpoint", [1.0, 0.0], dt=0.05, steps=50)
    assert linear.path == "numpy" and "linear" in linear.path_note


def test_auto_counts_the_interpreter_per_newton_iteration_of_one_trajectory():
    """One trajectory of a small implicit step: the numpy Newton's cost is the interpreter's per
    iteration (its linear solve and convergence test, ~0.1 ms), not the size of the equations, so a
    run of 5e4 steps (Guo et al.'s pendulum: ~18 s on numpy, measured) goes to Newton's method in C,
    and 500 steps stay on numpy."""
    import sympy

    import integrators as ig
    from integrators.compiled import find_compiler
    from integrators.integrate import chosen_backend

    q, p = sympy.symbols("q p")
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    assert chosen_backend(pendulum, "implicit-midpoint", [1.0, 0.0], dt=0.05, steps=500) == "numpy"
    long = chosen_backend(pendulum, "implicit-midpoint", [1.0, 0.0], dt=0.05, steps=50000)
    assert long == ("compiled" if find_compiler() is not None else "numpy")
