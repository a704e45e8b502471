"""Benchmark: work-precision of the catalog's 4th, 6th and 8th order methods against scipy's DOP853.

Kepler (e = 0.5: q = (1 - e, 0), p = (0, sqrt((1 + e)/(1 - e))), H = -1/2, period 2 pi) and
Henon-Heiles (q = (0, 0.2), p = (0.3, 0.1), H = 0.0673), both from
``integrators.example_system``, integrated to T = 10^4 (--quick: T = 100):

* the catalog methods ``yoshida-4``, ``yoshida-6``, ``yoshida-8`` (compositions of
  Stormer-Verlet, each included when ``list_schemes()`` has it), ``gauss-legendre-6`` and
  ``gauss-legendre-8`` (implicit, batched Newton with ``newton="auto"``), each with
  ``integrate(..., backend="numpy")`` at several step sizes (halving from a start per order;
  a step size is run only when its predicted time, from a short calibration run, fits the cap
  ``--cap``; a method too slow for even its largest step size on [0, T] -- the implicit
  ones: a single trajectory on the numpy path costs milliseconds per step -- is run on
  [0, T/10] and its wall time extrapolated x10, marked as such), and ``yoshida-4`` on the
  compiled path (``backend="compiled"``);
* scipy's ``solve_ivp(method="DOP853")`` at rtol = atol = 1e-8 .. 1e-13, its right-hand side
  the system's vector field lowered by ``integrators.lower.lower_expressions`` (the same
  expressions the schemes use).

For every run: the maximum energy error ``max |H(y_n) - H(y_0)|`` over the run (every saved
state: at least 20 000 per run for the catalog methods, every accepted step for DOP853)
against the wall time of the run (the symbolic step and its lowering, done once per method,
is reported apart).  The drift check compares the maximum over [0, T/10] with the maximum
over [0, T]: a bounded error gives a ratio near 1, a linear drift a ratio near 10.  The
printout CHECKS that every symplectic run whose error is above rounding (1e-11) stays bounded
(ratio < 2) and that DOP853 drifts (ratio > 3 for most tolerances).  The plot (matplotlib) goes
to docs/figures/work_precision.png and .pdf (--quick: a temporary directory unless --figures).
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import _util as U  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METHODS = ("yoshida-4", "yoshida-6", "yoshida-8", "gauss-legendre-6", "gauss-legendre-8")
COMPILED = ("yoshida-4", "yoshida-6", "yoshida-8")     # compositions compile stage by stage
#: the largest step size tried, per order (then halved)
DT_START = {4: 0.1, 6: 0.2, 8: 0.25}
DOP_RTOLS = (1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13)
SAVED = 20_000
BOUNDED_RATIO = 2.0
DRIFT_RATIO = 3.0
ROUNDING = 1e-11


def systems():
    import integrators as ig

    e = 0.5
    kepler = ig.example_system("kepler")
    hh = ig.example_system("henon-heiles")
    return {
        "Kepler e=0.5": (kepler, np.array([1 - e, 0.0, 0.0, math.sqrt((1 + e) / (1 - e))])),
        "Henon-Heiles": (hh, np.array([0.0, 0.2, 0.3, 0.1])),
    }


def energy_function(system):
    """``H`` on states of shape (n, dim), lowered from the system's symbolic energy."""
    from integrators.lower import lower_expressions

    K = lower_expressions([system.energy], system.coords, [], what="the energy")
    S = K.scalars()
    return lambda Y: np.broadcast_to(K.kernel(S, *[Y[:, i] for i in range(Y.shape[1])])[0], (Y.shape[0],))


def errors_and_ratio(t, H, H0, T):
    err = np.abs(H - H0)
    if not np.isfinite(err).all():
        return math.inf, math.inf, math.nan
    tenth = err[t <= T / 10 + 1e-9].max()
    full = err.max()
    return full, tenth, (full / tenth if tenth > 0 else math.inf)


def run_catalog(system, y0, name, dt, T, energy, backend="numpy"):
    import integrators as ig

    steps = int(round(T / dt))
    save_every = max(1, steps // SAVED)
    kw = {"newton": "auto"} if backend == "numpy" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # a compiled path falling back must not pass unnoticed
        t0 = time.perf_counter()
        sol = ig.integrate(system, name, y0, dt=dt, steps=steps, save_every=save_every, backend=backend,
                           progress=False, check_stability=False, **kw)
        wall = time.perf_counter() - t0
    H = energy(sol.y)
    return wall, errors_and_ratio(sol.t, H, H[0], T)


def run_dop853(system, y0, rtol, T, energy):
    from scipy.integrate import solve_ivp

    from integrators.lower import lower_expressions

    X = system.vector_field
    K = lower_expressions([X.component(c) for c in system.coords], system.coords, [], what="the vector field")
    S = K.scalars()
    kernel = K.kernel

    def rhs(t, y):
        return np.array(kernel(S, *y), dtype=float)

    t0 = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, T), y0, method="DOP853", rtol=rtol, atol=rtol)
    wall = time.perf_counter() - t0
    if sol.status != 0:
        return wall, (math.inf, math.inf, math.nan), 0
    H = energy(sol.y.T)
    return wall, errors_and_ratio(sol.t, H, energy(np.asarray(y0)[None, :])[0], T), sol.t.size - 1


def calibrate(system, y0, name, dt, backend):
    """Setup seconds (symbolic step, lowering, compiling) and seconds per step."""
    import integrators as ig

    kw = {"newton": "auto"} if backend == "numpy" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t0 = time.perf_counter()
        ig.integrate(system, name, y0, dt=dt, steps=2, save_every=1, backend=backend, progress=False,
                     check_stability=False, **kw)
        setup = time.perf_counter() - t0
        n = 200
        t0 = time.perf_counter()
        ig.integrate(system, name, y0, dt=dt, steps=n, save_every=n, backend=backend, progress=False,
                     check_stability=False, **kw)
        per_step = (time.perf_counter() - t0) / n
    return setup, per_step


def fmt_err(x):
    return "inf" if not math.isfinite(x) else f"{x:.2e}"


def plot(results, T, figdir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.6))
    for ax, (sysname, runs) in zip(np.atleast_1d(axes), results.items()):
        by_label = {}
        for r in runs:
            if math.isfinite(r["err"]):
                by_label.setdefault(r["label"], []).append((r["wall"], r["err"]))
        for label, pts in by_label.items():
            pts.sort()
            x, y = zip(*pts)
            style = "k--s" if label.startswith("DOP853") else "-o"
            open_marker = {"markerfacecolor": "none"} if "T/10" in label else {}
            ax.loglog(x, y, style, label=label, markersize=5, **open_marker)
        ax.set_xlabel("wall time of the run [s]")
        ax.set_ylabel(r"max $|H(y_n) - H(y_0)|$ over $[0, T]$")
        ax.set_title(f"{sysname}, T = {T:g}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(figdir, exist_ok=True)
    paths = [os.path.join(figdir, f"work_precision.{ext}") for ext in ("png", "pdf")]
    for path in paths:
        fig.savefig(path, dpi=130)
    plt.close(fig)
    return paths


def main(argv=None):
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--T", type=float, default=None, help="final time (default 1e4; --quick 100)")
    parser.add_argument("--cap", type=float, default=None,
                        help="predicted seconds above which a step size is not run (default 20; --quick 3)")
    parser.add_argument("--methods", default=None, help="comma-separated catalog names (default: the 4th, 6th and"
                        " 8th order methods of the issue that are registered)")
    parser.add_argument("--figures", default=None, help="directory of the plot (default docs/figures; --quick: a"
                        " temporary directory)")
    args = parser.parse_args(argv)
    T = args.T or (100.0 if args.quick else 1e4)
    cap = args.cap or (3.0 if args.quick else 20.0)
    max_points = 1 if args.quick else 4
    rtols = (1e-8, 1e-11) if args.quick else DOP_RTOLS
    figdir = args.figures or (tempfile.mkdtemp(prefix="bench_wp_") if args.quick else os.path.join(ROOT, "docs", "figures"))
    info = U.machine_info()
    print("# bench_work_precision: max energy error vs wall time, Kepler (e = 0.5) and Henon-Heiles", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print(f"# T = {T:g}; wall time of each run once (no repetition: runs are long); step sizes whose predicted"
          f" time exceeds {cap:g} s are skipped" + ("; --quick" if args.quick else ""), flush=True)
    print(flush=True)

    import integrators as ig

    registered = set(ig.list_schemes())
    wanted = args.methods.split(",") if args.methods else [m for m in METHODS if m in registered]
    if args.quick and not args.methods:
        wanted = [m for m in wanted if m != "gauss-legendre-8"]      # its lowering alone takes minutes
    missing = [m for m in (args.methods.split(",") if args.methods else METHODS) if m not in registered]
    series = [(m, "numpy") for m in wanted] + [(m, "compiled") for m in COMPILED if m in wanted]
    results, checks = {}, []
    for sysname, (system, y0) in systems().items():
        energy = energy_function(system)
        runs = []
        table = U.Table(f"{sysname}: max |H - H0| over [0, T], T = {T:g}",
                        ["method", "order", "dt / rtol", "steps", "wall s", "max err [0,T]", "max err [0,T/10]",
                         "ratio", "behaviour"])
        for name, backend in series:
            s = ig.scheme(name)
            label = name if backend == "numpy" else f"{name} (compiled)"
            start = DT_START.get(s.order, 0.1)
            try:
                setup, per_step = calibrate(system, y0, name, start, backend)
            except Exception as exc:                         # e.g. the compiled path falling back
                table.notes.append(f"{label}: not run ({type(exc).__name__}: {str(exc)[:120]})")
                continue
            table.notes.append(f"{label}: setup (symbolic step, lowering{', compiling' if backend == 'compiled' else ''})"
                               f" {setup:.2f} s; {per_step * 1e6:.1f} us per step in a 200-step calibration run"
                               " (with the call's overhead; it predicts the run times)")
            dt, done = start, 0
            if backend == "compiled":
                dt = start / 4                      # the compiled path affords small steps
            while done < max_points:
                predicted = T / dt * per_step
                if predicted > cap and done:
                    break
                if predicted > 2 * cap:
                    if predicted / 10 <= 2 * cap:
                        # too slow for [0, T]: run [0, T/10] and extrapolate the wall time (x10); the
                        # other symplectic runs show the bounded error's maximum is reached by T/10
                        wall, (err, _, _) = run_catalog(system, y0, name, dt, T / 10, energy, backend)
                        table.add(label, s.order, f"{dt:g}", int(round(T / dt)), f"({10 * wall:.1f})",
                                  fmt_err(err), fmt_err(err), "-", "T/10 run")
                        runs.append(dict(label=label + " [T/10 run, wall x10]", wall=10 * wall, err=err))
                        table.notes.append(f"{label}: dt = {dt:g} predicted {predicted:.0f} s for [0, T]; run on"
                                           f" [0, T/10] in {wall:.1f} s (wall time in brackets: x10)")
                    else:
                        table.notes.append(f"{label}: dt = {dt:g} skipped (predicted {predicted:.0f} s)")
                    break
                wall, (err, tenth, ratio) = run_catalog(system, y0, name, dt, T, energy, backend)
                bounded = math.isfinite(err) and (err < ROUNDING or ratio < BOUNDED_RATIO)
                verdict = "unstable" if not math.isfinite(err) else ("bounded" if bounded else "GROWS")
                if math.isfinite(err) and err >= ROUNDING:
                    checks.append(("symplectic bounded", f"{sysname} {label} dt={dt:g}", ratio < BOUNDED_RATIO))
                table.add(label, s.order, f"{dt:g}", int(round(T / dt)), f"{wall:.2f}", fmt_err(err), fmt_err(tenth),
                          f"{ratio:.2f}", verdict)
                runs.append(dict(label=label, wall=wall, err=err))
                dt /= 2
                done += 1
        for rtol in rtols:
            wall, (err, tenth, ratio), nsteps = run_dop853(system, y0, rtol, T, energy)
            drifts = math.isfinite(ratio) and ratio > DRIFT_RATIO
            checks.append(("DOP853 drifts", f"{sysname} rtol={rtol:g}", drifts))
            table.add("DOP853 (scipy)", 8, f"rtol {rtol:g}", nsteps, f"{wall:.2f}", fmt_err(err), fmt_err(tenth),
                      f"{ratio:.2f}", "drifts" if drifts else "no clear drift")
            runs.append(dict(label="DOP853 (scipy)", wall=wall, err=err))
        table.notes.append("ratio = max over [0, T] / max over [0, T/10]: ~1 bounded, ~10 linear drift")
        table.show(markdown=args.markdown)
        results[sysname] = runs

    paths = plot(results, T, figdir)
    print("figures: " + ", ".join(paths), flush=True)
    if missing:
        print(f"note: not in the catalog at run time (skipped): {', '.join(missing)}", flush=True)
    bounded = [c for c in checks if c[0] == "symplectic bounded"]
    drifting = [c for c in checks if c[0] == "DOP853 drifts"]
    ok_bounded = all(c[2] for c in bounded)
    ok_drift = sum(c[2] for c in drifting) > len(drifting) / 2
    for c in bounded:
        if not c[2]:
            print(f"  symplectic run with a growing error: {c[1]}")
    print(f"[{'PASS' if ok_bounded else 'MISS'}] the symplectic methods' energy error stays bounded: "
          f"{sum(c[2] for c in bounded)}/{len(bounded)} runs above {ROUNDING:g} with ratio < {BOUNDED_RATIO}")
    print(f"[{'PASS' if ok_drift else 'MISS'}] DOP853's energy error drifts: {sum(c[2] for c in drifting)}/"
          f"{len(drifting)} tolerances with ratio > {DRIFT_RATIO}" + (" (T = 100: too short to tell)"
                                                                       if args.quick else ""))
    if args.quick:
        return 0 if results and all(results.values()) else 1
    return 0 if (ok_bounded and ok_drift) else 1


if __name__ == "__main__":
    sys.exit(main())
