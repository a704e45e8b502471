"""Benchmark: Galerkin variational integrators (issue 20, item 3) against the catalog, in one run.

Tables printed:

1. Step time on the pendulum ``L = v^2/2 + cos q`` (numpy backend, one trajectory, ``integrate``
   end to end divided by the number of steps, best of 3; setup = the first call's extra time):
   variational-midpoint, variational-trapezoidal, galerkin-lobatto-3, galerkin-gauss-2 against the
   catalog's stormer-verlet and lobatto-iiia-iiib-3 on ``H = p^2/2 - cos q`` (the same maps: the
   trapezoidal one is Stormer-Verlet, galerkin-lobatto-3 is Lobatto IIIA-IIIB).
2. Kepler (``e = 0.44``, ``dt = 0.05``, 1e4 steps, midpoint and galerkin-lobatto-3): the largest
   drift of the angular momentum ``x p_y - y p_x`` (in units of the rounding unit times |J|) and
   of the energy.
3. Order measured at 50 digits (mpmath backend, dps 50) against ``mpmath.odefun``: global errors
   at T = 1 for dt = 1/8, 1/16, 1/32 and the observed orders log2(e(dt)/e(dt/2)).

Run ``python benchmarks/bench_variational.py`` (about a minute).
"""

from __future__ import annotations

import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import sympy as sp  # noqa: E402


def step_times(steps=4000):
    import integrators as ig
    from integrators.schemes.variational import VariationalScheme
    from integrators.systems.lagrangian import LagrangianSystem

    q, v, p = sp.symbols("q v p")
    lag = LagrangianSystem(v**2 / 2 + sp.cos(q), q, v)
    ham = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    rows = []
    cases = [("variational-midpoint", lag, VariationalScheme("midpoint")),
             ("variational-trapezoidal", lag, VariationalScheme("trapezoidal")),
             ("galerkin-lobatto-3", lag, VariationalScheme(("lobatto", 3))),
             ("galerkin-gauss-2", lag, VariationalScheme(("gauss", 2))),
             ("stormer-verlet (catalog)", ham, "stormer-verlet"),
             ("lobatto-iiia-iiib-3 (catalog)", ham, "lobatto-iiia-iiib-3")]
    for name, system, scheme in cases:
        t0 = time.perf_counter()
        ig.integrate(system, scheme, [[1.0, 0.5]], dt=0.05, steps=1, save_every=1, progress=False)
        first = time.perf_counter() - t0
        best = math.inf
        for _ in range(3):
            t0 = time.perf_counter()
            sol = ig.integrate(system, scheme, [[1.0, 0.5]], dt=0.05, steps=steps, save_every=steps, progress=False)
            best = min(best, time.perf_counter() - t0)
        rows.append((name, first, 1e6 * best / steps, sol.y[-1, 0].tolist()))
    print(f"\nStep time, pendulum, dt = 0.05, {steps} steps (numpy)")
    print(f"{'scheme':32s} {'setup s':>9s} {'us/step':>9s}   final state")
    for name, first, per, last in rows:
        print(f"{name:32s} {first:9.2f} {per:9.1f}   [{last[0]:.15f}, {last[1]:.15f}]")


def kepler(steps=10000):
    import integrators as ig
    from integrators.schemes.variational import VariationalScheme
    from integrators.systems.lagrangian import LagrangianSystem

    x, y, u, w = sp.symbols("x y u w")
    K = LagrangianSystem((u**2 + w**2) / 2 + 1 / sp.sqrt(x**2 + y**2), [x, y], [u, w])
    print(f"\nKepler, y0 = (1, 0, 0, 1.2), dt = 0.05, {steps} steps (numpy)")
    print(f"{'scheme':24s} {'time s':>8s} {'max|dJ|/(eps|J|)':>18s} {'max|dE|/|E|':>12s}")
    for quad in ["midpoint", ("lobatto", 3)]:
        s = VariationalScheme(quad)
        t0 = time.perf_counter()
        sol = ig.integrate(K, s, [[1.0, 0.0, 0.0, 1.2]], dt=0.05, steps=steps, save_every=10, progress=False)
        t = time.perf_counter() - t0
        Y = sol.y[:, 0, :]
        J = Y[:, 0] * Y[:, 3] - Y[:, 1] * Y[:, 2]
        E = sol.energy()[:, 0]
        print(f"{s.name:24s} {t:8.2f} {np.abs(J - J[0]).max() / (np.finfo(float).eps * abs(J[0])):18.1f}"
              f" {np.abs(E - E[0]).max() / abs(E[0]):12.2e}")


def orders(dps=50):
    import integrators as ig
    from integrators.schemes.variational import VariationalScheme
    from integrators.systems.lagrangian import LagrangianSystem

    q, v = sp.symbols("q v")
    lag = LagrangianSystem(v**2 / 2 + sp.cos(q), q, v)
    y0 = [1.0, 0.5]
    with mpmath.workdps(dps + 10):
        exact = mpmath.odefun(lambda s, y: [y[1], -mpmath.sin(y[0])], 0, [mpmath.mpf(c) for c in y0])(1)
    print(f"\nOrder at {dps} digits, pendulum, T = 1 (mpmath backend; reference mpmath.odefun)")
    print(f"{'scheme':24s} {'declared':>8s} {'e(1/8)':>10s} {'e(1/16)':>10s} {'e(1/32)':>10s} {'observed':>18s}")
    for quad in ["midpoint", "trapezoidal", ("lobatto", 3), ("gauss", 2)]:
        s = VariationalScheme(quad)
        errs = []
        for n in (8, 16, 32):
            sol = ig.integrate(lag, s, [y0], dt=sp.Rational(1, n), steps=n, save_every=n, backend="mpmath", dps=dps,
                               progress=False)
            errs.append(max(abs(sol.y[-1, 0][i] - exact[i]) for i in range(2)))
        obs = [float(mpmath.log(errs[i] / errs[i + 1], 2)) for i in range(2)]
        print(f"{s.name:24s} {s.order:8d} " + " ".join(f"{float(e):10.2e}" for e in errs)
              + f"   {obs[0]:7.3f} {obs[1]:7.3f}")


if __name__ == "__main__":
    step_times()
    kepler()
    orders()
