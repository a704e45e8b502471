"""Benchmark: Stormer-Verlet with a generic potential preserves w = sum dq_i ^ dp_i.

    p_half = p - h/2 grad V(q);  Q = q + h p_half;  P = p_half - h/2 grad V(Q)

with V = Function("V")(q_1..q_n) (any smooth potential), n = 1..16.

Methods:

(a) engine   geomcheck: phi = Map(M, M, [Q..., P...]); pw = pullback(w, phi);
             (pw - w).is_zero()  -- the pullback and the decision timed separately
(b) plain    sympy: J = Jacobian of (Q, P); R = J^T Omega J - Omega; every entry
             expanded (cheap) or simplified (the usual advice; very slow), time-capped

grad V at the new point Q is written Subs(Derivative(V(x), x_i), x, Q) with dummy x.
(In sympy 1.14, Derivative(V(q), q_i).subs({q: Q}, simultaneous=True) gives a
different, wrong, expression: the free q_i inside Q_j is captured by the Subs
variable.  The script checks this numerically and reports it.)

Run ``python benchmarks/bench_pullback_verlet.py --help`` for the options.
"""

from __future__ import annotations

import functools
import operator
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Make ``import geomcheck`` work from a source checkout without installing.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy as sp  # noqa: E402

import _util as U  # noqa: E402

NS = list(range(1, 17))
QUICK_NS = [1, 2, 3]
GOAL_N, GOAL_SECONDS = 8, 2.0
ENGINE_NAMES = ("Chart", "Map", "pullback")


# --------------------------------------------------------------------------- the map


def verlet(n: int):
    """Symbols and the Stormer-Verlet map (Q, P) for a generic V(q_1..q_n)."""
    q = sp.symbols(f"q1:{n + 1}")
    p = sp.symbols(f"p1:{n + 1}")
    h = sp.Symbol("h")
    x = sp.symbols(f"x1:{n + 1}", cls=sp.Dummy)
    Vx = sp.Function("V")(*x)
    Vq = sp.Function("V")(*q)
    grad_q = [Vq.diff(qi) for qi in q]
    p_half = [p[i] - h / 2 * grad_q[i] for i in range(n)]
    Q = [q[i] + h * p_half[i] for i in range(n)]
    grad_Q = [sp.Subs(Vx.diff(xi), x, Q) for xi in x]
    P = [p_half[i] - h / 2 * grad_Q[i] for i in range(n)]
    return q, p, h, Q, P


def explicit_euler(n: int):
    """Q = q + h p, P = p - h grad V(q): NOT symplectic (for the sanity check)."""
    q = sp.symbols(f"q1:{n + 1}")
    p = sp.symbols(f"p1:{n + 1}")
    h = sp.Symbol("h")
    Vq = sp.Function("V")(*q)
    Q = [q[i] + h * p[i] for i in range(n)]
    P = [p[i] - h * Vq.diff(q[i]) for i in range(n)]
    return q, p, h, Q, P


def naive_subs_differs(n: int = 2) -> bool:
    """True when grad V(q).subs({q: Q}, simultaneous=True) is NOT grad V at Q.

    Checked by putting a concrete V into both expressions and comparing numerically.
    """
    q, p, h, Q, P = verlet(n)
    Vq = sp.Function("V")(*q)
    naive = [Vq.diff(qi).subs(dict(zip(q, Q)), simultaneous=True) for qi in q]
    good = [P[i] - (Q[i] - q[i]) / h for i in range(n)]  # = -h/2 grad V(Q)
    good = [-2 * g / h for g in good]
    y = sp.symbols(f"y1:{n + 1}")
    concrete = sp.Lambda(y, sp.Add(*[yi**3 for yi in y]) + sp.Mul(*y) * y[0])
    point = {s: sp.Rational(k + 2, 7) * (-1) ** k for k, s in enumerate(list(q) + list(p))}
    point[h] = sp.Rational(1, 3)

    def value(e):
        e = e.subs(sp.Function("V"), concrete).doit()
        return sp.N(e.subs(point), 30)

    return any(abs(value(a) - value(b)) > 1e-20 for a, b in zip(naive, good))


# --------------------------------------------------------------------------- (a) engine


def engine_run(q, p, h, Q, P):
    import geomcheck as gc

    M = gc.Chart(list(q) + list(p))
    w = functools.reduce(operator.add, [M.d(qi) ^ M.d(pi) for qi, pi in zip(q, p)])
    t0 = time.perf_counter()
    phi = gc.Map(M, M, list(Q) + list(P))
    pw = gc.pullback(w, phi)
    t1 = time.perf_counter()
    diff = pw - w
    verdict = diff.is_zero()
    t2 = time.perf_counter()
    extra = {"pullback": t1 - t0, "decision": t2 - t1, "seconds": t2 - t0}
    # how it was decided, if the engine says (outside the timed region)
    zd = getattr(diff, "zero_decision", None)
    if callable(zd):
        try:
            zd = zd()
        except Exception as exc:  # report, never die
            zd = None
            extra["how"] = f"zero_decision() raised {type(exc).__name__}"
    if zd is not None:
        stage, method = getattr(zd, "stage", None), getattr(zd, "method", None)
        if stage or method:
            extra["how"] = f"{stage}: {method}" if stage and method else str(stage or method)
    return verdict, extra


# --------------------------------------------------------------------------- (b) plain sympy


def plain_run(q, p, h, Q, P, how: str):
    n = len(q)
    coords = list(q) + list(p)
    J = sp.Matrix(list(Q) + list(P)).jacobian(coords)
    Om = sp.zeros(2 * n, 2 * n)
    for i in range(n):
        Om[i, n + i] = 1
        Om[n + i, i] = -1
    R = J.T * Om * J - Om
    reduce_ = sp.expand if how == "expand" else sp.simplify
    nonzero = sum(1 for e in R if reduce_(e) != 0)
    return nonzero == 0, {"nonzero": nonzero, "entries": len(R)}


def plain_expand(q, p, h, Q, P):
    return plain_run(q, p, h, Q, P, "expand")


def plain_simplify(q, p, h, Q, P):
    return plain_run(q, p, h, Q, P, "simplify")


# --------------------------------------------------------------------------- driver


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[1])
    ap.add_argument("--ns", type=U.int_list, default=None,
                    help=f"numbers of degrees of freedom n (default 1..16; --quick {QUICK_NS})")
    ap.add_argument("--cap", type=float, default=60.0,
                    help="the series stops after the first n that takes longer than this (s)")
    ap.add_argument("--hard-cap", type=float, default=None,
                    help="a cell is killed after this many seconds (default 3 x --cap)")
    ap.add_argument("--baseline-cap", type=float, default=60.0,
                    help="time cap per n for the plain-sympy baselines (s)")
    ap.add_argument("--expand-max-n", type=int, default=None,
                    help="largest n for the plain expand baseline (default 8; --quick 2)")
    ap.add_argument("--simplify-max-n", type=int, default=None,
                    help="largest n for the plain simplify baseline (default 2; --quick 1)")
    args = ap.parse_args(argv)

    ns = args.ns or (QUICK_NS if args.quick else NS)
    soft = min(args.cap, 20.0) if args.quick else args.cap
    hard = args.hard_cap or (soft if args.quick else 3 * soft)
    bcap = min(args.baseline_cap, 10.0) if args.quick else args.baseline_cap
    exp_max = args.expand_max_n if args.expand_max_n is not None else (2 if args.quick else 8)
    simp_max = args.simplify_max_n if args.simplify_max_n is not None else (
        1 if args.quick else 2)

    U.print_header("bench_pullback_verlet: Stormer-Verlet, generic V, phi^* w == w", args)

    gc = U.load_engine(args, ENGINE_NAMES)

    goals: list[tuple[str, str]] = []
    wrong: list[str] = []

    # ---- engine
    if gc is not None:
        t = U.Table("engine: phi = Map(M, M, [Q, P]); pw = pullback(w, phi); (pw - w).is_zero()",
                    ["n", "dim", "pullback s", "decision s", "total s", "result",
                     "peak RSS", "how decided"])
        stopped = None
        goal_total = None
        cleared: list[str] = []
        for n in ns:
            r = U.run_cell(engine_run, *verlet(n), cap=hard, repeats=args.repeats)
            cleared = r.caches or cleared
            if r.ok:
                pb, dec = r.extra.get("pullback"), r.extra.get("decision")
                result = "True" if r.value is True else f"{r.value!r} (WRONG)"
                if r.value is not True:
                    wrong.append(f"engine n={n}: {r.value!r}")
                t.add(n, 2 * n, U.fmt_s(pb), U.fmt_s(dec), U.fmt_s(r.seconds), result,
                      U.fmt_mb(r.peak_rss), r.extra.get("how", "-"))
                if n == GOAL_N:
                    goal_total = r.seconds if r.value is True else None
            else:
                t.add(n, 2 * n, r.status, "-", "-", "-", U.fmt_mb(r.peak_rss), r.message)
                wrong.append(f"engine n={n}: {r.status}")
            if not r.ok or r.seconds > soft:
                stopped = (n, r)
                break
        if stopped is not None and stopped[0] != ns[-1]:
            n, r = stopped
            if r.ok:
                t.notes.append(f"series stopped after n = {n}: it took {r.seconds:.1f} s "
                               f"> cap {soft:g} s")
            else:
                t.notes.append(f"series stopped at n = {n}: {r.status} ({r.message})")
        if cleared:
            t.notes.append("cleared before every repetition: sympy cache, " + ", ".join(cleared))
        t.notes.append("total = pullback + decision, best over the repetitions; the two "
                       "columns are that repetition's split (Chart and w are built untimed)")
        t.show(args.markdown)
        if GOAL_N in ns:
            goals.append(U.goal(f"engine, n = {GOAL_N} (dim {2 * GOAL_N}): pullback + decision",
                                goal_total, GOAL_SECONDS, " s"))

    # ---- plain sympy baselines
    b = U.Table("plain sympy: J = jacobian(Q, P); R = J^T Omega J - Omega; reduce each entry",
                ["n", "reduce", "seconds", "says zero?", "nonzero entries"])
    for how, max_n in (("expand", exp_max), ("simplify", simp_max)):
        for n in [m for m in ns if m <= max_n]:
            r = U.run_cell(plain_expand if how == "expand" else plain_simplify, *verlet(n),
                           cap=bcap, repeats=args.repeats)
            if r.ok:
                b.add(n, how, U.fmt_s(r.seconds), "yes" if r.value else "no",
                      f"{r.extra['nonzero']} of {r.extra['entries']}")
            else:
                b.add(n, how, r.status, "-", r.message)
                break  # larger n will not fit either
    b.notes.append(f"baselines are capped at {bcap:g} s per n; expand up to n = {exp_max}, "
                   f"simplify up to n = {simp_max}")
    b.notes.append("grad V(Q) is built as Subs(Derivative(V(x), x_i), x, Q) with dummy x, "
                   "for the engine and the baselines alike")
    if not args.quick:
        try:
            differs = naive_subs_differs(2)
            b.notes.append(
                "sympy pitfall: Derivative(V(q), q_i).subs({q: Q}, simultaneous=True) "
                + ("gives a DIFFERENT (wrong) map at n = 2 (checked numerically with a "
                   "concrete V): the free q_i inside Q_j is captured" if differs else
                   "agrees with the Subs form at n = 2 in this sympy"))
        except Exception as exc:
            b.notes.append(f"naive-subs check failed: {type(exc).__name__}: {exc}")
    b.show(args.markdown)

    # ---- sanity: a map that is not symplectic must be reported as such
    s = U.Table("sanity: explicit Euler (not symplectic), n = 2; every method must say False",
                ["method", "verdict", "how decided"])
    for name, fn, needed in (("engine", engine_run, gc is not None),
                             ("plain expand", plain_expand, True)):
        if not needed:
            s.add(name, "n/a", "-")
            continue
        r = U.run_cell(fn, *explicit_euler(2), cap=60.0, repeats=1)
        if r.ok:
            s.add(name, "ok" if r.value is False else f"WRONG ({r.value!r})",
                  r.extra.get("how", f"{r.extra.get('nonzero', '?')} nonzero entries"))
            if r.value is not False:
                wrong.append(f"{name} on explicit Euler: {r.value!r}")
        else:
            s.add(name, r.status, r.message)
            wrong.append(f"{name} on explicit Euler: {r.status}")
    s.show(args.markdown)

    print("goals:", flush=True)
    if gc is None:
        print("  (engine not measured: goals not evaluated)", flush=True)
    else:
        goals.append(("PASS" if not wrong else "MISS",
                      f"[{'PASS' if not wrong else 'MISS'}] every answer right (engine True "
                      "for every n; False for explicit Euler)"
                      + (f" (not: {wrong})" if wrong else "")))
        for _, line in goals:
            print("  " + line, flush=True)
    print("  timings are noisy: 2 cores shared with other jobs", flush=True)

    if args.profile and gc is not None:
        n = GOAL_N if GOAL_N in ns else max(ns)
        print(f"\ncProfile of the engine, n = {n} (top 25 by cumtime):", flush=True)
        print(U.run_profile(engine_run, *verlet(n)), flush=True)

    return 1 if any(v == "MISS" for v, _ in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
