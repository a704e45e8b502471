"""Benchmark: the same Stormer-Verlet map written in every common sympy notation.

    p_half = p - h/2 grad V(q);  Q = q + h p_half;  P = p_half - h/2 grad V(Q)

with V = Function("V")(q_1..q_n) (any smooth potential).  Only the way grad V at the
new point Q is written changes from row to row:

  substitute        geomcheck.substitute(V(q).diff(q_i), {q: Q})        (the reference)
  Subs              Subs(Derivative(V(y), y_i), y, Q)
  subs simultaneous diff(V(y), y_i).subs({y: Q}, simultaneous=True)
  Derivative.subs   Derivative(V(y), y_i).subs({y: Q})                  (y fresh symbols:
                                                                          sequential is right)
  chain rule F(t)   V(F_1(t), ..., F_n(t)).diff(t), the coefficient of F_i'(t), then
                    .subs({F_j(t): Q_j})
  chain rule shift  V(Q_1, ..., Q_i + t, ..., Q_n).diff(t).subs(t, 0)
  Subs.doit         Subs(Derivative(V(y), y_i), y, Q).doit()

Each cell times ``certify_symplectic(Map(M, M, exprs), w)`` end to end (the Map is built
inside the timed region; building the expressions with sympy is timed apart, as
"build"), in a forked child with cold caches (see ``_util.py``).  Each row measures the
substitute form again right before its own form, and the ratio is taken within that pair,
so that the drifting load of a shared machine does not masquerade as a difference.  Every form must answer True for Verlet, and False (with a counterexample) for
a wrong variant whose last kick takes grad V at the OLD point q, written in the same form.

A second table composes k Verlet steps on one degree of freedom (the state expressions
fed back into the step), grad V written in each form; sympy's own ``Subs`` constructor,
which prints its point to name a placeholder, makes *building* the nested ``Subs`` forms
slow (reported as "build", capped); the engine's part is "certify".

A third table (issue 18, item 5) scales the degrees of freedom, n = 8, 12, 16, in every form
above and one more, the catalog's ``stormer-verlet`` step map on a generic system
(``integrators.HamiltonianSystem(sum p^2/2 + V(q), ...)``, certified with the system's own
omega): each certificate must say True, proved (a proof, not a probabilistic one), and at
n = 16 take at most 3 s.

Goals: every form within 2x of the substitute form, at n = 8 and at k = 12; every form at
n = 16 within 3 s, proved.

Run ``python benchmarks/bench_input_forms.py --help`` for the options.
"""

from __future__ import annotations

import functools
import multiprocessing
import operator
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Make ``import geomcheck`` work from a source checkout without installing.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy as sp  # noqa: E402

import _util as U  # noqa: E402

N, QUICK_N = 8, 2
STEPS, QUICK_STEPS = 12, 2
GOAL_RATIO = 2.0
SCALING_NS, QUICK_SCALING_NS = [8, 12, 16], [2]
SCALING_GOAL_N, SCALING_GOAL_SECONDS = 16, 3.0
CATALOG = "catalog stormer-verlet"
ENGINE_NAMES = ("Chart", "Map", "substitute", "certify_symplectic")

FORMS = ("substitute", "Subs", "subs simultaneous", "Derivative.subs", "chain rule F(t)",
         "chain rule shift", "Subs.doit")


# --------------------------------------------------------------------------- grad V at a point


def grad_at(form: str, V, coords, point):
    """grad V evaluated at ``point`` (expressions in ``coords``), written in ``form``."""
    import geomcheck as gc

    n = len(point)
    y = sp.symbols(f"y1:{n + 1}")
    if form == "substitute":
        return [gc.substitute(V(*coords).diff(c), dict(zip(coords, point))) for c in coords]
    if form == "Subs":
        return [sp.Subs(sp.Derivative(V(*y), yi), y, point) for yi in y]
    if form == "subs simultaneous":
        return [sp.diff(V(*y), yi).subs(dict(zip(y, point)), simultaneous=True) for yi in y]
    if form == "Derivative.subs":
        return [sp.Derivative(V(*y), yi).subs(dict(zip(y, point))) for yi in y]
    if form == "chain rule F(t)":
        t = sp.Symbol("t")
        F = [sp.Function(f"F{i + 1}")(t) for i in range(n)]
        total = V(*F).diff(t)
        return [total.coeff(Fi.diff(t)).subs(dict(zip(F, point))) for Fi in F]
    if form == "chain rule shift":
        t = sp.Symbol("t")
        return [V(*[a + t if j == i else a for j, a in enumerate(point)]).diff(t).subs(t, 0)
                for i in range(n)]
    if form == "Subs.doit":
        return [sp.Subs(sp.Derivative(V(*y), yi), y, point).doit() for yi in y]
    raise ValueError(f"unknown form {form!r}; expected one of {FORMS}")


def verlet(form: str, n: int, wrong: bool = False):
    """Chart coordinates and the Verlet map's expressions, grad V(Q) written in ``form``.

    ``wrong``: the last kick takes grad V at the old point q (not symplectic).
    """
    q = sp.symbols(f"q1:{n + 1}")
    p = sp.symbols(f"p1:{n + 1}")
    h = sp.Symbol("h")
    V = sp.Function("V")
    p_half = [p[i] - h / 2 * V(*q).diff(q[i]) for i in range(n)]
    Q = [q[i] + h * p_half[i] for i in range(n)]
    G = grad_at(form, V, q, list(q) if wrong else Q)
    P = [p_half[i] - h / 2 * G[i] for i in range(n)]
    return list(q) + list(p), Q + P


def composed(form: str, steps: int):
    """``steps`` Verlet steps on one degree of freedom, grad V written in ``form``."""
    q, p, h = sp.symbols("q p h")
    V = sp.Function("V")
    Q, P = q, p
    for _ in range(steps):
        p_half = P - h / 2 * grad_at(form, V, (q,), [Q])[0]
        Q = Q + h * p_half
        P = p_half - h / 2 * grad_at(form, V, (q,), [Q])[0]
    return [q, p], [Q, P]


# --------------------------------------------------------------------------- cells

# expressions built once per forked child: repetitions time only the engine
_BUILT: dict = {}
# the build time of the current cell, shared with the parent (the cells are forked), so
# that a cell killed at its cap still tells whether sympy's build or the engine ran out
_BUILD_SECONDS = multiprocessing.get_context("fork").Value("d", -1.0)


def certify_cell(builder, *args):
    import geomcheck as gc

    key = (builder.__name__,) + args
    if key not in _BUILT:
        t0 = time.perf_counter()
        _BUILT[key] = (builder(*args), time.perf_counter() - t0)
        _BUILD_SECONDS.value = _BUILT[key][1]
        U.clear_caches()  # building warmed sympy's cache; the engine starts cold
    (coords, exprs), build = _BUILT[key]
    t0 = time.perf_counter()
    M = gc.Chart(coords)
    half = len(coords) // 2
    w = functools.reduce(operator.add, [M.d(a) ^ M.d(b) for a, b in zip(coords[:half], coords[half:])])
    t1 = time.perf_counter()
    cert = gc.certify_symplectic(gc.Map(M, M, exprs), w)
    t2 = time.perf_counter()
    extra = {"seconds": t2 - t1, "build": build, "stage": cert.stage,
             "counterexample": cert.counterexample is not None}
    return cert.holds, extra


def catalog_cell(n: int):
    """The catalog's Stormer-Verlet step on a generic n-dof system, certified with the system's omega."""
    import geomcheck as gc
    import integrators as ig

    q = sp.symbols(f"q1:{n + 1}")
    p = sp.symbols(f"p1:{n + 1}")
    system = ig.HamiltonianSystem(sp.Add(*[pi**2 for pi in p]) / 2 + sp.Function("V")(*q), q=list(q), p=list(p))
    t0 = time.perf_counter()
    phi = ig.scheme("stormer-verlet").step_map(system)
    t1 = time.perf_counter()
    cert = gc.certify_symplectic(phi, system.omega)
    t2 = time.perf_counter()
    return cert.holds, {"seconds": t2 - t1, "build": t1 - t0, "stage": cert.stage,
                        "kind": cert.soundness.kind, "counterexample": cert.counterexample is not None}


def scaling_table(args, ns, cap, goals, wrong_answers):
    """Every form (and the catalog's step map) at each n: certify s, and whether it is a proof."""
    forms = list(FORMS) + [CATALOG]
    t = U.Table("Stormer-Verlet, generic V, n degrees of freedom, every form: certify_symplectic s",
                ["n"] + forms + ["slowest / substitute", "plain sympy expand s"])
    for n in ns:
        cells, ref = [], None
        # the peer, in the same run: J^T Omega J - Omega with sympy's jacobian, every entry expanded
        from bench_pullback_verlet import plain_expand, verlet as subs_verlet

        plain = U.run_cell(plain_expand, *subs_verlet(n), cap=cap, repeats=1)
        for form in forms:
            r = (U.run_cell(catalog_cell, n, cap=cap, repeats=args.repeats) if form == CATALOG
                 else measure(verlet, form, (n,), cap, args.repeats))
            if not r.ok:
                cells.append(r.status)
                wrong_answers.append(f"scaling n = {n}: {form}: {r.status} ({r.message[:80]})")
                continue
            proved = r.value is True and r.extra.get("kind", "proof") == "proof" if form == CATALOG \
                else r.value is True and r.extra.get("stage") in ("structural", "exact")
            cells.append(U.fmt_s(r.seconds) + ("" if proved else f" ({r.value!r}, {r.extra.get('stage')})"))
            if r.value is not True:
                wrong_answers.append(f"scaling n = {n}: {form}: {r.value!r}")
            if form == "substitute":
                ref = r.seconds
            if n == SCALING_GOAL_N:
                goals.setdefault("scaling", []).append((form, r.seconds if proved else None))
        slowest = max((c for c in cells if c[:1].isdigit()), key=lambda c: float(c.split()[0]), default=None)
        t.add(n, *cells, U.fmt_ratio(float(slowest.split()[0]), ref) if slowest and ref else "-",
              U.fmt_s(plain.seconds, plain.status) + ("" if not plain.ok or plain.value is True else f" ({plain.value!r})"))
    t.notes.append("each cell a forked child with cold caches; the time is certify_symplectic alone (building "
                   "the expressions, the chart and omega not counted); a cell not proved exactly shows its "
                   "verdict and stage")
    t.notes.append("exact stage = proof; a 'modular' stage (probabilistic proof) is not counted as proved")
    return t


# --------------------------------------------------------------------------- tables


def measure(builder, form, size_args, cap, repeats):
    """One cell; on a timeout, whether sympy's build had finished (and in how long)."""
    _BUILD_SECONDS.value = -1.0
    r = U.run_cell(certify_cell, builder, form, *size_args, cap=cap, repeats=repeats)
    if not r.ok and r.status == "timeout":
        built = _BUILD_SECONDS.value
        r.message = (f"sympy's build of the expressions did not finish in {cap:g} s" if built < 0 else
                     f"built in {built:.1f} s; the certificate did not finish within the {cap:g} s cap")
        r.extra["build"] = None if built < 0 else built
    return r


def forms_table(args, label, builder, size_args, want, cap, goal_key, goals, wrong_answers):
    """One row per form; each form is measured right after a fresh measurement of the
    substitute form (the load of a shared machine drifts during a run; a ratio taken
    from a pair measured together does not)."""
    t = U.Table(label, ["form", "build s", "certify s", "substitute s", "ratio", "verdict", "stage"])
    for form in FORMS:
        ref = measure(builder, "substitute", size_args, cap, args.repeats)
        r = ref if form == "substitute" else measure(builder, form, size_args, cap, args.repeats)
        if not r.ok:
            t.add(form, U.fmt_s(r.extra.get("build")), r.status, "-", "-", "-", r.message[:90])
            if r.extra.get("build", 0) is not None:  # the engine's fault, not sympy's build
                wrong_answers.append(f"{label}: {form}: {r.status} ({r.message[:90]})")
            continue
        right = r.value is want and (want is True or r.extra.get("counterexample"))
        if not right:
            wrong_answers.append(f"{label}: {form}: {r.value!r}")
        reference = ref.seconds if ref.ok else None
        t.add(form, U.fmt_s(r.extra.get("build")), U.fmt_s(r.seconds), U.fmt_s(reference),
              U.fmt_ratio(r.seconds, reference), repr(r.value) + ("" if right else " (WRONG)"),
              r.extra.get("stage", "-"))
        if goal_key is not None and reference and form != "substitute":
            goals.setdefault(goal_key, []).append((form, r.seconds / reference))
    t.notes.append("ratio = certify s / substitute s, the substitute form measured again right before "
                   "each row; build = sympy building the expressions (not part of certify s)")
    return t


def pitfall_note():
    """What sympy's simultaneous subs does with the chart's own symbols (a different map)."""
    return ("not a row: diff(V(q), q_i).subs({q: Q}, simultaneous=True) with the chart's OWN symbols q "
            "is a different map in sympy 1.14 (q_i inside Q_j is captured by the derivative variable), "
            "so False is the right verdict for it; with fresh symbols y (the rows above) it is Verlet")


# --------------------------------------------------------------------------- driver


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[1])
    ap.add_argument("--n", type=int, default=None,
                    help=f"degrees of freedom of the Verlet map (default {N}; --quick {QUICK_N})")
    ap.add_argument("--steps", type=int, default=None,
                    help=f"composed steps on 1 DOF (default {STEPS}; --quick {QUICK_STEPS}; 0 skips)")
    ap.add_argument("--cap", type=float, default=120.0, help="hard cap per certify cell (s)")
    ap.add_argument("--scaling-ns", type=U.int_list, default=None,
                    help=f"degrees of freedom of the scaling table (default {SCALING_NS}; --quick "
                         f"{QUICK_SCALING_NS}; empty string skips)")
    ap.add_argument("--build-cap", type=float, default=None,
                    help="cap on sympy building one composed map (s; default 300, --quick 20)")
    args = ap.parse_args(argv)
    n = args.n or (QUICK_N if args.quick else N)
    if args.steps is None:
        args.steps = QUICK_STEPS if args.quick else STEPS
    if args.build_cap is None:
        args.build_cap = 20.0 if args.quick else 300.0
    cap = min(args.cap, 30.0) if args.quick else args.cap

    U.print_header("bench_input_forms: one Verlet map, every notation for grad V(Q)", args)
    gc = U.load_engine(args, ENGINE_NAMES)
    if gc is None:
        print("nothing to measure without the engine", flush=True)
        return 0

    goals: dict = {}
    wrong: list[str] = []
    t = forms_table(args, f"Stormer-Verlet, n = {n} (dim {2 * n}), generic V: "
                    "certify_symplectic(Map(M, M, exprs), w)", verlet, (n,), True, cap,
                    None if args.quick else f"n = {n}", goals, wrong)
    t.notes.append(pitfall_note())
    t.show(args.markdown)

    t = forms_table(args, f"wrong variant (last kick at the OLD point q), n = {n}: must be False "
                    "with a counterexample", verlet, (n, True), False, cap, None, goals, wrong)
    t.show(args.markdown)

    if args.steps > 0:
        k = args.steps
        t = forms_table(args, f"{k} composed Verlet steps, 1 DOF: certify_symplectic(Map(M, M, [Q_{k}, P_{k}]),"
                        " dq^dp)", composed, (k,), True, args.build_cap + cap,
                        None if args.quick else f"{k} composed steps", goals, wrong)
        t.notes.append("build = sympy building the nested expressions (its Subs constructor prints every "
                       "point to name a placeholder); a cell is capped at --build-cap + --cap seconds")
        t.show(args.markdown)

    ns = args.scaling_ns if args.scaling_ns is not None else (QUICK_SCALING_NS if args.quick else SCALING_NS)
    if ns:
        scaling_table(args, ns, cap, goals, wrong).show(args.markdown)

    print("goals:", flush=True)
    status = 0
    line = "every verdict right (True for Verlet, False with a counterexample for the wrong variant)"
    if wrong:
        status = 1
        print(f"  [MISS] {line}: {wrong}", flush=True)
    else:
        print(f"  [PASS] {line}", flush=True)
    scaling = goals.pop("scaling", None)
    if scaling is not None:
        unproved = [f for f, sec in scaling if sec is None]
        worst = max((fs for fs in scaling if fs[1] is not None), key=lambda fs: fs[1], default=None)
        verdict, text = U.goal(f"n = {SCALING_GOAL_N}, every form proved, slowest certify_symplectic"
                               + (f" ({worst[0]})" if worst else "") + (f" (not proved: {unproved})" if unproved else ""),
                               None if unproved or worst is None else worst[1], SCALING_GOAL_SECONDS, " s")
        print("  " + text, flush=True)
        if verdict != "PASS":
            status = 1
    for key, ratios in goals.items():
        worst = max(ratios, key=lambda fr: fr[1]) if ratios else None
        verdict, text = U.goal(f"{key}: slowest form / substitute form"
                               + (f" ({worst[0]})" if worst else ""),
                               worst[1] if worst else None, GOAL_RATIO, "x")
        print("  " + text, flush=True)
        if verdict != "PASS":
            status = 1
    print("  timings are noisy: 2 cores shared with other jobs", flush=True)

    if args.profile:
        for form in ("substitute", "Subs"):
            print(f"\ncProfile, {form}, n = {n} (top 25 by cumtime):", flush=True)
            print(U.run_profile(certify_cell, verlet, form, n), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
