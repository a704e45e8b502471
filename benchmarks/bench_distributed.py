"""Benchmark: scaling out on Dask (``integrators.distributed``) against the serial run, in one run.

(a) ensemble  Henon-Heiles, Stormer-Verlet, dt = 0.01, 10^6 trajectories x 200 steps
              (--quick: 10^5 x 10), ``integrate`` serially vs ``integrate_distributed`` on a
              LocalCluster of 2 worker processes (8 chunks); the two results compared bit for bit;
(b) sweep     200 distinct pendulum-like systems H = p^2/2 - k_i cos q (k_i in H, so each is
              lowered on its own), 2000 Verlet steps each (--quick: 12 systems x 200 steps),
              a loop of ``integrate`` vs ``sweep`` on the same cluster;
(c) params    one system H = p^2/2 - k cos q swept over 200 values of the parameter k (lowered
              once per worker), 2000 steps each;
(d) catalog   ``geomcheck certify --all``: every scheme of the catalog certified on its default
              generic system, here vs on the cluster (processes only; --quick: 4 schemes).

The cluster is started before the clock runs (as a user's existing cluster would be); the
expected speed-up on 2 idle cores is about 1.8x.  The memory of each worker process after the
runs is printed too.  Run with ``--quick`` for a short check.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args(argv)

    import numpy as np
    import sympy
    from dask.distributed import Client, LocalCluster

    import integrators as ig
    from integrators.distributed import integrate_distributed, sweep

    n_traj, n_steps = (10**5, 10) if args.quick else (10**6, 200)
    n_systems, sweep_steps = (12, 200) if args.quick else (200, 2000)
    print(f"# bench_distributed: nproc={os.cpu_count()}, loadavg={' '.join(f'{x:.2f}' for x in os.getloadavg())},"
          f" {'--quick' if args.quick else 'full'}", flush=True)

    x, y, px, py = sympy.symbols("x y p_x p_y")
    hh = ig.HamiltonianSystem((px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3, [x, y], [px, py])
    rng = np.random.default_rng(1)
    y0 = rng.uniform(-0.3, 0.3, size=(n_traj, 4))
    q, p = sympy.symbols("q p")
    # distinct systems (the coefficient is part of H): each one is lowered on its own, as in a
    # sweep over models
    jobs = [dict(system=ig.HamiltonianSystem(p**2 / 2 - sympy.Rational(n_systems + j, n_systems) * sympy.cos(q), q, p),
                 scheme="stormer-verlet", y0=[1.0, 0.0], dt=0.01, steps=sweep_steps, save_every=sweep_steps,
                 check_stability=False)
            for j in range(n_systems)]
    opts = dict(dt=0.01, steps=n_steps, save_every=n_steps, check_stability=False, progress=False)

    rows = []
    from geomcheck import report_jobs
    from geomcheck.zero import clear_caches

    def cold(client):
        """Both sides start without memos (lowered steps, certificates); imports stay warm."""
        clear_caches()
        client.run(clear_caches)

    def timed(client, fn):
        cold(client)
        t = time.perf_counter()
        value = fn()
        return value, time.perf_counter() - t

    k = sympy.Symbol("k")
    swept_system = ig.HamiltonianSystem(p**2 / 2 - k * sympy.cos(q), q, p)
    param_jobs = [dict(system=swept_system, scheme="stormer-verlet", y0=[1.0, 0.0], dt=0.01, steps=sweep_steps,
                       save_every=sweep_steps, check_stability=False, params={"k": 1.0 + j / n_systems})
                  for j in range(n_systems)]
    catalog = report_jobs.catalog_jobs()[:4 if args.quick else None]
    # threads share the process (numpy releases the GIL): no data to ship; processes ship the
    # data but run Python (lowering, a single trajectory's loop) in parallel
    for kind in ("threads", "processes"):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=kind == "processes", dashboard_address=None,
                          silence_logs=50) as cluster, Client(cluster) as client:
            # warm the imports on both sides (a user's cluster has run something before)
            integrate_distributed(hh, "stormer-verlet", y0[:100], client=client, **opts)
            sweep([dict(jobs[0], system=ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q) / 3, q, p))], client=client)
            ig.integrate(hh, "stormer-verlet", y0[:100], **opts)

            serial, t_serial = timed(client, lambda: ig.integrate(hh, "stormer-verlet", y0, **opts))
            spread, t_spread = timed(client, lambda: integrate_distributed(hh, "stormer-verlet", y0, client=client,
                                                                           chunks=8, **opts))
            rows.append((f"ensemble {n_traj:.0e} x {n_steps} steps", kind, t_serial, t_spread,
                         bool(np.array_equal(serial.y, spread.y))))

            loop, t_loop = timed(client, lambda: [ig.integrate(**{**j, "progress": False}) for j in jobs])
            swept, t_sweep = timed(client, lambda: sweep(jobs, client=client))
            rows.append((f"sweep {n_systems} systems x {sweep_steps} steps", kind, t_loop, t_sweep,
                         all(np.array_equal(a.y, b.y) for a, b in zip(loop, swept))))

            loop, t_loop = timed(client, lambda: [ig.integrate(**{**j, "progress": False}) for j in param_jobs])
            swept, t_sweep = timed(client, lambda: sweep(param_jobs, client=client))
            rows.append((f"parameter sweep, 1 system x {n_systems} values x {sweep_steps} steps", kind, t_loop,
                         t_sweep, all(np.array_equal(a.y, b.y) for a, b in zip(loop, swept))))

            if kind == "processes":
                import io

                here, t_here = timed(client, lambda: report_jobs.run_jobs(catalog, io.StringIO()))
                there, t_there = timed(client, lambda: report_jobs.run_jobs(catalog, io.StringIO(), client))
                rows.append((f"certify --all ({len(catalog)} schemes)", kind, t_here, t_there, here == there))
                memory = client.run(_rss_mib)
                print("# worker memory after the runs (peak RSS, MiB): "
                      + ", ".join(f"{v:.0f}" for v in memory.values()), flush=True)

    print("| task | Dask workers | serial s | Dask, 2 workers s | speed-up | identical |")
    print("|---|---|---|---|---|---|")
    for name, kind, a, b, same in rows:
        print(f"| {name} | {kind} | {a:.2f} | {b:.2f} | {a / b:.2f}x | {same} |")
    return 0 if all(r[4] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
