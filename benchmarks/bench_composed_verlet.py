"""Benchmark: certificates of long compositions and many degrees of freedom (typesetting bounded).

    p_half = p - h/2 grad V(q);  Q = q + h p_half;  P = p_half - h/2 grad V(Q)

with V = Function("V") (any smooth potential), written with geomcheck.substitute.

Rows:

(a) k steps  the 1-DOF step composed k times (each step substituted into the next with
             geomcheck.substitute: the expression tree doubles with every step, its DAG does not);
             certify_symplectic of the composite, with the pullback and the zero test timed
             apart
(b) n DOF    one step on a generic V(q_1..q_n), certify_symplectic
(c) order    certify_order of the k-step composite at order 2 (against the flow over k h)

Baseline, side by side: what deciding whether to typeset the map cost before
``geomcheck.latex.expression_size`` (a bounded count through the DAG): ``sympy.count_ops`` of
the map's entries, which walks the whole tree (capped).

Run ``python benchmarks/bench_composed_verlet.py --help`` for the options.
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

KS = [1, 2, 4, 8, 10, 12, 14, 16]
QUICK_KS = [1, 2, 4, 8]
NS = [1, 2, 4, 8, 16]
QUICK_NS = [1, 2]
GOAL_K, GOAL_K_SECONDS = 12, 10.0      # the zero test's default budget is 10 s
GOAL_N, GOAL_N_SECONDS = 8, 2.0
ENGINE_NAMES = ("Chart", "Map", "pullback", "certify_symplectic", "substitute")


def verlet(n: int):
    """The chart, the Stormer-Verlet step (Q, P) for a generic V(q_1..q_n), and w = sum dq ^ dp."""
    import geomcheck as gc

    M = gc.Chart([f"q{i}" for i in range(1, n + 1)] + [f"p{i}" for i in range(1, n + 1)])
    q, p = M.coords[:n], M.coords[n:]
    h = sp.Symbol("h")
    V = sp.Function("V")(*q)
    grad = [V.diff(qi) for qi in q]
    ph = [p[i] - h / 2 * grad[i] for i in range(n)]
    Q = [q[i] + h * ph[i] for i in range(n)]
    at = dict(zip(q, Q))
    P = [ph[i] - h / 2 * gc.substitute(grad[i], at) for i in range(n)]
    w = functools.reduce(operator.add, [M.d(a) ^ M.d(b) for a, b in zip(q, p)])
    return M, list(Q) + list(P), w


def composed(k: int):
    """The 1-DOF step composed k times, as a Map, and w."""
    import geomcheck as gc

    M, step, w = verlet(1)
    cur = list(M.coords)
    for _ in range(k):
        cur = [gc.substitute(e, dict(zip(M.coords, cur))) for e in step]
    return gc.Map(M, M, cur), w


def single(n: int):
    import geomcheck as gc

    M, exprs, w = verlet(n)
    return gc.Map(M, M, exprs), w


def engine_certificate(build, size):
    import geomcheck as gc
    from geomcheck.latex import expression_size

    phi, w = build(size)
    tree = expression_size(list(phi.exprs))
    dag = expression_size(list(phi.exprs), distinct=True)
    t0 = time.perf_counter()
    cert = gc.certify_symplectic(phi, w)
    seconds = time.perf_counter() - t0
    return cert.holds, {"seconds": seconds, "tree": tree, "dag": dag, "stage": cert.stage}


def engine_order(k):
    """certify_order of the k-step composite at order 2 against the flow over k h."""
    import geomcheck as gc

    phi, _ = composed(k)
    q, p = phi.source.coords
    V = sp.Function("V")
    X = gc.VectorField(phi.source, {q: k * p, p: -k * V(q).diff(q)})
    t0 = time.perf_counter()
    cert = gc.certify_order(phi, X, sp.Symbol("h"), 2)
    return cert.holds, {"seconds": time.perf_counter() - t0, "stage": cert.stage}


def engine_parts(build, size):
    """Pullback and zero test alone (no certificate, no derivation)."""
    import geomcheck as gc

    phi, w = build(size)
    t0 = time.perf_counter()
    pw = gc.pullback(w, phi)
    t1 = time.perf_counter()
    decision = (pw - w).zero_decision()
    t2 = time.perf_counter()
    return decision.is_zero, {"seconds": t2 - t0, "pullback": t1 - t0, "decision": t2 - t1}


def baseline_count_ops(build, size):
    phi, _ = build(size)
    t0 = time.perf_counter()
    ops = sum(sp.count_ops(e) for e in phi.exprs)
    return ops, {"seconds": time.perf_counter() - t0}


def _series(args, title, build, sizes, label, cap, goal_size, goal_seconds, goals, wrong):
    t = U.Table(title, [label, "tree nodes", "DAG nodes", "certificate s", "verdict", "pullback s",
                        "zero test s", "count_ops s (old typesetting decision)"])
    measured = None
    for size in sizes:
        cert = U.run_cell(engine_certificate, build, size, cap=cap, repeats=args.repeats)
        parts = U.run_cell(engine_parts, build, size, cap=cap, repeats=args.repeats)
        base = U.run_cell(baseline_count_ops, build, size, cap=cap, repeats=1)
        if cert.ok:
            verdict = "True" if cert.value is True else f"{cert.value!r} (WRONG)"
            if cert.value is not True:
                wrong.append(f"{label} = {size}: {cert.value!r}")
            cells = [cert.extra["tree"], cert.extra["dag"], U.fmt_s(cert.seconds), f"{verdict} ({cert.extra['stage']})"]
            if size == goal_size:
                measured = cert.seconds if cert.value is True else None
        else:
            cells = ["-", "-", cert.status, cert.message]
            wrong.append(f"{label} = {size}: {cert.status}")
        pcells = [U.fmt_s(parts.extra["pullback"]), U.fmt_s(parts.extra["decision"])] if parts.ok \
            else [parts.status, "-"]
        t.add(size, *cells, *pcells, U.fmt_s(base.seconds) if base.ok else f"{base.status} (> {cap:g} s)")
    t.notes.append("certificate = certify_symplectic (pullback, zero test, derivation); best of the repetitions")
    t.notes.append("count_ops column: sum(sympy.count_ops(e) for e in phi.exprs), what the map step of the"
                   " derivation cost before expression_size (capped)")
    t.show(args.markdown)
    if goal_size in sizes:
        goals.append(U.goal(f"{label} = {goal_size}: certify_symplectic", measured, goal_seconds, " s"))


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[1])
    ap.add_argument("--ks", type=U.int_list, default=None,
                    help=f"numbers of composed steps (default {KS}; --quick {QUICK_KS})")
    ap.add_argument("--ns", type=U.int_list, default=None,
                    help=f"degrees of freedom of the single step (default {NS}; --quick {QUICK_NS})")
    ap.add_argument("--cap", type=float, default=200.0, help="hard cap per cell (s)")
    args = ap.parse_args(argv)
    ks = args.ks or (QUICK_KS if args.quick else KS)
    ns = args.ns or (QUICK_NS if args.quick else NS)
    cap = min(args.cap, 30.0) if args.quick else args.cap

    U.print_header("bench_composed_verlet: certificates of composed steps and many DOF", args)
    gc = U.load_engine(args, ENGINE_NAMES)
    goals: list[tuple[str, str]] = []
    wrong: list[str] = []
    if gc is not None:
        _series(args, "certify_symplectic of k composed Stormer-Verlet steps, 1 DOF, generic V",
                composed, ks, "k", cap, GOAL_K, GOAL_K_SECONDS, goals, wrong)
        _series(args, "certify_symplectic of one Stormer-Verlet step, n DOF, generic V(q1..qn)",
                single, ns, "n", cap, GOAL_N, GOAL_N_SECONDS, goals, wrong)
        t = U.Table("certify_order(phi, k X, h, 2) of k composed Stormer-Verlet steps, 1 DOF, generic V",
                    ["k", "certificate s", "verdict"])
        measured = None
        for k in ks:
            r = U.run_cell(engine_order, k, cap=cap, repeats=args.repeats)
            if r.ok:
                t.add(k, U.fmt_s(r.seconds), f"{r.value!r} ({r.extra['stage']})")
                if r.value is not True:
                    wrong.append(f"order, k = {k}: {r.value!r}")
                if k == GOAL_K:
                    measured = r.seconds if r.value is True else None
            else:
                t.add(k, r.status, r.message)
                wrong.append(f"order, k = {k}: {r.status}")
        t.notes.append("theory: k steps of a second-order method approximate the flow over k h to order 2")
        t.show(args.markdown)
        if GOAL_K in ks:
            goals.append(U.goal(f"k = {GOAL_K}: certify_order at order 2", measured, GOAL_K_SECONDS, " s"))

    print("goals:", flush=True)
    if gc is None:
        print("  (engine not measured: goals not evaluated)", flush=True)
    else:
        goals.append(("PASS" if not wrong else "MISS",
                      f"[{'PASS' if not wrong else 'MISS'}] every certificate True"
                      + (f" (not: {wrong})" if wrong else "")))
        for _, line in goals:
            print("  " + line, flush=True)
    print("  timings are noisy: 2 cores shared with other jobs", flush=True)

    if args.profile and gc is not None:
        k = max(ks)
        print(f"\ncProfile of certify_symplectic, k = {k} composed steps (top 25 by cumtime):", flush=True)
        print(U.run_profile(lambda kk: engine_certificate(composed, kk), k, cap=cap * 3), flush=True)

    return 1 if any(v == "MISS" for v, _ in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
