"""Benchmark: Newton's method that uses the stage Jacobian's sparsity (issue 21, items 2-3).

Table 1 -- the Fermi-Pasta-Ulam-Tsingou alpha chain, ``H = sum p_i^2/2 + sum V(q_{i+1} - q_i)``,
``V(r) = r^2/2 + alpha r^3/3`` (alpha = 1/4, fixed ends q_0 = q_{N+1} = 0), N = 100 particles
(200 dimensions; --quick: N = 15), the implicit midpoint rule, h = 0.05, ONE trajectory, side by
side in the same run:

(a) today's path: dense simplified Newton (``StageSolver(..., structure=False)``, numpy)
(b) the structured path chosen automatically (``newton="auto"``: the band of the midpoint stage
    read off the symbolic Jacobian, LAPACK dgbtrf/dgbtrs, numpy kernels of the 598 nonzero entries)
(c) the compiled Newton (:mod:`integrators.compiled_newton`: equations, nonzero Jacobian entries,
    band LU and the simplified-Newton rule in one C loop)
(d) a hand-written numba Newton that uses the same structure: the midpoint rule written as N
    equations for the midpoint positions ``Q = q + h/2 p - h^2/4 grad V(Q)``, a tridiagonal Jacobian
    solved by the Thomas algorithm, full Newton (issue 21's "7 us/step" reference)
(e) the same hand numba Newton with a dense LU of the N x N Jacobian (issue 21's "2.06 ms/step")

Goal: (c) <= 20 us/step and within 2 x (d).  The final states of all methods agree (printed).
Times: the best of the repeats, as process CPU time (the goals) and wall time: the machine is
shared, and every method timed runs on one thread.

Table 2 -- Gauss-Legendre order 4 (two stages, implicit) vs Yoshida's order-4 composition of
Stormer-Verlet (explicit, three force evaluations per step) on Henon-Heiles, 1e4 trajectories
(--quick: 500), h = 0.05.  "Equal cost" is per step of the same order (both order 4, same h): the
ratio is time per step of Gauss-4 / time per step of Yoshida-4, for the numpy batch path
(``BoundStep.step`` on arrays of the batch) and for the compiled paths (the compiled Newton vs the
compiled explicit loop of :mod:`integrators.compiled`).  Goal: within 3 x.  Each path runs twice: Newton
started from the map's guess every step (before) and from the extrapolation of the previous steps'
roots (after, the default; :func:`integrators.newton.extrapolated_start`), with the iterations per
step; the final states of every start agree with full Newton's to 1e-13 (checked).

Run ``python benchmarks/bench_newton_structure.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import _util as U  # noqa: E402

ALPHA = 0.25


def best_of(fn, repeats):
    """``(best wall seconds, best CPU seconds of this process, result)`` over ``repeats`` runs.

    The machine is shared: the wall time includes waiting for a core, the process CPU time
    does not; every timed method here runs on one thread, so the CPU time is its cost.
    """
    walls, cpus, out = [], [], None
    for _ in range(max(1, repeats)):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - t0)
    return min(walls), min(cpus), out
STEP = 0.05
GOAL_US = 20.0
GOAL_VS_HAND = 2.0
GOAL_GAUSS = 3.0


def fpu_system(N):
    import sympy as sp
    import integrators as ig

    q, p = sp.symbols(f"q0:{N}"), sp.symbols(f"p0:{N}")
    a = sp.Rational(1, 4)

    def V(r):
        return r**2 / 2 + a * r**3 / 3

    H = sum(x**2 / 2 for x in p) + V(q[0]) + sum(V(q[i + 1] - q[i]) for i in range(N - 1)) + V(-q[-1])
    return ig.HamiltonianSystem(H, list(q), list(p))


def fpu_start(N):
    rng = np.random.default_rng(1)
    y0 = np.zeros(2 * N)             # the coordinates are (q0, ..., q_{N-1}, p0, ..., p_{N-1})
    y0[:N] = 0.5 * np.sin(np.pi * np.arange(1, N + 1) / (N + 1))
    y0[N:] = 0.1 * rng.standard_normal(N)
    return y0


def hand_newtons():
    """``(banded, dense)`` numba midpoint steps for the FPU chain, or None when numba is absent."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(cache=False)
    def grad(Q, g):
        N = Q.size
        for i in range(N):
            left = Q[i] - (Q[i - 1] if i > 0 else 0.0)
            right = (Q[i + 1] if i < N - 1 else 0.0) - Q[i]
            g[i] = (left + ALPHA * left * left) - (right + ALPHA * right * right)

    @numba.njit(cache=False)
    def band_run(q, p, h, steps, tol):
        N = q.size
        q, p = q.copy(), p.copy()
        Q = np.empty(N)
        g = np.empty(N)
        F = np.empty(N)
        dg = np.empty(N)
        lo = np.empty(N)
        up = np.empty(N)
        c = h * h / 4
        for n in range(steps):
            for i in range(N):
                Q[i] = q[i] + h / 2 * p[i]
            for it in range(50):
                grad(Q, g)
                for i in range(N):
                    F[i] = Q[i] - q[i] - h / 2 * p[i] + c * g[i]
                # the Jacobian I + c Hess V(Q): tridiagonal
                for i in range(N):
                    left = Q[i] - (Q[i - 1] if i > 0 else 0.0)
                    right = (Q[i + 1] if i < N - 1 else 0.0) - Q[i]
                    kl, kr = 1 + 2 * ALPHA * left, 1 + 2 * ALPHA * right
                    dg[i] = 1 + c * (kl + kr)
                    lo[i] = -c * kl
                    up[i] = -c * kr
                # Thomas algorithm (the Jacobian is diagonally dominant for these h)
                for i in range(1, N):
                    w = lo[i] / dg[i - 1]
                    dg[i] -= w * up[i - 1]
                    F[i] -= w * F[i - 1]
                F[N - 1] /= dg[N - 1]
                for i in range(N - 2, -1, -1):
                    F[i] = (F[i] - up[i] * F[i + 1]) / dg[i]
                dn, qm = 0.0, 0.0
                for i in range(N):
                    Q[i] -= F[i]
                    dn = max(dn, abs(F[i]))
                    qm = max(qm, abs(Q[i]))
                if dn <= tol * (1 + qm):
                    break
            for i in range(N):
                P = (Q[i] - q[i]) * 2 / h
                q[i] = 2 * Q[i] - q[i]
                p[i] = 2 * P - p[i]
        return q, p

    @numba.njit(cache=False)
    def dense_run(q, p, h, steps, tol):
        N = q.size
        q, p = q.copy(), p.copy()
        Q = np.empty(N)
        g = np.empty(N)
        c = h * h / 4
        for n in range(steps):
            for i in range(N):
                Q[i] = q[i] + h / 2 * p[i]
            for it in range(50):
                grad(Q, g)
                F = Q - q - h / 2 * p + c * g
                J = np.eye(N)
                for i in range(N):
                    left = Q[i] - (Q[i - 1] if i > 0 else 0.0)
                    right = (Q[i + 1] if i < N - 1 else 0.0) - Q[i]
                    kl, kr = 1 + 2 * ALPHA * left, 1 + 2 * ALPHA * right
                    J[i, i] += c * (kl + kr)
                    if i > 0:
                        J[i, i - 1] -= c * kl
                    if i < N - 1:
                        J[i, i + 1] -= c * kr
                d = np.linalg.solve(J, F)
                Q -= d
                if np.abs(d).max() <= tol * (1 + np.abs(Q).max()):
                    break
            for i in range(N):
                P = (Q[i] - q[i]) * 2 / h
                q[i] = 2 * Q[i] - q[i]
                p[i] = 2 * P - p[i]
        return q, p

    return band_run, dense_run


def interleave(q, p):
    return np.concatenate([q, p])


def fpu_table(N, steps_numpy, steps_fast, repeats):
    import sympy as sp
    import integrators as ig
    from integrators.compiled import find_compiler
    from integrators.lower import lower
    from integrators.newton import StageSolver

    h = sp.Symbol("h")
    t0 = time.perf_counter()
    system = fpu_system(N)
    L = lower(ig.scheme("implicit-midpoint").step_map(system))
    t_lower = time.perf_counter() - t0
    y0 = fpu_start(N)
    rows, finals = {}, {}

    def numpy_run(structure, steps):
        B = L.bind({h: STEP}, newton="simplified" if not structure else "auto")
        B.solver = StageSolver(B, B.solver.mode, structure=structure)

        def go():
            y = [np.array([v]) for v in y0]
            for k in range(steps):
                y = B.step(y, step_index=k + 1)
            return np.array([v[0] for v in y])
        t, c, y = best_of(go, repeats)
        return (t / steps, c / steps), y, B.solver.linear_solver

    t0 = time.perf_counter()
    t, y, kind = numpy_run(False, steps_numpy)
    rows["(a) dense simplified Newton (today), numpy"] = (t, kind)
    finals["a"] = (steps_numpy, y)
    t0 = time.perf_counter()
    L.bind({h: STEP}, newton="auto")            # the pattern and its kernel (cached), timed once
    t_setup_b = time.perf_counter() - t0
    t, y, kind = numpy_run(True, steps_numpy)
    rows["(b) structured Newton (auto), numpy"] = (t, kind)
    finals["b"] = (steps_numpy, y)
    t_compile = None
    if find_compiler() is not None:
        from integrators.compiled_newton import CompiledNewton

        t0 = time.perf_counter()
        C = CompiledNewton(L)
        t_compile = time.perf_counter() - t0
        t, c, out = best_of(lambda: C.run([STEP], y0[None], steps_fast, save_every=steps_fast), repeats)
        rows["(c) compiled Newton (C, structured)"] = ((t / steps_fast, c / steps_fast), C.linear_solver)
        finals["c"] = (steps_fast, out[0, -1])
        finals["c_short"] = (steps_numpy, C.run([STEP], y0[None], steps_numpy)[0, -1])
    hands = hand_newtons()
    if hands is not None:
        band_run, dense_run = hands
        q0, p0 = y0[:N].copy(), y0[N:].copy()
        band_run(q0, p0, STEP, 1, 1e-13)                 # compile (jit) outside the timing
        dense_run(q0, p0, STEP, 1, 1e-13)
        t, c, (q, p) = best_of(lambda: band_run(q0, p0, STEP, steps_fast, 1e-13), repeats)
        rows["(d) hand numba Newton, tridiagonal (Thomas)"] = ((t / steps_fast, c / steps_fast), "tridiagonal")
        finals["d"] = (steps_fast, interleave(q, p))
        n_dense = max(steps_fast // 20, 10)
        t, c, (q, p) = best_of(lambda: dense_run(q0, p0, STEP, n_dense, 1e-13), repeats)
        rows["(e) hand numba Newton, dense LU"] = ((t / n_dense, c / n_dense), "dense")
        finals["e"] = (n_dense, interleave(q, p))
    else:
        print("# numba not installed: the hand-written baselines (d), (e) are skipped")
    ref = rows.get("(d) hand numba Newton, tridiagonal (Thomas)", ((None, None),))[0]
    table = U.Table(f"FPU alpha chain, N = {N} particles ({2 * N} dims), implicit midpoint, h = {STEP}, one trajectory",
                    ["method", "linear solver", "us/step (CPU)", "us/step (wall)", "CPU vs (d) hand banded"])
    for label, ((t, c), kind) in rows.items():
        table.add(label, kind, f"{c * 1e6:.4g}", f"{t * 1e6:.4g}", U.fmt_ratio(c, ref[1]))
    table.notes.append(f"lowering the step (symbolic, incl. today's dense {2 * N}x{2 * N} Jacobian kernel): "
                       f"{t_lower:.1f} s; binding (b) incl. the pattern and its {L.m}-equation kernel: {t_setup_b:.2f} s"
                       + ("" if t_compile is None else f"; generating + compiling (c): {t_compile:.2f} s"))
    table.notes.append(f"(a), (b): {steps_numpy} steps; (c), (d): {steps_fast} steps; (e) fewer; best of {repeats}")
    table.show()
    return rows, finals


def agreement(finals):
    """Lines comparing final states of the runs that took the same number of steps."""
    lines = []
    a = finals.get("a")
    for key in ("b", "c_short"):
        if a is not None and key in finals:
            lines.append((f"({key[0]}) vs (a) after {a[0]} steps", np.abs(finals[key][1] - a[1]).max()))
    if "c" in finals and "d" in finals and finals["c"][0] == finals["d"][0]:
        lines.append((f"(c) vs (d) after {finals['c'][0]} steps", np.abs(finals["c"][1] - finals["d"][1]).max()))
    return lines


def gauss_table(n_traj, steps, repeats):
    import sympy as sp
    import integrators as ig
    from integrators.compiled import compile_stages, find_compiler
    from integrators.lower import lower
    from integrators.staged import lower_scheme
    from integrators.systems import STEP_SYMBOL

    system = ig.example_system("henon-heiles")
    rng = np.random.default_rng(2)
    Y0 = np.zeros((n_traj, system.dim))
    Y0[:, :2] = rng.uniform(-0.3, 0.3, (n_traj, 2))
    Y0[:, 2:] = rng.uniform(-0.2, 0.2, (n_traj, 2))
    h = sp.Symbol("h")
    LG = lower(ig.scheme("gauss-legendre-4").step_map(system))
    Yo = lower_scheme("yoshida-4", system).bind({h: STEP})

    def batch(bound, numbered=True):
        # numbered steps: the stage solver extrapolates its start from the previous roots; without
        # step numbers it cannot know the calls are consecutive steps and starts from the map's guess
        def go():
            y = [np.ascontiguousarray(Y0[:, i]) for i in range(Y0.shape[1])]
            for k in range(steps):
                y = bound.step(y, step_index=k + 1 if numbered else None)
            return np.stack(y, axis=1)
        return go

    G0 = LG.bind({h: STEP}, newton="auto")
    _, tg0, yg0 = best_of(batch(G0, numbered=False), repeats)     # CPU seconds (see best_of)
    G = LG.bind({h: STEP}, newton="auto")
    _, tg, yg = best_of(batch(G), repeats)
    _, ty, yy = best_of(batch(Yo), repeats)
    iters0 = G0.solver.counts["iterations"] / max(G0.solver.counts["solves"], 1)
    iters = G.solver.counts["iterations"] / max(G.solver.counts["solves"], 1)
    table = U.Table(f"Henon-Heiles, {n_traj} trajectories, h = {STEP}, {steps} steps: Gauss-4 vs Yoshida-4 (CPU time)",
                    ["path", "Newton start", "iterations/step", "gauss-4 us/step", "yoshida-4 us/step",
                     "ratio per step (same order)", "ratio per force evaluation"])
    # force evaluations per step: Gauss-4 2 per iteration, Yoshida-4 3
    for label, t, it in (("map's guess (before)", tg0, iters0), ("extrapolated (after)", tg, iters)):
        table.add("numpy batch", label, f"{it:.2f}", f"{t / steps * 1e6:.4g}", f"{ty / steps * 1e6:.4g}",
                  f"{t / ty:.2f}", f"{t / ty / (2 * it / 3):.2f}")
    ratios = {"numpy, per step": tg / ty}
    checks = [("numpy Gauss-4, extrapolated starts vs the map's guess", np.abs(yg - yg0).max())]
    if find_compiler() is not None:
        from integrators.compiled_newton import CompiledNewton

        C = CompiledNewton(LG)
        stages = ig.scheme("yoshida-4").stages(system)
        CY = compile_stages(stages, [STEP_SYMBOL])
        # the explicit loop runs one trajectory per call: its C cost per trajectory-step is measured on one
        # long run (so the Python call per trajectory is not charged to it), times the number of trajectories
        long_steps = 200000          # the per-call setup (stage scalars) is then negligible
        _, t1, _ = best_of(lambda: CY.run([STEP], Y0[0], long_steps, save_every=long_steps), repeats)
        tyc = t1 / long_steps * n_traj * steps
        _, _, full = best_of(lambda: C.run([STEP], Y0, steps, save_every=steps, newton="full"), 1)
        for start, label in (("guess", "map's guess (before)"), ("extrapolate", "extrapolated (after)")):
            _, tgc, out = best_of(lambda: C.run([STEP], Y0, steps, save_every=steps, start=start), repeats)
            it_c = C.counts["iterations"] / (n_traj * steps)
            table.add("compiled (C)", label, f"{it_c:.2f}", f"{tgc / steps * 1e6:.4g}", f"{tyc / steps * 1e6:.4g}",
                      f"{tgc / tyc:.2f}", f"{tgc / tyc / (2 * it_c / 3):.2f}")
            checks.append((f"compiled Gauss-4 ({start}) vs compiled full Newton from the map's guess",
                           np.abs(out[:, -1] - full[:, -1]).max()))
        ratios["compiled, per step"] = tgc / tyc
        ratios["compiled, per force evaluation"] = tgc / tyc / (2 * it_c / 3)
        table.notes.append("compiled yoshida-4: the C loop's cost per trajectory-step (one trajectory, "
                           f"{long_steps} steps) x {n_traj} trajectories; compiled gauss-4: one C call for the batch"
                           " (trajectories in groups of lanes, step by step together)")
        table.notes.append(f"compiled Gauss-4 vs numpy Gauss-4 final states: max diff {np.abs(out[:, -1] - yg).max():.2g};"
                           f" starts extrapolated {C.counts['extrapolated']}, refused {C.counts['rejected']}")
    table.notes.append("iterations/step: numpy counts batch iterations (the slowest trajectory of the batch), C the"
                       " mean over trajectories; convergence test and tolerance (1e-13, scaled max-norm) the same for"
                       " every start")
    table.notes.append(f"Gauss-4 vs Yoshida-4 final states (both order 4, not equal): max diff {np.abs(yg - yy).max():.2g}")
    table.show()
    return ratios, checks


def main(argv=None):
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--particles", type=int, default=None, help="FPU chain length N (default 100; --quick 15)")
    parser.set_defaults(repeats=3)
    args = parser.parse_args(argv)
    N = args.particles or (15 if args.quick else 100)
    repeats = 1 if args.quick else args.repeats
    info = U.machine_info()
    print("# bench_newton_structure: Newton with the stage Jacobian's sparsity; compiled Newton (issue 21)")
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()))
    with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else open(os.devnull) as fh:
        print(f"# uptime load: {fh.read().strip()}  (2 cores shared with other jobs: times are provisional)")
    print(flush=True)
    steps_numpy = 3 if args.quick else 20
    steps_fast = 200 if args.quick else 2000
    rows, finals = fpu_table(N, steps_numpy, steps_fast, repeats)
    ok = True
    for what, diff in agreement(finals):
        good = diff <= 1e-11
        ok = ok and good
        print(f"[{'PASS' if good else 'FAIL'}] final states agree: {what}: max |diff| = {diff:.2g} (<= 1e-11)")
    c = rows.get("(c) compiled Newton (C, structured)")
    d = rows.get("(d) hand numba Newton, tridiagonal (Thomas)")
    print(U.goal(f"compiled structured Newton, us per step (CPU, N = {N})", None if c is None else c[0][1] * 1e6,
                 GOAL_US, " us")[1])
    print(U.goal("compiled structured Newton / hand numba banded Newton (CPU)", None if c is None or d is None
                 else c[0][1] / d[0][1], GOAL_VS_HAND, " x")[1])
    print(flush=True)
    ratios, checks = gauss_table(500 if args.quick else 10000, 10 if args.quick else 50, repeats)
    for what, diff in checks:
        good = diff <= 1e-13
        ok = ok and good
        print(f"[{'PASS' if good else 'FAIL'}] final states agree: {what}: max |diff| = {diff:.2g} (<= 1e-13)")
    for path, r in ratios.items():
        print(U.goal(f"Gauss-4 / Yoshida-4 CPU time ({path})", r, GOAL_GAUSS, " x")[1])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
