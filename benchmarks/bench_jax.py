"""Benchmark: the certified step on JAX (``integrate(..., backend="jax")``) against the numpy path and diffrax.

Henon-Heiles ensembles (10^4 and 10^5 trajectories; --quick: 10^4 only, fewer steps),
Stormer-Verlet with dt = 0.01, only the final state saved:

* numpy   ``integrate(..., backend="numpy")``: the lowered step on whole arrays, one Python
          iteration per step;
* C       ``integrate(..., backend="compiled")``: the same step map as C, one trajectory after
          the other;
* jax     ``integrate(..., backend="jax")``: the same step map jitted, vmapped, the steps in a
          ``lax.fori_loop``; the first call includes tracing and XLA compilation, the second
          reuses the compilation (``cold`` / ``warm``);
* diffrax (a peer, not a dependency) on the same ensemble: ``SemiImplicitEuler`` (symplectic
          Euler, first order) at the same dt, and ``Tsit5`` with a PID step-size controller at
          the loosest of the tolerances 1e-3 ... 1e-10 whose error matches Verlet's: the
          largest final-state error over 20 trajectories, against an independent reference
          (scipy ``solve_ivp`` DOP853 with rtol = atol = 1e-12), at most Verlet's.

Every row also prints that error.  The device JAX ran on and the machine's load are printed:
on a loaded machine the ratios within one run are what counts.  A peer that is not installed
prints "not installed".
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _util import Table, base_parser  # noqa: E402

DT = 0.01
CHECKED = 20      # trajectories whose final states are checked against the reference


def henon_heiles_field(state):
    """The Henon-Heiles vector field on an array ``(..., 4)`` (x, y, px, py), written out here."""
    import numpy as np

    x, y, px, py = state[..., 0], state[..., 1], state[..., 2], state[..., 3]
    return np.stack([px, py, -x - 2 * x * y, -y - x * x + y * y], axis=-1)


def reference(y0, t_end):
    """Final states by scipy's DOP853 at rtol = atol = 1e-12 (independent of geomcheck)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    return np.array([solve_ivp(lambda t, s: henon_heiles_field(s), (0.0, t_end), row, method="DOP853",
                               rtol=1e-12, atol=1e-12).y[:, -1] for row in y0])


def timed(fn):
    t = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t


def diffrax_rows(y0, steps, verlet_error, exact, table, n):
    """Rows for diffrax's SemiImplicitEuler (dt) and Tsit5 (tolerance matched to Verlet's error)."""
    try:
        import diffrax
        import jax
        import jax.numpy as jnp
    except ImportError:
        table.add(f"{n:.0e}", "diffrax", "not installed", "-", "-", "-", "-")
        return
    t_end = steps * DT
    with jax.enable_x64(True):
        def field(t, s, args):
            x, y, px, py = s[0], s[1], s[2], s[3]
            return jnp.stack([px, py, -x - 2 * x * y, -y - x * x + y * y])

        def q_dot(t, p, args):
            return p

        def p_dot(t, q, args):
            return jnp.stack([-q[0] - 2 * q[0] * q[1], -q[1] - q[0] * q[0] + q[1] * q[1]])

        @jax.jit
        def euler(Y):
            def one(s):
                terms = (diffrax.ODETerm(q_dot), diffrax.ODETerm(p_dot))
                sol = diffrax.diffeqsolve(terms, diffrax.SemiImplicitEuler(), 0.0, t_end, DT, (s[:2], s[2:]),
                                          saveat=diffrax.SaveAt(t1=True), max_steps=steps + 1)
                return jnp.concatenate([sol.ys[0][-1], sol.ys[1][-1]])
            return jax.vmap(one)(Y)

        @jax.jit
        def tsit5(Y, tol):
            def one(s):
                sol = diffrax.diffeqsolve(diffrax.ODETerm(field), diffrax.Tsit5(), 0.0, t_end, DT, s,
                                          stepsize_controller=diffrax.PIDController(rtol=tol, atol=tol),
                                          saveat=diffrax.SaveAt(t1=True), max_steps=100 * steps + 100)
                return sol.ys[-1], sol.stats["num_accepted_steps"]
            return jax.vmap(one)(Y)

        Y = jnp.asarray(y0)
        out, cold = timed(lambda: euler(Y).block_until_ready())
        _, warm = timed(lambda: euler(Y).block_until_ready())
        err = float(abs(jax.device_get(out)[:CHECKED] - exact).max())
        table.add(f"{n:.0e}", "diffrax SemiImplicitEuler", f"dt = {DT}", f"{cold:.2f}", f"{warm:.3f}", f"{err:.1e}", "")
        chosen = None
        for tol in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10):
            ys, accepted = tsit5(Y[:CHECKED], jnp.float64(tol))
            err = float(abs(jax.device_get(ys) - exact).max())
            if err <= verlet_error:
                chosen = tol
                break
        if chosen is None:
            table.add(f"{n:.0e}", "diffrax Tsit5", "no tolerance matched", "-", "-", "-", "")
            return
        (ys, accepted), cold = timed(lambda: jax.block_until_ready(tsit5(Y, jnp.float64(chosen))))
        _, warm = timed(lambda: jax.block_until_ready(tsit5(Y, jnp.float64(chosen))))
        err = float(abs(jax.device_get(ys)[:CHECKED] - exact).max())
        table.add(f"{n:.0e}", "diffrax Tsit5 (PID)", f"rtol = atol = {chosen:g}", f"{cold:.2f}", f"{warm:.3f}",
                  f"{err:.1e}", f"{float(jnp.mean(accepted)):.0f} steps/trajectory")


def main(argv=None) -> int:
    parser = base_parser(__doc__.splitlines()[0])
    args = parser.parse_args(argv)

    import numpy as np

    import integrators as ig
    from integrators.jax_backend import jax_available, jax_device

    sizes = [10**4] if args.quick else [10**4, 10**5]
    steps = 100 if args.quick else 1000
    print(f"# bench_jax: nproc={os.cpu_count()}, loadavg={' '.join(f'{x:.2f}' for x in os.getloadavg())},"
          f" {'--quick' if args.quick else 'full'}; Henon-Heiles, Stormer-Verlet, dt = {DT}, {steps} steps", flush=True)
    device = jax_device() if jax_available() else "jax not installed"
    print(f"# device: {device}", flush=True)

    hh = ig.example_system("henon-heiles")
    rng = np.random.default_rng(1)
    table = Table(f"Henon-Heiles ensembles, {steps} steps (times in s; error: max final-state error over {CHECKED}"
                  " trajectories vs DOP853 at 1e-12)",
                  ["trajectories", "path", "matched", "first call", "second call", "error", "note"])
    opts = dict(dt=DT, steps=steps, save_every=steps, progress=False, check_stability=False)
    status = 0
    for n in sizes:
        y0 = rng.uniform(-0.3, 0.3, size=(n, 4))
        y0[:, 2:] *= 0.5                       # energies below the escape energy 1/6
        exact = reference(y0[:CHECKED], steps * DT)
        ref, cold = timed(lambda: ig.integrate(hh, "stormer-verlet", y0, backend="numpy", **opts))
        _, warm = timed(lambda: ig.integrate(hh, "stormer-verlet", y0, backend="numpy", **opts))
        verlet_error = float(np.abs(ref.y[-1, :CHECKED] - exact).max())
        table.add(f"{n:.0e}", "numpy", f"dt = {DT}", f"{cold:.2f}", f"{warm:.3f}", f"{verlet_error:.1e}",
                  f"path {ref.path}")
        c_sol, cold = timed(lambda: ig.integrate(hh, "stormer-verlet", y0, backend="compiled", **opts))
        _, warm = timed(lambda: ig.integrate(hh, "stormer-verlet", y0, backend="compiled", **opts))
        table.add(f"{n:.0e}", "compiled (C)", f"dt = {DT}", f"{cold:.2f}", f"{warm:.3f}",
                  f"{float(np.abs(c_sol.y[-1, :CHECKED] - exact).max()):.1e}", f"path {c_sol.path}")
        if not jax_available():
            table.add(f"{n:.0e}", "jax", "not installed", "-", "-", "-", "")
            continue
        sol, cold = timed(lambda: ig.integrate(hh, "stormer-verlet", y0, backend="jax", **opts))
        sol, warm = timed(lambda: ig.integrate(hh, "stormer-verlet", y0, backend="jax", **opts))
        ulps = float(np.abs(sol.y - ref.y).max() / np.spacing(np.abs(ref.y).max()))
        if ulps > 64:
            status = 1
        table.add(f"{n:.0e}", "jax", f"dt = {DT}", f"{cold:.2f}", f"{warm:.3f}",
                  f"{float(np.abs(sol.y[-1, :CHECKED] - exact).max()):.1e}",
                  f"{sol.path_note}; {ulps:.0f} ulps from numpy")
        diffrax_rows(y0, steps, verlet_error, exact, table, n)
    table.notes.append(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    table.show(args.markdown)
    return status


if __name__ == "__main__":
    sys.exit(main())
