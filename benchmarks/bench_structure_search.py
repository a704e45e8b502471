"""Benchmark: the port-Hamiltonian structure search (find_port_hamiltonian) on four systems.

Each cell is timed from the system's equations to the ranked, re-certified answer (the
family, the integrability conditions [D, D] = 0 and their Groebner bases, the candidates,
their certificates: F reproduced, R >= 0, Q o Q = 0; or the infeasibility certificate).

(a) paper      Salnikov & Hamdouni 2019, Sec. 4: oscillator + Van der Pol with the port
               e_i = 1 (the family of 6 free parameters: every constant skew J, R = 0);
               require R >= 0 and Q o Q = 0, epsilon != 0.  Answer: only J = 0 (for A != 0).
(a') paper J12 the same with J12 != 0 and A != 0 required: infeasible (Groebner basis {1}).
(b) pendulum   a chain of N pendula coupled by springs, linear damping c > 0 (degree 0).
(c) RLC        parallel RLC with a cubic resistor i = a v + b v^3 (degree-2 ansatz, 6 free
               parameters): monotone (a = b = 1) and tunnel-diode (a = -1, b = 1, infeasible
               by a sign argument).
(d) beam       the coupled beam of Terakawa & Yaguchi, a small discretization (N nodes of a
               beam, K = D2^2, glued to a mass by a spring) with Rayleigh damping
               alpha M + beta K, alpha, beta > 0 (degree 0).

Goal (issue 20): the structure search on the paper's example within 10 s.

Run ``python benchmarks/bench_structure_search.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Make ``import geomcheck`` work from a source checkout without installing.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U

ENGINE_NAMES = ()
PAPER_GOAL = 10.0


# --------------------------------------------------------------------------- problems
def paper(require_J12=False):
    import sympy

    x1, x2, q1, q2 = sympy.symbols("x1 x2 q1 q2")
    m, Om, A, eps, Omt = sympy.symbols("m Omega A epsilon Omega_t")
    F = [x2, m * Om**2 * q1 - x1, q2, -A * x1 - Omt**2 * q1 + eps * (1 - q1**2) * q2]
    H = (x1**2 + x2**2) / 2 + (Omt**2 * q1**2 + q2**2) / 2
    nonzero = [eps, A, sympy.Symbol("J12")] if require_J12 else [eps]
    return F, [x1, x2, q1, q2], H, {"port": "e_i", "nonzero": nonzero}


def pendulum(N):
    import sympy

    c, k = sympy.symbols("c k", positive=True)
    q = sympy.symbols(f"q1:{N + 1}", real=True)
    p = sympy.symbols(f"p1:{N + 1}", real=True)
    H = sum(pi**2 / 2 for pi in p) + sum(1 - sympy.cos(qi) for qi in q) \
        + sum(k * (q[i] - q[i + 1])**2 / 2 for i in range(N - 1))
    F = list(p) + [-sympy.diff(H, q[i]) - c * p[i] for i in range(N)]
    return F, list(q) + list(p), H, {}


def rlc(a, b):
    import sympy

    Q, phi = sympy.symbols("Q phi", real=True)
    C, L = sympy.symbols("C L", positive=True)
    v = Q / C
    return [-phi / L - (a * v + b * v**3), Q / C], [Q, phi], Q**2 / (2 * C) + phi**2 / (2 * L), {"degree": 2}


def beam(N):
    import sympy

    al, be, kappa = sympy.symbols("alpha beta kappa", positive=True)
    u = sympy.symbols(f"u1:{N + 1}", real=True)
    v = sympy.symbols(f"v1:{N + 1}", real=True)
    q, p = sympy.symbols("q p", real=True)
    D2 = sympy.zeros(N, N)
    for i in range(N):
        D2[i, i] = -2
        if i + 1 < N:
            D2[i, i + 1] = D2[i + 1, i] = 1
    K = D2 * D2
    U_, V = sympy.Matrix(u), sympy.Matrix(v)
    H = (V.T * V)[0] / 2 + (U_.T * K * U_)[0] / 2 + kappa * (u[1] - q)**2 / 2 + p**2 / 2
    damping = al * sympy.eye(N) + be * K
    F = list(v) + [p] + list(-(sympy.Matrix([sympy.diff(H, w) for w in u]) + damping * V)) + [-sympy.diff(H, q)]
    return F, list(u) + [q] + list(v) + [p], H, {}


PROBLEMS = {
    "paper": (paper, (), "R = 0, J = 0 (A != 0)", True),
    "paper, J12 != 0": (paper, (True,), "infeasible (Groebner {1})", False),
    "pendulum N=2": (pendulum, (2,), "J canonical, R = diag(0, c)", True),
    "pendulum N=3": (pendulum, (3,), "J canonical, R = diag(0, c)", True),
    "RLC monotone": (rlc, (1, 1), "R11 = 1 + Q^2/C^2", True),
    "RLC tunnel diode": (rlc, (-1, 1), "infeasible (sign at Q = 0)", False),
    "beam N=3": (beam, (3,), "R = Rayleigh block", True),
    "beam N=4": (beam, (4,), "R = Rayleigh block", True),
}
QUICK = ["paper", "paper, J12 != 0", "pendulum N=2", "RLC tunnel diode", "beam N=3"]


def search(name):
    import time

    from geomcheck.structures.port_hamiltonian_search import find_port_hamiltonian

    build, args, _expected, _holds = PROBLEMS[name]
    F, x, H, options = build(*args)
    t0 = time.perf_counter()
    s = find_port_hamiltonian(F, x, H, **options)
    seconds = time.perf_counter() - t0
    cert = "-"
    if s.best is not None:
        b = s.best
        cert = f"F {b.reproduces.holds}, R>=0 {b.psd.holds}, QoQ=0 {b.integrable.holds}"
    elif s.infeasibility:
        cert = "; ".join(f"{c.kind}: {c.method}"[:70] for c in s.infeasibility[-1:])
    return s.holds, {"seconds": seconds, "dim": len(x), "params": len(s.parameters), "members": len(s.members),
                     "tried": len(s.members) + len(s.rejected), "score": s.best.score if s.best else "-",
                     "cert": cert}


# --------------------------------------------------------------------------- driver
def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[0])
    ap.add_argument("--cap", type=float, default=300.0, help="hard time cap per cell (s)")
    args = ap.parse_args(argv)
    if args.no_engine:
        print("bench_structure_search measures the engine only; nothing to do with --no-engine", flush=True)
        return 0
    U.print_header("bench_structure_search: find_port_hamiltonian on four systems", args)
    gc, why = U.engine(ENGINE_NAMES)
    if gc is None:
        print(f"# engine unavailable ({why})", flush=True)
        return 1
    names = QUICK if args.quick else list(PROBLEMS)
    cap = min(args.cap, 60.0) if args.quick else args.cap
    t = U.Table("structure search: members with R >= 0 and Q o Q = 0, or a proof that there is none",
                ["system", "dim", "free params", "expected", "holds", "verdict", "members / tried",
                 "best score", "certificates", "seconds"])
    goals, wrong = [], 0
    for name in names:
        r = U.run_cell(search, name, cap=cap, repeats=args.repeats)
        expected_holds = PROBLEMS[name][3]
        ok = r.ok and r.value is expected_holds
        wrong += 0 if ok else 1
        e = r.extra
        t.add(name, e.get("dim", "-"), e.get("params", "-"), PROBLEMS[name][2], r.value if r.ok else r.status,
              "ok" if ok else "WRONG", f"{e.get('members', '-')} / {e.get('tried', '-')}", e.get("score", "-"),
              e.get("cert", r.message), U.fmt_s(r.seconds, r.status))
        if name == "paper":
            goals.append(U.goal("structure search on the paper's example", r.seconds if r.ok else None,
                                PAPER_GOAL, " s"))
    t.notes.append("holds: True = a member with every requirement proved; False = infeasibility proved")
    t.notes.append("best score (sparsity objective): state-dependent entries of J, of R, sum of their degrees,"
                   " nonzero entries")
    t.show(args.markdown)
    for _verdict, line in goals:
        print(line, flush=True)
    print(f"verdicts: {len(names) - wrong} / {len(names)} as expected", flush=True)
    return 0 if wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
