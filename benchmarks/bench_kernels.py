"""Benchmark: a hand-written stencil vs the generated numpy step, on an ensemble of the coupled beam.

The system is the beam + two-mass spring of Terakawa & Yaguchi (Section 6;
``geomcheck.structures.beam_two_mass``, N_x = 51, n_b = 10: 104 coordinates) seen by the
integrators as ``ForcedHamiltonianSystem.from_coupled``.  The stencil
``integrators.stencils.beam_two_mass_stencil`` (fourth differences on slices, ghost nodes at the
simply supported ends) is attached with ``integrators.with_kernel`` -- which holds it against the
lowered symbolic vector field at random points first -- and run with ``integrate(...,
use_kernel=True)``.  Side by side in the same run, for each scheme and ensemble size:

(a) generated  ``integrate(system, scheme, Y0)``: the scheme's symbolic step lowered to numpy
               (one array of length ``batch`` per coordinate)
(b) stencil    ``integrate(fast, scheme, Y0, use_kernel=True)``: the scheme's own step map, built
               on a generic field and lowered with each vector-field component a call of the
               stencil, all components at one point one call (``integrators.kernels.kernel_step``)

The final states of (a) and (b) are compared (relative to max |y|); "calls per step" is the number of
stencil calls in one step of (b), read from the generated step.  Initial states: the paper's
(q_2 = -1) plus small random perturbations of every coordinate, dt = 4e-4 (yoshida-4 is
linearly unstable beyond 4.98e-4 here).

Run ``python benchmarks/bench_kernels.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import _util as U  # noqa: E402

DT = 4e-4    # below the linear stability limit of yoshida-4 (4.98e-4) on this system
SCHEMES = ("stormer-verlet", "rk4", "yoshida-4")


best_of = U.best_of


def main(argv=None):
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=None, help="steps per run (default 200; --quick 20)")
    parser.add_argument("--batches", type=U.int_list, default=None,
                        help="ensemble sizes, comma separated (default 1,100,1000; --quick 1,50)")
    args = parser.parse_args(argv)
    steps = args.steps or (20 if args.quick else 200)
    batches = args.batches or ([1, 50] if args.quick else [1, 100, 1000])
    repeats = 1 if args.quick else args.repeats
    info = U.machine_info()
    print("# bench_kernels: beam stencil (with_kernel, use_kernel=True) vs the generated numpy step", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print(f"# times: wall seconds, best of {repeats}" + ("; --quick: small sizes" if args.quick else ""), flush=True)
    print(flush=True)

    import integrators as ig
    from geomcheck.structures import beam_two_mass
    from integrators.forced import ForcedHamiltonianSystem
    from integrators.kernels import kernel_step
    from integrators.stencils import beam_two_mass_stencil

    model = beam_two_mass()
    system = ForcedHamiltonianSystem.from_coupled(model.system)
    t0 = time.perf_counter()
    fast = ig.with_kernel(system, beam_two_mass_stencil(model))
    t_check = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    base = np.zeros(system.dim)
    base[system.chart.index(model.q[1])] = -1.0

    table = U.Table(f"Coupled beam (dim {system.dim}), dt = {DT:g}, {steps} steps per run",
                    ["scheme", "batch", "(a) generated", "(b) stencil", "speed-up (a)/(b)",
                     "us per trajectory-step (b)", "calls per step (b)", "max |y_a - y_b| / max |y|"])
    worst = 0.0
    for name in SCHEMES:
        # build and lower once outside the timing (cached by the scheme and the lowering)
        ig.integrate(system, name, base, dt=DT, steps=1, progress=False)
        ig.integrate(fast, name, base, dt=DT, steps=1, progress=False, use_kernel=True)
        calls = sum(len(L.points) for L in kernel_step(name, fast).lowered)
        for batch in batches:
            Y0 = base + 1e-3 * rng.standard_normal((batch, system.dim))
            run_a = lambda: ig.integrate(system, name, Y0, dt=DT, steps=steps, save_every=steps,  # noqa: E731
                                         progress=False).y
            run_b = lambda: ig.integrate(fast, name, Y0, dt=DT, steps=steps, save_every=steps,  # noqa: E731
                                         progress=False, use_kernel=True).y
            t_a, y_a = best_of(run_a, repeats)
            t_b, y_b = best_of(run_b, repeats)
            dev = float(np.abs(y_a - y_b).max() / np.abs(y_a).max())
            worst = max(worst, dev)
            table.add(name, batch, U.fmt_s(t_a), U.fmt_s(t_b), U.fmt_ratio(t_a, t_b),
                      f"{t_b / (steps * batch) * 1e6:.3g}", calls, f"{dev:.1e}")
    table.notes.append(f"with_kernel (the stencil held against the lowered symbolic field at 8 random points):"
                       f" {t_check:.2f} s, once; the report: {fast.kernel.report!r}")
    table.notes.append("both columns are integrate() end to end (its input checks and the stability check at y0"
                       " included); the symbolic step map and its lowering are built before the timing")
    table.show(markdown=args.markdown)
    agree = worst <= 1e-10
    print(f"[{'PASS' if agree else 'FAIL'}] stencil runs equal the generated runs (max relative deviation"
          f" {worst:.1e} <= 1e-10 after {steps} steps)")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
