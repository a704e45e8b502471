"""Benchmark: nonholonomic RATTLE on the knife edge -- orders at 60 digits and constraint drift over 1e5 steps.

Two tables, in one run:

(1) the order at 60 digits (``backend="mpmath", dps=60``) on the free knife edge (m = J = 1) against its
    exact flow (:func:`integrators.systems.nonholonomic.knife_edge_exact_flow`): errors at t = 1 for
    h = 1/8 ... 1/64 and the observed rates of nonholonomic RATTLE (expected 2), Salnikov & Hamdouni's
    discrete Dirac scheme with alpha_d = alpha(q_k) (expected 1) and RATTLE with the discrete constraint
    at q_k (the non-symmetric variant, expected 1).
(2) double precision over ``--steps`` steps (default 1e5; 1e4 with ``--quick``) of h = 0.01 on three
    knife edges: max |A(q) H_p| (the constraint drift; compared with eps * steps), the energy error and the
    position error against the exact flow, with the time; side by side, the same run of the discrete
    Dirac scheme, and as the peer baseline scipy's DOP853 (rtol = atol = 1e-12) on the index-reduced field,
    whose constraint drifts (scipy "not installed" is printed when it is absent).

(3) the certificates of the scheme on the knife edge, with their times: order, symmetry and constraint
    preservation (True), the energy on the constraint manifold (True free, False with a potential), and
    symplecticity on the constraint manifold (False: refuted by a counterexample, as for nonholonomic flows).

``--quick`` (1e4 steps, orders down to h = 1/32, no table 3) runs in under 20 s.  Run from the
repository root or anywhere: the checkout is put on ``sys.path``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def order_table(Ns=(8, 16, 32, 64)):
    import mpmath

    import integrators as ig
    from integrators.schemes.nonholonomic import (
        NonholonomicDiscreteDirac,
        NonholonomicRattle,
        NonholonomicRattleStart,
    )
    from integrators.systems.nonholonomic import knife_edge, knife_edge_exact_flow

    s = knife_edge()
    with mpmath.workdps(70):
        f0, r, w = mpmath.mpf("0.5"), mpmath.mpf("1.5"), mpmath.mpf("0.75")
        y0 = [mpmath.mpf(0), mpmath.mpf(0), f0, r * mpmath.cos(f0), r * mpmath.sin(f0), w]
        exact = knife_edge_exact_flow(y0, 1, dps=70)
    print("(1) order at 60 digits, free knife edge, errors at t = 1 (max over the 6 coordinates)")
    print(f"    {'scheme':<30}" + "".join(f"{'h = 1/' + str(N):>12}" for N in Ns) + "   rates")
    for sch in (NonholonomicRattle(), NonholonomicDiscreteDirac(), NonholonomicRattleStart()):
        errs = []
        for N in Ns:
            sol = ig.integrate(s, sch, y0, dt=Fraction(1, N), steps=N, save_every=N, backend="mpmath", dps=60)
            errs.append(max(abs(mpmath.mpf(a) - b) for a, b in zip(sol.y[-1], exact)))
        rates = [float(mpmath.log(errs[i] / errs[i + 1], 2)) for i in range(len(errs) - 1)]
        print(f"    {sch.name:<30}" + "".join(f"{float(e):>12.3e}" for e in errs) + "   "
              + ", ".join(f"{q:.3f}" for q in rates) + f"   (declared {sch.order})")


def drift_table(steps, h=0.01):
    import numpy as np

    import integrators as ig
    from integrators.schemes.nonholonomic import (
        NonholonomicDiscreteDirac,
        NonholonomicRattle,
    )
    from integrators.systems.nonholonomic import knife_edge, knife_edge_exact_flow

    s = knife_edge()
    starts = [(0.7, 1.3, 0.9), (-2.0, 0.5, -3.0), (0.1, 2.0, 0.25)]
    Y0 = np.array([[0.0, 0.0, f, r * np.cos(f), r * np.sin(f), w] for f, r, w in starts])
    T = steps * h
    exact = np.array([[float(v) for v in knife_edge_exact_flow(list(row), T, dps=30)] for row in Y0])
    eps = np.finfo(float).eps
    print(f"(2) double precision, {steps} steps of h = {h} (t = {T:g}), 3 knife edges; eps * steps ="
          f" {eps * steps:.1e}")
    print(f"    {'integrator':<30}{'max |A H_p|':>14}{'max |dH|':>12}{'pos. error':>12}{'seconds':>10}")
    c_expr = list(s.hidden_constraints)
    for sch in (NonholonomicRattle(), NonholonomicDiscreteDirac()):
        t0 = time.perf_counter()
        sol = ig.integrate(s, sch, Y0, dt=h, steps=steps, save_every=max(1, steps // 100), progress=False)
        sec = time.perf_counter() - t0
        c = np.abs(sol.evaluate(c_expr)[0]).max()
        dE = np.abs(sol.energy() - sol.energy()[0]).max()
        pos = np.abs(sol.y[-1][:, :3] - exact[:, :3]).max()
        print(f"    {sch.name:<30}{c:>14.2e}{dE:>12.2e}{pos:>12.2e}{sec:>10.2f}")
    try:
        from scipy.integrate import solve_ivp
    except ImportError:
        print(f"    {'scipy DOP853':<30}  not installed")
        return
    import sympy

    f = sympy.lambdify(list(s.chart.coords), [s.vector_field.component(c) for c in s.chart.coords], modules="numpy")
    cfun = sympy.lambdify(list(s.chart.coords), c_expr[0], modules="numpy")
    Hfun = sympy.lambdify(list(s.chart.coords), s.H, modules="numpy")
    t0 = time.perf_counter()
    worst = [0.0, 0.0, 0.0]
    for row, ex in zip(Y0, exact):
        sol = solve_ivp(lambda t, Y: f(*Y), (0, T), row, method="DOP853", rtol=1e-12, atol=1e-12,
                        t_eval=np.linspace(0, T, 101))
        worst[0] = max(worst[0], np.abs(cfun(*sol.y)).max())
        worst[1] = max(worst[1], np.abs(Hfun(*sol.y) - Hfun(*row)).max())
        worst[2] = max(worst[2], np.abs(sol.y[:3, -1] - ex[:3]).max())
    sec = time.perf_counter() - t0
    print(f"    {'scipy DOP853 (peer, 1e-12)':<30}{worst[0]:>14.2e}{worst[1]:>12.2e}{worst[2]:>12.2e}{sec:>10.2f}")


def certificate_table():
    import sympy

    from integrators.schemes.nonholonomic import (
        NonholonomicRattle,
        NonholonomicRattleStart,
        certify_energy_on_manifold,
    )
    from integrators.schemes.on_manifold import certify_symplectic_on_manifold
    from integrators.systems.nonholonomic import knife_edge

    s = knife_edge()
    x = sympy.Symbol("x")
    pot = knife_edge(potential=x**2 / 2)
    rattle = NonholonomicRattle()
    jobs = [
        ("rattle: order 2 on N", lambda: rattle.certify(s, ["order"])["order"]),
        ("rattle: symmetric on N", lambda: rattle.certify(s, ["symmetric"])["symmetric"]),
        ("rattle: constraint-preserving",
         lambda: rattle.certify(s, ["constraint-preserving"])["constraint-preserving"]),
        ("rattle: energy on N, free", lambda: certify_energy_on_manifold(rattle.step_map(s), s)),
        ("rattle: energy on N, V = x^2/2", lambda: certify_energy_on_manifold(rattle.step_map(pot), pot)),
        ("rattle: symplectic on N", lambda: certify_symplectic_on_manifold(rattle.step_map(s), s.omega,
                                                                           s.manifold()[1])),
        ("start variant: symmetric on N", lambda: NonholonomicRattleStart().certify(s, ["symmetric"])["symmetric"]),
    ]
    print("(3) certificates on the free knife edge (holds, stage, seconds)")
    for label, job in jobs:
        t0 = time.perf_counter()
        c = job()
        print(f"    {label:<34}{c.holds!s:>7}  {c.stage:<16}{time.perf_counter() - t0:6.2f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1e4-step drift, orders up to h = 1/32")
    ap.add_argument("--steps", type=int, default=None, help="drift steps (default 1e5; 1e4 with --quick)")
    args = ap.parse_args(argv)
    steps = args.steps or (10_000 if args.quick else 100_000)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"load average {load[0]:.2f} (2 cores)" if load else "load average unknown")
    t0 = time.perf_counter()
    order_table((8, 16, 32) if args.quick else (8, 16, 32, 64))
    drift_table(steps)
    if args.quick:
        print("(3) certificates: skipped with --quick")
    else:
        certificate_table()
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
