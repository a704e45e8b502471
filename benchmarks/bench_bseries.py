"""Benchmark: B-series backward error analysis, exactly (geomcheck.bseries), side by side with the Python BSeries package.

The cross-package benchmark of BSeries.jl's documentation: the explicit midpoint rule
(A = [[0, 0], [1/2, 0]], b = [0, 1]) and the nonlinear oscillator f(u) = (-u2, u1)/(u1^2 + u2^2).

(a) coefficients        geomcheck.bseries.modified_equation / modifying_integrator of the explicit
                        midpoint rule up to order p (all rooted trees with at most p vertices,
                        exact rationals), and the sum of all coefficients (the number BSeries.jl's
                        benchmark prints, to compare runs).
(b) the vector field    the modified equation evaluated on the nonlinear oscillator: the series
                        (a), then geomcheck.bseries.evaluate (elementary differentials of f, a
                        VectorField); against the Python package ``BSeries`` (Ketcheson,
                        ``pip install BSeries``: its ``bs.modified_equation(y, f, A, b, order)``
                        does both steps with sympy) and against geomcheck's own Lie-series
                        ``modified_vector_field`` of the explicit midpoint MAP (an independent
                        computation: no trees).  Every engine result is compared with the
                        baselines' at a random rational point, exactly.
(c) structure checks    order, symmetry, symplecticity, conjugate symplecticity and energy
                        preservation of Gauss-Legendre s = 2 (exact entries in Q(sqrt(3))) up to
                        order 10, and of the trapezoidal rule (conjugate to the midpoint rule).
(d) the catalog         the report's table: every B-series scheme of the catalog read for every f.

Run ``python benchmarks/bench_bseries.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U  # noqa: E402

GOAL_COEFFICIENTS = (12, 10.0)       # the coefficient series to order 12 within 10 s
GOAL_FIELD = (8, 10.0)               # the modified vector field of the oscillator to order 8 within 10 s
GOAL_CHECKS = (10, 10.0)             # every structure check of Gauss-4 to order 10 within 10 s
GOAL_CATALOG = 30.0                  # the catalog's "for every f" table within 30 s


def _midpoint(order):
    import sympy

    from geomcheck.bseries import runge_kutta

    return runge_kutta([[0, 0], [sympy.Rational(1, 2), 0]], [0, 1], order=order, name="explicit midpoint")


# --------------------------------------------------------------------------- cells


def engine_coefficients(kind, p):
    from geomcheck.bseries import modified_equation, modifying_integrator

    U.clear_caches()
    t0 = time.perf_counter()
    series = (modified_equation if kind == "modified" else modifying_integrator)(_midpoint(p), p)
    seconds = time.perf_counter() - t0
    total = sum(c for _, c in series.items())
    return str(total), {"seconds": seconds, "trees": len(series.trees())}


def _oscillator():

    import geomcheck as gc

    M = gc.Chart("u1 u2")
    u1, u2 = M.coords
    r2 = u1**2 + u2**2
    return M, (u1, u2), [-u2 / r2, u1 / r2]


def _point():
    import sympy

    return {"u1": sympy.Rational(3, 7), "u2": sympy.Rational(-5, 11), "h": sympy.Rational(1, 13)}


def _at_point(exprs, symbols):
    import sympy

    pt = _point()
    subs = {s: pt[str(s)] for s in symbols}
    return [sympy.sympify(e).subs(subs).doit() for e in exprs]


def engine_field(p):
    import sympy

    from geomcheck.bseries import evaluate, modified_equation

    M, (u1, u2), f = _oscillator()
    h = sympy.Symbol("h")
    U.clear_caches()
    t0 = time.perf_counter()
    X = evaluate(modified_equation(_midpoint(p), p), f, h, coords=[u1, u2])
    seconds = time.perf_counter() - t0
    comps = [X.component(c) for c in (u1, u2)]
    return _at_point(comps, (u1, u2, h)), {"seconds": seconds}


def lie_series_field(p):
    import sympy

    import geomcheck as gc

    M, (u1, u2), f = _oscillator()
    h = sympy.Symbol("h")
    k1 = f
    mid = [u1 + h / 2 * k1[0], u2 + h / 2 * k1[1]]
    k2 = [gc.substitute(e, {u1: mid[0], u2: mid[1]}) for e in f]
    phi = gc.Map(M, M, [u1 + h * k2[0], u2 + h * k2[1]])
    U.clear_caches()
    t0 = time.perf_counter()
    terms = gc.modified_vector_field(phi, h, p)          # [F_1, ..., F_p]: f~ = sum h^(k-1) F_k
    seconds = time.perf_counter() - t0
    comps = [sum(h ** k * F.component(c) for k, F in enumerate(terms)) for c in (u1, u2)]
    return _at_point(comps, (u1, u2, h)), {"seconds": seconds}


def package_available():
    try:
        from BSeries import bs  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the machine
        return False, f"{type(exc).__name__}: {exc}"
    return True, ""


def package_field(p):
    import numpy as np
    import sympy
    from BSeries import bs

    _M, (u1, u2), f = _oscillator()
    bs.h = sympy.Symbol("h")   # the package reads the step symbol from its module
    A = np.array([[0, 0], [sympy.Rational(1, 2), 0]], dtype=object)
    b = np.array([0, 1], dtype=object)
    U.clear_caches()
    t0 = time.perf_counter()
    out = bs.modified_equation(np.array([u1, u2]), np.array(f, dtype=object), A, b, order=p)
    seconds = time.perf_counter() - t0
    return _at_point(list(out), (u1, u2, bs.h)), {"seconds": seconds}


def engine_checks(p):
    import sympy

    from geomcheck import bseries as bs

    r3 = sympy.sqrt(3)
    R = sympy.Rational
    U.clear_caches()
    t0 = time.perf_counter()
    gauss = bs.runge_kutta([[R(1, 4), R(1, 4) - r3 / 6], [R(1, 4) + r3 / 6, R(1, 4)]], [R(1, 2), R(1, 2)],
                           order=p, name="Gauss-4")
    verdicts = {
        "order": bs.order_of(gauss).order,
        "symmetric": bs.is_symmetric(gauss, p).holds,
        "symplectic": bs.is_symplectic(gauss, p).holds,
        "conjugate symplectic": bs.is_conjugate_symplectic(gauss, p).holds,
        "energy preserving": bs.is_energy_preserving(gauss, p).holds,
    }
    return verdicts, {"seconds": time.perf_counter() - t0}


def engine_trapezoidal(p):
    import sympy

    from geomcheck import bseries as bs

    R = sympy.Rational
    U.clear_caches()
    t0 = time.perf_counter()
    trap = bs.runge_kutta([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], order=p, name="trapezoidal")
    verdicts = {"symplectic": bs.is_symplectic(trap, p).holds,
                "conjugate symplectic": bs.is_conjugate_symplectic(trap, p).holds}
    return verdicts, {"seconds": time.perf_counter() - t0}


def engine_catalog():
    from integrators.bseries_table import bseries_properties, bseries_scheme_names

    U.clear_caches()
    t0 = time.perf_counter()
    rows = [bseries_properties(name) for name in bseries_scheme_names()]
    seconds = time.perf_counter() - t0
    checked = [r for r in rows if not r.skipped]
    return (len(rows), len(checked), sum(r.agrees is True for r in checked)), {"seconds": seconds}


# --------------------------------------------------------------------------- main


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[0])
    ap.add_argument("--cap", type=float, default=None, help="hard cap per cell in seconds (default 300; --quick 60)")
    args = ap.parse_args(argv)
    quick = args.quick
    cap = args.cap or (60.0 if quick else 300.0)
    U.print_header("bench_bseries: backward error analysis with exact B-series", args)
    goals, wrong = [], []

    # (a) coefficients
    t = U.Table("(a) coefficients of the explicit midpoint rule: all trees up to order p, exact",
                ["series", "p", "trees", "seconds", "sum of coefficients", "peak RSS"])
    orders = (6,) if quick else (6, 8, 9, 10, 11, 12)
    goal_s = None
    for kind in ("modified", "modifying"):
        for p in orders if kind == "modified" else [q for q in orders if q <= 10]:
            r = U.run_cell(engine_coefficients, kind, p, cap=cap, repeats=args.repeats)
            if r.ok:
                t.add(f"{kind} equation" if kind == "modified" else "modifying integrator", p, r.extra["trees"],
                      U.fmt_s(r.seconds), r.value, U.fmt_mb(r.peak_rss))
                if kind == "modified" and p == GOAL_COEFFICIENTS[0]:
                    goal_s = r.seconds
            else:
                t.add(kind, p, "-", r.status, "-", U.fmt_mb(r.peak_rss))
                wrong.append(f"coefficients {kind} p={p}: {r.status} {r.message}")
    t.notes.append("cold caches in every repetition (sympy, geomcheck.clear_caches: generated trees and the "
                   "tables of tree cuts); the sum of coefficients identifies the series across runs")
    t.show(args.markdown)
    if not quick:
        goals.append(U.goal(f"modified equation coefficients to order {GOAL_COEFFICIENTS[0]}", goal_s,
                            GOAL_COEFFICIENTS[1], " s"))

    # (b) the modified vector field on the nonlinear oscillator
    have_pkg, why = package_available()
    t = U.Table("(b) modified vector field of the explicit midpoint rule for f = (-u2, u1)/(u1^2 + u2^2), "
                "terms up to h^(p-1)",
                ["p", "engine s", "BSeries (Python) s", "Lie series of the map s", "engine = BSeries",
                 "engine = Lie series"])
    field_orders = (4,) if quick else (4, 6, 8)
    goal_f = None
    for p in field_orders:
        e = U.run_cell(engine_field, p, cap=cap, repeats=args.repeats)
        pk = U.run_cell(package_field, p, cap=cap, repeats=1) if have_pkg else None
        lie_max = 4 if quick else 6      # the Lie series of the map takes ~110 s at p = 6
        ls = U.run_cell(lie_series_field, p, cap=min(cap, 150.0), repeats=1) if p <= lie_max else None
        same_pkg = "-" if pk is None or not (e.ok and pk.ok) else str(e.value == pk.value)
        same_ls = "-" if ls is None or not (e.ok and ls.ok) else str(e.value == ls.value)
        for verdict in (same_pkg, same_ls):
            if verdict == "False":
                wrong.append(f"field p={p}: the engine disagrees with a baseline")
        t.add(p, U.fmt_s(e.seconds, e.status), "not installed" if pk is None else U.fmt_s(pk.seconds, pk.status),
              f"not run (p > {lie_max})" if ls is None else U.fmt_s(ls.seconds, ls.status), same_pkg, same_ls)
        if p == GOAL_FIELD[0] and e.ok:
            goal_f = e.seconds
    if not have_pkg:
        t.notes.append(f"the Python BSeries package is not importable here ({why}); pip install BSeries")
    t.notes.append("equality: both results evaluated exactly at u = (3/7, -5/11), h = 1/13")
    t.show(args.markdown)
    if not quick:
        goals.append(U.goal(f"modified vector field of the oscillator to order {GOAL_FIELD[0]}", goal_f,
                            GOAL_FIELD[1], " s"))

    # (c) structure checks
    t = U.Table("(c) structure checks, exact, up to order p", ["method", "p", "seconds", "verdicts"])
    pc = 5 if quick else GOAL_CHECKS[0]
    r = U.run_cell(engine_checks, pc, cap=cap, repeats=args.repeats)
    expect = {"order": 4, "symmetric": True, "symplectic": True, "conjugate symplectic": True,
              "energy preserving": False}
    if r.ok:
        t.add("Gauss-4 (Q(sqrt 3))", pc, U.fmt_s(r.seconds), ", ".join(f"{k}: {v}" for k, v in r.value.items()))
        if r.value != expect:
            wrong.append(f"Gauss-4 checks: {r.value} != {expect}")
    else:
        t.add("Gauss-4", pc, r.status, r.message)
        wrong.append(f"Gauss-4 checks: {r.status}")
    r2 = U.run_cell(engine_trapezoidal, pc, cap=cap, repeats=args.repeats)
    if r2.ok:
        t.add("trapezoidal", pc, U.fmt_s(r2.seconds), ", ".join(f"{k}: {v}" for k, v in r2.value.items()))
        if r2.value != {"symplectic": False, "conjugate symplectic": True}:
            wrong.append(f"trapezoidal checks: {r2.value}")
    else:
        t.add("trapezoidal", pc, r2.status, r2.message)
        wrong.append(f"trapezoidal checks: {r2.status}")
    t.show(args.markdown)
    if not quick:
        goals.append(U.goal(f"every structure check of Gauss-4 to order {GOAL_CHECKS[0]}",
                            r.seconds if r.ok else None, GOAL_CHECKS[1], " s"))

    # (d) the report's table: the catalog for every f
    if not quick:
        t = U.Table("(d) the catalog read as B-series (ig.bseries_properties for every B-series scheme)",
                    ["schemes", "expanded", "agree with the declared order and properties", "seconds"])
        r = U.run_cell(engine_catalog, cap=cap, repeats=1)
        if r.ok:
            n, expanded, agree = r.value
            t.add(n, expanded, agree, U.fmt_s(r.seconds))
            if agree != expanded:
                wrong.append(f"catalog: {expanded - agree} expanded schemes disagree")
        else:
            t.add("-", "-", r.status, "-")
            wrong.append(f"catalog table: {r.status}")
        t.show(args.markdown)
        goals.append(U.goal("the catalog's 'for every f' table", r.seconds if r.ok else None, GOAL_CATALOG, " s"))

    for _verdict, line in goals:
        print(line)
    for line in wrong:
        print("WRONG:", line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
