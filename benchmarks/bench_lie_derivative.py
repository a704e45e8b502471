"""Benchmark: decide L_X w == 0 for the canonical symplectic form.

w = sum_i dq_i ^ dp_i on R^(2n), X the Hamiltonian vector field of

    concrete:  H = sum p_i^2/2 + sum q_i^4/4 + sum_{i<n} q_i q_{i+1}
    generic:   H = Function("H")(q_1..q_n, p_1..p_n)

All C(2n, 2) components of L_X w are decided; every method must say "zero".
Each time runs from the Hamiltonian H (an expression) to the decision.

Methods, side by side in the same run:

(a) engine       geomcheck: Chart, M.d(q_i) ^ M.d(p_i), hamiltonian_vector_field,
                 lie, is_zero
(b) plain        sympy matrices: X = J grad H, DX = X.jacobian(coords),
                 R = DX.T*W + W*DX, expand every entry, all zero?
(c) diffgeom     sympy.diffgeom: its LieDerivative of a 2-form cannot be evaluated
                 (TypeError, reported); timed instead: the invariant formula
                 (L_X w)(e_i, e_j) = X(w(e_i, e_j)) - w([X, e_i], e_j) - w(e_i, [X, e_j])
                 on the coordinate vector fields, up to dimension 8.

Growth (issue 18, item 5): for the generic H the growth exponent of each method, the slope
of log(time) against log(dim) fitted by least squares over the dimensions measured, is printed
side by side; goals: engine exponent <= 1.8 and engine time at dim 128 <= 2 s.  A dense
Hessian of a generic H has dim**2 entries (every one of them a term of L_X w before the
cancellation), so the engine cannot do better than quadratic growth once the fixed costs are
amortized: the exponent is fitted from dim 8 on, where those costs still count.

Run ``python benchmarks/bench_lie_derivative.py --help`` for the options.
"""

from __future__ import annotations

import functools
import itertools
import operator
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Make ``import geomcheck`` work from a source checkout without installing.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy as sp  # noqa: E402

import _util as U  # noqa: E402

DIMS = [2, 4, 8, 16, 32, 104, 256]
GENERIC_DIMS = [8, 16, 32, 64, 128]
#: plain sympy matrices with a generic H take minutes beyond this dimension
PLAIN_GENERIC_MAX_DIM = 64
DIFFGEOM_MAX_DIM = 8
QUICK_DIMS = [2, 4, 8, 16]
QUICK_GENERIC_DIMS = [8, 16]
QUICK_DIFFGEOM_MAX_DIM = 4

# Goals: engine time <= RATIO_GOAL x plain-matrix time (same run) at these sizes.
RATIO_GOAL = 0.2
CONCRETE_GOAL_DIMS = [32, 104, 256]
GENERIC_GOAL_DIMS = [32]
MEMORY_GOAL_DIM = 256
MEMORY_GOAL_BYTES = 2**30
# Plain-matrix reference times from the performance issue (this machine), for comparison.
ISSUE_PLAIN = {32: 0.11, 104: 0.58, 256: 3.0}

ENGINE_NAMES = ("Chart", "hamiltonian_vector_field", "lie")
# Goals for the generic H (issue 18): growth exponent, and the time at the largest dimension.
GROWTH_GOAL = 1.8
GENERIC_TIME_GOAL_DIM, GENERIC_TIME_GOAL = 128, 2.0


def growth_exponent(points) -> float | None:
    """Least-squares slope of log(seconds) against log(dim) over ``[(dim, seconds)]`` (None below 2 points)."""
    import math

    pts = [(math.log(d), math.log(t)) for d, t in points if t and t > 0]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None


# --------------------------------------------------------------------------- problems


def symbols(dim: int):
    if dim % 2 or dim < 2:
        raise SystemExit(f"dimension must be even and >= 2, got {dim}")
    n = dim // 2
    q = sp.symbols(f"q1:{n + 1}")
    p = sp.symbols(f"p1:{n + 1}")
    return q, p


def concrete_h(q, p):
    n = len(q)
    return (sp.Add(*[pi**2 / 2 for pi in p]) + sp.Add(*[qi**4 / 4 for qi in q])
            + sp.Add(*[q[i] * q[i + 1] for i in range(n - 1)]))


def generic_h(q, p):
    return sp.Function("H")(*q, *p)


def problem(dim: int, kind: str):
    q, p = symbols(dim)
    H = concrete_h(q, p) if kind == "concrete" else generic_h(q, p)
    return q, p, H


# --------------------------------------------------------------------------- (a) engine


def engine_decide(q, p, H):
    """From H to the decision with geomcheck; returns (is_zero, info)."""
    import geomcheck as gc

    M = gc.Chart(list(q) + list(p))
    w = functools.reduce(operator.add, [M.d(qi) ^ M.d(pi) for qi, pi in zip(q, p)])
    X = gc.hamiltonian_vector_field(H, w)
    L = gc.lie(X, w)
    verdict = L.is_zero()
    return verdict, {}


def engine_sanity(q, p):
    """A non-Hamiltonian field (X = q1 d/dq1): the engine must say False."""
    import geomcheck as gc

    M = gc.Chart(list(q) + list(p))
    w = functools.reduce(operator.add, [M.d(qi) ^ M.d(pi) for qi, pi in zip(q, p)])
    X = gc.VectorField(M, {q[0]: q[0]})
    return gc.lie(X, w).is_zero(), {}


# --------------------------------------------------------------------------- (b) plain matrices


def plain_field(q, p, H):
    coords = list(q) + list(p)
    n, N = len(q), 2 * len(q)
    J = sp.zeros(N, N)
    for i in range(n):
        J[i, n + i] = 1
        J[n + i, i] = -1
    grad = sp.Matrix([H.diff(c) for c in coords])
    return coords, J, J * grad           # W = J for w = sum dq^dp (W[q_i, p_i] = 1)


def plain_decide_field(coords, W, X):
    DX = X.jacobian(coords)
    R = DX.T * W + W * DX
    return all(sp.expand(e) == 0 for e in R)


def plain_decide(q, p, H):
    coords, W, X = plain_field(q, p, H)
    return plain_decide_field(coords, W, X), {}


def plain_sanity(q, p):
    coords, W, _ = plain_field(q, p, sp.Integer(0))
    X = sp.zeros(len(coords), 1)
    X[0] = q[0]
    return plain_decide_field(coords, W, X), {}


# --------------------------------------------------------------------------- (c) sympy.diffgeom


def diffgeom_setup(q, p):
    from sympy.diffgeom import CoordSystem, Manifold, Patch

    n, dim = len(q), 2 * len(q)
    # diffgeom wants its own coordinate symbols; real ones as in its examples
    syms = sp.symbols(" ".join(str(s) for s in list(q) + list(p)), real=True)
    C = CoordSystem("C", Patch("P", Manifold("M", dim)), list(syms))
    f, e, dx = C.base_scalars(), C.base_vectors(), C.base_oneforms()
    return n, dim, f, e, dx


def _diffgeom_w(n, dx):
    from sympy.diffgeom import WedgeProduct

    return sp.Add(*[WedgeProduct(dx[i], dx[n + i]) for i in range(n)])


def _diffgeom_hamiltonian_field(n, Hf, e):
    """X = sum H_p e_q - H_q e_p (so that i_X w = dH for w = sum dq ^ dp)."""
    return sp.Add(*[e[n + i].rcall(Hf) * e[i] - e[i].rcall(Hf) * e[n + i] for i in range(n)])


def _diffgeom_decide_field(dim, w, X, e):
    from sympy.diffgeom import Commutator

    def w_of(a, b):  # diffgeom cannot evaluate w on a zero vector field
        return 0 if a == 0 or b == 0 else w.rcall(a, b)

    ok = True
    for i, j in itertools.combinations(range(dim), 2):
        val = (X.rcall(w.rcall(e[i], e[j]))
               - w_of(Commutator(X, e[i]), e[j])
               - w_of(e[i], Commutator(X, e[j])))
        if sp.expand(val) != 0:
            ok = False
    return ok


def diffgeom_decide(q, p, H):
    """Concrete H only: H is carried over to diffgeom's base scalar fields."""
    n, dim, f, e, dx = diffgeom_setup(q, p)
    Hf = H.xreplace(dict(zip(list(q) + list(p), f)))
    w = _diffgeom_w(n, dx)
    X = _diffgeom_hamiltonian_field(n, Hf, e)
    return _diffgeom_decide_field(dim, w, X, e), {}


def diffgeom_builtin_message(q, p) -> str:
    """What sympy.diffgeom's own LieDerivative does with a 2-form."""
    from sympy.diffgeom import LieDerivative

    n, dim, f, e, dx = diffgeom_setup(q, p)
    w = _diffgeom_w(n, dx)
    Hf = concrete_h(f[:n], f[n:])
    X = _diffgeom_hamiltonian_field(n, Hf, e)
    L = LieDerivative(X, w)
    unevaluated = f"LieDerivative(X, w).doit() stays unevaluated ({type(L.doit()).__name__})"
    try:
        value = L.rcall(e[0], e[n])
    except TypeError as exc:
        return f"{unevaluated}; LieDerivative(X, w)(e_q1, e_p1) raises TypeError: {exc}"
    return f"{unevaluated}; LieDerivative(X, w)(e_q1, e_p1) did NOT raise: {value}"


def diffgeom_sanity(q, p):
    n, dim, f, e, dx = diffgeom_setup(q, p)
    X = f[0] * e[0]
    return _diffgeom_decide_field(dim, _diffgeom_w(n, dx), X, e), {}


# --------------------------------------------------------------------------- driver


def measure(method, dim, kind, cap, repeats):
    q, p, H = problem(dim, kind)
    fn = {"engine": engine_decide, "plain": plain_decide, "diffgeom": diffgeom_decide}[method]
    return U.run_cell(fn, q, p, H, cap=cap, repeats=repeats)


def verdict_cell(res: U.CellResult, expected=True) -> str:
    if not res.ok:
        return res.status
    if res.value is expected:
        return "ok"
    return f"WRONG ({res.value!r})"


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[1])
    ap.add_argument("--dims", type=U.int_list, default=None,
                    help=f"concrete-H dimensions (default {DIMS}; --quick {QUICK_DIMS})")
    ap.add_argument("--generic-dims", type=U.int_list, default=None,
                    help=f"generic-H dimensions (default {GENERIC_DIMS})")
    ap.add_argument("--diffgeom-max-dim", type=int, default=None,
                    help=f"largest dimension for sympy.diffgeom (default {DIFFGEOM_MAX_DIM})")
    ap.add_argument("--cap", type=float, default=300.0,
                    help="hard time cap per cell for engine and plain matrices (s)")
    ap.add_argument("--diffgeom-cap", type=float, default=60.0,
                    help="time cap per dimension for sympy.diffgeom (s); "
                         "larger dimensions are skipped after one exceeds it")
    args = ap.parse_args(argv)

    dims = args.dims or (QUICK_DIMS if args.quick else DIMS)
    gdims = args.generic_dims if args.generic_dims is not None else (
        QUICK_GENERIC_DIMS if args.quick else GENERIC_DIMS)
    dg_max = args.diffgeom_max_dim if args.diffgeom_max_dim is not None else (
        QUICK_DIFFGEOM_MAX_DIM if args.quick else DIFFGEOM_MAX_DIM)
    cap = min(args.cap, 60.0) if args.quick else args.cap

    U.print_header("bench_lie_derivative: decide L_X w == 0, w = sum dq_i ^ dp_i", args)

    gc = U.load_engine(args, ENGINE_NAMES)

    goals: list[tuple[str, str]] = []
    results: dict[tuple[str, str, int], U.CellResult] = {}
    slopes: dict[str, float | None] = {}  # growth exponents, generic H

    # ---- concrete H
    t = U.Table("L_X w == 0, concrete H = sum p^2/2 + sum q^4/4 + sum q_i q_{i+1}",
                ["dim", "components", "engine s", "plain-matrix s", "ratio (goal <= 0.2)",
                 "diffgeom s", "peak RSS engine / plain", "verdicts e/p/d"])
    dg_stopped = None
    for dim in dims:
        e = measure("engine", dim, "concrete", cap, args.repeats) if gc else None
        pm = measure("plain", dim, "concrete", cap, args.repeats)
        d = None
        if dim <= dg_max and dg_stopped is None:
            d = measure("diffgeom", dim, "concrete", args.diffgeom_cap, args.repeats)
            if d.status == "timeout":
                dg_stopped = dim
        results[("engine", "concrete", dim)] = e
        results[("plain", "concrete", dim)] = pm
        ratio = U.fmt_ratio(e.seconds if e and e.ok else None, pm.seconds if pm.ok else None)
        if dim in CONCRETE_GOAL_DIMS and ratio != "-":
            ratio += " PASS" if float(ratio) <= RATIO_GOAL else " MISS"
        dg_cell = U.fmt_s(d.seconds, d.status) if d else ("skipped" if dim > dg_max or dg_stopped
                                                          else "-")
        t.add(dim, dim * (dim - 1) // 2,
              U.fmt_s(e.seconds, e.status) if e else "n/a",
              U.fmt_s(pm.seconds, pm.status),
              ratio, dg_cell,
              f"{U.fmt_mb(e.peak_rss) if e else '-'} / {U.fmt_mb(pm.peak_rss)}",
              "/".join([verdict_cell(e) if e else "-", verdict_cell(pm),
                        verdict_cell(d) if d else "-"]))
        for name, r in (("engine", e), ("plain", pm), ("diffgeom", d)):
            if r is not None and r.status == "error":
                t.notes.append(f"{name} at dim {dim}: {r.message}")
    base = next((r.baseline_rss for r in results.values() if r and r.baseline_rss), None)
    t.notes.append(f"peak RSS is the whole child process; it starts at {U.fmt_mb(base)} "
                   "(interpreter + sympy" + (" + geomcheck)" if gc is not None else ")"))
    eng = next((r for r in results.values() if r is not None and r.caches), None)
    if eng is not None:
        t.notes.append("cleared before every repetition: sympy cache, " + ", ".join(eng.caches))
    if dg_stopped is not None:
        t.notes.append(f"diffgeom exceeded its cap of {args.diffgeom_cap:g} s at dim "
                       f"{dg_stopped}; larger dims skipped")
    t.notes.append(f"diffgeom is run up to dim {dg_max} only (its cost grows ~15-20x per "
                   "doubling of the dimension)")
    try:
        q, p = symbols(2)
        t.notes.append("sympy.diffgeom built-in: " + diffgeom_builtin_message(q, p))
    except Exception as exc:  # report, do not die
        t.notes.append(f"sympy.diffgeom built-in: unexpected {type(exc).__name__}: {exc}")
    ref = ", ".join(f"{k}: {v} s" for k, v in ISSUE_PLAIN.items())
    t.notes.append(f"issue reference times for plain matrices on this machine: {ref}")
    t.show(args.markdown)

    # ---- generic H
    if gdims:
        g = U.Table("L_X w == 0, generic H = H(q1..qn, p1..pn)",
                    ["dim", "engine s", "plain-matrix s", "ratio (goal <= 0.2)",
                     "peak RSS engine / plain", "verdicts e/p"])
        for dim in gdims:
            e = measure("engine", dim, "generic", cap, args.repeats) if gc else None
            pm = (measure("plain", dim, "generic", cap, args.repeats) if dim <= PLAIN_GENERIC_MAX_DIM
                  else U.CellResult("skipped", message=f"plain matrices are run up to dim {PLAIN_GENERIC_MAX_DIM}"))
            results[("engine", "generic", dim)] = e
            results[("plain", "generic", dim)] = pm
            ratio = U.fmt_ratio(e.seconds if e and e.ok else None,
                                pm.seconds if pm.ok else None)
            if dim in GENERIC_GOAL_DIMS and ratio != "-":
                ratio += " PASS" if float(ratio) <= RATIO_GOAL else " MISS"
            g.add(dim, U.fmt_s(e.seconds, e.status) if e else "n/a",
                  U.fmt_s(pm.seconds, pm.status), ratio,
                  f"{U.fmt_mb(e.peak_rss) if e else '-'} / {U.fmt_mb(pm.peak_rss)}",
                  "/".join([verdict_cell(e) if e else "-", verdict_cell(pm)]))
            for name, r in (("engine", e), ("plain", pm)):
                if r is not None and r.status == "error":
                    g.notes.append(f"{name} at dim {dim}: {r.message}")
        g.notes.append("diffgeom is not run for a generic H (an undefined function of its "
                       "base scalar fields)")
        g.show(args.markdown)

        x = U.Table("growth with the dimension, generic H: exponent of a least-squares fit of "
                    "log(time) against log(dim)", ["method", "dims fitted", "exponent"])
        for name in ("engine", "plain"):
            pts = [(dim, results[(name, "generic", dim)].seconds) for dim in gdims
                   if results.get((name, "generic", dim)) is not None and results[(name, "generic", dim)].ok]
            slope = growth_exponent(pts)
            x.add(name if name == "engine" else "plain sympy matrices", " ".join(str(d) for d, _ in pts) or "-",
                  "-" if slope is None else f"{slope:.2f}")
            slopes[name] = slope
        x.notes.append(f"goal: engine exponent <= {GROWTH_GOAL} over the dims measured; a dense Hessian has dim**2 "
                       "entries, so asymptotically 2 is the floor")
        x.show(args.markdown)

    # ---- sanity: every method must say "not zero" for a non-Hamiltonian field
    s = U.Table("sanity: X = q1 d/dq1 (not symplectic), dim 4; every method must say False",
                ["method", "verdict"])
    q, p = symbols(4)
    for name, fn, needed in (("engine", engine_sanity, gc is not None),
                             ("plain matrices", plain_sanity, True),
                             ("diffgeom formula", diffgeom_sanity, True)):
        if not needed:
            s.add(name, "n/a")
            continue
        r = U.run_cell(fn, q, p, cap=60.0, repeats=1)
        s.add(name, verdict_cell(r, expected=False) if r.ok else f"{r.status}: {r.message}")
    s.show(args.markdown)

    # ---- goals
    print("goals:", flush=True)
    if gc is None:
        print("  (engine not measured: goals not evaluated)", flush=True)
    else:
        for kind, gdims_goal in (("concrete", CONCRETE_GOAL_DIMS), ("generic", GENERIC_GOAL_DIMS)):
            for dim in gdims_goal:
                e = results.get(("engine", kind, dim))
                pm = results.get(("plain", kind, dim))
                if e is None or pm is None:
                    continue
                ratio = (e.seconds / pm.seconds if e.ok and pm.ok and e.value is True
                         else None)
                goals.append(U.goal(f"{kind} H, dim {dim}: engine / plain matrices", ratio,
                                    RATIO_GOAL))
        slope = slopes.get("engine")
        # the exponent is a goal only over a range where the dim**2 entries dominate the fixed costs
        if gdims and len(gdims) >= 2 and max(gdims) >= GENERIC_TIME_GOAL_DIM:
            plain_slope = slopes.get("plain")
            goals.append(U.goal("generic H: engine growth exponent"
                                + (f" (plain sympy matrices: {plain_slope:.2f})" if plain_slope is not None else ""),
                                slope, GROWTH_GOAL))
        e = results.get(("engine", "generic", GENERIC_TIME_GOAL_DIM))
        if e is not None:
            goals.append(U.goal(f"generic H, dim {GENERIC_TIME_GOAL_DIM}: engine seconds",
                                e.seconds if e.ok and e.value is True else None, GENERIC_TIME_GOAL, " s"))
        e = results.get(("engine", "concrete", MEMORY_GOAL_DIM))
        if e is not None:
            goals.append(U.goal(f"engine peak RSS at dim {MEMORY_GOAL_DIM} (whole process)",
                                e.peak_rss / 2**20 if e.peak_rss else None,
                                MEMORY_GOAL_BYTES / 2**20, " MB"))
        wrong = [k for k, r in results.items() if r is not None and r.ok and r.value is not True]
        goals.append(("PASS" if not wrong else "MISS",
                      f"[{'PASS' if not wrong else 'MISS'}] every completed method said zero"
                      + (f" (not: {wrong})" if wrong else "")))
        for _, line in goals:
            print("  " + line, flush=True)
    print("  timings are noisy: 2 cores shared with other jobs; compare ratios, not "
          "absolute times", flush=True)

    if args.profile and gc is not None:
        dim = max(dims)
        print(f"\ncProfile of the engine, concrete H, dim {dim} (top 25 by cumtime):",
              flush=True)
        print(U.run_profile(engine_decide, *problem(dim, "concrete")), flush=True)
        if gdims:
            gd = max(gdims)
            print(f"\ncProfile of the engine, generic H, dim {gd} (top 25 by cumtime):",
                  flush=True)
            print(U.run_profile(engine_decide, *problem(gd, "generic")), flush=True)

    return 1 if any(v == "MISS" for v, _ in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
