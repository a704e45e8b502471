"""Benchmark: ensemble throughput of the lowered Stormer-Verlet step (Henon-Heiles).

    H = (px^2 + py^2)/2 + (x^2 + y^2)/2 + x^2 y - y^3/3

10^5 trajectories (--quick: 10^4) from random points of small energy, stepped with
dt = 0.01.  Side by side in the same run:

(a) lowered   the scheme's symbolic step map (the one certified) lowered to numpy by
              ``integrators.lower`` and called in a loop (``BoundStep.step``, the loop of
              ``integrate`` without saving)
(b) integrate ``integrators.integrate(..., save_every=steps)`` end to end (checks, lowering,
              code generation, the loop, saving)
(c) hand      a hand-written numpy Stormer-Verlet on four contiguous coordinate arrays,
              the force evaluated twice per step as in the textbook formula
(d) hand-fsal the same with the force of the last half kick reused as the first of the next
              step (one force evaluation per step; a stronger baseline)

Throughput is trajectory-steps per second (batch x steps / wall time), best of
``--repeats`` (default 5), the four cells run round-robin after a warm-up round.  Goal (issue 6): (a) at least 0.8 x (c).  The final states of (a), (b), (c)
and (d) are compared (they must agree to 1e-12).

``--ref PATH`` measures the run-side overhead of ``integrate()`` against another checkout (e.g. the
code before a change): cells (a), (b), (c) on 10^5 x 200 and on 1 x 20000 (one trajectory: the
per-step cost of the run loop shows), in fresh processes, this checkout and PATH alternately,
``--rounds`` times (default 3).  The overhead is (b) / (a) in each process; goal (issue 17): its
mean within 5 % of PATH's.

Run ``python benchmarks/bench_integrators.py --help`` for the options.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import _util as U  # noqa: E402

GOAL_RATIO = 0.8


def henon_heiles():
    import sympy as sp

    import integrators as ig

    x, y, px, py = sp.symbols("x y p_x p_y")
    H = (px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3
    return ig.HamiltonianSystem(H, [x, y], [px, py])


def initial_states(batch, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.25, 0.25, size=(batch, 4))


def hand_verlet(Y, h, steps):
    """Textbook velocity Verlet, hand-written: two force evaluations per step."""
    x, y, px, py = (np.ascontiguousarray(Y[:, i]) for i in range(4))
    hh = 0.5 * h
    for _ in range(steps):
        fx = -x - 2.0 * x * y
        fy = -y - x * x + y * y
        px = px + hh * fx
        py = py + hh * fy
        x = x + h * px
        y = y + h * py
        fx = -x - 2.0 * x * y
        fy = -y - x * x + y * y
        px = px + hh * fx
        py = py + hh * fy
    return np.stack([x, y, px, py], axis=1)


def hand_verlet_fsal(Y, h, steps):
    """Velocity Verlet reusing the last force (one force evaluation per step), in place."""
    x, y, px, py = (np.array(Y[:, i]) for i in range(4))
    hh = 0.5 * h
    fx = -x - 2.0 * x * y
    fy = -y - x * x + y * y
    tmp = np.empty_like(x)
    for _ in range(steps):
        px += hh * fx
        py += hh * fy
        x += h * px
        y += h * py
        np.multiply(x, y, out=tmp)
        tmp *= 2.0
        tmp += x
        np.negative(tmp, out=fx)
        np.multiply(y, y, out=tmp)
        tmp -= y
        tmp -= x * x
        fy[...] = tmp
        px += hh * fx
        py += hh * fy
    return np.stack([x, y, px, py], axis=1)


def lowered_loop(bound, Y, steps):
    comps = [np.ascontiguousarray(Y[:, i]) for i in range(Y.shape[1])]
    for _ in range(steps):
        comps = bound.step(comps)
    return np.stack(comps, axis=1)


def explicit_cells(system, scheme, bound, Y, dt, steps):
    """The cells (a)-(d) of the first table: ``name -> function() -> final states``."""
    import integrators as ig

    return {
        "lowered step (a)": lambda: lowered_loop(bound, Y, steps),
        "integrate() (b)": lambda: ig.integrate(system, scheme, Y, dt=dt, steps=steps, save_every=steps).y[-1],
        "hand-written numpy (c)": lambda: hand_verlet(Y, dt, steps),
        "hand-written, force reused (d)": lambda: hand_verlet_fsal(Y, dt, steps),
    }


def race(cells, repeats):
    """Best time of each cell, the cells run round-robin (after one warm-up round) so that
    a burst of load from other processes hits all of them alike."""
    for fn in cells.values():
        fn()
    times = {name: [] for name in cells}
    outs = {}
    for _ in range(repeats):
        for name, fn in cells.items():
            t0 = time.perf_counter()
            outs[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {name: (min(times[name]), outs[name]) for name in cells}


#: (batch, steps) of the overhead comparison with --ref: an ensemble, and one trajectory (--quick: smaller)
OVERHEAD_CASES = ((100_000, 200), (1, 20_000))
OVERHEAD_CASES_QUICK = ((10_000, 50), (1, 2_000))
#: goal with --ref: the mean overhead (b)/(a) at most this much above the other checkout's
OVERHEAD_GOAL = 0.05


def _overhead_child(root, repeats, cases):
    """Runs in a fresh process with ``root``'s packages: best times of (a), (b), (c), as JSON on stdout."""
    sys.path.insert(0, root)
    import sympy as sp

    import integrators as ig
    from integrators.lower import lower

    if not os.path.abspath(ig.__file__).startswith(os.path.abspath(root)):
        raise SystemExit(f"integrators came from {ig.__file__}, not from {root}")
    system = henon_heiles()
    scheme = ig.scheme("stormer-verlet")
    bound = lower(scheme.step_map(system)).bind({sp.Symbol("h"): 0.01})
    out = {}
    for batch, steps in cases:
        cells = explicit_cells(system, scheme, bound, initial_states(batch), 0.01, steps)
        chosen = {name[-2]: cells[name] for name in list(cells)[:3]}       # (a), (b), (c) as "a", "b", "c"
        out[f"{batch}x{steps}"] = {name: t for name, (t, _) in race(chosen, repeats).items()}
    print(json.dumps(out))


def _overhead_cell(root, repeats, cases):
    run = subprocess.run([sys.executable, os.path.abspath(__file__), "--overhead-child", root, str(repeats),
                          json.dumps(cases)],
                         capture_output=True, text=True, timeout=1800, check=False)
    if run.returncode != 0:
        raise SystemExit(f"the overhead cell of {root} failed: {(run.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def overhead_against(ref, rounds, repeats, markdown, cases=OVERHEAD_CASES):
    """The --ref table: integrate()'s overhead here and in the checkout ``ref``, alternately."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    runs = {"this": [], "ref": []}
    for _ in range(rounds):
        for name, root in (("ref", os.path.abspath(ref)), ("this", here)):
            runs[name].append(_overhead_cell(root, repeats, cases))
    table = U.Table(f"integrate() overhead: this checkout against {ref} (fresh processes, alternately, "
                    f"{rounds} rounds, best of {repeats} each)",
                    ["case", "checkout", "(a) lowered s", "(b) integrate() s", "(c) hand s", "(b)/(a) per round",
                     "mean (b)/(a)", "mean (b)/(c)"])
    worst = 0.0
    for batch, steps in cases:
        key = f"{batch}x{steps}"
        means = {}
        for name in ("ref", "this"):
            cells = [r[key] for r in runs[name]]
            ratios = [c["b"] / c["a"] for c in cells]
            means[name] = sum(ratios) / len(ratios)
            table.add(key, name, " ".join(f"{c['a']:.3f}" for c in cells), " ".join(f"{c['b']:.3f}" for c in cells),
                      " ".join(f"{c['c']:.3f}" for c in cells), " ".join(f"{x:.3f}" for x in ratios),
                      f"{means[name]:.3f}", f"{sum(c['b'] / c['c'] for c in cells) / len(cells):.3f}")
        change = means["this"] / means["ref"] - 1
        worst = max(worst, change)
        table.notes.append(f"{key}: mean overhead (b)/(a) {100 * change:+.1f} % against the other checkout")
    table.show(markdown=markdown)
    verdict = "PASS" if worst <= OVERHEAD_GOAL else "MISS"
    print(f"[{verdict}] integrate() overhead against {ref}: at most {100 * worst:+.1f} %, goal <= "
          f"{100 * OVERHEAD_GOAL:.0f} %")
    return 0 if verdict == "PASS" else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--overhead-child"]:
        _overhead_child(argv[1], int(argv[2]), json.loads(argv[3]))
        return 0
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=None, help="trajectories (default 10^5; --quick 10^4)")
    parser.add_argument("--steps", type=int, default=None, help="steps per run (default 200; --quick 50)")
    parser.add_argument("--scheme", default="stormer-verlet", help="catalog scheme for (a)/(b) (default stormer-verlet)")
    parser.add_argument("--ref", default=None, metavar="PATH",
                        help="another checkout: integrate()'s overhead here against there (before/after a change)")
    parser.add_argument("--rounds", type=int, default=3, help="with --ref: alternating rounds (default 3)")
    parser.set_defaults(repeats=5)
    args = parser.parse_args(argv)
    if args.ref:
        return overhead_against(args.ref, args.rounds, args.repeats, args.markdown,
                                OVERHEAD_CASES_QUICK if args.quick else OVERHEAD_CASES)
    batch = args.batch or (10_000 if args.quick else 100_000)
    steps = args.steps or (50 if args.quick else 200)
    dt = 0.01
    info = U.machine_info()
    print("# bench_integrators: ensemble throughput, Henon-Heiles, Stormer-Verlet", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print(f"# times: wall seconds, best of {args.repeats} (cells round-robin after a warm-up round)"
          + ("; --quick: small sizes" if args.quick else ""), flush=True)
    print(flush=True)

    import sympy as sp

    import integrators as ig
    from integrators.lower import lower

    system = henon_heiles()
    scheme = ig.scheme(args.scheme)
    t0 = time.perf_counter()
    phi = scheme.step_map(system)
    L = lower(phi)
    bound = L.bind({sp.Symbol("h"): dt})
    setup = time.perf_counter() - t0
    Y = initial_states(batch)
    cells = explicit_cells(system, scheme, bound, Y, dt, steps)
    results = race(cells, args.repeats)
    rows = [(name, t, yv) for name, (t, yv) in results.items()]
    t_low = results["lowered step (a)"][0]
    t_hand, y_hand = results["hand-written numpy (c)"]

    table = U.Table(f"Henon-Heiles, {args.scheme}, {batch} trajectories x {steps} steps, dt = {dt}",
                    ["method", "seconds", "trajectory-steps/s", "vs hand (c)", "max |y - y_(c)|"])
    for name, t, yv in rows:
        table.add(name, U.fmt_s(t), f"{batch * steps / t:.3g}", f"{t_hand / t:.2f}",
                  f"{np.abs(yv - y_hand).max():.1e}" if args.scheme == "stormer-verlet" else "-")
    table.notes.append(f"symbolic step map + lowering + code generation (once): {setup:.3f} s")
    table.notes.append(f"numpy {np.__version__}; best of {args.repeats}")
    table.show(markdown=args.markdown)
    print("generated kernel:")
    print(L.source)

    # informational: implicit schemes on the same ensemble (batched Newton), cost per step vs (a)
    n_impl = 5 if args.quick else 20
    table2 = U.Table(f"Implicit schemes on the same ensemble ({batch} trajectories x {n_impl} steps, batched Newton,"
                     " tol 1e-13)", ["scheme", "newton", "trajectories", "seconds", "trajectory-steps/s",
                                     "cost per step vs (a)", "max |y - y_full|"])
    per_step_low = t_low / steps
    for name, fraction in (("implicit-midpoint", 1), ("gauss-legendre-4", 1), ("lobatto-iiia-iiib-3", 1),
                           ("gauss-legendre-8", 10)):
        sch = ig.scheme(name)
        Yi = Y[: batch // fraction]
        ig.integrate(system, sch, Y[:10], dt=dt, steps=1)                  # lowering, outside the timing
        cells = {mode: (lambda mode=mode: ig.integrate(system, sch, Yi, dt=dt, steps=n_impl, save_every=n_impl,
                                                         newton=mode).y[-1])
                 for mode in ("full", "simplified", "auto")}
        timing = race(cells, max(1, args.repeats // 2))
        for mode, (t, yv) in timing.items():
            table2.add(name, mode, len(Yi), U.fmt_s(t), f"{len(Yi) * n_impl / t:.3g}",
                       f"{t / n_impl / (per_step_low * len(Yi) / batch):.1f}",
                       f"{np.abs(yv - timing['full'][1]).max():.1e}")
    table2.notes.append("Newton unknowns per trajectory: 4 (midpoint), 8 (Gauss s=2), 8 (Lobatto s=3: the explicit"
                        " stages are eliminated), 16 (Gauss s=4, on a tenth of the ensemble)")
    table2.notes.append("full: a fresh Jacobian every iteration; simplified: one factorization per trajectory, kept"
                        " across steps while the iteration contracts fast; auto: full below 8 unknowns, simplified"
                        " from there on (integrators.newton)")
    table2.show(markdown=args.markdown)

    ratio = t_hand / t_low
    verdict = "PASS" if ratio >= GOAL_RATIO else "MISS"
    print(f"[{verdict}] lowered step throughput vs hand-written numpy Verlet: {ratio:.2f} x, goal >= {GOAL_RATIO}")
    agree = args.scheme != "stormer-verlet" or all(np.abs(yv - y_hand).max() < 1e-12 for _, _, yv in rows)
    if not agree:
        print("[FAIL] the methods' final states differ by more than 1e-12")
    return 0 if (agree and (ratio >= GOAL_RATIO or args.quick)) else 1


if __name__ == "__main__":
    sys.exit(main())
