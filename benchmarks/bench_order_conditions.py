"""Benchmark: Butcher order conditions to order 8 for the four-stage Gauss-Legendre tableau.

The tableau has exact algebraic entries: its nodes are 1/2 -+ sqrt(3/28 -+ sqrt(30)/70),
so every entry lies in a number field of degree 8.  The 200 rooted-tree conditions
Phi(t) = 1/gamma(t), |t| <= 8, must all be *proved* (exactly zero).

Methods (the same sympy entries for all):

(a) engine          geomcheck: T = ButcherTableau(A, b, c) from the sympy entries (the number
                    field is found and every entry converted), then order_conditions(T, 8)
                    (trees, elementary weights, exact decisions, the typeset derivation).
                    Also order(T, max_order=9), which finds the order 8 and its first
                    failing tree of order 9, and the family constructor gauss_legendre(4).
(b) nodepy exact    nodepy's RungeKuttaMethod(A, b).order_condition_residuals(p) followed by
                    sympy.simplify of every residual, as RungeKuttaMethod.order(mode='exact')
                    does, one order p per cell (each cell capped).
(c) nodepy float    nodepy's default RungeKuttaMethod.order() (floating point, tol 1e-14):
                    fast, but a numerical check, not a proof.

Run ``python benchmarks/bench_order_conditions.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U  # noqa: E402

GOAL_ORDER, GOAL_SECONDS = 8, 5.0
STAGES = 4


def _entries():
    """The Gauss-Legendre s=4 entries as sympy expressions (built untimed)."""
    from geomcheck.certify.families import gauss_legendre

    T = gauss_legendre(STAGES)
    return T.A, T.b, T.c


def _cold():
    from geomcheck.certify import tableaux

    tableaux.clear_caches()       # number fields and generated trees
    U.clear_caches()              # sympy's cache and geomcheck.clear_caches()


# --------------------------------------------------------------------------- engine cells


def engine_conditions(p):
    from geomcheck.certify.tableaux import ButcherTableau, order_conditions

    A, b, c = _entries()
    _cold()
    t0 = time.perf_counter()
    T = ButcherTableau(A, b, c, name=f"Gauss-Legendre s={STAGES}")
    t1 = time.perf_counter()
    cert = order_conditions(T, p)
    t2 = time.perf_counter()
    tex = cert.latex()
    return cert.holds, {"seconds": t2 - t0, "build": t1 - t0, "conditions": t2 - t1,
                        "stage": cert.stage, "n": len(cert.residual), "latex_chars": len(tex),
                        "how": cert.method.split(":")[0]}


def engine_order(max_order):
    from geomcheck.certify.tableaux import ButcherTableau, order

    A, b, c = _entries()
    _cold()
    t0 = time.perf_counter()
    cert = order(ButcherTableau(A, b, c), max_order=max_order)
    t1 = time.perf_counter()
    return cert.order, {"seconds": t1 - t0, "stage": cert.stage,
                        "failing": None if cert.failing_tree is None else cert.failing_tree.ascii()}


def engine_family():
    from geomcheck.certify.families import gauss_legendre

    _cold()
    t0 = time.perf_counter()
    T = gauss_legendre(STAGES)
    return T.exact, {"seconds": time.perf_counter() - t0}


# --------------------------------------------------------------------------- nodepy cells


def _nodepy_method():
    import numpy as np
    import nodepy.runge_kutta_method as rk

    A, b, _c = _entries()
    return rk.RungeKuttaMethod(np.array(A, dtype=object), np.array(b, dtype=object))


def nodepy_exact_order(p):
    """Residuals of the order-p conditions only (nodepy's own grouping), simplified."""
    import sympy

    m = _nodepy_method()
    U.clear_caches()
    t0 = time.perf_counter()
    z = m.order_condition_residuals(p)
    t1 = time.perf_counter()
    zs = [sympy.simplify(x) for x in z]
    t2 = time.perf_counter()
    zero = all(x == 0 for x in zs)
    return zero, {"seconds": t2 - t0, "residuals": t1 - t0, "simplify": t2 - t1, "n": len(zs)}


def nodepy_float_order():
    m = _nodepy_method()
    t0 = time.perf_counter()
    p = m.order()
    return p, {"seconds": time.perf_counter() - t0}


def nodepy_available():
    import importlib

    try:
        importlib.import_module("nodepy")
        return True, ""
    except Exception as exc:  # pragma: no cover - depends on the machine
        return False, f"{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------- main


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[0])
    ap.add_argument("--orders", type=U.int_list, default=None,
                    help="orders p for the per-order tables (default 1..8; --quick 1..5)")
    ap.add_argument("--cap", type=float, default=None,
                    help="hard cap per cell in seconds (default 600; --quick 30)")
    ap.add_argument("--nodepy-max-order", type=int, default=None,
                    help="highest order given to nodepy's exact mode (default 8; --quick 4)")
    args = ap.parse_args(argv)
    orders = args.orders or (list(range(1, 6)) if args.quick else list(range(1, GOAL_ORDER + 1)))
    cap = args.cap or (30.0 if args.quick else 600.0)
    np_max = args.nodepy_max_order or (4 if args.quick else GOAL_ORDER)

    U.print_header(f"bench_order_conditions: order conditions of Gauss-Legendre s={STAGES} "
                   f"(exact algebraic entries)", args)
    goals: list[tuple[str, str]] = []
    wrong: list[str] = []

    gc = None
    if not args.no_engine:
        gc, why = U.engine(())
        if gc is None:
            print(f"# engine unavailable ({why}); baselines only\n", flush=True)

    if gc is not None:
        t = U.Table("engine: T = ButcherTableau(A, b, c); order_conditions(T, p)  "
                    "(all conditions of order <= p)",
                    ["p", "trees", "build s", "conditions s", "total s", "result", "stage",
                     "LaTeX chars", "peak RSS"])
        goal_total = None
        for p in orders:
            r = U.run_cell(engine_conditions, p, cap=cap, repeats=args.repeats)
            if r.ok:
                ok = r.value is True
                if not ok:
                    wrong.append(f"engine p={p}: {r.value!r}")
                t.add(p, r.extra["n"], U.fmt_s(r.extra["build"]), U.fmt_s(r.extra["conditions"]),
                      U.fmt_s(r.seconds), "all zero" if ok else f"{r.value!r} (WRONG)", r.extra["stage"],
                      r.extra["latex_chars"], U.fmt_mb(r.peak_rss))
                if p == GOAL_ORDER and ok:
                    goal_total = r.seconds
            else:
                t.add(p, "-", "-", "-", r.status, "-", "-", "-", U.fmt_mb(r.peak_rss))
                wrong.append(f"engine p={p}: {r.status} {r.message}")
        t.notes.append("build = reading the sympy entries into the number field (primitive element by "
                       "sympy, exact conversion); conditions = trees, elementary weights in the field, "
                       "exact decisions, residuals back to sympy and the typeset derivation")
        t.notes.append("cold start in every repetition: sympy cache, geomcheck.clear_caches(), and "
                       "geomcheck.certify.tableaux.clear_caches() (number fields, generated trees)")
        t.show(args.markdown)
        if GOAL_ORDER in orders:
            goals.append(U.goal(f"engine: order conditions to order {GOAL_ORDER}, Gauss s={STAGES}, from sympy entries",
                                goal_total, GOAL_SECONDS, " s"))

        t2 = U.Table("engine: other entry points", ["call", "seconds", "result", "peak RSS"])
        mo = 6 if args.quick else GOAL_ORDER + 1
        r = U.run_cell(engine_order, mo, cap=cap, repeats=args.repeats)
        if r.ok:
            expect = min(mo, 2 * STAGES)
            verdict = f"order {r.value}" + (f", first failing tree {r.extra['failing']}" if r.extra["failing"] else
                                            " (lower bound)")
            if r.value != expect:
                wrong.append(f"engine order(): {r.value} != {expect}")
                verdict += " (WRONG)"
            t2.add(f"order(ButcherTableau(A, b, c), max_order={mo})", U.fmt_s(r.seconds), verdict,
                   U.fmt_mb(r.peak_rss))
        else:
            t2.add(f"order(..., max_order={mo})", r.status, r.message, "-")
        r = U.run_cell(engine_family, cap=cap, repeats=args.repeats)
        t2.add(f"gauss_legendre({STAGES}) (nodes by radicals, A and b solved in the field)",
               U.fmt_s(r.seconds) if r.ok else r.status, "exact entries" if r.ok and r.value else r.message,
               U.fmt_mb(r.peak_rss))
        t2.show(args.markdown)

    have_np, why = nodepy_available()
    t3 = U.Table("nodepy (same sympy entries): order_condition_residuals(p) + sympy.simplify, "
                 "as order(mode='exact') does", ["p", "conditions", "residuals s", "simplify s", "total s",
                                                 "result", "peak RSS"])
    np_total = 0.0
    np_complete = have_np
    if not have_np:
        t3.notes.append(f"nodepy could not be imported ({why}); install it with `pip install nodepy`")
    else:
        for p in [q for q in orders if q <= np_max]:
            r = U.run_cell(nodepy_exact_order, p, cap=cap, repeats=1)
            if r.ok:
                np_total += r.seconds
                t3.add(p, r.extra["n"], U.fmt_s(r.extra["residuals"]), U.fmt_s(r.extra["simplify"]),
                       U.fmt_s(r.seconds), "all zero" if r.value else "NOT all zero", U.fmt_mb(r.peak_rss))
            else:
                np_complete = False
                t3.add(p, "-", "-", "-", r.status, r.message, U.fmt_mb(r.peak_rss))
                t3.notes.append(f"stopped at p = {p}: {r.status} ({r.message})")
                break
        skipped = [q for q in orders if q > np_max]
        if skipped:
            np_complete = False
            t3.notes.append(f"orders {skipped} not run (--nodepy-max-order {np_max})")
        t3.notes.append(f"sum over the orders run: {np_total:.1f} s"
                        + ("" if np_complete else " (incomplete: see above)"))
        t3.notes.append("nodepy groups the conditions of each order differently (its own reduced set); "
                        "its count per order is printed")
    t3.show(args.markdown)

    if have_np:
        t4 = U.Table("nodepy float mode: RungeKuttaMethod(A, b).order() (tol 1e-14; not a proof)",
                     ["seconds", "order", "peak RSS"])
        r = U.run_cell(nodepy_float_order, cap=cap, repeats=args.repeats)
        t4.add(U.fmt_s(r.seconds) if r.ok else r.status, r.value if r.ok else r.message, U.fmt_mb(r.peak_rss))
        t4.show(args.markdown)

    for verdict, line in goals:
        print(line, flush=True)
    for w in wrong:
        print(f"[WRONG] {w}", flush=True)
    missed = any(v == "MISS" for v, _ in goals)
    return 1 if wrong or (missed and not args.quick) else 0


if __name__ == "__main__":
    sys.exit(main())
