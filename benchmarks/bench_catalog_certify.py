"""Benchmark: certify every property of every catalog scheme on generic 1- and 2-dof systems.

Issue 5's performance requirement: "Certify every property of every scheme in the
integrators catalog on generic one- and two-degree-of-freedom systems in at most 60 s in
total."  For every scheme of ``integrators.list_schemes()`` and every system it applies to,
one cell (a forked child, cold caches) builds the step map and certifies its order and
every declared property (``Scheme.certify``), timing each certificate.

Systems (V an undefined function: a *generic* potential, decided through its jets):

* ``1dof``  H = p1^2/2 + V(q1)
* ``2dof``  H = (p1^2 + p2^2)/2 + V(q1, q2)
* for the contact scheme: the contact Hamiltonians p1^2/2 + V(x1) + gamma z and
  (p1^2 + p2^2)/2 + V(x1, x2) + gamma z

Every verdict must be True (the catalog's properties are theorems); anything else is
printed as WRONG.  There is no external baseline for this task; ``--baseline`` also
times the symplecticity certificate of gauss-legendre-4 on 2 dof with the implicit
function theorem forced onto the symbolic route (the engine before implicit
derivatives), under its own cap.

Run ``python benchmarks/bench_catalog_certify.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U  # noqa: E402

GOAL_SECONDS = 60.0
QUICK_SCHEMES = ("stormer-verlet", "implicit-midpoint", "gauss-legendre-4", "contact-splitting-2")


def _systems(kind):
    import sympy
    import integrators as ig

    V = sympy.Function("V")
    if kind == "contact":
        x1, x2, p1, p2, z, g = sympy.symbols("x1 x2 p1 p2 z gamma")
        return {"1dof": ig.ContactSystem(p1**2 / 2 + V(x1) + g * z, [x1], [p1], z),
                "2dof": ig.ContactSystem((p1**2 + p2**2) / 2 + V(x1, x2) + g * z, [x1, x2], [p1, p2], z)}
    q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    return {"1dof": ig.HamiltonianSystem(p1**2 / 2 + V(q1), q=[q1], p=[p1]),
            "2dof": ig.HamiltonianSystem((p1**2 + p2**2) / 2 + V(q1, q2), q=[q1, q2], p=[p1, p2])}


def _system_for(name, dof):
    import integrators as ig

    scheme = ig.scheme(name)
    for kind in ("hamiltonian", "contact"):
        system = _systems(kind)[dof]
        if scheme.why_not(system) is None:
            return scheme, system
    if dof == "1dof":
        # damped, constrained, coupled natural, port-Hamiltonian schemes: their generic example system
        from integrators.examples import default_example_for

        system = ig.example_system(default_example_for(scheme))
        if scheme.why_not(system) is None:
            return scheme, system
    return scheme, None


def certify_cell(name, dof):
    """Build the step (its stages) and certify the order and every declared property, timed one by one."""
    scheme, system = _system_for(name, dof)
    U.clear_caches()
    t0 = time.perf_counter()
    # a composition's stages (its composite map is built only by a certificate that needs it)
    stages = scheme.stages(system)
    phi = stages[0].map
    build = time.perf_counter() - t0
    rows = []
    for prop in ["order", *sorted(scheme.properties)]:
        t1 = time.perf_counter()
        cert = scheme.certify(system, properties=[prop]).get(prop)
        if cert is None:
            continue
        rows.append((prop, cert.holds, cert.stage, time.perf_counter() - t1))
    total = time.perf_counter() - t0
    mode = "explicit" if not hasattr(phi, "equations") else (getattr(phi, "derivative_mode", None) or "implicit, no IFT")
    return rows, {"seconds": total, "build": build, "mode": mode,
                  "unknowns": len(getattr(phi, "unknowns", ()))}


def symbolic_route_cell():
    """gauss-legendre-4, 2 dof, symplecticity with the symbolic implicit-function-theorem route forced."""
    import geomcheck as gc
    from geomcheck import maps

    maps.SYMBOLIC_IFT_MAX_UNKNOWNS = 10**6
    maps.SYMBOLIC_IFT_BUDGET = 10.0**6
    scheme, system = _system_for("gauss-legendre-4", "2dof")
    U.clear_caches()
    t0 = time.perf_counter()
    try:
        cert = gc.certify_symplectic(scheme.step_map(system), system.omega)
        verdict = cert.holds
    except gc.errors.GeomcheckError as exc:
        verdict = f"{type(exc).__name__}: {str(exc)[:90]}"
    return verdict, {"seconds": time.perf_counter() - t0}


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[0])
    ap.add_argument("--schemes", default=None,
                    help="comma-separated scheme names (default: the whole catalog; --quick: "
                         + ", ".join(QUICK_SCHEMES) + ")")
    ap.add_argument("--cap", type=float, default=None, help="hard cap per cell in seconds (default 300; --quick 60)")
    ap.add_argument("--baseline", action="store_true",
                    help="also time gauss-legendre-4 / 2 dof / symplectic on the forced symbolic route")
    ap.add_argument("--baseline-cap", type=float, default=300.0, help="cap of the --baseline cell (default 300 s)")
    args = ap.parse_args(argv)
    cap = args.cap or (60.0 if args.quick else 300.0)
    U.print_header("bench_catalog_certify: every property of every catalog scheme, generic 1- and 2-dof systems",
                   args)
    gc, why = U.engine(())
    if gc is None:
        print(f"# engine unavailable ({why})", flush=True)
        return 1
    import integrators as ig

    names = (args.schemes.split(",") if args.schemes else
             [n for n in ig.list_schemes() if n in QUICK_SCHEMES] if args.quick else ig.list_schemes())
    detail = U.Table("certificates: scheme x system x property (each scheme/system cell in a fresh child, cold caches)",
                     ["scheme", "system", "map", "property", "verdict", "stage", "seconds"])
    totals = U.Table("per scheme and system: build + all certificates", ["scheme", "system", "map", "seconds"])
    wrong, total, complete = [], 0.0, True
    for name in names:
        for dof in ("1dof", "2dof"):
            _scheme, system = _system_for(name, dof)
            if system is None:
                continue
            r = U.run_cell(certify_cell, name, dof, cap=cap, repeats=1)
            if not r.ok:
                complete = False
                wrong.append(f"{name} {dof}: {r.status} {r.message}")
                detail.add(name, dof, "-", "-", r.status, "-", "-")
                totals.add(name, dof, "-", r.status)
                continue
            mode = r.extra["mode"]
            if r.extra["unknowns"]:
                mode += f" ({r.extra['unknowns']} unknowns)"
            for prop, holds, stage, seconds in r.value:
                detail.add(name, dof, mode, prop, holds, stage, U.fmt_s(seconds))
                if holds is not True:
                    wrong.append(f"{name} {dof} {prop}: {holds} ({stage})")
            total += r.seconds
            totals.add(name, dof, mode, U.fmt_s(r.seconds))
    totals.add("TOTAL", "", "", U.fmt_s(total))
    detail.notes.append("map: explicit, or an implicit map whose derivatives are symbolic (sparse elimination) or "
                        "implicit (numeric implicit function theorem at evaluation points)")
    totals.notes.append("seconds include building the step (`scheme.stages(system)`; a composition's composite"
                        " only when a certificate needs it); the parent's process start and imports are not counted")
    detail.show(args.markdown)
    totals.show(args.markdown)
    goals = [U.goal("catalog: every property of every scheme on 1 and 2 dof" + (" (--quick subset)" if args.quick else ""),
                    total if complete else None, GOAL_SECONDS, " s")]

    if args.baseline:
        t = U.Table("gauss-legendre-4, 2 dof, symplectic: symbolic implicit function theorem forced (the route before "
                    "implicit derivatives)", ["route", "seconds", "verdict"])
        r = U.run_cell(symbolic_route_cell, cap=args.baseline_cap, repeats=1)
        t.add("symbolic (forced)", U.fmt_s(r.seconds, r.status), r.value if r.ok else r.message)
        t.show(args.markdown)

    for _verdict, line in goals:
        print(line, flush=True)
    for w in wrong:
        print(f"[WRONG] {w}", flush=True)
    missed = any(v == "MISS" for v, _ in goals)
    return 1 if wrong or (missed and not args.quick) else 0


if __name__ == "__main__":
    sys.exit(main())
