"""Benchmark: higher-order constrained integrators (Lobatto IIIA-IIIB SPARK) against RATTLE.

Three tables, in one run:

(1) cost per step on an n-link chain in Cartesian coordinates (n = 10: 20 positions, 10 rod constraints,
    unit masses and rods, gravity), through ``ig.integrate`` (numpy, one trajectory), RATTLE against
    SPARK-3 (order 4) and SPARK-4 (order 6); the one-time setup (symbolic step, lowering: Jacobian and
    code generation) is reported apart.  Goal (issue 20): SPARK-4 step at most 10 x a RATTLE step.
(2) the order at 60 digits (mpmath backend) on the pendulum against the exact flow (the angle ODE
    ``theta'' = -sin(theta)`` solved by Jacobi elliptic functions): errors at t = 1 and the observed rates.
(3) constraint drift ``max |g|`` and ``max |G H_p|`` and the energy error over ``--steps`` steps (default
    1e5) for the pendulum and the double pendulum in Cartesian coordinates.

``--quick``: a smoke run in under 20 s (a 2-link chain, 20 steps; the orders from h = 1/4 and 1/8; a
100-step pendulum drift), for tests/benchmarks.  ``--only certificates``: (4) the catalog's certificates
(:func:`certificate_table`; also part of a full run).  Run from the repository root
or anywhere: the checkout is put on ``sys.path``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GOAL_RATIO = 10.0


def chain(n):
    import sympy as sp
    import integrators as ig

    xs, ys = sp.symbols(f"x1:{n + 1}"), sp.symbols(f"y1:{n + 1}")
    q = [v for pair in zip(xs, ys) for v in pair]
    p = sp.symbols(f"p1:{2 * n + 1}")
    g = [xs[0]**2 + ys[0]**2 - 1] + [(xs[i] - xs[i - 1])**2 + (ys[i] - ys[i - 1])**2 - 1 for i in range(1, n)]
    return ig.ConstrainedHamiltonianSystem(sum(v**2 for v in p) / 2 + sum(ys), q, p, g)


def chain_state(n):
    """Rods at angles 0.3 + 0.1 i turning at 0.5 - 0.05 i rad/s: a state on the manifold."""
    X = Y = VX = VY = 0.0
    q, p = [], []
    for i in range(n):
        t, w = 0.3 + 0.1 * i, 0.5 - 0.05 * i
        X, Y = X + math.sin(t), Y - math.cos(t)
        VX, VY = VX + w * math.cos(t), VY + w * math.sin(t)
        q += [X, Y]
        p += [VX, VY]
    return q + p


def double_pendulum():
    import sympy as sp
    import integrators as ig

    x1, y1, x2, y2 = sp.symbols("x1 y1 x2 y2")
    p = sp.symbols("p1 p2 p3 p4")
    g = [x1**2 + y1**2 - 1, (x2 - x1)**2 + (y2 - y1)**2 - 1]
    return ig.ConstrainedHamiltonianSystem(sum(v**2 for v in p) / 2 + y1 + y2, [x1, y1, x2, y2], p, g)


_SCHEMES = {}


def scheme_of(name):
    """One instance per name: a scheme caches its step map per system (and integrate the lowering of it)."""
    import integrators as ig
    from integrators.schemes.spark import SparkLobatto

    if name not in _SCHEMES:
        _SCHEMES[name] = SparkLobatto(int(name.rsplit("-", 1)[1])) if name.startswith("spark") else ig.scheme(name)
    return _SCHEMES[name]


def chain_table(n, steps, tol):
    import integrators as ig

    s = chain(n)
    y0 = chain_state(n)
    rows = []
    for name in ("rattle", "spark-lobatto-3", "spark-lobatto-4"):
        sch = scheme_of(name)
        t = time.perf_counter()
        try:
            ig.integrate(s, sch, y0, dt=0.01, steps=1, tol=tol)
            setup = time.perf_counter() - t
            best = float("inf")
            for _ in range(2):
                t = time.perf_counter()
                sol = ig.integrate(s, sch, y0, dt=0.01, steps=steps, save_every=steps, tol=tol)
                best = min(best, time.perf_counter() - t)
            g, c = sol.constraint_drift()
            iters = getattr(sol, "newton", None)
            rows.append((name, setup, 1000 * best / steps, g.max(), c.max(), len(sch.step_map(s).auxiliary), iters))
        except Exception as exc:                                      # reported in the table, not hidden
            rows.append((name, time.perf_counter() - t, None, None, None, None, f"{type(exc).__name__}: {exc}"[:160]))
    print(f"\n(1) {n}-link chain (dim {4 * n}, {n} constraints), dt = 0.01, {steps} steps, Newton tol {tol}")
    print(f"{'scheme':18s} {'setup s':>9s} {'ms/step':>9s} {'x rattle':>9s} {'max|g|':>9s} {'max|Gv|':>9s}"
          f" {'unknowns':>9s}")
    base = rows[0][2]
    for name, setup, ms, g, c, m, extra in rows:
        if ms is None:
            print(f"{name:18s} {setup:9.1f}   failed: {extra}")
            continue
        ratio = ms / base if base else float("nan")
        print(f"{name:18s} {setup:9.1f} {ms:9.3f} {ratio:9.2f} {g:9.1e} {c:9.1e} {m:9d}")
    spark6 = [r for r in rows if r[0] == "spark-lobatto-4"][0]
    if spark6[2] is not None and base:
        ratio = spark6[2] / base
        print(f"goal: SPARK-4 (order 6) step <= {GOAL_RATIO:g} x RATTLE step: {ratio:.2f} x ->"
              f" {'PASS' if ratio <= GOAL_RATIO else 'MISS'}")
    else:
        print("goal: SPARK-4 (order 6) step <= 10 x RATTLE step: MISS (no SPARK-4 run)")


def order_table(Ns=(8, 16, 32)):
    import mpmath
    import integrators as ig
    from integrators.systems import planar_pendulum

    s = planar_pendulum()
    y0 = ["0", "-1", "1.5", "0"]
    # the exact flow in closed form: theta(0) = 0, theta'(0) = 2k, sin(theta/2) = k sn(t | k^2), theta' = 2k cn
    with mpmath.workdps(70):
        k = mpmath.mpf(3) / 4
        sn, cn, dn = (mpmath.ellipfun(f, 1, m=k**2) for f in ("sn", "cn", "dn"))
        c, si = 1 - 2 * k**2 * sn**2, 2 * k * sn * dn
        ref = [si, -c, 2 * k * cn * c, 2 * k * cn * si]
    print("\n(2) order at 60 digits: pendulum, error at t = 1 against the exact flow (Jacobi elliptic functions)")
    print(f"{'scheme':18s} " + " ".join(f"{'h = 1/' + str(N):>10s}" for N in Ns) + f" {'rates':>16s}")
    for name in ("rattle", "spark-lobatto-3", "spark-lobatto-4"):
        errs = []
        for N in Ns:
            sol = ig.integrate(s, scheme_of(name), y0, dt=Fraction(1, N), steps=N, save_every=N, backend="mpmath",
                               dps=60)
            errs.append(max(abs(mpmath.mpf(a) - b) for a, b in zip(sol.y[-1], ref)))
        rates = [float(mpmath.log(errs[i] / errs[i + 1], 2)) for i in range(len(Ns) - 1)]
        print(f"{name:18s} " + " ".join(f"{float(e):10.3e}" for e in errs) + "   " + ", ".join(f"{r:.3f}" for r in rates))


def drift_table(steps, systems=("pendulum", "double pendulum")):
    import numpy as np
    import integrators as ig
    from integrators.systems import planar_pendulum

    cases = [("pendulum", planar_pendulum(), [0.0, -1.0, 1.5, 0.0], 0.05),
             ("double pendulum", double_pendulum(), [0.6, -0.8, 1.4, -0.2, 0.8, 0.6, 0.8, 0.6], 0.02)]
    print(f"\n(3) drift over {steps} steps")
    print(f"{'system':16s} {'scheme':16s} {'dt':>5s} {'max|g|':>9s} {'max|G v|':>9s} {'max|dE|':>9s} {'s':>7s}")
    for label, s, y0, dt in cases:
        if label not in systems:
            continue
        for name in ("rattle", "spark-lobatto-3", "spark-lobatto-4"):
            t = time.perf_counter()
            sol = ig.integrate(s, scheme_of(name), y0, dt=dt, steps=steps, save_every=max(1, steps // 100))
            g, c = sol.constraint_drift()
            dE = np.abs(sol.energy() - sol.energy()[0]).max()
            print(f"{label:16s} {name:16s} {dt:5.2f} {g.max():9.1e} {c.max():9.1e} {dE:9.1e}"
                  f" {time.perf_counter() - t:7.1f}", flush=True)


def certificate_table(names=("rattle", "spark-lobatto-3", "spark-lobatto-4")):
    """What the catalog test does for each entry: ``scheme.certify(GENERIC, properties=[prop])[prop]`` per property.

    GENERIC is the pendulum with ``V(x, y)`` undefined and the length a symbol
    (``tests/integrators/ig_cases_constrained.py``, which the catalog's ``generic_for`` picks for the
    requirement "constrained"); one scheme instance per entry, properties in the catalog test's order
    (order, then the declared properties sorted), each certificate with its default budget (10 s).
    Wall and CPU seconds: on a loaded machine the CPU figure is what an idle machine's wall time would be.
    """
    tests = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "integrators")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    from ig_cases_constrained import GENERIC
    from integrators.schemes.spark import SparkLobatto
    import integrators as ig

    print(f"\n(4) catalog certificates on the generic constrained system (load {os.getloadavg()[0]:.1f} on"
          f" {os.cpu_count()} cores)")
    print(f"{'scheme':18s} {'property':22s} {'holds':>6s} {'stage':>11s} {'wall s':>7s} {'cpu s':>7s}")
    for name in names:
        sch = SparkLobatto(int(name.rsplit("-", 1)[1])) if name.startswith("spark") else ig.scheme(name)
        for prop in ["order", *sorted(sch.properties)]:
            t, c = time.perf_counter(), time.process_time()
            cert = sch.certify(GENERIC, properties=[prop])[prop]
            print(f"{name:18s} {prop:22s} {str(cert.holds):>6s} {cert.stage:>11s} {time.perf_counter() - t:7.2f}"
                  f" {time.process_time() - c:7.2f}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke run (< 20 s): 2-link chain, 20 steps; orders from h = 1/4, 1/8; 100-step pendulum drift")
    ap.add_argument("--links", type=int, default=None, help="chain length (default 10; 4 with --quick)")
    ap.add_argument("--chain-steps", type=int, default=100)
    ap.add_argument("--steps", type=int, default=None, help="drift steps (default 1e5; 200 with --quick)")
    ap.add_argument("--tol", type=float, default=None, help="Newton tolerance (default: integrate's, 1e-13)")
    ap.add_argument("--only", choices=["chain", "order", "drift", "certificates"], default=None)
    ap.add_argument("--drift-systems", default="pendulum,double pendulum",
                    help="comma-separated: pendulum, double pendulum")
    args = ap.parse_args(argv)
    links = args.links or (2 if args.quick else 10)
    steps = args.steps or (100 if args.quick else 100_000)
    if args.only in (None, "chain"):
        chain_table(links, 20 if args.quick else args.chain_steps, args.tol)
    if args.only in (None, "order"):
        order_table((4, 8) if args.quick else (8, 16, 32))
    if args.only in (None, "drift"):
        drift_table(steps, ("pendulum",) if args.quick else tuple(s.strip() for s in args.drift_systems.split(",")))
    if args.only == "certificates" or (args.only is None and not args.quick):
        certificate_table()


if __name__ == "__main__":
    main()
