"""Benchmark: the compiled path near the machine's limit (issue 18 items 1-3).

Table 1, an ensemble: Henon-Heiles, 10^5 trajectories (--quick: 10^4) x N Stormer-Verlet steps
(dt = 0.01), the final states only; traj-steps/s of

(a) numpy        ``integrate(..., backend="numpy")`` (the generated numpy kernel on (batch,) arrays)
(b) compiled     ``integrate(..., backend="compiled")``: the batched C loop of the scheme's symbolic
                 step map (chunks as structures of arrays, -O3, one call, OpenMP over the chunks),
                 the force carried from each step's end to the next step's start (FSAL, found in
                 the step map); also the C loop alone (1 and all threads) and without FSAL
(c) hand C       a hand-written chunked Stormer-Verlet of Henon-Heiles (one force per step), written
                 here as a C string, compiled with the same cc -O3 -march=native -ffp-contract=off
                 (and a copy with OpenMP over the chunks)
(d) numba        a @njit loop per trajectory (prange over trajectories), 1 and 2 threads (if installed)

and the ratio to (c).  Final states: (b) without FSAL equals (a) bit for bit (the same IEEE
operations); with FSAL, and (c), (d), agree with (a) to 1e-12 (relative to max |y|).

Table 2, one long trajectory: the 104-coordinate coupled beam (benchmarks/bench_long_trajectory.py),
10^6 Stormer-Verlet steps (--quick: 10^5), saved every 1000: the compiled path vs the hand-written C
of bench_long_trajectory (CSR force, one force per step) compiled here with -O3.

Goals: (b)'s C loop >= 0.8 x (c) (same run); the beam within 1.3 x hand C -O3.
Run ``python benchmarks/bench_compiled_ensemble.py --help`` for the options.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import _util as U  # noqa: E402

GOAL_ENSEMBLE = 0.8
GOAL_BEAM = 1.3
DT = 0.01

HAND_HH = r"""
/* Stormer-Verlet of Henon-Heiles, chunks of CHUNK trajectories as structures of arrays, one force per step */
#include <stdlib.h>
#define CHUNK 256
static void chunk(const double *Y0, long m, long steps, double h, double *out)
{
    double x[CHUNK], y[CHUNK], px[CHUNK], py[CHUNK], fx[CHUNK], fy[CHUNK];
    const double hh = 0.5 * h;
    for (long i = 0; i < m; i++) {
        x[i] = Y0[4 * i]; y[i] = Y0[4 * i + 1]; px[i] = Y0[4 * i + 2]; py[i] = Y0[4 * i + 3];
        fx[i] = -x[i] - 2.0 * x[i] * y[i]; fy[i] = -y[i] - x[i] * x[i] + y[i] * y[i];
    }
    for (long n = 0; n < steps; n++) {
        for (long i = 0; i < m; i++) {
            double qx = px[i] + hh * fx[i], qy = py[i] + hh * fy[i];
            double nx = x[i] + h * qx, ny = y[i] + h * qy;
            double gx = -nx - 2.0 * nx * ny, gy = -ny - nx * nx + ny * ny;
            x[i] = nx; y[i] = ny; fx[i] = gx; fy[i] = gy;
            px[i] = qx + hh * gx; py[i] = qy + hh * gy;
        }
    }
    for (long i = 0; i < m; i++) {
        out[4 * i] = x[i]; out[4 * i + 1] = y[i]; out[4 * i + 2] = px[i]; out[4 * i + 3] = py[i];
    }
}
void verlet(const double *Y0, long batch, long steps, double h, double *out)
{
    long nchunks = (batch + CHUNK - 1) / CHUNK;
#ifdef _OPENMP
    #pragma omp parallel for schedule(dynamic, 1)
#endif
    for (long c = 0; c < nchunks; c++) {
        long m = batch - c * CHUNK < CHUNK ? batch - c * CHUNK : CHUNK;
        chunk(Y0 + 4 * c * CHUNK, m, steps, h, out + 4 * c * CHUNK);
    }
}
"""

HAND_FLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-shared", "-fPIC")


def henon_heiles():
    import sympy

    import integrators as ig

    x, y, px, py = sympy.symbols("x y p_x p_y")
    H = (px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3
    return ig.HamiltonianSystem(H, [x, y], [px, py])


def build(cc, source, flags, tmp, name):
    src = os.path.join(tmp, name + ".c")
    lib = os.path.join(tmp, name + ".so")
    with open(src, "w") as fh:
        fh.write(source)
    t0 = time.perf_counter()
    subprocess.run([cc, *flags, "-o", lib, src, "-lm"], check=True, capture_output=True)
    return ctypes.CDLL(lib), time.perf_counter() - t0


def hand_hh(lib, Y, steps):
    out = np.empty_like(Y)
    P = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    lib.verlet(P(Y), ctypes.c_long(len(Y)), ctypes.c_long(steps), ctypes.c_double(DT), P(out))
    return out


def numba_runner():
    try:
        import numba
    except ImportError:
        return None, None

    @numba.njit(parallel=True, fastmath=False, cache=False)
    def run(Y, steps, h):
        out = np.empty_like(Y)
        hh = 0.5 * h
        for b in numba.prange(Y.shape[0]):
            x, y, px, py = Y[b, 0], Y[b, 1], Y[b, 2], Y[b, 3]
            fx, fy = -x - 2.0 * x * y, -y - x * x + y * y
            for _ in range(steps):
                qx, qy = px + hh * fx, py + hh * fy
                x, y = x + h * qx, y + h * qy
                fx, fy = -x - 2.0 * x * y, -y - x * x + y * y
                px, py = qx + hh * fx, qy + hh * fy
            out[b, 0], out[b, 1], out[b, 2], out[b, 3] = x, y, px, py
        return out

    return run, numba


def rel(a, b):
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / max(np.abs(b).max(), 1e-300))


def uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load %.2f %.2f %.2f" % os.getloadavg()


def main(argv=None):
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--batch", type=int, default=None, help="trajectories (default 10^5; --quick 10^4)")
    parser.add_argument("--steps", type=int, default=None, help="Verlet steps of the ensemble (default 400; --quick 100)")
    parser.add_argument("--beam-steps", type=int, default=None, help="beam steps (default 10^6; --quick 10^5)")
    parser.set_defaults(repeats=3)
    args = parser.parse_args(argv)
    batch = args.batch or (10_000 if args.quick else 100_000)
    steps = args.steps or (100 if args.quick else 400)
    beam_steps = args.beam_steps or (100_000 if args.quick else 1_000_000)
    repeats = 2 if args.quick else args.repeats
    info = U.machine_info()
    print("# bench_compiled_ensemble: the compiled path vs hand-written C (Henon-Heiles ensemble; coupled beam)",
          flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print(f"# uptime: {uptime()}", flush=True)
    print(f"# times: wall seconds, best of {repeats}" + ("; --quick: small sizes" if args.quick else ""), flush=True)
    print(flush=True)

    import integrators as ig
    from integrators import compiled
    from integrators.systems import STEP_SYMBOL

    cc = compiled.find_compiler()
    system = henon_heiles()
    Y = np.random.default_rng(7).uniform(-0.25, 0.25, size=(batch, 4))
    work = batch * steps
    rows = {}
    run = lambda backend: ig.integrate(system, "stormer-verlet", Y, dt=DT, steps=steps, save_every=steps,  # noqa
                                       backend=backend, progress=False, check_stability=False).y[-1]
    rows["(a) integrate numpy"] = U.best_of(lambda: run("numpy"), 1)
    t0 = time.perf_counter()
    first = ig.integrate(system, "stormer-verlet", Y[:2], dt=DT, steps=1, backend="compiled", progress=False)
    t_setup = time.perf_counter() - t0
    notes = [f"(b) path: {first.path}; first call (C generation, cc or the disk cache, load): {t_setup:.2f} s"]
    tmp = tempfile.mkdtemp(prefix="bench_compiled_ensemble_")
    hand = hand_omp = None
    try:
        if first.path == "compiled":
            rows["(b) integrate compiled"] = U.best_of(lambda: run("compiled"), repeats)
            stages = ig.scheme("stormer-verlet").stages(system)
            loop = compiled.compile_batch(stages, [STEP_SYMBOL])
            plain = compiled.compile_batch(stages, [STEP_SYMBOL], fsal=False)
            threads = compiled.default_threads()
            notes.append(f"(b): flags {' '.join(loop.flags)}; chunk {compiled.chunk_size(4, len(loop.links))};"
                         f" FSAL carries {[str(S) for S, _ in loop.links]}; threads {threads}")
            rows[f"(b) C loop alone, {threads} threads"] = U.best_of(
                lambda: loop.run([DT], Y, steps, steps, threads=threads)[-1], repeats)
            rows["(b) C loop alone, 1 thread"] = U.best_of(lambda: loop.run([DT], Y, steps, steps, threads=1)[-1],
                                                          repeats)
            rows["(b) C loop without FSAL, 1 thread"] = U.best_of(
                lambda: plain.run([DT], Y, steps, steps, threads=1)[-1], repeats)
        if cc is not None:
            hand, t_hand_build = build(cc, HAND_HH, HAND_FLAGS, tmp, "hand")
            rows["(c) hand C chunked, 1 thread"] = U.best_of(lambda: hand_hh(hand, Y, steps), repeats)
            try:
                hand_omp, _ = build(cc, HAND_HH, HAND_FLAGS + ("-fopenmp",), tmp, "hand_omp")
                rows["(c) hand C chunked, OpenMP"] = U.best_of(lambda: hand_hh(hand_omp, Y, steps), repeats)
            except subprocess.CalledProcessError:
                notes.append("(c) OpenMP: the compiler has no -fopenmp")
            notes.append(f"(c): cc {' '.join(HAND_FLAGS)}, built in {t_hand_build:.2f} s")
        run_nb, numba = numba_runner()
        if run_nb is None:
            notes.append("(d) numba: not installed")
        else:
            run_nb(Y[:8], 2, DT)                        # compile outside the timing
            for n_threads in (1, 2):
                numba.set_num_threads(min(n_threads, numba.config.NUMBA_NUM_THREADS))
                rows[f"(d) numba, {n_threads} thread(s)"] = U.best_of(lambda: run_nb(Y, steps, DT), repeats)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    ref_key = "(c) hand C chunked, 1 thread"
    t_ref = rows[ref_key][0] if ref_key in rows else None
    y_numpy = rows["(a) integrate numpy"][1]
    table = U.Table(f"Henon-Heiles ensemble: {batch} trajectories x {steps} Stormer-Verlet steps (dt = {DT})",
                    ["method", "seconds", "traj-steps/s", "vs hand C 1 thread", "max |y - y_(a)| / max |y|"])
    for name, (t, y) in rows.items():
        table.add(name, U.fmt_s(t), f"{work / t:.3g}", U.fmt_ratio(t_ref, t) if t_ref else "-", f"{rel(y, y_numpy):.1e}")
    table.notes += notes
    table.notes.append("'vs hand C' = hand C time / this time (> 1: faster than the hand-written kernel)")
    exact = None
    if "(b) C loop without FSAL, 1 thread" in rows:
        exact = bool(np.array_equal(rows["(b) C loop without FSAL, 1 thread"][1], y_numpy))
        table.notes.append(f"(b) without FSAL equals (a) bit for bit: {exact}")
    table.show(markdown=args.markdown)

    # the beam: one long trajectory
    import bench_long_trajectory as L

    beam, y0 = L.build_beam()
    table2 = U.Table(f"Coupled beam (dim {beam.dim}), one trajectory, {beam_steps} Stormer-Verlet steps, dt = {L.DT:g}",
                     ["method", "seconds", "us per step", "vs hand C -O3", "max |y - y_hand| / max |y|"])
    rows2 = {}
    t0 = time.perf_counter()
    probe = ig.integrate(beam, "stormer-verlet", y0, dt=L.DT, steps=1, backend="compiled", progress=False)
    t_beam_setup = time.perf_counter() - t0
    run_beam = lambda: ig.integrate(beam, "stormer-verlet", y0, dt=L.DT, steps=beam_steps,  # noqa: E731
                                    save_every=L.SAVE_EVERY, backend="compiled", progress=False,
                                    check_stability=False).y
    if probe.path == "compiled":
        rows2["compiled path (integrate)"] = U.best_of(run_beam, repeats)
        bstages = ig.scheme("stormer-verlet").stages(beam)
        bloop = compiled.compile_batch(bstages, [STEP_SYMBOL])
        rows2["compiled C loop alone"] = U.best_of(lambda: bloop.run([L.DT], y0[None, :], beam_steps, L.SAVE_EVERY,
                                                                     threads=1)[:, 0, :], repeats)
        table2.notes.append(f"FSAL carries {len(bloop.links)} values; flags {' '.join(bloop.flags)}; first call"
                            f" (generation, build or the disk cache): {t_beam_setup:.2f} s")
    t_beam_hand = None
    if cc is not None:
        d, A = L.linear_parts(beam)
        hv = L.HandVerlet(d, A, cc)
        try:
            lib, _ = build(cc, L.HAND_C, ("-O3", "-shared", "-fPIC"), hv.tmp, "verlet_o3")
            hv.lib = lib
            rows2["hand C -O3 (bench_long_trajectory's)"] = U.best_of(
                lambda: hv.run(y0, L.DT, beam_steps, L.SAVE_EVERY), repeats)
            t_beam_hand = rows2["hand C -O3 (bench_long_trajectory's)"][0]
        finally:
            hv.close()
    y_hand = rows2.get("hand C -O3 (bench_long_trajectory's)", (None, None))[1]
    for name, (t, y) in rows2.items():
        table2.add(name, U.fmt_s(t), f"{t / beam_steps * 1e6:.3g}", U.fmt_ratio(t_beam_hand, t) if t_beam_hand else "-",
                   f"{rel(y[-1], y_hand[-1]):.1e}" if y_hand is not None else "-")
    table2.show(markdown=args.markdown)
    print(f"# uptime at the end: {uptime()}", flush=True)

    ok = True
    key = "(b) C loop alone, 1 thread"
    if key in rows and t_ref:
        ratio = t_ref / rows[key][0]
        verdict = "PASS" if ratio >= GOAL_ENSEMBLE else "MISS"
        print(f"[{verdict}] compiled C loop speed / hand C chunked speed (1 thread each): {ratio:.2f},"
              f" goal >= {GOAL_ENSEMBLE}")
        ok = ok and (verdict == "PASS" or args.quick)
    if "compiled C loop alone" in rows2 and t_beam_hand:
        ratio = rows2["compiled C loop alone"][0] / t_beam_hand
        verdict = "PASS" if ratio <= GOAL_BEAM else "MISS"
        print(f"[{verdict}] beam: compiled time / hand C -O3 time: {ratio:.2f}, goal <= {GOAL_BEAM}")
        ok = ok and (verdict == "PASS" or args.quick)
    for name, (_, y) in rows.items():
        agree = rel(y, y_numpy) <= 1e-12
        ok = ok and agree
        if not agree:
            print(f"[FAIL] {name} disagrees with numpy beyond 1e-12")
    if exact is not None:
        print(f"[{'PASS' if exact else 'FAIL'}] the C loop without FSAL equals numpy bit for bit")
        ok = ok and exact
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
