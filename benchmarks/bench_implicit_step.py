"""Benchmark: cost per step of implicit schemes on the linear wave + beam of Komatsu, Terakawa & Yaguchi 2020.

The system is ``geomcheck.structures.wave_beam_system(N)`` with the paper's sizes (N = 100 intervals:
99 interior nodes of the wave and 99 of the beam, 198 degrees of freedom, a phase space of dimension
396; undamped, contact at x1 = x2 = 0.2), seen by the integrators as ``integrators.CoupledNaturalSystem``;
the wave starts at ``exp(-200 (x - 1/2)^2)``, everything else at rest.  Side by side in the same run,
all at the same step ``dt`` (``4e-5 (100/N)^2``: Stormer-Verlet's stability limit ``h w_max < 2`` is
5.0e-5 at N = 100; the paper's dt = 1e-3 is 20 x beyond it, so there the implicit schemes need
20 x fewer steps than Verlet could take):

(a) stormer-verlet     ``integrate`` (the generated numpy kernel on arrays of length 1) -- the baseline
(b) gauss-legendre-4   two-stage Gauss, ``integrate``: the step is linear, so integrate takes the linear
                       implicit path (``integrators.linear_implicit``: A w + B y = 0 read off the symbolic
                       stage equations, A LU-factored once, then one 396 x 396 matrix product per step)
(c) coupled-avf        the paper's scheme (61)/(82) with the AVF gradient (for these quadratic
                       potentials: the midpoint average of the linear forces), ``integrate``, same path
(d) stormer-verlet     ``integrators.linear.propagate`` of ``step_matrix`` (one matrix product per step)
(e) stormer-verlet     ``backend="compiled"`` (C generated from the step map) when a compiler exists

Per step: the step that ``integrate`` runs (the bound kernel, or the bound linear step) called in a
loop on one trajectory, best of the repeats; ``integrate`` end to end is reported beside it, and the
one-time "setup" (the symbolic step map, its lowering or the reading of its linear equations and the
LU factorization) apart.  A second table measures the Newton path (``integrators.lower`` +
``integrators.newton``: dense Jacobian of the stage equations, LAPACK solve per iteration) on a
smaller grid, against Verlet's generated kernel on that grid, to show why the linear path is taken.

Goal (issue 6): the cost per step of (b) and of (c) at most 5 x (a).

Run ``python benchmarks/bench_implicit_step.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import _util as U  # noqa: E402

GOAL_RATIO = 5.0
MATRIX_GOAL_RATIO = 1.5
IMPLICIT = ("gauss-legendre-4", "coupled-avf")


def build(N):
    import integrators as ig
    from geomcheck.structures import wave_beam_system

    system = ig.CoupledNaturalSystem(wave_beam_system(N))
    y0 = np.zeros(system.dim)
    x = np.arange(1, N) / N
    y0[:N - 1] = np.exp(-200 * (x - 0.5) ** 2)          # the wave's positions come first
    return system, y0, 4e-5 * (100 / N) ** 2


best_of = U.best_of


def drift(system, y):
    """max_n |E^n - E^0| / E^0 over the saved states."""
    from integrators.solution import Solution

    # the saved states as a Solution of their own (times are not needed: the energy is autonomous)
    sol = Solution(np.arange(len(y), dtype=float), np.asarray(y), system, None, "numpy", None, 1.0, len(y) - 1, 1, {},
                   np.asarray(y).ndim == 2)
    (E,) = sol.evaluate([system.energy], what="the energy")
    return float(np.abs(E - E[0]).max() / abs(E[0]))


def newton_table(N, steps, repeats):
    """The Newton path vs Verlet's generated kernel on an N-interval grid (BoundStep.step calls)."""
    import integrators as ig
    from integrators.lower import lower

    system, y0, dt = build(N)
    table = U.Table(f"Newton path, wave + beam N = {N} (dim {system.dim}), dt = {dt:.3g}: BoundStep.step calls",
                    ["method", "lowering (s)", "us per step", "vs stormer-verlet"])
    rows = {}
    for name in ("stormer-verlet", *IMPLICIT):
        phi = ig.scheme(name).step_map(system)
        t0 = time.perf_counter()
        L = lower(phi)
        t_lower = time.perf_counter() - t0
        bound = L.bind([dt])
        y = [np.array([v]) for v in y0]

        def run(bound=bound, y=y):
            z = y
            for k in range(steps):
                z = bound.step(z, step_index=k + 1)
            return z

        rows[name] = (t_lower, best_of(run, repeats)[0] / steps, getattr(L, "m", 0))
    base = rows["stormer-verlet"][1]
    for name, (t_lower, t, m) in rows.items():
        label = name if not m else f"{name} (Newton, {m} unknowns, {m * m} Jacobian entries)"
        table.add(label, f"{t_lower:.2f}", f"{t * 1e6:.4g}", U.fmt_ratio(t, base))
    table.notes.append("the implicit steps are linear: Newton converges in one iteration and confirms in a second,"
                       " each evaluating the m x m Jacobian entry by entry in generated code and solving it densely")
    return table, {k: v[1] / base for k, v in rows.items()}


def main(argv=None):
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--intervals", type=int, default=None, help="N of the wave and the beam (default 100)")
    parser.add_argument("--steps", type=int, default=None, help="steps per timed run (default 2000; --quick 100)")
    parser.add_argument("--newton-intervals", type=int, default=None,
                        help="N of the Newton-path table (default 20; --quick 5; 0: skip)")
    parser.set_defaults(repeats=3)
    args = parser.parse_args(argv)
    N = args.intervals or (10 if args.quick else 100)
    steps = args.steps or (100 if args.quick else 2000)
    N_newton = args.newton_intervals if args.newton_intervals is not None else (5 if args.quick else 20)
    repeats = 1 if args.quick else args.repeats
    info = U.machine_info()
    print("# bench_implicit_step: cost per step of implicit schemes vs Stormer-Verlet, wave + beam (Komatsu et al."
          " 2020)", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print(f"# times: wall seconds, best of {repeats}" + ("; --quick: small sizes" if args.quick else ""), flush=True)
    print(flush=True)

    import integrators as ig
    from integrators import compiled
    from integrators.linear import propagate, step_matrix

    t0 = time.perf_counter()
    system, y0, dt = build(N)
    t_build = time.perf_counter() - t0
    from integrators.linear_implicit import linear_implicit_step
    from integrators.lower import lower
    from integrators.systems import STEP_SYMBOL

    def stepper(name):
        """What integrate runs for ``name``: the lowered kernel, or the bound linear implicit step."""
        phi = ig.scheme(name).step_map(system)
        L = linear_implicit_step(phi, [STEP_SYMBOL]) if name in IMPLICIT else lower(phi)
        if L is None:
            raise AssertionError(f"the {name} step of the wave + beam is expected to be linear")
        return L.bind([dt])

    def loop(step):
        def run(n):
            z = [np.array([v]) for v in y0]
            for k in range(n):
                z = step(z, step_index=k + 1)
            return np.array([v[0] for v in z])
        return run

    rows = {}
    for name, label in (("stormer-verlet", "(a) stormer-verlet: generated numpy kernel"),
                        ("gauss-legendre-4", "(b) gauss-legendre-4: linear implicit path"),
                        ("coupled-avf", "(c) coupled-avf: linear implicit path")):
        t0 = time.perf_counter()
        bound = stepper(name)
        setup = time.perf_counter() - t0
        t, _ = best_of(lambda: loop(bound.step)(steps), repeats)
        t_int, y = best_of(lambda: ig.integrate(system, name, y0, dt=dt, steps=steps, save_every=max(steps // 20, 1),
                                                progress=False).y, 1)
        rows[label] = (setup, t / steps, t_int, drift(system, y))
    t0 = time.perf_counter()
    M = step_matrix("stormer-verlet", system, dt)
    setup = time.perf_counter() - t0
    t, y = best_of(lambda: propagate(M, y0, steps, save_every=max(steps // 20, 1)), repeats)
    rows["(d) stormer-verlet: step matrix + propagate"] = (setup, t / steps, None, drift(system, y))
    if compiled.find_compiler() is not None:
        t0 = time.perf_counter()
        C = compiled.compile_step(ig.scheme("stormer-verlet").step_map(system), [STEP_SYMBOL])
        setup = time.perf_counter() - t0
        t, y = best_of(lambda: C.run([dt], y0, steps, max(steps // 20, 1)), repeats)
        rows["(e) stormer-verlet: compiled C loop"] = (setup, t / steps, None, drift(system, y))

    base = rows["(a) stormer-verlet: generated numpy kernel"][1]
    base_d = rows["(d) stormer-verlet: step matrix + propagate"][1]
    table = U.Table(f"Wave + beam, N = {N} (dim {system.dim}: {system.degrees_of_freedom} degrees of freedom),"
                    f" undamped, dt = {dt:.3g}, {steps} steps",
                    ["method", "setup (s)", "us per step", "vs (a)", "vs (d)", f"integrate, {steps} steps (s)",
                     "max |E - E0| / E0"])
    for label, (setup, t, t_int, dE) in rows.items():
        table.add(label, f"{setup:.2f}", f"{t * 1e6:.4g}", U.fmt_ratio(t, base), U.fmt_ratio(t, base_d),
                  "-" if t_int is None else f"{t_int:.3f}", f"{dE:.1e}")
    table.notes.append(f"building the system (the force derived symbolically): {t_build:.2f} s; 'setup': the symbolic"
                       " step map and its lowering (a), reading the linear equations off it and LU-factoring A (b, c),"
                       " the step matrix (d), C generation and compilation or a cached library (e)")
    table.notes.append("'us per step': the step that integrate runs, called in a loop on one trajectory (a, b, c), or"
                       " the matrix / C loops (d, e); 'integrate': integrate() end to end (setup cached, per call: the"
                       " checks, binding -- the LU factorization for b, c -- and saving 20 states)")
    table.notes.append("for these quadratic potentials the AVF gradient is the midpoint average of the linear forces,"
                       " so (c) is the paper's scheme with the derived contact force f^{n+1/2}")
    table.notes.append(f"(b), (c) and (d) are one {system.dim} x {system.dim} matrix product per step (b, c: one BLAS"
                       " matrix-vector product per trajectory, so that the summation order does not depend on the"
                       " batch size); (a) evaluates the generated kernel: numpy operations on arrays of length 1")
    table.notes.append("issue 21's goal for the linear implicit path: within 1.5 x the step-matrix product (d)")
    table.show(markdown=args.markdown)
    labels = {"gauss-legendre-4": "(b) gauss-legendre-4: linear implicit path",
              "coupled-avf": "(c) coupled-avf: linear implicit path"}

    ok = True
    for name in IMPLICIT:
        verdict, line = U.goal(f"{name} cost per step / stormer-verlet's (the steps integrate runs, dim {system.dim})",
                               rows[labels[name]][1] / base, GOAL_RATIO, " x")
        print(line)
        ok = ok and (verdict == "PASS" or args.quick)
    for name in IMPLICIT:
        # issue 21: an implicit scheme on a linear system is one matrix product per step
        verdict, line = U.goal(f"{name} per step / the step-matrix product (d)", rows[labels[name]][1] / base_d,
                               MATRIX_GOAL_RATIO, " x")
        print(line)
    conserved = all(rows[labels[k]][3] < 1e-10 for k in IMPLICIT)
    print(f"[{'PASS' if conserved else 'FAIL'}] the implicit schemes conserve the energy to 1e-10 over the run")
    ok = ok and conserved
    if N_newton:
        print(flush=True)
        t2, ratios = newton_table(N_newton, max(10, steps // 20), repeats)
        t2.show(markdown=args.markdown)
        for name in IMPLICIT:
            print(f"[info] Newton path at N = {N_newton}: {name} per step / stormer-verlet's: {ratios[name]:.1f} x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
