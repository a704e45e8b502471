"""Benchmark: the 104-coordinate coupled beam, Stormer-Verlet at 30, 50 and 100 digits.

The system is the beam + two-mass spring of Terakawa & Yaguchi 2022, Section 6 (built as in
``bench_long_trajectory.py``: ``q' = d .* p``, ``p' = A q`` with 104 coordinates, A sparse),
dt = 1/2000.  Side by side in the same run, for each precision:

(a) integrate  ``integrators.integrate(..., backend="mpmath", dps=D)``: the certified step map
               (sympy), generated as mpmath code on raw mpf values (each sum rounded once);
               timed end to end after a first call that generates the code (cached)
(b) hand mp    a hand-written mpmath loop: the force as ``mpmath.fdot`` over each row's
               nonzeros of A, kick / drift / kick with plain mpf operations, the last force
               reused as the next first kick (one force per step)
(c) hand arb   the same loop in python-flint arb balls (``flint.ctx.prec = D log2(10) + 20``):
               the radius of the final balls is a rigorous bound on the distance to the exact
               discrete trajectory (if python-flint is installed)
(d) run_arb    ``integrators.arb_run.run_arb``: the certified step map generated as arb code; the
               balls widen by about 2 bits per step on this stiff system (the wrapping effect),
               so (d') runs it again with 40 + 3 x steps guard bits: its balls give a rigorous
               bound on how far (a) and (b) are from the exact discrete trajectory
(e) fixed int  a fixed-point loop on Python ints (values scaled by 2**(D log2(10) + 32))

All final states are compared with (b) (goal: 1e-45 at 50 digits: |y - y_b| / max|y_b|) and,
when python-flint is installed, (a) and (b) are proved within 1e-45 of the exact discrete
trajectory by (d')'s balls.  Goal (issue 18): (a) within 1.5 x (b) at 50 digits; (a) and (b)
are timed alternately (best of the repeats each), so a change of load hits both.

Run ``python benchmarks/bench_mpmath.py --help`` for the options (``--quick``: < 20 s).
"""

from __future__ import annotations

import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U  # noqa: E402

GOAL_RATIO = 1.5
WRAP_BITS_PER_STEP = 3
AGREE_50 = 1e-45
DT = "0.0005"


def exact_mpf(ball):
    """The exact value of an exact arb (a midpoint or a radius) as an mpf."""
    import mpmath

    man, exp = ball.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def exact_linear_parts(system):
    """``d`` (list) and the rows of ``A`` (``[(j, a_ij), ...]`` per row), exact sympy numbers, of
    ``q' = d .* p``, ``p' = A q`` (checked: linear, homogeneous, of that shape)."""
    import sympy

    X = system.vector_field
    n = len(system.q)
    coords = list(system.q) + list(system.p)
    Mq, bq = sympy.linear_eq_to_matrix([X.component(x) for x in system.q], coords)
    Mp, bp = sympy.linear_eq_to_matrix([X.component(x) for x in system.p], coords)
    assert bq.is_zero_matrix and bp.is_zero_matrix
    assert Mq[:, :n].is_zero_matrix and Mp[:, n:].is_zero_matrix
    d = [Mq[i, n + i] for i in range(n)]
    assert all(Mq[i, n + j] == 0 for i in range(n) for j in range(n) if i != j)
    rows = [[(j, Mp[i, j]) for j in range(n) if Mp[i, j] != 0] for i in range(n)]
    return d, rows


def hand_mpmath(d, rows, y0, dt, steps, dps):
    """(b): kick-drift-kick at ``dps`` digits, the force by fdot, reused between steps."""
    import mpmath
    import sympy

    with mpmath.workdps(dps):
        mp = lambda v: mpmath.mpf(sympy.N(v, dps + 10))  # noqa: E731
        n = len(d)
        h = mpmath.mpf(dt)
        hh = h / 2
        hd = [h * mp(x) for x in d]
        cols = [[j for j, _ in r] for r in rows]
        coef = [[mp(a) for _, a in r] for r in rows]
        q = [mpmath.mpf(v) for v in y0[:n]]
        p = [mpmath.mpf(v) for v in y0[n:]]
        fdot = mpmath.fdot
        F = [fdot(c, [q[j] for j in js]) for c, js in zip(coef, cols)]
        for _ in range(steps):
            p = [pi + hh * fi for pi, fi in zip(p, F)]
            q = [qi + hdi * pi for qi, hdi, pi in zip(q, hd, p)]
            F = [fdot(c, [q[j] for j in js]) for c, js in zip(coef, cols)]
            p = [pi + hh * fi for pi, fi in zip(p, F)]
        return q + p


def hand_arb(d, rows, y0, dt, steps, dps):
    """(c): the same loop in arb balls at dps log2(10) + 20 bits; returns (midpoints, radii) as mpf."""
    import flint
    import sympy

    old = flint.ctx.prec
    flint.ctx.prec = int(dps * math.log2(10)) + 20
    try:
        def ball(v):
            r = sympy.Rational(v)
            return flint.arb(flint.fmpq(int(r.p), int(r.q)))

        n = len(d)
        h = ball(sympy.Rational(dt))
        hh = h / 2
        hd = [h * ball(x) for x in d]
        cols = [[j for j, _ in r] for r in rows]
        coef = [[ball(a) for _, a in r] for r in rows]
        q = [ball(v) for v in y0[:n]]
        p = [ball(v) for v in y0[n:]]

        def force(q):
            out = []
            for c, js in zip(coef, cols):
                s = flint.arb(0)
                for a, j in zip(c, js):
                    s += a * q[j]
                out.append(s)
            return out

        F = force(q)
        for _ in range(steps):
            p = [pi + hh * fi for pi, fi in zip(p, F)]
            q = [qi + hdi * pi for qi, hdi, pi in zip(q, hd, p)]
            F = force(q)
            p = [pi + hh * fi for pi, fi in zip(p, F)]
        return q + p
    finally:
        flint.ctx.prec = old


def hand_fixed(d, rows, y0, dt, steps, dps):
    """(e): fixed point on Python ints, scale 2**bits, bits = dps log2(10) + 32 (products shifted back)."""
    import sympy

    bits = int(dps * math.log2(10)) + 32
    one = 1 << bits

    def fx(v):
        r = sympy.Rational(v) * one
        return int(sympy.floor(r + sympy.Rational(1, 2)))

    n = len(d)
    h = sympy.Rational(dt)
    hh = fx(h / 2)
    hd = [fx(h * x) for x in d]
    cols = [[j for j, _ in r] for r in rows]
    coef = [[fx(a) for _, a in r] for r in rows]
    q = [fx(v) for v in y0[:n]]
    p = [fx(v) for v in y0[n:]]

    def force(q):
        return [sum(a * q[j] for a, j in zip(c, js)) >> bits for c, js in zip(coef, cols)]

    F = force(q)
    for _ in range(steps):
        p = [pi + ((hh * fi) >> bits) for pi, fi in zip(p, F)]
        q = [qi + ((hdi * pi) >> bits) for qi, hdi, pi in zip(q, hd, p)]
        F = force(q)
        p = [pi + ((hh * fi) >> bits) for pi, fi in zip(p, F)]
    return [sympy.Rational(v, one) for v in q + p], bits


def interleaved(fns, repeats):
    """``[(best seconds, last result), ...]`` of each ``fns[k]()``, the calls alternating."""
    best = [math.inf] * len(fns)
    out = [None] * len(fns)
    for _ in range(max(1, repeats)):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            out[k] = fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return list(zip(best, out))


def main(argv=None):
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=None, help="steps per run (default 1000; --quick 100)")
    parser.add_argument("--digits", type=int, nargs="*", default=None, help="precisions (default 30 50 100)")
    parser.set_defaults(repeats=3)
    args = parser.parse_args(argv)
    steps = args.steps or (100 if args.quick else 1000)
    digits = args.digits or ([50] if args.quick else [30, 50, 100])
    repeats = 1 if args.quick else args.repeats
    info = U.machine_info()
    print("# bench_mpmath: the 104-coordinate coupled beam, Stormer-Verlet at high precision", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print(f"# uptime: {os.popen('uptime').read().strip()}", flush=True)
    print(f"# times: wall seconds, best of {repeats} ((a) and (b): of {max(repeats, 3)}, alternating)"
          + ("; --quick: small sizes" if args.quick else ""), flush=True)
    print(flush=True)

    import mpmath

    import integrators as ig
    from bench_long_trajectory import build_beam

    try:
        import flint  # noqa: F401
        have_flint = True
    except ImportError:
        have_flint = False
    from integrators.arb_run import run_arb

    t0 = time.perf_counter()
    system, y0 = build_beam()
    d, rows = exact_linear_parts(system)
    t_build = time.perf_counter() - t0
    y0s = [str(int(v)) for v in y0]          # the paper's initial state is integers (q2 = -1)
    assert all(float(s) == v for s, v in zip(y0s, y0))
    ok = True
    ratio_50 = None
    for dps in digits:
        table = U.Table(f"Coupled beam (dim {system.dim}), stormer-verlet, dt = {DT}, {steps} steps at {dps} digits",
                        ["method", "seconds", "ms per step", "vs (b)", "max |y - y_b| / max |y_b|",
                         "ball radius (max)"])

        def run_a(n):
            return ig.integrate(system, "stormer-verlet", y0s, dt=DT, steps=n, backend="mpmath", dps=dps,
                                save_every=max(n, 1), progress=False).y[-1]

        t_first, _ = U.best_of(lambda: run_a(1), 1)
        # (a) and (b) alternate, so a change of the machine's load hits both alike
        (t_a, y_a), (t_b, y_b) = interleaved([lambda: run_a(steps),
                                              lambda: hand_mpmath(d, rows, y0s, DT, steps, dps)], max(repeats, 3))
        verdicts = []
        with mpmath.workdps(dps + 10):
            scale = max(abs(v) for v in y_b)

            def rel(y):
                return max(abs(mpmath.mpf(str(a)) - b) for a, b in zip(y, y_b)) / scale

            table.add("(a) integrate mpmath", U.fmt_s(t_a), f"{t_a / steps * 1e3:.3g}", U.fmt_ratio(t_b, t_a),
                      mpmath.nstr(rel(y_a), 3), "-")
            table.add("(b) hand mpmath (fdot)", U.fmt_s(t_b), f"{t_b / steps * 1e3:.3g}", "1", "0", "-")
            results = {"(a)": rel(y_a)}
            if have_flint:
                t_c, y_c = U.best_of(lambda: hand_arb(d, rows, y0s, DT, steps, dps), repeats)
                mid_c = [exact_mpf(v.mid()) for v in y_c]
                rad_c = max(exact_mpf(v.rad()) for v in y_c)
                table.add("(c) hand arb", U.fmt_s(t_c), f"{t_c / steps * 1e3:.3g}", U.fmt_ratio(t_b, t_c),
                          mpmath.nstr(rel(mid_c), 3), mpmath.nstr(rad_c, 3))
                results["(c)"] = rel(mid_c)
                t_d_first, _ = U.best_of(lambda: run_arb(system, "stormer-verlet", y0s, DT, 1, digits=dps), 1)
                t_d, balls = U.best_of(lambda: run_arb(system, "stormer-verlet", y0s, DT, steps, digits=dps), repeats)
                table.add("(d) run_arb (generated)", U.fmt_s(t_d), f"{t_d / steps * 1e3:.3g}",
                          U.fmt_ratio(t_b, t_d), mpmath.nstr(rel(balls.midpoints), 3), mpmath.nstr(max(balls.radii), 3))
                results["(d)"] = rel(balls.midpoints)
                # the wrapping effect widens the balls by about 2 bits per step on this stiff system:
                # enough guard bits keep the radius below the digits asked for
                guard = 40 + WRAP_BITS_PER_STEP * steps
                t_g, wide = U.best_of(lambda: run_arb(system, "stormer-verlet", y0s, DT, steps, digits=dps,
                                                      guard_bits=guard), 1)
                bound_a, bound_b = wide.error_bound(y_a), wide.error_bound(y_b)
                table.add(f"(d') run_arb, {guard} guard bits", U.fmt_s(t_g), f"{t_g / steps * 1e3:.3g}",
                          U.fmt_ratio(t_b, t_g), mpmath.nstr(rel(wide.midpoints), 3), mpmath.nstr(max(wide.radii), 3))
                table.notes.append(f"(d): first call of 1 step (generates the arb code, cached after)"
                                   f" {t_d_first:.2f} s, not in the timed run")
                table.notes.append(f"rigorous bounds on max |y - x| / max |y_b|, x the exact discrete trajectory,"
                                   f" from (d'): (a) {mpmath.nstr(bound_a / scale, 3)},"
                                   f" (b) {mpmath.nstr(bound_b / scale, 3)}")
                if dps == 50:
                    bounded = bound_a <= AGREE_50 * scale and bound_b <= AGREE_50 * scale
                    verdicts.append(f"[{'PASS' if bounded else 'FAIL'}] (a) and (b) proved within {AGREE_50:g}"
                                    " (relative) of the exact discrete trajectory")
                    ok = ok and bounded
            else:
                table.add("(c) hand arb", "not installed", "-", "-", "-", "-")
                table.add("(d) run_arb", "not installed", "-", "-", "-", "-")
            t_e, (y_e, bits) = U.best_of(lambda: hand_fixed(d, rows, y0s, DT, steps, dps), repeats)
            y_e = [mpmath.mpf(v.p) / v.q for v in y_e]
            table.add(f"(e) fixed point ({bits} bits)", U.fmt_s(t_e), f"{t_e / steps * 1e3:.3g}",
                      U.fmt_ratio(t_b, t_e), mpmath.nstr(rel(y_e), 3), "-")
            results["(e)"] = rel(y_e)
        table.notes.append(f"(a): first call of 1 step (generates the code, cached after) {t_first:.2f} s, not in"
                           f" the timed run; building the system {t_build:.2f} s")
        table.notes.append("'vs (b)' is the speed relative to (b) (> 1: faster)")
        table.show(markdown=args.markdown)
        for line in verdicts:
            print(line)
        if dps == 50:
            ratio_50 = t_a / t_b
            agree = all(v <= AGREE_50 for v in results.values())
            print(f"[{'PASS' if agree else 'FAIL'}] every final state agrees with (b) to {AGREE_50:g} (50 digits)")
            ok = ok and agree
    if ratio_50 is not None:
        verdict, line = U.goal("(a) time / (b) time at 50 digits", ratio_50, GOAL_RATIO)
        print(line)
        ok = ok and (verdict == "PASS" or args.quick)
    print(f"# uptime: {os.popen('uptime').read().strip()}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
